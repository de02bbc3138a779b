//! The `methods` of a create: which verification methods the tenant may use.

use serde_json::Value;

use super::field_error;
use domain::error::{ApiError, FieldError};
use domain::income::VerificationMethod;
use domain::methods::{names, parse_methods};

/// `methods`: absent, or a non-empty array of method names; unknown names are named back.
pub(super) fn methods_field(
    value: Option<&Value>,
    errors: &mut Vec<FieldError>,
) -> Vec<VerificationMethod> {
    let invalid = |errors: &mut Vec<FieldError>| {
        errors.push(field_error(
            "methods",
            "invalid_type",
            "methods must be a non-empty array of bank, payroll or document",
        ));
        vec![]
    };
    let items = match value {
        None | Some(Value::Null) => return vec![],
        Some(Value::Array(items)) if !items.is_empty() && items.len() <= 10 => items,
        Some(_) => return invalid(errors),
    };
    let Some(names) = items
        .iter()
        .map(Value::as_str)
        .collect::<Option<Vec<&str>>>()
    else {
        return invalid(errors);
    };
    match parse_methods(&names) {
        Ok(methods) => methods,
        Err(unknown) => {
            let unknown: Vec<String> = unknown
                .iter()
                .map(|u| u.chars().take(40).collect())
                .collect();
            errors.push(field_error(
                "methods",
                "unknown_method",
                format!(
                    "unknown method(s) {}: use bank, payroll or document",
                    unknown.join(", ")
                ),
            ));
            vec![]
        }
    }
}

/// The named methods this stack does not offer for the key's mode, as a 400 naming them.
pub(crate) fn check_methods_available(
    methods: &[VerificationMethod],
    available: &[VerificationMethod],
) -> Result<(), ApiError> {
    let missing: Vec<VerificationMethod> = methods
        .iter()
        .copied()
        .filter(|m| !available.contains(m))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let offered = if available.is_empty() {
        "none".to_string()
    } else {
        names(available)
    };
    Err(ApiError::validation(
        "methods",
        "unavailable_method",
        format!(
            "method(s) {} not available here (available: {offered})",
            names(&missing)
        ),
    ))
}
