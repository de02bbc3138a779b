//! Conditional writes that refuse, the e-mail claim, and the counters that move with the writes.

use super::*;

on_both_stores!(conditional_writes_refuse);
pub(super) async fn conditional_writes_refuse<S: Store>(store: S) {
    store.put_account(&account("pro")).await.unwrap();
    // An account or a verification is never overwritten.
    assert!(store.put_account(&account("business")).await.is_err());
    let v = pending(Mode::Live);
    store.create_verification(&v, None, None).await.unwrap();
    assert!(store.create_verification(&v, None, None).await.is_err());

    // An Idempotency-Key is claimed once.
    let claim = IdempotencyClaim {
        key_hash: "idem".into(),
        body_hash: "body".into(),
    };
    let first = pending(Mode::Test);
    let second = pending(Mode::Test);
    let outcome = store.create_verification(&first, Some(&claim), None).await;
    assert_eq!(outcome.unwrap(), CreateOutcome::Created);
    match store
        .create_verification(&second, Some(&claim), None)
        .await
        .unwrap()
    {
        CreateOutcome::IdempotencyConflict(record) => {
            assert_eq!(record.verification_id, first.verification_id)
        }
        other => panic!("{other:?}"),
    }
    assert!(
        store
            .get_verification(second.verification_id)
            .await
            .unwrap()
            .is_none()
    );

    // A transition from a status that is no longer stored loses, and sees the fresh state.
    let started = match store
        .transition(&v, &Transition::Start, now())
        .await
        .unwrap()
    {
        TransitionOutcome::Applied(started) => started,
        other => panic!("{other:?}"),
    };
    match store
        .transition(&v, &Transition::Cancel, now())
        .await
        .unwrap()
    {
        TransitionOutcome::Conflict(Some(fresh)) => assert_eq!(fresh.status, Status::InProgress),
        other => panic!("{other:?}"),
    }
    // A consent records its provider user once; a second one is refused.
    let consent = |user: &str| Transition::Consent {
        version: "v1".into(),
        provider_user: Some(user.into()),
        methods: vec![],
    };
    let outcome = store
        .transition(&started, &consent("user-1"), now())
        .await
        .unwrap();
    assert!(
        matches!(outcome, TransitionOutcome::Applied(_)),
        "{outcome:?}"
    );
    match store
        .transition(&started, &consent("user-2"), now())
        .await
        .unwrap()
    {
        TransitionOutcome::Conflict(Some(fresh)) => {
            assert_eq!(fresh.provider_user.as_deref(), Some("user-1"))
        }
        other => panic!("{other:?}"),
    }
    // Only the fields the transition sets are written: a token bound since the read survives.
    assert_eq!(
        store
            .add_recent_link_token(&started, "mail-token-hash", 3)
            .await
            .unwrap(),
        LinkTokenOutcome::Added
    );
    let report = IncomeReport::empty_for_tests();
    let complete = Transition::Complete {
        report: Box::new(report),
    };
    let outcome = store.transition(&started, &complete, now()).await.unwrap();
    assert!(
        matches!(outcome, TransitionOutcome::Applied(_)),
        "{outcome:?}"
    );
    let stored = store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, Status::Completed);
    assert_eq!(stored.provider_user.as_deref(), Some("user-1"));
    assert!(stored.token_hashes.contains(&"mail-token-hash".to_string()));
    // Consent is recorded only on an open verification.
    let late = Transition::Consent {
        version: "v1".into(),
        provider_user: None,
        methods: vec![],
    };
    assert!(matches!(
        store.transition(&stored, &late, now()).await.unwrap(),
        TransitionOutcome::Conflict(_)
    ));
    // A link token cannot be bound to a verification that does not exist.
    let missing = pending(Mode::Test);
    assert_eq!(
        store.add_recent_link_token(&missing, "x", 3).await.unwrap(),
        LinkTokenOutcome::NotFound
    );
    let absent = missing.verification_id;
    let start = store.claim_message(absent, &INVITE, "x", now()).await;
    assert_eq!(start.unwrap(), ClaimStart::Closed);

    // The tenant e-mail is claimed by one sender; its outcome is kept for good. (`v` is
    // completed by now and the claim binds only while pending: a fresh one is mailed.)
    let mailed = pending(Mode::Live);
    store
        .create_verification(&mailed, None, None)
        .await
        .unwrap();
    let id = mailed.verification_id;
    let claim = |id, hash: &'static str, at| store.claim_message(id, &INVITE, hash, at);
    assert_eq!(
        claim(id, "mail-1", now()).await.unwrap(),
        ClaimStart::Claimed
    );
    assert_eq!(
        claim(id, "mail-2", now()).await.unwrap(),
        ClaimStart::Refused(MessageClaim::Held)
    );
    let after_lease = now() + MESSAGE_LEASE + Duration::seconds(2);
    assert_eq!(
        claim(id, "mail-3", after_lease).await.unwrap(),
        ClaimStart::Claimed
    );
    store.mark_message_sent(id, &INVITE, now()).await.unwrap();
    assert_eq!(
        claim(id, "mail-4", after_lease).await.unwrap(),
        ClaimStart::Refused(MessageClaim::Sent)
    );
    assert!(store.release_message(id, &INVITE).await.is_err());
    let other = first.verification_id;
    assert_eq!(
        claim(other, "mail-5", now()).await.unwrap(),
        ClaimStart::Claimed
    );
    store.release_message(other, &INVITE).await.unwrap();
    assert_eq!(
        claim(other, "mail-6", now()).await.unwrap(),
        ClaimStart::Claimed
    );
    store
        .mark_message_rejected(other, &INVITE, "bounced")
        .await
        .unwrap();
    assert_eq!(
        claim(other, "mail-7", now()).await.unwrap(),
        ClaimStart::Refused(MessageClaim::Rejected("bounced".into()))
    );
}

on_both_stores!(the_e_mail_claim_binds_its_token_only_while_pending);
pub(super) async fn the_e_mail_claim_binds_its_token_only_while_pending<S: Store>(store: S) {
    let v = pending(Mode::Live);
    let id = v.verification_id;
    store.create_verification(&v, None, None).await.unwrap();
    // The create response's tokens, and the e-mail's link.
    let tokens = |v: Option<Verification>| {
        let v = v.unwrap();
        let mail = v.message_links.get("invite_email").cloned();
        (v.token_hashes, mail)
    };
    let first = vec!["first-token-hash".to_string()];

    // Claimed: the claim and the token, together.
    let start = store.claim_message(id, &INVITE, "mail-1", now()).await;
    assert_eq!(start.unwrap(), ClaimStart::Claimed);
    let bound = tokens(store.get_verification(id).await.unwrap());
    assert_eq!(bound, (first.clone(), Some("mail-1".to_string())));
    // Held: neither (no token bound for an e-mail that is not sent by this attempt).
    let start = store.claim_message(id, &INVITE, "mail-2", now()).await;
    assert_eq!(start.unwrap(), ClaimStart::Refused(MessageClaim::Held));
    assert_eq!(tokens(store.get_verification(id).await.unwrap()), bound);
    // Held for the whole lease, not only at the instant it was taken.
    let within_lease = now() + MESSAGE_LEASE - Duration::seconds(1);
    let start = store
        .claim_message(id, &INVITE, "mail-2", within_lease)
        .await;
    assert_eq!(start.unwrap(), ClaimStart::Refused(MessageClaim::Held));
    assert_eq!(tokens(store.get_verification(id).await.unwrap()), bound);
    let after_lease = now() + MESSAGE_LEASE + Duration::seconds(2);
    let start = store
        .claim_message(id, &INVITE, "mail-3", after_lease)
        .await;
    assert_eq!(start.unwrap(), ClaimStart::Claimed);
    store
        .mark_message_sent(id, &INVITE, after_lease)
        .await
        .unwrap();
    let start = store
        .claim_message(id, &INVITE, "mail-4", after_lease)
        .await;
    assert_eq!(start.unwrap(), ClaimStart::Refused(MessageClaim::Sent));
    // The attempt that took over bound its link in place of the crashed one's: nothing grows.
    let bound = tokens(store.get_verification(id).await.unwrap());
    assert_eq!(bound, (first, Some("mail-3".to_string())));

    // Rejected for good, the verification still pending: the caller fails it.
    let rejected = pending(Mode::Live);
    store
        .create_verification(&rejected, None, None)
        .await
        .unwrap();
    let rid = rejected.verification_id;
    let start = store.claim_message(rid, &INVITE, "mail-r", now()).await;
    assert_eq!(start.unwrap(), ClaimStart::Claimed);
    store
        .mark_message_rejected(rid, &INVITE, "bounced")
        .await
        .unwrap();
    let start = store.claim_message(rid, &INVITE, "mail", now()).await;
    assert_eq!(
        start.unwrap(),
        ClaimStart::Refused(MessageClaim::Rejected("bounced".into()))
    );

    // Not pending (cancelled, past its expiry, or absent): nothing is written, not even a claim.
    let cancelled = pending(Mode::Live);
    store
        .create_verification(&cancelled, None, None)
        .await
        .unwrap();
    let cid = cancelled.verification_id;
    let outcome = store
        .transition(&cancelled, &Transition::Cancel, now())
        .await
        .unwrap();
    assert!(matches!(outcome, TransitionOutcome::Applied(_)));
    let start = store.claim_message(cid, &INVITE, "mail", now()).await;
    assert_eq!(start.unwrap(), ClaimStart::Closed);
    assert!(
        store.release_message(cid, &INVITE).await.is_err(),
        "no claim was left behind"
    );
    let expired = pending(Mode::Live);
    store
        .create_verification(&expired, None, None)
        .await
        .unwrap();
    let start = store
        .claim_message(expired.verification_id, &INVITE, "mail", expired.expires_at)
        .await;
    assert_eq!(start.unwrap(), ClaimStart::Closed);
    let unchanged = tokens(
        store
            .get_verification(expired.verification_id)
            .await
            .unwrap(),
    );
    assert_eq!(unchanged, (vec!["first-token-hash".to_string()], None));
    let absent = pending(Mode::Live).verification_id;
    let start = store.claim_message(absent, &INVITE, "mail", now()).await;
    assert_eq!(start.unwrap(), ClaimStart::Closed);
}

on_both_stores!(counters_move_with_the_writes);
pub(super) async fn counters_move_with_the_writes<S: Store>(store: S) {
    store.put_account(&account("pro")).await.unwrap();
    let month = "2026-03";
    let mut created = Vec::new();
    for _ in 0..2 {
        let v = pending(Mode::Live);
        let outcome = store.create_verification(&v, None, Some(2)).await.unwrap();
        assert_eq!(outcome, CreateOutcome::Created);
        created.push(v);
    }
    let over = store
        .create_verification(&pending(Mode::Live), None, Some(2))
        .await;
    assert_eq!(over.unwrap(), CreateOutcome::LimitReached);
    let (stats, usage) = store.owner_stats(ACCOUNT, Mode::Live, month).await.unwrap();
    assert_eq!((stats.total, stats.open, usage.created), (2, 2, 2));

    let report = IncomeReport::empty_for_tests();
    store
        .transition(
            &created[0],
            &Transition::Complete {
                report: Box::new(report),
            },
            now(),
        )
        .await
        .unwrap();
    let refund = Transition::FailRefunded {
        reason: "email_undeliverable".into(),
    };
    store.transition(&created[1], &refund, now()).await.unwrap();
    let (stats, usage) = store.owner_stats(ACCOUNT, Mode::Live, month).await.unwrap();
    assert_eq!(
        (stats.total, stats.open, stats.completed, stats.failed),
        (2, 0, 1, 1)
    );
    assert_eq!((usage.created, usage.completed), (1, 1));
    // The refund gave one back: the month's allowance has room again.
    let again = store
        .create_verification(&pending(Mode::Live), None, Some(2))
        .await;
    assert_eq!(again.unwrap(), CreateOutcome::Created);
    // Test mode has its own counters.
    let (test_stats, _) = store.owner_stats(ACCOUNT, Mode::Test, month).await.unwrap();
    assert_eq!(test_stats.total, 0);
}

on_both_stores!(an_attempt_is_recorded_once_on_the_attempts_it_read);
pub(super) async fn an_attempt_is_recorded_once_on_the_attempts_it_read<S: Store>(store: S) {
    use domain::income::VerificationMethod;
    use domain::methods::{AttemptOutcome, MethodAttempt};
    store.put_account(&account("pro")).await.unwrap();
    let v = pending(Mode::Test);
    store.create_verification(&v, None, None).await.unwrap();
    let attempt = |method, outcome| Transition::Attempt {
        attempt: MethodAttempt {
            method,
            outcome,
            at: now(),
        },
    };
    // Only an in-progress verification takes an attempt.
    let bank_failed = attempt(VerificationMethod::Bank, AttemptOutcome::Failed);
    assert!(matches!(
        store.transition(&v, &bank_failed, now()).await.unwrap(),
        TransitionOutcome::Conflict(_)
    ));
    let TransitionOutcome::Applied(started) = store
        .transition(&v, &Transition::Start, now())
        .await
        .unwrap()
    else {
        panic!("start")
    };
    // Two tries recorded at once from the same read (two tabs): exactly one is kept.
    let payroll_left = attempt(VerificationMethod::Payroll, AttemptOutcome::Abandoned);
    let (a, b) = tokio::join!(
        store.transition(&started, &bank_failed, now()),
        store.transition(&started, &payroll_left, now()),
    );
    let applied = [a.unwrap(), b.unwrap()]
        .iter()
        .filter(|o| matches!(o, TransitionOutcome::Applied(_)))
        .count();
    assert_eq!(applied, 1);
    let stored = store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.method_attempts.len(), 1);
    assert_eq!(stored.status, Status::InProgress);
    // The next try reads the one recorded, and adds to it.
    let next = attempt(VerificationMethod::Document, AttemptOutcome::NoIncome);
    assert!(matches!(
        store.transition(&stored, &next, now()).await.unwrap(),
        TransitionOutcome::Applied(_)
    ));
    let stored = store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.method_attempts.len(), 2);
    assert_eq!(
        stored.method_attempts[1],
        MethodAttempt {
            method: VerificationMethod::Document,
            outcome: AttemptOutcome::NoIncome,
            at: stored.method_attempts[1].at,
        }
    );
}

on_both_stores!(a_hold_and_a_completion_from_one_read_have_one_winner);
pub(super) async fn a_hold_and_a_completion_from_one_read_have_one_winner<S: Store>(store: S) {
    use domain::income::VerificationMethod;
    use domain::methods::{AttemptOutcome, MethodAttempt};
    use domain::report::build_report;
    use service::sandbox::scenario_income;
    store.put_account(&account("pro")).await.unwrap();
    let v = pending(Mode::Test);
    store.create_verification(&v, None, None).await.unwrap();
    let TransitionOutcome::Applied(started) = store
        .transition(&v, &Transition::Start, now())
        .await
        .unwrap()
    else {
        panic!("start")
    };
    let income = scenario_income("samejob", now().date_naive()).unwrap();
    let hold = Transition::Hold {
        attempt: MethodAttempt {
            method: VerificationMethod::Bank,
            outcome: AttemptOutcome::Succeeded,
            at: now(),
        },
        income: Box::new(income.clone()),
    };
    let complete = Transition::Complete {
        report: Box::new(build_report(&income, None)),
    };
    // Two tabs from the same read: one holds its income, the other completes without it.
    let (a, b) = tokio::join!(
        store.transition(&started, &hold, now()),
        store.transition(&started, &complete, now()),
    );
    let applied = [a.unwrap(), b.unwrap()]
        .iter()
        .filter(|o| matches!(o, TransitionOutcome::Applied(_)))
        .count();
    assert_eq!(applied, 1);
    let stored = store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    match stored.status {
        // The hold won: its income is stored, and a completion must read it first.
        Status::InProgress => {
            assert_eq!(stored.held_income, Some(income));
            assert_eq!(stored.method_attempts.len(), 1);
            assert!(matches!(
                store.transition(&started, &complete, now()).await.unwrap(),
                TransitionOutcome::Conflict(_)
            ));
            assert!(matches!(
                store.transition(&stored, &complete, now()).await.unwrap(),
                TransitionOutcome::Applied(_)
            ));
        }
        status => {
            assert_eq!(status, Status::Completed);
            assert!(stored.held_income.is_none());
        }
    }
}

// An analysis still in flight when its verification is erased (open but past its expiry, so
// the erasure took it) writes nothing back: the erased item keeps no document's figures.
on_both_stores!(an_erased_verification_takes_no_document);
pub(super) async fn an_erased_verification_takes_no_document<S: Store + ports::DocumentStore>(
    store: S,
) {
    store.put_account(&account("pro")).await.unwrap();
    let v = pending(Mode::Test);
    store.create_verification(&v, None, None).await.unwrap();
    let TransitionOutcome::Applied(started) = store
        .transition(&v, &Transition::Start, now())
        .await
        .unwrap()
    else {
        panic!("started")
    };
    let later = started.expires_at + Duration::hours(1);
    let erased = store
        .erase_verification(v.verification_id, later)
        .await
        .unwrap();
    assert!(
        matches!(erased, ports::ErasureOutcome::Erased(_)),
        "{erased:?}"
    );
    // The analysis reads afresh, then records what it found: refused.
    let read = (store.get_verification(v.verification_id).await.unwrap()).unwrap();
    assert_eq!(
        read.status,
        Status::InProgress,
        "the expiry has not marked it yet"
    );
    let record = domain::documents::record::DocumentRecord::arrived(1, "etag", 10, later);
    assert!(!store.put_document(&read, "d1", &record).await.unwrap());
    let after = (store.get_verification(v.verification_id).await.unwrap()).unwrap();
    assert!(after.documents.is_empty());
}
