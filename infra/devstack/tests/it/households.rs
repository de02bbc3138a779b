//! Households end to end on moto: the allowance checked for all members at once under concurrent
//! creates, two members completing in the sandbox and `household.completed` verified with the
//! `standardwebhooks` package (member events still fire), its delivery log by `household_id` and
//! its redelivery, a member's invite SMS, the decision
//! written exactly once (eight
//! concurrent writers: `dynamo_store.rs`, on both stores), a failed decision write finished by the
//! retry queue, cancellation, usage, and isolation between accounts.

use crate::common;

use std::time::Duration;

use adapters::dynamo::DynamoStore;
use adapters::scheduler::EventBridgeScheduler;
use adapters::ses::SesMailer;
use adapters::sns::SnsTexter;
use adapters::sqs::SqsQueue;
use chrono::Utc;
use common::{
    Receiver, Reply, TestEnv, env, fresh_number, queue_depth, sent_emails, sent_sms,
    verify_with_standard_webhooks,
};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_retry_once, pump_sqs_once};
use ports::store::prelude::*;
use ports::{SystemClock, WebhookSecrets};
use serde_json::{Value, json};
use service::config::TestModeDelivery;
use service::handlers::publish_events::OutboxDeps;
use test_support::{ArmedFaults, FaultyStore, StoreOp};
use uuid::Uuid;

mod cancel;
mod decisions;
#[allow(unused_imports)]
use cancel::*;
#[allow(unused_imports)]
use decisions::*;

const HOUSEHOLDS: &str = "/api/v1/households";
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

fn household_path(id: &str) -> String {
    format!("{HOUSEHOLDS}?household_id={id}")
}

fn body(tag: &str, roles: &[&str], webhook: Option<&str>) -> String {
    let members: Vec<Value> = (roles.iter().enumerate())
        .map(|(i, role)| json!({"tenant_email": format!("{tag}.{i}+good@example.com"), "role": role}))
        .collect();
    let mut b = json!({"property_address": "2 Shared House Lane", "monthly_rent": 1800, "members": members});
    if let Some(url) = webhook {
        b["webhook_url"] = json!(url);
    }
    b.to_string()
}

async fn create(env: &TestEnv, key: &str, body: &str) -> Reply {
    env.call("POST", HOUSEHOLDS, Some(key), Some(body)).await
}

struct Rig {
    env: TestEnv,
    pump: StreamPump,
    workers: Workers,
    receiver: Receiver,
}

async fn rig() -> Rig {
    let env = env().await;
    let pump = StreamPump::new(&env.sdk, &env.names.table, TtlDeletions::default())
        .await
        .unwrap();
    let workers = env.workers();
    env.secrets
        .put_webhook_secrets(
            devstack::stack::DEMO_ACCOUNT,
            &WebhookSecrets {
                current: Some(SECRET.into()),
                previous: None,
                previous_valid_until: None,
            },
        )
        .await
        .unwrap();
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    Rig {
        env,
        pump,
        workers,
        receiver,
    }
}

impl Rig {
    async fn drain<S: Store>(
        &mut self,
        outbox: &OutboxDeps<
            S,
            SesMailer,
            SnsTexter,
            EventBridgeScheduler,
            SqsQueue,
            SystemClock,
            adapters::live_provider::LiveProvider,
        >,
    ) {
        for _ in 0..30 {
            if self
                .pump
                .pump_once(outbox, &self.workers.expiry)
                .await
                .unwrap()
                == 0
            {
                return;
            }
        }
        panic!("the stream did not settle");
    }

    async fn deliver(&self) {
        let sqs = aws_sdk_sqs::Client::new(&self.env.sdk);
        for _ in 0..10 {
            let n = pump_sqs_once(
                &sqs,
                &self.env.created.webhook_queue_url,
                &self.workers.delivery,
                0,
            )
            .await
            .unwrap();
            if n == 0 {
                return;
            }
        }
    }

    /// Consents and connects a member through its own link, in the sandbox scenario `scenario`.
    async fn complete(&self, member: &Value, scenario: &str) {
        let link = member["verification_url"]
            .as_str()
            .unwrap()
            .strip_prefix(&self.env.base)
            .unwrap()
            .to_string();
        for form in [
            "action=consent&agree=yes".to_string(),
            format!("action=connect&scenario={scenario}"),
        ] {
            let resp = reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap()
                .post(format!("{}{link}", self.env.base))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status().as_u16(), 303);
        }
    }

    fn households_completed(&self) -> Vec<common::Received> {
        self.receiver
            .received()
            .into_iter()
            .filter(|r| r.body.contains("\"household.completed\""))
            .collect()
    }
}
