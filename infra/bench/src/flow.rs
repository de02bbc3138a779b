//! The price of a verification, measured: the local stack (the functions' handlers in process,
//! the real adapters) talks to moto through the counting proxy while verifications run end to end
//! (create, e-mail, three status reads, tenant open/consent/connect, two webhooks, one list page);
//! `cost` prices what was counted.

use std::time::{Duration, Instant};

use devstack::moto::Moto;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once};
use devstack::receiver::Receiver;
use devstack::stack::{self, Created};
use domain::plans::Plans;
use domain::{Mode, Plan};
use serde_json::{Value, json};
use service::config::Settings;

use crate::cost::Usage;
use crate::{Error, err, fresh_stack};
use devstack::proxy::Proxy;

/// The functions' memory in template.yaml (`Globals.Function.MemorySize`).
pub(crate) const MEMORY_MB: u32 = 128;

/// Plans with room for a load run (the demo account is on "business").
fn roomy_plans() -> Plans {
    Plans::new(vec![Plan {
        name: "business".into(),
        verifications_per_month: 10_000_000,
        api_requests_per_day: 10_000_000,
        api_access: true,
        sms_per_month: 10_000_000,
        // A load run is one key at full speed: its burst bound would measure itself.
        key_burst: domain::KeyBurst {
            requests: u32::MAX,
            per_second: u32::MAX,
        },
    }])
}

/// The local stack's API, outbox and webhook delivery, with every AWS call through `proxy`.
pub(crate) struct LocalStack {
    pub(crate) proxy: Proxy,
    pub(crate) base: String,
    pub(crate) test_key: String,
    pub(crate) http: reqwest::Client,
    workers: devstack::Workers,
    pump: StreamPump,
    sqs: aws_sdk_sqs::Client,
    created: Created,
    pub(crate) receiver: Receiver,
}

pub(crate) async fn local_stack(moto: &Moto) -> Result<LocalStack, Error> {
    let direct = moto.sdk_config().await;
    let proxy = Proxy::start(&moto.endpoint).await?;
    let sdk = devstack::moto::sdk_config(&proxy.endpoint).await;
    let (names, created, _store) = fresh_stack(&direct, "flow").await?;
    let port = devstack::moto::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let settings = Settings {
        plans: roomy_plans(),
        ..devstack::local_settings(&names.table, &base, domain::VERIFICATION_LIFETIME)
    };
    let origins = settings.local_webhook_origins.clone();
    devstack::server::spawn(devstack::app(&sdk, settings), port).await?;
    let receiver = Receiver::start(
        0,
        "/hook",
        Duration::ZERO,
        devstack::receiver::scripted(vec![200]),
    )
    .await?;
    origins.allow(&receiver.origin()).map_err(err)?;
    let workers = devstack::Workers::new(&sdk, &names, &created, &base, vec![0], &origins);
    // The stream is read directly (Lambda's stream reads are free); the functions' calls and the
    // webhook queue's receives and deletes (billed to the event source mapping) go through the proxy.
    let mut pump = StreamPump::new(&direct, &names.table, TtlDeletions::default())
        .await
        .map_err(err)?;
    // The seeded fixtures' records (and their e-mails) are not part of what is measured.
    pump.pump_once(&workers.outbox, &workers.expiry)
        .await
        .map_err(err)?;
    proxy.take();
    Ok(LocalStack {
        proxy,
        base,
        test_key: stack::demo_key(stack::DEMO_ACCOUNT, Mode::Test).secret,
        http: reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()?,
        workers,
        pump,
        sqs: aws_sdk_sqs::Client::new(&sdk),
        created,
        receiver,
    })
}

/// One HTTP answer: status, JSON body (Null for a page) and how long it took.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Value,
    pub(crate) took: Duration,
}

impl LocalStack {
    /// An API call (`key`) or a tenant page request (`form`), timed.
    pub(crate) async fn request(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        json_body: Option<&Value>,
        form: Option<&str>,
    ) -> Result<Answer, Error> {
        let method = reqwest::Method::from_bytes(method.as_bytes())?;
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(key) = key {
            req = req.header("authorization", format!("Bearer {key}"));
        }
        if let Some(body) = json_body {
            req = req
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        if let Some(form) = form {
            req = req
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form.to_string());
        }
        let started = Instant::now();
        let resp = req.send().await?;
        let status = resp.status().as_u16();
        let text = resp.text().await?;
        let took = started.elapsed();
        Ok(Answer {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            took,
        })
    }

    /// Runs publish-events on the new stream records; the time taken, if it had any.
    pub(crate) async fn pump_stream(&mut self) -> Result<Option<Duration>, Error> {
        let started = Instant::now();
        let handed = self
            .pump
            .pump_once(&self.workers.outbox, &self.workers.expiry)
            .await
            .map_err(err)?;
        Ok((handed > 0).then(|| started.elapsed()))
    }

    /// Runs deliver-webhook on one receive of the webhook queue; the time taken, if any.
    pub(crate) async fn pump_webhooks(&self) -> Result<Option<Duration>, Error> {
        let started = Instant::now();
        let handed = pump_sqs_once(
            &self.sqs,
            &self.created.webhook_queue_url,
            &self.workers.delivery,
            0,
        )
        .await
        .map_err(err)?;
        Ok((handed > 0).then(|| started.elapsed()))
    }
}

/// What `runs` verifications end to end used, with the e-mails and webhooks they produced.
pub(crate) struct FlowRun {
    pub(crate) runs: usize,
    pub(crate) usage: Usage,
    pub(crate) webhooks: usize,
}

fn expect(answer: &Answer, status: u16, step: &str) -> Result<(), Error> {
    if answer.status == status {
        Ok(())
    } else {
        Err(err(format!(
            "{step}: answered {} (expected {status}): {}",
            answer.status, answer.body
        )))
    }
}

/// Runs `runs` verifications end to end, one after the other, and counts what they used.
pub(crate) async fn verification_flows(moto: &Moto, runs: usize) -> Result<FlowRun, Error> {
    let mut stack = local_stack(moto).await?;
    let hook = format!("{}/hook", stack.receiver.origin());
    let key = stack.test_key.clone();
    let mut usage = Usage::default();
    let api = |usage: &mut Usage, a: &Answer| usage.add_api_request(a.took, MEMORY_MB);
    for i in 0..runs {
        let body = json!({
            "tenant_email": format!("flow{i}@example.com"),
            "webhook_url": hook,
            "property_address": "1 Bench Street",
            "monthly_rent": 1500,
        });
        let created = stack
            .request("POST", "/api/v1/verify", Some(&key), Some(&body), None)
            .await?;
        expect(&created, 201, "create")?;
        api(&mut usage, &created);
        let data = &created.body["data"];
        let id = data["verification_id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let link = data["verification_url"]
            .as_str()
            .and_then(|u| u.strip_prefix(&stack.base))
            .ok_or_else(|| err("no verification_url"))?
            .to_string();
        // publish-events: the tenant e-mail.
        if let Some(took) = stack.pump_stream().await? {
            usage.add_invocation(took, MEMORY_MB);
        }
        let status_path = format!("/api/v1/verify?verification_id={id}");
        for _ in 0..3 {
            let a = stack
                .request("GET", &status_path, Some(&key), None, None)
                .await?;
            expect(&a, 200, "status")?;
            api(&mut usage, &a);
        }
        let open = stack.request("GET", &link, None, None, None).await?;
        expect(&open, 200, "tenant open")?;
        api(&mut usage, &open);
        let consent = stack
            .request("POST", &link, None, None, Some("action=consent&agree=yes"))
            .await?;
        expect(&consent, 303, "consent")?;
        api(&mut usage, &consent);
        let connect = stack
            .request(
                "POST",
                &link,
                None,
                None,
                Some("action=connect&scenario=good"),
            )
            .await?;
        expect(&connect, 303, "connect")?;
        api(&mut usage, &connect);
        // publish-events: the two status changes put two webhooks on the queue ...
        if let Some(took) = stack.pump_stream().await? {
            usage.add_invocation(took, MEMORY_MB);
        }
        // ... and deliver-webhook sends them.
        while let Some(took) = stack.pump_webhooks().await? {
            usage.add_invocation(took, MEMORY_MB);
        }
        let list = stack
            .request(
                "GET",
                "/api/v1/verifications?limit=10",
                Some(&key),
                None,
                None,
            )
            .await?;
        expect(&list, 200, "list")?;
        api(&mut usage, &list);
    }
    usage.add_calls(&stack.proxy.take());
    Ok(FlowRun {
        runs,
        usage,
        webhooks: stack.receiver.answered(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flow runs against moto and counts what the cost model prices.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn verifications_end_to_end_are_counted() {
        let moto = Moto::start().unwrap();
        let run = verification_flows(&moto, 2).await.unwrap();
        // Per verification: create, three status reads, open, consent, connect, one list page.
        assert_eq!(run.usage.api_requests, 2 * 8);
        assert_eq!(run.usage.emails, 2);
        assert_eq!(
            run.webhooks,
            2 * 2,
            "in_progress and completed, each delivered once"
        );
        // Each API request is an invocation; publish-events (e-mail, then the two webhooks) and
        // deliver-webhook add theirs.
        assert!(run.usage.lambda_invocations >= 2 * (8 + 3));
        // Webhooks: two sends, and the deliveries' receives and deletes.
        assert!(run.usage.sqs_requests >= 2 * 2 * 2);
        assert!(run.usage.read_units > 0.0 && run.usage.write_units > 0.0);
        assert!(run.usage.lambda_gb_seconds > 0.0);
        assert_eq!(run.usage.sns_requests, 0, "no SMS in this flow");
    }
}
