//! The edge's origin check end to end (template.yaml's `EdgeProtection`): the secret in Secrets
//! Manager (moto), read through the functions' own wiring, and the local server in front of the
//! handlers. A caller that bypassed CloudFront (no header, a wrong one) gets the 403 envelope
//! from every kind of function; one that came through it is served, with the links naming the
//! distribution's host.

use crate::common;

use serde_json::{Value, json};
use service::http::origin::{ORIGIN_HEADER, VIEWER_HOST_HEADER};

const EDGE_HOST: &str = "d111111abcdef8.cloudfront.net";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_requests_through_the_edge_reach_the_functions_and_links_name_it() {
    let env = common::env().await;
    let secret = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let arn = aws_sdk_secretsmanager::Client::new(&env.sdk)
        .create_secret()
        .name(format!("{}-edge-origin", env.names.table))
        .secret_string(&secret)
        .send()
        .await
        .unwrap()
        .arn
        .unwrap();
    let origin = adapters::wiring::origin_check(Some(&arn), &env.sdk)
        .await
        .expect("the origin secret reads");
    assert!(origin.is_on());
    // As deployed without PublicBaseUrl: the functions build links from the request's host.
    let port = devstack::moto::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let settings = service::config::Settings {
        public_base_url: None,
        local_webhook_origins: common::webhook_origins().clone(),
        ..devstack::local_settings(&env.names.table, &base, domain::VERIFICATION_LIFETIME)
    };
    let mut app = devstack::app(&env.sdk, settings);
    std::sync::Arc::get_mut(&mut app).unwrap().origin = origin;
    devstack::server::spawn(app, port).await.expect("listen");

    let http = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let send = |method: reqwest::Method, path: &str, origin: Option<&str>| {
        let mut req = http
            .request(method, format!("{base}{path}"))
            .header(VIEWER_HOST_HEADER, EDGE_HOST);
        if let Some(value) = origin {
            req = req.header(ORIGIN_HEADER, value);
        }
        req
    };
    let refused = |resp: reqwest::Response| async move {
        let status = resp.status().as_u16();
        let request_id = resp.headers()["x-request-id"].to_str().unwrap().to_string();
        let raw = resp.text().await.unwrap();
        assert_eq!(status, 403, "{raw}");
        let body: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(body["success"], false);
        assert_eq!(body["code"], "edge_required");
        assert_eq!(body["request_id"], request_id);
        assert!(body["details"].is_array());
        raw
    };
    let create = json!({"tenant_email": "edge+good@example.com", "tenant_name": "Edge Tenant",
                        "property_address": "1 Edge Row", "monthly_rent": 1500});
    let post = |origin: Option<&str>| {
        send(reqwest::Method::POST, "/api/v1/verify", origin)
            .bearer_auth(&env.test_key)
            .header("content-type", "application/json")
            .header("idempotency-key", uuid::Uuid::new_v4().to_string())
            .body(create.to_string())
    };

    // Bypassed: no header, a wrong one, the secret's prefix. Nothing of the secret comes back.
    let remaining = || async {
        let usage = env.usage(&env.test_key).await;
        assert_eq!(usage.status, 200, "{}", usage.raw);
        let left = usage.header("x-ratelimit-remaining").unwrap();
        left.parse::<u64>().unwrap()
    };
    let before = remaining().await;
    for origin in [None, Some("wrong"), Some(&secret[..secret.len() - 1])] {
        let raw = refused(post(origin).send().await.unwrap()).await;
        assert!(!raw.contains(&secret));
    }
    // Not even an API request was counted (only the usage read itself): no handler ran.
    assert_eq!(before - remaining().await, 1);

    // Through the edge: created, with the tenant link on the distribution's host.
    let created = post(Some(&secret)).send().await.unwrap();
    assert_eq!(created.status().as_u16(), 201);
    let created: Value = serde_json::from_str(&created.text().await.unwrap()).unwrap();
    let link = created["data"]["verification_url"].as_str().unwrap();
    let path = link
        .strip_prefix(&format!("https://{EDGE_HOST}"))
        .unwrap_or_else(|| panic!("the link names the distribution: {link}"));
    assert!(path.starts_with("/t/"), "{link}");

    // The tenant page and the providers' webhooks are guarded the same way.
    refused(send(reqwest::Method::GET, path, None).send().await.unwrap()).await;
    let page = send(reqwest::Method::GET, path, Some(&secret))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    let webhook = send(reqwest::Method::POST, "/webhooks/providers/plaid", None)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    refused(webhook).await;

    // The refusals were logged, without the secret.
    let logs = common::captured_logs();
    assert!(logs.contains("did not come through the edge"));
    assert!(!logs.contains(&secret));
}
