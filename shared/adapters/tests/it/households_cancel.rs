//! DELETE /households against the in-memory store: the one write cancels the household and its
//! open members, after which no read shows a member open and no member's tenant step succeeds; a
//! second cancel, a cancel of a household whose members all closed (409, nothing written), another
//! owner's household, an unknown or forged id, the first request of a window, every refused
//! request counted, and the writes a cancel costs (one; two with a member completed before it).
//! The races on the real wire: `infra/devstack/tests/it/households.rs`.

use crate::support::{body, now, settings};
use chrono::{DateTime, Duration, Utc};
use domain::report::IncomeReport;
use domain::secrets::{GeneratedKey, account_key_from_random};
use domain::{ApiKeyRecord, Mode, Status, Transition};
use ports::TransitionOutcome;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::handlers::api::ApiDeps;
use service::handlers::get_verification::get_verification;
use service::handlers::households::{cancel_household, create_household, get_household};
use service::handlers::list_verifications::list_verifications;
use service::http::{ApiRequest, ApiResponse};
use test_support::{FaultyStore, StoreOp};
use test_support::{ManualClock, MemoryStore, active_account};
use uuid::Uuid;

const ACCOUNT: &str = "acct_cancel";
const OTHER: &str = "acct_cancel_other";

async fn add_key(store: &MemoryStore, account: &str, mode: Mode, random: &str) -> GeneratedKey {
    let key = account_key_from_random(account, mode, random).unwrap();
    store
        .put_api_key(&ApiKeyRecord {
            key_id: key.key_id.clone(),
            key_hash: key.hash.clone(),
            account_id: account.into(),
            mode,
            display_prefix: key.display_prefix.clone(),
            created_at: now(),
            revoked_at: None,
        })
        .await
        .unwrap();
    key
}

struct Rig {
    store: MemoryStore,
    deps: ApiDeps<MemoryStore, ManualClock>,
    key: GeneratedKey,
}

async fn rig() -> Rig {
    let store = MemoryStore::new();
    for account in [ACCOUNT, OTHER] {
        store
            .put_account(&active_account(account, "pro", now()))
            .await
            .unwrap();
    }
    let key = add_key(
        &store,
        ACCOUNT,
        Mode::Test,
        "HouseholdCancelTestKeyNumber01",
    )
    .await;
    let deps = ApiDeps::new(store.clone(), ManualClock::at(now()), settings());
    Rig { store, deps, key }
}

fn named(method: http::Method, key: &GeneratedKey, id: Uuid) -> ApiRequest {
    ApiRequest::new(method, &format!("/api/v1/households?household_id={id}"))
        .with_header("authorization", &format!("Bearer {}", key.secret))
}

fn statuses(response: &ApiResponse) -> Vec<String> {
    (body(response)["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["status"].as_str().unwrap().to_string())
        .collect()
}

impl Rig {
    /// A household of `n` applicants: its id and its members' ids.
    async fn household(&self, tag: &str, n: usize) -> (Uuid, Vec<Uuid>) {
        let members: Vec<Value> = (0..n)
            .map(|i| json!({"tenant_email": format!("{tag}{i}@example.com"), "role": "applicant"}))
            .collect();
        let req = ApiRequest::new(http::Method::POST, "/api/v1/households")
            .with_header("content-type", "application/json")
            .with_header("authorization", &format!("Bearer {}", self.key.secret))
            .with_body(json!({"monthly_rent": 1000, "members": members}).to_string());
        let r = create_household(&self.deps, req).await;
        assert_eq!(r.status, 201, "{}", r.body);
        let b = body(&r);
        let id = b["data"]["household_id"].as_str().unwrap().parse().unwrap();
        let ids = (b["data"]["members"].as_array().unwrap().iter())
            .map(|m| m["verification_id"].as_str().unwrap().parse().unwrap())
            .collect();
        (id, ids)
    }

    async fn cancel(&self, key: &GeneratedKey, id: Uuid) -> ApiResponse {
        cancel_household(&self.deps, named(http::Method::DELETE, key, id)).await
    }

    async fn requests(&self, account: &str) -> u32 {
        let a = self.store.get_account(account).await.unwrap().unwrap();
        a.api_requests
    }

    /// The member's step as the tenant page writes it.
    async fn step(&self, id: Uuid, step: &Transition) -> TransitionOutcome {
        let v = self.store.get_verification(id).await.unwrap().unwrap();
        self.store.transition(&v, step, now()).await.unwrap()
    }
}

fn consent() -> Transition {
    Transition::Consent {
        version: "2026-11-v1".into(),
        provider_user: None,
        methods: vec![],
    }
}

fn complete() -> Transition {
    let mut report = IncomeReport::empty_for_tests();
    report.total_monthly_income = 4000.0;
    Transition::Complete {
        report: Box::new(report),
    }
}

/// A refused step is told as the cancelled member, and wrote nothing.
fn assert_refused_as_cancelled(outcome: TransitionOutcome, cancelled_at: DateTime<Utc>) {
    let TransitionOutcome::Conflict(Some(v)) = outcome else {
        panic!("refused with the member: {outcome:?}")
    };
    assert_eq!(v.status, Status::Expired);
    assert_eq!(v.cancelled_at, Some(cancelled_at));
}

#[tokio::test]
async fn a_household_cancel_leaves_no_member_open_on_any_read() {
    let rig = rig().await;
    let (id, m) = rig.household("c", 3).await;
    // Member 0 completes first; member 1 has consented.
    assert!(matches!(
        rig.step(m[0], &complete()).await,
        TransitionOutcome::Applied(_)
    ));
    assert!(matches!(
        rig.step(m[1], &consent()).await,
        TransitionOutcome::Applied(_)
    ));
    let r = rig.cancel(&rig.key, id).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(statuses(&r), ["completed", "cancelled", "cancelled"]);
    assert_eq!(
        body(&r)["message"],
        "2 open member(s) cancelled; final members unchanged"
    );
    assert!(r.header("x-ratelimit-remaining").is_some());
    let household = rig.store.household(id).unwrap();
    assert_eq!(household.cancelled_at, Some(now()));
    // The same write cancelled the open members' own items, with the counters.
    let stored = |i: usize| rig.store.verification(m[i]).unwrap();
    assert_eq!(
        [stored(0).status, stored(1).status, stored(2).status],
        [Status::Completed, Status::Expired, Status::Expired],
    );
    assert_eq!(stored(1).cancelled_at, Some(now()));
    assert_eq!(stored(2).cancelled_at, Some(now()));
    let (stats, _) = (rig.store)
        .owner_stats(ACCOUNT, Mode::Test, "2026-03")
        .await
        .unwrap();
    assert_eq!(stats.open, 0, "{stats:?}");
    // Every read: each member's GET /verify, the list (by household and by open status), GET
    // /households.
    let get = |path: String| {
        ApiRequest::new(http::Method::GET, &path)
            .with_header("authorization", &format!("Bearer {}", rig.key.secret))
    };
    for (i, member) in m.iter().enumerate() {
        let r = get_verification(
            &rig.deps,
            get(format!("/api/v1/verify?verification_id={member}")),
        )
        .await;
        let shown = body(&r)["data"]["status"].clone();
        assert_eq!(
            shown,
            if i == 0 { "completed" } else { "expired" },
            "{}",
            r.body
        );
    }
    let r = list_verifications(
        &rig.deps,
        get(format!("/api/v1/verifications?household_id={id}")),
    )
    .await;
    let listed = body(&r);
    let mut listed: Vec<&str> = (listed["data"].as_array().unwrap().iter())
        .map(|v| v["status"].as_str().unwrap())
        .collect();
    listed.sort();
    assert_eq!(listed, ["completed", "expired", "expired"], "{}", r.body);
    for open in ["pending", "in_progress"] {
        let r = list_verifications(
            &rig.deps,
            get(format!("/api/v1/verifications?status={open}")),
        )
        .await;
        assert_eq!(body(&r)["data"], json!([]), "{open}: {}", r.body);
    }
    let r = get_household(&rig.deps, named(http::Method::GET, &rig.key, id)).await;
    let view = body(&r);
    assert_eq!(view["data"]["status"], "cancelled", "{view}");
    assert_eq!(statuses(&r), ["completed", "expired", "expired"]);
    assert_eq!(view["data"]["open_members"], json!([]));
    assert!(view["data"]["decision"].is_null());
    assert_eq!(view["data"]["cancelled_at"], "2026-03-10T12:00:00.000Z");
    // Every tenant step of a cancelled member is refused and told as cancelled.
    assert_refused_as_cancelled(rig.step(m[1], &complete()).await, now());
    assert_refused_as_cancelled(rig.step(m[2], &consent()).await, now());
    assert_refused_as_cancelled(rig.step(m[2], &complete()).await, now());
    assert_refused_as_cancelled(rig.step(m[2], &Transition::Start).await, now());
    // A cancelled household is never decided, whatever the decision says.
    let members: Vec<_> = m
        .iter()
        .map(|id| rig.store.verification(*id).unwrap())
        .collect();
    let decision = fake_decision(&household, &members);
    assert!(
        !(rig.store)
            .record_household_decision(id, &decision, now())
            .await
            .unwrap()
    );
}

/// Any decision: the write must refuse it for a cancelled household whatever it says.
fn fake_decision(
    household: &domain::household::Household,
    members: &[domain::Verification],
) -> domain::household::HouseholdDecision {
    let outcomes: Vec<_> = (household.members.iter())
        .zip(members)
        .map(|(h, v)| {
            let mut done = v.clone();
            done.status = Status::Completed;
            done.income_report = Some(IncomeReport::empty_for_tests());
            domain::household::MemberOutcome::of(&done, h.role, now())
        })
        .collect();
    domain::household::decide(&household.rent_terms(), None, &outcomes).unwrap()
}

#[tokio::test]
async fn a_second_cancel_answers_every_member_as_it_is_and_is_counted() {
    let rig = rig().await;
    let (id, _) = rig.household("twice", 2).await;
    let before = rig.requests(ACCOUNT).await;
    let r = rig.cancel(&rig.key, id).await;
    assert_eq!(statuses(&r), ["cancelled", "cancelled"]);
    let r = rig.cancel(&rig.key, id).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(statuses(&r), ["expired", "expired"]);
    assert_eq!(
        body(&r)["message"],
        "0 open member(s) cancelled; final members unchanged"
    );
    assert_eq!(rig.requests(ACCOUNT).await, before + 2, "both counted");
    let remaining: u32 = r.header("x-ratelimit-remaining").unwrap().parse().unwrap();
    assert_eq!(remaining, 1000 - (before + 2));
}

#[tokio::test]
async fn another_owners_household_is_404_counted_and_left_open() {
    let rig = rig().await;
    let (id, _) = rig.household("iso", 2).await;
    let other = add_key(
        &rig.store,
        OTHER,
        Mode::Test,
        "HouseholdCancelOtherAccount001",
    )
    .await;
    let live = add_key(
        &rig.store,
        ACCOUNT,
        Mode::Live,
        "HouseholdCancelLiveKeyNumber01",
    )
    .await;
    let own_before = rig.requests(ACCOUNT).await;
    for key in [&other, &live] {
        let r = rig.cancel(key, id).await;
        assert_eq!(
            (r.status, body(&r)["code"].clone()),
            (404, json!("not_found"))
        );
        assert!(r.header("x-ratelimit-remaining").is_some(), "counted");
    }
    let r = rig.cancel(&other, Uuid::new_v4()).await;
    assert_eq!(r.status, 404);
    assert_eq!(rig.requests(OTHER).await, 2, "each refused request counted");
    assert_eq!(rig.requests(ACCOUNT).await, own_before + 1);
    assert_eq!(rig.store.household(id).unwrap().cancelled_at, None);
    let r = get_household(&rig.deps, named(http::Method::GET, &rig.key, id)).await;
    assert_eq!(body(&r)["data"]["status"], "open");
}

#[tokio::test]
async fn the_first_request_of_a_day_cancels_in_the_one_write() {
    let rig = rig().await;
    let (id, m) = rig.household("window", 2).await;
    // A new day: its first request is counted by the same one write as any other.
    rig.deps.clock.advance(Duration::days(1));
    let r = rig.cancel(&rig.key, id).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(statuses(&r), ["cancelled", "cancelled"]);
    assert_eq!(rig.requests(ACCOUNT).await, 1, "the new day's first");
    let at = now() + Duration::days(1);
    assert_eq!(rig.store.household(id).unwrap().cancelled_at, Some(at));
    assert_refused_as_cancelled(rig.step(m[0], &consent()).await, at);
}

#[tokio::test]
async fn a_decided_household_is_not_cancelled_and_says_so() {
    let rig = rig().await;
    let (id, m) = rig.household("decided", 1).await;
    assert!(matches!(
        rig.step(m[0], &complete()).await,
        TransitionOutcome::Applied(_)
    ));
    let household = rig.store.household(id).unwrap();
    let members = vec![rig.store.verification(m[0]).unwrap()];
    let decision = fake_decision(&household, &members);
    assert!(
        (rig.store)
            .record_household_decision(id, &decision, now())
            .await
            .unwrap()
    );
    let r = rig.cancel(&rig.key, id).await;
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(body(&r)["code"], "household_closed");
    assert_eq!(rig.store.household(id).unwrap().cancelled_at, None);
}

/// A cancel that finds every member closed (before the outbox stored the decision) changes
/// nothing and says so: a 409 with the enveloped message, counted, no `cancelled_at`; the
/// household is then decided as usual.
#[tokio::test]
async fn a_cancel_after_every_member_closed_changes_nothing_and_says_so() {
    let rig = rig().await;
    let (id, m) = rig.household("late", 2).await;
    for member in &m {
        assert!(matches!(
            rig.step(*member, &complete()).await,
            TransitionOutcome::Applied(_)
        ));
    }
    let before = rig.requests(ACCOUNT).await;
    let r = rig.cancel(&rig.key, id).await;
    assert_eq!(r.status, 409, "{}", r.body);
    let b = body(&r);
    assert_eq!(b["success"], false);
    assert_eq!(b["code"], "household_closed");
    assert!(
        b["error"].as_str().unwrap().contains("already finished"),
        "{b}"
    );
    assert!(r.header("x-ratelimit-remaining").is_some(), "counted");
    assert_eq!(rig.requests(ACCOUNT).await, before + 1);
    let household = rig.store.household(id).unwrap();
    assert!(household.cancelled_at.is_none(), "nothing written");
    let members: Vec<_> = m
        .iter()
        .map(|id| rig.store.verification(*id).unwrap())
        .collect();
    // GET decides it; the decision is stored once.
    let r = get_household(&rig.deps, named(http::Method::GET, &rig.key, id)).await;
    assert_eq!(body(&r)["data"]["status"], "decided", "{}", r.body);
    let decision = fake_decision(&household, &members);
    assert!(
        (rig.store)
            .record_household_decision(id, &decision, now())
            .await
            .unwrap()
    );
    assert!(
        !(rig.store)
            .record_household_decision(id, &decision, now())
            .await
            .unwrap()
    );
}

/// Counts the cancel's writes (`meter_and_cancel_household`), each one DynamoDB round trip.
#[derive(Clone, Default)]
struct CountedWrites(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl test_support::FaultPlan for CountedWrites {
    fn check(&self, op: StoreOp) -> Result<(), ports::StoreError> {
        if op == StoreOp::MeterAndCancelHousehold {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(())
    }
}

impl Rig {
    /// The cancel through a store that counts its writes: the answer and how many.
    async fn counted_cancel(&self, id: Uuid) -> (ApiResponse, usize) {
        let writes = CountedWrites::default();
        let store = FaultyStore {
            inner: self.store.clone(),
            faults: writes.clone(),
        };
        let deps = ApiDeps::new(store, ManualClock::at(now()), settings());
        let r = cancel_household(&deps, named(http::Method::DELETE, &self.key, id)).await;
        (r, writes.0.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// The id names the members: a cancel of open members is one write, and a member completed
/// before it costs one more (the first names it and refuses uncounted), keeping its status.
#[tokio::test]
async fn a_member_completed_before_the_cancel_keeps_its_status_at_one_more_write() {
    let rig = rig().await;
    let (open, _) = rig.household("allopen", 2).await;
    let before = rig.requests(ACCOUNT).await;
    let (r, writes) = rig.counted_cancel(open).await;
    assert_eq!((r.status, writes), (200, 1), "{}", r.body);
    assert_eq!(statuses(&r), ["cancelled", "cancelled"]);
    let (id, m) = rig.household("onedone", 3).await;
    assert!(matches!(
        rig.step(m[1], &complete()).await,
        TransitionOutcome::Applied(_)
    ));
    let (r, writes) = rig.counted_cancel(id).await;
    assert_eq!((r.status, writes), (200, 2), "{}", r.body);
    assert_eq!(statuses(&r), ["cancelled", "completed", "cancelled"]);
    let answered = body(&r);
    let roles: Vec<&str> = (answered["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["applicant"; 3]);
    assert_eq!(
        rig.store.verification(m[1]).unwrap().status,
        Status::Completed
    );
    assert_eq!(
        rig.store.verification(m[2]).unwrap().status,
        Status::Expired
    );
    // Each request counted once, the refused first write not at all.
    assert_eq!(rig.requests(ACCOUNT).await, before + 2 + 1);
    // Every member closed: one refused write, counted, nothing changed.
    let (id, m) = rig.household("alldone", 2).await;
    for member in &m {
        rig.step(*member, &complete()).await;
    }
    let (r, writes) = rig.counted_cancel(id).await;
    assert_eq!((r.status, writes), (409, 1), "{}", r.body);
    assert_eq!(rig.store.household(id).unwrap().cancelled_at, None);
}

/// An id the key's account never got: with no shape, with a valid shape, or a real household's
/// id forged to another shape. Each is 404, counted, and changes nothing.
#[tokio::test]
async fn an_unknown_or_forged_household_id_is_404_and_counted() {
    use domain::household::{HouseholdShape, MemberRole};
    let rig = rig().await;
    let (id, m) = rig.household("real", 2).await;
    let shaped = HouseholdShape::new(&[MemberRole::Applicant, MemberRole::Guarantor])
        .unwrap()
        .new_household_id();
    // The real id with its count bits (the 9 bits after the version) saying three.
    let forged = Uuid::from_u128((id.as_u128() & !(0x1ff << 67)) | (3 << 73));
    assert_eq!(HouseholdShape::of(forged).map(|s| s.roles().len()), Some(3));
    let before = rig.requests(ACCOUNT).await;
    for unknown in [Uuid::new_v4(), shaped, forged] {
        let r = rig.cancel(&rig.key, unknown).await;
        assert_eq!(
            (r.status, body(&r)["code"].clone()),
            (404, json!("not_found")),
            "{unknown}"
        );
    }
    assert_eq!(rig.requests(ACCOUNT).await, before + 3, "each counted");
    assert_eq!(rig.store.household(id).unwrap().cancelled_at, None);
    for member in m {
        assert_eq!(
            rig.store.verification(member).unwrap().status,
            Status::Pending
        );
    }
}
