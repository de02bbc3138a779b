//! The public JSON view of a verification: the `data` of GET /verify and of every webhook, so an
//! API user reads the same shape from both.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::{Status, Verification, format_ts};

/// The verification as GET /verify shows it (contract §2.3), as seen at `now`.
pub fn render_verification(v: &Verification, now: DateTime<Utc>) -> Value {
    let status = v.effective_status(now);
    if let Some(erased_at) = v.erased_at {
        return erased_view(v, status, erased_at);
    }
    let mut data = json!({
        "verification_id": v.verification_id,
        "status": status.as_str(),
        "tenant": { "email": v.tenant_email, "name": v.tenant_name },
        "property": { "address": v.property_address, "monthly_rent": v.monthly_rent },
        "created_at": format_ts(v.created_at),
        "completed_at": v.completed_at.map(format_ts),
    });
    // Additive fields (issue 11), present only when set, so older readers see the contract's shape.
    if let Some(subsidy) = v.rent_subsidy_monthly {
        data["property"]["rent_subsidy_monthly"] = json!(subsidy);
    }
    if let Some(multiple) = v.income_multiple {
        data["income_multiple"] = json!(multiple);
    }
    if let Some(consented_at) = v.consented_at {
        data["consent"] = json!({
            "consented_at": format_ts(consented_at),
            "consent_version": v.consent_version,
        });
    }
    if let (Some(household_id), Some(role)) = (v.household_id, v.household_role) {
        data["household_id"] = json!(household_id);
        data["role"] = json!(role.as_str());
    }
    if !v.methods.is_empty() {
        data["methods"] = json!(v.methods);
    }
    if status == Status::Completed
        && let Some(report) = &v.income_report
    {
        data["income_report"] = serde_json::to_value(report).unwrap_or(Value::Null);
        // The tenant's note (added on their page after completion), with the report it annotates.
        if let Some(note) = &v.tenant_note {
            data["income_report"]["tenant_note"] = Value::String(note.clone());
        }
    }
    data
}

/// An erased verification (`retention::erase`): the contract's shape, its strings that held
/// personal data empty, the rent null, no report, and `erased_at`.
fn erased_view(v: &Verification, status: Status, erased_at: DateTime<Utc>) -> Value {
    let mut data = json!({
        "verification_id": v.verification_id,
        "status": status.as_str(),
        "tenant": { "email": "", "name": "" },
        "property": { "address": "", "monthly_rent": null },
        "created_at": format_ts(v.created_at),
        "completed_at": v.completed_at.map(format_ts),
        "erased_at": format_ts(erased_at),
    });
    if let (Some(household_id), Some(role)) = (v.household_id, v.household_role) {
        data["household_id"] = json!(household_id);
        data["role"] = json!(role.as_str());
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, NewVerificationInput, Transition, VERIFICATION_LIFETIME};

    #[test]
    fn the_view_carries_the_terms_and_the_consent_only_when_set() {
        let now = Utc::now();
        let plain = Verification::new_pending(
            "a",
            Mode::Test,
            NewVerificationInput {
                tenant_email: "t@example.com".into(),
                monthly_rent: Some(1400.0),
                ..Default::default()
            },
            now,
            VERIFICATION_LIFETIME,
        );
        let data = render_verification(&plain, now);
        assert!(data.get("consent").is_none() && data.get("income_multiple").is_none());
        assert!(data["property"].get("rent_subsidy_monthly").is_none());

        let mut v = plain.clone();
        v.rent_subsidy_monthly = Some(1000.0);
        v.income_multiple = Some(2.5);
        let v = Transition::Consent {
            version: "2026-11-v1".into(),
            provider_user: None,
            methods: vec![],
        }
        .apply(&v, now);
        let data = render_verification(&v, now);
        assert_eq!(data["property"]["rent_subsidy_monthly"], 1000.0);
        assert_eq!(data["income_multiple"], 2.5);
        assert_eq!(data["consent"]["consent_version"], "2026-11-v1");
        assert_eq!(data["consent"]["consented_at"], format_ts(now));

        let erased = crate::retention::erase(&v, now);
        let data = render_verification(&erased, now);
        assert_eq!(data["tenant"], json!({ "email": "", "name": "" }));
        assert_eq!(
            data["property"],
            json!({ "address": "", "monthly_rent": null })
        );
        assert_eq!(data["erased_at"], format_ts(now));
        assert!(data.get("consent").is_none() && data.get("income_report").is_none());
    }
}
