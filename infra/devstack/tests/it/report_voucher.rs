//! The report a landlord can act on, end to end against moto: a voucher holder's verification is
//! created with a rent subsidy and the landlord's own multiple, the tenant consents and connects
//! the sandbox `voucher` scenario on the page, and the `verification.completed` webhook (through
//! the stream, SQS and a signed delivery) and `GET /api/v1/verify` carry the affordability on
//! the tenant's portion, the stability figures, the amounts basis and the consent record.

use crate::common;
use service::handlers::tenant_portal::CONSENT_VERSION;

use std::time::Duration;

use common::{Receiver, env};
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once};
use ports::WebhookSecrets;
use ports::store::prelude::*;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voucher_holders_report_applies_the_multiple_to_their_portion() {
    let env = env().await;
    let ttl = TtlDeletions::default();
    let mut pump = StreamPump::new(&env.sdk, &env.names.table, ttl.clone())
        .await
        .unwrap();
    let workers = env.workers();
    env.secrets
        .put_webhook_secrets(
            devstack::stack::DEMO_ACCOUNT,
            &WebhookSecrets {
                current: Some("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into()),
                previous: None,
                previous_valid_until: None,
            },
        )
        .await
        .unwrap();
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let r = env
        .create_verification(
            &env.test_key,
            json!({"tenant_email": "tia+voucher@example.com", "monthly_rent": 1400,
                   "rent_subsidy_monthly": 1000, "income_multiple": 2.5,
                   "webhook_url": receiver.url}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.raw);
    let id = r.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string();
    let link = r.body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .to_string();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for form in [
        "action=consent&agree=yes",
        "action=connect&scenario=voucher",
    ] {
        let resp = http
            .post(&link)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 303);
    }
    for _ in 0..20 {
        if pump
            .pump_once(&workers.outbox, &workers.expiry)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    for _ in 0..5 {
        if pump_sqs_once(&sqs, &env.created.webhook_queue_url, &workers.delivery, 0)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    let completed = receiver
        .received()
        .into_iter()
        .find(|r| r.body.contains("verification.completed"))
        .expect("a verification.completed webhook");
    let hook: Value = serde_json::from_str(&completed.body).unwrap();
    let get = env.get_verification(&env.test_key, &id).await;
    assert_eq!(get.status, 200, "{}", get.raw);
    for data in [&hook["data"], &get.body["data"]] {
        assert_eq!(data["verification_id"], id.as_str());
        let report = &data["income_report"];
        assert_eq!(report["total_monthly_income"], 1317.0);
        assert_eq!(
            report["affordability"],
            json!({
                "monthly_rent": 1400.0,
                "rent_subsidy_monthly": 1000.0,
                "tenant_portion": 400.0,
                "income_multiple": 2.5,
                "income_required": 1000.0,
                "meets_requirement": true,
                "rule": "Income 1,317.00 is at least 2.5 x the tenant's portion 400.00 \
                         (rent 1,400.00 less a subsidy of 1,000.00)."
            }),
            "{report}"
        );
        // On the tenant's portion: 400 / 1317, and 1317 >= 3 x 400.
        assert_eq!(report["rent_to_income_ratio"], 0.3037);
        assert_eq!(report["passes_3x_rule"], true);
        assert_eq!(report["amounts_basis"], "net");
        assert_eq!(report["stability"]["months_observed"], 12);
        assert_eq!(report["stability"]["regularity"]["label"], "regular");
        assert_eq!(report["stability"]["trend"]["label"], "stable");
        let categories: Vec<&str> = report["income_sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["income_category"].as_str().unwrap())
            .collect();
        assert_eq!(categories, ["BENEFIT_OTHER", "CHILD_SUPPORT"]);
        assert_eq!(
            report["income_sources"][0]["stability"]["regularity"]["label"],
            "regular"
        );
        assert_eq!(data["property"]["rent_subsidy_monthly"], 1000.0);
        assert_eq!(data["income_multiple"], 2.5);
        assert_eq!(data["consent"]["consent_version"], CONSENT_VERSION);
        assert!(
            data["consent"]["consented_at"]
                .as_str()
                .unwrap()
                .ends_with('Z')
        );
    }
    // The list shows the consent record too.
    let list = env
        .call("GET", "/api/v1/verifications", Some(&env.test_key), None)
        .await;
    let item = list.body["data"]
        .as_array()
        .expect("a list of verifications")
        .iter()
        .find(|v| v["id"] == id.as_str())
        .cloned()
        .expect("the verification is listed");
    assert_eq!(
        item["consent"]["consent_version"], CONSENT_VERSION,
        "{item}"
    );
    let stored = env
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.rent_subsidy_monthly, Some(1000.0));
}
