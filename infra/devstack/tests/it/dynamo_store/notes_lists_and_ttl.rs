//! Sample stream events, the tenant note, list totals, household decisions and TTLs.

use super::*;

/// `infra/make_events.py` writes stream images by hand, in Python: every key in them must be the
/// key the adapter writes for the verification they carry, so the samples cannot drift from the
/// schema unnoticed.
#[test]
pub(super) fn sample_stream_events_carry_the_production_keys() {
    use aws_lambda_events::event::dynamodb::Event;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events");
    let mut checked = 0;
    for function in ["publish-events", "expire-verifications"] {
        for file in std::fs::read_dir(dir.join(function)).unwrap() {
            let path = file.unwrap().path();
            let raw = std::fs::read_to_string(&path).unwrap();
            let event: Event = serde_json::from_str(&raw).unwrap();
            for record in event.records {
                let change = record.change;
                let record_keys: Item = change.keys.into();
                for image in [change.new_image, change.old_image] {
                    let image: Item = image.into();
                    let text = |name: &str| match image.get(name) {
                        Some(AttributeValue::S(v)) => v.clone(),
                        _ => String::new(),
                    };
                    // The record's keys are its image's (the filters read the keys).
                    if image.contains_key(schema::PK) {
                        for attr in [schema::PK, schema::SK] {
                            assert_eq!(
                                record_keys.get(attr),
                                image.get(attr),
                                "{attr} in {}",
                                path.display()
                            );
                        }
                    }
                    let pk = text(schema::PK);
                    let expected = if keys::verification_id(&pk).is_some() {
                        let v = items::verification_from_item(image.clone()).unwrap();
                        items::verification_item(&v).unwrap()
                    } else if let Some(id) = keys::marker_verification_id(&pk) {
                        let (pk, sk) = match text(schema::SK).as_str() {
                            schema::ERASURE_SK => keys::erasure_marker(id),
                            _ => keys::expiry_marker(id),
                        };
                        assert_eq!(text(schema::SK), sk, "{}", path.display());
                        [(schema::PK, pk), (schema::SK, sk)]
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), AttributeValue::S(v)))
                            .collect()
                    } else {
                        continue;
                    };
                    for attr in schema::KEY_ATTRIBUTES {
                        let stored = image.get(attr);
                        assert_eq!(stored, expected.get(attr), "{attr} in {}", path.display());
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 6, "only {checked} images checked");
}

/// The tenant's note is stored once, on a completed verification only; of concurrent notes exactly
/// one is kept, and the note never moves the status or the report.
pub(super) async fn the_tenant_note_is_stored_once<S: Store>(store: S) {
    let v = pending(Mode::Test);
    store.create_verification(&v, None, None).await.unwrap();
    let id = v.verification_id;
    assert!(
        store
            .add_tenant_note(id, "too early")
            .await
            .unwrap()
            .is_none(),
        "no note before completion"
    );
    let done = Transition::Complete {
        report: Box::new(IncomeReport::empty_for_tests()),
    };
    let completed = match store.transition(&v, &done, now()).await.unwrap() {
        TransitionOutcome::Applied(c) => c,
        other => panic!("{other:?}"),
    };
    let notes: Vec<String> = (0..6)
        .map(|i| format!("note {i}: 5 € \"quoted\"\nline"))
        .collect();
    let outcomes =
        futures::future::join_all(notes.iter().map(|n| store.add_tenant_note(id, n))).await;
    let kept: Vec<Verification> = outcomes.into_iter().filter_map(Result::unwrap).collect();
    assert_eq!(kept.len(), 1, "exactly one concurrent note wins");
    let stored = store.get_verification(id).await.unwrap().unwrap();
    assert_eq!(stored.tenant_note, kept[0].tenant_note);
    assert!(notes.contains(stored.tenant_note.as_ref().unwrap()));
    assert_eq!(stored.status, Status::Completed);
    assert_eq!(stored.income_report, completed.income_report);
    assert!(store.add_tenant_note(id, "again").await.unwrap().is_none());
    assert!(
        store
            .add_tenant_note(uuid::Uuid::new_v4(), "nobody")
            .await
            .unwrap()
            .is_none()
    );
}
on_both_stores!(the_tenant_note_is_stored_once);

on_both_stores!(cancelling_one_in_progress_keeps_the_list_totals_exact);
/// Pending and in_progress share one `open` counter, so the list tells them apart by counting the
/// in-progress range: after one-write cancels of verifications in progress and pending, beside
/// open ones past expiry that no sweeper has moved, every filter's total is the number of
/// verifications a reader sees with that status, and the page shows them all.
pub(super) async fn cancelling_one_in_progress_keeps_the_list_totals_exact<S: Store>(store: S) {
    let (key, plans) = metered_pro_key(&store).await;
    let lifetime = Duration::days(7);
    let store = &store;
    let seed = |age: Duration, start: bool| async move {
        let input = NewVerificationInput {
            tenant_email: "tenant@example.com".into(),
            ..Default::default()
        };
        let v = Verification::new_pending(ACCOUNT, Mode::Test, input, now() - age, lifetime);
        store.create_verification(&v, None, None).await.unwrap();
        if start {
            let at = now() - age + Duration::minutes(1);
            let outcome = store.transition(&v, &Transition::Start, at).await.unwrap();
            assert!(matches!(outcome, TransitionOutcome::Applied(_)));
        }
        v.verification_id
    };
    let mut ids = Vec::new();
    for (age_hours, start) in [(1, false), (2, false), (3, false), (4, true), (5, true)] {
        ids.push(seed(Duration::hours(age_hours), start).await);
    }
    ids.push(seed(Duration::hours(6), true).await);
    ids.push(seed(Duration::hours(7), true).await);
    // Past expiry, not swept: shown expired, still stored (and counted) open.
    ids.push(seed(Duration::days(8), false).await);
    ids.push(seed(Duration::days(9), true).await);
    let cancel = |id| {
        let (key, plans) = (&key, &plans);
        async move {
            let cancelled = store
                .meter_and_cancel(&MeteredCancel {
                    key,
                    now: now(),
                    plans,
                    verification_id: id,
                })
                .await
                .unwrap();
            matches!(cancelled, ports::Metered::Done(..))
        }
    };
    // Two in progress and one pending cancelled; one past expiry refused.
    for id in [ids[3], ids[4], ids[0]] {
        assert!(cancel(id).await);
    }
    assert!(!cancel(ids[8]).await);
    let report = IncomeReport::empty_for_tests();
    let in_progress = store.get_verification(ids[5]).await.unwrap().unwrap();
    store
        .transition(
            &in_progress,
            &Transition::Complete {
                report: Box::new(report),
            },
            now(),
        )
        .await
        .unwrap();
    let mut stored = Vec::new();
    for id in &ids {
        stored.push(store.get_verification(*id).await.unwrap().unwrap());
    }
    let want = [
        (None, 9),
        (Some(Status::Pending), 2),
        (Some(Status::InProgress), 1),
        (Some(Status::Expired), 5),
        (Some(Status::Completed), 1),
        (Some(Status::Failed), 0),
    ];
    for (status, count) in want {
        let shown = stored
            .iter()
            .filter(|v| status.is_none_or(|s| v.effective_status(now()) == s))
            .count();
        assert_eq!(shown, count, "the seeding shows {status:?}");
        let page = store
            .list_verifications(&ListQuery {
                account_id: ACCOUNT.into(),
                mode: Mode::Test,
                status,
                offset: 0,
                limit: 100,
                expired_if_created_by: now() - lifetime,
            })
            .await
            .unwrap();
        assert_eq!(page.total, shown as u64, "total of {status:?}");
        assert_eq!(page.items.len(), shown, "page of {status:?}");
    }
    // Stored open: the two pending and the one in progress shown so, and the two past expiry.
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &domain::usage_month(now()))
        .await
        .unwrap();
    assert_eq!(
        (stats.total, stats.open, stats.expired, stats.completed),
        (9, 5, 3, 1)
    );
}

on_both_stores!(a_read_free_cancel_applies_only_to_the_owners_open_verification);
/// `cancel_open` (cancel-household's write per member): the owner's pending or in-progress
/// verification before its expiry is cancelled with the counters moved; another account's or
/// mode's, a closed one, one past its expiry and a missing one are left as they were.
pub(super) async fn a_read_free_cancel_applies_only_to_the_owners_open_verification<S: Store>(
    store: S,
) {
    let created = |mode| {
        let store = &store;
        async move {
            let v = pending(mode);
            store.create_verification(&v, None, None).await.unwrap();
            v
        }
    };
    let waiting = created(Mode::Test).await;
    let started = created(Mode::Test).await;
    store
        .transition(&started, &Transition::Start, now())
        .await
        .unwrap();
    let done = created(Mode::Test).await;
    let report = IncomeReport::empty_for_tests();
    store
        .transition(
            &done,
            &Transition::Complete {
                report: Box::new(report),
            },
            now(),
        )
        .await
        .unwrap();
    let live = created(Mode::Live).await;
    let cancel = |id, account: &'static str, mode, at| {
        let store = &store;
        async move { store.cancel_open(id, account, mode, at).await.unwrap() }
    };
    assert!(!cancel(waiting.verification_id, "acct_other", Mode::Test, now()).await);
    assert!(!cancel(live.verification_id, ACCOUNT, Mode::Test, now()).await);
    assert!(!cancel(done.verification_id, ACCOUNT, Mode::Test, now()).await);
    assert!(
        !cancel(
            waiting.verification_id,
            ACCOUNT,
            Mode::Test,
            waiting.expires_at
        )
        .await
    );
    assert!(!cancel(uuid::Uuid::new_v4(), ACCOUNT, Mode::Test, now()).await);
    assert!(cancel(waiting.verification_id, ACCOUNT, Mode::Test, now()).await);
    assert!(cancel(started.verification_id, ACCOUNT, Mode::Test, now()).await);
    // Cancelled already: closed.
    assert!(!cancel(started.verification_id, ACCOUNT, Mode::Test, now()).await);
    for id in [waiting.verification_id, started.verification_id] {
        let v = store.get_verification(id).await.unwrap().unwrap();
        assert_eq!((v.status, v.cancelled_at), (Status::Expired, Some(now())));
    }
    let done_now = store
        .get_verification(done.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(done_now.status, Status::Completed);
    let month = domain::usage_month(now());
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!(
        (stats.total, stats.open, stats.expired, stats.completed),
        (3, 0, 2, 1)
    );
    let (live_stats, _) = store
        .owner_stats(ACCOUNT, Mode::Live, &month)
        .await
        .unwrap();
    assert_eq!((live_stats.open, live_stats.expired), (1, 0));
}

on_both_stores!(of_eight_concurrent_household_decisions_exactly_one_is_stored);
/// When members finish at the same moment each stream record tries to store the household's
/// decision: the conditional write lets exactly one in, what is stored is that writer's decision
/// and time (never a mix), and a later write is refused too.
pub(super) async fn of_eight_concurrent_household_decisions_exactly_one_is_stored<S: Store>(
    store: S,
) {
    use domain::household::{Household, HouseholdMember, MemberOutcome, MemberRole, decide};
    let household_id = uuid::Uuid::new_v4();
    let mut member = pending(Mode::Test);
    member.household_id = Some(household_id);
    member.household_role = Some(MemberRole::Applicant);
    let household = Household {
        household_id,
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        created_at: now(),
        property_address: None,
        monthly_rent: 1200.0,
        rent_subsidy_monthly: None,
        income_multiple: None,
        guarantor_multiple: None,
        webhook_url: None,
        members: vec![HouseholdMember {
            verification_id: member.verification_id,
            role: MemberRole::Applicant,
        }],
        decision: None,
        decided_at: None,
        cancelled_at: None,
        erased_at: None,
    };
    let created = store
        .create_household(&household, std::slice::from_ref(&member), None, None)
        .await
        .unwrap();
    assert_eq!(created, CreateOutcome::Created);
    // Each writer carries its own decision and time, so the stored one names its writer.
    let writes: Vec<_> = (0..8)
        .map(|i| {
            let outcome = MemberOutcome {
                verification_id: member.verification_id,
                role: MemberRole::Applicant,
                status: Status::Completed,
                monthly_income: Some(3000.0 + f64::from(i)),
            };
            let terms = domain::affordability::RentTerms::rent_only(Some(1200.0));
            let decision = decide(&terms, None, &[outcome]).unwrap();
            (decision, now() + Duration::seconds(i.into()))
        })
        .collect();
    let won: Vec<bool> = futures::future::join_all(
        (writes.iter()).map(|(d, at)| store.record_household_decision(household_id, d, *at)),
    )
    .await
    .into_iter()
    .map(Result::unwrap)
    .collect();
    let winners: Vec<usize> = (0..8).filter(|i| won[*i]).collect();
    assert_eq!(winners.len(), 1, "exactly one writer stores it: {won:?}");
    let (decision, at) = &writes[winners[0]];
    let stored = store.get_household(household_id).await.unwrap().unwrap();
    assert_eq!(stored.decision.as_ref(), Some(decision));
    assert_eq!(stored.decided_at, Some(*at));
    let late = &writes[(winners[0] + 1) % 8];
    assert!(
        !store
            .record_household_decision(household_id, &late.0, late.1)
            .await
            .unwrap()
    );
    assert_eq!(
        store.get_household(household_id).await.unwrap().unwrap(),
        stored
    );
    // A household that does not exist stores nothing.
    assert!(
        !store
            .record_household_decision(uuid::Uuid::new_v4(), decision, *at)
            .await
            .unwrap()
    );
}

/// The raw `ttl` attribute of an item, as DynamoDB's TTL reads it (a number, epoch seconds).
pub(super) fn ttl_of(item: &Item) -> i64 {
    match item.get(schema::TTL_ATTRIBUTE) {
        Some(AttributeValue::N(n)) => n.parse().expect("epoch seconds"),
        other => panic!("no numeric ttl: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn webhook_events_and_delivery_attempts_expire_30_days_after_their_time() {
    use domain::webhook::WebhookMessage;
    use domain::webhook_log::{
        AttemptOutcome, DeliveryAttempt, StoredWebhookEvent, WebhookSubject,
    };

    let store = store().await;
    let id = uuid::Uuid::new_v4();
    let event_id = format!("msg_{}_completed", id.simple());
    let body = serde_json::json!({
        "type": "verification.completed",
        "timestamp": "2026-03-10T12:00:00.000Z",
        "data": {"verification_id": id.to_string()},
    });
    let message = WebhookMessage {
        webhook_id: event_id.clone(),
        account_id: ACCOUNT.into(),
        url: "https://hooks.example.com/h".into(),
        body: body.to_string(),
    };
    let stored_at = now();
    let event = StoredWebhookEvent::of(&message, stored_at).expect("an event of ours");
    store.put_webhook_event(&event).await.unwrap();
    // An attempt two days later: its own time counts, not the event's.
    let attempted_at = now() + Duration::days(2) + Duration::milliseconds(1_250);
    let attempt = DeliveryAttempt {
        event_id: event_id.clone(),
        event_type: "verification.completed".into(),
        subject: WebhookSubject::Verification(id),
        attempt: 1,
        attempted_at,
        outcome: AttemptOutcome::Delivered,
        http_status: Some(200),
        error: None,
        duration_ms: 12,
        final_attempt: false,
    };
    store
        .record_delivery_attempt(ACCOUNT, &attempt)
        .await
        .unwrap();

    // 2026-03-10T12:00:00Z is 1_773_144_000; thirty days are 2_592_000 seconds.
    assert_eq!(stored_at.timestamp(), 1_773_144_000);
    let event_item = raw(&store, keys::webhook_event(&event_id)).await.unwrap();
    assert_eq!(ttl_of(&event_item), 1_773_144_000 + 2_592_000);
    let attempt_key = (
        keys::deliveries(WebhookSubject::Verification(id)),
        keys::delivery_attempt(&domain::format_ts(attempted_at), &event_id, 1),
    );
    let attempt_item = raw(&store, attempt_key).await.unwrap();
    // Whole seconds: the attempt's time rounded down, plus thirty days.
    assert_eq!(
        ttl_of(&attempt_item),
        1_773_144_000 + 2 * 86_400 + 1 + 2_592_000
    );
}
