//! Retention and erasure against moto: a verification erased on request and one erased by its
//! marker's TTL deletion leave none of their personal data in any item of the table, nor any of
//! their uploads in the documents bucket (another verification's stay); a marker that
//! fires before its time (the retention grew) is armed again; concurrent erasures, and a note
//! racing an erasure, are settled by conditional writes.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{Duration, Utc};
use common::{Receiver, TestEnv, env};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once, sweep_ttl};
use domain::Verification;
use ports::ErasureOutcome;
use ports::store::prelude::*;
use serde_json::json;
use service::table_schema::keys;
use uuid::Uuid;

struct Rig {
    env: TestEnv,
    workers: Workers,
    pump: StreamPump,
    ttl: TtlDeletions,
    receiver: Receiver,
}

async fn rig() -> Rig {
    let env = env().await;
    let ttl = TtlDeletions::default();
    let pump = StreamPump::new(&env.sdk, &env.names.table, ttl.clone())
        .await
        .unwrap();
    let workers = env.workers();
    let secret = domain::secrets::generate_webhook_secret();
    let secrets = ports::WebhookSecrets {
        current: Some(secret),
        previous: None,
        previous_valid_until: None,
    };
    let account = devstack::stack::DEMO_ACCOUNT;
    env.secrets
        .put_webhook_secrets(account, &secrets)
        .await
        .unwrap();
    let receiver = Receiver::start(vec![200], std::time::Duration::ZERO).await;
    Rig {
        env,
        workers,
        pump,
        ttl,
        receiver,
    }
}

/// What a tenant gave and what the service derived from it: every value the erasure removes.
struct Personal {
    id: Uuid,
    name: String,
    email: String,
    phone: String,
    address: String,
    rent: f64,
    note: String,
}

impl Rig {
    /// The stream to its functions until quiet, then the webhook queue to deliver-webhook.
    async fn drain(&mut self) {
        for _ in 0..30 {
            let handed = self
                .pump
                .pump_once(&self.workers.outbox, &self.workers.expiry)
                .await
                .unwrap();
            if handed == 0 {
                break;
            }
        }
        let sqs = aws_sdk_sqs::Client::new(&self.env.sdk);
        let queue = &self.env.created.webhook_queue_url;
        while pump_sqs_once(&sqs, queue, &self.workers.delivery, 0)
            .await
            .unwrap()
            > 0
        {}
    }

    /// A test verification with a phone, an address, a rent and a webhook, completed on the tenant
    /// page with the good scenario and annotated with a note; its webhooks delivered.
    async fn completed(&mut self, tag: &str) -> Personal {
        let unique = Uuid::new_v4().simple().to_string();
        let (_, phone) = common::fresh_number();
        let p = Personal {
            id: Uuid::nil(),
            name: format!("Erin {tag} {}", &unique[..8]),
            email: format!("erin.{}+good@example.com", &unique[..12]),
            phone,
            address: format!("{} Erasure Lane {tag}", &unique[..6]),
            rent: 1234.56,
            note: format!("New job from May {}", &unique[..8]),
        };
        let body = json!({
            "tenant_email": p.email, "tenant_name": p.name, "tenant_phone": p.phone,
            "property_address": p.address, "monthly_rent": p.rent,
            "webhook_url": self.receiver.url.clone(),
        });
        let r = self.env.create_verification(&self.env.test_key, body).await;
        assert_eq!(r.status, 201, "{}", r.raw);
        let id: Uuid = r.body["data"]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let url = r.body["data"]["verification_url"].as_str().unwrap();
        let link = url.strip_prefix(&self.env.base).unwrap().to_string();
        self.drain().await;
        let note = format!("action=note&note={}", p.note.replace(' ', "+"));
        for form in [
            "action=consent&agree=yes",
            "action=connect&scenario=good",
            note.as_str(),
        ] {
            let status = self.page(&link, form).await;
            assert_eq!(status, 303, "{form}");
        }
        self.drain().await;
        let v = self.stored(id).await;
        assert!(v.income_report.is_some() && v.tenant_note.is_some());
        Personal { id, ..p }
    }

    async fn page(&self, link: &str, form: &str) -> u16 {
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let resp = client
            .post(format!("{}{link}", self.env.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form.to_string())
            .send()
            .await
            .unwrap();
        resp.status().as_u16()
    }

    async fn stored(&self, id: Uuid) -> Verification {
        self.env.store.get_verification(id).await.unwrap().unwrap()
    }

    async fn erase(&self, id: Uuid) -> common::Reply {
        let path = format!("/api/v1/verify/data?verification_id={id}");
        self.env
            .call("DELETE", &path, Some(&self.env.test_key), None)
            .await
    }

    /// Sets one attribute (or map entry) of the stored verification: `path` = `value`.
    async fn set(&self, id: Uuid, path: &str, value: AttributeValue) {
        let (pk, sk) = keys::verification(id);
        aws_sdk_dynamodb::Client::new(&self.env.sdk)
            .update_item()
            .table_name(&self.env.names.table)
            .key("PK", AttributeValue::S(pk))
            .key("SK", AttributeValue::S(sk))
            .update_expression(format!("SET {path} = :value"))
            .expression_attribute_values(":value", value)
            .send()
            .await
            .unwrap();
    }

    /// Sets the verification's close `days` back, as if it had completed then.
    async fn closed_days_ago(&self, id: Uuid, days: i64) {
        let at = domain::format_ts(Utc::now() - Duration::days(days));
        self.set(id, "completed_at", AttributeValue::S(at)).await;
    }

    /// Records an upload's entry in the verification's `documents`, as the analysis would; its
    /// ETag is the returned text, which the erasure must remove with the entry.
    async fn with_document(&self, id: Uuid) -> String {
        let etag = format!("etag-{}", Uuid::new_v4().simple());
        let record = domain::documents::record::DocumentRecord::arrived(1, &etag, 10, Utc::now());
        let record = attribute(&serde_json::to_value(record).unwrap());
        self.set(id, "documents.d1", record).await;
        etag
    }

    /// Deletes the due markers as the TTL service would, and runs what their removal triggers.
    async fn sweep(&mut self) {
        let dynamo = aws_sdk_dynamodb::Client::new(&self.env.sdk);
        sweep_ttl(&dynamo, &self.env.names.table, &self.ttl)
            .await
            .unwrap();
        self.drain().await;
    }
}

/// A JSON value as DynamoDB stores it (strings, numbers and maps are all a record holds).
fn attribute(value: &serde_json::Value) -> AttributeValue {
    match value {
        serde_json::Value::String(s) => AttributeValue::S(s.clone()),
        serde_json::Value::Number(n) => AttributeValue::N(n.to_string()),
        serde_json::Value::Object(m) => {
            AttributeValue::M(m.iter().map(|(k, v)| (k.clone(), attribute(v))).collect())
        }
        other => panic!("not in a document record: {other}"),
    }
}

/// Every item of the table, as stored.
async fn every_item(env: &TestEnv) -> Vec<std::collections::HashMap<String, AttributeValue>> {
    let dynamo = aws_sdk_dynamodb::Client::new(&env.sdk);
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = dynamo
            .scan()
            .table_name(&env.names.table)
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        out.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return out;
        }
    }
}

/// Every string and number of a stored value, depth first.
fn leaves(value: &AttributeValue, out: &mut Vec<String>) {
    match value {
        AttributeValue::S(s) | AttributeValue::N(s) => out.push(s.clone()),
        AttributeValue::Ss(v) | AttributeValue::Ns(v) => out.extend(v.iter().cloned()),
        AttributeValue::L(v) => v.iter().for_each(|v| leaves(v, out)),
        AttributeValue::M(m) => m.values().for_each(|v| leaves(v, out)),
        _ => {}
    }
}

/// The places in the table that still hold any of `secrets` (texts), or a number equal to one of
/// `amounts`, or a report's fields: (item key, what was found). The items of `but` (a verification
/// not erased, whose report and rent may equal the erased ones') are left out.
async fn found(
    env: &TestEnv,
    secrets: &[String],
    amounts: &[f64],
    but: Option<Uuid>,
) -> Vec<(String, String)> {
    let mut hits = Vec::new();
    for item in every_item(env).await {
        let key = format!("{:?}|{:?}", item.get("PK"), item.get("SK"));
        if but.is_some_and(|id| {
            key.contains(&id.to_string()) || key.contains(&id.simple().to_string())
        }) {
            continue;
        }
        let mut values = Vec::new();
        item.values().for_each(|v| leaves(v, &mut values));
        for value in values {
            let text = secrets.iter().find(|s| value.contains(s.as_str()));
            let amount = value
                .parse::<f64>()
                .ok()
                .filter(|n| amounts.iter().any(|a| (a - n).abs() < 1e-9));
            let report = ["income_sources", "total_monthly_income"]
                .iter()
                .find(|f| value.contains(*f));
            if let Some(what) = text.map(String::as_str).or(report.copied()) {
                hits.push((key.clone(), what.to_string()));
            } else if let Some(n) = amount {
                hits.push((key.clone(), n.to_string()));
            }
        }
    }
    hits
}

/// The texts and amounts of a verification that must be gone once it is erased, read before.
async fn secrets_of(rig: &Rig, p: &Personal) -> (Vec<String>, Vec<f64>) {
    let v = rig.stored(p.id).await;
    let mut texts = vec![
        p.name.clone(),
        p.email.clone(),
        p.address.clone(),
        p.note.clone(),
    ];
    texts.extend(v.sms_phone.clone());
    texts.extend(v.token_hashes.iter().cloned());
    texts.extend(v.message_links.values().cloned());
    assert!(texts.len() >= 7, "the phone and the token hashes are known");
    let total = v.income_report.as_ref().unwrap().total_monthly_income;
    (texts, vec![p.rent, total])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erasure_on_request_or_by_the_sweep_leaves_no_personal_data_in_the_table() {
    let mut rig = rig().await;
    let asked = rig.completed("asked").await;
    let swept = rig.completed("swept").await;
    let kept = rig.completed("kept").await;
    let (mut texts, mut amounts) = secrets_of(&rig, &asked).await;
    let (swept_texts, swept_amounts) = secrets_of(&rig, &swept).await;
    texts.extend(swept_texts);
    amounts.extend(swept_amounts);
    let (kept_texts, _) = secrets_of(&rig, &kept).await;
    let (sdk, bucket) = (rig.env.sdk.clone(), rig.env.names.documents_bucket.clone());
    for p in [&asked, &swept, &kept] {
        common::put_uploads(&sdk, &bucket, p.id).await;
    }
    for p in [&asked, &swept] {
        texts.push(rig.with_document(p.id).await);
    }
    assert!(
        !found(&rig.env, &texts, &amounts, Some(kept.id))
            .await
            .is_empty(),
        "the scan finds the data before the erasure"
    );

    // On request: at once, and the same answer again.
    let first = rig.erase(asked.id).await;
    assert_eq!(first.status, 200, "{}", first.raw);
    let again = rig.erase(asked.id).await;
    assert_eq!(again.status, 200, "{}", again.raw);
    assert_eq!(
        first.body["data"]["erased_at"],
        again.body["data"]["erased_at"]
    );
    let shown = rig.env.get_verification(&rig.env.test_key, asked.id).await;
    let data = &shown.body["data"];
    assert_eq!(data["erased_at"], first.body["data"]["erased_at"]);
    assert_eq!(data["status"], "completed");
    assert_eq!(data["tenant"], json!({"email": "", "name": ""}));
    assert_eq!(data["property"]["address"], "");
    assert!(data.get("income_report").is_none(), "{data}");

    // By the sweep: closed 400 days ago, its marker due.
    rig.closed_days_ago(swept.id, 400).await;
    rig.env
        .store
        .arm_erasure(swept.id, Utc::now() - Duration::days(35))
        .await
        .unwrap();
    // Closed just now: its marker fires early (say, the retention grew) and is armed again.
    rig.env
        .store
        .arm_erasure(kept.id, Utc::now() - Duration::seconds(5))
        .await
        .unwrap();
    rig.sweep().await;
    assert!(rig.stored(swept.id).await.erased_at.is_some());
    let kept_now = rig.stored(kept.id).await;
    assert!(kept_now.erased_at.is_none() && kept_now.tenant_note.is_some());
    let marker = common::stored_item(&rig.env, keys::erasure_marker(kept.id))
        .await
        .expect("armed again");
    let ttl: i64 = marker["ttl"].as_n().unwrap().parse().unwrap();
    assert!(ttl > (Utc::now() + Duration::days(364)).timestamp());

    let left = found(&rig.env, &texts, &amounts, Some(kept.id)).await;
    assert!(
        left.is_empty(),
        "personal data left after the erasures: {left:?}"
    );
    assert!(
        !found(&rig.env, &kept_texts, &[], None).await.is_empty(),
        "a verification not erased keeps its data"
    );
    for p in [&asked, &swept] {
        let left = common::upload_keys(&sdk, &bucket, p.id).await;
        assert!(left.is_empty(), "uploads left after the erasure: {left:?}");
    }
    let kept_uploads = common::upload_keys(&sdk, &bucket, kept.id).await;
    assert_eq!(
        kept_uploads.len(),
        4,
        "a verification not erased keeps its uploads' versions and marker"
    );

    // Each erased verification sent `verification.erased`, once, holding none of it.
    let erased: Vec<_> = (rig.receiver.received().into_iter())
        .filter(|r| r.body.contains("verification.erased"))
        .collect();
    assert_eq!(erased.len(), 2, "one per erased verification");
    for hook in &erased {
        assert!(!texts.iter().any(|t| hook.body.contains(t.as_str())));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_erasures_write_once_and_a_racing_note_is_never_kept() {
    let mut rig = rig().await;
    let p = rig.completed("raced").await;
    // Its note is already stored; a second verification gets its note raced against the erasure.
    let (first, second, swept) = tokio::join!(
        rig.erase(p.id),
        rig.erase(p.id),
        rig.env.store.erase_verification(p.id, Utc::now())
    );
    assert_eq!((first.status, second.status), (200, 200));
    let stored = rig.stored(p.id).await;
    let at = domain::format_ts(stored.erased_at.unwrap());
    assert_eq!(first.body["data"]["erased_at"], at.as_str());
    assert_eq!(second.body["data"]["erased_at"], at.as_str());
    match swept.unwrap() {
        ErasureOutcome::Erased(v) | ErasureOutcome::AlreadyErased(v) => {
            assert_eq!(v.erased_at, stored.erased_at)
        }
        other => panic!("{other:?}"),
    }
    rig.drain().await;
    let erased = (rig.receiver.received().into_iter())
        .filter(|r| r.body.contains("verification.erased"))
        .count();
    assert_eq!(erased, 1, "one write set erased_at: one webhook");

    // A note and an erasure at once: whichever writes first, no note is kept.
    let q = rig.completed("noted").await;
    let id = q.id;
    let (pk, sk) = keys::verification(id);
    aws_sdk_dynamodb::Client::new(&rig.env.sdk)
        .update_item()
        .table_name(&rig.env.names.table)
        .key("PK", AttributeValue::S(pk))
        .key("SK", AttributeValue::S(sk))
        .update_expression("REMOVE tenant_note")
        .send()
        .await
        .unwrap();
    let (noted, erased) = tokio::join!(
        rig.env.store.add_tenant_note(id, "a late note"),
        rig.erase(id)
    );
    assert_eq!(erased.status, 200);
    let stored = rig.stored(id).await;
    assert_eq!(stored.tenant_note, None, "noted first: {:?}", noted.is_ok());
    assert!(
        rig.env
            .store
            .add_tenant_note(id, "after")
            .await
            .unwrap()
            .is_none()
    );
}

/// The erased values any message of the queues holds.
async fn in_queues(env: &TestEnv, urls: &[&String], texts: &[String]) -> Vec<String> {
    let mut hits = Vec::new();
    for url in urls {
        for body in common::queue_bodies(env, url).await {
            hits.extend(texts.iter().filter(|t| body.contains(t.as_str())).cloned());
        }
    }
    hits
}

/// A webhook queued but not yet delivered when its verification is erased is never sent: the
/// queue holds its reference only, and deliver-webhook finds its stored event gone. A retry of
/// the webhook that failed before the erasure (its keys on the retry queue, the lost-work path)
/// builds it from the erased item and drops it, not stored again. After it, no item, upload or
/// queued message holds the data.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_queued_before_the_erasure_is_never_sent_and_no_queue_keeps_the_data() {
    let mut rig = rig().await;
    let p = rig.completed("queued").await;
    let (texts, amounts) = secrets_of(&rig, &p).await;
    let completed = |rig: &Rig| {
        (rig.receiver.received().into_iter())
            .filter(|r| r.body.contains("verification.completed"))
            .count()
    };
    assert_eq!(completed(&rig), 1, "delivered once before the erasure");
    let event_id = format!("msg_{}_completed", p.id.simple());
    let stored = rig.env.store.get_webhook_event(&event_id).await.unwrap();
    assert!(stored.is_some(), "the completed event is stored");

    // Queued again (a redelivery) and not delivered yet; its earlier hand-off to the retry
    // queue names it by keys, as when the table could not store it.
    assert!(
        rig.env
            .store
            .request_redelivery(&event_id, Utc::now())
            .await
            .unwrap()
    );
    let handed = rig.pump.pump_once(&rig.workers.outbox, &rig.workers.expiry);
    assert!(handed.await.unwrap() > 0);
    let queued = common::queue_bodies(&rig.env, &rig.env.created.webhook_queue_url).await;
    assert_eq!(queued.len(), 1, "the redelivery waits on the queue");
    let retry = service::handlers::outbox::RetryMessage {
        work: service::handlers::outbox::RetryWork::Webhook {
            of: service::handlers::outbox::WebhookOf::Verification {
                verification_id: p.id,
                event: "completed".into(),
            },
        },
        first_failed_at: Utc::now(),
    };
    let retry = serde_json::to_string(&retry).unwrap();
    let retry_queue = &rig.env.created.retry_queue_url;
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    sqs.send_message()
        .queue_url(retry_queue)
        .message_body(retry)
        .send()
        .await
        .unwrap();
    let created = rig.env.created.clone();
    let webhooks = [&created.webhook_queue_url, &created.webhook_dlq_url];
    let all = [
        &created.webhook_queue_url,
        &created.webhook_dlq_url,
        &created.retry_queue_url,
        &created.retry_dlq_url,
    ];
    let held = in_queues(&rig.env, &[retry_queue], &texts).await;
    assert!(
        held.is_empty(),
        "the retry holds no personal data: {held:?}"
    );

    let erased = rig.erase(p.id).await;
    assert_eq!(erased.status, 200, "{}", erased.raw);
    // Before any delivery: the webhook queue holds a reference only.
    let left = in_queues(&rig.env, &webhooks, &texts).await;
    assert!(
        left.is_empty(),
        "personal data on the webhook queue: {left:?}"
    );
    let retried = devstack::pump::pump_retry_once(&sqs, retry_queue, &rig.workers.outbox, 0);
    assert_eq!(retried.await.unwrap(), 1);
    rig.drain().await;

    assert_eq!(
        completed(&rig),
        1,
        "the queued webhook was never sent again"
    );
    let erased_hooks = (rig.receiver.received().into_iter())
        .filter(|r| r.body.contains("verification.erased"))
        .count();
    assert_eq!(erased_hooks, 1);
    let stored = rig.env.store.get_webhook_event(&event_id).await.unwrap();
    assert!(stored.is_none(), "the retry did not store the body again");
    let left = found(&rig.env, &texts, &amounts, None).await;
    assert!(left.is_empty(), "personal data left in the table: {left:?}");
    let left = in_queues(&rig.env, &all, &texts).await;
    assert!(left.is_empty(), "personal data left in a queue: {left:?}");
    let (sdk, bucket) = (&rig.env.sdk, &rig.env.names.documents_bucket);
    assert!(common::upload_keys(sdk, bucket, p.id).await.is_empty());
}

/// A household member's erasure takes the household's shared personal data with it: the address,
/// the rent and the decision (combined figures of the members' incomes) leave the household item,
/// its stored `household.completed` is deleted, and GET /households shows them empty or null.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_members_erasure_erases_the_households_address_rent_and_decision() {
    let mut rig = rig().await;
    let unique = Uuid::new_v4().simple().to_string();
    let address = format!("{} Household Erasure Way", &unique[..6]);
    let email = format!("hh.{}+good@example.com", &unique[..12]);
    let name = format!("Hana {}", &unique[..8]);
    let rent = 1234.56;
    let body = json!({
        "property_address": address, "monthly_rent": rent,
        "webhook_url": rig.receiver.url.clone(),
        "members": [{"tenant_email": email, "tenant_name": name, "role": "applicant"}],
    });
    let r = rig.env.create_household(&rig.env.test_key, body).await;
    assert_eq!(r.status, 201, "{}", r.raw);
    let household = r.body["data"]["household_id"].as_str().unwrap().to_string();
    let member: Uuid = (r.body["data"]["members"][0]["verification_id"].as_str())
        .unwrap()
        .parse()
        .unwrap();
    let url = r.body["data"]["members"][0]["verification_url"].as_str();
    let link = url
        .unwrap()
        .strip_prefix(&rig.env.base)
        .unwrap()
        .to_string();
    rig.drain().await;
    for form in ["action=consent&agree=yes", "action=connect&scenario=good"] {
        assert_eq!(rig.page(&link, form).await, 303, "{form}");
    }
    rig.drain().await;
    let shown = rig.env.get_household(&rig.env.test_key, &household).await;
    let decision = shown.body["data"]["decision"].clone();
    assert!(decision.is_object(), "decided: {}", shown.raw);
    let event_id = format!("msg_{}_household_completed", household.replace('-', ""));
    let stored = rig.env.store.get_webhook_event(&event_id).await.unwrap();
    assert!(stored.is_some(), "household.completed is stored");
    let income = decision["applicants_monthly_income"].as_f64().unwrap();
    let required = decision["income_required"].as_f64().unwrap();
    let texts = vec![address.clone(), email.clone(), name.clone()];
    let amounts = vec![rent, income, required];
    assert!(!found(&rig.env, &texts, &amounts, None).await.is_empty());

    let erased = rig.erase(member).await;
    assert_eq!(erased.status, 200, "{}", erased.raw);
    assert_eq!(rig.erase(member).await.status, 200, "idempotent");
    rig.drain().await;

    let left = found(&rig.env, &texts, &amounts, None).await;
    assert!(left.is_empty(), "personal data left: {left:?}");
    let stored = rig.env.store.get_webhook_event(&event_id).await.unwrap();
    assert!(stored.is_none(), "household.completed is deleted");
    let shown = rig.env.get_household(&rig.env.test_key, &household).await;
    let data = &shown.body["data"];
    assert_eq!(data["property"]["address"], "", "{}", shown.raw);
    assert!(data["property"]["monthly_rent"].is_null(), "{}", shown.raw);
    assert!(data["decision"].is_null(), "{}", shown.raw);
    assert!(data["erased_at"].is_string(), "{}", shown.raw);
    let c = &rig.env.created;
    let queues = [
        &c.webhook_queue_url,
        &c.webhook_dlq_url,
        &c.retry_queue_url,
        &c.retry_dlq_url,
    ];
    let left = in_queues(&rig.env, &queues, &texts).await;
    assert!(left.is_empty(), "personal data left in a queue: {left:?}");
}
