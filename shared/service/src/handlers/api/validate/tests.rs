use super::*;
use serde_json::json;

#[test]
fn create_body_validation_collects_every_problem() {
    let none = domain::webhook::LocalWebhookOrigins::default();
    let ok = validate_create(
        &json!({"tenant_email": " a.b+good@example.com ", "monthly_rent": 1500, "tenant_phone": "+1 (555) 010-9999"}),
        &none,
    )
    .unwrap();
    assert_eq!(ok.tenant_email, "a.b+good@example.com");
    assert_eq!(ok.monthly_rent, Some(1500.0));

    let err = validate_create(&json!({}), &none).unwrap_err();
    assert_eq!(err.details()[0].field, "tenant_email");
    assert_eq!(err.details()[0].code, "required");

    let err = validate_create(
        &json!({"tenant_email": "nope", "monthly_rent": "12", "webhook_url": "http://x.example.com", "tenant_phone": "12"}),
        &none,
    )
    .unwrap_err();
    let fields: Vec<&str> = err.details().iter().map(|d| d.field.as_str()).collect();
    assert_eq!(
        fields,
        vec![
            "tenant_email",
            "tenant_phone",
            "monthly_rent",
            "webhook_url"
        ]
    );
    assert_eq!(err.status(), 400);
    // The message names fields, never their values.
    assert!(!err.to_string().contains("nope"));

    assert!(validate_create(&json!([1]), &none).is_err());
    let rent = |r: f64| {
        validate_create(&json!({"tenant_email": "a@b.co", "monthly_rent": r}), &none)
            .unwrap()
            .monthly_rent
    };
    assert_eq!(
        rent(1e-149),
        Some(0.0),
        "far below a cent: zero, not a DynamoDB underflow"
    );
    assert_eq!(rent(1500.456), Some(1500.46));
    assert!(rent(-0.0).unwrap().is_sign_positive());
    assert!(
        validate_create(
            &json!({"tenant_email": "a@b.co", "monthly_rent": -1}),
            &none
        )
        .is_err()
    );
}

#[test]
fn multiple_and_subsidy_are_checked() {
    let none = domain::webhook::LocalWebhookOrigins::default();
    let ok = validate_create(
        &json!({"tenant_email": "a@b.co", "monthly_rent": 1400, "rent_subsidy_monthly": 700.004, "income_multiple": 2.5}),
        &none,
    )
    .unwrap();
    assert_eq!(ok.rent_subsidy_monthly, Some(700.0));
    assert_eq!(ok.income_multiple, Some(2.5));
    let defaults = validate_create(&json!({"tenant_email": "a@b.co"}), &none).unwrap();
    assert_eq!(
        (defaults.rent_subsidy_monthly, defaults.income_multiple),
        (None, None)
    );
    // The whole rent may be subsidised; the edges of the multiple are allowed.
    for body in [
        json!({"tenant_email": "a@b.co", "monthly_rent": 900, "rent_subsidy_monthly": 900, "income_multiple": 1}),
        json!({"tenant_email": "a@b.co", "monthly_rent": 900, "rent_subsidy_monthly": 0, "income_multiple": 5}),
        json!({"tenant_email": "a@b.co", "income_multiple": 3.25}),
    ] {
        assert!(validate_create(&body, &none).is_ok(), "{body}");
    }
    let problem = |body: Value| {
        let err = validate_create(&body, &none).unwrap_err();
        assert_eq!(err.status(), 400);
        let d = &err.details()[0];
        (d.field.clone(), d.code)
    };
    let cases = [
        (
            json!({"tenant_email": "a@b.co", "income_multiple": 0.99}),
            ("income_multiple", "out_of_range"),
        ),
        (
            json!({"tenant_email": "a@b.co", "income_multiple": 5.01}),
            ("income_multiple", "out_of_range"),
        ),
        (
            json!({"tenant_email": "a@b.co", "income_multiple": "3"}),
            ("income_multiple", "invalid_type"),
        ),
        (
            json!({"tenant_email": "a@b.co", "rent_subsidy_monthly": 100}),
            ("rent_subsidy_monthly", "requires_monthly_rent"),
        ),
        (
            json!({"tenant_email": "a@b.co", "monthly_rent": 900, "rent_subsidy_monthly": 900.01}),
            ("rent_subsidy_monthly", "out_of_range"),
        ),
        (
            json!({"tenant_email": "a@b.co", "monthly_rent": 900, "rent_subsidy_monthly": -1}),
            ("rent_subsidy_monthly", "out_of_range"),
        ),
        (
            json!({"tenant_email": "a@b.co", "monthly_rent": 900, "rent_subsidy_monthly": true}),
            ("rent_subsidy_monthly", "invalid_type"),
        ),
    ];
    for (body, (field, code)) in cases {
        assert_eq!(problem(body.clone()), (field.to_string(), code), "{body}");
    }
}

#[test]
fn reminders_is_an_optional_boolean() {
    let none = domain::webhook::LocalWebhookOrigins::default();
    let off = |body: Value| validate_create(&body, &none).map(|i| i.reminders_off);
    assert!(!off(json!({"tenant_email": "a@b.co"})).unwrap());
    assert!(!off(json!({"tenant_email": "a@b.co", "reminders": true})).unwrap());
    assert!(!off(json!({"tenant_email": "a@b.co", "reminders": null})).unwrap());
    assert!(off(json!({"tenant_email": "a@b.co", "reminders": false})).unwrap());
    for bad in [json!("false"), json!(0), json!({})] {
        let err = off(json!({"tenant_email": "a@b.co", "reminders": bad})).unwrap_err();
        assert_eq!(err.status(), 400);
        assert_eq!(err.details()[0].field, "reminders");
        assert_eq!(err.details()[0].code, "invalid_type");
    }
}

#[test]
fn idempotency_key_is_visible_ascii_or_refused() {
    let with_key = |raw: &[u8]| {
        let mut req = ApiRequest::new(http::Method::POST, "/api/v1/verify");
        let value = http::HeaderValue::from_bytes(raw).unwrap();
        req.headers.insert("idempotency-key", value);
        idempotency_claim(&req, "acct", Mode::Test, &json!({})).map(|c| c.is_some())
    };
    assert!(with_key(b"order-42").unwrap());
    // Obs-text (not UTF-8 to the header API) and inner blanks are outside `^[!-~]+$`.
    for bad in [&b"caf\xe9"[..], b"a b", &[b'k'; 256][..]] {
        let err = with_key(bad).unwrap_err();
        assert_eq!(
            (err.status(), err.details()[0].field.as_str()),
            (400, "Idempotency-Key")
        );
    }
    let none = ApiRequest::new(http::Method::POST, "/api/v1/verify");
    assert!(
        idempotency_claim(&none, "acct", Mode::Test, &json!({}))
            .unwrap()
            .is_none()
    );
}

#[test]
fn email_rules() {
    for good in ["a@b.co", "first.last+tag@sub.example.org"] {
        assert!(is_valid_email(good), "{good}");
    }
    for bad in [
        "", "a", "a@b", "@b.co", "a@.co", "a b@c.co", "a@b..co", "a@b.co.", "<a@b.co>",
    ] {
        assert!(!is_valid_email(bad), "{bad}");
    }
}
