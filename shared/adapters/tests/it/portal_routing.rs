//! The methods on the tenant page, against the in-memory store: the account's default set taken
//! at consent by a verification created without its own, and the "use another way" switch.

use adapters::live_provider::LiveProvider;
use chrono::Duration;
use domain::income::VerificationMethod::{self, *};
use domain::methods::AttemptOutcome;
use domain::{Mode, NewVerificationInput, Status, VERIFICATION_LIFETIME, Verification};
use ports::store::prelude::*;
use service::handlers::tenant_portal::documents::DocumentUploads;
use service::handlers::tenant_portal::{PortalDeps, tenant_portal};
use service::http::{ApiRequest, ApiResponse};
use service::sandbox::SandboxProvider;
use test_support::{ExampleSigner, ManualClock, MemoryStore, active_account};

use crate::support::now;

const ACCOUNT: &str = "acct_routing";

pub(crate) type Deps = PortalDeps<MemoryStore, ManualClock, LiveProvider, ExampleSigner>;

/// A store with the account (its default methods `default`), and the tenant page on it, with a
/// documents bucket when `documents`.
pub(crate) async fn page_deps(default: &[VerificationMethod], documents: bool) -> Deps {
    let store = MemoryStore::new();
    store
        .put_account(&active_account(ACCOUNT, "pro", now()))
        .await
        .unwrap();
    assert!(store.set_default_methods(ACCOUNT, default).await.unwrap());
    PortalDeps {
        store,
        clock: ManualClock::at(now() + Duration::minutes(1)),
        live_provider: LiveProvider::none(),
        sandbox: SandboxProvider,
        link_window: domain::retention::LinkWindow::DEFAULT,
        uploads: documents.then(|| DocumentUploads {
            signer: ExampleSigner {
                bucket: "docs".into(),
            },
            base_url: Some("https://verify.example.com".into()),
        }),
    }
}

/// A pending test verification naming `methods` (none: the defaults apply), and its link.
pub(crate) fn pending(deps: &Deps, methods: &[VerificationMethod]) -> (Verification, String) {
    let input = NewVerificationInput {
        tenant_email: "tess@example.com".into(),
        monthly_rent: Some(1000.0),
        methods: methods.to_vec(),
        ..Default::default()
    };
    let mut v = Verification::new_pending(ACCOUNT, Mode::Test, input, now(), VERIFICATION_LIFETIME);
    let (token, hash) = domain::secrets::generate_link_token();
    v.token_hashes = vec![hash];
    deps.store.insert_verification(&v);
    let link = format!("/t/{}/{token}", v.verification_id);
    (v, link)
}

pub(crate) async fn page(deps: &Deps, link: &str, form: Option<&str>) -> ApiResponse {
    let req = match form {
        Some(f) => ApiRequest::new(http::Method::POST, link)
            .with_header("content-type", "application/x-www-form-urlencoded")
            .with_body(f.to_string()),
        None => ApiRequest::new(http::Method::GET, link),
    };
    tenant_portal(deps, req).await
}

pub(crate) async fn consent(deps: &Deps, link: &str) {
    let p = page(deps, link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 303, "{}", p.body);
}

pub(crate) fn stored(deps: &Deps, v: &Verification) -> Verification {
    deps.store.verification(v.verification_id).unwrap()
}

#[tokio::test]
async fn a_verification_without_methods_takes_the_accounts_default_at_consent() {
    // The default names documents first, which this stack lacks: skipped.
    let deps = page_deps(&[Document, Payroll], false).await;
    let (v, link) = pending(&deps, &[]);
    consent(&deps, &link).await;
    assert_eq!(stored(&deps, &v).methods, vec![Payroll]);
    let p = page(&deps, &link, None).await;
    assert!(p.body.contains("value=\"payroll_active\""), "{}", p.body);
    assert!(
        !p.body.contains("value=\"good\""),
        "only payroll is offered"
    );
    let refused = page(&deps, &link, Some("action=connect&scenario=good")).await;
    assert_eq!(
        refused.status, 400,
        "a bank scenario is outside the default"
    );

    // A verification's own methods win over the account's default.
    let (v, link) = pending(&deps, &[Bank]);
    consent(&deps, &link).await;
    assert_eq!(stored(&deps, &v).methods, vec![Bank]);

    // With documents, the same default keeps them, in its order.
    let deps = page_deps(&[Document, Payroll], true).await;
    let (v, link) = pending(&deps, &[]);
    consent(&deps, &link).await;
    assert_eq!(stored(&deps, &v).methods, vec![Document, Payroll]);
}

#[tokio::test]
async fn a_default_naming_nothing_the_stack_has_leaves_every_method() {
    let deps = page_deps(&[Document], false).await;
    let (v, link) = pending(&deps, &[]);
    consent(&deps, &link).await;
    assert!(stored(&deps, &v).methods.is_empty());
    let p = page(&deps, &link, None).await;
    assert!(p.body.contains("value=\"good\""), "{}", p.body);

    // No default at all: nothing stored, every method the stack has.
    let deps = page_deps(&[], false).await;
    let (v, link) = pending(&deps, &[]);
    consent(&deps, &link).await;
    assert!(stored(&deps, &v).methods.is_empty());
}

/// The tries as the store holds them: (method, outcome) pairs.
fn tries(deps: &Deps, v: &Verification) -> Vec<(VerificationMethod, AttemptOutcome)> {
    let stored = stored(deps, v);
    stored
        .method_attempts
        .iter()
        .map(|a| (a.method, a.outcome))
        .collect()
}

#[tokio::test]
async fn use_another_way_records_the_method_left_and_offers_the_next() {
    let deps = page_deps(&[], false).await;
    let (v, link) = pending(&deps, &[Bank, Payroll]);
    // Before consent the switch is refused like any step.
    let p = page(&deps, &link, Some("action=switch_method&method=payroll")).await;
    assert_eq!(p.status, 400, "{}", p.body);
    consent(&deps, &link).await;
    let p = page(&deps, &link, None).await;
    assert!(
        p.body.contains(r#"name="method" value="payroll""#),
        "{}",
        p.body
    );
    assert!(
        p.body
            .contains("Use another way: connect your payroll account")
    );

    // A method outside the form's own is refused whatever the state; one that is not next
    // shows the page as it is.
    let p = page(&deps, &link, Some("action=switch_method&method=crypto")).await;
    assert_eq!(p.status, 400);
    let p = page(&deps, &link, Some("action=switch_method&method=bank")).await;
    assert_eq!(p.status, 200);
    assert!(tries(&deps, &v).is_empty());

    let p = page(&deps, &link, Some("action=switch_method&method=payroll")).await;
    assert_eq!(p.status, 303, "{}", p.body);
    assert_eq!(tries(&deps, &v), vec![(Bank, AttemptOutcome::Abandoned)]);
    let after = stored(&deps, &v);
    assert_eq!(after.status, Status::InProgress);
    assert!(after.consented_at.is_some(), "consent kept");
    let p = page(&deps, &link, None).await;
    assert!(p.body.contains("You left connecting by bank"), "{}", p.body);
    assert!(p.body.contains("value=\"payroll_active\"") && !p.body.contains("value=\"good\""));
    assert!(
        !p.body.contains("switch_method"),
        "payroll is the last method"
    );
    // The same click again (another tab) changes nothing.
    let p = page(&deps, &link, Some("action=switch_method&method=payroll")).await;
    assert_eq!(p.status, 200);
    assert_eq!(tries(&deps, &v).len(), 1);

    let p = page(&deps, &link, Some("action=connect&scenario=payroll_active")).await;
    assert_eq!(p.status, 303, "{}", p.body);
    let report = stored(&deps, &v).income_report.unwrap();
    let recorded: Vec<_> = report
        .attempts
        .iter()
        .map(|a| (a.method, a.outcome))
        .collect();
    assert_eq!(
        recorded,
        vec![
            (Bank, AttemptOutcome::Abandoned),
            (Payroll, AttemptOutcome::Succeeded)
        ]
    );
}

#[tokio::test]
async fn a_refusal_after_every_other_method_was_left_fails_the_verification() {
    let deps = page_deps(&[], true).await;
    let (v, link) = pending(&deps, &[Payroll, Bank, Document]);
    consent(&deps, &link).await;
    let switch = "action=switch_method&method=bank";
    assert_eq!(page(&deps, &link, Some(switch)).await.status, 303);
    // Uploads follow the bank: the switch leaves the bank for them.
    let p = page(&deps, &link, None).await;
    assert!(
        p.body.contains("Use another way: upload documents"),
        "{}",
        p.body
    );
    let switch = "action=switch_method&method=document";
    assert_eq!(page(&deps, &link, Some(switch)).await.status, 303);
    let p = page(&deps, &link, None).await;
    assert!(p.body.contains("Upload your documents"), "{}", p.body);
    assert!(
        !p.body.contains("Connect and share"),
        "no bank is offered any more"
    );
    assert_eq!(
        tries(&deps, &v),
        vec![
            (Payroll, AttemptOutcome::Abandoned),
            (Bank, AttemptOutcome::Abandoned)
        ]
    );

    // Without documents, the bank's refusal after payroll was left fails it.
    let (v, link) = pending(&deps, &[Payroll, Bank]);
    consent(&deps, &link).await;
    let switch = "action=switch_method&method=bank";
    assert_eq!(page(&deps, &link, Some(switch)).await.status, 303);
    let p = page(&deps, &link, Some("action=connect&scenario=fail")).await;
    assert_eq!(p.status, 303);
    assert_eq!(stored(&deps, &v).status, Status::Failed);
}
