//! The methods on the tenant page, against the in-memory store: the account's default set taken
//! at consent by a verification created without its own, and the "use another way" switch.

use chrono::Duration;
use shared::adapters::sandbox::SandboxProvider;
use shared::adapters::testing::{ExampleSigner, ManualClock, MemoryStore, active_account};
use shared::domain::income::VerificationMethod::{self, *};
use shared::domain::{Mode, NewVerificationInput, VERIFICATION_LIFETIME, Verification};
use shared::handlers::tenant_portal::documents::DocumentUploads;
use shared::handlers::tenant_portal::{LiveProvider, PortalDeps, tenant_portal};
use shared::http::{ApiRequest, ApiResponse};
use shared::ports::store::prelude::*;

use crate::support::now;

const ACCOUNT: &str = "acct_routing";

type Deps = PortalDeps<MemoryStore, ManualClock, LiveProvider, ExampleSigner>;

/// A store with the account (its default methods `default`), and the tenant page on it, with a
/// documents bucket when `documents`.
async fn page_deps(default: &[VerificationMethod], documents: bool) -> Deps {
    let store = MemoryStore::new();
    store
        .put_account(&active_account(ACCOUNT, "pro", now()))
        .await
        .unwrap();
    assert!(store.set_default_methods(ACCOUNT, default).await.unwrap());
    PortalDeps {
        store,
        clock: ManualClock::at(now() + Duration::minutes(1)),
        live_provider: LiveProvider::None,
        sandbox: SandboxProvider,
        uploads: documents.then(|| DocumentUploads {
            signer: ExampleSigner {
                bucket: "docs".into(),
            },
            base_url: Some("https://verify.example.com".into()),
        }),
    }
}

/// A pending test verification naming `methods` (none: the defaults apply), and its link.
fn pending(deps: &Deps, methods: &[VerificationMethod]) -> (Verification, String) {
    let input = NewVerificationInput {
        tenant_email: "tess@example.com".into(),
        monthly_rent: Some(1000.0),
        methods: methods.to_vec(),
        ..Default::default()
    };
    let mut v = Verification::new_pending(ACCOUNT, Mode::Test, input, now(), VERIFICATION_LIFETIME);
    let (token, hash) = shared::domain::secrets::generate_link_token();
    v.token_hashes = vec![hash];
    deps.store.insert_verification(&v);
    let link = format!("/t/{}/{token}", v.verification_id);
    (v, link)
}

async fn page(deps: &Deps, link: &str, form: Option<&str>) -> ApiResponse {
    let req = match form {
        Some(f) => ApiRequest::new(http::Method::POST, link)
            .with_header("content-type", "application/x-www-form-urlencoded")
            .with_body(f.to_string()),
        None => ApiRequest::new(http::Method::GET, link),
    };
    tenant_portal(deps, req).await
}

async fn consent(deps: &Deps, link: &str) {
    let p = page(deps, link, Some("action=consent&agree=yes")).await;
    assert_eq!(p.status, 303, "{}", p.body);
}

fn stored(deps: &Deps, v: &Verification) -> Verification {
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
