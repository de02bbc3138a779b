//! Writes that carry their own metering: authentication, create and cancel, and their races.

use super::*;

/// A test key of the account, issued (its hash listed on the account) and presented.
pub(super) async fn listed_key<S: Store>(store: &S, key_id: &str) -> PresentedKey {
    let key_hash = format!("hash-of-{key_id}");
    let record = ApiKeyRecord {
        key_id: key_id.into(),
        key_hash: key_hash.clone(),
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
        display_prefix: "tiv_test_acct".into(),
        created_at: now(),
        revoked_at: None,
    };
    store.put_api_key(&record).await.unwrap();
    PresentedKey {
        key_id: key_id.into(),
        key_hash,
        account_id: ACCOUNT.into(),
        mode: Mode::Test,
    }
}

on_both_stores!(a_key_naming_its_account_is_authenticated_by_the_metering_write);
/// A key of the current format is never looked up: the one metering write counts it only while
/// its account lists its hash with its mode and has not revoked it.
pub(super) async fn a_key_naming_its_account_is_authenticated_by_the_metering_write<S: Store>(
    store: S,
) {
    store.put_account(&account("tiny")).await.unwrap();
    let plans = Plans::new(vec![Plan {
        name: "tiny".into(),
        verifications_per_month: 10,
        api_requests_per_day: 5,
        api_access: true,
        sms_per_month: 0,
        key_burst: Default::default(),
    }]);
    let issued = |hash: &str, mode| ApiKeyRecord {
        key_id: format!("key_{hash}"),
        key_hash: hash.into(),
        account_id: ACCOUNT.into(),
        mode,
        display_prefix: "tiv_test_aaaa".into(),
        created_at: now(),
        revoked_at: None,
    };
    let presented = |hash: &str, mode| PresentedKey {
        key_id: format!("key_{hash}"),
        key_hash: hash.into(),
        account_id: ACCOUNT.into(),
        mode,
    };
    // Before it is issued: unknown, and nothing is counted.
    let meter = |key: PresentedKey| {
        let (store, plans) = (&store, &plans);
        async move { store.meter_api_request(&key, now(), plans).await.unwrap() }
    };
    assert_eq!(
        meter(presented("h1", Mode::Test)).await,
        MeterOutcome::Refused(MeterRefusal::UnknownAccount)
    );
    // The account's first key creates the listing, the second adds to it.
    store.put_api_key(&issued("h1", Mode::Test)).await.unwrap();
    store.put_api_key(&issued("h2", Mode::Live)).await.unwrap();
    match meter(presented("h1", Mode::Test)).await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 1),
        other => panic!("{other:?}"),
    }
    match meter(presented("h2", Mode::Live)).await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 2),
        other => panic!("{other:?}"),
    }
    // Listed for the other mode, or not listed at all: unknown, not counted.
    assert_eq!(
        meter(presented("h1", Mode::Live)).await,
        MeterOutcome::Refused(MeterRefusal::UnknownAccount)
    );
    assert_eq!(
        meter(presented("h3", Mode::Test)).await,
        MeterOutcome::Refused(MeterRefusal::UnknownAccount)
    );
    // Revoked: refused by the next request's write, and the other key still counts.
    assert!(
        store
            .revoke_api_key(ACCOUNT, "key_h1", now())
            .await
            .unwrap()
    );
    assert_eq!(
        meter(presented("h1", Mode::Test)).await,
        MeterOutcome::Refused(MeterRefusal::KeyRevoked)
    );
    match meter(presented("h2", Mode::Live)).await {
        MeterOutcome::Allowed(a) => assert_eq!(a.api_requests, 3),
        other => panic!("{other:?}"),
    }
}

on_both_stores!(a_create_carrying_its_metering_writes_both_or_nothing);
/// `meter_and_create`: the count of the request and the create happen together or not at all.
/// A refusal by the operation (the plan's monthly allowance used up, the Idempotency-Key used,
/// with its record) writes nothing of it and counts the request alone; a refusal by the account
/// (a key not listed or revoked, the day's allowance used up) writes and counts nothing. The
/// monthly allowance is the plan the account has at the write.
pub(super) async fn a_create_carrying_its_metering_writes_both_or_nothing<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    let plan = |name: &str, month, day| Plan {
        name: name.into(),
        verifications_per_month: month,
        api_requests_per_day: day,
        api_access: true,
        sms_per_month: 0,
        key_burst: Default::default(),
    };
    let plans = Plans::new(vec![plan("tiny", 1, 6), plan("pro", 5, 6)]);
    for (hash, key_id) in [("h1", "key_h1"), ("h2", "key_h2")] {
        let record = ApiKeyRecord {
            key_id: key_id.into(),
            key_hash: hash.into(),
            account_id: ACCOUNT.into(),
            mode: Mode::Live,
            display_prefix: "tiv_live_acct".into(),
            created_at: now(),
            revoked_at: None,
        };
        store.put_api_key(&record).await.unwrap();
    }
    let presented = |hash: &str| PresentedKey {
        key_id: format!("key_{hash}"),
        key_hash: hash.into(),
        account_id: ACCOUNT.into(),
        mode: Mode::Live,
    };
    let claim = IdempotencyClaim {
        key_hash: "idem-key".into(),
        body_hash: "idem-body".into(),
    };
    let (store, plans) = (&store, &plans);
    let create = |hash: &'static str, idem: bool| {
        let v = pending(Mode::Live);
        let claim = claim.clone();
        async move {
            let key = presented(hash);
            let idem = idem.then_some(&claim);
            let out = Metered::<()>::of(
                store
                    .meter_and_create(&MeteredCreate {
                        key: &key,
                        now: now(),
                        plans,
                        verification: &v,
                        idempotency: idem,
                    })
                    .await,
            );
            let written = store.get_verification(v.verification_id).await.unwrap();
            assert_eq!(out.wrote(), written.is_some(), "both or nothing");
            out.map(|(a, ())| a.api_requests)
        }
    };
    let count = || async {
        store
            .get_account(ACCOUNT)
            .await
            .unwrap()
            .unwrap()
            .api_requests
    };
    // A read's count (the first request of the UTC day: `the_first_request_of_a_day_...`).
    assert!(matches!(
        store
            .meter_api_request(&presented("h1"), now(), plans)
            .await
            .unwrap(),
        MeterOutcome::Allowed(_)
    ));
    assert_eq!(count().await, 1);
    // Counted and created together, the Idempotency-Key claimed with them.
    assert_eq!(create("h1", true).await, Metered::Wrote(2));
    assert_eq!(count().await, 2);
    let month = domain::usage_month(now());
    let (_, used) = store
        .owner_stats(ACCOUNT, Mode::Live, &month)
        .await
        .unwrap();
    assert_eq!(used.created, 1);
    // The month's allowance of `tiny` (1) used up: told so, nothing created, the request counted.
    assert_eq!(create("h1", false).await, common::declined("LimitReached"));
    assert_eq!(count().await, 3);
    // On `pro` (5 a month) the same write allows it: the write reads the plan, not the caller.
    assert!(
        store
            .update_account(ACCOUNT, Some("pro"), None)
            .await
            .unwrap()
    );
    // The Idempotency-Key used: told so with its record, the request counted; a key not listed:
    // refused as unknown, not counted.
    assert_eq!(
        create("h1", true).await,
        common::declined("IdempotencyConflict")
    );
    let v = pending(Mode::Live);
    let replayed = store
        .meter_and_create(&MeteredCreate {
            key: &presented("h1"),
            now: now(),
            plans,
            verification: &v,
            idempotency: Some(&claim),
        })
        .await
        .unwrap();
    match replayed {
        ports::Metered::Refused(a, CreateRefusal::IdempotencyConflict(record)) => {
            assert_eq!(a.api_requests, 5);
            assert_eq!(record.body_hash, "idem-body");
            assert_ne!(record.verification_id, v.verification_id);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        create("h9", false).await,
        Metered::Refused("unknown_account")
    );
    assert_eq!(count().await, 5);
    // A revoked key: refused by the same write; the other key still counts.
    assert!(
        store
            .revoke_api_key(ACCOUNT, "key_h2", now())
            .await
            .unwrap()
    );
    assert_eq!(create("h2", false).await, Metered::Refused("key_revoked"));
    assert_eq!(create("h1", false).await, Metered::Wrote(6));
    // The day's allowance (6) used up: refused, nothing written.
    assert_eq!(
        create("h1", false).await,
        Metered::Refused("limit_exceeded")
    );
    assert_eq!(count().await, 6);
    let (_, used) = store
        .owner_stats(ACCOUNT, Mode::Live, &month)
        .await
        .unwrap();
    assert_eq!(used.created, 2);
}

on_both_stores!(a_cancel_carrying_its_metering_writes_both_or_nothing);
/// `meter_and_cancel`: the count and the cancel of the key's own open verification (pending or in
/// progress, one write either way) happen together or not at all; anything else leaves the
/// verification as it was and says why: another account's or mode's, or missing (not found); a
/// closed status or past its expiry (closed, with the verification as it is), the request then
/// counted alone; the day's allowance used up (refused, not counted).
pub(super) async fn a_cancel_carrying_its_metering_writes_both_or_nothing<S: Store>(store: S) {
    store.put_account(&account("tiny")).await.unwrap();
    let plans = Plans::new(vec![Plan {
        name: "tiny".into(),
        verifications_per_month: 10,
        api_requests_per_day: 8,
        api_access: true,
        sms_per_month: 0,
        key_burst: Default::default(),
    }]);
    let key = listed_key(&store, "key_h1").await;
    let (store, plans, key) = (&store, &plans, &key);
    let cancel = |id: uuid::Uuid, at: DateTime<Utc>| async move {
        Metered::<()>::of(
            store
                .meter_and_cancel(&MeteredCancel {
                    key,
                    now: at,
                    plans,
                    verification_id: id,
                })
                .await,
        )
        .map(|(a, ())| a.api_requests)
    };
    let count = || async {
        store
            .get_account(ACCOUNT)
            .await
            .unwrap()
            .unwrap()
            .api_requests
    };
    let created = |mode| async move {
        let v = pending(mode);
        store.create_verification(&v, None, None).await.unwrap();
        v
    };
    assert!(matches!(
        store.meter_api_request(key, now(), plans).await.unwrap(),
        MeterOutcome::Allowed(_)
    ));
    let open = created(Mode::Test).await;
    let live = created(Mode::Live).await;
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
    // Another mode's, a completed one, one past its expiry, one that does not exist: each told
    // why, nothing of it written, the request counted.
    let not_found = || common::declined("NotFound");
    assert_eq!(cancel(live.verification_id, now()).await, not_found());
    assert_eq!(
        cancel(done.verification_id, now()).await,
        common::declined("Closed")
    );
    assert_eq!(cancel(uuid::Uuid::new_v4(), now()).await, not_found());
    assert_eq!(count().await, 4);
    // The closed one comes back as it is.
    let told = store
        .meter_and_cancel(&MeteredCancel {
            key,
            now: now(),
            plans,
            verification_id: done.verification_id,
        })
        .await
        .unwrap();
    match told {
        ports::Metered::Refused(a, VerificationRefusal::Closed(v)) => {
            assert_eq!((a.api_requests, v.status), (5, Status::Completed));
        }
        other => panic!("{other:?}"),
    }
    // One in progress: counted and cancelled in the one write, its counter moved.
    assert_eq!(
        cancel(started.verification_id, now()).await,
        Metered::Wrote(6)
    );
    let stopped = store
        .get_verification(started.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stopped.status, stopped.cancelled_at),
        (Status::Expired, Some(now()))
    );
    // The key's own pending one: counted and cancelled together, counters moved.
    assert_eq!(cancel(open.verification_id, now()).await, Metered::Wrote(7));
    let after = store
        .get_verification(open.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.status, Status::Expired);
    assert_eq!(after.cancelled_at, Some(now()));
    let month = domain::usage_month(now());
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!(
        (stats.total, stats.open, stats.expired, stats.completed),
        (3, 0, 2, 1)
    );
    // Cancelled already: told closed, counted.
    assert_eq!(
        cancel(open.verification_id, now()).await,
        common::declined("Closed")
    );
    // The day's allowance used up: nothing, even for a pending one (cancelled already or not).
    let another = created(Mode::Test).await;
    assert_eq!(
        cancel(open.verification_id, now()).await,
        Metered::Refused("limit_exceeded")
    );
    assert_eq!(
        cancel(another.verification_id, now()).await,
        Metered::Refused("limit_exceeded")
    );
    let still = store
        .get_verification(another.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(still.status, Status::Pending);
    assert_eq!(count().await, 8);
    // Past its expiry (a later UTC day, with an allowance of its own): closed, counted.
    assert_eq!(
        cancel(another.verification_id, another.expires_at).await,
        common::declined("Closed")
    );
    assert_eq!(count().await, 1);
}

on_both_stores!(a_cancel_carrying_its_metering_races_the_tenant_start_and_always_applies);
/// The one-write cancel and the tenant's start of the same pending verification, at once: the
/// start is conditional on `pending`, the cancel on either open status. So the cancel always
/// applies (after the start, or before it, and then the start is refused: a cancelled
/// verification is never started), and the counters follow: every one ends cancelled.
pub(super) async fn a_cancel_carrying_its_metering_races_the_tenant_start_and_always_applies<
    S: Store,
>(
    store: S,
) {
    let (key, plans) = metered_pro_key(&store).await;
    for _ in 0..5 {
        let v = pending(Mode::Test);
        store.create_verification(&v, None, None).await.unwrap();
        let cancel = MeteredCancel {
            key: &key,
            now: now(),
            plans: &plans,
            verification_id: v.verification_id,
        };
        let (cancelled, started) = futures::join!(
            store.meter_and_cancel(&cancel),
            store.transition(&v, &Transition::Start, now())
        );
        assert!(
            matches!(cancelled.unwrap(), ports::Metered::Done(..)),
            "the cancel applies"
        );
        let started = matches!(started.unwrap(), TransitionOutcome::Applied(_));
        let stored = store
            .get_verification(v.verification_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (stored.status, stored.cancelled_at),
            (Status::Expired, Some(now()))
        );
        // A start that applied came first (it set `started_at`); one refused wrote nothing.
        assert_eq!(stored.started_at.is_some(), started);
    }
    let month = domain::usage_month(now());
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!((stats.total, stats.open, stats.expired), (5, 0, 5));
}

on_both_stores!(a_cancel_carrying_its_metering_races_the_tenant_completion_with_one_winner);
/// The one-write cancel of a verification in progress and the tenant's completion of it, at once:
/// both are conditional on an open status, so exactly one is applied and the counters follow the
/// winner.
pub(super) async fn a_cancel_carrying_its_metering_races_the_tenant_completion_with_one_winner<
    S: Store,
>(
    store: S,
) {
    let (key, plans) = metered_pro_key(&store).await;
    let mut winners = (0u64, 0u64);
    for _ in 0..5 {
        let v = pending(Mode::Test);
        store.create_verification(&v, None, None).await.unwrap();
        let TransitionOutcome::Applied(v) = store
            .transition(&v, &Transition::Start, now())
            .await
            .unwrap()
        else {
            panic!("the start applies");
        };
        let cancel = MeteredCancel {
            key: &key,
            now: now(),
            plans: &plans,
            verification_id: v.verification_id,
        };
        let complete = Transition::Complete {
            report: Box::new(IncomeReport::empty_for_tests()),
        };
        let (cancelled, completed) = futures::join!(
            store.meter_and_cancel(&cancel),
            store.transition(&v, &complete, now())
        );
        let cancelled = matches!(cancelled.unwrap(), ports::Metered::Done(..));
        let completed = matches!(completed.unwrap(), TransitionOutcome::Applied(_));
        assert!(
            cancelled != completed,
            "exactly one wins: cancel {cancelled}, complete {completed}"
        );
        let stored = store
            .get_verification(v.verification_id)
            .await
            .unwrap()
            .unwrap();
        let expected = if cancelled {
            winners.0 += 1;
            Status::Expired
        } else {
            winners.1 += 1;
            Status::Completed
        };
        assert_eq!(stored.status, expected);
    }
    let month = domain::usage_month(now());
    let (stats, _) = store
        .owner_stats(ACCOUNT, Mode::Test, &month)
        .await
        .unwrap();
    assert_eq!(
        (stats.open, stats.expired, stats.completed),
        (0, winners.0, winners.1)
    );
}
