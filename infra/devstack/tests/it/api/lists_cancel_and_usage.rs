//! The list, cancel, expiry, usage and unknown routes through the local server, and what logs and error bodies never carry.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_pages_newest_first_with_filter_clamp_and_total() {
    let env = env().await;
    let mut ids = Vec::new();
    for i in 0..25 {
        ids.push(
            create_ok(
                &env,
                &env.test_key,
                json!({"tenant_email": format!("l{i}@example.com"), "monthly_rent": 1000 + i}),
            )
            .await,
        );
    }
    ids.reverse(); // newest first
    let r = env
        .call("GET", "/api/v1/verifications", Some(&env.test_key), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert_eq!(
        r.body["pagination"],
        json!({"limit": 20, "offset": 0, "total": 25})
    );
    let got: Vec<&str> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        got,
        ids[..20].iter().map(String::as_str).collect::<Vec<_>>()
    );
    let item = &r.body["data"][0];
    let mut fields: Vec<&str> = item
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    fields.sort();
    assert_eq!(
        fields,
        vec![
            "completed_at",
            "created_at",
            "id",
            "monthly_rent",
            "property_address",
            "status",
            "tenant_email",
            "tenant_name"
        ]
    );

    let r = env
        .call(
            "GET",
            "/api/v1/verifications?limit=500&offset=20",
            Some(&env.test_key),
            None,
        )
        .await;
    assert_eq!(
        r.body["pagination"],
        json!({"limit": 100, "offset": 20, "total": 25})
    );
    let got: Vec<&str> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        got,
        ids[20..].iter().map(String::as_str).collect::<Vec<_>>()
    );

    // Cancel two; the filter and the totals follow.
    for id in &ids[..2] {
        let r = env.cancel_verification(&env.test_key, &id).await;
        assert_eq!(r.status, 200, "{}", r.raw);
    }
    let r = env
        .call(
            "GET",
            "/api/v1/verifications?status=expired",
            Some(&env.test_key),
            None,
        )
        .await;
    assert_eq!(r.body["pagination"]["total"], 2);
    assert_eq!(r.body["data"].as_array().unwrap().len(), 2);
    assert!(
        r.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["status"] == "expired")
    );
    let r = env
        .call(
            "GET",
            "/api/v1/verifications?status=pending&limit=5&offset=20",
            Some(&env.test_key),
            None,
        )
        .await;
    assert_eq!(
        r.body["pagination"],
        json!({"limit": 5, "offset": 20, "total": 23})
    );
    assert_eq!(r.body["data"].as_array().unwrap().len(), 3);

    for (query, field) in [
        ("limit=abc", "limit"),
        ("limit=-1", "limit"),
        ("limit=0", "limit"),
        ("limit=2.5", "limit"),
        ("offset=-3", "offset"),
        ("offset=x", "offset"),
        ("offset=10001", "offset"),
        ("offset=4294967301", "offset"),
        ("status=cancelled", "status"),
        ("status=", "status"),
        ("status=%20", "status"),
    ] {
        let r = env
            .call(
                "GET",
                &format!("/api/v1/verifications?{query}"),
                Some(&env.test_key),
                None,
            )
            .await;
        assert_error(&r, 400, "validation_error");
        assert_eq!(r.body["details"][0]["field"], field, "{query}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_reports_cancelled_stores_expired_and_refuses_closed_states() {
    let env = env().await;
    let id = create_ok(
        &env,
        &env.test_key,
        json!({"tenant_email": "c@example.com"}),
    )
    .await;
    let path = format!("/api/v1/verify?verification_id={id}");
    let r = env.call("DELETE", &path, Some(&env.test_key), None).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert_eq!(
        r.body,
        json!({"success": true, "message": "Verification cancelled", "data": {"verification_id": id, "status": "cancelled"}})
    );
    let stored = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, Status::Expired);
    assert!(stored.cancelled_at.is_some());
    let r = env.call("GET", &path, Some(&env.test_key), None).await;
    assert_eq!(r.body["data"]["status"], "expired");
    let r = env.call("DELETE", &path, Some(&env.test_key), None).await;
    assert_error(&r, 400, "verification_not_cancellable");

    // Completed and failed cannot be cancelled.
    for target in ["completed", "failed"] {
        let id = create_ok(
            &env,
            &env.test_key,
            json!({"tenant_email": "d@example.com"}),
        )
        .await;
        let v = env
            .store
            .get_verification(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        let t = if target == "completed" {
            Transition::Complete {
                report: Box::new(domain::report::IncomeReport::empty_for_tests()),
            }
        } else {
            Transition::Fail {
                reason: "provider_error".into(),
            }
        };
        env.store.transition(&v, &t, Utc::now()).await.unwrap();
        let r = env.cancel_verification(&env.test_key, &id).await;
        assert_error(&r, 400, "verification_not_cancellable");
        assert!(r.body["error"].as_str().unwrap().contains(target));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_past_expiry_reads_expired_before_any_sweeper() {
    let env = env().await;
    let now = Utc::now();
    let input = NewVerificationInput {
        tenant_email: "late@example.com".into(),
        ..Default::default()
    };
    let v = Verification::new_pending(
        devstack::stack::DEMO_ACCOUNT,
        Mode::Test,
        input,
        now - Duration::days(8),
        Duration::days(7),
    );
    let id = v.verification_id;
    env.store.create_verification(&v, None, None).await.unwrap();
    let path = format!("/api/v1/verify?verification_id={id}");
    let r = env.call("GET", &path, Some(&env.test_key), None).await;
    assert_eq!(r.body["data"]["status"], "expired");
    let r = env
        .call("GET", "/api/v1/verifications", Some(&env.test_key), None)
        .await;
    assert_eq!(r.body["data"][0]["status"], "expired");
    let r = env.call("DELETE", &path, Some(&env.test_key), None).await;
    assert_error(&r, 400, "verification_not_cancellable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_reports_every_field_from_live_counters() {
    let env = env().await;
    for i in 0..3 {
        create_ok(
            &env,
            &env.live_key,
            json!({"tenant_email": format!("u{i}@example.com")}),
        )
        .await;
    }
    let r = env.usage(&env.live_key).await;
    assert_eq!(r.status, 200, "{}", r.raw);
    let d = &r.body["data"];
    assert_eq!(d["plan"], "business");
    assert_eq!(
        d["verifications"],
        json!({"used_this_month": 3, "limit": 200, "remaining": 197, "total_all_time": 3, "completed_this_month": 0})
    );
    assert_eq!(d["api"]["requests_limit"], 1000);
    assert_eq!(d["api"]["requests_remaining"], 996);
    assert_eq!(r.header("x-ratelimit-remaining"), Some("996"));
    let resets = ts(&d["api"]["resets_at"]);
    assert_eq!(
        resets.timestamp().to_string(),
        r.header("x-ratelimit-reset").unwrap()
    );
    assert_eq!(d["subscription"]["status"], "active");
    ts(&d["subscription"]["current_period_end"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_routes_and_methods_are_enveloped() {
    let env = env().await;
    let r = env
        .call("PUT", "/api/v1/verify", Some(&env.test_key), None)
        .await;
    assert_error(&r, 405, "method_not_allowed");
    let r = env
        .call("GET", "/api/v2/nothing", Some(&env.test_key), None)
        .await;
    assert_error(&r, 404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_and_error_bodies_never_carry_keys_or_addresses() {
    let env = env().await;
    let id = create_ok(
        &env,
        &env.test_key,
        json!({"tenant_email": "private.person@example.com", "tenant_phone": "+1 555 867 5309"}),
    )
    .await;
    let _ = env.get_verification(&env.test_key, &id).await;
    let _ = env
        .create_verification(
            &env.test_key,
            json!({"tenant_email": "broken@@example.com"}),
        )
        .await;
    let _ = env.usage("tiv_live_notarealkeyatall").await;
    let logs = common::captured_logs();
    assert!(logs.contains("request served"), "handlers log");
    for secret in [
        env.test_key.as_str(),
        env.live_key.as_str(),
        "private.person",
        "broken@@",
        "867 5309",
        "notarealkeyatall",
    ] {
        assert!(!logs.contains(secret), "logs carry {secret}");
    }
}
