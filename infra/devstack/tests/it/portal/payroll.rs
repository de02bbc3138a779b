//! The payroll method on the tenant page: a create that names it, the sandbox's payroll
//! scenarios offered alone, and a payroll report with gross pay, net beside it, and its methods.

use super::*;

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

    let p = page(
        &env,
        "POST",
        &link,
        Some("action=connect&scenario=payroll_active"),
    )
    .await;
    assert_eq!(p.status, 303, "{}", p.html);
    let data = api_get(&env, &env.test_key, &id).await;
    assert_eq!(data["status"], "completed");
    let report = &data["income_report"];
    assert_eq!(report["verification_method"], "payroll");
    assert_eq!(report["methods_used"], json!(["payroll"]));
    assert_eq!(report["amounts_basis"], "gross");
    assert_eq!(report["total_monthly_income"], 5200.0);
    let source = &report["income_sources"][0];
    assert_eq!(source["amounts_basis"], "gross");
    assert_eq!(source["net_monthly_income"], 4024.8);
}
