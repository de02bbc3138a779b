//! POST /api/v1/verify/resend against the in-memory store with an injected clock: the day's
//! limit, `Retry-After` to the next UTC midnight, the count restarting the next UTC day, the
//! statuses that can be resent, the caller's scope, and the conditional write's race.

use crate::support::body;
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::plans::Plans;
use domain::resend::MAX_RESENDS_PER_DAY;
use domain::secrets::{GeneratedKey, account_key_from_random};
use domain::{ApiKeyRecord, Mode, Plan, Transition};
use ports::store::prelude::*;
use serde_json::json;
use service::config::{LiveIncome, Settings};
use service::handlers::api::ApiDeps;
use service::handlers::create_verification::create_verification;
use service::handlers::resend_verification::resend_verification;
use service::http::{ApiRequest, ApiResponse};
use test_support::{ManualClock, MemoryStore, active_account};
use uuid::Uuid;

const ACCOUNT: &str = "acct_resend";

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 10, 18, 0, 0).unwrap()
}

async fn deps() -> (
    ApiDeps<MemoryStore, ManualClock>,
    GeneratedKey,
    GeneratedKey,
) {
    let store = MemoryStore::new();
    store
        .put_account(&active_account(ACCOUNT, "pro", start()))
        .await
        .unwrap();
    let test =
        account_key_from_random(ACCOUNT, Mode::Test, "ResendTestKeyHandlerTests00001").unwrap();
    let live =
        account_key_from_random(ACCOUNT, Mode::Live, "ResendLiveKeyHandlerTests00001").unwrap();
    for (mode, key) in [(Mode::Test, &test), (Mode::Live, &live)] {
        store
            .put_api_key(&ApiKeyRecord {
                key_id: key.key_id.clone(),
                key_hash: key.hash.clone(),
                account_id: ACCOUNT.into(),
                mode,
                display_prefix: key.display_prefix.clone(),
                created_at: start(),
                revoked_at: None,
            })
            .await
            .unwrap();
    }
    let settings = Settings {
        table_name: "unused".into(),
        public_base_url: Some("https://verify.example.com".into()),
        plans: Plans::new(vec![Plan {
            name: "pro".into(),
            verifications_per_month: 50,
            api_requests_per_day: 1000,
            api_access: true,
            sms_per_month: 0,
            key_burst: Default::default(),
        }]),
        local_webhook_origins: Default::default(),
        verification_lifetime: Duration::days(7),
        live_income: LiveIncome::local_sandbox(),
        sms_region: Default::default(),
        sms_countries: Default::default(),
        documents: false,
    };
    (
        ApiDeps::new(store, ManualClock::at(start()), settings),
        test,
        live,
    )
}

async fn create(deps: &ApiDeps<MemoryStore, ManualClock>, key: &str) -> Uuid {
    let req = ApiRequest::new(http::Method::POST, "/api/v1/verify")
        .with_header("content-type", "application/json")
        .with_header("authorization", &format!("Bearer {key}"))
        .with_body(json!({"tenant_email": "t@example.com"}).to_string());
    let r = create_verification(deps, req).await;
    assert_eq!(r.status, 201, "{}", r.body);
    body(&r)["data"]["verification_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

async fn resend(deps: &ApiDeps<MemoryStore, ManualClock>, key: &str, query: &str) -> ApiResponse {
    let req = ApiRequest::new(
        http::Method::POST,
        &format!("/api/v1/verify/resend?{query}"),
    )
    .with_header("authorization", &format!("Bearer {key}"));
    resend_verification(deps, req).await
}

#[tokio::test]
async fn three_resends_a_utc_day_then_429_until_midnight() {
    let (deps, test, _) = deps().await;
    let id = create(&deps, &test.secret).await;
    let q = format!("verification_id={id}");
    for n in 1..=MAX_RESENDS_PER_DAY {
        let r = resend(&deps, &test.secret, &q).await;
        assert_eq!(r.status, 202, "{}", r.body);
        let b = body(&r);
        assert_eq!(b["resends"]["today"], n);
        assert_eq!(b["resends"]["remaining_today"], MAX_RESENDS_PER_DAY - n);
        assert_eq!(b["data"]["status"], "pending");
        assert!(r.header("x-ratelimit-remaining").is_some(), "metered");
    }
    let r = resend(&deps, &test.secret, &q).await;
    assert_eq!(r.status, 429);
    assert_eq!(body(&r)["code"], "resend_limit_reached");
    // 18:00 UTC: six hours to midnight.
    assert_eq!(r.header("retry-after"), Some("21600"));
    let stored = deps.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(
        stored.invite_round, MAX_RESENDS_PER_DAY,
        "the refusal wrote nothing"
    );

    // One second before midnight: still refused; at midnight: a new day.
    deps.clock
        .advance(Duration::hours(6) - Duration::seconds(1));
    let r = resend(&deps, &test.secret, &q).await;
    assert_eq!((r.status, r.header("retry-after")), (429, Some("1")));
    deps.clock.advance(Duration::seconds(1));
    let r = resend(&deps, &test.secret, &q).await;
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(body(&r)["resends"]["today"], 1);
    let stored = deps.store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(stored.invite_round, MAX_RESENDS_PER_DAY + 1);
}

#[tokio::test]
async fn only_open_verifications_of_the_caller_are_resent() {
    let (deps, test, live) = deps().await;
    let id = create(&deps, &test.secret).await;
    let q = format!("verification_id={id}");
    // Another mode's key: not found.
    assert_eq!(resend(&deps, &live.secret, &q).await.status, 404);
    let unknown = format!("verification_id={}", Uuid::new_v4());
    assert_eq!(resend(&deps, &test.secret, &unknown).await.status, 404);
    // Bad ids: 400 with the field named.
    for bad in ["", "verification_id=12"] {
        let r = resend(&deps, &test.secret, bad).await;
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(body(&r)["details"][0]["field"], "verification_id");
    }
    // In progress: resent.
    let v = deps.store.get_verification(id).await.unwrap().unwrap();
    deps.store
        .transition(&v, &Transition::Start, start())
        .await
        .unwrap();
    assert_eq!(resend(&deps, &test.secret, &q).await.status, 202);
    // Cancelled: 400, and nothing counted.
    let v = deps.store.get_verification(id).await.unwrap().unwrap();
    deps.store
        .transition(&v, &Transition::Cancel, start())
        .await
        .unwrap();
    let r = resend(&deps, &test.secret, &q).await;
    assert_eq!(r.status, 400);
    assert_eq!(body(&r)["code"], "verification_not_resendable");
    // Past expires_at (before any sweep): 400 as expired.
    let open = create(&deps, &test.secret).await;
    deps.clock.advance(Duration::days(8));
    let r = resend(&deps, &test.secret, &format!("verification_id={open}")).await;
    assert_eq!(r.status, 400);
    assert!(body(&r)["error"].as_str().unwrap().contains("expired"));
}
