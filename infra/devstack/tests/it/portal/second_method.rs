//! A second method on the tenant page ("add another income source"), through the local server
//! against moto: payroll's income held while the tenant adds the bank, and the report, built once,
//! counting the job both saw once.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payroll_then_the_bank_of_the_same_job_counts_it_once() {
    let env = env().await;
    let body = json!({"tenant_email": "two@example.com", "property_address": "9 Oak Lane",
        "monthly_rent": 1500, "methods": ["payroll", "bank"]});
    let (id, link) = create_with(&env, &env.test_key, body).await;
    open_and_consent(&env, &link).await;
    let p = page(&env, "GET", &link, None).await;
    assert!(p.html.contains(r#"name="more" value="yes""#), "{}", p.html);

    // Payroll first, with "add another income source" ticked: held, not completed.
    let form = "action=connect&scenario=payroll_active&more=yes";
    let p = page(&env, "POST", &link, Some(form)).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let data = api_get(&env, &env.test_key, &id).await;
    assert_eq!(data["status"], "in_progress");
    assert!(data.get("income_report").is_none_or(Value::is_null));
    let p = page(&env, "GET", &link, None).await;
    assert!(
        p.html.contains("Your income from payroll is in"),
        "{}",
        p.html
    );
    assert!(p.html.contains("value=\"samejob\"") && !p.html.contains("value=\"payroll_active\""));

    // The bank sees the same job's net pay: the report counts it once.
    let p = page(&env, "POST", &link, Some("action=connect&scenario=samejob")).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let data = api_get(&env, &env.test_key, &id).await;
    assert_eq!(data["status"], "completed");
    let report = &data["income_report"];
    assert_eq!(report["total_monthly_income"], 5200.0, "{report}");
    assert_eq!(report["income_sources"].as_array().unwrap().len(), 1);
    assert_eq!(report["income_sources"][0]["method"], "payroll");
    assert_eq!(report["income_sources"][0]["amounts_basis"], "gross");
    let duplicate = &report["excluded_sources"][0];
    assert_eq!(duplicate["reason"], "duplicate", "{report}");
    assert_eq!(duplicate["method"], "bank");
    assert_eq!(duplicate["duplicate_of"], "Whole Goods Market");
    assert_eq!(report["methods_used"], json!(["payroll", "bank"]));
    assert_eq!(report["verification_method"], "payroll");
    let tries: Vec<&str> = report["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(tries, vec!["succeeded", "succeeded"]);

    let pdf = common::landlord_pdf(&env, &env.test_key, &id).await;
    let path = common::artifacts_dir().join("income-report-two-methods.pdf");
    let text = common::pdf_text(&pdf, &path);
    assert!(text.contains("Methods used payroll, bank"), "{text}");
    assert!(text.contains("verified by more than one method"), "{text}");
    assert!(text.contains("same income as Whole Goods Market"), "{text}");
    assert!(text.contains("reason duplicate"), "{text}");
    // The counted source names the sightings behind it, payroll's first.
    assert!(
        text.contains("seen by payroll: \"Whole Goods Market\", 24 pays; bank:"),
        "{text}"
    );
    let sightings: Vec<&str> = report["income_sources"][0]["sightings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["method"].as_str().unwrap())
        .collect();
    assert_eq!(sightings, vec!["payroll", "bank"], "{report}");
    let copy = page(&env, "GET", &link, None).await.html;
    assert!(copy.contains("Verified by payroll and bank"), "{copy}");
    assert!(copy.contains("Not counted again"), "{copy}");
}
