//! Plaid Check's identity at consent: when the live provider needs the tenant's legal name,
//! phone, date of birth and address, the consent form asks them, the consent POST hands them to
//! the provider's user creation, and nothing of them is stored or shown back. Against the
//! in-memory store, with a provider double that records what it was given.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::income::ProviderIncome;
use domain::secrets::generate_link_token;
use domain::tenant_identity::TenantIdentity;
use domain::{Mode, NewVerificationInput, Status, VERIFICATION_LIFETIME, Verification};
use ports::store::prelude::*;
use ports::{ConnectStep, IncomeProvider, ProviderError};
use service::handlers::tenant_portal::{PortalDeps, tenant_portal};
use service::http::ApiRequest;
use service::sandbox::SandboxProvider;
use test_support::{ExampleSigner, ManualClock, MemoryStore, active_account};

const ACCOUNT: &str = "acct_identity";

fn created() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 10, 0, 0).unwrap()
}

/// Stands in for Plaid Check: needs the identity, records each user creation's.
#[derive(Clone, Default)]
struct ConsumerReportProvider {
    given: Arc<Mutex<Vec<Option<TenantIdentity>>>>,
}

impl IncomeProvider for ConsumerReportProvider {
    async fn create_user(
        &self,
        _: &Verification,
        identity: Option<&TenantIdentity>,
    ) -> Result<Option<String>, ProviderError> {
        self.given.lock().unwrap().push(identity.cloned());
        Ok(Some("client-user-1 user-token-1".into()))
    }
    fn identity_methods(&self) -> &[domain::income::VerificationMethod] {
        &[domain::income::VerificationMethod::Bank]
    }
    async fn begin(
        &self,
        _: &Verification,
        _: domain::income::VerificationMethod,
        _: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        Ok(ConnectStep::Widget {
            link_token: "link-check".into(),
            script: None,
        })
    }
    async fn fetch_income(
        &self,
        _: &Verification,
        _: domain::income::VerificationMethod,
        _: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        Err(ProviderError::Unavailable("not in this test".into()))
    }
}

fn post(path: &str, form: &str) -> ApiRequest {
    ApiRequest::new(http::Method::POST, path)
        .with_header("content-type", "application/x-www-form-urlencoded")
        .with_body(form.to_string())
}

const IDENTITY: &str = "first_name=Jane&last_name=Tenant&phone=%28415%29+555-0123\
&date_of_birth=1990-04-12&street=77+Orchard+Lane&city=Oakland&region=ca&postal_code=94612";

#[tokio::test]
async fn the_consent_form_asks_the_identity_and_hands_it_to_the_provider_only() {
    let store = MemoryStore::new();
    store
        .put_account(&active_account(ACCOUNT, "pro", created()))
        .await
        .unwrap();
    let provider = ConsumerReportProvider::default();
    let deps = PortalDeps {
        store: store.clone(),
        clock: ManualClock::at(created() + Duration::minutes(5)),
        live_provider: provider.clone(),
        sandbox: SandboxProvider,
        link_window: domain::retention::LinkWindow::DEFAULT,
        uploads: None::<service::handlers::tenant_portal::documents::DocumentUploads<ExampleSigner>>,
    };
    let (token, token_hash) = generate_link_token();
    let input = NewVerificationInput {
        tenant_email: "jane@example.com".into(),
        monthly_rent: Some(1000.0),
        ..Default::default()
    };
    let mut v =
        Verification::new_pending(ACCOUNT, Mode::Live, input, created(), VERIFICATION_LIFETIME);
    v.token_hashes = vec![token_hash];
    store.insert_verification(&v);
    let link = format!("/t/{}/{token}", v.verification_id);

    // The consent page asks for the identity beside the tick.
    let page = tenant_portal(&deps, ApiRequest::new(http::Method::GET, &link)).await;
    assert_eq!(page.status, 200);
    for field in domain::tenant_identity::FIELDS {
        assert!(page.body.contains(&format!(r#"name="{field}""#)), "{field}");
    }

    // A tick without the identity, or with an untrue one, is refused: nothing written, the
    // provider never asked.
    for form in [
        "action=consent&agree=yes".to_string(),
        format!(
            "action=consent&agree=yes&{}",
            IDENTITY.replace("1990-04-12", "2015-04-12")
        ),
        format!(
            "action=consent&agree=yes&{}",
            IDENTITY.replace("region=ca", "region=zz")
        ),
    ] {
        let page = tenant_portal(&deps, post(&link, &form)).await;
        assert_eq!(page.status, 400, "{form}");
        assert!(page.body.contains("legal name"), "{}", page.body);
        assert!(
            !page.body.contains("Orchard"),
            "nothing typed is shown back"
        );
    }
    assert!(provider.given.lock().unwrap().is_empty());
    let stored = store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, Status::Pending);

    // The whole identity: the provider gets it once, the consent is recorded with its user.
    let form = format!("action=consent&agree=yes&{IDENTITY}");
    let page = tenant_portal(&deps, post(&link, &form)).await;
    assert_eq!(page.status, 303, "{}", page.body);
    let given = provider.given.lock().unwrap().clone();
    let [Some(identity)] = given.as_slice() else {
        panic!("one creation with the identity: {given:?}")
    };
    assert_eq!(identity.phone, "+14155550123");
    assert_eq!(identity.region, "CA");
    assert_eq!(identity.date_of_birth.to_string(), "1990-04-12");
    let stored = store
        .get_verification(v.verification_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, Status::InProgress);
    assert_eq!(
        stored.provider_user.as_deref(),
        Some("client-user-1 user-token-1")
    );
    // Nothing of it is kept: the stored item names none of the typed values.
    let kept = serde_json::to_string(&stored).unwrap();
    for typed in [
        "1990-04-12",
        "Orchard",
        "Oakland",
        "94612",
        "4155550123",
        "Tenant",
    ] {
        assert!(!kept.contains(typed), "{typed} is stored");
    }
}

/// A method already tried is not connected again: a stale tab's connect POST (here after the
/// bank's income was held for a second method) changes nothing and asks the provider nothing,
/// so the same pay can never be added twice.
#[tokio::test]
async fn a_connect_for_a_method_already_tried_asks_and_changes_nothing() {
    use domain::methods::{AttemptOutcome, MethodAttempt};
    let store = MemoryStore::new();
    store
        .put_account(&active_account(ACCOUNT, "pro", created()))
        .await
        .unwrap();
    let provider = ConsumerReportProvider::default();
    let deps = PortalDeps {
        store: store.clone(),
        clock: ManualClock::at(created() + Duration::minutes(5)),
        live_provider: provider.clone(),
        sandbox: SandboxProvider,
        link_window: domain::retention::LinkWindow::DEFAULT,
        uploads: None::<service::handlers::tenant_portal::documents::DocumentUploads<ExampleSigner>>,
    };
    let (token, token_hash) = generate_link_token();
    let input = NewVerificationInput {
        tenant_email: "jane@example.com".into(),
        monthly_rent: Some(1000.0),
        ..Default::default()
    };
    let mut v =
        Verification::new_pending(ACCOUNT, Mode::Live, input, created(), VERIFICATION_LIFETIME);
    v.token_hashes = vec![token_hash];
    v.status = Status::InProgress;
    v.consented_at = Some(created() + Duration::minutes(1));
    v.provider_user = Some("client-user-1 user-token-1".into());
    v.method_attempts = vec![MethodAttempt {
        method: domain::income::VerificationMethod::Bank,
        outcome: AttemptOutcome::Succeeded,
        at: created() + Duration::minutes(2),
    }];
    store.insert_verification(&v);
    let link = format!("/t/{}/{token}", v.verification_id);
    let before = store.get_verification(v.verification_id).await.unwrap();
    let page = tenant_portal(&deps, post(&link, "action=connect&more=yes")).await;
    assert!(page.status < 500, "{}", page.status);
    let after = store.get_verification(v.verification_id).await.unwrap();
    assert!(before == after, "nothing written");
}
