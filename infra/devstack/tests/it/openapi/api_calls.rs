//! Every API operation and its documented answers, recorded for validation.

use super::*;

/// The five endpoints: successes and every error the handlers give.
pub(super) async fn drive_api(rec: &mut Recorder) {
    let env = env().await;
    let store = &env.store;
    let live = env.live_key.as_str();
    let test = env.test_key.as_str();

    // Create: full and minimal bodies, live and test keys.
    let full = create(rec, &env, "create full", live, json!({"tenant_email": "jane+good@example.com", "tenant_name": "Jane Doe", "tenant_phone": "+1 (555) 010-9999", "property_address": "1 Main St", "monthly_rent": 1500.5, "webhook_url": "https://hooks.example.com/tiv"})).await;
    let live_id = id_of(&full);
    let minimal = create(rec, &env, "create minimal", test, json!({"tenant_email": "min@example.com", "tenant_name": null, "monthly_rent": null, "property_address": "  "})).await;
    let pending_id = id_of(&minimal);

    // Idempotency: first, replay, another body.
    let body = json!({"tenant_email": "idem@example.com", "monthly_rent": 900}).to_string();
    for (label, b) in [
        ("idempotent first", body.clone()),
        ("idempotent replay", body.clone()),
        (
            "idempotency key reused",
            json!({"tenant_email": "other@example.com"}).to_string(),
        ),
    ] {
        let r = env
            .call_with(
                "POST",
                API_VERIFY,
                Some(test),
                Some(&b),
                &[("idempotency-key", "order-42")],
            )
            .await;
        rec.op(label, "POST", API_VERIFY, &r);
    }

    // Create: every 400, 413 and 415.
    for (label, raw) in [
        ("create empty object", "{}"),
        ("create invalid json", "{\"tenant_email\": "),
        ("create array body", "[1,2]"),
        (
            "create bad fields",
            r#"{"tenant_email":"nope@","tenant_phone":"12","monthly_rent":"1500","webhook_url":"https://10.0.0.8/x","tenant_name":7}"#,
        ),
        (
            "create too long name",
            &json!({"tenant_email": "a@example.com", "tenant_name": "x".repeat(201)}).to_string(),
        ),
        (
            "create rent out of range",
            r#"{"tenant_email":"a@example.com","monthly_rent":-1}"#,
        ),
        (
            "create subsidy without rent, multiple out of range",
            r#"{"tenant_email":"a@example.com","rent_subsidy_monthly":500,"income_multiple":6}"#,
        ),
        (
            "create subsidy above rent",
            r#"{"tenant_email":"a@example.com","monthly_rent":900,"rent_subsidy_monthly":901}"#,
        ),
        (
            "create insecure webhook",
            r#"{"tenant_email":"a@example.com","webhook_url":"ftp://example.com/x"}"#,
        ),
        (
            "create too large",
            &json!({"tenant_email": "a@example.com", "tenant_name": "x".repeat(20_000)})
                .to_string(),
        ),
    ] {
        let r = env.call("POST", API_VERIFY, Some(test), Some(raw)).await;
        rec.op(label, "POST", API_VERIFY, &r);
    }
    let r = env
        .call_with(
            "POST",
            API_VERIFY,
            Some(test),
            Some(r#"{"tenant_email":"a@example.com"}"#),
            &[("idempotency-key", "")],
        )
        .await;
    rec.op("create empty idempotency key", "POST", API_VERIFY, &r);
    let r = env
        .call_with(
            "POST",
            API_VERIFY,
            Some(test),
            None,
            &[("content-type", "text/plain")],
        )
        .await;
    rec.op("create text/plain", "POST", API_VERIFY, &r);
    let huge = format!(
        "{{\"tenant_email\":\"a@example.com\",\"tenant_name\":\"{}\"}}",
        "x".repeat(1_100_000)
    );
    let r = env.call("POST", API_VERIFY, Some(test), Some(&huge)).await;
    rec.op("create over the server's 1 MiB", "POST", API_VERIFY, &r);

    // Get: pending, completed (several sources, no rent), failed, expired; 400s and 404s.
    let r = env
        .call("GET", &verify_path(&pending_id), Some(test), None)
        .await;
    rec.op("get pending", "GET", API_VERIFY, &r);
    let r = env
        .call("GET", &verify_path(&live_id), Some(live), None)
        .await;
    rec.op("get live pending", "GET", API_VERIFY, &r);
    let completed = create(
        rec,
        &env,
        "create to complete",
        test,
        json!({"tenant_email": "done@example.com"}),
    )
    .await;
    let completed_id = id_of(&completed);
    let v = store
        .get_verification(completed_id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    store
        .transition(
            &v,
            &Transition::Complete {
                report: Box::new(multi_source_report(v.monthly_rent)),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    let r = env
        .call("GET", &verify_path(&completed_id), Some(test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "completed", "{}", r.raw);
    rec.op("get completed without rent", "GET", API_VERIFY, &r);
    let r = env
        .call("GET", &report_path(&completed_id), Some(test), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert!(r.raw.starts_with("%PDF-"));
    rec.op(
        "report pdf of a completed verification",
        "GET",
        API_REPORT,
        &r,
    );
    for (label, path) in [
        ("report without id", API_REPORT.to_string()),
        ("report of a non-uuid id", report_path("123")),
    ] {
        let r = env.call("GET", &path, Some(test), None).await;
        assert_eq!(r.status, 400, "{}", r.raw);
        rec.op(label, "GET", API_REPORT, &r);
    }
    let r = env
        .call(
            "GET",
            &report_path(&uuid::Uuid::new_v4().to_string()),
            Some(test),
            None,
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.raw);
    rec.op("report of an unknown id", "GET", API_REPORT, &r);
    let documents = |id: &str| format!("{API_DOCUMENTS}?verification_id={id}");
    for (label, path, status) in [
        (
            "documents of a completed verification",
            documents(&completed_id),
            200,
        ),
        ("documents without id", API_DOCUMENTS.to_string(), 400),
        (
            "documents of an unknown id",
            documents(&uuid::Uuid::new_v4().to_string()),
            404,
        ),
    ] {
        let r = env.call("GET", &path, Some(test), None).await;
        assert_eq!(r.status, status, "{label}: {}", r.raw);
        rec.op(label, "GET", API_DOCUMENTS, &r);
    }
    drive_review(rec, &env, &completed_id, &pending_id).await;
    let failed = create(
        rec,
        &env,
        "create to fail",
        test,
        json!({"tenant_email": "fails@example.com", "monthly_rent": 10}),
    )
    .await;
    let failed_id = id_of(&failed);
    let v = store
        .get_verification(failed_id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    store
        .transition(
            &v,
            &Transition::Fail {
                reason: "income_unverifiable".into(),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    let r = env
        .call("GET", &verify_path(&failed_id), Some(test), None)
        .await;
    rec.op("get failed", "GET", API_VERIFY, &r);
    let r = env
        .call("GET", &report_path(&failed_id), Some(test), None)
        .await;
    assert_eq!(r.status, 409, "{}", r.raw);
    rec.op("report of a failed verification", "GET", API_REPORT, &r);
    let late = stored_verification("late@example.com", "unused-token");
    store.create_verification(&late, None, None).await.unwrap();
    let late_id = late.verification_id.to_string();
    let r = env
        .call("GET", &verify_path(&late_id), Some(test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "expired", "{}", r.raw);
    rec.op("get pending past expiry", "GET", API_VERIFY, &r);
    for (label, path) in [
        ("get without id", API_VERIFY.to_string()),
        ("get empty id", verify_path("")),
        ("get non-uuid id", verify_path("123")),
        (
            "get unknown id",
            verify_path(&uuid::Uuid::new_v4().to_string()),
        ),
        ("get live id with test key", verify_path(&live_id)),
    ] {
        let r = env.call("GET", &path, Some(test), None).await;
        rec.op(label, "GET", API_VERIFY, &r);
    }
    let r = env
        .call(
            "GET",
            &verify_path(&live_id),
            Some(&env.other_live_key),
            None,
        )
        .await;
    rec.op("get another account's id", "GET", API_VERIFY, &r);

    // List: pages, filters, clamping; 400s.
    for (label, query) in [
        ("list default", ""),
        ("list clamped", "?limit=500&offset=1"),
        ("list completed", "?status=completed"),
        ("list expired", "?status=expired&limit=1"),
        ("list empty filter", "?status="),
        ("list past the end", "?offset=10000"),
        ("list bad limit", "?limit=abc"),
        ("list zero limit", "?limit=0"),
        ("list negative offset", "?offset=-1"),
        ("list offset too deep", "?offset=10001"),
        ("list cancelled is not a status", "?status=cancelled"),
    ] {
        let r = env
            .call("GET", &format!("{API_LIST}{query}"), Some(test), None)
            .await;
        rec.op(label, "GET", API_LIST, &r);
    }
    let r = env.call("GET", API_LIST, Some(live), None).await;
    rec.op("list live", "GET", API_LIST, &r);

    // Usage.
    for (label, key) in [("usage test", test), ("usage live", live)] {
        let r = env.call("GET", API_USAGE, Some(key), None).await;
        rec.op(label, "GET", API_USAGE, &r);
    }

    // Cancel: success, then every refusal.
    let r = env
        .call("DELETE", &verify_path(&pending_id), Some(test), None)
        .await;
    rec.op("cancel pending", "DELETE", API_VERIFY, &r);
    for (label, path) in [
        ("cancel again", verify_path(&pending_id)),
        ("cancel completed", verify_path(&completed_id)),
        ("cancel failed", verify_path(&failed_id)),
        ("cancel expired", verify_path(&late_id)),
        ("cancel without id", API_VERIFY.to_string()),
        ("cancel non-uuid id", verify_path("not-a-uuid")),
        (
            "cancel unknown id",
            verify_path(&uuid::Uuid::new_v4().to_string()),
        ),
    ] {
        let r = env.call("DELETE", &path, Some(test), None).await;
        rec.op(label, "DELETE", API_VERIFY, &r);
    }

    // 401 on every operation, for each way a key can be wrong.
    every_operation(rec, &env, "401 missing key", None).await;
    let mut typo = env.test_key.clone();
    typo.replace_range(12..13, if &typo[12..13] == "a" { "b" } else { "a" });
    every_operation(rec, &env, "401 checksum typo", Some(&typo)).await;
    let unknown = domain::secrets::generate_api_key(devstack::stack::DEMO_ACCOUNT, Mode::Live)
        .unwrap()
        .secret;
    every_operation(rec, &env, "401 unknown key", Some(&unknown)).await;
    for (label, value) in [
        ("401 basic scheme", "Basic dXNlcjpwYXNz"),
        ("401 bearer without token", "Bearer "),
    ] {
        let r = env
            .call_with("GET", API_USAGE, None, None, &[("authorization", value)])
            .await;
        rec.op(label, "GET", API_USAGE, &r);
    }
    let (revoked_live, _) = devstack::stack::seed_account(store, "acct_revoked", "pro", false)
        .await
        .unwrap();
    let keys = store.list_api_keys("acct_revoked").await.unwrap();
    let key = keys.iter().find(|k| k.mode == Mode::Live).unwrap();
    assert!(
        store
            .revoke_api_key("acct_revoked", &key.key_id, Utc::now())
            .await
            .unwrap()
    );
    every_operation(rec, &env, "401 revoked key", Some(&revoked_live)).await;

    // 403: a plan without API access, an inactive subscription, the monthly allowance.
    let other = devstack::stack::OTHER_ACCOUNT;
    let other_live = env.other_live_key.clone();
    store
        .update_account(other, Some("starter"), None)
        .await
        .unwrap();
    every_operation(rec, &env, "403 plan without api", Some(&other_live)).await;
    store
        .update_account(
            other,
            Some("pro"),
            Some((
                SubscriptionStatus::PastDue,
                Utc::now() + chrono::Duration::days(3),
            )),
        )
        .await
        .unwrap();
    every_operation(rec, &env, "403 subscription inactive", Some(&other_live)).await;
    store
        .update_account(
            other,
            None,
            Some((
                SubscriptionStatus::Active,
                Utc::now() + chrono::Duration::days(30),
            )),
        )
        .await
        .unwrap();
    // `pro` allows 5 verifications a month in these tests.
    for i in 0..6 {
        let r = env
            .create_verification(
                &other_live,
                json!({"tenant_email": format!("q{i}@example.com")}),
            )
            .await;
        rec.op(
            &format!("monthly allowance create {i}"),
            "POST",
            API_VERIFY,
            &r,
        );
    }
    let r = env
        .call(
            "POST",
            households::API_HOUSEHOLDS,
            Some(&other_live),
            Some(&households::two_applicants("limit")),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.raw);
    rec.op(
        "household beyond the allowance",
        "POST",
        households::API_HOUSEHOLDS,
        &r,
    );
    let r = env.call("GET", API_USAGE, Some(&other_live), None).await;
    assert_eq!(r.body["data"]["verifications"]["remaining"], 0, "{}", r.raw);
    rec.op("usage with the allowance used up", "GET", API_USAGE, &r);

    // 429 on every operation: `tiny` allows 3 API requests a day.
    let (tiny_live, _) = devstack::stack::seed_account(store, "acct_tiny", "tiny", false)
        .await
        .unwrap();
    for i in 0..3 {
        let r = env.call("GET", API_USAGE, Some(&tiny_live), None).await;
        rec.op(&format!("tiny usage {i}"), "GET", API_USAGE, &r);
    }
    every_operation(rec, &env, "429 allowance used up", Some(&tiny_live)).await;

    // Outside any operation: 405 and unknown routes.
    for (method, path) in [
        ("PUT", API_VERIFY),
        ("PATCH", API_LIST),
        ("POST", API_USAGE),
    ] {
        let r = env.call(method, path, Some(test), None).await;
        rec.component(&format!("{method} {path}"), "MethodNotAllowed", true, &r);
    }
    let r = env.call("GET", "/api/v2/nothing", Some(test), None).await;
    rec.component("unknown route", "NotFound", false, &r);
}

/// `POST /api/v1/verify/review`: every refusal, then the review and the report that shows it.
async fn drive_review(rec: &mut Recorder, env: &TestEnv, completed_id: &str, pending_id: &str) {
    let test = env.test_key.as_str();
    let path = |id: &str| format!("{API_REVIEW}?verification_id={id}");
    let review = json!({"decision": "rejected", "note": "Net pay edited.\nAsked for originals."});
    let unknown = uuid::Uuid::new_v4().to_string();
    let mut calls = vec![
        (
            "review of a report from a bank",
            path(completed_id),
            review.to_string(),
            409,
        ),
        (
            "review of a pending verification",
            path(pending_id),
            review.to_string(),
            409,
        ),
        (
            "review of an unknown id",
            path(&unknown),
            review.to_string(),
            404,
        ),
        (
            "review without id",
            API_REVIEW.to_string(),
            review.to_string(),
            400,
        ),
        (
            "review without a note",
            path(completed_id),
            json!({"decision": "accepted"}).to_string(),
            400,
        ),
        (
            "review invalid json",
            path(completed_id),
            "{\"decision\": ".to_string(),
            400,
        ),
        (
            "review too large",
            path(completed_id),
            json!({"decision": "accepted", "note": "x".repeat(20_000)}).to_string(),
            413,
        ),
    ];
    for (label, path, body, status) in calls.drain(..) {
        let r = env.call("POST", &path, Some(test), Some(&body)).await;
        assert_eq!(r.status, status, "{label}: {}", r.raw);
        rec.op(label, "POST", API_REVIEW, &r);
    }
    let r = env
        .call_with(
            "POST",
            &path(completed_id),
            Some(test),
            None,
            &[("content-type", "text/plain")],
        )
        .await;
    assert_eq!(r.status, 415, "{}", r.raw);
    rec.op("review not json", "POST", API_REVIEW, &r);
    common::report_from_documents(env, completed_id).await;
    for (label, status) in [("review recorded", 200), ("review again", 409)] {
        let r = env
            .review_documents(test, completed_id, review.clone())
            .await;
        assert_eq!(r.status, status, "{label}: {}", r.raw);
        rec.op(label, "POST", API_REVIEW, &r);
    }
    let r = env.get_verification(test, completed_id).await;
    assert!(
        r.body["data"]["income_report"]["document_review"].is_object(),
        "{}",
        r.raw
    );
    rec.op("get completed with a review", "GET", API_VERIFY, &r);
}
