//! The success run: a live verification from create to completion with every read and webhook on
//! the way, its replay, a resend then a cancel, reminders, an expiry, and the providers' secrets
//! read at cold start.

use super::*;

/// Success: a live verification from create to completion, with every read and webhook on the
/// way; its idempotent replay; a second one resent then cancelled; reminders; an expiry; the
/// Plaid and Argyle secrets' cold-start reads.
pub async fn success(rig: &mut Rig) {
    let key = rig.live_key.clone();
    let (_, phone) = common::fresh_number();
    let body = json!({
        "tenant_email": format!("iam-{}+good@example.com", uuid::Uuid::new_v4().simple()),
        "tenant_name": "Ada Tenant",
        "tenant_phone": phone,
        "property_address": "1 Policy Row",
        "monthly_rent": 1200,
        "webhook_url": rig.receiver.url.clone(),
    });
    let idem = uuid::Uuid::new_v4().to_string();
    let create = |body: Value| {
        let req = rig
            .http
            .post(format!("{}{VERIFY}", rig.base))
            .bearer_auth(&key);
        req.header("idempotency-key", idem.clone())
            .header("content-type", "application/json")
            .body(body.to_string())
    };
    let first = create(body.clone()).send().await.unwrap();
    assert_eq!(first.status(), 201);
    let first: Value = serde_json::from_str(&first.text().await.unwrap()).unwrap();
    let replay = create(body.clone()).send().await.unwrap();
    assert!(replay.status().is_success(), "{}", replay.status());
    let id = created_id(&first, "verification_id");
    let link = rig.link(&first["data"]);
    rig.drain().await;

    rig.expect(
        "GET",
        &format!("{VERIFY}?verification_id={id}"),
        Some(&key),
        None,
        200,
    )
    .await;
    for query in [
        "",
        "?status=pending",
        "?status=expired",
        "?limit=1&offset=1",
    ] {
        rig.expect(
            "GET",
            &format!("/api/v1/verifications{query}"),
            Some(&key),
            None,
            200,
        )
        .await;
    }
    rig.expect("GET", "/api/v1/usage", Some(&key), None, 200)
        .await;
    assert_eq!(rig.page(&link, None).await, 200);
    assert_eq!(rig.page(&link, Some("action=consent&agree=yes")).await, 303);
    assert_eq!(rig.page(&link, None).await, 200);
    assert_eq!(
        rig.page(&link, Some("action=connect&scenario=good")).await,
        303
    );
    assert_eq!(rig.page(&link, Some("action=note&note=New+job")).await, 303);
    assert_eq!(rig.page(&format!("{link}/report.pdf"), None).await, 200);
    rig.drain().await;
    rig.expect(
        "GET",
        &format!("{VERIFY}/report?verification_id={id}"),
        Some(&key),
        None,
        200,
    )
    .await;
    let deliveries = format!("/api/v1/webhooks/deliveries?verification_id={id}");
    let log = rig.expect("GET", &deliveries, Some(&key), None, 200).await;
    let event = log["data"][0]["event_id"]
        .as_str()
        .expect("a delivery")
        .to_string();
    let (s, r) = rig
        .call(
            "POST",
            &format!("/api/v1/webhooks/redeliver?event_id={event}"),
            Some(&key),
            None,
        )
        .await;
    assert!(s == 202 || s == 200, "{s} {r}");
    rig.drain().await;

    // A second one: resent, then cancelled.
    let second = rig
        .expect(
            "POST",
            VERIFY,
            Some(&key),
            Some(json!({"tenant_email": "iam.second+good@example.com"})),
            201,
        )
        .await;
    let second = created_id(&second, "verification_id");
    rig.drain().await;
    rig.expect(
        "POST",
        &format!("{VERIFY}/resend?verification_id={second}"),
        Some(&key),
        None,
        202,
    )
    .await;
    rig.drain().await;
    let (s, r) = rig
        .call(
            "DELETE",
            &format!("{VERIFY}?verification_id={second}"),
            Some(&key),
            None,
        )
        .await;
    assert_eq!(s, 200, "{r}");
    rig.drain().await;

    // The reminders of every open verification, due now (send-reminders, as its schedules run).
    fire_reminders(rig).await;

    // An expiry: a verification past its time, its marker swept as TTL would.
    expiry(rig).await;

    // The cold starts with Plaid and with Argyle: each secret, read with each function's own role
    // (the tenant page uses the provider; the outbox's functions close a tenant's provider user
    // once it ended; provider-webhooks checks each provider's webhooks, Plaid's with its key
    // endpoint, Argyle's with the webhook secret and the users endpoint).
    for function in [
        Function::TenantPortal,
        Function::PublishEvents,
        Function::RetryEvents,
        Function::ProviderWebhooks,
    ] {
        let sm = read_plaid_secret(rig, function).await;
        let arn = rig.argyle_secret_arn.clone();
        let lookup = move |var: &str| match var {
            "ARGYLE_BASE_URL" => Some("https://api-sandbox.argyle.com".to_string()),
            "ARGYLE_SECRET_ARN" => Some(arn.clone()),
            _ => None,
        };
        adapters::argyle::ArgyleConfig::load(&sm, lookup)
            .await
            .expect("the Argyle secret reads");
    }
    // A signed CHECK_REPORT_READY records its signal on a waiting verification.
    plaid_signal(rig).await;
    // analyze-document's cold start: the fingerprint key.
    let sm =
        aws_sdk_secretsmanager::Client::new(&rig.function_sdk(Function::AnalyzeDocument).await);
    adapters::secrets::fingerprint_key(&sm, &rig.created.fingerprint_key_secret_arn)
        .await
        .expect("the fingerprint key reads");
}

/// The Plaid secret's cold-start read with `function`'s role; its Secrets Manager client.
async fn read_plaid_secret(rig: &Rig, function: Function) -> aws_sdk_secretsmanager::Client {
    let sm = aws_sdk_secretsmanager::Client::new(&rig.function_sdk(function).await);
    let arn = rig.plaid_secret_arn.clone();
    let lookup = move |var: &str| match var {
        "PLAID_BASE_URL" => Some("https://sandbox.plaid.com".to_string()),
        "PLAID_SECRET_ARN" => Some(arn.clone()),
        _ => None,
    };
    adapters::plaid::PlaidConfig::load(&sm, lookup)
        .await
        .expect("the Plaid secret reads");
    sm
}

/// A live verification waiting for Plaid Check's report, and the emulator's signed webhook for it.
async fn plaid_signal(rig: &mut Rig) {
    use devstack::plaid_emulator::{PlaidEmulator, Report, Signing};
    let live = (domain::Mode::Live, "iam.plaid@example.com".to_string());
    let current = waiting(rig, live, "bank=iam-cuid usr_iam_1", None, vec![]).await;
    let body = PlaidEmulator::report_webhook_body("usr_iam_1", Report::Ready);
    let signature = rig.plaid.sign(body.as_bytes(), &Signing::default());
    let url = format!(
        "{}/webhooks/providers/plaid?verification_id={}",
        rig.base, current.verification_id
    );
    // Plaid's webhook as the distribution forwards it: with the origin header CloudFront adds
    // (the rig's client adds it).
    let sent = rig
        .http
        .post(&url)
        .header("content-type", "application/json")
        .header("plaid-verification", signature)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status().as_u16(), 200);
    let stored = rig
        .store
        .get_verification(current.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert!(stored.awaiting_now().unwrap().signal.is_some(), "recorded");
}

async fn expiry(rig: &mut Rig) {
    use domain::{Mode, NewVerificationInput, Verification};
    let now = chrono::Utc::now();
    let input = NewVerificationInput {
        tenant_email: "iam.expired+good@example.com".into(),
        ..Default::default()
    };
    let mut v = Verification::new_pending(
        stack::DEMO_ACCOUNT,
        Mode::Test,
        input,
        now,
        chrono::Duration::days(7),
    );
    v.created_at = now - chrono::Duration::days(8);
    v.expires_at = now - chrono::Duration::seconds(5);
    rig.store.create_verification(&v, None, None).await.unwrap();
    let dynamo = aws_sdk_dynamodb::Client::new(&rig.sdk);
    let swept = devstack::pump::sweep_ttl(&dynamo, &rig.names.table, &rig.ttl)
        .await
        .unwrap();
    assert!(swept >= 1, "the marker was due");
    rig.drain().await;
    let stored = rig
        .store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, domain::Status::Expired);
}
