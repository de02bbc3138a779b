//! The outbox's piece that closes a tenant's user at the income provider once the verification
//! ended: handed to the retry queue while the provider is down, done by `retry-events` after, and
//! then forgotten on the verification.

use super::*;
use adapters::live_provider::LiveProvider;
use ports::TransitionOutcome;

#[tokio::test]
async fn an_ended_verification_closes_its_provider_user_through_the_retry_road() {
    let input = NewVerificationInput {
        tenant_email: "tenant@example.com".into(),
        ..Default::default()
    };
    let (deps, outbox, v) = setup(input, Mode::Live).await;
    let consent = Transition::Consent {
        version: "v1".into(),
        provider_user: Some("bank=cuid-1 user-token-1".into()),
        methods: vec![],
    };
    let Ok(TransitionOutcome::Applied(started)) =
        deps.store.transition(&v, &consent, created()).await
    else {
        panic!("consented")
    };
    let fail = Transition::Fail {
        reason: "income_unverifiable".into(),
    };
    let Ok(TransitionOutcome::Applied(failed)) =
        deps.store.transition(&started, &fail, created()).await
    else {
        panic!("failed")
    };

    // The provider is down (none configured): the piece waits on the retry queue.
    let retries = Outbox::default();
    let mut down = outbox_deps(&deps, &outbox, &retries);
    down.provider = LiveProvider::none();
    let record = modify_record(&started, &failed, "1");
    let response = publish(&down, vec![record]).await;
    assert!(
        response.batch_item_failures.is_empty(),
        "handed off, acknowledged"
    );
    assert_eq!(waiting_work(&retries), vec!["close_provider_user"]);
    let stored = deps.store.verification(v.verification_id).unwrap();
    assert!(stored.provider_user.is_some(), "kept until closed");

    // Back: retry-events closes it, and the verification forgets the user.
    let up = outbox_deps(&deps, &outbox, &retries);
    assert_eq!(retry_pass(&up, &retries).await, 1);
    assert!(waiting_work(&retries).is_empty());
    let stored = deps.store.verification(v.verification_id).unwrap();
    assert_eq!(stored.provider_user, None);

    // A redone piece finds no user and closes nothing.
    let again = modify_record(&started, &failed, "2");
    let response = publish(&up, vec![again]).await;
    assert!(response.batch_item_failures.is_empty());
    assert!(waiting_work(&retries).is_empty());
}
