use super::*;

#[test]
fn object_keys_round_trip_and_nothing_else_parses() {
    let id = Uuid::new_v4();
    let key = object_key(id, "d0c1");
    assert_eq!(parse_object_key(&key), Some((id, "d0c1".to_string())));
    for bad in [
        "uploads/x/d1",
        "other/0b3f1c2e-5d4a-4e8b-9c7d-1a2b3c4d5e6f/d1",
        "uploads/0b3f1c2e-5d4a-4e8b-9c7d-1a2b3c4d5e6f/",
        "uploads/0b3f1c2e-5d4a-4e8b-9c7d-1a2b3c4d5e6f/a/b",
    ] {
        assert_eq!(parse_object_key(bad), None, "{bad}");
    }
}

fn analysed(number: u32, verdict: Verdict) -> DocumentRecord {
    let mut d = DocumentRecord::arrived(number, "e", 1, Utc::now());
    d.state = DocumentState::Analysed;
    d.analysis = Some(Analysis {
        kind: DocumentKind::BenefitLetter,
        verdict,
        reason: None,
        pages: 1,
        fields: Fields::None,
        checks: vec![],
    });
    d
}

#[test]
fn review_is_needed_for_any_document_that_is_not_clean() {
    let clean = analysed_set(&[analysed(1, Verdict::Clean)], None);
    assert!(!report_documents(&clean, [], false).1);
    let edited = analysed_set(
        &[analysed(1, Verdict::Clean), analysed(2, Verdict::Edited)],
        None,
    );
    let (docs, review) = report_documents(&edited, [], true);
    assert!(review);
    assert!(
        !docs[1].counted && !docs[1].awaiting_review,
        "edited never counts"
    );
    assert_eq!(
        docs[1].summary,
        "Document 2 (benefit letter): signs of editing found (); not counted."
    );
    assert_eq!(
        docs[0].summary,
        "Document 1 (benefit letter): no sign of editing found."
    );
    for verdict in [Verdict::Undetermined, Verdict::Inconsistent] {
        let set = analysed_set(&[analysed(1, verdict)], None);
        let (docs, review) = report_documents(&set, [], false);
        assert!(review);
        assert!(!docs[0].counted && docs[0].awaiting_review);
        assert!(
            docs[0]
                .summary
                .ends_with("counted once the landlord accepts it.")
        );
        let (docs, _) = report_documents(&set, [], true);
        assert!(docs[0].counted && !docs[0].awaiting_review);
    }
    let mut typed = analysed(1, Verdict::Clean);
    typed.stated = Some(StatedPay {
        pay_date: NaiveDate::from_ymd_opt(2026, 10, 31).unwrap(),
        gross_cents: 250_000,
        net_cents: 190_000,
        pay_frequency: PayFrequency::Biweekly,
    });
    let (docs, review) = report_documents(&analysed_set([&typed], None), [], false);
    assert!(review && docs[0].awaiting_review && !docs[0].counted);
}

#[test]
fn finishing_waits_for_every_analysis_and_every_photo_s_figures() {
    let none: Vec<DocumentRecord> = vec![];
    assert!(ready_to_finish(&none).is_err());
    let waiting = DocumentRecord::arrived(1, "e", 1, Utc::now());
    assert!(
        ready_to_finish([&waiting])
            .unwrap_err()
            .contains("being checked")
    );
    let mut photo = analysed(1, Verdict::Undetermined);
    photo.analysis.as_mut().unwrap().kind = DocumentKind::Photo;
    assert!(ready_to_finish([&photo]).unwrap_err().contains("type"));
    photo.stated = Some(StatedPay {
        pay_date: NaiveDate::from_ymd_opt(2026, 10, 31).unwrap(),
        gross_cents: 250_000,
        net_cents: 190_000,
        pay_frequency: PayFrequency::Biweekly,
    });
    assert!(ready_to_finish([&photo]).is_ok());
    let mut refused = DocumentRecord::arrived(2, "e", 1, Utc::now());
    refused.state = DocumentState::Refused;
    assert!(ready_to_finish([&photo, &refused]).is_ok());
}

mod properties {
    use proptest::prelude::*;

    use super::*;
    use crate::documents::any_verdict;

    fn typed() -> StatedPay {
        StatedPay {
            pay_date: NaiveDate::from_ymd_opt(2026, 10, 31).unwrap(),
            gross_cents: 250_000,
            net_cents: 190_000,
            pay_frequency: PayFrequency::Biweekly,
        }
    }

    proptest! {
        /// Clean figures read from the document count at once; edited ones never, accepted or
        /// not; everything else (inconsistent, undetermined, typed) exactly when accepted.
        #[test]
        fn what_counts_follows_the_verdict_and_the_acceptance(
            v in any_verdict(), stated: bool, accepted: bool,
        ) {
            let rule = counting(v, stated);
            prop_assert_eq!(rule == Counting::Never, v == Verdict::Edited);
            prop_assert_eq!(rule == Counting::Now, v == Verdict::Clean && !stated);
            let counts = counts_in_report(v, stated, accepted);
            match rule {
                Counting::Now => prop_assert!(counts),
                Counting::Never => prop_assert!(!counts),
                Counting::AfterReview => prop_assert_eq!(counts, accepted),
            }
            // An acceptance only ever adds what counts.
            prop_assert!(!counts_in_report(v, stated, false) || counts_in_report(v, stated, true));
        }

        /// In any set, a document either counts or awaits the review or is edited, exactly one
        /// of them; an acceptance leaves nothing awaiting; a review is needed exactly when some
        /// document does not count at once, accepted or not.
        #[test]
        fn a_set_s_documents_count_await_or_are_edited(
            docs in proptest::collection::vec((any_verdict(), any::<bool>()), 1..6),
        ) {
            let records: Vec<DocumentRecord> = (docs.iter().enumerate())
                .map(|(i, (v, stated))| {
                    let mut d = analysed(i as u32 + 1, *v);
                    d.stated = stated.then(typed);
                    d
                })
                .collect();
            let set = analysed_set(&records, None);
            let (before, review_before) = report_documents(&set, &records, false);
            let (after, review_after) = report_documents(&set, &records, true);
            prop_assert_eq!(review_before, review_after);
            prop_assert_eq!(
                review_before,
                docs.iter().any(|(v, s)| *v != Verdict::Clean || *s)
            );
            for (d, ((v, stated), a)) in before.iter().zip(docs.iter().zip(&after)) {
                let edited = *v == Verdict::Edited;
                prop_assert_eq!(
                    [d.counted, d.awaiting_review, edited].iter().filter(|x| **x).count(),
                    1,
                    "{:?}", d
                );
                prop_assert_eq!(d.counted, *v == Verdict::Clean && !stated);
                prop_assert_eq!(d.stated_by_tenant, *stated);
                prop_assert!(!a.awaiting_review);
                prop_assert_eq!(a.counted, !edited);
                prop_assert_eq!(
                    d.summary.ends_with("counted once the landlord accepts it."),
                    d.awaiting_review
                );
            }
        }
    }
}

mod trace {
    use proptest::prelude::*;

    use super::*;
    use crate::documents::any_verdict;

    proptest! {
        /// However many times a form is posted, the last upload keeps every earlier one, oldest
        /// first, each with its own verdict and version, and finds each by its version.
        #[test]
        fn a_chain_of_replacements_keeps_every_upload_with_its_verdict(
            verdicts in proptest::collection::vec(any_verdict(), 1..12),
        ) {
            let mut current: Option<DocumentRecord> = None;
            for (i, verdict) in verdicts.iter().enumerate() {
                let mut next = analysed(i as u32 + 1, *verdict);
                next.version_id = Some(format!("v{i}"));
                if let Some(previous) = &current {
                    next = next.replacing(previous);
                }
                current = Some(next);
            }
            let mut last = current.unwrap();
            prop_assert_eq!(last.replaced.len(), verdicts.len() - 1);
            for (i, (earlier, verdict)) in last.replaced.iter().zip(&verdicts).enumerate() {
                prop_assert_eq!(earlier.number, i as u32 + 1);
                prop_assert_eq!(earlier.verdict(), Some(*verdict));
                prop_assert!(earlier.replaced.is_empty());
            }
            for i in 0..verdicts.len() {
                let version = format!("v{i}");
                let found = last.find_object_mut("e", Some(&version)).map(|d| d.number);
                prop_assert_eq!(found, Some(i as u32 + 1));
            }
            prop_assert!(last.find_object_mut("e", Some("another")).is_none());
        }

        /// Whatever the last upload to a form, analysed or refused, the report lists it with
        /// every upload it replaced, and lists every other upload once, in upload order: an
        /// edited file swapped for one that can't be read stays in sight, and is never counted.
        #[test]
        fn the_report_keeps_every_replaced_upload_whatever_the_last_one(
            verdicts in proptest::collection::vec(any_verdict(), 1..6),
            last_refused: bool,
            others in proptest::collection::vec((any_verdict(), any::<bool>()), 0..3),
        ) {
            let chain = verdicts.len() as u32;
            let mut earlier = analysed(1, verdicts[0]);
            for (i, verdict) in verdicts.iter().enumerate().skip(1) {
                earlier = analysed(i as u32 + 1, *verdict).replacing(&earlier);
            }
            let mut last = analysed(chain + 1, Verdict::Clean);
            if last_refused {
                last.state = DocumentState::Refused;
                last.analysis = None;
                last.refusal = Some("not a PDF, JPEG or PNG".to_string());
            }
            let last = last.replacing(&earlier);
            let mut records = vec![last.clone()];
            for (i, (verdict, refused)) in others.iter().enumerate() {
                let mut d = analysed(chain + 2 + i as u32, *verdict);
                if *refused {
                    d.state = DocumentState::Refused;
                    d.refusal = Some("too large".to_string());
                }
                records.push(d);
            }
            let set = analysed_set(&records, None);
            for accepted in [false, true] {
                let (shown, _) = report_documents(&set, &records, accepted);
                let names: Vec<String> = shown.iter().map(|d| d.name.clone()).collect();
                let expected: Vec<String> = records.iter().map(|d| d.name()).collect();
                prop_assert_eq!(names, expected);
                let entry = &shown[0];
                prop_assert_eq!(entry.replaced.len(), verdicts.len());
                for (words, verdict) in entry.replaced.iter().zip(&verdicts) {
                    prop_assert!(words.contains(verdict_words(*verdict)), "{}", words);
                }
                prop_assert!(entry.summary.contains(&entry.replaced.join("; ")));
                for (d, record) in shown.iter().zip(&records) {
                    let refused = record.state == DocumentState::Refused;
                    prop_assert_eq!(d.refused, refused);
                    if refused {
                        prop_assert!(!d.counted && !d.awaiting_review);
                        prop_assert_eq!(d.verdict, Verdict::Undetermined);
                        prop_assert_eq!(d.reason.as_ref(), record.refusal.as_ref());
                        prop_assert!(d.summary.contains("refused"), "{}", d.summary);
                    }
                }
            }
        }
    }
}
