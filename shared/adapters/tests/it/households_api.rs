//! The household handlers against the in-memory store: the body's own 32 KiB limit, the
//! allowance checked for all members at once under concurrent creates, a failing store answered
//! without a partial household, the decision as GET shows it (open, partly failed, a guarantor
//! carrying an applicant with sandbox incomes), a cancel coming after the members'
//! completions, and the household decision in the outbox under a fault. The cancel itself:
//! `households_cancel.rs`. The same on the real wire: `infra/devstack/tests/it/households.rs`.

use crate::support::{body, now, plan, settings_with};

fn settings() -> Settings {
    settings_with(Plans::new(vec![plan("pro", 5, 1000)]))
}
use domain::affordability::RentTerms;
use domain::plans::Plans;
use domain::report::{IncomeReport, build_report_with};
use domain::secrets::{GeneratedKey, account_key_from_random};
use domain::{ApiKeyRecord, Mode, Status, Transition};
use ports::TransitionOutcome;
use ports::store::prelude::*;
use serde_json::{Value, json};
use service::config::Settings;
use service::handlers::api::ApiDeps;
use service::handlers::households::{cancel_household, create_household, get_household};
use service::http::ApiRequest;
use service::sandbox::scenario_income;
use test_support::{ArmedFaults, FaultyStore, ManualClock, MemoryStore, StoreOp, active_account};
use uuid::Uuid;

const ACCOUNT: &str = "acct_households";

async fn deps<S: Store>(store: S) -> (ApiDeps<S, ManualClock>, GeneratedKey) {
    store
        .put_account(&active_account(ACCOUNT, "pro", now()))
        .await
        .unwrap();
    let key =
        account_key_from_random(ACCOUNT, Mode::Live, "HouseholdLiveKeyHandlerTests01").unwrap();
    store
        .put_api_key(&ApiKeyRecord {
            key_id: key.key_id.clone(),
            key_hash: key.hash.clone(),
            account_id: ACCOUNT.into(),
            mode: Mode::Live,
            display_prefix: key.display_prefix.clone(),
            created_at: now(),
            revoked_at: None,
        })
        .await
        .unwrap();
    (ApiDeps::new(store, ManualClock::at(now()), settings()), key)
}

fn post(key: &GeneratedKey, body: &Value) -> ApiRequest {
    post_raw(key, body.to_string())
}

fn post_raw(key: &GeneratedKey, raw: String) -> ApiRequest {
    ApiRequest::new(http::Method::POST, "/api/v1/households")
        .with_header("content-type", "application/json")
        .with_header("authorization", &format!("Bearer {}", key.secret))
        .with_body(raw)
}

fn named(method: http::Method, key: &GeneratedKey, id: &str) -> ApiRequest {
    ApiRequest::new(method, &format!("/api/v1/households?household_id={id}"))
        .with_header("authorization", &format!("Bearer {}", key.secret))
}

fn household(tag: &str, roles: &[&str]) -> Value {
    let members: Vec<Value> = (roles.iter().enumerate())
        .map(|(i, role)| json!({"tenant_email": format!("{tag}{i}@example.com"), "role": role}))
        .collect();
    json!({"monthly_rent": 1000, "members": members})
}

fn report(income: f64) -> IncomeReport {
    let mut r = IncomeReport::empty_for_tests();
    r.total_monthly_income = income;
    r
}

/// Completes a member as the tenant page does in the sandbox: consent, then the scenario's income.
async fn complete_in_sandbox(store: &MemoryStore, id: Uuid, scenario: &str) {
    let v = store.get_verification(id).await.unwrap().unwrap();
    let consent = Transition::Consent {
        version: "2026-11-v1".into(),
        provider_user: None,
        methods: vec![],
    };
    let TransitionOutcome::Applied(v) = store.transition(&v, &consent, now()).await.unwrap() else {
        panic!("consent applies")
    };
    let income = scenario_income(scenario, v.created_at.date_naive()).unwrap();
    let report = build_report_with(&income, &RentTerms::from(&v));
    let done = Transition::Complete {
        report: Box::new(report),
    };
    let outcome = store.transition(&v, &done, now()).await.unwrap();
    assert!(
        matches!(outcome, TransitionOutcome::Applied(_)),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_household_body_may_be_32_kib_and_a_larger_one_is_413() {
    let store = MemoryStore::new();
    let (deps, key) = deps(store.clone()).await;
    // Whitespace keeps the body valid JSON at any size.
    let padded = |size: usize| {
        let b = household("size", &["applicant"]).to_string();
        format!("{b}{}", " ".repeat(size - b.len()))
    };
    // Over POST /verify's 16 KiB, within the household's 32 KiB, up to the last byte.
    for size in [20 * 1024, 32 * 1024] {
        let r = create_household(&deps, post_raw(&key, padded(size))).await;
        assert_eq!(r.status, 201, "{size} bytes: {}", r.body);
    }
    assert_eq!(store.verifications().len(), 2);
    for size in [32 * 1024 + 1, 40 * 1024] {
        let r = create_household(&deps, post_raw(&key, padded(size))).await;
        let e = body(&r);
        assert_eq!(
            (r.status, e["success"].clone(), e["code"].clone()),
            (413, json!(false), json!("payload_too_large")),
            "{size} bytes"
        );
        assert_eq!(e["error"], "Request body is larger than 32768 bytes");
    }
    assert_eq!(store.verifications().len(), 2, "nothing written for a 413");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_households_at_the_allowance_edge_never_exceed_it() {
    let store = MemoryStore::new();
    let (deps, key) = deps(store.clone()).await;
    let deps = std::sync::Arc::new(deps);
    // 5 a month: six concurrent households of two; exactly two fit.
    let tasks: Vec<_> = (0..6)
        .map(|i| {
            let deps = deps.clone();
            let req = post(
                &key,
                &household(&format!("h{i}_"), &["applicant", "applicant"]),
            );
            tokio::spawn(async move { create_household(&deps, req).await })
        })
        .collect();
    let mut statuses = vec![];
    for t in tasks {
        statuses.push(t.await.unwrap().status);
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        2,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| matches!(s, 201 | 403)),
        "{statuses:?}"
    );
    assert_eq!(store.verifications().len(), 4, "no partial household");
    // One left: a household of two is refused whole, one of one fits.
    let r = create_household(
        &deps,
        post(&key, &household("y", &["applicant", "applicant"])),
    )
    .await;
    assert_eq!(
        (r.status, body(&r)["code"].clone()),
        (403, json!("verification_limit_reached"))
    );
    let r = create_household(&deps, post(&key, &household("z", &["applicant"]))).await;
    assert_eq!(r.status, 201);
    assert_eq!(store.verifications().len(), 5);
}

#[tokio::test]
async fn a_failing_store_answers_500_and_writes_no_household() {
    let faults = ArmedFaults::default();
    let store = MemoryStore::new();
    let (deps, key) = deps(FaultyStore {
        inner: store.clone(),
        faults: faults.clone(),
    })
    .await;
    faults.arm(StoreOp::MeterAndCreateHousehold, 1);
    let r = create_household(&deps, post(&key, &household("f", &["applicant"]))).await;
    assert_eq!(
        (r.status, body(&r)["code"].clone()),
        (500, json!("internal_error"))
    );
    assert!(store.verifications().is_empty());
    let r = create_household(&deps, post(&key, &household("f", &["applicant"]))).await;
    assert_eq!(r.status, 201);
    // A replay of an Idempotency-Key, which the one write refuses with the key's record: a store
    // error on its read of the first household is a 500 as well, and nothing more is written;
    // the replay then answers.
    let replay = || {
        post(&key, &household("g", &["applicant"])).with_header("idempotency-key", "hh-replay-1")
    };
    assert_eq!(create_household(&deps, replay()).await.status, 201);
    let before = store.verifications().len();
    faults.arm(StoreOp::GetHousehold, 1);
    let r = create_household(&deps, replay()).await;
    assert_eq!(
        (r.status, body(&r)["code"].clone()),
        (500, json!("internal_error"))
    );
    assert_eq!(store.verifications().len(), before);
    assert_eq!(create_household(&deps, replay()).await.status, 201);
    assert_eq!(store.verifications().len(), before);
}

#[tokio::test]
async fn get_shows_open_members_then_the_decision_without_the_failed_one() {
    let store = MemoryStore::new();
    let (deps, key) = deps(store.clone()).await;
    let r = create_household(
        &deps,
        post(
            &key,
            &household("d", &["applicant", "applicant", "guarantor"]),
        ),
    )
    .await;
    let created = body(&r);
    let id = created["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let member = |i: usize| -> Uuid {
        created["data"]["members"][i]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    let r = get_household(&deps, named(http::Method::GET, &key, &id)).await;
    let view = body(&r);
    assert_eq!(view["data"]["status"], "open");
    assert_eq!(view["data"]["open_members"].as_array().unwrap().len(), 3);
    assert!(view["data"]["decision"].is_null());
    // Applicant 0 completes with 3,100.00 (>= 3 x 1,000.00), applicant 1 fails, the guarantor
    // is cancelled.
    let now = now();
    let v0 = store.verification(member(0)).unwrap();
    let started = Transition::Start.apply(&v0, now);
    store.insert_verification(
        &Transition::Complete {
            report: Box::new(report(3100.0)),
        }
        .apply(&started, now),
    );
    let v1 = store.verification(member(1)).unwrap();
    store.insert_verification(
        &Transition::Fail {
            reason: "income_unverifiable".into(),
        }
        .apply(&v1, now),
    );
    let r = get_household(&deps, named(http::Method::GET, &key, &id)).await;
    assert_eq!(body(&r)["data"]["open_members"], json!([member(2)]));
    // The guarantor's own verification is cancelled (DELETE /verify; a cancelled household is
    // never decided: `households_cancel.rs`).
    let v2 = store.verification(member(2)).unwrap();
    store.insert_verification(&Transition::Cancel.apply(&v2, now));
    let r = get_household(&deps, named(http::Method::GET, &key, &id)).await;
    let view = body(&r);
    assert_eq!(view["data"]["status"], "decided", "{view}");
    let d = &view["data"]["decision"];
    assert_eq!(d["applicants_monthly_income"], 3100.0);
    assert_eq!(d["meets_requirement"], true);
    assert_eq!(d["made_without"].as_array().unwrap().len(), 2);
    assert_eq!(
        d["rule"],
        "The applicants' combined income 3,100.00 is at least 3 x the rent 1,000.00. There is no \
         completed guarantor. The household meets the requirement. Decided without 2 members \
         (applicant failed, guarantor expired or cancelled)."
    );
    // The GET wrote nothing: the decision is stored only by the outbox.
    assert!(
        store
            .household(id.parse().unwrap())
            .unwrap()
            .decision
            .is_none()
    );
}

#[tokio::test]
async fn a_guarantor_alone_gets_no_yes_when_every_applicant_failed() {
    let store = MemoryStore::new();
    let (deps, key) = deps(store.clone()).await;
    let r = create_household(
        &deps,
        post(&key, &household("g", &["applicant", "guarantor"])),
    )
    .await;
    let created = body(&r);
    let id = created["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let member = |i: usize| -> Uuid {
        created["data"]["members"][i]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    let now = now();
    let applicant = store.verification(member(0)).unwrap();
    store.insert_verification(
        &Transition::Fail {
            reason: "income_unverifiable".into(),
        }
        .apply(&applicant, now),
    );
    // The guarantor earns far more than 5 x 1,000.00.
    let guarantor = store.verification(member(1)).unwrap();
    let started = Transition::Start.apply(&guarantor, now);
    store.insert_verification(
        &Transition::Complete {
            report: Box::new(report(20_000.0)),
        }
        .apply(&started, now),
    );
    let r = get_household(&deps, named(http::Method::GET, &key, &id)).await;
    let view = body(&r);
    assert_eq!(view["data"]["status"], "decided", "{view}");
    let d = &view["data"]["decision"];
    assert_eq!(d["guarantor_meets_requirement"], true);
    assert_eq!(d["applicants_meet_requirement"], false);
    assert_eq!(
        d["meets_requirement"], false,
        "nobody who would live there was verified"
    );
    let rule = d["rule"].as_str().unwrap();
    assert!(
        rule.starts_with("No applicant's verification completed."),
        "{rule}"
    );
    assert!(rule.contains("a guarantor backs an applicant"), "{rule}");
}

#[tokio::test]
async fn a_guarantor_carries_an_applicant_below_the_income_rule_to_yes() {
    let store = MemoryStore::new();
    let (deps, key) = deps(store.clone()).await;
    let r = create_household(
        &deps,
        post(&key, &household("carry", &["applicant", "guarantor"])),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let created = body(&r);
    let id = created["data"]["household_id"].as_str().unwrap();
    let member = |i: usize| -> Uuid {
        created["data"]["members"][i]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    // Rent 1,000.00: the applicant's `lowincome` 1,516.67 is below 3 x 1,000.00; the
    // guarantor's `good` 5,200.00 reaches the default 5 x 1,000.00 alone.
    complete_in_sandbox(&store, member(0), "lowincome").await;
    complete_in_sandbox(&store, member(1), "good").await;
    let r = get_household(&deps, named(http::Method::GET, &key, id)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let view = body(&r);
    assert_eq!(view["data"]["status"], "decided", "{view}");
    let incomes: Vec<Value> = (view["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["monthly_income"].clone())
        .collect();
    assert_eq!(incomes, [json!(1516.67), json!(5200.0)]);
    let d = &view["data"]["decision"];
    assert_eq!(d["applicants_monthly_income"], 1516.67, "{d}");
    assert_eq!(d["tenant_portion"], 1000.0);
    assert_eq!(d["income_multiple"], 3.0);
    assert_eq!(d["income_required"], 3000.0);
    assert_eq!(d["applicants_meet_requirement"], false);
    assert_eq!(d["guarantor_multiple"], 5.0);
    assert_eq!(d["guarantor_income_required"], 5000.0);
    assert_eq!(d["guarantor_meets_requirement"], true);
    assert_eq!(d["meets_requirement"], true);
    assert_eq!(d["made_without"], json!([]));
    assert_eq!(
        d["rule"],
        "The applicants' combined income 1,516.67 is below 3 x the rent 1,000.00. The highest \
         guarantor income 5,200.00 is enough for the guarantor rule of 5 x the tenant's portion. \
         The household meets the requirement."
    );
}

/// Completes every open member the moment the handler is about to write the household's cancel:
/// the tenants' completions come first.
struct CompletionsWinRace {
    store: MemoryStore,
}

impl test_support::FaultPlan for CompletionsWinRace {
    fn check(&self, op: StoreOp) -> Result<(), ports::StoreError> {
        if op == StoreOp::MeterAndCancelHousehold {
            let open = (self.store.verifications().into_iter()).filter(|v| v.status.is_open());
            for v in open {
                let done = Transition::Complete {
                    report: Box::new(report(3100.0)),
                }
                .apply(&v, now());
                self.store.insert_verification(&done);
            }
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_member_completed_while_the_household_is_cancelled_stays_completed() {
    let store = MemoryStore::new();
    let faulty = FaultyStore {
        inner: store.clone(),
        faults: CompletionsWinRace {
            store: store.clone(),
        },
    };
    let (deps, key) = deps(faulty).await;
    let r = create_household(
        &deps,
        post(&key, &household("r", &["applicant", "guarantor"])),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = body(&r)["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    // The write refused: every member it named had completed, so none is left to name and the
    // cancel changes nothing and says so.
    let r = cancel_household(&deps, named(http::Method::DELETE, &key, &id)).await;
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(body(&r)["code"], "household_closed");
    let household_id: Uuid = id.parse().unwrap();
    assert!(
        store
            .household(household_id)
            .unwrap()
            .cancelled_at
            .is_none()
    );
    assert!(
        (store.verifications().iter())
            .all(|v| v.status == Status::Completed && v.cancelled_at.is_none())
    );
}

#[tokio::test]
async fn a_member_number_of_a_country_sms_may_not_reach_is_a_400_naming_the_member() {
    let store = MemoryStore::new();
    let (deps, key) = deps(store.clone()).await;
    let mut body_ = household("phones", &["applicant", "guarantor"]);
    body_["members"][0]["tenant_phone"] = json!("(415) 555-2671");
    body_["members"][1]["tenant_phone"] = json!("+1 876 555 0123");
    let r = create_household(&deps, post(&key, &body_)).await;
    let e = body(&r);
    assert_eq!(
        (r.status, e["code"].clone()),
        (400, json!("validation_error")),
        "{e}"
    );
    assert_eq!(e["details"].as_array().unwrap().len(), 1, "{e}");
    assert_eq!(e["details"][0]["field"], "members[1].tenant_phone", "{e}");
    assert_eq!(e["details"][0]["code"], "country_not_allowed", "{e}");
    assert!(store.verifications().is_empty(), "no household written");
    body_["members"][1]["tenant_phone"] = json!("+1 416 555 0123");
    let r = create_household(&deps, post(&key, &body_)).await;
    assert_eq!(r.status, 201, "{}", r.body);
}

/// A member's erasure (the one road, `ErasureStore::erase_verification`) takes the household's
/// address, rent and decision, and its stored `household.completed`; once erased, the household is
/// never decided and its event never stored again; a second erasure changes nothing.
#[tokio::test]
async fn a_members_erasure_erases_the_households_shared_data_once() {
    use domain::webhook::WebhookMessage;
    use domain::webhook_log::StoredWebhookEvent;
    let store = MemoryStore::new();
    let (deps, key) = deps(store.clone()).await;
    let mut request = household("e", &["applicant"]);
    request["property_address"] = json!("7 Erased Court");
    let created = body(&create_household(&deps, post(&key, &request)).await);
    let id: Uuid = created["data"]["household_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let member: Uuid = (created["data"]["members"][0]["verification_id"].as_str())
        .unwrap()
        .parse()
        .unwrap();
    let now = now();
    let v = store.verification(member).unwrap();
    let started = Transition::Start.apply(&v, now);
    let done = Transition::Complete {
        report: Box::new(report(3100.0)),
    };
    store.insert_verification(&done.apply(&started, now));
    let view = body(&get_household(&deps, named(http::Method::GET, &key, &id.to_string())).await);
    let decision: domain::household::HouseholdDecision =
        serde_json::from_value(view["data"]["decision"].clone()).unwrap();
    assert!(
        store
            .record_household_decision(id, &decision, now)
            .await
            .unwrap()
    );
    let message = WebhookMessage {
        webhook_id: format!("msg_{}_household_completed", id.simple()),
        account_id: ACCOUNT.into(),
        url: "https://hooks.example.com/h".into(),
        body:
            json!({"type": "household.completed", "timestamp": "t", "data": {"household_id": id}})
                .to_string(),
    };
    let event = StoredWebhookEvent::of(&message, now).unwrap();
    assert!(store.put_webhook_event(&event).await.unwrap());

    for _ in 0..2 {
        let erased = store.erase_verification(member, now).await.unwrap();
        assert!(matches!(
            erased,
            ports::ErasureOutcome::Erased(_) | ports::ErasureOutcome::AlreadyErased(_)
        ));
    }
    let h = store.household(id).unwrap();
    assert_eq!(h.erased_at, Some(now));
    assert_eq!((h.property_address, h.decision), (None, None));
    let gone = store.get_webhook_event(&message.webhook_id).await.unwrap();
    assert!(gone.is_none(), "household.completed deleted");
    assert!(
        !store.put_webhook_event(&event).await.unwrap(),
        "never stored again"
    );
    assert!(
        !store
            .record_household_decision(id, &decision, now)
            .await
            .unwrap()
    );
    let view = body(&get_household(&deps, named(http::Method::GET, &key, &id.to_string())).await);
    let data = &view["data"];
    assert_eq!(
        data["property"],
        json!({"address": "", "monthly_rent": null}),
        "{view}"
    );
    assert!(
        data["decision"].is_null() && data["erased_at"].is_string(),
        "{view}"
    );
}
