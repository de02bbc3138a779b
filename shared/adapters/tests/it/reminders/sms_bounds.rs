//! The bounds on SMS with in-memory fakes: the plan's monthly allowance counted with each live
//! claim (a refused text is recorded for good, the e-mail still goes, a released claim gives its
//! count back), test-mode texts never counted, and the country list checked again at send time.
//! The conditional write itself, raced on the real wire: `infra/devstack/tests/it/sms_bounds.rs`.

use domain::Plan;
use domain::plans::Plans;
use domain::sms::{SMS_ALLOWANCE_USED, SMS_COUNTRY_NOT_ALLOWED, SmsCountries};
use service::config::SmsBounds;

use super::*;

/// The bounds with `pro` allowing `sms` texts a month.
fn pro_texting(sms: u32) -> SmsBounds {
    SmsBounds {
        plans: Plans::new(vec![Plan {
            name: "pro".into(),
            verifications_per_month: 50,
            api_requests_per_day: 100,
            api_access: true,
            sms_per_month: sms,
            key_burst: Default::default(),
        }]),
        ..Default::default()
    }
}

async fn sms_counted(store: &MemoryStore) -> u32 {
    store.get_account(ACCOUNT).await.unwrap().unwrap().sms_sent
}

/// Another pending live verification of the account, with the same number.
async fn another(deps: &Deps) -> Verification {
    let v = Verification::new_pending(
        ACCOUNT,
        Mode::Live,
        with_phone(),
        created(),
        VERIFICATION_LIFETIME,
    );
    deps.store
        .create_verification(&v, None, None)
        .await
        .unwrap();
    v
}

#[tokio::test]
async fn past_the_allowance_an_sms_is_refused_for_good_and_the_email_still_goes() {
    let (mut deps, outbox, first) = setup(with_phone(), Mode::Live).await;
    deps.sms = pro_texting(1);
    let second = another(&deps).await;
    let retries = Outbox::default();
    let mut publisher = outbox_deps(&deps, &outbox, &retries);
    publisher.sms = pro_texting(1);
    let response = publish(
        &publisher,
        vec![insert_record(&first, "1"), insert_record(&second, "2")],
    )
    .await;
    assert!(response.batch_item_failures.is_empty());
    assert!(
        waiting_work(&retries).is_empty(),
        "a refusal is never retried"
    );
    assert_eq!(
        (outbox.emails(), outbox.sms()),
        (2, 1),
        "both e-mails, one text"
    );
    assert_eq!(
        sms_counted(&deps.store).await,
        1,
        "the refused text is not counted"
    );
    let refused = deps
        .store
        .message_claim(second.verification_id, &Message::InviteSms);
    assert_eq!(
        refused,
        Some(MessageClaim::Rejected(SMS_ALLOWANCE_USED.into()))
    );
    let stored = deps.store.get_verification(second.verification_id).await;
    assert_eq!(
        stored.unwrap().unwrap().status,
        Status::Pending,
        "the verification goes on"
    );
    // A redelivered record texts nothing; the reminder's e-mail goes, its text does not.
    publish(&publisher, vec![insert_record(&second, "3")]).await;
    deps.clock.advance(Duration::hours(96));
    send_reminders(&deps, payload(&second, "72h"))
        .await
        .unwrap();
    assert_eq!((outbox.emails(), outbox.sms()), (3, 1));
    assert_eq!(sms_counted(&deps.store).await, 1);
}

#[tokio::test]
async fn a_released_sms_gives_its_count_back_and_its_retry_counts_once() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    let retries = Outbox::default();
    let mut publisher = outbox_deps(&deps, &outbox, &retries);
    publisher.sms = pro_texting(1);
    *outbox.failing_sms.lock().unwrap() = 1;
    publish(&publisher, vec![insert_record(&v, "1")]).await;
    assert_eq!(waiting_work(&retries), vec!["invite_sms"]);
    assert_eq!(
        sms_counted(&deps.store).await,
        0,
        "the failed attempt's count went back"
    );
    retry_pass(&publisher, &retries).await;
    assert_eq!(outbox.sms(), 1, "the allowance of one still had room");
    assert_eq!(sms_counted(&deps.store).await, 1);
}

#[tokio::test]
async fn a_test_mode_sms_is_never_counted_against_the_allowance() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Test).await;
    let retries = Outbox::default();
    let mut publisher = outbox_deps(&deps, &outbox, &retries);
    // The local stack texts test-mode numbers (to moto); a plan without SMS does not stop them.
    publisher.test_mode_delivery = TestModeDelivery::Send;
    publisher.sms = pro_texting(0);
    publish(&publisher, vec![insert_record(&v, "1")]).await;
    assert_eq!(outbox.sms(), 1);
    assert_eq!(sms_counted(&deps.store).await, 0);
}

#[tokio::test]
async fn a_number_the_country_list_no_longer_allows_is_not_texted() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    let retries = Outbox::default();
    let mut publisher = outbox_deps(&deps, &outbox, &retries);
    // The create accepted the US number; the list now names Canada only.
    publisher.sms.countries = SmsCountries::parse("CA").unwrap();
    publish(&publisher, vec![insert_record(&v, "1")]).await;
    assert!(waiting_work(&retries).is_empty());
    assert_eq!((outbox.emails(), outbox.sms()), (1, 0));
    assert_eq!(
        deps.store
            .message_claim(v.verification_id, &Message::InviteSms),
        Some(MessageClaim::Rejected(SMS_COUNTRY_NOT_ALLOWED.into()))
    );
    assert_eq!(sms_counted(&deps.store).await, 0);
}
