//! How a stream's net pays pair with deposits (`income::streams`, steps 2 and 3): one deposit
//! source first, split credits next, a run that continues the pays, and a run that adjoins them
//! when none falls beside a pay.

use chrono::{Duration, NaiveDate};

use super::{
    Building, Deposit, EARLY_DAYS, LAG_DAYS, MAX_SPLIT_CREDITS, MIN_PAIRED, SAME_PAY_CENTS,
    cents_match, enough, name_key, same_days, same_pay, untaken,
};
use crate::affordability::cents_of;
use crate::income::Payment;
use crate::income::cadence::measure;
use crate::income::payer::name_affinity;

/// Pairs the stream's net pays with deposits of the pool and, when the pairs stand, takes them
/// and the deposits that continue them; returns what it took, per deposit source.
///
/// One deposit source is the job's account: the source whose single deposits pair with the most
/// net pays (then the name that supports most, then the closest amounts) pairs first, so a run
/// of pays pairs with one run of deposits and never with a mix of two jobs' deposits. The net
/// pays left then pair with credits of one day that add up to them (a pay split across
/// accounts). A run of one pay pairs only with a deposit whose
/// name does not name another payer: one coincidence is no evidence.
pub(super) fn pair_deposits(
    b: &Building,
    pool: &mut [Deposit],
    names: &[&str],
) -> Vec<(usize, Vec<Payment>)> {
    let affinity = |source: usize| {
        (b.names.iter())
            .map(|n| name_affinity(n, names[source]))
            .max()
            .unwrap_or(0)
    };
    let window = |date: NaiveDate, k: usize| {
        pool[k].date >= date - Duration::days(EARLY_DAYS)
            && pool[k].date <= date + Duration::days(LAG_DAYS)
    };
    // A deposit that names another payer is another job's, whatever its amount.
    let mut sources: Vec<usize> = (pool.iter())
        .filter(|d| !d.taken && affinity(d.source) >= 0)
        .map(|d| d.source)
        .collect();
    sources.sort();
    sources.dedup();
    // Whether a source's deposits come on the stream's stated cycle: between two runs that pair
    // alike, the one on the stream's own cycle is its account.
    let same_cadence = |source: usize| {
        let dates: Vec<NaiveDate> = (pool.iter())
            .filter(|d| d.source == source && !d.taken)
            .map(|d| d.date)
            .collect();
        let stated = b.period_days;
        measure(&dates, None)
            .frequency()
            .is_some_and(|f| stated.is_some_and(|p| (f.period_days() - p).abs() < 0.5))
    };
    // Each source's single-deposit pairs: (net pay index, deposit index).
    let singles = |source: usize| -> Vec<(usize, usize)> {
        let mut used: Vec<usize> = Vec::new();
        let mut pairs = Vec::new();
        for (n, &(date, cents)) in b.nets.iter().enumerate() {
            let best = (0..pool.len())
                .filter(|k| pool[*k].source == source && !pool[*k].taken && !used.contains(k))
                .filter(|k| window(date, *k) && same_pay(pool[*k].cents, cents))
                .min_by_key(|k| {
                    (
                        (pool[*k].cents - cents).abs(),
                        (pool[*k].date - date).num_days().abs(),
                    )
                });
            if let Some(k) = best {
                used.push(k);
                pairs.push((n, k));
            }
        }
        pairs
    };
    let ranked = sources
        .iter()
        .map(|s| {
            let pairs = singles(*s);
            let off: i64 = pairs
                .iter()
                .map(|(n, k)| (pool[*k].cents - b.nets[*n].1).abs())
                .sum();
            (pairs, affinity(*s), same_cadence(*s), off, *s)
        })
        .filter(|(pairs, ..)| !pairs.is_empty())
        .min_by_key(|(pairs, support, cadence, off, s)| {
            (std::cmp::Reverse(pairs.len()), -support, !cadence, *off, *s)
        });
    let mut chosen: Vec<(usize, Vec<usize>)> = ranked
        .map(|(pairs, ..)| pairs.into_iter().map(|(n, k)| (n, vec![k])).collect())
        .unwrap_or_default();
    // The net pays left: credits of one day, from any source, that add up to the pay.
    for (n, &(date, cents)) in b.nets.iter().enumerate() {
        if chosen.iter().any(|(m, _)| *m == n) {
            continue;
        }
        let held: Vec<usize> = chosen.iter().flat_map(|(_, ks)| ks.clone()).collect();
        let candidates: Vec<usize> = (0..pool.len())
            .filter(|k| !pool[*k].taken && !held.contains(k) && window(date, *k))
            .filter(|k| affinity(pool[*k].source) >= 0)
            .collect();
        let best = credit_sets(&candidates, pool)
            .into_iter()
            .filter(|set| set.len() > 1)
            .filter(|set| same_pay(set.iter().map(|k| pool[*k].cents).sum(), cents))
            .min_by_key(|set| {
                let sum: i64 = set.iter().map(|k| pool[*k].cents).sum();
                let support: i8 = set
                    .iter()
                    .map(|k| affinity(pool[*k].source))
                    .min()
                    .unwrap_or(0);
                (set.len(), -support, (sum - cents).abs(), set.clone())
            });
        if let Some(set) = best {
            chosen.push((n, set));
        }
    }
    if chosen.is_empty() {
        return adjoining_run(b, pool, names);
    }
    // The deposits' dates: a net pay outside them could not have paired.
    let sources_used: Vec<usize> = chosen
        .iter()
        .flat_map(|(_, ks)| ks.iter().map(|k| pool[*k].source))
        .collect();
    let dates = (pool.iter())
        .filter(|d| sources_used.contains(&d.source))
        .map(|d| d.date);
    let (Some(first), Some(last)) = (dates.clone().min(), dates.max()) else {
        return vec![];
    };
    let inside = (b.nets.iter())
        .filter(|(d, _)| {
            *d >= first - Duration::days(LAG_DAYS) && *d <= last + Duration::days(EARLY_DAYS)
        })
        .count();
    if !enough(chosen.len(), inside) {
        return vec![];
    }
    if let [(n, set)] = chosen.as_slice() {
        let sum: i64 = set.iter().map(|k| pool[*k].cents).sum();
        let opposed = set.iter().any(|k| affinity(pool[*k].source) < 0);
        if (sum - b.nets[*n].1).abs() > SAME_PAY_CENTS || opposed {
            return vec![];
        }
    }
    let mut taken: Vec<(usize, Vec<Payment>)> = Vec::new();
    for k in chosen.into_iter().flat_map(|(_, ks)| ks) {
        take(pool, k, &mut taken);
    }
    // The run continues outside the anchor's dates, at the amounts each source paired with.
    let Some((start, end)) = (b.nets.first().zip(b.nets.last())).map(|(a, z)| {
        (
            a.0 - Duration::days(EARLY_DAYS),
            z.0 + Duration::days(LAG_DAYS),
        )
    }) else {
        return taken;
    };
    let paired_amounts: Vec<(usize, Vec<i64>)> = taken
        .iter()
        .map(|(s, list)| (*s, list.iter().map(|p| cents_of(p.amount)).collect()))
        .collect();
    let paired_sources: Vec<usize> = paired_amounts.iter().map(|(s, _)| *s).collect();
    let nearest_net = |date: NaiveDate| {
        (b.nets.iter())
            .min_by_key(|(d, _)| (*d - date).num_days().abs())
            .map_or(0, |(_, c)| *c)
    };
    let mut days: Vec<NaiveDate> = (pool.iter())
        .filter(|d| !d.taken && paired_sources.contains(&d.source))
        .filter(|d| d.date < start || d.date > end)
        .map(|d| d.date)
        .collect();
    days.dedup();
    for day in days {
        let on_day: Vec<usize> = (0..pool.len())
            .filter(|k| {
                let d = &pool[*k];
                !d.taken && d.date == day && paired_sources.contains(&d.source)
            })
            .collect();
        // The day's credits of the paired sources together, when they make the net pay (a
        // split pay); else a deposit of the amount its source paired with.
        let singles: Vec<usize> = (on_day.iter().copied())
            .filter(|k| {
                (paired_amounts.iter()).any(|(s, amounts)| {
                    *s == pool[*k].source && amounts.iter().any(|a| cents_match(*a, pool[*k].cents))
                })
            })
            .collect();
        let day_sum: i64 = on_day.iter().map(|k| pool[*k].cents).sum();
        let takes = if on_day.len() > 1 && cents_match(day_sum, nearest_net(day)) {
            on_day
        } else {
            singles
        };
        for k in takes {
            take(pool, k, &mut taken);
        }
    }
    for (_, list) in &mut taken {
        list.sort_by_key(|p| p.date);
    }
    taken
}

/// A deposit run that ends where the stream's pays begin, or begins where they end, when none
/// of its deposits falls beside a pay: the bank's data ends before a stub's pay posted, or the
/// stubs are older than the bank's window. It is the same job when its deposits are the stream's
/// net pay to the cent (one deposit, or the credits of one day under one name: a split pay),
/// at least [`MIN_PAIRED`] of them, under a name that does not name another payer, and the gap
/// between the runs is at most one and a half of the stream's stated periods and the posting
/// lag. Taken whole, as the job seen longer.
fn adjoining_run(b: &Building, pool: &mut [Deposit], names: &[&str]) -> Vec<(usize, Vec<Payment>)> {
    let (Some(period), Some(first), Some(last)) = (b.period_days, b.nets.first(), b.nets.last())
    else {
        return vec![];
    };
    let reach = Duration::days((1.5 * period).ceil() as i64 + LAG_DAYS);
    // Runs under one name: one account, or the accounts a split pay goes to (same days).
    let mut sources: Vec<usize> = (pool.iter())
        .filter(|d| {
            !d.taken
                && b.names
                    .iter()
                    .all(|n| name_affinity(n, names[d.source]) >= 0)
        })
        .map(|d| d.source)
        .collect();
    sources.sort();
    sources.dedup();
    let deposits_of = |s: usize| untaken(pool, s);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for s in sources {
        let joins = groups.iter().position(|g| {
            name_key(names[g[0]]) == name_key(names[s])
                && same_days(&deposits_of(g[0]), &deposits_of(s))
        });
        match joins {
            Some(g) => groups[g].push(s),
            None => groups.push(vec![s]),
        }
    }
    let on_cycle = |run: &[usize]| {
        let dates: Vec<NaiveDate> = run.iter().map(|k| pool[*k].date).collect();
        measure(&dates, None)
            .frequency()
            .is_some_and(|f| (f.period_days() - period).abs() < 0.5)
    };
    let best = groups
        .into_iter()
        .filter_map(|group| {
            let run: Vec<usize> = (0..pool.len())
                .filter(|k| !pool[*k].taken && group.contains(&pool[*k].source))
                .collect();
            let (start, end) = (pool[*run.first()?].date, pool[*run.last()?].date);
            let before = end < first.0 - Duration::days(EARLY_DAYS) && first.0 - end <= reach;
            let after = start > last.0 + Duration::days(LAG_DAYS) && start - last.0 <= reach;
            let net = if before { first.1 } else { last.1 };
            let mut days: Vec<NaiveDate> = run.iter().map(|k| pool[*k].date).collect();
            days.dedup();
            let matching: Vec<usize> = days
                .into_iter()
                .flat_map(|day| {
                    let on_day: Vec<usize> = run
                        .iter()
                        .copied()
                        .filter(|k| pool[*k].date == day)
                        .collect();
                    let sum: i64 = on_day.iter().map(|k| pool[*k].cents).sum();
                    if same_pay(sum, net) { on_day } else { vec![] }
                })
                .collect();
            let pays = {
                let mut d: Vec<NaiveDate> = matching.iter().map(|k| pool[*k].date).collect();
                d.dedup();
                d.len()
            };
            let cycle = on_cycle(&run);
            ((before || after) && pays >= MIN_PAIRED).then_some((pays, cycle, group[0], matching))
        })
        .max_by_key(|(pays, cycle, first_source, _)| {
            (*cycle, *pays, std::cmp::Reverse(*first_source))
        })
        .map(|(pays, _, _, matching)| (pays, matching));
    let Some((_, matching)) = best else {
        return vec![];
    };
    let mut taken: Vec<(usize, Vec<Payment>)> = Vec::new();
    for k in matching {
        take(pool, k, &mut taken);
    }
    taken
}

/// Takes deposit `k` of the pool into `taken`, per source.
fn take(pool: &mut [Deposit], k: usize, taken: &mut Vec<(usize, Vec<Payment>)>) {
    pool[k].taken = true;
    let payment = pool[k].payment();
    match taken.iter_mut().find(|(s, _)| *s == pool[k].source) {
        Some((_, list)) => list.push(payment),
        None => taken.push((pool[k].source, vec![payment])),
    }
}

/// The days a run's deposits post after its pay dates: the median over the pairs, so the
/// deposits that extend the run are placed on the pay dates they stand for.
pub(super) fn posting_lag(nets: &[(NaiveDate, i64)], deposits: &[Payment]) -> i64 {
    let mut lags: Vec<i64> = nets
        .iter()
        .filter_map(|(date, _)| {
            deposits
                .iter()
                .map(|d| (d.date - *date).num_days())
                .filter(|lag| (-EARLY_DAYS..=LAG_DAYS).contains(lag))
                .min_by_key(|lag| lag.abs())
        })
        .collect();
    lags.sort();
    lags.get(lags.len() / 2).copied().unwrap_or(0)
}

/// The sets of candidate deposits one pay may have arrived as: each deposit alone, and up to
/// [`MAX_SPLIT_CREDITS`] credits of one day together.
fn credit_sets(candidates: &[usize], pool: &[Deposit]) -> Vec<Vec<usize>> {
    let mut sets: Vec<Vec<usize>> = candidates.iter().map(|k| vec![*k]).collect();
    let mut frontier = sets.clone();
    for _ in 1..MAX_SPLIT_CREDITS {
        let mut next = Vec::new();
        for set in &frontier {
            let last = *set.last().expect("sets are never empty");
            for &k in candidates.iter().filter(|k| **k > last) {
                if pool[k].date == pool[set[0]].date {
                    let mut grown = set.clone();
                    grown.push(k);
                    next.push(grown);
                }
            }
        }
        sets.extend(next.iter().cloned());
        frontier = next;
    }
    sets
}
