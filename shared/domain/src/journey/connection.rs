//! What a connection of the journey's method leads to: the next method, income held for another
//! source, the report, or the failure.

use chrono::{DateTime, Utc};

use super::Connect;
use crate::Transition;
use crate::Verification;
use crate::income::{ProviderIncome, VerificationMethod};
use crate::methods::{AttemptOutcome, MethodAttempt};
use crate::report::IncomeReport;

/// What the provider answered a connection (an unavailable provider decides nothing: the
/// tenant tries again later).
#[derive(Debug, Clone)]
pub enum Connection {
    Income(ProviderIncome),
    /// The provider could not verify income.
    Refused,
}

/// What a connection of `connect.method` leads to. With `more` ("add another income source")
/// and another method open, income found is held (`Transition::Hold`); without, the report counts
/// it with any income held before. A refused or empty connection routes to the next method while
/// one remains; once income is held it is only recorded: the tenant may still finish with it.
pub fn after_connection(
    v: &Verification,
    connect: &Connect,
    connection: Connection,
    (now, more): (DateTime<Utc>, bool),
    build: impl Fn(&ProviderIncome) -> IncomeReport,
) -> Transition {
    let method = connect.method;
    let held = v.held_income.as_ref();
    let others_remain = connect.next.is_some();
    let attempt = |outcome| MethodAttempt {
        method,
        outcome,
        at: now,
    };
    let income = match connection {
        Connection::Income(income) => income,
        Connection::Refused if others_remain || held.is_some() => {
            return Transition::Attempt {
                attempt: attempt(AttemptOutcome::Failed),
            };
        }
        Connection::Refused => {
            return Transition::Fail {
                reason: "income_unverifiable".into(),
            };
        }
    };
    let own = build(&income);
    let no_income = own.income_sources.is_empty();
    if no_income && (others_remain || held.is_some()) {
        return Transition::Attempt {
            attempt: attempt(AttemptOutcome::NoIncome),
        };
    }
    if !no_income && more && others_remain {
        return Transition::Hold {
            attempt: attempt(AttemptOutcome::Succeeded),
            income: Box::new(income),
        };
    }
    let outcome = if no_income {
        AttemptOutcome::NoIncome
    } else {
        AttemptOutcome::Succeeded
    };
    let mut report = match held {
        Some(held) => build(&income.joined(Some(held))),
        None => own,
    };
    record_attempts(v, &mut report, method, outcome, now);
    Transition::Complete {
        report: Box::new(report),
    }
}

/// A report made after routing records every try, `method`'s last with its `outcome`.
pub fn record_attempts(
    v: &Verification,
    report: &mut IncomeReport,
    method: VerificationMethod,
    outcome: AttemptOutcome,
    now: DateTime<Utc>,
) {
    if !v.method_attempts.is_empty() {
        report.attempts = v.method_attempts.clone();
        report.attempts.push(MethodAttempt {
            method,
            outcome,
            at: now,
        });
    }
}
