//! The store calls that let the endpoints of issues 12 and 13 answer in one DynamoDB round trip,
//! on the DynamoDB adapter (moto) and on `MemoryStore`: a resend and a redelivery request that
//! carry their metering (both or nothing, a refusal told by its typed reason; the day's resend
//! limit held under concurrency), a short delivery log read whole in one read, a household's
//! `household.completed` kept and redelivered under the household, and a household read with its
//! members as they are now.

use crate::common;

use adapters::dynamo::{DynamoStore, create_table};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Duration, TimeZone, Utc};
use common::{Metered, declined};
use domain::household::{Household, HouseholdMember, HouseholdShape, MemberRole};
use domain::metering::PresentedKey;
use domain::plans::Plans;
use domain::resend::{MAX_RESENDS_PER_DAY, resends_today};
use domain::webhook::WebhookMessage;
use domain::webhook_log::{
    AttemptOutcome, DeliveryAttempt, SHORT_LOG_ATTEMPTS, StoredWebhookEvent, WebhookSubject,
};
use domain::{ApiKeyRecord, Mode, NewVerificationInput, Plan, Status, Transition, Verification};
use ports::store::prelude::*;
use ports::{
    CreateOutcome, MeterOutcome, MeteredHouseholdCancel, MeteredRedelivery, MeteredResend,
};
use service::table_schema::{self as schema, keys};
use uuid::Uuid;

const ACCOUNT: &str = "acct_reach";

macro_rules! on_both_stores {
    ($scenario:ident) => {
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn dynamo() {
                super::$scenario(super::store().await).await
            }
            #[tokio::test]
            async fn memory() {
                super::$scenario(test_support::MemoryStore::new()).await
            }
        }
    };
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 10, 12, 0, 0).unwrap()
}

async fn store() -> DynamoStore {
    let sdk = common::moto().sdk_config().await;
    let client = Client::new(&sdk);
    let table = format!("reach{}", &Uuid::new_v4().simple().to_string()[..12]);
    create_table(&client, &table).await.expect("table");
    DynamoStore::new(client, table)
}

fn plans() -> Plans {
    Plans::new(vec![Plan {
        name: "tiny".into(),
        verifications_per_month: 50,
        api_requests_per_day: 40,
        api_access: true,
        sms_per_month: 0,
        key_burst: Default::default(),
    }])
}

fn key(mode: Mode) -> PresentedKey {
    let hash = format!("hash-{}", mode.as_str());
    PresentedKey {
        key_id: format!("key_{hash}"),
        key_hash: hash,
        account_id: ACCOUNT.into(),
        mode,
    }
}

/// The account with a test and a live key, its API window started at `now()`.
async fn account_with_keys<S: Store>(store: &S) {
    store
        .put_account(&test_support::active_account(ACCOUNT, "tiny", now()))
        .await
        .unwrap();
    for mode in [Mode::Test, Mode::Live] {
        let k = key(mode);
        let record = ApiKeyRecord {
            key_id: k.key_id.clone(),
            key_hash: k.key_hash.clone(),
            account_id: ACCOUNT.into(),
            mode,
            display_prefix: "tiv_test_reach".into(),
            created_at: now(),
            revoked_at: None,
        };
        store.put_api_key(&record).await.unwrap();
    }
    started_window(store, now()).await;
}

/// A write carrying its metering counts only in a started window: the day's first request starts
/// it the usual way.
async fn started_window<S: Store>(store: &S, at: DateTime<Utc>) {
    let outcome = store
        .meter_api_request(&key(Mode::Test), at, &plans())
        .await
        .unwrap();
    assert!(matches!(outcome, MeterOutcome::Allowed(_)), "{outcome:?}");
}

async fn count<S: Store>(store: &S) -> u32 {
    store
        .get_account(ACCOUNT)
        .await
        .unwrap()
        .unwrap()
        .api_requests
}

async fn created<S: Store>(store: &S, mode: Mode) -> Verification {
    // With a webhook_url: only such a verification has webhook events to redeliver.
    let input = NewVerificationInput {
        tenant_email: "tenant@example.com".into(),
        webhook_url: Some("https://hooks.example.com/reach".into()),
        ..Default::default()
    };
    let v = Verification::new_pending(ACCOUNT, mode, input, now(), Duration::days(7));
    store.create_verification(&v, None, None).await.unwrap();
    v
}

on_both_stores!(a_resend_carrying_its_metering_holds_the_day_limit);
/// `meter_and_resend`: the count and the resend together or not at all; the key's own open
/// verification only (anything else told why, the request counted alone); at most
/// `MAX_RESENDS_PER_DAY` a UTC day under concurrent requests; a new day starts again.
async fn a_resend_carrying_its_metering_holds_the_day_limit<S: Store>(store: S) {
    account_with_keys(&store).await;
    let plans = plans();
    let store = &store;
    let resend = |id: Uuid, mode: Mode, at: DateTime<Utc>| {
        let plans = &plans;
        async move {
            let key = key(mode);
            let request = MeteredResend {
                key: &key,
                now: at,
                plans,
                verification_id: id,
                max_per_day: MAX_RESENDS_PER_DAY,
            };
            Metered::<()>::of(store.meter_and_resend(&request).await)
        }
    };
    let open = created(store, Mode::Test).await;
    let live = created(store, Mode::Live).await;
    let cancelled = created(store, Mode::Test).await;
    store
        .transition(&cancelled, &Transition::Cancel, now())
        .await
        .unwrap();
    // Another mode's key, a closed one, one that does not exist: told why, counted.
    let not_found = || declined("NotFound");
    assert_eq!(
        resend(live.verification_id, Mode::Test, now()).await,
        not_found()
    );
    assert_eq!(
        resend(open.verification_id, Mode::Live, now()).await,
        not_found()
    );
    assert_eq!(
        resend(cancelled.verification_id, Mode::Test, now()).await,
        declined("Closed")
    );
    assert_eq!(resend(Uuid::new_v4(), Mode::Test, now()).await, not_found());
    assert_eq!(count(store).await, 5);
    // Concurrent resends of the same verification: the day's limit, the others told so; each
    // counted once.
    let tries = 6;
    let outcomes = futures::future::join_all(
        (0..tries).map(|_| resend(open.verification_id, Mode::Test, now())),
    )
    .await;
    let limited = outcomes
        .iter()
        .filter(|o| **o == declined("ResendLimitReached"))
        .count();
    let done: Vec<_> = (outcomes.into_iter())
        .filter_map(|o| match o {
            Metered::Wrote(done) => Some(done),
            _ => None,
        })
        .collect();
    assert_eq!(limited, tries - MAX_RESENDS_PER_DAY as usize);
    assert_eq!(done.len(), MAX_RESENDS_PER_DAY as usize);
    // Each answer's count is within the day's limit (its own place, or short of it when another
    // resend raced between the read beside it and its write).
    for (_, v) in &done {
        assert!(
            (1..=MAX_RESENDS_PER_DAY).contains(&resends_today(v, now())),
            "{v:?}"
        );
    }
    assert_eq!(count(store).await, 5 + tries as u32);
    let stored = store
        .get_verification(open.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stored.invite_round, stored.resends_on_day),
        (MAX_RESENDS_PER_DAY, MAX_RESENDS_PER_DAY)
    );
    // The next UTC day counts afresh.
    let tomorrow = now() + Duration::days(1);
    started_window(store, tomorrow).await;
    let Metered::Wrote((_, first)) = resend(open.verification_id, Mode::Test, tomorrow).await
    else {
        panic!("a new day")
    };
    assert_eq!((first.invite_round, first.resends_on_day), (4, 1));
    let Metered::Wrote((_, second)) = resend(open.verification_id, Mode::Test, tomorrow).await
    else {
        panic!("the day's second")
    };
    assert_eq!(second.resends_on_day, 2);
    // Not racing: the answer is exactly this resend's place.
    let Metered::Wrote((_, third)) = resend(open.verification_id, Mode::Test, tomorrow).await
    else {
        panic!("the day's third")
    };
    assert_eq!((third.invite_round, third.resends_on_day), (6, 3));
    assert_eq!(
        resend(open.verification_id, Mode::Test, tomorrow).await,
        declined("ResendLimitReached")
    );
    let stored = store
        .get_verification(open.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stored.invite_round, stored.resends_on_day, stored.status),
        (6, 3, Status::Pending)
    );
    // Past its expiry: closed (as the write saw it), nothing written.
    assert_eq!(
        resend(open.verification_id, Mode::Test, open.expires_at).await,
        declined("Closed")
    );
    let after = store.get_verification(open.verification_id).await.unwrap();
    assert_eq!(after.map(|v| v.invite_round), Some(6));
}

fn event_of(v: &Verification, account: &str, kind: &str) -> StoredWebhookEvent {
    let message = WebhookMessage {
        webhook_id: format!("msg_{}_{kind}", v.verification_id.simple()),
        account_id: account.into(),
        url: "https://hooks.example.com/reach".into(),
        body: serde_json::json!({
            "type": format!("verification.{kind}"),
            "timestamp": "2026-03-10T12:00:00Z",
            "data": { "verification_id": v.verification_id },
        })
        .to_string(),
    };
    StoredWebhookEvent::of(&message, now()).unwrap()
}

on_both_stores!(a_redelivery_carrying_its_metering_is_the_owners_only);
/// `meter_and_redeliver`: counted and requested together, only for an event of the key's account
/// whose verification is of the key's account and mode, with a webhook_url; anything else leaves
/// the event as it was and says why, the request counted alone.
async fn a_redelivery_carrying_its_metering_is_the_owners_only<S: Store>(store: S) {
    account_with_keys(&store).await;
    let plans = plans();
    let store = &store;
    let redeliver = |event: &StoredWebhookEvent, verification_id: Uuid, mode: Mode| {
        let plans = &plans;
        let event_id = event.message.webhook_id.clone();
        async move {
            let key = key(mode);
            let request = MeteredRedelivery {
                key: &key,
                now: now(),
                plans,
                event_id: &event_id,
                subject: WebhookSubject::Verification(verification_id),
            };
            Metered::<()>::of(store.meter_and_redeliver(&request).await)
        }
    };
    let redeliveries = |event: &StoredWebhookEvent| {
        let event_id = event.message.webhook_id.clone();
        async move {
            store
                .get_webhook_event(&event_id)
                .await
                .unwrap()
                .unwrap()
                .redeliveries
        }
    };
    let v = created(store, Mode::Test).await;
    let other = created(store, Mode::Test).await;
    let ours = event_of(&v, ACCOUNT, "completed");
    let theirs = event_of(&other, "acct_someone_else", "completed");
    store.put_webhook_event(&ours).await.unwrap();
    store.put_webhook_event(&theirs).await.unwrap();
    let unstored = event_of(&v, ACCOUNT, "started");
    // The other mode's key, another verification named, another account's event, no event:
    // not found; one of the key's own verifications without a webhook_url: told so.
    let not_found = || declined("NotFound");
    assert_eq!(
        redeliver(&ours, v.verification_id, Mode::Live).await,
        not_found()
    );
    assert_eq!(
        redeliver(&ours, other.verification_id, Mode::Test).await,
        not_found()
    );
    assert_eq!(
        redeliver(&theirs, other.verification_id, Mode::Test).await,
        not_found()
    );
    assert_eq!(
        redeliver(&unstored, v.verification_id, Mode::Test).await,
        not_found()
    );
    let input = NewVerificationInput {
        tenant_email: "tenant@example.com".into(),
        ..Default::default()
    };
    let hookless = Verification::new_pending(ACCOUNT, Mode::Test, input, now(), Duration::days(7));
    store
        .create_verification(&hookless, None, None)
        .await
        .unwrap();
    let never_sent = event_of(&hookless, ACCOUNT, "completed");
    assert_eq!(
        redeliver(&never_sent, hookless.verification_id, Mode::Test).await,
        declined("NoWebhookUrl")
    );
    assert_eq!(count(store).await, 6);
    assert_eq!(
        (redeliveries(&ours).await, redeliveries(&theirs).await),
        (0, 0)
    );
    // The owner's: counted and requested together, the event as stored.
    let Metered::Wrote((account, event)) = redeliver(&ours, v.verification_id, Mode::Test).await
    else {
        panic!("the owner's event")
    };
    assert_eq!(account.api_requests, 7);
    assert_eq!(event.message.webhook_id, ours.message.webhook_id);
    assert_eq!(count(store).await, 7);
    assert_eq!(redeliveries(&ours).await, 1);
}

fn attempt(v: &Verification, n: i64) -> DeliveryAttempt {
    DeliveryAttempt {
        event_id: format!("msg_{}_completed", v.verification_id.simple()),
        event_type: "verification.completed".into(),
        subject: WebhookSubject::Verification(v.verification_id),
        attempt: 1,
        attempted_at: now() + Duration::seconds(n),
        outcome: AttemptOutcome::Delivered,
        http_status: Some(200),
        error: None,
        duration_ms: 10,
        final_attempt: false,
    }
}

on_both_stores!(a_short_delivery_log_is_read_whole_in_one_read);
/// `delivery_page_if_short`: a log of at most `SHORT_LOG_ATTEMPTS` gives the very page and total
/// `list_delivery_attempts` gives; a longer one gives nothing (and is listed the usual way).
async fn a_short_delivery_log_is_read_whole_in_one_read<S: Store>(store: S) {
    let short = created(&store, Mode::Test).await;
    let long = created(&store, Mode::Test).await;
    let empty = created(&store, Mode::Test).await;
    for n in 0..3 {
        store
            .record_delivery_attempt(ACCOUNT, &attempt(&short, n))
            .await
            .unwrap();
    }
    for n in 0..=i64::from(SHORT_LOG_ATTEMPTS) {
        store
            .record_delivery_attempt(ACCOUNT, &attempt(&long, n))
            .await
            .unwrap();
    }
    for (offset, limit) in [(0, 20), (1, 1), (2, 5), (5, 5)] {
        let page = store
            .delivery_page_if_short(
                WebhookSubject::Verification(short.verification_id),
                offset,
                limit,
            )
            .await
            .unwrap()
            .expect("a short log");
        let listed = store
            .list_delivery_attempts(
                WebhookSubject::Verification(short.verification_id),
                offset,
                limit,
            )
            .await
            .unwrap();
        assert_eq!(page, listed, "offset {offset}, limit {limit}");
        assert_eq!(page.total, 3);
    }
    let none = store
        .delivery_page_if_short(WebhookSubject::Verification(empty.verification_id), 0, 20)
        .await
        .unwrap()
        .expect("an empty log is short");
    assert_eq!((none.items.len(), none.total), (0, 0));
    assert_eq!(
        store
            .delivery_page_if_short(WebhookSubject::Verification(long.verification_id), 0, 20)
            .await
            .unwrap(),
        None
    );
    let listed = store
        .list_delivery_attempts(WebhookSubject::Verification(long.verification_id), 0, 20)
        .await
        .unwrap();
    assert_eq!(listed.total, u64::from(SHORT_LOG_ATTEMPTS) + 1);
}

async fn created_household<S: Store>(store: &S, roles: &[MemberRole]) -> (Household, Vec<Uuid>) {
    household_of(store, ACCOUNT, roles).await
}

/// A household of `account` as the service makes one: its id names its shape, and each member's
/// id follows from it (`HouseholdShape`).
async fn household_of<S: Store>(
    store: &S,
    account: &str,
    roles: &[MemberRole],
) -> (Household, Vec<Uuid>) {
    let shape = HouseholdShape::new(roles).unwrap();
    let household_id = shape.new_household_id();
    let members: Vec<Verification> = (shape.members(household_id).iter())
        .map(
            |HouseholdMember {
                 verification_id,
                 role,
             }| {
                let input = NewVerificationInput {
                    tenant_email: format!("{}@example.com", role.as_str()),
                    ..Default::default()
                };
                let mut v =
                    Verification::new_pending(account, Mode::Test, input, now(), Duration::days(7));
                v.verification_id = *verification_id;
                v.household_id = Some(household_id);
                v.household_role = Some(*role);
                v
            },
        )
        .collect();
    let household = Household {
        household_id,
        account_id: account.into(),
        mode: Mode::Test,
        created_at: now(),
        property_address: None,
        monthly_rent: 1500.0,
        rent_subsidy_monthly: None,
        income_multiple: None,
        guarantor_multiple: None,
        webhook_url: Some("https://hooks.example.com/household".into()),
        members: (members.iter().zip(roles))
            .map(|(v, role)| HouseholdMember {
                verification_id: v.verification_id,
                role: *role,
            })
            .collect(),
        decision: None,
        decided_at: None,
        cancelled_at: None,
        erased_at: None,
    };
    let outcome = store
        .create_household(&household, &members, None, None)
        .await
        .unwrap();
    assert_eq!(outcome, CreateOutcome::Created);
    let ids = members.iter().map(|v| v.verification_id).collect();
    (household, ids)
}

mod household_cancel;

on_both_stores!(a_households_event_is_kept_logged_and_redelivered_under_the_household);
/// `household.completed` names no verification: its event and its attempts are kept under the
/// household (read back as such), listed apart from its members' logs, and `meter_and_redeliver`
/// counts it only for the household's own account and mode.
async fn a_households_event_is_kept_logged_and_redelivered_under_the_household<S: Store>(store: S) {
    account_with_keys(&store).await;
    let (household, members) = created_household(&store, &[MemberRole::Applicant]).await;
    let id = household.household_id;
    let message = WebhookMessage {
        webhook_id: format!("msg_{}_household_completed", id.simple()),
        account_id: ACCOUNT.into(),
        url: "https://hooks.example.com/household".into(),
        body: serde_json::json!({
            "type": "household.completed",
            "timestamp": "2026-03-10T12:00:00Z",
            "data": { "household_id": id, "status": "decided" },
        })
        .to_string(),
    };
    let event = StoredWebhookEvent::of(&message, now()).expect("a household's event");
    assert_eq!(event.subject, WebhookSubject::Household(id));
    assert_eq!(
        WebhookSubject::of_event_id(&message.webhook_id),
        Some(event.subject)
    );
    store.put_webhook_event(&event).await.unwrap();
    let read = store.get_webhook_event(&message.webhook_id).await.unwrap();
    assert_eq!(read, Some(event.clone()), "read back as the household's");

    let attempt = DeliveryAttempt {
        event_id: message.webhook_id.clone(),
        event_type: "household.completed".into(),
        subject: event.subject,
        attempt: 1,
        attempted_at: now(),
        outcome: AttemptOutcome::Failed,
        http_status: Some(500),
        error: None,
        duration_ms: 10,
        final_attempt: false,
    };
    store
        .record_delivery_attempt(ACCOUNT, &attempt)
        .await
        .unwrap();
    let member = store.get_verification(members[0]).await.unwrap().unwrap();
    store
        .record_delivery_attempt(ACCOUNT, &self::attempt(&member, 1))
        .await
        .unwrap();
    let listed = store
        .list_delivery_attempts(event.subject, 0, 20)
        .await
        .unwrap();
    assert_eq!((listed.items, listed.total), (vec![attempt.clone()], 1));
    let short = store
        .delivery_page_if_short(event.subject, 0, 20)
        .await
        .unwrap()
        .expect("a short log");
    assert_eq!(short.items, vec![attempt]);
    let member_log = store
        .list_delivery_attempts(WebhookSubject::Verification(members[0]), 0, 20)
        .await
        .unwrap();
    assert_eq!(member_log.total, 1, "the member's log is its own");

    let plans = plans();
    let redeliver = |subject: WebhookSubject, mode: Mode| {
        let (plans, store, event_id) = (&plans, &store, message.webhook_id.clone());
        async move {
            let key = key(mode);
            let request = MeteredRedelivery {
                key: &key,
                now: now(),
                plans,
                event_id: &event_id,
                subject,
            };
            Metered::<()>::of(store.meter_and_redeliver(&request).await)
        }
    };
    // The other mode's key, and the household's id taken for a verification's: not found.
    assert_eq!(
        redeliver(event.subject, Mode::Live).await,
        declined("NotFound")
    );
    assert_eq!(
        redeliver(WebhookSubject::Verification(id), Mode::Test).await,
        declined("NotFound")
    );
    // The window's first request (`account_with_keys`) and the two refused ones.
    assert_eq!(count(&store).await, 3);
    let Metered::Wrote((account, _)) = redeliver(event.subject, Mode::Test).await else {
        panic!("the owner's household event")
    };
    assert_eq!(account.api_requests, 4);
    let stored = store.get_webhook_event(&message.webhook_id).await.unwrap();
    assert_eq!(
        stored.map(|e| (e.subject, e.redeliveries)),
        Some((event.subject, 1))
    );
}

on_both_stores!(a_household_is_read_with_its_members_as_they_are);
/// `get_household_with_members`: the household and its members in the household's order, with the
/// statuses they have now; None for no household.
async fn a_household_is_read_with_its_members_as_they_are<S: Store>(store: S) {
    let roles = [
        MemberRole::Applicant,
        MemberRole::Applicant,
        MemberRole::Guarantor,
    ];
    let (household, ids) = created_household(&store, &roles).await;
    let first = store.get_verification(ids[1]).await.unwrap().unwrap();
    store
        .transition(&first, &Transition::Start, now())
        .await
        .unwrap();
    let (read, members) = store
        .get_household_with_members(household.household_id)
        .await
        .unwrap()
        .expect("the household");
    assert_eq!(read, household);
    let got: Vec<(Uuid, Status)> = members
        .iter()
        .map(|v| (v.verification_id, v.status))
        .collect();
    assert_eq!(
        got,
        vec![
            (ids[0], Status::Pending),
            (ids[1], Status::InProgress),
            (ids[2], Status::Pending),
        ]
    );
    assert!(
        store
            .get_household_with_members(Uuid::new_v4())
            .await
            .unwrap()
            .is_none()
    );
}

/// A household whose members the index does not show (written before it existed, or not yet
/// propagated) is still read whole: those members are read by themselves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_missing_from_the_index_are_read_by_themselves() {
    let store = store().await;
    let (household, ids) =
        created_household(&store, &[MemberRole::Applicant, MemberRole::Guarantor]).await;
    let (pk, sk) = keys::verification(ids[0]);
    store
        .client()
        .update_item()
        .table_name(store.table())
        .key(schema::PK, AttributeValue::S(pk))
        .key(schema::SK, AttributeValue::S(sk))
        .update_expression("REMOVE #pk, #sk")
        .expression_attribute_names("#pk", schema::GSI3PK)
        .expression_attribute_names("#sk", schema::GSI3SK)
        .send()
        .await
        .unwrap();
    let (_, members) = store
        .get_household_with_members(household.household_id)
        .await
        .unwrap()
        .expect("the household");
    let got: Vec<Uuid> = members.iter().map(|v| v.verification_id).collect();
    assert_eq!(got, ids);
}
