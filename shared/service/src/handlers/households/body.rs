//! Validation of the POST /households body: the property once, then each member as POST /verify
//! validates its tenant (every field problem collected at once, named `members[i].field`).

use serde_json::{Map, Value, json};

use crate::handlers::api::validate::invalid_fields;
use crate::handlers::api::validate_create;
use domain::NewVerificationInput;
use domain::error::{ApiError, FieldError};
use domain::household::{MAX_GUARANTOR_MULTIPLE, MAX_MEMBERS, MIN_GUARANTOR_MULTIPLE, MemberRole};
use domain::webhook::LocalWebhookOrigins;

/// A validated household request.
#[derive(Clone, PartialEq)]
pub(crate) struct HouseholdInput {
    /// The property, rent terms and webhook every member's verification carries.
    pub property: NewVerificationInput,
    pub monthly_rent: f64,
    pub guarantor_multiple: Option<f64>,
    /// Each member's tenant fields (property fields filled from `property`) and role.
    pub members: Vec<(NewVerificationInput, MemberRole)>,
}

/// An address that passes the e-mail check, standing in for the tenant while the shared fields are
/// validated by `validate_create` (never stored).
const PLACEHOLDER_EMAIL: &str = "household@example.com";
const PROPERTY_FIELDS: [&str; 5] = [
    "property_address",
    "monthly_rent",
    "rent_subsidy_monthly",
    "income_multiple",
    "webhook_url",
];
const MEMBER_FIELDS: [&str; 3] = ["tenant_email", "tenant_name", "tenant_phone"];

fn pick(from: &Map<String, Value>, fields: &[&str]) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|f| from.get(*f).map(|v| (f.to_string(), v.clone())))
        .collect()
}

/// Runs `validate_create`, moving its field errors under `prefix`.
fn validated(
    body: Map<String, Value>,
    origins: &LocalWebhookOrigins,
    prefix: &str,
    errors: &mut Vec<FieldError>,
) -> Option<NewVerificationInput> {
    match validate_create(&Value::Object(body), origins) {
        Ok(input) => Some(input),
        Err(e) => {
            errors.extend(e.details().iter().map(|d| {
                FieldError::new(&format!("{prefix}{}", d.field), d.code, d.message.clone())
            }));
            None
        }
    }
}

/// Validates a household body and collects every field problem at once.
pub(crate) fn validate_household(
    body: &Value,
    origins: &LocalWebhookOrigins,
) -> Result<HouseholdInput, ApiError> {
    let Some(body) = body.as_object() else {
        return Err(ApiError::validation(
            "body",
            "invalid_type",
            "Request body must be a JSON object",
        ));
    };
    let mut errors = Vec::new();
    let mut shared = pick(body, &PROPERTY_FIELDS);
    shared.insert("tenant_email".into(), json!(PLACEHOLDER_EMAIL));
    let property = validated(shared, origins, "", &mut errors);
    let monthly_rent = property.as_ref().and_then(|p| p.monthly_rent);
    if matches!(body.get("monthly_rent"), None | Some(Value::Null)) {
        errors.push(FieldError::new(
            "monthly_rent",
            "required",
            "monthly_rent is required for a household decision",
        ));
    }
    let guarantor_multiple = match body.get("guarantor_multiple") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n))
            if n.as_f64().is_some_and(|x| {
                (MIN_GUARANTOR_MULTIPLE..=MAX_GUARANTOR_MULTIPLE).contains(&x)
            }) =>
        {
            n.as_f64().map(|x| (x * 100.0).round() / 100.0)
        }
        Some(_) => {
            errors.push(FieldError::new(
                "guarantor_multiple",
                "out_of_range",
                format!(
                    "guarantor_multiple must be a number between {MIN_GUARANTOR_MULTIPLE} and {MAX_GUARANTOR_MULTIPLE}"
                ),
            ));
            None
        }
    };
    let raw_members = match body.get("members") {
        Some(Value::Array(members)) if (1..=MAX_MEMBERS).contains(&members.len()) => {
            members.as_slice()
        }
        Some(Value::Array(_)) => {
            errors.push(FieldError::new(
                "members",
                "out_of_range",
                format!("members must list 1 to {MAX_MEMBERS} members"),
            ));
            &[]
        }
        None | Some(Value::Null) => {
            errors.push(FieldError::new(
                "members",
                "required",
                "members is required",
            ));
            &[]
        }
        Some(_) => {
            errors.push(FieldError::new(
                "members",
                "invalid_type",
                "members must be an array",
            ));
            &[]
        }
    };
    let mut members = Vec::new();
    let mut seen_emails: Vec<String> = Vec::new();
    for (i, raw) in raw_members.iter().enumerate() {
        let prefix = format!("members[{i}].");
        let Some(raw) = raw.as_object() else {
            errors.push(FieldError::new(
                &format!("members[{i}]"),
                "invalid_type",
                "each member must be an object",
            ));
            continue;
        };
        let role = match raw.get("role") {
            Some(Value::String(r)) => MemberRole::parse(r.trim()),
            _ => None,
        };
        if role.is_none() {
            errors.push(FieldError::new(
                &format!("{prefix}role"),
                "invalid",
                "role must be applicant or guarantor",
            ));
        }
        let tenant = validated(pick(raw, &MEMBER_FIELDS), origins, &prefix, &mut errors);
        if let Some(tenant) = &tenant {
            let folded = tenant.tenant_email.to_lowercase();
            if seen_emails.contains(&folded) {
                errors.push(FieldError::new(
                    &format!("{prefix}tenant_email"),
                    "duplicate",
                    "each member needs a different tenant_email (compared without case)",
                ));
            }
            seen_emails.push(folded);
        }
        if let (Some(tenant), Some(role)) = (tenant, role) {
            members.push((tenant, role));
        }
    }
    if !raw_members.is_empty()
        && !raw_members
            .iter()
            .any(|m| m.get("role").and_then(Value::as_str).map(str::trim) == Some("applicant"))
    {
        errors.push(FieldError::new(
            "members",
            "applicant_required",
            "members must include at least one applicant",
        ));
    }
    match (property, monthly_rent, errors.is_empty()) {
        (Some(property), Some(monthly_rent), true) => {
            let members = members
                .into_iter()
                .map(|(tenant, role)| {
                    let input = NewVerificationInput {
                        tenant_email: tenant.tenant_email,
                        tenant_name: tenant.tenant_name,
                        tenant_phone: tenant.tenant_phone,
                        ..property.clone()
                    };
                    (input, role)
                })
                .collect();
            Ok(HouseholdInput {
                property,
                monthly_rent,
                guarantor_multiple,
                members,
            })
        }
        _ => Err(invalid_fields(errors)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(body: Value) -> Vec<(String, &'static str)> {
        match validate_household(&body, &LocalWebhookOrigins::default()) {
            Ok(_) => vec![],
            Err(e) => e
                .details()
                .iter()
                .map(|d| (d.field.clone(), d.code))
                .collect(),
        }
    }

    #[test]
    fn a_good_household_validates_with_the_property_on_every_member() {
        let input = validate_household(
            &json!({
                "property_address": "1 High St",
                "monthly_rent": 1400,
                "guarantor_multiple": 4.5,
                "members": [
                    {"tenant_email": "a@example.com", "role": "applicant", "tenant_name": "A"},
                    {"tenant_email": "g@example.com", "role": "guarantor"}
                ]
            }),
            &LocalWebhookOrigins::default(),
        )
        .unwrap();
        assert_eq!(input.monthly_rent, 1400.0);
        assert_eq!(input.guarantor_multiple, Some(4.5));
        assert_eq!(input.members.len(), 2);
        assert_eq!(input.members[1].1, MemberRole::Guarantor);
        assert_eq!(
            input.members[1].0.property_address.as_deref(),
            Some("1 High St")
        );
        assert_eq!(input.members[0].0.tenant_name.as_deref(), Some("A"));
    }

    #[test]
    fn every_problem_is_named_by_its_field() {
        assert_eq!(
            fields(json!({
                "monthly_rent": 1000,
                "members": [
                    {"tenant_email": "Same@Example.com", "role": "applicant"},
                    {"tenant_email": "same@example.COM", "role": "applicant"}
                ]
            })),
            vec![("members[1].tenant_email".into(), "duplicate")]
        );
        assert_eq!(
            fields(json!({
                "members": [
                    {"tenant_email": "nope", "role": "landlord"},
                    {"tenant_email": "g@example.com", "role": "guarantor"}
                ],
                "guarantor_multiple": 50
            })),
            vec![
                ("monthly_rent".into(), "required"),
                ("guarantor_multiple".into(), "out_of_range"),
                ("members[0].role".into(), "invalid"),
                ("members[0].tenant_email".into(), "invalid"),
                ("members".into(), "applicant_required"),
            ]
        );
        let seven: Vec<Value> = (0..7)
            .map(|i| json!({"tenant_email": format!("t{i}@example.com"), "role": "applicant"}))
            .collect();
        assert_eq!(
            fields(json!({"monthly_rent": 1000, "members": seven})),
            vec![("members".into(), "out_of_range")]
        );
        assert_eq!(
            fields(json!({"monthly_rent": -1, "members": []})),
            vec![
                ("monthly_rent".into(), "out_of_range"),
                ("members".into(), "out_of_range")
            ]
        );
    }
}
