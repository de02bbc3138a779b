//! The writes that reach a household member's tenant check the household in the same write, on
//! the DynamoDB adapter (moto) and on `MemoryStore`: after DELETE /households marked the household
//! cancelled, and before the stream cancels its member's own item, the invite e-mail's claim (the
//! first and a resent round's) and a notice's claim (invite SMS, reminders) are refused as
//! `HouseholdCancelled` and write nothing; the metered resend (which names only the verification)
//! is written as any, and reaches nobody (its round's claim refuses); the usual way's resend tells
//! the member cancelled. The members of an open household go through, as verifications outside
//! any household do. The handlers on top: `shared/tests/it/households_reach.rs`.

use crate::common;

use aws_sdk_dynamodb::Client;
use chrono::{DateTime, Duration, TimeZone, Utc};
use shared::adapters::dynamo::{DynamoStore, create_table};
use shared::config::Plans;
use shared::domain::household::{Household, HouseholdMember, MemberRole};
use shared::domain::metering::PresentedKey;
use shared::domain::reach::Notice;
use shared::domain::resend::MAX_RESENDS_PER_DAY;
use shared::domain::{ApiKeyRecord, Mode, NewVerificationInput, Plan, Status, Verification};
use shared::ports::store::prelude::*;
use shared::ports::{
    CreateOutcome, EmailStart, MeterOutcome, Metered, MeteredResend, NoticeClaim, NoticeStore,
};
use uuid::Uuid;

const ACCOUNT: &str = "acct_household_reach";

macro_rules! on_both_stores {
    ($scenario:ident) => {
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn dynamo() {
                super::$scenario(super::store().await).await
            }
            #[tokio::test]
            async fn memory() {
                super::$scenario(shared::adapters::testing::MemoryStore::new()).await
            }
        }
    };
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 10, 12, 0, 0).unwrap()
}

/// When the household is cancelled: a minute after its members were created.
fn cancelled_at() -> DateTime<Utc> {
    now() + Duration::minutes(1)
}

async fn store() -> DynamoStore {
    let sdk = common::moto().sdk_config().await;
    let client = Client::new(&sdk);
    let table = format!("hhreach{}", &Uuid::new_v4().simple().to_string()[..12]);
    create_table(&client, &table).await.expect("table");
    DynamoStore::new(client, table)
}

fn plans() -> Plans {
    Plans::new(vec![Plan {
        name: "tiny".into(),
        verifications_per_month: 50,
        api_requests_per_day: 40,
        api_access: true,
    }])
}

fn key() -> PresentedKey {
    PresentedKey {
        key_id: "key_hash-test".into(),
        key_hash: "hash-test".into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
    }
}

/// The account with a test key, its API window started at `now()`.
async fn account_with_key<S: Store>(store: &S) {
    let account = shared::adapters::testing::active_account(ACCOUNT, "tiny", now());
    store.put_account(&account).await.unwrap();
    let k = key();
    let record = ApiKeyRecord {
        key_id: k.key_id.clone(),
        key_hash: k.key_hash.clone(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        display_prefix: "tiv_test_hhreach".into(),
        created_at: now(),
        revoked_at: None,
    };
    store.put_api_key(&record).await.unwrap();
    let outcome = store.meter_api_request(&k, now(), &plans()).await.unwrap();
    assert!(matches!(outcome, MeterOutcome::Allowed(_)), "{outcome:?}");
}

async fn requests<S: Store>(store: &S) -> u32 {
    let account = store.get_account(ACCOUNT).await.unwrap().unwrap();
    account.api_requests
}

/// A household of one applicant, stored: the household and its member.
async fn household<S: Store>(store: &S, tag: &str) -> (Household, Verification) {
    let household_id = Uuid::new_v4();
    let input = NewVerificationInput {
        tenant_email: format!("{tag}@example.com"),
        ..Default::default()
    };
    let mut v = Verification::new_pending(ACCOUNT, Mode::Test, input, now(), Duration::days(7));
    v.household_id = Some(household_id);
    v.household_role = Some(MemberRole::Applicant);
    let household = Household {
        household_id,
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        created_at: now(),
        property_address: None,
        monthly_rent: 1500.0,
        rent_subsidy_monthly: None,
        income_multiple: None,
        guarantor_multiple: None,
        webhook_url: None,
        members: vec![HouseholdMember {
            verification_id: v.verification_id,
            role: MemberRole::Applicant,
        }],
        decision: None,
        decided_at: None,
        cancelled_at: None,
    };
    let outcome = store
        .create_household(&household, std::slice::from_ref(&v), None, None)
        .await
        .unwrap();
    assert_eq!(outcome, CreateOutcome::Created);
    (household, v)
}

/// An open household's member, and a cancelled household's member whose own item is still
/// pending (the stream has not cancelled it).
async fn open_and_cancelled<S: Store>(store: &S) -> (Verification, Verification) {
    let (_, open) = household(store, "open").await;
    let (cancelled_household, cancelled) = household(store, "cancelled").await;
    let done = store.cancel_household(&cancelled_household, cancelled_at());
    assert!(done.await.unwrap());
    let own = store.get_verification(cancelled.verification_id).await;
    assert_eq!(own.unwrap().unwrap().status, Status::Pending);
    (open, cancelled)
}

async fn stored<S: Store>(store: &S, id: Uuid) -> Verification {
    store.get_verification(id).await.unwrap().unwrap()
}

on_both_stores!(a_cancelled_households_member_claims_no_email_and_no_notice);
/// The invite e-mail's claim, a resent round's and a notice's claim (a reminder's, the invite
/// SMS's) of a member carry the household's check: refused as `HouseholdCancelled`, nothing
/// written.
async fn a_cancelled_households_member_claims_no_email_and_no_notice<S: Store + NoticeStore>(
    store: S,
) {
    let (open, cancelled) = open_and_cancelled(&store).await;
    let at = cancelled_at() + Duration::seconds(1);
    let claim = |v: &Verification, hash: &'static str| {
        store.claim_email_and_bind(v.verification_id, v.household_id, hash, at)
    };
    assert_eq!(
        claim(&open, "open-mail").await.unwrap(),
        EmailStart::Claimed
    );
    let before = stored(&store, cancelled.verification_id).await;
    assert_eq!(
        claim(&cancelled, "cancelled-mail").await.unwrap(),
        EmailStart::HouseholdCancelled
    );
    // Nothing written: no claim taken (a second try is refused the same way), no link bound.
    assert_eq!(
        claim(&cancelled, "cancelled-mail-2").await.unwrap(),
        EmailStart::HouseholdCancelled
    );
    // A resent round's e-mail (resend-invite, from the stream of a resend recorded before the
    // cancel) likewise.
    let round = |v: &Verification, hash: &'static str| {
        store.claim_invite_and_bind(v.verification_id, v.household_id, 1, hash, at)
    };
    assert_eq!(
        round(&open, "open-round").await.unwrap(),
        EmailStart::Claimed
    );
    assert_eq!(
        round(&cancelled, "cancelled-round").await.unwrap(),
        EmailStart::HouseholdCancelled
    );
    let after = stored(&store, cancelled.verification_id).await;
    assert_eq!(after.token_hashes, before.token_hashes);
    assert_eq!(after.message_links, before.message_links, "no link bound");

    let reminder = Notice::ReminderEmail("72h".into());
    let lease = at + Duration::minutes(2);
    for notice in [reminder, Notice::InviteSms] {
        let open_claim = store.claim_notice(
            open.verification_id,
            open.household_id,
            &notice,
            "open-notice",
            at,
            lease,
        );
        assert_eq!(open_claim.await.unwrap(), NoticeClaim::Claimed);
        let refused = store.claim_notice(
            cancelled.verification_id,
            cancelled.household_id,
            &notice,
            "cancelled-notice",
            at,
            lease,
        );
        assert_eq!(refused.await.unwrap(), NoticeClaim::HouseholdCancelled);
    }
    let after = stored(&store, cancelled.verification_id).await;
    assert_eq!(after.token_hashes, before.token_hashes);
    assert_eq!(after.message_links, before.message_links, "no link bound");
    assert!(after.notices_sent.is_empty());
    // The member's own condition still speaks first: a notice sent before is `Sent`.
    let reminder = Notice::ReminderEmail("72h".into());
    store
        .mark_notice_sent(cancelled.verification_id, &reminder)
        .await
        .unwrap();
    let again = store.claim_notice(
        cancelled.verification_id,
        cancelled.household_id,
        &reminder,
        "h",
        at,
        lease,
    );
    assert_eq!(again.await.unwrap(), NoticeClaim::Sent);
}

on_both_stores!(a_resend_before_the_stream_cancels_a_member_reaches_nobody);
/// `meter_and_resend` names only the verification, so it cannot check the household: a member's
/// resend in the moment between its household's cancel and the stream's cancel of the member is
/// written and counted, and reaches nobody: the round's e-mail claim refuses on the household.
async fn a_resend_before_the_stream_cancels_a_member_reaches_nobody<S: Store>(store: S) {
    account_with_key(&store).await;
    let (open, cancelled) = open_and_cancelled(&store).await;
    let at = cancelled_at() + Duration::seconds(1);
    let (k, plans) = (key(), plans());
    let request = |id| MeteredResend {
        key: &k,
        now: at,
        plans: &plans,
        verification_id: id,
        max_per_day: MAX_RESENDS_PER_DAY,
    };
    let counted = requests(&store).await;
    for (n, v) in [&open, &cancelled].into_iter().enumerate() {
        let resent = store.meter_and_resend(&request(v.verification_id)).await;
        let Metered::Done(_, resent) = resent.unwrap() else {
            panic!("one write, as any resend")
        };
        assert_eq!(resent.invite_round, 1);
        assert_eq!(requests(&store).await, counted + n as u32 + 1);
    }
    let round = |v: &Verification, hash: &'static str| {
        store.claim_invite_and_bind(v.verification_id, v.household_id, 1, hash, at)
    };
    assert_eq!(
        round(&open, "open-round").await.unwrap(),
        EmailStart::Claimed
    );
    assert_eq!(
        round(&cancelled, "cancelled-round").await.unwrap(),
        EmailStart::HouseholdCancelled
    );
    assert_eq!(
        stored(&store, cancelled.verification_id).await.invite_round,
        1
    );
}
