//! A link scanner costs nothing (issue 21, point 5): mail scanners fetch every link, so a GET or
//! HEAD of any tenant page, in any state, asks the live income provider nothing. The provider's
//! link token is made only when the tenant starts the connection (the `start` POST), once per
//! start. Against the in-memory store, with a provider double that counts its calls.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::income::ProviderIncome;
use domain::report::build_report;
use domain::secrets::generate_link_token;
use domain::{Mode, NewVerificationInput, Status, VERIFICATION_LIFETIME, Verification};
use ports::store::prelude::*;
use ports::{ConnectStep, IncomeProvider, ProviderError};
use service::handlers::tenant_portal::documents::DocumentUploads;
use service::handlers::tenant_portal::{PortalDeps, tenant_portal};
use service::http::ApiRequest;
use service::sandbox::SandboxProvider;
use test_support::{ExampleSigner, ManualClock, MemoryStore, active_account};

const ACCOUNT: &str = "acct_scanner";
const LINK_TOKEN: &str = "link-sandbox-counted";

fn created() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 10, 0, 0).unwrap()
}

/// Stands in for Plaid: counts every call.
#[derive(Clone, Default)]
struct CountingProvider {
    calls: Arc<Mutex<Vec<&'static str>>>,
}

impl CountingProvider {
    fn calls(&self) -> Vec<&'static str> {
        self.calls.lock().unwrap().clone()
    }
}

impl IncomeProvider for CountingProvider {
    async fn create_user(
        &self,
        _: &Verification,
        _: Option<&domain::tenant_identity::TenantIdentity>,
    ) -> Result<Option<String>, ProviderError> {
        self.calls.lock().unwrap().push("create_user");
        Ok(Some("provider-user-1".into()))
    }
    async fn begin(
        &self,
        _: &Verification,
        _: domain::income::VerificationMethod,
        _: Option<&str>,
    ) -> Result<ConnectStep, ProviderError> {
        self.calls.lock().unwrap().push("begin");
        Ok(ConnectStep::Widget {
            link_token: LINK_TOKEN.into(),
            script: None,
        })
    }
    async fn fetch_income(
        &self,
        _: &Verification,
        _: domain::income::VerificationMethod,
        _: &str,
    ) -> Result<ProviderIncome, ProviderError> {
        self.calls.lock().unwrap().push("fetch_income");
        Err(ProviderError::Unavailable("not in this test".into()))
    }
}

fn request(method: http::Method, path: &str, form: &str) -> ApiRequest {
    ApiRequest::new(method, path)
        .with_header("content-type", "application/x-www-form-urlencoded")
        .with_body(form.to_string())
}

/// A live verification in each state a tenant page shows, all bound to `token_hash`.
fn verifications(token_hash: &str) -> Vec<(&'static str, Verification)> {
    let now = created();
    let make = |mode: Mode| {
        let input = NewVerificationInput {
            tenant_email: "tenant@example.com".into(),
            property_address: Some("12 Elm St".into()),
            monthly_rent: Some(1000.0),
            ..Default::default()
        };
        let mut v = Verification::new_pending(ACCOUNT, mode, input, now, VERIFICATION_LIFETIME);
        v.token_hashes = vec![token_hash.to_string()];
        v
    };
    let consented = |mut v: Verification| {
        v.status = Status::InProgress;
        v.consented_at = Some(now + Duration::minutes(1));
        v.provider_user = Some("provider-user-0".into());
        v
    };
    let mut completed = consented(make(Mode::Live));
    completed.status = Status::Completed;
    completed.completed_at = Some(now + Duration::minutes(2));
    let income = ProviderIncome::empty(domain::income::VerificationMethod::Bank, now.date_naive());
    completed.income_report = Some(build_report(&income, completed.monthly_rent));
    let mut failed = consented(make(Mode::Live));
    failed.status = Status::Failed;
    let mut expired = make(Mode::Live);
    expired.expires_at = now - Duration::minutes(1);
    let mut cancelled = make(Mode::Live);
    cancelled.status = Status::Expired;
    cancelled.cancelled_at = Some(now);
    vec![
        ("consent", make(Mode::Live)),
        ("connect", consented(make(Mode::Live))),
        ("test-mode connect", consented(make(Mode::Test))),
        ("completed", completed),
        ("failed", failed),
        ("expired", expired),
        ("cancelled", cancelled),
    ]
}

fn deps(
    store: &MemoryStore,
    provider: &CountingProvider,
) -> PortalDeps<MemoryStore, ManualClock, CountingProvider, ExampleSigner> {
    PortalDeps {
        store: store.clone(),
        clock: ManualClock::at(created() + Duration::minutes(5)),
        live_provider: provider.clone(),
        sandbox: SandboxProvider,
        link_window: domain::retention::LinkWindow::DEFAULT,
        uploads: Some(DocumentUploads {
            signer: ExampleSigner {
                bucket: "docs".into(),
            },
            base_url: None,
        }),
    }
}

#[tokio::test]
async fn no_get_of_a_tenant_page_calls_the_provider_and_starting_the_connection_does_once() {
    let store = MemoryStore::new();
    let account = active_account(ACCOUNT, "pro", created());
    store.put_account(&account).await.unwrap();
    let provider = CountingProvider::default();
    let deps = deps(&store, &provider);
    let (token, token_hash) = generate_link_token();
    let all = verifications(&token_hash);
    for (_, v) in &all {
        store.insert_verification(v);
    }
    for (state, v) in &all {
        let link = format!("/t/{}/{token}", v.verification_id);
        let sample = format!("{link}/samples/genuine.pdf");
        for path in [link.clone(), format!("{link}/report.pdf"), sample] {
            for method in [http::Method::GET, http::Method::HEAD] {
                let page = tenant_portal(&deps, request(method.clone(), &path, "")).await;
                assert!(
                    page.status < 500,
                    "{state} {method} {path}: {}",
                    page.status
                );
            }
        }
    }
    assert_eq!(
        provider.calls(),
        Vec::<&str>::new(),
        "no GET or HEAD asks the provider"
    );

    // The live connect page offers a start button (a POST), not the widget.
    let (_, connect) = &all[1];
    let link = format!("/t/{}/{token}", connect.verification_id);
    let page = tenant_portal(&deps, request(http::Method::GET, &link, "")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(r#"name="action" value="start""#),
        "{}",
        page.body
    );
    assert!(!page.body.contains(LINK_TOKEN));
    // Starting makes one link token and shows the widget with it; nothing is written.
    let before = store
        .get_verification(connect.verification_id)
        .await
        .unwrap();
    let page = tenant_portal(&deps, request(http::Method::POST, &link, "action=start")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains(LINK_TOKEN), "{}", page.body);
    assert_eq!(provider.calls(), vec!["begin"]);
    let after = store
        .get_verification(connect.verification_id)
        .await
        .unwrap();
    assert!(before == after, "the start POST writes nothing");
    // A start on a page that has no connection step (consent still to give, closed, test
    // mode's scenarios) asks the provider nothing and shows the page as it is.
    for (state, v) in all.iter().filter(|(s, _)| *s != "connect") {
        let link = format!("/t/{}/{token}", v.verification_id);
        let page = tenant_portal(&deps, request(http::Method::POST, &link, "action=start")).await;
        assert!(page.status < 500, "{state}: {}", page.status);
        assert!(!page.body.contains(LINK_TOKEN), "{state}");
    }
    assert_eq!(provider.calls(), vec!["begin"]);
}

/// The sandbox's sample documents: a test verification's page lists them and each downloads as
/// a PDF made for its tenant; a live verification's (with a real provider) offers none.
#[tokio::test]
async fn the_sandbox_offers_its_samples_to_test_verifications_only() {
    let store = MemoryStore::new();
    store
        .put_account(&active_account(ACCOUNT, "pro", created()))
        .await
        .unwrap();
    let provider = CountingProvider::default();
    let deps = deps(&store, &provider);
    let (token, token_hash) = generate_link_token();
    let all = verifications(&token_hash);
    for (_, v) in &all {
        store.insert_verification(v);
    }
    let find = |state: &str| &all.iter().find(|(s, _)| *s == state).unwrap().1;
    let test = format!("/t/{}/{token}", find("test-mode connect").verification_id);
    let page = tenant_portal(&deps, request(http::Method::GET, &test, "")).await;
    assert_eq!(page.status, 200);
    for sample in domain::documents::samples::Sample::ALL {
        let path = format!("{test}/samples/{}.pdf", sample.slug());
        assert!(page.body.contains(&path), "the page links {path}");
        let got = tenant_portal(&deps, request(http::Method::GET, &path, "")).await;
        assert_eq!(got.status, 200, "{path}");
        let header = |name: &str| {
            (got.headers.iter())
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(header("content-type").as_deref(), Some("application/pdf"));
        assert_eq!(
            header("content-disposition"),
            Some(format!("attachment; filename=\"{}\"", sample.file_name()))
        );
        let bytes = got.binary.expect("a file");
        assert!(bytes.starts_with(b"%PDF-"), "{path}");
    }
    // Only downloads; an unknown sample is not found.
    let genuine = format!("{test}/samples/genuine.pdf");
    let post = tenant_portal(&deps, request(http::Method::POST, &genuine, "")).await;
    assert_eq!(post.status, 405);
    let unknown = format!("{test}/samples/payslip.pdf");
    let got = tenant_portal(&deps, request(http::Method::GET, &unknown, "")).await;
    assert_eq!(got.status, 404);
    // A live verification's page offers no samples, and none downloads.
    let live = format!("/t/{}/{token}", find("connect").verification_id);
    let page = tenant_portal(&deps, request(http::Method::GET, &live, "")).await;
    assert!(!page.body.contains("/samples/"), "{}", page.body);
    let got = tenant_portal(
        &deps,
        request(
            http::Method::GET,
            &format!("{live}/samples/genuine.pdf"),
            "",
        ),
    )
    .await;
    assert_eq!(got.status, 404);
    // And a wrong token opens no sample.
    let forged = format!(
        "/t/{}/not-the-token/samples/genuine.pdf",
        find("test-mode connect").verification_id
    );
    let got = tenant_portal(&deps, request(http::Method::GET, &forged, "")).await;
    assert_eq!(got.status, 404);
    assert_eq!(provider.calls(), Vec::<&str>::new());
}
