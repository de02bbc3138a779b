//! Argyle's payroll records as the domain's [`ProviderIncome`]: each employment becomes one
//! source with its pay stubs. No income arithmetic here: the domain's income rules make every
//! figure.
//!
//! - **As of**: the latest `scanned_at` of the connected accounts (when Argyle last read the
//!   payroll system), else their latest `updated_at`. Without either the accounts are refused:
//!   a job that stopped paying could not be told from a current one.
//! - **Payments**: each pay stub's `paystub_date` with its `gross_pay` (`payments`, gross) and
//!   its `net_pay` (`net_payments`); stubs not `completed`, or dated after the as-of date, are
//!   left out. The `gross_pay_list` lines typed `bonus`, `commission` or `overtime` are the
//!   variable part of that gross pay (`variable_payments`), which the rules count apart.
//! - **Gigs**: a gig platform's account (`availability.gigs` set) is read by its gigs
//!   (https://docs.argyle.com/api-reference/gigs/list-all-gigs), not its pay stubs, which pay
//!   out the same earnings. Each day of `completed` gigs is one payment: their `income.total`
//!   summed, with their `income.bonus` as its variable part. The gigs go to the employment of
//!   their account.
//! - **Accounts**: only accounts whose pay stubs, or gigs, are `synced` are read
//!   (`connected_accounts`).
//! - **Employer**: the employment's `employer`, else its identity's, else the stubs' or gigs'.
//! - **Employment status**: the identity's (`active`, `inactive`, `terminated`), else the
//!   employment's. `terminated`, or a `termination_datetime`, ends the job; `active` is a
//!   current one; `inactive` (often a leave) states nothing, so pay-stub recency decides.
//! - **Pay frequency**: the identity's `pay_cycle`; none means irregular (gig payouts).
//! - **Pay rate**: `base_pay` per pay period when its period is the pay cycle, or annual or
//!   monthly pay spread over the cycle; hourly pay states no rate per period.
//! - **Category**: `GIG_ECONOMY` for a `contractor` employment or a gig platform, else `SALARY`.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use crate::argyle::errors::safe_code;
use crate::argyle::wire::{Account, Employment, Gig, Identity, Paystub};
use domain::income::{
    AmountsBasis, EmploymentStatus, PayFrequency, Payment, ProviderIncome, ProviderIncomeSource,
    VerificationMethod,
};
use ports::ProviderError;

/// Employer names come from payroll records; they are shown in the report.
const MAX_NAME_CHARS: usize = 100;

/// What the list calls returned for one user (gigs only where a gig platform is connected).
pub(super) struct Records {
    pub(super) accounts: Vec<Account>,
    pub(super) employments: Vec<Employment>,
    pub(super) identities: Vec<Identity>,
    pub(super) paystubs: Vec<Paystub>,
    pub(super) gigs: Vec<Gig>,
}

/// The accounts whose records are read, or why there is no income to read (yet). Called
/// before the other lists are fetched. As Argyle defines the states:
///
/// - an account still `connecting` is waited for, whatever the others are;
/// - an account in `error` is left out, and only errors is a failed connection;
/// - a connected account's records are read once `synced`: its gigs on a gig platform (whose
///   account alone has `availability.gigs`), else its pay stubs. `in_progress`, or no state
///   yet, is waited for; `sync_failed` leaves that account out, and only failures is a failed
///   read.
pub(super) fn connected_accounts(accounts: &[Account]) -> Result<Vec<&Account>, ProviderError> {
    if accounts.is_empty() {
        return Err(ProviderError::Rejected(
            "Argyle: no payroll account was connected".into(),
        ));
    }
    let status = |a: &Account| lower(a.connection.as_ref().and_then(|c| c.status.as_deref()));
    if accounts
        .iter()
        .any(|a| status(a) != "connected" && status(a) != "error")
    {
        return Err(ProviderError::Unavailable(
            "Argyle: a payroll connection is not finished yet".into(),
        ));
    }
    let connected: Vec<&Account> = accounts
        .iter()
        .filter(|a| status(a) == "connected")
        .collect();
    if connected.is_empty() {
        let codes: Vec<String> = accounts
            .iter()
            .map(|a| safe_code(a.connection.as_ref().and_then(|c| c.error_code.as_deref())))
            .collect();
        return Err(ProviderError::Rejected(format!(
            "Argyle: the payroll connection failed ({})",
            codes.join(", ")
        )));
    }
    let sync = |a: &Account| {
        let availability = a.availability.as_ref();
        let records = availability.and_then(|av| av.gigs.as_ref().or(av.paystubs.as_ref()));
        lower(records.and_then(|p| p.status.as_deref()))
    };
    if connected
        .iter()
        .any(|a| sync(a) != "synced" && sync(a) != "sync_failed")
    {
        return Err(ProviderError::Unavailable(
            "Argyle: pay stubs or gigs are still being read".into(),
        ));
    }
    let synced: Vec<&Account> = connected
        .into_iter()
        .filter(|a| sync(a) == "synced")
        .collect();
    if synced.is_empty() {
        return Err(ProviderError::Rejected(
            "Argyle: the pay stubs or gigs could not be read (sync_failed)".into(),
        ));
    }
    Ok(synced)
}

/// Whether `account` is a gig platform's: Argyle states the availability of gigs for those only.
pub(super) fn is_gig_platform(account: &Account) -> bool {
    (account.availability.as_ref()).is_some_and(|av| av.gigs.is_some())
}

/// The end of the data window: the latest `scanned_at` of the accounts read (when Argyle last
/// read the payroll system), else their latest `updated_at`.
pub(super) fn as_of(read: &[&Account]) -> Result<NaiveDate, ProviderError> {
    read.iter()
        .filter_map(|a| a.scanned_at)
        .max()
        .or_else(|| read.iter().filter_map(|a| a.updated_at).max())
        .map(|t| t.date_naive())
        .ok_or_else(|| {
            ProviderError::Rejected("Argyle's accounts say nothing of when they were read".into())
        })
}

fn lower(raw: Option<&str>) -> String {
    raw.unwrap_or("").trim().to_ascii_lowercase()
}

pub(super) fn income_from_records(records: Records) -> Result<ProviderIncome, ProviderError> {
    let connected = connected_accounts(&records.accounts)?;
    let as_of = as_of(&connected)?;
    let accounts: Vec<&str> = connected.iter().map(|a| a.id.as_str()).collect();
    let of_connected =
        |account: &Option<String>| account.as_deref().is_none_or(|id| accounts.contains(&id));
    // A gig platform's earnings are its gigs; its pay stubs pay out the same money.
    let gig_accounts: Vec<&str> = (connected.iter())
        .filter(|a| is_gig_platform(a))
        .map(|a| a.id.as_str())
        .collect();
    let of_gig_platform = |account: &Option<String>| {
        (account.as_deref()).is_some_and(|id| gig_accounts.contains(&id))
    };
    // One source per employment; stubs naming no known employment are grouped by employer.
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for e in records
        .employments
        .iter()
        .filter(|e| of_connected(&e.account))
    {
        let g = groups.entry(e.id.clone()).or_default();
        g.employer = g.employer.take().or_else(|| clean(e.employer.as_deref()));
        g.status = e.employment_status.clone();
    }
    for i in records
        .identities
        .iter()
        .filter(|i| of_connected(&i.account))
    {
        let Some(employment) = i.employment.as_deref() else {
            continue;
        };
        if let Some(g) = groups.get_mut(employment) {
            g.employer = g.employer.take().or_else(|| clean(i.employer.as_deref()));
            g.identity = Some(i);
        }
    }
    let stubs = (records.paystubs.iter())
        .filter(|p| of_connected(&p.account) && !of_gig_platform(&p.account));
    for stub in stubs {
        let key = match stub.employment.as_deref() {
            Some(id) if groups.contains_key(id) => id.to_string(),
            _ => format!(
                "employer:{}",
                clean(stub.employer.as_deref()).unwrap_or_default()
            ),
        };
        let g = groups.entry(key).or_default();
        if g.employer.is_none() {
            g.employer = clean(stub.employer.as_deref());
        }
        g.stubs.push(stub);
    }
    // A gig belongs to the employment of its account.
    let employment_of: BTreeMap<&str, String> = (records.employments.iter())
        .filter(|e| groups.contains_key(&e.id))
        .filter_map(|e| Some((e.account.as_deref()?, e.id.clone())))
        .collect();
    for gig in records.gigs.iter().filter(|g| of_gig_platform(&g.account)) {
        let Some((date, total, bonus)) = gig_earnings(gig) else {
            continue;
        };
        let employer = clean(gig.employer.as_deref());
        let key = (gig
            .account
            .as_deref()
            .and_then(|a| employment_of.get(a).cloned()))
        .unwrap_or_else(|| format!("employer:{}", employer.clone().unwrap_or_default()));
        let g = groups.entry(key).or_default();
        g.employer = g.employer.take().or(employer);
        let day = g.gig_days.entry(date).or_default();
        day.0 += total.unwrap_or(0.0);
        day.1 += bonus.unwrap_or(0.0);
    }
    let sources = groups
        .into_values()
        .map(|g| g.source(as_of))
        .collect::<Vec<_>>();
    Ok(ProviderIncome {
        as_of,
        method: VerificationMethod::Payroll,
        sources,
        provider_confidence: None,
    })
}

/// A pay stub's date, gross pay, net pay, and the variable part of its gross pay.
type Stub = (NaiveDate, Option<f64>, Option<f64>, Option<f64>);

#[derive(Default)]
struct Group<'a> {
    employer: Option<String>,
    status: Option<String>,
    identity: Option<&'a Identity>,
    stubs: Vec<&'a Paystub>,
    /// A gig platform's earnings by day: the gigs' totals, and their bonuses.
    gig_days: BTreeMap<NaiveDate, (f64, f64)>,
}

impl Group<'_> {
    fn source(self, as_of: NaiveDate) -> ProviderIncomeSource {
        let identity = self.identity;
        let pay_frequency = identity
            .and_then(|i| i.pay_cycle.as_deref())
            .and_then(frequency);
        let status = identity
            .and_then(|i| i.employment_status.clone())
            .or(self.status);
        let terminated = identity.is_some_and(|i| i.termination_datetime.is_some());
        // `inactive` is often a leave: it states nothing, and pay-stub recency decides.
        let employment_status = match lower(status.as_deref()).as_str() {
            _ if terminated => Some(EmploymentStatus::Ended),
            "terminated" => Some(EmploymentStatus::Ended),
            "active" => Some(EmploymentStatus::Active),
            _ => None,
        };
        let contractor = !self.gig_days.is_empty()
            || identity
                .and_then(|i| i.employment_type.as_deref())
                .is_some_and(|t| t.eq_ignore_ascii_case("contractor"));
        let mut stubs: Vec<Stub> = self
            .stubs
            .iter()
            .filter(|s| {
                s.status
                    .as_deref()
                    .is_none_or(|st| st.eq_ignore_ascii_case("completed"))
            })
            .filter_map(|s| {
                let date = s.paystub_date?.date_naive();
                let pay = (money(&s.gross_pay), money(&s.net_pay), variable_part(s));
                (date <= as_of).then_some((date, pay.0, pay.1, pay.2))
            })
            .collect();
        let cents = |a: f64| (a * 100.0).round() / 100.0;
        stubs.extend((self.gig_days.iter()).filter(|(d, _)| **d <= as_of).map(
            |(date, (total, bonus))| {
                let positive = |a: f64| (a > 0.0).then(|| cents(a));
                (*date, positive(*total), None, positive(*bonus))
            },
        ));
        stubs.sort_by_key(|s| s.0);
        let dated = |pick: fn(&Stub) -> Option<f64>| {
            stubs
                .iter()
                .filter_map(|s| pick(s).map(|amount| Payment { date: s.0, amount }))
                .collect::<Vec<_>>()
        };
        let name: String = self
            .employer
            .unwrap_or_else(|| "Payroll income".to_string())
            .chars()
            .take(MAX_NAME_CHARS)
            .collect();
        ProviderIncomeSource {
            name,
            category: if contractor { "GIG_ECONOMY" } else { "SALARY" }.into(),
            method: Some(VerificationMethod::Payroll),
            pay_frequency,
            pay_rate: identity.and_then(|i| pay_rate(i, pay_frequency?)),
            employment_status,
            payments: dated(|s| s.1),
            amounts_basis: Some(AmountsBasis::Gross),
            net_payments: dated(|s| s.2),
            // Argyle's breakdown of the gross pay: its bonus, commission and overtime lines.
            variable_payments: dated(|s| s.3),
            ongoing: false,
            provider_forecast_monthly: None,
        }
    }
}

/// A completed gig's day (its end, else its start), its total earnings and its bonus; None
/// for a gig scheduled, in progress or cancelled.
fn gig_earnings(gig: &Gig) -> Option<(NaiveDate, Option<f64>, Option<f64>)> {
    if lower(gig.status.as_deref()) != "completed" {
        return None;
    }
    let day = gig.end_datetime.or(gig.start_datetime)?.date_naive();
    let income = gig.income.as_ref()?;
    Some((day, money(&income.total), money(&income.bonus)))
}

/// The gross pay's lines Argyle types as variable pay, summed; None without such a line.
fn variable_part(stub: &Paystub) -> Option<f64> {
    let variable = |kind: &str| matches!(kind, "bonus" | "commission" | "overtime");
    let lines: Vec<f64> = (stub.gross_pay_list.iter())
        .filter(|l| variable(&lower(l.kind.as_deref())))
        .filter_map(|l| money(&l.amount))
        .collect();
    (!lines.is_empty()).then(|| (lines.iter().sum::<f64>() * 100.0).round() / 100.0)
}

/// Argyle's pay cycle names.
fn frequency(raw: &str) -> Option<PayFrequency> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "weekly" => Some(PayFrequency::Weekly),
        "biweekly" => Some(PayFrequency::Biweekly),
        "semimonthly" => Some(PayFrequency::SemiMonthly),
        "monthly" => Some(PayFrequency::Monthly),
        "daily" => Some(PayFrequency::Daily),
        _ => None,
    }
}

/// Base pay per pay period (module docs).
fn pay_rate(identity: &Identity, cycle: PayFrequency) -> Option<f64> {
    let base = identity.base_pay.as_ref()?;
    let amount = money(&base.amount)?;
    let period = base.period.as_deref()?.trim().to_ascii_lowercase();
    let per_period = match period.as_str() {
        "annual" => amount / 12.0 / cycle.periods_per_month(),
        "monthly" => amount / cycle.periods_per_month(),
        other if frequency(other) == Some(cycle) => amount,
        _ => return None,
    };
    Some((per_period * 100.0).round() / 100.0)
}

/// A positive decimal string as Argyle sends money; anything else is no amount.
fn money(raw: &Option<String>) -> Option<f64> {
    raw.as_deref()?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|a| a.is_finite() && *a > 0.0)
}

fn clean(raw: Option<&str>) -> Option<String> {
    raw.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A gig platform's records: one connected account with gigs synced, its employment, and
    /// `gigs` as (day of November 2026, status, total cents, bonus cents).
    fn gig_records(gigs: &[(u32, &str, u32, u32)]) -> Records {
        let account = serde_json::json!({
            "id": "acc-gig", "scanned_at": "2026-11-30T12:00:00Z",
            "connection": {"status": "connected"},
            "availability": {"paystubs": {"status": "synced"}, "gigs": {"status": "synced"}}
        });
        let gigs = gigs.iter().map(|(day, status, total, bonus)| {
            serde_json::json!({
                "account": "acc-gig", "employer": "GigAndGo", "status": status,
                "end_datetime": format!("2026-11-{day:02}T18:00:00Z"),
                "income": {"total": format!("{}.{:02}", total / 100, total % 100),
                           "bonus": format!("{}.{:02}", bonus / 100, bonus % 100)}
            })
        });
        let employment = serde_json::json!({"id": "emp-gig", "account": "acc-gig"});
        let stub = serde_json::json!({"account": "acc-gig", "paystub_date": "2026-11-20T00:00:00Z",
                                      "gross_pay": "999.00", "employment": "emp-gig"});
        fn from<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
            serde_json::from_value(v).unwrap()
        }
        Records {
            accounts: vec![from(account)],
            employments: vec![from(employment)],
            identities: vec![],
            paystubs: vec![from(stub)],
            gigs: gigs.map(from).collect(),
        }
    }

    proptest! {
        /// Whatever the gigs, the source's payments are one a day, each the sum of that day's
        /// completed gigs to the cent, and the platform's pay stub is never counted beside them.
        #[test]
        fn completed_gigs_become_one_payment_a_day_summing_their_totals(
            gigs in proptest::collection::vec(
                (1u32..=30, prop::sample::select(vec!["completed", "cancelled", "scheduled"]),
                 0u32..50_000, 0u32..2_000),
                0..40,
            )
        ) {
            let income = income_from_records(gig_records(&gigs)).unwrap();
            let source = &income.sources[0];
            prop_assert_eq!(income.sources.len(), 1);
            let mut expected: BTreeMap<u32, u64> = BTreeMap::new();
            for (day, status, total, _) in &gigs {
                if *status == "completed" && *total > 0 {
                    *expected.entry(*day).or_default() += u64::from(*total);
                }
            }
            let got: Vec<(u32, u64)> = (source.payments.iter())
                .map(|p| (chrono::Datelike::day(&p.date), (p.amount * 100.0).round() as u64))
                .collect();
            let expected: Vec<(u32, u64)> = expected.into_iter().collect();
            prop_assert_eq!(got, expected);
            prop_assert!(source.payments.iter().all(|p| p.amount != 999.0));
            prop_assert!(source.net_payments.is_empty());
        }
    }

    fn identity(cycle: &str, amount: &str, period: &str) -> Identity {
        serde_json::from_value(serde_json::json!({
            "pay_cycle": cycle,
            "base_pay": {"amount": amount, "period": period, "currency": "USD"}
        }))
        .unwrap()
    }

    #[test]
    fn base_pay_is_spread_over_the_pay_cycle() {
        let semi = PayFrequency::SemiMonthly;
        assert_eq!(
            pay_rate(&identity("semimonthly", "58024.50", "annual"), semi),
            Some(2417.69)
        );
        assert_eq!(
            pay_rate(
                &identity("biweekly", "2000", "biweekly"),
                PayFrequency::Biweekly
            ),
            Some(2000.0)
        );
        assert_eq!(
            pay_rate(
                &identity("monthly", "18.08", "hourly"),
                PayFrequency::Monthly
            ),
            None
        );
        assert_eq!(frequency("semimonthly"), Some(semi));
        assert_eq!(frequency("fortnightly"), None);
        assert_eq!(money(&Some("1290.10".into())), Some(1290.1));
        assert_eq!(money(&Some("-3".into())), None);
        assert_eq!(money(&None), None);
    }
}
