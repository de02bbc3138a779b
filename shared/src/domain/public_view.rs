//! The public JSON view of a verification: the `data` of GET /verify and of every webhook, so an
//! API user reads the same shape from both.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::domain::{Status, Verification, format_ts};

/// The verification as GET /verify shows it (contract §2.3), as seen at `now`.
pub fn render_verification(v: &Verification, now: DateTime<Utc>) -> Value {
    let status = v.effective_status(now);
    let mut data = json!({
        "verification_id": v.verification_id,
        "status": status.as_str(),
        "tenant": { "email": v.tenant_email, "name": v.tenant_name },
        "property": { "address": v.property_address, "monthly_rent": v.monthly_rent },
        "created_at": format_ts(v.created_at),
        "completed_at": v.completed_at.map(format_ts),
    });
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
