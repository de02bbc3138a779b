//! The Plaid adapter against recorded Plaid answers (tests/fixtures/plaid/, written from Plaid's
//! API reference), served by a tiny HTTP/1.1 server on 127.0.0.1 that also records what the
//! adapter sends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use shared::adapters::plaid::{PlaidConfig, PlaidConfigError, PlaidIncomeProvider};
use shared::domain::Verification;
use shared::domain::income::{AmountsBasis, PayFrequency, VerificationMethod};
use shared::domain::report::build_report;
use shared::domain::stability::{RegularityLabel, TrendLabel};
use shared::ports::{ConnectStep, IncomeProvider, ProviderError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const CLIENT_ID: &str = "5f7c1a2b3c4d5e6f7a8b9c0d";
const SECRET: &str = "b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8";
const USER_TOKEN: &str = "user-sandbox-b0e2c4ee-a763-4df5-bfe9-46a46bce993d";
const LINK_TOKEN: &str = "link-sandbox-af1a0311-da53-4636-b754-dd15cc058176";
const VERIFICATION_ID: &str = "0b7f9a52-3c1e-4d8e-9f61-2a4c5e7d9b13";
const TENANT_EMAIL: &str = "jane.tenant@example.com";

const USER_CREATE: &str = include_str!("../fixtures/plaid/user_create.json");
const LINK_TOKEN_CREATE: &str = include_str!("../fixtures/plaid/link_token_create.json");
const BANK_INCOME: &str = include_str!("../fixtures/plaid/bank_income_get.json");
const BANK_INCOME_UNREADABLE: &str =
    include_str!("../fixtures/plaid/bank_income_get_unavailable_data.json");
const PRODUCT_NOT_READY: &str = include_str!("../fixtures/plaid/error_product_not_ready.json");
const INVALID_API_KEYS: &str = include_str!("../fixtures/plaid/error_invalid_api_keys.json");
const ITEM_LOGIN_REQUIRED: &str = include_str!("../fixtures/plaid/error_item_login_required.json");
const INTERNAL_SERVER_ERROR: &str =
    include_str!("../fixtures/plaid/error_internal_server_error.json");

// ---- A fake Plaid ------------------------------------------------------------------------------

#[derive(Clone)]
enum Reply {
    /// Status and body, served as JSON.
    Body(u16, String),
    /// A redirect elsewhere on the same server (which must not be followed).
    Redirect(&'static str),
    /// Accepts the request and never answers.
    Hang,
    /// The first request to the path gets the first reply, every later one the second.
    Then(Box<Reply>, Box<Reply>),
}

fn ok(body: &str) -> Reply {
    Reply::Body(200, body.to_string())
}

#[derive(Debug, Clone)]
struct Recorded {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: Value,
}

struct FakePlaid {
    base_url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl FakePlaid {
    /// Serves `routes` (path -> reply); unknown paths get a Plaid-style 404.
    async fn start(routes: Vec<(&'static str, Reply)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let routes: Arc<HashMap<&'static str, Reply>> = Arc::new(routes.into_iter().collect());
        let recorded = requests.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, routes.clone(), recorded.clone()));
            }
        });
        FakePlaid { base_url, requests }
    }

    fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    fn provider(&self) -> PlaidIncomeProvider {
        self.provider_with_timeout(Duration::from_secs(5))
    }

    fn provider_with_timeout(&self, timeout: Duration) -> PlaidIncomeProvider {
        PlaidIncomeProvider::new(PlaidConfig {
            base_url: self.base_url.clone(),
            client_id: CLIENT_ID.into(),
            secret: SECRET.into(),
            timeout,
        })
        .unwrap()
    }
}

/// One connection, one request (answers close the connection).
async fn serve(
    mut stream: TcpStream,
    routes: Arc<HashMap<&'static str, Reply>>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_string();
    let path = request_line.next().unwrap_or_default().to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    let calls = {
        let mut recorded = recorded.lock().unwrap();
        recorded.push(Recorded {
            method,
            path: path.clone(),
            headers,
            body,
        });
        recorded.iter().filter(|r| r.path == path).count()
    };

    let reply = routes.get(path.as_str()).cloned().unwrap_or_else(|| {
        Reply::Body(
            404,
            r#"{"error_type":"INVALID_REQUEST","error_code":"NOT_FOUND","request_id":"nf"}"#.into(),
        )
    });
    let reply = match reply {
        Reply::Then(first, later) => *(if calls == 1 { first } else { later }),
        other => other,
    };
    let response = match reply {
        Reply::Then(..) => unreachable!("resolved above"),
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            return;
        }
        Reply::Redirect(location) => format!(
            "HTTP/1.1 302 Found\r\nLocation: {location}\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        Reply::Body(status, body) => format!(
            "HTTP/1.1 {status} Status\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    };
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

// ---- Helpers -----------------------------------------------------------------------------------

fn verification(provider_user: Option<&str>) -> Verification {
    let mut v = json!({
        "verification_id": VERIFICATION_ID,
        "account_id": "acct_landlord_1",
        "mode": "live",
        "status": "in_progress",
        "tenant_email": TENANT_EMAIL,
        "tenant_name": "Jane Tenant",
        "monthly_rent": 1800.0,
        "created_at": "2026-11-20T10:00:00.000Z",
        "expires_at": "2026-11-27T10:00:00.000Z",
    });
    if let Some(user) = provider_user {
        v["provider_user"] = json!(user);
    }
    serde_json::from_value(v).unwrap()
}

/// No error text may carry the secret, a token or an e-mail address.
fn assert_clean(error: &ProviderError) {
    for text in [error.to_string(), format!("{error:?}")] {
        for forbidden in [SECRET, USER_TOKEN, LINK_TOKEN, "@", CLIENT_ID] {
            assert!(!text.contains(forbidden), "{text:?} contains {forbidden:?}");
        }
    }
}

fn unavailable(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    match result {
        Err(e @ ProviderError::Unavailable(_)) => {
            assert_clean(&e);
            e.to_string()
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
}

fn rejected(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    match result {
        Err(e @ ProviderError::Rejected(_)) => {
            assert_clean(&e);
            e.to_string()
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
}

fn assert_authenticated(request: &Recorded, path: &str) {
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, path);
    assert_eq!(request.headers["content-type"], "application/json");
    assert_eq!(request.headers["plaid-version"], "2020-09-14");
    assert_eq!(request.body["client_id"], CLIENT_ID);
    assert_eq!(request.body["secret"], SECRET);
    // Nothing about the tenant goes to Plaid but the verification id.
    assert!(!request.body.to_string().contains('@'));
}

// ---- create_user and begin -----------------------------------------------------------------

/// The handle create_user gives: "<client_user_id> <user_token>".
fn handle_of(client_user_id: &str) -> String {
    format!("{client_user_id} {USER_TOKEN}")
}

#[tokio::test]
async fn create_user_gives_a_handle_with_its_own_client_user_id() {
    let plaid = FakePlaid::start(vec![("/user/create", ok(USER_CREATE))]).await;
    let provider = plaid.provider();

    let first = provider
        .create_user(&verification(None))
        .await
        .unwrap()
        .unwrap();
    let second = provider
        .create_user(&verification(None))
        .await
        .unwrap()
        .unwrap();

    let requests = plaid.requests();
    assert_eq!(requests.len(), 2);
    assert_authenticated(&requests[0], "/user/create");
    let ids: Vec<&str> = requests
        .iter()
        .map(|r| r.body["client_user_id"].as_str().unwrap())
        .collect();
    // An attempt whose store write failed must not block the next one: Plaid refuses a second
    // /user/create for the same client_user_id.
    assert_ne!(ids[0], ids[1]);
    for (id, handle) in ids.iter().zip([&first, &second]) {
        assert!(id.starts_with(&format!("{VERIFICATION_ID}-")), "{id}");
        assert_eq!(*handle, handle_of(id));
    }
}

#[tokio::test]
async fn begin_makes_a_fresh_bank_income_link_token_for_the_stored_user() {
    let plaid = FakePlaid::start(vec![("/link/token/create", ok(LINK_TOKEN_CREATE))]).await;
    let provider = plaid.provider();
    let handle = handle_of(&format!("{VERIFICATION_ID}-0a1b2c3d"));

    for _ in 0..2 {
        let step = provider
            .begin(&verification(Some(&handle)), Some(&handle))
            .await
            .unwrap();
        assert_eq!(
            step,
            ConnectStep::Widget {
                link_token: LINK_TOKEN.into()
            }
        );
    }

    // One new token per page: a returning tenant never gets an expired or used one.
    let requests = plaid.requests();
    assert_eq!(requests.len(), 2);
    let link = &requests[1];
    assert_authenticated(link, "/link/token/create");
    assert_eq!(link.body["user_token"], USER_TOKEN);
    assert_eq!(
        link.body["user"]["client_user_id"],
        format!("{VERIFICATION_ID}-0a1b2c3d")
    );
    assert_eq!(link.body["client_name"], "Tenant Income Verification");
    assert_eq!(link.body["language"], "en");
    assert_eq!(link.body["country_codes"], json!(["US"]));
    assert_eq!(link.body["products"], json!(["income_verification"]));
    assert_eq!(
        link.body["income_verification"],
        json!({"income_source_types": ["bank"], "bank_income": {"days_requested": 365}})
    );
}

#[tokio::test]
async fn a_link_token_failure_after_user_create_is_recovered_with_the_same_user() {
    // /user/create answers, then /link/token/create fails once: the stored handle is enough to
    // try again, and no second Plaid user is made.
    let plaid = FakePlaid::start(vec![
        ("/user/create", ok(USER_CREATE)),
        (
            "/link/token/create",
            Reply::Then(
                Box::new(Reply::Body(500, INTERNAL_SERVER_ERROR.into())),
                Box::new(ok(LINK_TOKEN_CREATE)),
            ),
        ),
    ])
    .await;
    let provider = plaid.provider();
    let handle = provider
        .create_user(&verification(None))
        .await
        .unwrap()
        .unwrap();
    let v = verification(Some(&handle));

    unavailable(provider.begin(&v, Some(&handle)).await);
    let step = provider.begin(&v, Some(&handle)).await.unwrap();

    assert_eq!(
        step,
        ConnectStep::Widget {
            link_token: LINK_TOKEN.into()
        }
    );
    let paths: Vec<String> = plaid.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        ["/user/create", "/link/token/create", "/link/token/create"]
    );
}

#[tokio::test]
async fn a_bare_user_token_stored_earlier_still_works() {
    let plaid = FakePlaid::start(vec![("/link/token/create", ok(LINK_TOKEN_CREATE))]).await;

    plaid
        .provider()
        .begin(&verification(Some(USER_TOKEN)), Some(USER_TOKEN))
        .await
        .unwrap();

    let requests = plaid.requests();
    assert_eq!(requests[0].body["user_token"], USER_TOKEN);
    assert_eq!(requests[0].body["user"]["client_user_id"], VERIFICATION_ID);
}

#[tokio::test]
async fn begin_without_a_user_is_unavailable_and_asks_plaid_nothing() {
    let plaid = FakePlaid::start(vec![("/link/token/create", ok(LINK_TOKEN_CREATE))]).await;

    unavailable(plaid.provider().begin(&verification(None), None).await);

    assert!(plaid.requests().is_empty());
}

#[tokio::test]
async fn create_user_without_a_user_token_in_the_answer_is_unavailable() {
    // Clients on Plaid's newer user APIs get only a user_id back.
    let plaid = FakePlaid::start(vec![(
        "/user/create",
        ok(r#"{"user_id": "usr_9nSp2KuZ2x4JDw", "request_id": "Aim3b"}"#),
    )])
    .await;

    let text = unavailable(plaid.provider().create_user(&verification(None)).await);

    assert!(text.contains("user_token"), "{text}");
    assert_eq!(plaid.requests().len(), 1);
}

// ---- fetch_income ------------------------------------------------------------------------------

#[tokio::test]
async fn fetch_income_maps_the_bank_income_report() {
    let plaid = FakePlaid::start(vec![("/credit/bank_income/get", ok(BANK_INCOME))]).await;

    let income = plaid
        .provider()
        .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
        .await
        .unwrap();

    let requests = plaid.requests();
    assert_eq!(requests.len(), 1);
    assert_authenticated(&requests[0], "/credit/bank_income/get");
    assert_eq!(requests[0].body["user_token"], USER_TOKEN);
    assert_eq!(requests[0].body["options"], json!({"count": 1}));

    assert_eq!(income.method, VerificationMethod::Bank);
    // The report's generation time ends the data window, not the last deposit (2026-11-15).
    assert_eq!(income.as_of.to_string(), "2026-11-20");
    assert_eq!(income.provider_confidence, None);
    let summary: Vec<(&str, &str, Option<PayFrequency>, usize)> = income
        .sources
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.category.as_str(),
                s.pay_frequency,
                s.payments.len(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "ACME CORP PAYROLL PPD ID: 9876543210",
                "SALARY",
                Some(PayFrequency::Biweekly),
                26
            ),
            // UNKNOWN frequency: irregular.
            ("UBER EATS PAYOUT", "GIG_ECONOMY", None, 28),
            (
                "AIRBNB PAYMENTS PPD ID: 1234567890",
                "RENTAL",
                Some(PayFrequency::Monthly),
                12
            ),
            // No description and no pay_frequency at all: named after the account it was paid into.
            (
                "Deposits to Plaid Saving at First Platypus Bank",
                "TRANSFER_FROM_APPLICATION",
                None,
                6
            ),
        ]
    );

    let report = build_report(&income, Some(1800.0));
    let monthly: Vec<f64> = report
        .income_sources
        .iter()
        .map(|s| s.monthly_income)
        .collect();
    // 2,150 x 26 / 12; 5,500 over the 201 days from 2026-05-03 to 2026-11-20 (6.60 months);
    // 600; 900 over the 110 days from 2026-08-02 (3.61 months).
    assert_eq!(monthly, vec![4658.33, 832.87, 600.0, 249.03]);
    assert_eq!(report.total_monthly_income, 6340.23);
    assert_eq!(report.passes_3x_rule, Some(true));

    // Dated deposits from the monthly history give the stability figures.
    assert_eq!(
        income
            .sources
            .iter()
            .map(|s| s.payments.len())
            .collect::<Vec<_>>(),
        vec![26, 28, 12, 6]
    );
    assert_eq!(report.amounts_basis, Some(AmountsBasis::Net));
    let stability = |i: usize| report.income_sources[i].stability.clone().unwrap();
    let salary = stability(0);
    assert_eq!(salary.months_observed, 12);
    assert_eq!(salary.last_payment_date.to_string(), "2026-11-13");
    assert_eq!(salary.regularity.label, RegularityLabel::Regular);
    assert_eq!(salary.trend.label, TrendLabel::Stable);
    let gig = stability(1);
    assert_eq!(gig.regularity.label, RegularityLabel::Irregular);
    assert_eq!(gig.months_observed, 7);
    assert_ne!(gig.trend.label, TrendLabel::InsufficientHistory);
    let rent = stability(2);
    assert_eq!(
        (rent.regularity.label, rent.trend.label),
        (RegularityLabel::Regular, TrendLabel::Stable)
    );
    let overall = report.stability.clone().unwrap();
    assert_eq!(overall.last_payment_date.to_string(), "2026-11-15");
    assert_eq!(overall.months_observed, 12);
    // Every category counts at its full amount: the total is the sum of all four sources.
    assert_eq!(report.income_sources.len(), 4);
}

#[tokio::test]
async fn a_report_without_income_sources_is_zero_income() {
    let plaid = FakePlaid::start(vec![(
        "/credit/bank_income/get",
        ok(
            r#"{"bank_income": [{"bank_income_id": "b1", "days_requested": 365,
               "generated_time": "2026-11-20T16:42:07Z",
               "items": [{"bank_income_accounts": [], "bank_income_sources": [],
                          "institution_name": "Citizens Bank", "item_id": "i1"}],
               "warnings": []}],
             "request_id": "r1"}"#,
        ),
    )])
    .await;

    let income = plaid
        .provider()
        .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
        .await
        .unwrap();

    assert!(income.sources.is_empty());
}

#[tokio::test]
async fn a_report_plaid_could_not_read_is_rejected() {
    let plaid = FakePlaid::start(vec![(
        "/credit/bank_income/get",
        ok(BANK_INCOME_UNREADABLE),
    )])
    .await;

    let text = rejected(
        plaid
            .provider()
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );

    assert!(text.contains("TRANSACTIONS_UNAVAILABLE"), "{text}");
}

#[tokio::test]
async fn no_report_at_all_is_rejected() {
    let plaid = FakePlaid::start(vec![(
        "/credit/bank_income/get",
        ok(r#"{"bank_income": [], "request_id": "r2"}"#),
    )])
    .await;

    rejected(
        plaid
            .provider()
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );
}

#[tokio::test]
async fn an_empty_connection_is_rejected_without_calling_plaid() {
    let plaid = FakePlaid::start(vec![]).await;

    rejected(
        plaid
            .provider()
            .fetch_income(&verification(None), "  ")
            .await,
    );

    assert!(plaid.requests().is_empty());
}

// ---- Errors ------------------------------------------------------------------------------------

#[tokio::test]
async fn product_not_ready_is_unavailable() {
    // Plaid is still generating the report after Link: the tenant may try again shortly.
    let plaid = FakePlaid::start(vec![(
        "/credit/bank_income/get",
        Reply::Body(400, PRODUCT_NOT_READY.into()),
    )])
    .await;

    let text = unavailable(
        plaid
            .provider()
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );

    assert!(text.contains("PRODUCT_NOT_READY"), "{text}");
    assert!(text.contains("HNTDNrA8F1shFEW"), "{text}");
}

#[tokio::test]
async fn invalid_api_keys_is_unavailable_not_a_failed_verification() {
    // Bad keys are the operator's to fix; failing the tenant's verification for them would burn
    // the landlord's verification for nothing.
    let plaid = FakePlaid::start(vec![(
        "/user/create",
        Reply::Body(400, INVALID_API_KEYS.into()),
    )])
    .await;

    let text = unavailable(plaid.provider().create_user(&verification(None)).await);

    assert!(text.contains("INVALID_API_KEYS"), "{text}");
    // Nothing more is attempted after /user/create fails.
    assert_eq!(plaid.requests().len(), 1);
}

#[tokio::test]
async fn item_errors_about_the_tenant_are_rejected() {
    let plaid = FakePlaid::start(vec![(
        "/credit/bank_income/get",
        Reply::Body(400, ITEM_LOGIN_REQUIRED.into()),
    )])
    .await;

    let text = rejected(
        plaid
            .provider()
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );

    assert!(text.contains("ITEM_LOGIN_REQUIRED"), "{text}");
}

#[tokio::test]
async fn server_errors_are_unavailable() {
    let plaid = FakePlaid::start(vec![
        (
            "/credit/bank_income/get",
            Reply::Body(500, INTERNAL_SERVER_ERROR.into()),
        ),
        // A load balancer's page rather than a Plaid error body.
        (
            "/link/token/create",
            Reply::Body(503, "<html>Service Unavailable</html>".into()),
        ),
        ("/user/create", ok(USER_CREATE)),
    ])
    .await;
    let provider = plaid.provider();

    let text = unavailable(
        provider
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );
    assert!(text.contains("INTERNAL_SERVER_ERROR"), "{text}");

    let text = unavailable(
        provider
            .begin(&verification(Some(USER_TOKEN)), Some(USER_TOKEN))
            .await,
    );
    assert!(text.contains("503"), "{text}");
}

#[tokio::test]
async fn an_unanswered_request_times_out_as_unavailable() {
    let plaid = FakePlaid::start(vec![("/credit/bank_income/get", Reply::Hang)]).await;
    let provider = plaid.provider_with_timeout(Duration::from_millis(300));

    // The outer bound only stops a hang if the configured timeout never fires; "timed out"
    // below is what proves the 300 ms one did.
    let outcome = tokio::time::timeout(
        Duration::from_secs(60),
        provider.fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN),
    )
    .await
    .expect("the provider's own timeout never fired");
    let text = unavailable(outcome);

    assert!(text.contains("timed out"), "{text}");
}

#[tokio::test]
async fn malformed_json_is_unavailable() {
    let plaid = FakePlaid::start(vec![
        // Cut off mid-answer.
        (
            "/credit/bank_income/get",
            ok(&BANK_INCOME[..BANK_INCOME.len() / 2]),
        ),
        // Well-formed JSON of the wrong shape.
        ("/user/create", ok(USER_CREATE)),
        (
            "/link/token/create",
            ok(r#"{"link_token": 42, "request_id": "x"}"#),
        ),
    ])
    .await;
    let provider = plaid.provider();

    let text = unavailable(
        provider
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );
    assert!(text.contains("malformed"), "{text}");
    let text = unavailable(
        provider
            .begin(&verification(Some(USER_TOKEN)), Some(USER_TOKEN))
            .await,
    );
    assert!(text.contains("malformed"), "{text}");
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let plaid = FakePlaid::start(vec![
        ("/credit/bank_income/get", Reply::Redirect("/elsewhere")),
        ("/elsewhere", ok(BANK_INCOME)),
    ])
    .await;

    unavailable(
        plaid
            .provider()
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );

    let paths: Vec<String> = plaid.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, vec!["/credit/bank_income/get"]);
}

#[tokio::test]
async fn error_texts_never_echo_what_plaid_echoes() {
    // Plaid's free-text fields can quote request values; only type, code and request id are kept,
    // and only when they look like Plaid tokens.
    let hostile = json!({
        "error_type": "INVALID_INPUT",
        "error_code": "INVALID_FIELD",
        "error_message":
            format!("user_token {USER_TOKEN} of {TENANT_EMAIL} is invalid for secret {SECRET}"),
        "display_message": format!("contact {TENANT_EMAIL}"),
        "request_id": TENANT_EMAIL,
    })
    .to_string();
    let plaid =
        FakePlaid::start(vec![("/credit/bank_income/get", Reply::Body(400, hostile))]).await;

    // `rejected` asserts the text is clean.
    let text = rejected(
        plaid
            .provider()
            .fetch_income(&verification(Some(USER_TOKEN)), USER_TOKEN)
            .await,
    );

    assert!(text.contains("INVALID_FIELD"), "{text}");
}

#[tokio::test]
async fn a_connection_refused_is_unavailable() {
    // Bind then drop a listener: nothing listens on that port any more.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let provider = PlaidIncomeProvider::new(PlaidConfig {
        base_url,
        client_id: CLIENT_ID.into(),
        secret: SECRET.into(),
        timeout: Duration::from_secs(2),
    })
    .unwrap();

    unavailable(provider.create_user(&verification(None)).await);
}

// ---- Configuration -----------------------------------------------------------------------------

#[test]
fn config_reads_the_secret_json_and_never_prints_the_secret() {
    let config = PlaidConfig::from_secret_json(
        "https://sandbox.plaid.com",
        &json!({"client_id": CLIENT_ID, "secret": SECRET}).to_string(),
    )
    .unwrap();

    assert_eq!(config.base_url, "https://sandbox.plaid.com");
    assert_eq!(config.client_id, CLIENT_ID);
    assert_eq!(config.secret, SECRET);
    assert_eq!(config.timeout, Duration::from_secs(10));
    let debug = format!("{config:?}");
    assert!(!debug.contains(SECRET), "{debug}");
    assert!(debug.contains("redacted"), "{debug}");
    let provider = PlaidIncomeProvider::new(config).unwrap();
    assert!(!format!("{provider:?}").contains(SECRET));
}

#[test]
fn config_errors_name_the_problem_not_the_value() {
    let secret_json = json!({"client_id": CLIENT_ID, "secret": SECRET}).to_string();
    for url in [
        "http://production.plaid.com",
        "https://user:hunter2@production.plaid.com",
        "production.plaid.com",
    ] {
        let error = PlaidConfig::from_secret_json(url, &secret_json).unwrap_err();
        assert!(
            matches!(error, PlaidConfigError::InvalidBaseUrl),
            "{url}: {error:?}"
        );
        assert!(!error.to_string().contains("hunter2"));
    }
    let error = PlaidConfig::from_secret_json(
        "https://production.plaid.com",
        &json!({"client_id": CLIENT_ID, "secret": ""}).to_string(),
    )
    .unwrap_err();
    assert!(matches!(error, PlaidConfigError::SecretMalformed));
    assert!(!error.to_string().contains(CLIENT_ID));
}

#[test]
fn plain_http_is_only_for_loopback() {
    let config = |base_url: &str| PlaidConfig {
        base_url: base_url.into(),
        client_id: CLIENT_ID.into(),
        secret: SECRET.into(),
        timeout: Duration::from_secs(1),
    };
    assert!(PlaidIncomeProvider::new(config("http://127.0.0.1:9")).is_ok());
    assert!(PlaidIncomeProvider::new(config("http://[::1]:9")).is_ok());
    assert!(PlaidIncomeProvider::new(config("https://sandbox.plaid.com/")).is_ok());
    assert!(matches!(
        PlaidIncomeProvider::new(config("http://10.0.0.1")),
        Err(PlaidConfigError::InvalidBaseUrl)
    ));
    assert!(matches!(
        PlaidIncomeProvider::new(config("http://localhost:9")),
        Err(PlaidConfigError::InvalidBaseUrl)
    ));
}
