//! Runs over waiting connections the outbox settles (`provider_data`): a report read on the
//! provider's signal, and a refused report that routes to the next method, each written by
//! publish-events and, when that write failed, by retry-events; then the provider user forgotten
//! by each. These are the outbox's writes to the verification besides its marks, so the attribute
//! bound of their grant is proven by calls.

use domain::awaiting::DataSignal;
use domain::income::VerificationMethod;
use domain::{Mode, Status, Transition, Verification};

use super::households_and_retries::retry_round;
use super::*;

/// A test verification consented with the sandbox scenario `scenario` as its provider user,
/// waiting for the bank's data with `next` after it, and its provider's `signal` recorded.
async fn signalled(
    rig: &Rig,
    scenario: &str,
    next: Option<VerificationMethod>,
    signal: DataSignal,
) -> uuid::Uuid {
    let email = format!(
        "iam.wait.{}+good@example.com",
        uuid::Uuid::new_v4().simple()
    );
    let signal = vec![Transition::Signal { signal }];
    let v = super::waiting(rig, (Mode::Test, email), scenario, next, signal).await;
    v.verification_id
}

async fn stored(rig: &Rig, id: uuid::Uuid) -> Verification {
    rig.store.get_verification(id).await.unwrap().unwrap()
}

/// Each settled wait, with the user forgotten once the verification closed.
async fn assert_settled(rig: &Rig, report: uuid::Uuid, next_method: uuid::Uuid) {
    let completed = stored(rig, report).await;
    assert_eq!(completed.status, Status::Completed, "the report was read");
    assert!(completed.provider_user.is_none(), "its user was forgotten");
    let routed = stored(rig, next_method).await;
    assert_eq!(
        routed.method_attempts.len(),
        1,
        "the refused try was recorded"
    );
}

pub async fn connections(rig: &mut Rig) {
    let next = Some(VerificationMethod::Document);
    // publish-events settles both and forgets the user of the completed one.
    let report = signalled(rig, "good", None, DataSignal::Ready).await;
    let routed = signalled(rig, "good", next, DataSignal::Failed).await;
    rig.drain().await;
    assert_settled(rig, report, routed).await;

    // The same while publish-events cannot write them: retry-events settles both, and forgets
    // the user when publish-events could not.
    let faults = ArmedFaults::default();
    let publish = faulty_publish(rig, &faults).await;
    let report = signalled(rig, "good", None, DataSignal::Ready).await;
    let routed = signalled(rig, "good", next, DataSignal::Failed).await;
    faults.down(StoreOp::Transition);
    rig.drain_with(&publish).await;
    faults.restore(StoreOp::Transition);
    assert!(retry_round(rig).await > 0, "the reads were handed over");
    faults.down(StoreOp::ForgetProviderUser);
    rig.drain_with(&publish).await;
    faults.restore(StoreOp::ForgetProviderUser);
    assert!(
        retry_round(rig).await > 0,
        "the user's close was handed over"
    );
    rig.drain().await;
    assert_settled(rig, report, routed).await;
}
