//! The accounts' webhook signing secrets in Secrets Manager (moto), apart from the table: the
//! admin tool writes and rotates them, deliver-webhook signs with them through its bounded cache,
//! and no record of the table's stream ever holds one. moto ignores KMS key policies; the
//! template tests prove who may decrypt (`template::webhook_secrets`).

use std::time::Duration;

use chrono::Utc;
use serde_json::json;

use crate::common::{self, Receiver, env};
use admin::Command;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once};
use domain::plans::Plans;
use domain::webhook::WebhookMessage;

/// Rotates the demo account's secret as the admin tool does, at `at`; the new secret.
async fn rotate(env: &common::TestEnv, at: chrono::DateTime<Utc>) -> String {
    let command = Command::RotateWebhookSecret {
        account: devstack::stack::DEMO_ACCOUNT.into(),
        overlap_hours: 24,
    };
    let out = admin::run(
        &env.store,
        Some(&env.secrets),
        &Plans::defaults(),
        command,
        at,
    )
    .await
    .unwrap();
    let line = out.lines().find_map(|l| l.strip_prefix("webhook secret "));
    line.expect("the new secret is printed").to_string()
}

/// Queues one webhook to `receiver`, delivers it with `delivery`, and returns the request the
/// receiver got.
async fn deliver(
    env: &common::TestEnv,
    delivery: &devstack::pump::Delivery,
    receiver: &Receiver,
    id: &str,
) -> devstack::receiver::Received {
    let message = WebhookMessage {
        webhook_id: id.into(),
        account_id: devstack::stack::DEMO_ACCOUNT.into(),
        url: receiver.url.clone(),
        body: json!({"type": "verification.expired", "timestamp": "2026-12-01T00:00:00.000Z", "data": {}}).to_string(),
    };
    common::queue_webhook(&env.store, &delivery.queue, &message).await;
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    let queue = &env.created.webhook_queue_url;
    assert_eq!(pump_sqs_once(&sqs, queue, delivery, 0).await.unwrap(), 1);
    let got = receiver.received();
    got.into_iter()
        .find(|r| r.header("webhook-id") == Some(id))
        .expect("delivered")
}

fn signatures(request: &devstack::receiver::Received) -> usize {
    request
        .header("webhook-signature")
        .unwrap()
        .split(' ')
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_tool_rotates_a_secret_deliveries_sign_with_both_for_the_overlap_and_the_stream_never_holds_one()
 {
    let env = env().await;
    let mut pump = StreamPump::new(&env.sdk, &env.names.table, TtlDeletions::default())
        .await
        .unwrap();
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let now = Utc::now();

    // Issued two days ago: one secret signs.
    let first = rotate(&env, now - chrono::Duration::hours(48)).await;
    let warm = env.workers();
    let one = deliver(&env, &warm.delivery, &receiver, "msg_first").await;
    assert_eq!(signatures(&one), 1);
    common::verify_with_standard_webhooks(&first, &one);

    // Rotated now: the warm function keeps the secret it read for the cache's lifetime ...
    let second = rotate(&env, now).await;
    let cached = deliver(&env, &warm.delivery, &receiver, "msg_cached").await;
    assert_eq!(signatures(&cached), 1);
    common::verify_with_standard_webhooks(&first, &cached);
    // ... and a function that reads it afresh signs with both during the overlap.
    let fresh = env.workers();
    let both = deliver(&env, &fresh.delivery, &receiver, "msg_both").await;
    assert_eq!(signatures(&both), 2);
    common::verify_with_standard_webhooks(&second, &both);
    common::verify_with_standard_webhooks(&first, &both);

    // Rotated 25 hours ago with a 24-hour overlap: the overlap is over, one secret signs.
    let third = rotate(&env, now - chrono::Duration::hours(25)).await;
    let later = env.workers();
    let alone = deliver(&env, &later.delivery, &receiver, "msg_after").await;
    assert_eq!(signatures(&alone), 1);
    common::verify_with_standard_webhooks(&third, &alone);

    // Each secret is the account's one Secrets Manager secret, under the stack's own key.
    let described = aws_sdk_secretsmanager::Client::new(&env.sdk)
        .describe_secret()
        .secret_id(env.secrets.name(devstack::stack::DEMO_ACCOUNT))
        .send()
        .await
        .unwrap();
    assert_eq!(
        described.kms_key_id(),
        Some(env.created.webhook_secrets_key_arn.as_str())
    );

    // The table's stream saw the accounts, the events and the delivery log, and no secret.
    let records = pump.read().await.unwrap();
    assert!(records.len() >= 4, "{} records", records.len());
    for record in &records {
        let text = record.to_string();
        for secret in [&first, &second, &third] {
            assert!(
                !text.contains(secret.as_str()),
                "a stream record holds a secret"
            );
        }
        assert!(!text.contains("whsec_"), "a stream record holds a secret");
    }
}
