//! The payroll method on the tenant page: a create that names it, the sandbox's payroll
//! scenarios offered alone, and a payroll report with gross pay, net beside it, and its methods.

use super::*;
use domain::income::VerificationMethod;

/// Connects the `payroll_active` scenario; the verification is then completed by payroll.
async fn connect_payroll_active(env: &TestEnv, link: &str, id: &str) -> Value {
    let form = "action=connect&scenario=payroll_active";
    let p = page(env, "POST", link, Some(form)).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let data = api_get(env, &env.test_key, id).await;
    assert_eq!(data["status"], "completed");
    assert_eq!(data["income_report"]["verification_method"], "payroll");
    data
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payroll_only_verification_offers_payroll_and_reports_gross_and_net() {
    let env = env().await;
    let (id, link) = create_with(
        &env,
        &env.test_key,
        json!({"tenant_email": "pat@example.com", "monthly_rent": 1500, "methods": ["payroll"]}),
    )
    .await;
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["methods"],
        json!(["payroll"])
    );

    open_and_consent(&env, &link).await;
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains("value=\"payroll_active\""), "{}", p.html);
    assert!(
        !p.html.contains("value=\"good\""),
        "only payroll is offered"
    );
    // A bank scenario the page did not offer is refused, and nothing changes.
    let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(p.status, 400, "{}", p.html);
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["status"],
        "in_progress"
    );

    let data = connect_payroll_active(&env, &link, &id).await;
    let report = &data["income_report"];
    assert_eq!(report["methods_used"], json!(["payroll"]));
    assert_eq!(report["amounts_basis"], "gross");
    assert_eq!(report["total_monthly_income"], 5200.0);
    let source = &report["income_sources"][0];
    assert_eq!(source["amounts_basis"], "gross");
    assert_eq!(source["net_monthly_income"], 4024.8);
}

/// Routing: a bank connection that fails does not fail the verification while payroll remains;
/// the page offers payroll with one click, consent kept, and the report records both tries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_bank_connection_is_followed_by_payroll() {
    let env = env().await;
    let (id, link) = create(&env, &env.test_key, "ria@example.com", Some(1500.0)).await;
    open_and_consent(&env, &link).await;
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains("value=\"good\"") && !p.html.contains("value=\"payroll_active\""));

    let p = page(&env, "POST", &link, Some("action=connect&scenario=fail")).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let data = api_get(&env, &env.test_key, &id).await;
    assert_eq!(data["status"], "in_progress", "a refusal with payroll left");
    let p = page(&env, "GET", &link, None).await;
    assert!(
        p.html.contains("Connecting by bank did not work"),
        "{}",
        p.html
    );
    assert!(p.html.contains("value=\"payroll_active\"") && !p.html.contains("value=\"good\""));

    let data = connect_payroll_active(&env, &link, &id).await;
    let report = &data["income_report"];
    let tries: Vec<(&str, &str)> = report["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["method"].as_str().unwrap(),
                a["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(tries, vec![("bank", "failed"), ("payroll", "succeeded")]);
    assert!(report["attempts"][0]["at"].as_str().unwrap().ends_with('Z'));
    println!(
        "report whose first method failed and second succeeded: {}",
        serde_json::to_string_pretty(report).unwrap()
    );

    // The local stack has a documents bucket: after bank and payroll, uploads remain.
    let (id, link) = create(&env, &env.test_key, "sam@example.com", Some(1500.0)).await;
    open_and_consent(&env, &link).await;
    page(&env, "POST", &link, Some("action=connect&scenario=fail")).await;
    let form = "action=connect&scenario=payroll_terminated";
    page(&env, "POST", &link, Some(form)).await;
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["status"],
        "in_progress"
    );
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains("Or upload documents"), "{}", p.html);

    // With every method tried, no income on the last completes the verification as before.
    let (id, link) = create_with(
        &env,
        &env.test_key,
        json!({"tenant_email": "rob@example.com", "monthly_rent": 1500, "methods": ["bank", "payroll"]}),
    )
    .await;
    open_and_consent(&env, &link).await;
    page(&env, "POST", &link, Some("action=connect&scenario=fail")).await;
    page(
        &env,
        "POST",
        &link,
        Some("action=connect&scenario=payroll_terminated"),
    )
    .await;
    let data = api_get(&env, &env.test_key, &id).await;
    assert_eq!(
        data["status"], "completed",
        "no income on the last method completes"
    );
    let tries = data["income_report"]["attempts"].as_array().unwrap().len();
    assert_eq!(tries, 2);
    assert_eq!(data["income_report"]["total_monthly_income"], 0.0);
}

/// The account's default set (admin `set-default-methods`) applies to a create that names no
/// methods: the tenant page takes it at consent, and GET shows it from then on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_without_methods_takes_the_accounts_default_set() {
    let env = env().await;
    let account = devstack::stack::DEMO_ACCOUNT;
    let default = [VerificationMethod::Payroll, VerificationMethod::Bank];
    assert!(
        env.store
            .set_default_methods(account, &default)
            .await
            .unwrap()
    );
    let (id, link) = create(&env, &env.test_key, "dee@example.com", Some(1500.0)).await;
    assert!(
        api_get(&env, &env.test_key, &id)
            .await
            .get("methods")
            .is_none()
    );

    open_and_consent(&env, &link).await;
    let data = api_get(&env, &env.test_key, &id).await;
    assert_eq!(data["methods"], json!(["payroll", "bank"]));
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains("value=\"payroll_active\"") && !p.html.contains("value=\"good\""));

    // The create's own methods win over the default.
    let body =
        json!({"tenant_email": "eve@example.com", "monthly_rent": 1500, "methods": ["bank"]});
    let (id, link) = create_with(&env, &env.test_key, body).await;
    open_and_consent(&env, &link).await;
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["methods"],
        json!(["bank"])
    );
}
