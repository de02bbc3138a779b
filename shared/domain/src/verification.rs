//! A verification: the request a landlord makes of one tenant, its statuses and modes, and what
//! a create asks for. Its documents, income and report are the modules beside it.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::affordability::RentTerms;
use crate::household::role::MemberRole;
use crate::report::IncomeReport;
use crate::{income, methods, ts};

pub use crate::status::{Mode, Status};

/// How long a tenant link stays valid (contract §8).
pub const VERIFICATION_LIFETIME: Duration = Duration::days(7);

/// Whether the tenant's number can receive the SMS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmsReach {
    /// `tenant_phone` was given but is no valid number in E.164 terms: e-mail only.
    Unusable,
}

/// For `skip_serializing_if`.
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A verification request as stored and reasoned about.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    pub verification_id: Uuid,
    pub account_id: String,
    pub mode: Mode,
    pub status: Status,
    pub tenant_email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_phone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub property_address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monthly_rent: Option<f64>,
    /// The part of the rent a voucher or programme pays (whole cents, 0 ..= monthly_rent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rent_subsidy_monthly: Option<f64>,
    /// The landlord's income multiple (hundredths, 1 ..= 5); None is the default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub income_multiple: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
    #[serde(with = "ts")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "ts")]
    pub expires_at: DateTime<Utc>,
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub cancelled_at: Option<DateTime<Utc>>,
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub expired_at: Option<DateTime<Utc>>,
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub consented_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consent_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub income_report: Option<IncomeReport>,
    /// The tenant's user at a widget-based income provider (between consent and connection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_user: Option<String>,
    /// The provider widget's short-lived token for this tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_link_token: Option<String>,
    /// SHA-256 (hex) of the tenant-link tokens the API answered (the create response, and the
    /// Idempotency-Key replays'). The tokens themselves are never stored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub token_hashes: Vec<String>,
    /// The rotating part of `token_hashes` (Idempotency-Key replay links), oldest first and
    /// bounded; the rest of `token_hashes` (the first response) is never dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_token_hashes: Vec<String>,
    /// SHA-256 (hex) of the link each message to the tenant carries, by message
    /// (`reach::Message::key`). An attempt at a message binds its link
    /// here in place of the last attempt's, so retries never grow the item. Always stored (empty
    /// at create), so that a claim can set its one entry.
    #[serde(default)]
    pub message_links: BTreeMap<String, String>,
    /// The tenant's short note to the landlord (at most [`TENANT_NOTE_MAX_CHARS`]), added from the
    /// tenant page once completed; shown in the report JSON and PDF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_note: Option<String>,
    /// `reminders: false` at create; `sms_phone`: `tenant_phone` in E.164 when usable (else
    /// `sms: unusable`). Which messages went out is on their claim items (`MessageClaimStore`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reminders_off: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sms_phone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sms: Option<SmsReach>,
    /// The invite's round: 0 for the first e-mail, +1 per resend (`resend::record`); each round
    /// is one more e-mail with its own link.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invite_round: u32,
    /// The UTC day (`YYYY-MM-DD`) of the last resend, and how many resends that day counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resend_day: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub resends_on_day: u32,
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub last_resent_at: Option<DateTime<Utc>>,
    /// The household this verification is a member of (POST /households), with its role there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub household_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub household_role: Option<MemberRole>,
    /// The methods the tenant may use, in the landlord's order, when the create named them
    /// (`domain::methods`); empty: the account's default set, else every method of the stack.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<income::VerificationMethod>,
    /// The methods the tenant tried and left (failed, no income, abandoned), oldest first; the
    /// report records them with the one that succeeded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub method_attempts: Vec<methods::MethodAttempt>,
    /// The income of the methods that succeeded while the tenant adds another
    /// (`Transition::Hold`): the report is built from it, with the last method's, when the tenant
    /// finishes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_income: Option<income::ProviderIncome>,
    /// The connection waiting for its provider's data (`awaiting`): current while no try was
    /// recorded after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub awaiting: Option<crate::awaiting::AwaitingData>,
    /// When its personal data was erased (`retention::erase`): by the retention sweep, or at the
    /// landlord's request.
    #[serde(default, with = "ts::option", skip_serializing_if = "Option::is_none")]
    pub erased_at: Option<DateTime<Utc>>,
    /// The tenant's uploaded documents, by document id (`documents::record`). Always stored
    /// (empty at create), so that the analysis can set its one entry.
    #[serde(default)]
    pub documents: BTreeMap<String, crate::documents::record::DocumentRecord>,
    /// How many uploads the analysis has taken in (at most `record::MAX_UPLOADS`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub uploads: u32,
    /// Raised by every write to `documents`: finishing with documents is conditioned on it, so
    /// the report covers the documents as the tenant saw them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub documents_rev: u32,
}

impl From<&Verification> for RentTerms {
    fn from(v: &Verification) -> Self {
        RentTerms {
            monthly_rent: v.monthly_rent,
            rent_subsidy_monthly: v.rent_subsidy_monthly,
            income_multiple: v.income_multiple,
        }
    }
}

/// The longest note a tenant may add to a completed report, in characters.
pub const TENANT_NOTE_MAX_CHARS: usize = 500;

impl Verification {
    /// A new, pending verification of `account_id` created at `created_at`, valid for `lifetime`.
    pub fn new_pending(
        account_id: &str,
        mode: Mode,
        input: NewVerificationInput,
        created_at: DateTime<Utc>,
        lifetime: Duration,
    ) -> Self {
        Verification {
            verification_id: Uuid::new_v4(),
            account_id: account_id.to_string(),
            mode,
            status: Status::Pending,
            tenant_email: input.tenant_email,
            tenant_name: input.tenant_name,
            tenant_phone: input.tenant_phone,
            property_address: input.property_address,
            monthly_rent: input.monthly_rent,
            rent_subsidy_monthly: input.rent_subsidy_monthly,
            income_multiple: input.income_multiple,
            webhook_url: input.webhook_url,
            created_at,
            expires_at: created_at + lifetime,
            started_at: None,
            completed_at: None,
            cancelled_at: None,
            expired_at: None,
            failed_at: None,
            failure_reason: None,
            consented_at: None,
            consent_version: None,
            income_report: None,
            provider_user: None,
            provider_link_token: None,
            token_hashes: vec![],
            recent_token_hashes: vec![],
            message_links: BTreeMap::new(),
            tenant_note: None,
            reminders_off: input.reminders_off,
            sms_phone: input.sms_phone,
            sms: input.sms,
            invite_round: 0,
            resend_day: None,
            resends_on_day: 0,
            last_resent_at: None,
            household_id: None,
            household_role: None,
            methods: input.methods,
            method_attempts: vec![],
            held_income: None,
            awaiting: None,
            erased_at: None,
            documents: BTreeMap::new(),
            uploads: 0,
            documents_rev: 0,
        }
    }

    /// Whether a tenant link whose token hashes to `token_hash` is one of this verification's: one
    /// the API answered, or the link of a message to the tenant.
    pub fn binds_link(&self, token_hash: &str) -> bool {
        self.token_hashes
            .iter()
            .chain(self.message_links.values())
            .any(|h| h == token_hash)
    }

    /// The status a reader must see: an open verification past `expires_at` is expired even before
    /// the expiry sweeper has caught up (design §5).
    pub fn effective_status(&self, now: DateTime<Utc>) -> Status {
        if self.status.is_open() && now >= self.expires_at {
            Status::Expired
        } else {
            self.status
        }
    }
}

/// The part of a create request the service keeps, after validation.
#[derive(Clone, PartialEq, Default)]
pub struct NewVerificationInput {
    pub tenant_email: String,
    pub tenant_name: Option<String>,
    pub tenant_phone: Option<String>,
    pub property_address: Option<String>,
    pub monthly_rent: Option<f64>,
    pub rent_subsidy_monthly: Option<f64>,
    pub income_multiple: Option<f64>,
    pub webhook_url: Option<String>,
    /// `reminders: false`; `tenant_phone` in E.164 (the create handler's region), or `sms: unusable`.
    pub reminders_off: bool,
    pub sms_phone: Option<String>,
    pub sms: Option<SmsReach>,
    /// `methods`, when the create named them.
    pub methods: Vec<income::VerificationMethod>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Transition, webhook_event_type};

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn statuses_round_trip() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        assert_eq!(Status::parse("cancelled"), None);
    }

    #[test]
    fn open_verification_past_expiry_reads_expired() {
        let created = at("2026-11-01T00:00:00Z");
        let v = Verification::new_pending(
            "a",
            Mode::Live,
            NewVerificationInput {
                tenant_email: "t@example.com".into(),
                ..Default::default()
            },
            created,
            VERIFICATION_LIFETIME,
        );
        assert_eq!(
            v.effective_status(created + Duration::days(6)),
            Status::Pending
        );
        assert_eq!(
            v.effective_status(created + Duration::days(7)),
            Status::Expired
        );
        let done = Transition::Complete {
            report: Box::new(crate::report::IncomeReport::empty_for_tests()),
        }
        .apply(&v, created);
        assert_eq!(
            done.effective_status(created + Duration::days(30)),
            Status::Completed
        );
        let cancelled = Transition::Cancel.apply(&v, created);
        assert_eq!(
            webhook_event_type(&cancelled),
            Some("verification.cancelled")
        );
    }

    #[test]
    fn a_landlords_review_note_is_as_long_as_the_tenants_note() {
        assert_eq!(
            crate::documents::review::REVIEW_NOTE_MAX_CHARS,
            TENANT_NOTE_MAX_CHARS
        );
    }
}
