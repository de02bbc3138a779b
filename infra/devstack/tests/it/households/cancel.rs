//! Cancelling a household (its open members in the same write), and the members' tenant steps
//! around it.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn cancel_stops_open_members_and_keeps_completed_ones() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let created = create(
        &rig.env,
        &test,
        &body("cancel", &["applicant", "applicant"], None),
    )
    .await;
    let id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    rig.complete(&members[0], "good").await;
    let r = rig
        .env
        .call("DELETE", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    let statuses: Vec<&str> = r.body["data"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "cancelled"]);
    // The open member's own item was cancelled by the same write; the stream's records that
    // follow change nothing, and a cancelled household is never decided.
    let member = |i: usize| -> Uuid {
        members[i]["verification_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    let stored = rig
        .env
        .store
        .get_verification(member(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status.as_str(), "expired");
    assert!(stored.cancelled_at.is_some());
    let kept = rig
        .env
        .store
        .get_verification(member(0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.status.as_str(), "completed");
    rig.drain(&w.outbox).await;
    let r = rig
        .env
        .call("GET", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "cancelled", "{}", r.raw);
    assert!(r.body["data"]["decision"].is_null());
    let shown: Vec<&str> = (r.body["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["status"].as_str().unwrap())
        .collect();
    assert_eq!(shown, ["completed", "expired"]);
    // A second cancel changes nothing.
    let r = rig
        .env
        .call("DELETE", &household_path(&id), Some(&test), None)
        .await;
    let statuses: Vec<&str> = r.body["data"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "expired"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_failed_decision_write_is_finished_by_the_retry_queue() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let url = rig.receiver.url.clone();
    let created = create(
        &rig.env,
        &test,
        &body("fault", &["applicant", "applicant"], Some(&url)),
    )
    .await;
    let id: Uuid = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let faults = ArmedFaults::default();
    let sqs = aws_sdk_sqs::Client::new(&rig.env.sdk);
    let faulty: OutboxDeps<
        FaultyStore<DynamoStore, ArmedFaults>,
        SesMailer,
        SnsTexter,
        EventBridgeScheduler,
        SqsQueue,
        SystemClock,
        adapters::live_provider::LiveProvider,
    > = OutboxDeps {
        store: FaultyStore {
            inner: rig.env.store.clone(),
            faults: faults.clone(),
        },
        mailer: SesMailer::new(
            aws_sdk_sesv2::Client::new(&rig.env.sdk),
            rig.env.names.sender.clone(),
        ),
        texter: rig.workers.outbox.texter.clone(),
        scheduler: rig.workers.outbox.scheduler.clone(),
        queue: SqsQueue::new(sqs.clone(), rig.env.created.webhook_queue_url.clone()),
        retry_queue: SqsQueue::new(sqs.clone(), rig.env.created.retry_queue_url.clone()),
        provider: adapters::live_provider::LiveProvider::local_sandbox(),
        clock: SystemClock,
        public_base_url: rig.env.base.clone(),
        test_mode_delivery: TestModeDelivery::Send,
        reminder_offsets: rig.workers.outbox.reminder_offsets.clone(),
        retry_backoff: vec![0],
        sms: Default::default(),
    };
    rig.drain(&faulty).await;
    faults.down(StoreOp::RecordHouseholdDecision);
    rig.complete(&members[0], "good").await;
    rig.complete(&members[1], "good").await;
    rig.drain(&faulty).await;
    assert!(
        rig.env
            .store
            .get_household(id)
            .await
            .unwrap()
            .unwrap()
            .decision
            .is_none()
    );
    assert!(
        queue_depth(&rig.env, &rig.env.created.retry_queue_url).await >= 1,
        "handed to the retry queue"
    );
    faults.restore(StoreOp::RecordHouseholdDecision);
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    for _ in 0..5 {
        if pump_retry_once(&sqs, &rig.env.created.retry_queue_url, &w.outbox, 0)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    let decided = rig.env.store.get_household(id).await.unwrap().unwrap();
    assert!(decided.decision.is_some(), "the retry stored the decision");
    rig.drain(&w.outbox).await;
    rig.deliver().await;
    assert_eq!(rig.households_completed().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_member_with_a_phone_gets_the_invite_sms_once() {
    let mut rig = rig().await;
    let (raw, e164) = fresh_number();
    let tag = format!("sms{}", Uuid::new_v4().simple());
    let b = json!({
        "property_address": "2 Shared House Lane", "monthly_rent": 1800,
        "members": [
            {"tenant_email": format!("{tag}.0+good@example.com"), "tenant_phone": raw, "role": "applicant"},
            {"tenant_email": format!("{tag}.1+good@example.com"), "role": "guarantor"},
        ]
    });
    let created = create(&rig.env, &rig.env.live_key.clone(), &b.to_string()).await;
    assert_eq!(created.status, 201, "{}", created.raw);
    let ids: Vec<Uuid> = (created.body["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["verification_id"].as_str().unwrap().parse().unwrap())
        .collect();
    // publish-events, as deployed (e-mail, webhooks, SMS and schedules); twice, as a redelivered
    // batch would be.
    for _ in 0..2 {
        for _ in 0..20 {
            let handed = (rig.pump)
                .pump_once(&rig.workers.outbox, &rig.workers.expiry)
                .await
                .unwrap();
            if handed == 0 {
                break;
            }
        }
    }
    let texts = sent_sms(&e164).await;
    assert_eq!(
        texts.len(),
        1,
        "the member with a phone is texted once: {texts:?}"
    );
    assert!(texts[0].contains("2 Shared House Lane"), "{}", texts[0]);
    assert!(
        texts[0].contains(&format!("/t/{}/", ids[0])),
        "their own link"
    );
    let with_phone = rig
        .env
        .store
        .get_verification(ids[0])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(with_phone.sms_phone.as_deref(), Some(e164.as_str()));
    let without = rig
        .env
        .store
        .get_verification(ids[1])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(without.sms_phone, None, "no phone, no SMS");
    for i in 0..2 {
        assert_eq!(
            sent_emails(&format!("{tag}.{i}+good@example.com"))
                .await
                .len(),
            1,
            "each member is still e-mailed"
        );
    }
}

/// A member's link (path after the base).
pub(super) fn link_of(env: &TestEnv, member: &Value) -> String {
    (member["verification_url"].as_str().unwrap())
        .strip_prefix(&env.base)
        .unwrap()
        .to_string()
}

/// A tenant form post on the member's page: its status and body.
pub(super) async fn tenant_post(env: &TestEnv, link: &str, form: &str) -> (u16, String) {
    let resp = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(format!("{}{link}", env.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_string())
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

pub(super) fn member_id(member: &Value) -> Uuid {
    member["verification_id"].as_str().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_household_cancel_leaves_no_member_open_on_any_read() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let created = create(
        &rig.env,
        &test,
        &body("one", &["applicant", "applicant"], None),
    )
    .await;
    let id: Uuid = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    rig.drain(&w.outbox).await;
    let link = link_of(&rig.env, &members[0]);
    let (status, _) = tenant_post(&rig.env, &link, "action=consent&agree=yes").await;
    assert_eq!(status, 303);
    let usage = |r: &Reply| {
        r.header("x-ratelimit-remaining")
            .unwrap()
            .parse::<u32>()
            .unwrap()
    };
    let r = rig
        .env
        .call(
            "DELETE",
            &household_path(&id.to_string()),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    // The answer names each member from the household's id: its role and this write's cancel.
    let answered: Vec<(&str, &str, &str)> = (r.body["data"]["members"].as_array().unwrap().iter())
        .map(|m| {
            (
                m["verification_id"].as_str().unwrap(),
                m["role"].as_str().unwrap(),
                m["status"].as_str().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(&str, &str, &str)> = (members.iter())
        .map(|m| {
            (
                m["verification_id"].as_str().unwrap(),
                "applicant",
                "cancelled",
            )
        })
        .collect();
    assert_eq!(answered, expected, "{}", r.raw);
    let after_cancel = usage(&r);
    // The one transaction wrote the household, the count and both members: nothing of the
    // stream has run (not drained), yet no read shows a member open.
    let household = rig.env.store.get_household(id).await.unwrap().unwrap();
    assert!(household.cancelled_at.is_some());
    for m in &members {
        let v = rig
            .env
            .store
            .get_verification(member_id(m))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.status.as_str(), "expired");
        assert_eq!(v.cancelled_at, household.cancelled_at);
        let path = format!("/api/v1/verify?verification_id={}", member_id(m));
        let r = rig.env.call("GET", &path, Some(&test), None).await;
        assert_eq!(r.status, 200, "{}", r.raw);
        assert_eq!(
            r.body["data"]["status"], "expired",
            "GET /verify: {}",
            r.raw
        );
    }
    let listed = rig
        .env
        .call(
            "GET",
            &format!("/api/v1/verifications?household_id={id}"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(listed.status, 200, "{}", listed.raw);
    let statuses: Vec<&str> = (listed.body["data"].as_array().unwrap().iter())
        .map(|v| v["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["expired", "expired"], "{}", listed.raw);
    for open in ["pending", "in_progress"] {
        let listed = rig
            .env
            .call(
                "GET",
                &format!("/api/v1/verifications?status={open}"),
                Some(&test),
                None,
            )
            .await;
        let ids: Vec<&str> = (listed.body["data"].as_array().unwrap().iter())
            .map(|v| v["verification_id"].as_str().unwrap())
            .collect();
        for m in &members {
            let id = m["verification_id"].as_str().unwrap();
            assert!(!ids.contains(&id), "{open} lists a cancelled member");
        }
    }
    // The tenant's next step is refused (the member is final) and shows the cancelled page.
    let (status, page) = tenant_post(&rig.env, &link, "action=connect&scenario=good").await;
    assert_eq!(status, 410, "the closed page: {page}");
    assert!(page.contains("This request was cancelled"), "{page}");
    let (_, page) = tenant_post(
        &rig.env,
        &link_of(&rig.env, &members[1]),
        "action=consent&agree=yes",
    )
    .await;
    assert!(page.contains("This request was cancelled"), "{page}");
    // GET /households shows the household and its members cancelled.
    let r = rig
        .env
        .call("GET", &household_path(&id.to_string()), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "cancelled", "{}", r.raw);
    let shown: Vec<&str> = (r.body["data"]["members"].as_array().unwrap().iter())
        .map(|m| m["status"].as_str().unwrap())
        .collect();
    assert_eq!(shown, ["expired", "expired"], "{}", r.raw);
    assert_eq!(
        usage(&r),
        after_cancel - 1 - 2 - 1 - 2,
        "each request counted once"
    );
    // The stream's records of the members then change nothing more.
    rig.drain(&w.outbox).await;
    for m in &members {
        let v = rig
            .env
            .store
            .get_verification(member_id(m))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.status.as_str(), "expired");
        assert_eq!(v.cancelled_at, household.cancelled_at);
    }
    let household = rig.env.store.get_household(id).await.unwrap().unwrap();
    assert!(
        household.decision.is_none(),
        "a cancelled household is never decided"
    );
}

/// A cancel that reaches a household after every member has closed but before the outbox stored
/// its decision (the stream lags the members by a moment) changes nothing and says so: a 409
/// `household_closed`, no `cancelled_at`; the household is still decided, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_cancel_after_every_member_closed_is_refused_and_keeps_the_decision() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let created = create(&rig.env, &test, &body("closedfirst", &["applicant"], None)).await;
    let id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let members = created.body["data"]["members"].as_array().unwrap().clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    rig.complete(&members[0], "good").await;
    // Not drained yet: no decision stored when the landlord cancels.
    let r = rig
        .env
        .call("DELETE", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.status, 409, "{}", r.raw);
    assert_eq!(r.body["code"], "household_closed", "{}", r.raw);
    assert!(r.header("x-ratelimit-remaining").is_some(), "counted");
    rig.drain(&w.outbox).await;
    let household = rig
        .env
        .store
        .get_household(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(household.cancelled_at.is_none(), "nothing written");
    assert!(household.decision.is_some(), "decided as usual");
    let r = rig
        .env
        .call("GET", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "decided", "{}", r.raw);
    // Decided: a cancel still changes nothing.
    let r = rig
        .env
        .call("DELETE", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.status, 409, "{}", r.raw);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_tenant_step_racing_the_cancel_either_lands_before_it_or_is_refused() {
    let mut rig = rig().await;
    let test = rig.env.test_key.clone();
    let w = Workers::new(
        &rig.env.sdk,
        &rig.env.names,
        &rig.env.created,
        &rig.env.base,
        vec![0],
        &rig.env.webhook_origins,
    );
    let mut outcomes = vec![];
    for round in 0..4 {
        let created = create(
            &rig.env,
            &test,
            &body(&format!("race{round}"), &["applicant"], None),
        )
        .await;
        let id = created.body["data"]["household_id"]
            .as_str()
            .unwrap()
            .to_string();
        let member = created.body["data"]["members"][0].clone();
        let link = link_of(&rig.env, &member);
        let (status, _) = tenant_post(&rig.env, &link, "action=consent&agree=yes").await;
        assert_eq!(status, 303);
        let path = household_path(&id);
        let (tenant, cancel) = tokio::join!(
            tenant_post(&rig.env, &link, "action=connect&scenario=good"),
            rig.env.call("DELETE", &path, Some(&test), None)
        );
        rig.drain(&w.outbox).await;
        let v = rig
            .env
            .store
            .get_verification(member_id(&member))
            .await
            .unwrap()
            .unwrap();
        let household = rig
            .env
            .store
            .get_household(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        if tenant.0 == 303 {
            // The tenant's step landed first: the member stays completed with its report, and
            // the cancel, which found every member closed, changed nothing and said so: the
            // household is decided. The two timestamps do not order the writes (each is its
            // request's start), so they are not compared.
            assert_eq!(cancel.status, 409, "round {round}: {}", cancel.raw);
            assert!(household.cancelled_at.is_none(), "round {round}");
            assert_eq!(v.status.as_str(), "completed", "round {round}");
            assert!(v.cancelled_at.is_none());
            assert!(v.income_report.is_some());
            assert!(household.decision.is_some(), "round {round}");
        } else {
            // The cancel landed first: the step was refused and the member is cancelled.
            assert_eq!(cancel.status, 200, "round {round}: {}", cancel.raw);
            assert!(household.decision.is_none(), "round {round}");
            assert!(
                tenant.1.contains("This request was cancelled"),
                "round {round}: {}",
                tenant.1
            );
            assert_eq!(v.status.as_str(), "expired", "round {round}");
            assert!(v.cancelled_at.is_some());
            assert!(v.income_report.is_none());
        }
        outcomes.push(tenant.0);
    }
    println!("tenant step outcomes: {outcomes:?}");
}

/// An id the key's account never got is 404 and counted, on the wire: one with no shape (a v4
/// id), one with a valid shape, and another account's household.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn an_unknown_or_foreign_household_id_is_404() {
    use domain::household::{HouseholdShape, MemberRole};
    let rig = rig().await;
    let test = rig.env.test_key.clone();
    let created = create(
        &rig.env,
        &test,
        &body("foreign", &["applicant", "guarantor"], None),
    )
    .await;
    let id = created.body["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    let shaped = HouseholdShape::new(&[MemberRole::Applicant, MemberRole::Guarantor])
        .unwrap()
        .new_household_id();
    for (key, household) in [
        (&test, Uuid::new_v4().to_string()),
        (&test, shaped.to_string()),
        (&rig.env.other_test_key, id.clone()),
    ] {
        let r = rig
            .env
            .call("DELETE", &household_path(&household), Some(key), None)
            .await;
        assert_eq!(r.status, 404, "{household}: {}", r.raw);
        assert_eq!(r.body["code"], "not_found");
        assert!(r.header("x-ratelimit-remaining").is_some(), "counted");
    }
    let r = rig
        .env
        .call("GET", &household_path(&id), Some(&test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "open", "{}", r.raw);
}
