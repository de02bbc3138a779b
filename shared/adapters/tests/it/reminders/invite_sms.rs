//! The outbox's invite SMS and reminder schedules: retried from the queue, sent once per round, never dropped.

use super::*;

#[tokio::test]
async fn a_failed_schedule_goes_to_the_retry_queue_and_the_batch_goes_on_without_redoing_work() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    // Another verification of the batch, cancelled: its webhook must not wait on the schedule.
    let other = Verification::new_pending(
        ACCOUNT,
        Mode::Live,
        without_phone(),
        created(),
        VERIFICATION_LIFETIME,
    );
    deps.store
        .create_verification(&other, None, None)
        .await
        .unwrap();
    let mut cancelled = other.clone();
    cancelled.status = Status::Expired;
    cancelled.cancelled_at = Some(created());
    let retries = Outbox::default();
    let publisher = outbox_deps(&deps, &outbox, &retries);
    *outbox.failing_schedules.lock().unwrap() = 1;
    let response = publish(
        &publisher,
        vec![
            insert_record(&v, "1"),
            modify_record(&other, &cancelled, "2"),
        ],
    )
    .await;
    assert!(
        response.batch_item_failures.is_empty(),
        "acknowledged: the failed schedule waits on the retry queue"
    );
    assert_eq!(waiting_work(&retries), vec!["reminder_schedules"]);
    // Everything else of the batch is done: the e-mail, the SMS, the other's webhook.
    assert_eq!((outbox.emails(), outbox.sms()), (1, 1));
    assert_eq!(webhook_ids(&outbox).len(), 1);
    assert!(outbox.schedules.lock().unwrap().is_empty());
    // The retry creates both schedules; nothing that went out is done again.
    assert_eq!(retry_pass(&publisher, &retries).await, 1);
    assert!(waiting_work(&retries).is_empty());
    assert_eq!(outbox.schedules.lock().unwrap().len(), 2);
    assert_eq!((outbox.emails(), outbox.sms()), (1, 1));
    assert_eq!(webhook_ids(&outbox).len(), 1);
}

#[tokio::test]
async fn a_transient_sms_failure_of_the_invite_is_retried_from_the_queue_without_a_second_text() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    let retries = Outbox::default();
    let publisher = outbox_deps(&deps, &outbox, &retries);
    *outbox.failing_sms.lock().unwrap() = 3;
    let response = publish(&publisher, vec![insert_record(&v, "1")]).await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(waiting_work(&retries), vec!["invite_sms"]);
    assert_eq!(outbox.sms(), 0);
    assert_eq!(
        (outbox.emails(), outbox.schedules.lock().unwrap().len()),
        (1, 2)
    );
    // Two retries fail too and wait on; the third texts.
    for _ in 0..2 {
        retry_pass(&publisher, &retries).await;
        assert_eq!(waiting_work(&retries), vec!["invite_sms"]);
    }
    retry_pass(&publisher, &retries).await;
    assert!(waiting_work(&retries).is_empty());
    // A redelivered record and a stray retry text nothing more.
    publish(&publisher, vec![insert_record(&v, "2")]).await;
    assert_eq!(outbox.sms(), 1);
    assert_eq!(outbox.emails(), 1);
    let stored = deps.store.get_verification(v.verification_id).await;
    let stored = stored.unwrap().unwrap();
    let sms = outbox.sms.lock().unwrap()[0].clone();
    assert_eq!(
        stored.message_links.get("invite_sms"),
        Some(&link_hash(&sms.text)),
        "the link that went out is the one bound"
    );
    assert_eq!(stored.message_links.len(), 2, "the e-mail's and the SMS's");
}

#[tokio::test]
async fn a_resent_invite_is_texted_once_per_round_and_other_changes_text_nothing() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    let retries = Outbox::default();
    let publisher = outbox_deps(&deps, &outbox, &retries);
    publish(&publisher, vec![insert_record(&v, "0")]).await;
    assert_eq!(outbox.sms(), 1, "the first invite");
    // A change that is not a resend (the tenant started) texts nothing.
    let mut started = v.clone();
    started.status = Status::InProgress;
    let response = publish(&publisher, vec![modify_record(&v, &started, "1")]).await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(outbox.sms(), 1);
    // Round 1, its record delivered twice: one text with a fresh link.
    let mut resent = v.clone();
    resent.invite_round = 1;
    let round_one = || {
        vec![
            modify_record(&v, &resent, "2"),
            modify_record(&v, &resent, "3"),
        ]
    };
    for _ in 0..2 {
        let response = publish(&publisher, round_one()).await;
        assert!(response.batch_item_failures.is_empty());
    }
    assert!(waiting_work(&retries).is_empty());
    let sms = outbox.sms.lock().unwrap().clone();
    assert_eq!(
        sms.len(),
        2,
        "one more text for the resend, however often its record comes"
    );
    assert_ne!(sms[0].text, sms[1].text, "the resend carries its own link");
    assert!(
        sms[1]
            .text
            .starts_with("Acme Rentals asks you to verify your income for 12 Elm St: ")
    );
    assert!(sms[1].text.ends_with("Reply STOP to opt out."));
    // Both links open the verification, each bound as its own message's.
    let stored = deps.store.get_verification(v.verification_id).await;
    let stored = stored.unwrap().unwrap();
    assert_eq!(
        stored.message_links.get("resent_1_sms"),
        Some(&link_hash(&sms[1].text))
    );
    assert!(stored.binds_link(&link_hash(&sms[0].text)));
    // Round 2 is texted too; a closed verification's round is not.
    let mut second = resent.clone();
    second.invite_round = 2;
    publish(&publisher, vec![modify_record(&resent, &second, "4")]).await;
    assert_eq!(outbox.sms(), 3);
    deps.store
        .transition(&v, &Transition::Cancel, created())
        .await
        .unwrap();
    let mut third = second.clone();
    third.invite_round = 3;
    publish(&publisher, vec![modify_record(&second, &third, "5")]).await;
    assert_eq!(outbox.sms(), 3, "nothing after cancellation");
    assert!(waiting_work(&retries).is_empty());
}

#[tokio::test]
async fn an_sms_whose_claim_was_not_given_back_waits_for_its_lease_and_is_not_dropped() {
    let (deps, outbox, v) = setup(with_phone(), Mode::Live).await;
    let retries = Outbox::default();
    let faults = ArmedFaults::default();
    let plain = outbox_deps(&deps, &outbox, &retries);
    let publisher = OutboxDeps {
        store: FaultyStore {
            inner: deps.store.clone(),
            faults: faults.clone(),
        },
        mailer: plain.mailer,
        texter: plain.texter,
        scheduler: plain.scheduler,
        queue: plain.queue,
        retry_queue: plain.retry_queue,
        provider: plain.provider,
        clock: plain.clock,
        public_base_url: plain.public_base_url,
        test_mode_delivery: plain.test_mode_delivery,
        reminder_offsets: plain.reminder_offsets,
        retry_backoff: plain.retry_backoff,
        sms: plain.sms,
    };
    // SNS fails once, and the claim cannot be given back: its lease stays live five minutes.
    *outbox.failing_sms.lock().unwrap() = 1;
    faults.down(StoreOp::ReleaseMessage);
    let response = publish(&publisher, vec![insert_record(&v, "1")]).await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(waiting_work(&retries), vec!["invite_sms"]);
    // The first retry comes within the lease: not done, so the piece waits on.
    deps.clock.advance(Duration::minutes(1));
    retry_pass(&publisher, &retries).await;
    assert_eq!(
        waiting_work(&retries),
        vec!["invite_sms"],
        "held is not done"
    );
    assert_eq!(outbox.sms(), 0);
    // After the lease, the retry takes the claim over and texts, once.
    deps.clock.advance(MESSAGE_LEASE);
    retry_pass(&publisher, &retries).await;
    assert!(waiting_work(&retries).is_empty());
    assert_eq!(outbox.sms(), 1);
    publish(&publisher, vec![insert_record(&v, "2")]).await;
    assert_eq!(outbox.sms(), 1);
    assert!(waiting_work(&retries).is_empty());
}
