//! The outbox's piece that reads a waiting connection's data (`domain::awaiting`): once the
//! provider's verified webhook signalled the current wait (its stream record asks for it), or
//! when the sweep re-reads a wait whose webhook never came. The report is read once and the try
//! is settled through `domain::journey::after_connection`, as a connection on the page is: the
//! report, the next method, or the failure. A provider still building the report (Plaid's
//! `PRODUCT_NOT_READY`) fails the piece, which goes on the retry road with its back-off.

use uuid::Uuid;

use crate::handlers::outbox::{OutboxDeps, OutboxError, OutboxStore, RetryWork};
use domain::Verification;
use domain::affordability::RentTerms;
use domain::awaiting::{AwaitingData, DataSignal, Sweep, sweep};
use domain::journey::{By, Connect, Connection, after_connection};
use domain::report::build_report_with;
use domain::{Mode, Transition};
use ports::{Clock, IncomeProvider, ProviderError, TransitionOutcome};

/// The piece for a verification whose current wait just got its provider's signal.
pub(crate) fn data_work(old: &Verification, new: &Verification) -> Option<RetryWork> {
    let signalled = |v: &Verification| v.awaiting_now().is_some_and(|w| w.signal.is_some());
    (!signalled(old) && signalled(new)).then_some(RetryWork::ProviderData {
        verification_id: new.verification_id,
    })
}

/// The sweep's piece for a verification whose connection just began to wait.
pub(crate) fn sweep_work(old: &Verification, new: &Verification) -> Option<RetryWork> {
    let began = |v: &Verification| v.awaiting_now().map(|w| (w.attempts, w.since));
    let new_wait = began(new)?;
    (began(old) != Some(new_wait)).then_some(RetryWork::SweepWait {
        verification_id: new.verification_id,
    })
}

/// The sweep of one waiting connection, as `domain::awaiting::sweep` decides at this attempt:
/// done once the wait is settled; not due yet (`NotDue`, so the retry road looks again after its
/// growing delay); re-read after `SWEEP_AFTER` without a signal (a lost webhook); given up after
/// `GIVE_UP_AFTER`. The retry road's delays (1, 2, 5, 10, 30, 60 minutes, then hours) so read a
/// lost webhook's report about 48 minutes in, and give up about a day in.
pub(crate) async fn sweep_wait<S: OutboxStore, M, T, R, Q, C: Clock, P: IncomeProvider>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    verification_id: Uuid,
) -> Result<(), OutboxError> {
    let Some(v) = deps.store.get_verification(verification_id).await? else {
        return Ok(());
    };
    if v.awaiting_now().is_none() {
        return Ok(());
    }
    match sweep_one(deps, &v).await? {
        Sweep::Leave => Err(OutboxError::NotDue),
        Sweep::Reread | Sweep::GiveUp => Ok(()),
    }
}

/// Reads the data of the verification's current wait and settles the try. Done when there is
/// no current wait: a redone or duplicate piece reads nothing twice.
pub(crate) async fn read_data<S: OutboxStore, M, T, R, Q, C: Clock, P: IncomeProvider>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    verification_id: Uuid,
) -> Result<(), OutboxError> {
    let Some(v) = deps.store.get_verification(verification_id).await? else {
        return Ok(());
    };
    read_waiting(deps, &v).await
}

/// `read_data` on the verification as already read (the sweep has it in hand).
async fn read_waiting<S: OutboxStore, M, T, R, Q, C: Clock, P: IncomeProvider>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
) -> Result<(), OutboxError> {
    let verification_id = v.verification_id;
    let Some(waiting) = v.awaiting_now().cloned() else {
        return Ok(());
    };
    let now = deps.clock.now();
    let connection = match waiting.signal.map(|s| s.signal) {
        Some(DataSignal::Failed) => {
            tracing::info!(%verification_id, "provider could not build the report");
            Connection::Refused
        }
        _ => {
            let user = v.provider_user.as_deref().unwrap_or_default();
            match deps.provider.fetch_income(v, waiting.method, user).await {
                Ok(income) => Connection::Income(income),
                Err(ProviderError::Rejected(reason)) => {
                    tracing::info!(%verification_id, reason = %reason, "provider refused the report");
                    Connection::Refused
                }
                // Past the wait's end, a report that never came ends the try.
                Err(ProviderError::Unavailable(_)) if sweep(v, now) == Sweep::GiveUp => {
                    tracing::warn!(%verification_id, "no report within the wait; next method");
                    Connection::Refused
                }
                Err(ProviderError::Unavailable(reason)) => {
                    return Err(OutboxError::Provider(reason));
                }
            }
        }
    };
    settle(deps, v, &waiting, connection).await
}

/// Writes what the connection leads to, on the verification as read: one conditional write.
/// Settled by someone else meanwhile is done; still waiting after a conflict is retried.
async fn settle<S: OutboxStore, M, T, R, Q, C: Clock, P: IncomeProvider>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
    waiting: &AwaitingData,
    connection: Connection,
) -> Result<(), OutboxError> {
    let now = deps.clock.now();
    let connect = Connect {
        method: waiting.method,
        by: By::Provider,
        next: waiting.next,
    };
    let local = (v.mode == Mode::Live && deps.provider.simulated()).then_some(true);
    let build = |income: &_| {
        let mut report = build_report_with(income, &RentTerms::from(v));
        report.local_sandbox = local;
        report
    };
    let transition = after_connection(v, &connect, connection, (now, false), build);
    let what = match &transition {
        Transition::Complete { .. } => "report built",
        Transition::Attempt { .. } => "next method offered",
        _ => "verification failed",
    };
    match deps.store.transition(v, &transition, now).await? {
        TransitionOutcome::Applied(_) => {
            tracing::info!(verification_id = %v.verification_id, what, "waiting connection settled");
            Ok(())
        }
        TransitionOutcome::Conflict(Some(fresh)) if fresh.awaiting_now().is_some() => Err(
            OutboxError::Provider("the verification changed while its report was read".into()),
        ),
        TransitionOutcome::Conflict(_) => Ok(()),
    }
}

/// The sweep's piece for one verification: what `domain::awaiting::sweep` decides at `now`,
/// done. A wait to re-read is read (`read_data`); one past its end routes the tenant on.
pub async fn sweep_one<S: OutboxStore, M, T, R, Q, C: Clock, P: IncomeProvider>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    v: &Verification,
) -> Result<Sweep, OutboxError> {
    let decision = sweep(v, deps.clock.now());
    match decision {
        Sweep::Leave => {}
        Sweep::Reread => read_waiting(deps, v).await?,
        Sweep::GiveUp => {
            if let Some(waiting) = v.awaiting_now().cloned() {
                settle(deps, v, &waiting, Connection::Refused).await?;
            }
        }
    }
    Ok(decision)
}
