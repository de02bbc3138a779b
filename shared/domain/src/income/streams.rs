//! Sightings first, then streams. Every source a provider hands over is a run of sightings of
//! money: a bank's deposits, payroll's pays, a stub's pay, a statement's deposits, a letter's
//! award. One job may be seen by several of them (payroll and the bank), and one pay may arrive
//! split (across two accounts, or as two credits on one day). Before any rule runs, [`group`]
//! gathers the sightings into the tenant's real income streams, so each job is counted once:
//!
//! 1. **Gross sightings anchor streams.** Each source whose amounts are gross (payroll, a
//!    stub, a letter) is a stream, payroll first. A stub whose pays meet a payroll stream's (pay
//!    dates up to [`LAG_DAYS`] apart, the same gross or net pay to the cent, names not naming two
//!    employers) joins it.
//! 2. **Deposits pair with the anchors' net pays** (`pairing`). A deposit posted from
//!    [`EARLY_DAYS`] before to [`LAG_DAYS`] after a net pay, for the same amount to the cent
//!    ([`SAME_PAY_CENTS`]), is that pay. The deposit source that pairs with the most pays is the
//!    job's account and pairs first (then the name that supports the anchor's, then the source
//!    on the anchor's stated cycle); the pays left pair with up to [`MAX_SPLIT_CREDITS`] credits
//!    of one day that add up to them (a pay split across accounts). Each deposit pairs once. The
//!    pairs stand when at least [`MIN_PAIRED`] net pays pair (one, when only one falls inside the
//!    deposits' dates: a single stub pairs with its deposit) and at least
//!    [`MIN_PAIRED_SHARE`] of those inside pair.
//! 3. **A paired run continues.** The sources that paired keep giving the stream sightings
//!    outside the anchor's dates: deposits of the amount they paired with (within
//!    [`NET_TOLERANCE_SHARE`] or [`NET_TOLERANCE_CENTS`]: a raise moves net pay a little), or a
//!    day's credits that make the net pay. A run that ends just before the anchor's first pay,
//!    or begins just after its last, and holds at least [`MIN_PAIRED`] deposits of its net pay,
//!    joins it too (the bank's data ends before a stub's pay posted).
//! 4. **What is left of a deposit source is a stream of its own**, its same-day credits summed;
//!    two accounts under one name whose deposits fall on the same days are one stream, each
//!    pay the sum of its parts (a part may post up to [`EARLY_DAYS`] later than the other).
//!
//! Payer names ([`name_affinity`]) only support: processors and generic words name nobody, and
//! a name that names another employer keeps a deposit out. A run of pays that pairs with
//! deposits is one job whatever the bank calls the payer, and two jobs stay two, even paid the
//! same amount on the same day, because each deposit pairs once. Money that is not income never
//! pairs. No I/O and no figures here: the rules (`income::rules`) run once per stream.

use chrono::{Duration, NaiveDate};

use super::payer::name_affinity;
use super::{
    AmountsBasis, Payment, ProviderIncome, VerificationMethod, is_income_category, window_payments,
};
use crate::affordability::cents_of;

/// A run continues at amounts within this share of those it paired with (a raise, a changed
/// deduction)...
pub const NET_TOLERANCE_SHARE: f64 = 0.02;
/// ...or within this many cents, whichever is larger (a bank's fee on a small deposit).
pub const NET_TOLERANCE_CENTS: i64 = 500;
/// A deposit may post this many days before the pay date (banks that post early)...
pub const EARLY_DAYS: i64 = 2;
/// ...and this many days after it (weekends, holidays, a slow transfer).
pub const LAG_DAYS: i64 = 5;
/// At least this many net pays must pair with deposits...
pub const MIN_PAIRED: usize = 2;
/// ...and at least this share of the net pays inside the deposits' dates.
pub const MIN_PAIRED_SHARE: f64 = 0.5;
/// One pay may arrive as this many credits of one day at most.
pub const MAX_SPLIT_CREDITS: usize = 3;
/// Two deposit runs under one name are one pay split across accounts when this share of each
/// one's days are the other's days too.
pub const SAME_DAYS_SHARE: f64 = 0.8;
/// A deposit is a net pay when it is this close to it: to the cent, as banks credit it.
pub const SAME_PAY_CENTS: i64 = 0;
/// Of one stream's sightings, the one whose amounts make its figure: payroll states gross and
/// net from the system of record; a stub is the tenant's copy of it; a deposit shows net only.
pub const KEEP_ORDER: [VerificationMethod; 3] = [
    VerificationMethod::Payroll,
    VerificationMethod::Document,
    VerificationMethod::Bank,
];

/// One source's part in a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The source's index in the income's `sources`.
    pub source: usize,
    pub method: VerificationMethod,
    /// The source's pays in this stream, inside the window, oldest first.
    pub payments: Vec<Payment>,
    /// Of those, the ones outside the level member's pays, as the pay dates they stand for (less
    /// the run's posting lag): the job seen longer.
    pub extends: Vec<NaiveDate>,
}

/// One income stream: the level member first (the sighting whose amounts make the figure), then
/// every other sighting of the same income.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    pub members: Vec<Member>,
}

impl Stream {
    pub fn level(&self) -> &Member {
        &self.members[0]
    }

    /// The most recent sighting of any member.
    pub fn last_seen(&self) -> Option<NaiveDate> {
        (self.members.iter())
            .flat_map(|m| m.payments.iter().map(|p| p.date))
            .max()
    }

    /// The stream's pay dates: the level member's, and those other members extend it with.
    pub fn timeline(&self) -> Vec<NaiveDate> {
        let mut dates: Vec<NaiveDate> = (self.level().payments.iter().map(|p| p.date))
            .chain(self.members[1..].iter().flat_map(|m| m.extends.clone()))
            .collect();
        dates.sort();
        dates.dedup();
        dates
    }
}

/// Whether two amounts of one source are the same pay, within the tolerance.
fn cents_match(a: i64, b: i64) -> bool {
    let allowed = ((a.max(b) as f64 * NET_TOLERANCE_SHARE).round() as i64).max(NET_TOLERANCE_CENTS);
    (a - b).abs() <= allowed
}

/// Whether a deposit, or credits of one day, are the net pay: to the cent. A bank credits the
/// net pay as payroll states it, so amounts that differ more are other money, whatever the names.
fn same_pay(deposit: i64, net: i64) -> bool {
    (deposit - net).abs() <= SAME_PAY_CENTS
}

/// One deposit of the pool the anchors pair with.
struct Deposit {
    source: usize,
    date: NaiveDate,
    cents: i64,
    taken: bool,
}

impl Deposit {
    fn payment(&self) -> Payment {
        Payment {
            date: self.date,
            amount: self.cents as f64 / 100.0,
        }
    }
}

/// The deposits of `source` no stream has taken, oldest first.
fn untaken(pool: &[Deposit], source: usize) -> Vec<Payment> {
    (pool.iter())
        .filter(|d| d.source == source && !d.taken)
        .map(Deposit::payment)
        .collect()
}

/// A stream being built.
struct Building {
    members: Vec<Member>,
    /// Its net pays (date, cents): the level member's, else its other gross members'.
    nets: Vec<(NaiveDate, i64)>,
    /// Its payer names, for tie-breaks.
    names: Vec<String>,
    /// The days between its pays, as its level source states them.
    period_days: Option<f64>,
}

/// The income's sources grouped into streams, in the order of their level source.
pub fn group(income: &ProviderIncome) -> Vec<Stream> {
    let as_of = income.as_of;
    let method_of = |i: usize| income.sources[i].method.unwrap_or(income.method);
    let rank = |m: VerificationMethod| KEEP_ORDER.iter().position(|k| *k == m);
    let is_gross = |i: usize| income.sources[i].basis(income.method) == AmountsBasis::Gross;
    let mut anchors: Vec<usize> = (0..income.sources.len()).filter(|i| is_gross(*i)).collect();
    anchors.sort_by_key(|i| (rank(method_of(*i)), *i));

    let mut building: Vec<Building> = Vec::new();
    for &i in &anchors {
        let source = &income.sources[i];
        let member = Member {
            source: i,
            method: method_of(i),
            payments: window_payments(&source.payments, as_of),
            extends: vec![],
        };
        let nets: Vec<(NaiveDate, i64)> = (window_payments(&source.net_payments, as_of).iter())
            .map(|p| (p.date, cents_of(p.amount)))
            .collect();
        let joins = building.iter().position(|b| {
            method_of(b.members[0].source) != member.method
                && is_income_category(&super::normalise_category(&source.category))
                && b.names.iter().all(|n| name_affinity(n, &source.name) >= 0)
                && gross_runs_pair(&b.members[0].payments, &b.nets, &member.payments, &nets)
        });
        match joins {
            Some(k) => {
                let b = &mut building[k];
                for n in nets {
                    if !b.nets.iter().any(|(d, _)| near(*d, n.0)) {
                        b.nets.push(n);
                    }
                }
                b.nets.sort();
                b.names.push(source.name.clone());
                b.members.push(member);
            }
            None => building.push(Building {
                members: vec![member],
                nets,
                names: vec![source.name.clone()],
                period_days: source.pay_frequency.map(|f| f.period_days()),
            }),
        }
    }

    let mut pool: Vec<Deposit> = (0..income.sources.len())
        .filter(|i| !is_gross(*i))
        .filter(|i| is_income_category(&super::normalise_category(&income.sources[*i].category)))
        .flat_map(|i| {
            window_payments(&income.sources[i].payments, as_of)
                .into_iter()
                .map(move |p| Deposit {
                    source: i,
                    date: p.date,
                    cents: cents_of(p.amount),
                    taken: false,
                })
        })
        .collect();
    pool.sort_by_key(|d| (d.date, d.source));
    let names: Vec<&str> = income.sources.iter().map(|s| s.name.as_str()).collect();
    for b in &mut building {
        let claimed = pairing::pair_deposits(b, &mut pool, &names);
        for (source, deposits) in claimed {
            let level_span = span_of(&b.members[0].payments);
            let lag = Duration::days(pairing::posting_lag(&b.nets, &deposits));
            let extends = deposits
                .iter()
                .filter(|p| level_span.is_none_or(|(a, z)| p.date < a || p.date > z))
                .map(|p| p.date - lag)
                .collect();
            b.members.push(Member {
                source,
                method: method_of(source),
                payments: deposits,
                extends,
            });
        }
    }

    let mut streams: Vec<Stream> = building
        .into_iter()
        .map(|b| Stream { members: b.members })
        .collect();
    // What is left of each deposit source, its same-day credits summed; one payer's deposits
    // into two accounts, on the same days under the same name, are one stream.
    let mut left: Vec<(usize, Vec<Payment>)> = Vec::new();
    for i in (0..income.sources.len()).filter(|i| !is_gross(*i)) {
        let taken_any = pool.iter().any(|d| d.source == i && d.taken);
        let rest: Vec<Payment> =
            if is_income_category(&super::normalise_category(&income.sources[i].category)) {
                untaken(&pool, i)
            } else {
                window_payments(&income.sources[i].payments, as_of)
            };
        if !(rest.is_empty() && taken_any) {
            left.push((i, rest));
        }
    }
    let mut residual: Vec<Vec<(usize, Vec<Payment>)>> = Vec::new();
    for (i, rest) in left {
        let key = name_key(&income.sources[i].name);
        let same_account_holder = residual.iter().position(|group| {
            let (j, other) = &group[0];
            method_of(*j) == method_of(i)
                && name_key(&income.sources[*j].name) == key
                && income.sources[*j].category == income.sources[i].category
                && same_days(other, &rest)
        });
        match same_account_holder {
            Some(g) => residual[g].push((i, rest)),
            None => residual.push(vec![(i, rest)]),
        }
    }
    for group in residual {
        let runs: Vec<&[Payment]> = group.iter().map(|(_, p)| p.as_slice()).collect();
        let summed = account_pays(&runs);
        let members = group
            .into_iter()
            .enumerate()
            .map(|(k, (source, payments))| Member {
                source,
                method: method_of(source),
                payments: if k == 0 { summed.clone() } else { payments },
                extends: vec![],
            })
            .collect();
        streams.push(Stream { members });
    }
    streams.sort_by_key(|s| s.level().source);
    streams
}

/// A deposit description without its changing numbers, to tell one payer's accounts apart.
fn name_key(name: &str) -> String {
    name.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether two runs fall on the same days: at least [`SAME_DAYS_SHARE`] of each one's days
/// are days of the other too, as the parts of one pay split across two accounts do.
fn same_days(a: &[Payment], b: &[Payment]) -> bool {
    let within = |x: &[Payment], y: &[Payment]| {
        let shared = x
            .iter()
            .filter(|p| y.iter().any(|q| q.date == p.date))
            .count();
        !x.is_empty() && shared as f64 >= SAME_DAYS_SHARE * x.len() as f64
    };
    within(a, b) && within(b, a)
}

/// Whether two dates are one pay date, a weekend or a slow posting apart.
fn near(a: NaiveDate, b: NaiveDate) -> bool {
    (a - b).num_days().abs() <= LAG_DAYS.max(EARLY_DAYS)
}

fn span_of(payments: &[Payment]) -> Option<(NaiveDate, NaiveDate)> {
    Some((
        payments.first()?.date - Duration::days(EARLY_DAYS),
        payments.last()?.date + Duration::days(LAG_DAYS),
    ))
}

/// The pays of one payer's accounts (one run each, oldest first): each account's credits of one
/// day summed, then joined with the other accounts' credits posted up to [`EARLY_DAYS`] from
/// them, the nearest first. The parts of a split pay mostly post on the same day, but one
/// account may post a day later; summing only same-day credits would count the late part as
/// a pay of its own and halve the mean.
fn account_pays(runs: &[&[Payment]]) -> Vec<Payment> {
    let mut pays: Vec<(Payment, Vec<usize>)> = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        for p in same_day_summed(run) {
            let part_of = (pays.iter_mut())
                .filter(|(q, from)| {
                    !from.contains(&k) && (q.date - p.date).num_days().abs() <= EARLY_DAYS
                })
                .min_by_key(|(q, _)| (q.date - p.date).num_days().abs());
            match part_of {
                Some((q, from)) => {
                    q.amount = (cents_of(q.amount) + cents_of(p.amount)) as f64 / 100.0;
                    q.date = q.date.min(p.date);
                    from.push(k);
                }
                None => pays.push((p, vec![k])),
            }
        }
    }
    let mut pays: Vec<Payment> = pays.into_iter().map(|(p, _)| p).collect();
    pays.sort_by_key(|p| p.date);
    pays
}

/// Credits of one day as one pay, oldest first.
fn same_day_summed(payments: &[Payment]) -> Vec<Payment> {
    let mut out: Vec<Payment> = Vec::new();
    for p in payments {
        match out.last_mut() {
            Some(last) if last.date == p.date => {
                last.amount = (cents_of(last.amount) + cents_of(p.amount)) as f64 / 100.0;
            }
            _ => out.push(*p),
        }
    }
    out
}

/// Whether a second gross run (`pays`, `nets`: a stub) is the same pays as the anchor's: enough
/// of its pays, inside the anchor's dates, meet one of the anchor's on a near date with the same
/// gross or the same net amount.
fn gross_runs_pair(
    anchor: &[Payment],
    anchor_nets: &[(NaiveDate, i64)],
    pays: &[Payment],
    nets: &[(NaiveDate, i64)],
) -> bool {
    let Some((start, end)) = span_of(anchor) else {
        return false;
    };
    let inside: Vec<&Payment> = pays
        .iter()
        .filter(|p| p.date >= start && p.date <= end)
        .collect();
    let net_on = |list: &[(NaiveDate, i64)], date: NaiveDate| {
        list.iter().find(|(d, _)| *d == date).map(|(_, c)| *c)
    };
    let paired = inside
        .iter()
        .filter(|p| {
            anchor.iter().any(|a| {
                near(a.date, p.date)
                    && (same_pay(cents_of(a.amount), cents_of(p.amount))
                        || net_on(anchor_nets, a.date)
                            .zip(net_on(nets, p.date))
                            .is_some_and(|(x, y)| same_pay(x, y)))
            })
        })
        .count();
    enough(paired, inside.len())
}

/// Whether `paired` of `inside` pays make a run: [`MIN_PAIRED`] (fewer when fewer are inside)
/// and [`MIN_PAIRED_SHARE`] of them.
fn enough(paired: usize, inside: usize) -> bool {
    paired >= 1
        && paired >= MIN_PAIRED.min(inside)
        && paired as f64 >= MIN_PAIRED_SHARE * inside as f64
}

mod pairing;

#[cfg(test)]
mod tests;
