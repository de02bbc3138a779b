//! Validation of what a caller sends: the create body (every field problem collected at once)
//! and the query parameters. Messages name fields, never their values.

use serde_json::Value;
use uuid::Uuid;

use crate::config::Settings;
use crate::http::ApiRequest;
use domain::affordability::{MAX_INCOME_MULTIPLE, MIN_INCOME_MULTIPLE};
use domain::error::{ApiError, FieldError};
use domain::reach::resolve_sms;
use domain::secrets::sha256_hex;
use domain::{Mode, NewVerificationInput};
pub(crate) use methods::check_methods_available;
use methods::methods_field;
use ports::IdempotencyClaim;

mod methods;

fn field_error(field: &str, code: &'static str, message: impl Into<String>) -> FieldError {
    FieldError::new(field, code, message)
}

fn optional_string(
    body: &serde_json::Map<String, Value>,
    field: &str,
    max: usize,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    match body.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) if s.chars().count() > max => {
            errors.push(field_error(
                field,
                "too_long",
                format!("{field} must be at most {max} characters"),
            ));
            None
        }
        Some(Value::String(s)) if s.chars().any(char::is_control) => {
            errors.push(field_error(
                field,
                "invalid",
                format!("{field} must not contain control characters"),
            ));
            None
        }
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(_) => {
            errors.push(field_error(
                field,
                "invalid_type",
                format!("{field} must be a string"),
            ));
            None
        }
    }
}

fn body_has(body: &serde_json::Map<String, Value>, field: &str) -> bool {
    !matches!(body.get(field), None | Some(Value::Null))
}

/// An optional number in `min..=max`, kept to two decimals (cents, or hundredths of a multiple).
fn optional_number(
    body: &serde_json::Map<String, Value>,
    field: &str,
    min: f64,
    max: f64,
    errors: &mut Vec<FieldError>,
) -> Option<f64> {
    match body.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if x.is_finite() && (min..=max).contains(&x) => {
                // `abs` turns -0.0 into 0; far below a cent rounds to 0, not a DynamoDB underflow.
                Some(((x * 100.0).round() / 100.0).abs())
            }
            _ => {
                errors.push(field_error(
                    field,
                    "out_of_range",
                    format!("{field} must be between {min} and {max}"),
                ));
                None
            }
        },
        Some(_) => {
            errors.push(field_error(
                field,
                "invalid_type",
                format!("{field} must be a number"),
            ));
            None
        }
    }
}

/// A pragmatic address check: one `@`, a dotted domain, no spaces, within RFC 5321 lengths.
pub fn is_valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.rsplit_once('@') else {
        return false;
    };
    email.len() <= 254
        && !local.is_empty()
        && local.len() <= 64
        && !local.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
        && domain
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && !email
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == ',')
}

fn is_valid_phone(phone: &str) -> bool {
    let digits: String = phone.chars().filter(|c| c.is_ascii_digit()).collect();
    phone
        .chars()
        .enumerate()
        .all(|(i, c)| c.is_ascii_digit() || " -().".contains(c) || (c == '+' && i == 0))
        && (7..=15).contains(&digits.len())
}

/// Sets the tenant's SMS number from `tenant_phone` (`resolve_sms`) with the API's settings. A
/// valid number of a country texts may not go to is a problem of `field`, with the countries
/// allowed: the caller learns at create that it would never be texted.
pub(crate) fn resolve_phone(
    input: &mut NewVerificationInput,
    settings: &Settings,
    field: &str,
) -> Result<(), FieldError> {
    let countries = &settings.sms_countries;
    resolve_sms(input, settings.sms_region, countries).map_err(|_| {
        field_error(
            field,
            "country_not_allowed",
            format!(
                "{field} must be a number in a country this service texts ({}); leave it out to reach the tenant by e-mail only",
                countries.names()
            ),
        )
    })
}

/// The enveloped 400 of field problems found at once (`message` names them).
pub(crate) fn invalid_fields(errors: Vec<FieldError>) -> ApiError {
    let message = if errors.len() == 1 {
        errors[0].message.clone()
    } else {
        format!(
            "{} fields are invalid: {}",
            errors.len(),
            errors
                .iter()
                .map(|e| e.field.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    ApiError::Validation {
        message,
        details: errors,
    }
}

/// Validates a create body and collects every field problem at once.
pub fn validate_create(
    body: &Value,
    local_webhook_origins: &domain::webhook::LocalWebhookOrigins,
) -> Result<NewVerificationInput, ApiError> {
    let Some(body) = body.as_object() else {
        return Err(ApiError::validation(
            "body",
            "invalid_type",
            "Request body must be a JSON object",
        ));
    };
    let mut errors = Vec::new();
    let tenant_email = match body.get("tenant_email") {
        None | Some(Value::Null) => {
            errors.push(field_error(
                "tenant_email",
                "required",
                "tenant_email is required",
            ));
            None
        }
        Some(Value::String(s)) if is_valid_email(s.trim()) => Some(s.trim().to_string()),
        Some(Value::String(_)) => {
            errors.push(field_error(
                "tenant_email",
                "invalid",
                "tenant_email must be a valid e-mail address",
            ));
            None
        }
        Some(_) => {
            errors.push(field_error(
                "tenant_email",
                "invalid_type",
                "tenant_email must be a string",
            ));
            None
        }
    };
    let tenant_name = optional_string(body, "tenant_name", 200, &mut errors);
    let tenant_phone = optional_string(body, "tenant_phone", 32, &mut errors);
    if tenant_phone.as_deref().is_some_and(|p| !is_valid_phone(p)) {
        errors.push(field_error(
            "tenant_phone",
            "invalid",
            "tenant_phone must be a phone number of 7 to 15 digits",
        ));
    }
    let property_address = optional_string(body, "property_address", 500, &mut errors);
    let monthly_rent = match body.get("monthly_rent") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            // Rent is money: kept in whole cents (which also keeps it in DynamoDB's number range).
            Some(rent) if rent.is_finite() && (0.0..=10_000_000.0).contains(&rent) => {
                Some(((rent * 100.0).round() / 100.0).abs())
            }
            _ => {
                errors.push(field_error(
                    "monthly_rent",
                    "out_of_range",
                    "monthly_rent must be between 0 and 10000000",
                ));
                None
            }
        },
        Some(_) => {
            errors.push(field_error(
                "monthly_rent",
                "invalid_type",
                "monthly_rent must be a number",
            ));
            None
        }
    };
    let income_multiple = optional_number(
        body,
        "income_multiple",
        MIN_INCOME_MULTIPLE,
        MAX_INCOME_MULTIPLE,
        &mut errors,
    );
    let rent_subsidy_monthly =
        match optional_number(body, "rent_subsidy_monthly", 0.0, 10_000_000.0, &mut errors) {
            Some(_) if monthly_rent.is_none() && !body_has(body, "monthly_rent") => {
                errors.push(field_error(
                    "rent_subsidy_monthly",
                    "requires_monthly_rent",
                    "rent_subsidy_monthly needs monthly_rent",
                ));
                None
            }
            Some(subsidy) if monthly_rent.is_some_and(|rent| subsidy > rent) => {
                errors.push(field_error(
                    "rent_subsidy_monthly",
                    "out_of_range",
                    "rent_subsidy_monthly must be between 0 and monthly_rent",
                ));
                None
            }
            other => other,
        };
    let webhook_url = match optional_string(body, "webhook_url", 2048, &mut errors) {
        Some(url) => match domain::webhook::check_url(&url, local_webhook_origins) {
            Ok(_) => Some(url),
            Err(reason) => {
                errors.push(field_error("webhook_url", "invalid", reason));
                None
            }
        },
        None => None,
    };
    // Optional, a boolean only: `false` turns the reminders off.
    let reminders_off = match body.get("reminders") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => false,
        Some(Value::Bool(false)) => true,
        Some(_) => {
            errors.push(field_error(
                "reminders",
                "invalid_type",
                "reminders must be a boolean",
            ));
            false
        }
    };
    let methods = methods_field(body.get("methods"), &mut errors);
    match (tenant_email, errors.is_empty()) {
        (Some(tenant_email), true) => Ok(NewVerificationInput {
            tenant_email,
            tenant_name,
            tenant_phone,
            property_address,
            monthly_rent,
            rent_subsidy_monthly,
            income_multiple,
            webhook_url,
            reminders_off,
            methods,
            ..Default::default()
        }),
        _ => Err(invalid_fields(errors)),
    }
}

pub(crate) fn verification_id_param(req: &ApiRequest) -> Result<Uuid, ApiError> {
    let raw = req
        .query
        .get("verification_id")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            ApiError::validation(
                "verification_id",
                "required",
                "verification_id query parameter is required",
            )
        })?;
    Uuid::parse_str(raw).map_err(|_| {
        ApiError::validation(
            "verification_id",
            "invalid",
            "verification_id must be a UUID",
        )
    })
}

/// An integer query parameter: absent is `default`, below `min` or not an integer is a 400,
/// above `max` is clamped.
pub(crate) fn integer_param(
    req: &ApiRequest,
    name: &str,
    default: u32,
    min: u32,
    max: Option<u32>,
) -> Result<u32, ApiError> {
    let Some(raw) = req.query.get(name) else {
        return Ok(default);
    };
    let value: i64 = raw.trim().parse().map_err(|_| {
        ApiError::validation(name, "invalid_type", format!("{name} must be an integer"))
    })?;
    if value < min as i64 {
        return Err(ApiError::validation(
            name,
            "out_of_range",
            format!("{name} must be at least {min}"),
        ));
    }
    // Saturate before narrowing: a huge value must stay huge (and fail a later bound), not wrap.
    let max = max.unwrap_or(u32::MAX) as i64;
    Ok(value.min(max) as u32)
}

/// The JSON body of a create: `application/json`, at most `limit` bytes (each endpoint's own:
/// a household carries up to six members), well-formed.
pub(crate) fn json_body(req: &ApiRequest, limit: usize) -> Result<Value, ApiError> {
    let content_type = req.header("content-type").unwrap_or("");
    let media = content_type.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/json") {
        return Err(ApiError::UnsupportedMediaType);
    }
    if req.body.len() > limit {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    // serde_json's message names a line and column, never the content.
    serde_json::from_slice(&req.body)
        .map_err(|e| ApiError::InvalidJson(format!("line {} column {}", e.line(), e.column())))
}

/// The Idempotency-Key claim of a create: one key space per account and mode (a key used on
/// POST /verify and POST /households with another body is a 422 on the other).
pub(crate) fn idempotency_claim(
    req: &ApiRequest,
    account_id: &str,
    mode: Mode,
    body: &Value,
) -> Result<Option<IdempotencyClaim>, ApiError> {
    // The raw bytes: a value that is no visible ASCII (obs-text) is refused, not read as absent.
    let key = match req.headers.get("idempotency-key").map(|v| v.as_bytes()) {
        None => return Ok(None),
        Some(raw)
            if (1..=255).contains(&raw.len()) && raw.iter().all(|b| (0x21..0x7f).contains(b)) =>
        {
            String::from_utf8_lossy(raw)
        }
        Some(_) => {
            return Err(ApiError::validation(
                "Idempotency-Key",
                "invalid",
                "Idempotency-Key must be 1 to 255 visible ASCII characters",
            ));
        }
    };
    Ok(Some(IdempotencyClaim {
        key_hash: sha256_hex(format!("{account_id}\n{}\n{key}", mode.as_str()).as_bytes()),
        // serde_json's map is ordered, so this is a canonical form of the body.
        body_hash: sha256_hex(body.to_string().as_bytes()),
    }))
}

#[cfg(test)]
mod tests {
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
}
