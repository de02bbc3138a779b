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
mod tests;
