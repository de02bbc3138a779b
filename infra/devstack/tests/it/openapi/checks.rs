//! The validation of every recorded exchange, and the validators own checks.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn every_response_matches_the_openapi_file() {
    // Each scenario has a stack of its own, so they run at once; their exchanges are checked
    // together.
    let mut recs: [Recorder; 4] = Default::default();
    let [api, pages, households, errors] = &mut recs;
    tokio::join!(
        drive_api(api),
        drive_pages_and_webhooks(pages),
        households::drive_households(households),
        drive_internal_errors(errors),
    );
    let exchanges: Vec<Value> = recs.into_iter().flat_map(|r| r.exchanges).collect();
    let report = validate(&exchanges);
    let problems = problems(&report);
    assert!(
        problems.is_empty(),
        "{} of {} responses deviate from infra/openapi.yaml:\n  {}",
        problems.len(),
        report["checked"],
        problems.join("\n  ")
    );
    let uncovered: BTreeSet<(String, String, String)> = report["uncovered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u[0].as_str().unwrap().to_string(),
                u[1].as_str().unwrap().to_string(),
                u[2].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: BTreeSet<(String, String, String)> = NOT_PRODUCIBLE
        .iter()
        .map(|(m, p, s, _)| (m.to_string(), p.to_string(), s.to_string()))
        .collect();
    assert_eq!(
        uncovered, expected,
        "documented responses no scenario produced (add a scenario, or list it in NOT_PRODUCIBLE with the reason)"
    );
}

/// The validator is not a rubber stamp: each deviation below must be reported.
#[test]
pub(super) fn the_validator_catches_deviations() {
    let created = json!({"success": true, "data": {"verification_id": "2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081", "verification_url": "http://127.0.0.1:3000/t/2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "tenant_email": "a@example.com", "status": "pending", "expires_at": "2026-11-28T10:15:00.000Z"}});
    let mut rate = json!({"content-type": "application/json", "x-ratelimit-limit": "500", "x-ratelimit-remaining": "499", "x-ratelimit-reset": "1795000000", "x-request-id": "r-1"});
    for (name, value) in service::http::EVERY_RESPONSE {
        rate[name] = json!(value);
    }
    let op = |label: &str, method: &str, path: &str, status: u16, headers: &Value, body: &Value| json!({"label": label, "kind": "operation", "method": method, "path": path, "status": status, "headers": headers, "body": body.to_string()});
    let with = |f: &dyn Fn(&mut Value)| {
        let mut v = created.clone();
        f(&mut v);
        v
    };
    let mut headers_without_reset = rate.clone();
    headers_without_reset
        .as_object_mut()
        .unwrap()
        .remove("x-ratelimit-reset");
    let mut html = rate.clone();
    html["content-type"] = json!("text/html; charset=utf-8");
    let mut bad_remaining = rate.clone();
    bad_remaining["x-ratelimit-remaining"] = json!("many");
    let mut without_hsts = rate.clone();
    without_hsts
        .as_object_mut()
        .unwrap()
        .remove("strict-transport-security");
    let mut extra_header = rate.clone();
    extra_header["x-debug"] = json!("1");
    let mut pdf_headers = rate.clone();
    pdf_headers["content-type"] = json!("application/pdf");
    pdf_headers["content-disposition"] =
        json!("attachment; filename=\"income-report-2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081.pdf\"");
    pdf_headers["cache-control"] = json!("no-store");
    pdf_headers["x-content-type-options"] = json!("nosniff");
    let mut pdf_headers_without_disposition = pdf_headers.clone();
    pdf_headers_without_disposition
        .as_object_mut()
        .unwrap()
        .remove("content-disposition");
    let unauthorized = json!({"success": false, "error": "no", "code": "missing_api_key", "details": [], "request_id": "r"});
    let webhook_body = json!({"type": "verification.cancelled", "timestamp": "2026-11-28T10:15:00.000Z", "data": {"verification_id": "2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081", "status": "cancelled", "tenant": {"email": "a@example.com", "name": null}, "property": {"address": null, "monthly_rent": null}, "created_at": "2026-11-28T10:15:00.000Z", "completed_at": null}});
    let cases = vec![
        (
            "control",
            "",
            op("control", "post", API_VERIFY, 201, &rate, &created),
        ),
        (
            "extra field",
            "Additional properties are not allowed ('extra'",
            op(
                "extra field",
                "post",
                API_VERIFY,
                201,
                &rate,
                &with(&|v| v["data"]["extra"] = json!(1)),
            ),
        ),
        (
            "missing field",
            "'expires_at' is a required property",
            op(
                "missing field",
                "post",
                API_VERIFY,
                201,
                &rate,
                &with(&|v| {
                    v["data"].as_object_mut().unwrap().remove("expires_at");
                }),
            ),
        ),
        (
            "timestamp without millis",
            "does not match",
            op(
                "timestamp without millis",
                "post",
                API_VERIFY,
                201,
                &rate,
                &with(&|v| v["data"]["expires_at"] = json!("2026-11-28T10:15:00Z")),
            ),
        ),
        (
            "status not pending",
            "'pending' was expected",
            op(
                "status not pending",
                "post",
                API_VERIFY,
                201,
                &rate,
                &with(&|v| v["data"]["status"] = json!("cancelled")),
            ),
        ),
        (
            "undocumented status",
            "status 418 is not documented",
            op(
                "undocumented status",
                "post",
                API_VERIFY,
                418,
                &rate,
                &created,
            ),
        ),
        (
            "missing rate header",
            "required header X-RateLimit-Reset is missing",
            op(
                "missing rate header",
                "post",
                API_VERIFY,
                201,
                &headers_without_reset,
                &created,
            ),
        ),
        (
            "non-integer rate header",
            "header X-RateLimit-Remaining='many'",
            op(
                "non-integer rate header",
                "post",
                API_VERIFY,
                201,
                &bad_remaining,
                &created,
            ),
        ),
        (
            "no hsts",
            "header strict-transport-security=None, not 'max-age=63072000; includeSubDomains'",
            op("no hsts", "post", API_VERIFY, 201, &without_hsts, &created),
        ),
        (
            "undocumented header",
            "undocumented header x-debug",
            op(
                "undocumented header",
                "post",
                API_VERIFY,
                201,
                &extra_header,
                &created,
            ),
        ),
        (
            "wrong content type",
            "Content-Type text/html; charset=utf-8 is not documented",
            op(
                "wrong content type",
                "post",
                API_VERIFY,
                201,
                &html,
                &created,
            ),
        ),
        (
            "401 without www-authenticate",
            "required header WWW-Authenticate is missing",
            op(
                "401 without www-authenticate",
                "get",
                API_USAGE,
                401,
                &json!({"content-type": "application/json", "x-request-id": "r"}),
                &unauthorized,
            ),
        ),
        (
            "401 with a 403 code",
            "'subscription_inactive' is not one of",
            op(
                "401 with a 403 code",
                "get",
                API_USAGE,
                401,
                &json!({"content-type": "application/json", "x-request-id": "r", "www-authenticate": "Bearer realm=\"api\", error=\"invalid_token\""}),
                &json!({"success": false, "error": "no", "code": "subscription_inactive", "details": [], "request_id": "r"}),
            ),
        ),
        (
            "cancelled webhook data.status",
            "'cancelled' is not one of ['expired']",
            json!({"label": "cancelled webhook data.status", "kind": "webhook", "webhook": "verification.cancelled", "headers": {"content-type": "application/json", "webhook-id": "msg_2d5a3e4f7f6c4a0d9e9f3c4d5e6f7081_cancelled", "webhook-timestamp": "1795000000", "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="}, "body": webhook_body.to_string()}),
        ),
        (
            "webhook without signature",
            "required header webhook-signature is missing",
            json!({"label": "webhook without signature", "kind": "webhook", "webhook": "verification.cancelled", "headers": {"content-type": "application/json", "webhook-id": "msg_2d5a3e4f7f6c4a0d9e9f3c4d5e6f7081_cancelled", "webhook-timestamp": "1795000000"}, "body": webhook_body.to_string().replace("\"status\":\"cancelled\"", "\"status\":\"expired\"")}),
        ),
        (
            "report that is not a pdf",
            "not a PDF document",
            json!({"label": "report that is not a pdf", "kind": "operation", "method": "get", "path": API_REPORT, "status": 200, "headers": pdf_headers, "body": "<html>oops</html>"}),
        ),
        (
            "report without its file name",
            "required header Content-Disposition is missing",
            json!({"label": "report without its file name", "kind": "operation", "method": "get", "path": API_REPORT, "status": 200, "headers": pdf_headers_without_disposition, "body": "%PDF-1.7"}),
        ),
        (
            "undocumented operation",
            "PUT /api/v1/usage is not in the file",
            op(
                "undocumented operation",
                "put",
                API_USAGE,
                200,
                &rate,
                &created,
            ),
        ),
    ];
    let exchanges: Vec<Value> = cases.iter().map(|(_, _, e)| e.clone()).collect();
    let report = validate(&exchanges);
    let problems = problems(&report);
    assert!(
        !problems.iter().any(|p| p.contains("validator error")),
        "the validator itself failed: {problems:#?}"
    );
    for (label, expected, _) in &cases {
        let mine: Vec<&String> = problems
            .iter()
            .filter(|p| p.starts_with(&format!("{label}:")) || p.starts_with(&format!("{label} [")))
            .collect();
        if *label == "control" {
            assert!(mine.is_empty(), "the control case must pass: {mine:#?}");
        } else {
            assert!(
                mine.iter().any(|p| p.contains(expected)),
                "deviation '{label}' was not reported as '{expected}'; got {mine:#?}"
            );
        }
    }
}

/// The tenant page's form in the OpenAPI file offers exactly the sandbox's scenarios: the page
/// refuses any other whatever its state, so a scenario missing there would be a documented
/// value refused.
#[test]
pub(super) fn the_tenant_form_s_scenarios_are_the_sandbox_s() {
    let spec: Value = serde_yaml::from_str(&std::fs::read_to_string(spec_path()).unwrap()).unwrap();
    let form = &spec["paths"]["/t/{verification_id}/{token}"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]
        ["schema"];
    let documented: BTreeSet<&str> = form["properties"]["scenario"]["enum"]
        .as_array()
        .expect("the scenario enum")
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let offered: BTreeSet<&str> = service::sandbox::SCENARIOS
        .iter()
        .chain(service::sandbox::PAYROLL_SCENARIOS.iter())
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(documented, offered);
    // The "use another way" form names a method, one of the domain's.
    let documented: Vec<&str> = form["properties"]["method"]["enum"]
        .as_array()
        .expect("the method enum")
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let methods: Vec<&str> = domain::methods::ALL.iter().map(|m| m.as_str()).collect();
    assert_eq!(documented, methods);
    // The sample documents are the sandbox's, in its order.
    let documented: Vec<&str> = spec["paths"]["/t/{verification_id}/{token}/samples/{sample}.pdf"]
        ["parameters"][2]["schema"]["enum"]
        .as_array()
        .expect("the sample enum")
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let samples: Vec<&str> = (domain::documents::samples::Sample::ALL.iter())
        .map(|s| s.slug())
        .collect();
    assert_eq!(documented, samples);
}
