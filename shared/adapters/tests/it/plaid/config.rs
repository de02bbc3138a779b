//! The adapter's configuration: the secret's JSON, and loopback-only plain HTTP.

use super::*;

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
    let provider = PlaidCheckIncomeProvider::new(config).unwrap();
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
    assert!(PlaidCheckIncomeProvider::new(config("http://127.0.0.1:9")).is_ok());
    assert!(PlaidCheckIncomeProvider::new(config("http://[::1]:9")).is_ok());
    assert!(PlaidCheckIncomeProvider::new(config("https://sandbox.plaid.com/")).is_ok());
    assert!(matches!(
        PlaidCheckIncomeProvider::new(config("http://10.0.0.1")),
        Err(PlaidConfigError::InvalidBaseUrl)
    ));
    assert!(matches!(
        PlaidCheckIncomeProvider::new(config("http://localhost:9")),
        Err(PlaidConfigError::InvalidBaseUrl)
    ));
}
