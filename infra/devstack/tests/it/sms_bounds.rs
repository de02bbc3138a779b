//! The bounds on SMS on the real wire, against moto: the monthly allowance is counted in the
//! claim's own transaction, so concurrent senders at the allowance's edge text exactly the
//! allowance; a text refused for the allowance fails nothing, and the e-mail goes; `/usage`
//! reports the month's texts; a number of another country is refused at create. The rules one by
//! one, with in-memory fakes: `shared/adapters/tests/it/reminders/sms_bounds.rs`.

use crate::common;

use common::{TestEnv, env_with, fresh_number, sent_emails, sent_sms, small_plans};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions};
use domain::plans::Plans;
use domain::reach::Message;
use domain::sms::SMS_ALLOWANCE_USED;
use domain::{Mode, NewVerificationInput, Status, VERIFICATION_LIFETIME, Verification};
use ports::store::prelude::*;
use ports::{ClaimStart, MessageClaim, SmsAllowance};
use serde_json::json;
use service::config::SmsBounds;
use service::handlers::reach_events::invite_sms;
use service::table_schema::keys;

/// The test plans, `business` (the demo account's) allowing `sms` texts a month.
fn plans(sms: u32) -> Plans {
    let plans = small_plans();
    Plans::new(
        plans
            .iter()
            .cloned()
            .map(|mut p| {
                if p.name == "business" {
                    p.sms_per_month = sms;
                }
                p
            })
            .collect(),
    )
}

/// The stack with the business plan allowing `sms` texts, in the API and in the senders alike.
async fn rig(sms: u32) -> (TestEnv, Workers) {
    let env = env_with(plans(sms)).await;
    let mut workers = env.workers();
    workers.outbox.sms = SmsBounds {
        plans: plans(sms),
        ..Default::default()
    };
    (env, workers)
}

/// A pending live verification of the demo account, stored without the stream being pumped.
async fn stored_with_phone(env: &TestEnv, e164: &str) -> Verification {
    let v = Verification::new_pending(
        devstack::stack::DEMO_ACCOUNT,
        Mode::Live,
        NewVerificationInput {
            tenant_email: format!("sms-{}+good@example.com", uuid::Uuid::new_v4().simple()),
            tenant_phone: Some(e164.into()),
            sms_phone: Some(e164.into()),
            ..Default::default()
        },
        chrono::Utc::now(),
        VERIFICATION_LIFETIME,
    );
    env.store.create_verification(&v, None, None).await.unwrap();
    v
}

/// The account's SMS count of this month, as stored.
async fn counted(env: &TestEnv) -> u32 {
    let account = env.store.get_account(devstack::stack::DEMO_ACCOUNT).await;
    let account = account.unwrap().unwrap();
    domain::sms::sms_used(&account, chrono::Utc::now())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_senders_at_the_allowance_edge_text_exactly_the_allowance() {
    const ALLOWANCE: u32 = 3;
    let (env, workers) = rig(ALLOWANCE).await;
    let mut verifications = Vec::new();
    for _ in 0..8 {
        verifications.push(stored_with_phone(&env, &fresh_number().1).await);
    }
    let outcomes =
        futures::future::join_all(verifications.iter().map(|v| invite_sms(&workers.outbox, v)))
            .await;
    // A refusal is no failure: no attempt is handed to the retry queue.
    for outcome in &outcomes {
        assert!(outcome.is_ok(), "{outcome:?}");
    }
    let mut texted = 0;
    let mut refused = 0;
    for v in &verifications {
        let number = v.sms_phone.as_deref().unwrap();
        let sent = sent_sms(number).await.len();
        let claim = common::claim_state(&env, v.verification_id, &Message::InviteSms).await;
        match sent {
            1 => texted += 1,
            0 => {
                refused += 1;
                assert_eq!(claim.as_deref(), Some("rejected"), "recorded as refused");
            }
            more => panic!("{more} texts to one number"),
        }
    }
    assert_eq!((texted, refused), (ALLOWANCE, 8 - ALLOWANCE));
    assert_eq!(
        counted(&env).await,
        ALLOWANCE,
        "the refused texts are not counted"
    );
    // The count is the usage item's own attribute of the month, beside the API counts.
    let account = common::stored_item(&env, keys::usage(devstack::stack::DEMO_ACCOUNT)).await;
    let month = chrono::Utc::now().format("%Y%m").to_string();
    let attribute = account.unwrap()[&format!("sms_sent_{month}")].clone();
    assert_eq!(attribute.as_n().unwrap(), "3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_claim_and_its_count_are_one_write_that_a_refusal_leaves_untouched() {
    let (env, _) = rig(1).await;
    let store = &env.store;
    let month = domain::sms::sms_month(chrono::Utc::now());
    let allowance = SmsAllowance {
        account_id: devstack::stack::DEMO_ACCOUNT.into(),
        month,
        limit: 1,
    };
    let first = stored_with_phone(&env, &fresh_number().1).await;
    let second = stored_with_phone(&env, &fresh_number().1).await;
    let now = chrono::Utc::now();
    let claim = |v: &Verification, hash: &'static str| {
        store.claim_counted_sms(
            v.verification_id,
            &Message::InviteSms,
            hash,
            now,
            &allowance,
        )
    };
    assert_eq!(claim(&first, "h1").await.unwrap(), ClaimStart::Claimed);
    assert_eq!(counted(&env).await, 1);
    // The allowance is used up: refused for good, nothing counted, no link bound.
    let refused = claim(&second, "h2").await.unwrap();
    let rejected = MessageClaim::Rejected(SMS_ALLOWANCE_USED.into());
    assert_eq!(refused, ClaimStart::Refused(rejected.clone()));
    assert_eq!(counted(&env).await, 1);
    let stored = store
        .get_verification(second.verification_id)
        .await
        .unwrap();
    assert!(
        stored.unwrap().message_links.is_empty(),
        "nothing of the claim was written"
    );
    // A retry finds it refused; the first's release gives its count back.
    assert_eq!(
        claim(&second, "h3").await.unwrap(),
        ClaimStart::Refused(rejected)
    );
    store
        .release_counted_sms(first.verification_id, &Message::InviteSms, &allowance)
        .await
        .unwrap();
    assert_eq!(counted(&env).await, 0);
    // A crashed holder's lapsed lease is taken over without a second count.
    assert_eq!(claim(&first, "h4").await.unwrap(), ClaimStart::Claimed);
    let later = now + domain::reach::MESSAGE_LEASE + chrono::Duration::seconds(1);
    let took_over = store
        .claim_counted_sms(
            first.verification_id,
            &Message::InviteSms,
            "h5",
            later,
            &allowance,
        )
        .await
        .unwrap();
    assert_eq!(took_over, ClaimStart::Claimed);
    assert_eq!(counted(&env).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_sms_fails_nothing_the_email_goes_and_usage_reports_the_texts() {
    let (env, workers) = rig(1).await;
    let mut pump = StreamPump::new(&env.sdk, &env.names.table, TtlDeletions::default())
        .await
        .unwrap();
    let key = env.live_key.clone();
    // Another country's number is refused at create, naming the field and the countries.
    let uk = env
        .create_verification(
            &key,
            json!({"tenant_email": "uk+good@example.com", "tenant_phone": "+44 20 7946 0958"}),
        )
        .await;
    assert_eq!(uk.status, 400, "{}", uk.raw);
    assert_eq!(uk.body["details"][0]["field"], "tenant_phone");
    assert!(
        uk.body["error"].as_str().unwrap().contains("US, CA"),
        "{}",
        uk.raw
    );
    let mut created = Vec::new();
    for _ in 0..2 {
        let (raw, e164) = fresh_number();
        let email = format!("sms-{}+good@example.com", uuid::Uuid::new_v4().simple());
        let reply = env
            .create_verification(&key, json!({"tenant_email": email, "tenant_phone": raw}))
            .await;
        assert_eq!(reply.status, 201, "{}", reply.raw);
        let id: uuid::Uuid = reply.body["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        created.push((id, email, e164));
        // One at a time: which of the two is texted is then known.
        for _ in 0..20 {
            if pump
                .pump_once(&workers.outbox, &workers.expiry)
                .await
                .unwrap()
                == 0
            {
                break;
            }
        }
    }
    let texts: Vec<usize> = futures::future::join_all(created.iter().map(|(_, _, n)| sent_sms(n)))
        .await
        .iter()
        .map(Vec::len)
        .collect();
    assert_eq!(texts, vec![1, 0], "the second is past the allowance of one");
    for (id, email, _) in &created {
        assert_eq!(sent_emails(email).await.len(), 1, "every e-mail goes");
        let v = env.store.get_verification(*id).await.unwrap().unwrap();
        assert_eq!(v.status, Status::Pending, "the verification goes on");
    }
    let retry_depth = common::queue_depth(&env, &env.created.retry_queue_url).await;
    assert_eq!(retry_depth, 0, "a refused text is never retried");
    let usage = env.usage(&key).await;
    assert_eq!(usage.status, 200, "{}", usage.raw);
    assert_eq!(
        usage.body["data"]["sms"],
        json!({"used_this_month": 1, "limit": 1, "remaining": 0})
    );
    // The contract's fields are unchanged beside it.
    for field in ["plan", "verifications", "api", "subscription"] {
        assert!(usage.body["data"][field].is_object() || usage.body["data"][field].is_string());
    }
}
