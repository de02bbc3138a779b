//! The local stack calls only the webhook receivers it lists (its own demo receiver; here, the
//! receivers the tests start), never another port or address on this machine.

use crate::common;

use std::time::Duration;

use common::{Receiver, env};
use domain::webhook::WebhookMessage;
use ports::webhooks::{Attempt, WebhookSender};
use serde_json::json;

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

fn message(url: &str) -> WebhookMessage {
    WebhookMessage {
        webhook_id: "msg_target".into(),
        account_id: devstack::stack::DEMO_ACCOUNT.into(),
        url: url.into(),
        body: r#"{"type":"verification.completed"}"#.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_loopback_port_is_refused_at_create_and_at_delivery() {
    let env = env().await;
    let listed = Receiver::start(vec![200], Duration::ZERO).await;
    // Listening on loopback, but not a receiver the stack started: as internal as any service.
    let unlisted = Receiver::start_unlisted(vec![200], Duration::ZERO).await;

    let ok = env
        .create_verification(
            &env.test_key,
            json!({"tenant_email": "a@example.com", "webhook_url": listed.url}),
        )
        .await;
    assert_eq!(ok.status, 201, "{}", ok.raw);
    for url in [
        unlisted.url.clone(),
        unlisted.url.replace("127.0.0.1", "localhost"),
        listed.url.replace("127.0.0.1", "127.0.0.2"),
        listed.url.replace("http:", "https:"),
    ] {
        let refused = env
            .create_verification(
                &env.test_key,
                json!({"tenant_email": "a@example.com", "webhook_url": url}),
            )
            .await;
        assert_eq!(refused.status, 400, "{url}: {}", refused.raw);
        assert_eq!(refused.body["details"][0]["field"], "webhook_url", "{url}");
    }

    let workers = env.workers();
    let client = &workers.delivery.client;
    assert_eq!(
        client.send(&message(&unlisted.url), &[SECRET], 0).await,
        Attempt::Refused
    );
    assert!(unlisted.received().is_empty(), "nothing reached it");
    assert_eq!(
        client.send(&message(&listed.url), &[SECRET], 0).await,
        Attempt::Delivered(200)
    );
    assert_eq!(listed.received().len(), 1);
}
