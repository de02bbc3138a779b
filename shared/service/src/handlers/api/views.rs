//! The JSON bodies of the API's successful answers that are not the public verification view
//! (that one, shared with the webhooks, is `domain::public_view`).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::http::ApiResponse;
use domain::{Status, Verification, format_ts};

/// The 201 of a create (and of its idempotent replays).
pub(crate) fn created_response(v: &Verification, url: &str) -> ApiResponse {
    ApiResponse::json(
        201,
        &json!({
            "success": true,
            "data": {
                "verification_id": v.verification_id,
                "verification_url": url,
                "tenant_email": v.tenant_email,
                "status": Status::Pending.as_str(),
                "expires_at": format_ts(v.expires_at),
            }
        }),
    )
}

/// One verification as the list shows it, as seen at `now`.
pub(crate) fn list_item(v: &Verification, now: DateTime<Utc>) -> Value {
    let mut item = json!({
        "id": v.verification_id,
        "tenant_email": v.tenant_email,
        "tenant_name": v.tenant_name,
        "property_address": v.property_address,
        "monthly_rent": v.monthly_rent,
        "status": v.effective_status(now).as_str(),
        "created_at": format_ts(v.created_at),
        "completed_at": v.completed_at.map(format_ts),
    });
    // Additive: the tenant's consent record, once given.
    if let Some(consented_at) = v.consented_at {
        item["consent"] = json!({
            "consented_at": format_ts(consented_at),
            "consent_version": v.consent_version,
        });
    }
    if let (Some(household_id), Some(role)) = (v.household_id, v.household_role) {
        item["household_id"] = json!(household_id);
        item["role"] = json!(role.as_str());
    }
    item
}
