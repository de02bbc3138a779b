use chrono::Utc;
use proptest::prelude::*;

use super::*;
use crate::income::{PayFrequency, ProviderIncomeSource};
use crate::report::build_report;
use crate::{NewVerificationInput, Transition, VERIFICATION_LIFETIME};
use VerificationMethod::*;

const SANDBOX: Served = Served {
    live_methods: &[Bank],
    live_simulated: false,
    live_identity_methods: &[],
    documents: false,
};

fn verification(mode: Mode, methods: &[VerificationMethod]) -> Verification {
    let mut v = Verification::new_pending(
        "a",
        mode,
        NewVerificationInput {
            tenant_email: "t@example.com".into(),
            ..Default::default()
        },
        Utc::now(),
        VERIFICATION_LIFETIME,
    );
    v.methods = methods.to_vec();
    v
}

/// A test verification after the consent.
fn consented(methods: &[VerificationMethod]) -> Verification {
    let v = verification(Mode::Test, methods);
    let consent = Transition::Consent {
        version: "v".into(),
        provider_user: None,
        methods: vec![],
    };
    consent.apply(&v, Utc::now())
}

fn open(v: &Verification, s: &Served) -> Open {
    match next_step(v, Utc::now(), s) {
        Journey::Open(open) => open,
        other => panic!("{other:?}"),
    }
}

fn connect(v: &Verification, s: &Served) -> Connect {
    open(v, s).connect.expect("a method to connect")
}

fn build(income: &ProviderIncome) -> IncomeReport {
    build_report(income, None)
}

use crate::income::ProviderIncome;
use crate::report::IncomeReport;

#[test]
fn a_refusal_routes_while_a_method_remains_then_fails() {
    let v = consented(&[Bank, Payroll]);
    let now = Utc::now();
    let c = connect(&v, &SANDBOX);
    assert_eq!(
        (c.method, c.by, c.next),
        (Bank, By::Scenarios, Some(Payroll))
    );
    let t = after_connection(&v, &c, Connection::Refused, (now, false), build);
    let Transition::Attempt { attempt } = &t else {
        panic!("{t:?}")
    };
    assert_eq!(
        (attempt.method, attempt.outcome),
        (Bank, AttemptOutcome::Failed)
    );
    let tried = t.apply(&v, now);
    let after = open(&tried, &SANDBOX);
    let last = after.last_try.as_ref().unwrap();
    assert_eq!((last.method, last.outcome), (Bank, AttemptOutcome::Failed));
    let c = after.connect.unwrap();
    assert_eq!((c.method, c.next), (Payroll, None));
    let t = after_connection(&tried, &c, Connection::Refused, (now, false), build);
    assert!(matches!(t, Transition::Fail { .. }), "{t:?}");
    let only_bank = consented(&[Bank]);
    let c = connect(&only_bank, &SANDBOX);
    let t = after_connection(&only_bank, &c, Connection::Refused, (now, false), build);
    assert!(matches!(t, Transition::Fail { .. }), "{t:?}");
}

/// A live stack with Plaid Check and Argyle (`INCOME_PROVIDERS=plaid_check,argyle`) and uploads.
const BANK_THEN_PAYROLL: Served = Served {
    live_methods: &[Bank, Payroll],
    live_simulated: false,
    live_identity_methods: &[Bank],
    documents: true,
};

#[test]
fn a_live_stack_with_two_providers_routes_bank_then_payroll_then_documents() {
    let now = Utc::now();
    let mut v = verification(Mode::Live, &[]);
    v.consented_at = Some(now);
    v.provider_user = Some("bank=c u;payroll=018051aa".into());
    let c = connect(&v, &BANK_THEN_PAYROLL);
    assert_eq!(
        (c.method, c.by, c.next),
        (Bank, By::Provider, Some(Payroll))
    );
    let t = after_connection(&v, &c, Connection::Refused, (now, false), build);
    let v = t.apply(&v, now);
    let c = connect(&v, &BANK_THEN_PAYROLL);
    assert_eq!(
        (c.method, c.by, c.next),
        (Payroll, By::Provider, Some(Document))
    );
    let t = after_connection(&v, &c, Connection::Refused, (now, false), build);
    let v = t.apply(&v, now);
    let after = open(&v, &BANK_THEN_PAYROLL);
    assert_eq!(after.connect, None, "only uploads remain");
    assert!(after.uploads.is_some());
    // The identity is asked only of a verification that may use the bank.
    let pending = |methods: &[VerificationMethod]| {
        next_step(&verification(Mode::Live, methods), now, &BANK_THEN_PAYROLL)
    };
    assert_eq!(
        pending(&[]),
        Journey::Consent {
            asks_identity: true
        }
    );
    assert_eq!(
        pending(&[Payroll]),
        Journey::Consent {
            asks_identity: false
        }
    );
    // A verification that may use documents alone needs no provider user after its consent.
    let mut docs = verification(Mode::Live, &[Document]);
    docs.consented_at = Some(now);
    assert!(open(&docs, &BANK_THEN_PAYROLL).uploads.is_some());
}

#[test]
fn every_method_failed_or_abandoned_fails_the_verification() {
    let now = Utc::now();
    let abandoned = |mut v: Verification| {
        v.method_attempts = vec![MethodAttempt {
            method: Bank,
            outcome: AttemptOutcome::Abandoned,
            at: now,
        }];
        v
    };
    let uploads = Served {
        documents: true,
        ..SANDBOX
    };
    // Documents remain after payroll: a refusal routes to them.
    let v = abandoned(consented(&[Bank, Payroll, Document]));
    let journey = open(&v, &uploads);
    assert_eq!(journey.open, vec![Payroll, Document]);
    assert_eq!(
        journey.last_try.map(|a| a.outcome),
        Some(AttemptOutcome::Abandoned)
    );
    let c = journey.connect.unwrap();
    assert_eq!((c.method, c.next), (Payroll, Some(Document)));
    let t = after_connection(&v, &c, Connection::Refused, (now, false), build);
    assert!(matches!(t, Transition::Attempt { .. }), "{t:?}");
    // With bank abandoned, payroll's refusal leaves nothing: the verification fails.
    let v = abandoned(consented(&[Bank, Payroll]));
    let c = connect(&v, &uploads);
    let t = after_connection(&v, &c, Connection::Refused, (now, false), build);
    assert!(matches!(t, Transition::Fail { .. }), "{t:?}");
}

#[test]
fn no_income_routes_and_the_report_after_routing_records_every_try() {
    let v = consented(&[Bank, Payroll]);
    let now = Utc::now();
    let empty = Connection::Income(ProviderIncome::empty(Bank, now.date_naive()));
    let t = after_connection(&v, &connect(&v, &SANDBOX), empty, (now, false), build);
    let tried = t.apply(&v, now);
    assert_eq!(tried.method_attempts[0].outcome, AttemptOutcome::NoIncome);
    let paid = ProviderIncome {
        sources: vec![ProviderIncomeSource::on_cycle(
            "Job",
            "SALARY",
            PayFrequency::Monthly,
            now.date_naive(),
            6,
            |_| 1000.0,
        )],
        ..ProviderIncome::empty(Payroll, now.date_naive())
    };
    let c = connect(&tried, &SANDBOX);
    assert_eq!(c.method, Payroll);
    let t = after_connection(&tried, &c, Connection::Income(paid), (now, false), build);
    let Transition::Complete { report } = t else {
        panic!("{t:?}")
    };
    let tries: Vec<_> = (report.attempts.iter())
        .map(|a| (a.method, a.outcome))
        .collect();
    assert_eq!(
        tries,
        vec![
            (Bank, AttemptOutcome::NoIncome),
            (Payroll, AttemptOutcome::Succeeded)
        ]
    );
    // Without routing the report names no tries.
    assert!(v.method_attempts.is_empty());
}

#[test]
fn a_closed_verification_is_done_failed_cancelled_or_expired() {
    let now = Utc::now();
    let v = consented(&[]);
    let closed = |t: Transition| next_step(&t.apply(&v, now), now, &SANDBOX);
    let report = build(&ProviderIncome::empty(Bank, now.date_naive()));
    assert_eq!(
        closed(Transition::Complete {
            report: Box::new(report)
        }),
        Journey::Done { may_add_note: true }
    );
    let reason = "x".to_string();
    assert_eq!(closed(Transition::Fail { reason }), Journey::Failed);
    assert_eq!(closed(Transition::Cancel), Journey::Cancelled);
    assert_eq!(closed(Transition::Expire), Journey::Expired);
    // Past its expiry, an open verification is expired as read.
    let late = v.expires_at + chrono::Duration::seconds(1);
    assert_eq!(next_step(&v, late, &SANDBOX), Journey::Expired);
}

#[test]
fn the_consent_comes_first_and_a_real_provider_needs_its_user() {
    let now = Utc::now();
    let pending = verification(Mode::Test, &[]);
    let consent = Journey::Consent {
        asks_identity: false,
    };
    assert_eq!(next_step(&pending, now, &SANDBOX), consent);
    let check = Served {
        live_identity_methods: &[Bank],
        ..SANDBOX
    };
    // The sandbox never asks the identity; a real provider that needs it does.
    assert_eq!(next_step(&pending, now, &check), consent);
    let live = verification(Mode::Live, &[]);
    assert_eq!(
        next_step(&live, now, &check),
        Journey::Consent {
            asks_identity: true
        }
    );
    // Consented without the provider's user: the consent again, for a real provider only.
    let mut live = live;
    live.consented_at = Some(now);
    assert!(matches!(
        next_step(&live, now, &check),
        Journey::Consent { .. }
    ));
    let local = Served {
        live_simulated: true,
        ..check
    };
    let c = connect(&live, &local);
    assert_eq!((c.method, c.by), (Bank, By::Scenarios));
    live.provider_user = Some("user".into());
    let c = connect(&live, &check);
    assert_eq!((c.method, c.by, c.next), (Bank, By::Provider, None));
}

#[test]
fn uploads_sit_beside_the_methods_and_remain_alone_at_the_end() {
    let now = Utc::now();
    let uploads = Served {
        documents: true,
        ..SANDBOX
    };
    let v = consented(&[Document, Payroll]);
    let journey = open(&v, &uploads);
    let c = journey.connect.unwrap();
    // Documents come first in the landlord's order: payroll is connected, documents beside it.
    assert_eq!((c.method, c.next), (Payroll, Some(Document)));
    let u = journey.uploads.unwrap();
    assert!(u.may_upload && u.samples);
    assert!(u.finish.is_err(), "nothing uploaded yet");
    // Without a bucket the documents are no method.
    assert_eq!(open(&v, &SANDBOX).uploads, None);
    let tried = Transition::Attempt {
        attempt: MethodAttempt {
            method: Payroll,
            outcome: AttemptOutcome::Failed,
            at: now,
        },
    }
    .apply(&v, now);
    let journey = open(&tried, &uploads);
    assert_eq!((journey.connect, journey.open), (None, vec![Document]));
    assert!(journey.uploads.is_some());
    // Without documents among its methods, none are offered.
    assert_eq!(open(&consented(&[Bank]), &uploads).uploads, None);
}

#[test]
fn held_income_names_its_methods() {
    let now = Utc::now();
    let v = consented(&[Bank, Payroll]);
    let hold = Transition::Hold {
        attempt: MethodAttempt {
            method: Bank,
            outcome: AttemptOutcome::Succeeded,
            at: now,
        },
        income: Box::new(ProviderIncome::empty(Bank, now.date_naive())),
    };
    let journey = open(&hold.apply(&v, now), &SANDBOX);
    assert_eq!(
        journey.held,
        Some(Held {
            methods: vec![Bank],
            with_documents: false
        })
    );
    assert_eq!(
        journey.connect.map(|c| (c.method, c.next)),
        Some((Payroll, None))
    );
}

#[test]
fn the_accounts_default_is_stored_at_consent_less_what_the_page_cannot_serve() {
    let live = verification(Mode::Live, &[]);
    assert_eq!(
        methods_at_consent(&live, &SANDBOX, &[Payroll, Bank]),
        vec![Bank]
    );
    let own = verification(Mode::Live, &[Bank]);
    assert_eq!(methods_at_consent(&own, &SANDBOX, &[Payroll, Bank]), vec![]);
    let test = verification(Mode::Test, &[]);
    assert_eq!(
        methods_at_consent(&test, &SANDBOX, &[Document, Payroll]),
        vec![Payroll]
    );
}

fn method() -> impl Strategy<Value = VerificationMethod> {
    prop::sample::select(methods::ALL.to_vec())
}

fn outcome() -> impl Strategy<Value = AttemptOutcome> {
    prop::sample::select(vec![
        AttemptOutcome::Succeeded,
        AttemptOutcome::Failed,
        AttemptOutcome::NoIncome,
        AttemptOutcome::Abandoned,
    ])
}

proptest! {
    /// Whatever the verification, the method to connect was never tried, is one of the
    /// landlord's methods (when named) and is no upload; its fallback likewise was never tried.
    #[test]
    fn the_method_to_connect_is_untried_and_the_landlords(
        own in prop::collection::vec(method(), 0..4),
        tries in prop::collection::vec((method(), outcome()), 0..4),
        live in any::<bool>(),
        consented in any::<bool>(),
        user in any::<bool>(),
        served in (method(), any::<bool>(), any::<bool>(), any::<bool>()),
    ) {
        let now = Utc::now();
        let mut own_methods = vec![];
        for m in own {
            if !own_methods.contains(&m) {
                own_methods.push(m);
            }
        }
        let mode = if live { Mode::Live } else { Mode::Test };
        let mut v = verification(mode, &own_methods);
        v.method_attempts = tries
            .iter()
            .map(|(method, outcome)| MethodAttempt { method: *method, outcome: *outcome, at: now })
            .collect();
        v.consented_at = consented.then_some(now);
        v.provider_user = user.then(|| "user".to_string());
        let s = Served {
            live_methods: &[served.0],
            live_simulated: served.1,
            live_identity_methods: if served.2 { &[Bank] } else { &[] },
            documents: served.3,
        };
        if let Journey::Open(open) = next_step(&v, now, &s) {
            let tried = |m: VerificationMethod| v.method_attempts.iter().any(|a| a.method == m);
            if let Some(c) = open.connect {
                prop_assert!(!tried(c.method), "{c:?} was tried");
                prop_assert!(own_methods.is_empty() || own_methods.contains(&c.method));
                prop_assert_ne!(c.method, Document);
                if let Some(next) = c.next {
                    prop_assert!(!tried(next) && next != c.method);
                    prop_assert!(own_methods.is_empty() || own_methods.contains(&next));
                }
            }
            for m in &open.open {
                prop_assert!(!tried(*m));
            }
            prop_assert!(open.uploads.is_none() || s.documents);
        }
    }
}

// ---- Waiting for a provider's data (`awaiting`) ---------------------------------------------

const PLAID_CHECK: Served = Served {
    live_methods: &[Bank],
    live_simulated: false,
    live_identity_methods: &[Bank],
    documents: true,
};

/// A live verification consented with a provider user, its bank connection waiting since `at`.
fn waiting_since(at: chrono::DateTime<Utc>) -> Verification {
    let v = verification(Mode::Live, &[]);
    let consent = Transition::Consent {
        version: "v".into(),
        provider_user: Some("cuid usr_1".into()),
        methods: vec![],
    };
    let v = consent.apply(&v, at);
    let Journey::Open(open) = next_step(&v, at, &PLAID_CHECK) else {
        panic!("open after consent");
    };
    let connect = open.connect.expect("the bank to connect");
    let wait = Transition::Await {
        method: connect.method,
        next: connect.next,
    };
    wait.apply(&v, at)
}

#[test]
fn a_waiting_connection_is_the_journey_until_a_try_is_recorded() {
    let now = Utc::now();
    let v = waiting_since(now);
    let Journey::Waiting(waiting) = next_step(&v, now, &PLAID_CHECK) else {
        panic!("waiting");
    };
    assert_eq!(waiting.connect.method, Bank);
    assert_eq!(
        waiting.connect.next,
        Some(Document),
        "where a failure leads"
    );
    // The provider's failure settles the try through `after_connection`: the next method.
    let t = after_connection(
        &v,
        &waiting.connect,
        Connection::Refused,
        (now, false),
        |i| build_report(i, None),
    );
    let after = t.apply(&v, now);
    assert!(
        after.awaiting_now().is_none(),
        "a recorded try ends the wait"
    );
    let Journey::Open(open) = next_step(&after, now, &PLAID_CHECK) else {
        panic!("open for the next method");
    };
    assert_eq!(open.open, vec![Document]);
}

proptest! {
    /// The sweep leaves a fresh wait, re-reads one without a signal after `SWEEP_AFTER`, and
    /// gives up on any after `GIVE_UP_AFTER`; a closed verification is never swept.
    #[test]
    fn the_sweep_decides_by_the_waits_age_and_signal(
        minutes in 0i64..3000,
        signalled in any::<bool>(),
        closed in any::<bool>(),
    ) {
        use crate::awaiting::{DataSignal, GIVE_UP_AFTER, SWEEP_AFTER, Sweep, sweep};
        let since = Utc::now() - chrono::Duration::days(1);
        let mut v = waiting_since(since);
        if signalled {
            v = Transition::Signal { signal: DataSignal::Ready }.apply(&v, since);
        }
        if closed {
            v = Transition::Cancel.apply(&v, since);
        }
        let now = since + chrono::Duration::minutes(minutes);
        let waited = now - since;
        let expected = if closed {
            Sweep::Leave
        } else if waited >= GIVE_UP_AFTER {
            Sweep::GiveUp
        } else if !signalled && waited >= SWEEP_AFTER {
            Sweep::Reread
        } else {
            Sweep::Leave
        };
        prop_assert_eq!(sweep(&v, now), expected);
    }

    /// The provider's signal is written once: a second one, whatever it says, changes nothing,
    /// and a signal for no current wait is nothing.
    #[test]
    fn a_signal_is_kept_once(first_ready in any::<bool>(), second_ready in any::<bool>()) {
        use crate::awaiting::DataSignal::{Failed, Ready};
        let now = Utc::now();
        let v = waiting_since(now);
        let pick = |ready| if ready { Ready } else { Failed };
        let once = Transition::Signal { signal: pick(first_ready) }.apply(&v, now);
        let twice = Transition::Signal { signal: pick(second_ready) }
            .apply(&once, now + chrono::Duration::seconds(5));
        prop_assert_eq!(&once.awaiting, &twice.awaiting);
        prop_assert_eq!(once.awaiting_now().unwrap().signal.unwrap().signal, pick(first_ready));
        let fresh = consented(&[]);
        let ignored = Transition::Signal { signal: Ready }.apply(&fresh, now);
        prop_assert!(ignored.awaiting.is_none());
    }
}
