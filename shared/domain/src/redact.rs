//! `Debug` for every type that holds a secret or a person's data: the values a log line or a panic
//! message could leak (tenant e-mail, name, phone, address, rent, income, tokens, key hashes,
//! webhook secrets, URL paths and queries, request and mail bodies) print as `<redacted>`; ids,
//! statuses and timestamps stay visible so the output still helps. Kept apart from the types so
//! the redaction of all of them can be reviewed in one place. New fields stay hidden until they
//! are added here (`finish_non_exhaustive`). The ports and the HTTP glue redact their own types
//! in their crates with the helpers below.

use std::fmt::{self, Debug, Formatter};

mod household;

use crate::metering::PresentedKey;
use crate::secrets::ParsedKey;
use crate::webhook::WebhookMessage;
use crate::{Account, ApiKeyRecord, NewVerificationInput, Transition, Verification};

pub const REDACTED: &str = "<redacted>";

/// Prints `<redacted>`.
pub struct Hidden;

impl Debug for Hidden {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// `None`, or `Some(<redacted>)`: whether a value is there is often what a reader needs.
pub fn presence<T>(value: &Option<T>) -> Option<Hidden> {
    value.as_ref().map(|_| Hidden)
}

/// A URL reduced to its origin: its path and query may carry a receiver's own secret.
pub struct UrlOrigin<'a>(pub &'a str);

impl Debug for UrlOrigin<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match url::Url::parse(self.0) {
            Ok(url) if url.has_host() => {
                write!(f, "\"{}/{REDACTED}\"", url.origin().ascii_serialization())
            }
            _ => f.write_str(REDACTED),
        }
    }
}

/// A body shown by its size only.
pub struct Size(pub usize);

impl Debug for Size {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "<{} bytes>", self.0)
    }
}

impl Debug for Verification {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verification")
            .field("verification_id", &self.verification_id)
            .field("account_id", &self.account_id)
            .field("mode", &self.mode)
            .field("status", &self.status)
            .field("tenant_email", &Hidden)
            .field("tenant_name", &presence(&self.tenant_name))
            .field("tenant_phone", &presence(&self.tenant_phone))
            .field("property_address", &presence(&self.property_address))
            .field("monthly_rent", &presence(&self.monthly_rent))
            .field(
                "rent_subsidy_monthly",
                &presence(&self.rent_subsidy_monthly),
            )
            .field("webhook_url", &self.webhook_url.as_deref().map(UrlOrigin))
            .field("created_at", &self.created_at)
            .field("expires_at", &self.expires_at)
            .field("started_at", &self.started_at)
            .field("completed_at", &self.completed_at)
            .field("cancelled_at", &self.cancelled_at)
            .field("expired_at", &self.expired_at)
            .field("failed_at", &self.failed_at)
            .field("failure_reason", &self.failure_reason)
            .field("consented_at", &self.consented_at)
            .field("income_report", &presence(&self.income_report))
            .field("provider_user", &presence(&self.provider_user))
            .field("provider_link_token", &presence(&self.provider_link_token))
            .field("token_hashes", &Size(self.token_hashes.len()))
            .field("message_links", &Size(self.message_links.len()))
            .field("tenant_note", &presence(&self.tenant_note))
            .field("reminders_off", &self.reminders_off)
            .field("sms_phone", &presence(&self.sms_phone))
            .field("sms", &self.sms)
            .field("held_income", &presence(&self.held_income))
            .field("awaiting", &self.awaiting)
            .field("erased_at", &self.erased_at)
            .finish_non_exhaustive()
    }
}

impl Debug for NewVerificationInput {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewVerificationInput")
            .field("tenant_email", &Hidden)
            .field("tenant_name", &presence(&self.tenant_name))
            .field("tenant_phone", &presence(&self.tenant_phone))
            .field("property_address", &presence(&self.property_address))
            .field("monthly_rent", &presence(&self.monthly_rent))
            .field(
                "rent_subsidy_monthly",
                &presence(&self.rent_subsidy_monthly),
            )
            .field("webhook_url", &self.webhook_url.as_deref().map(UrlOrigin))
            .finish_non_exhaustive()
    }
}

impl Debug for Transition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Transition::Start => f.write_str("Start"),
            // The provider user is a credential at the provider.
            Transition::Consent {
                version, methods, ..
            } => f
                .debug_struct("Consent")
                .field("version", version)
                .field("provider_user", &Hidden)
                .field("methods", methods)
                .finish(),
            // The report is the tenant's income.
            Transition::Complete { .. } => {
                f.debug_struct("Complete").field("report", &Hidden).finish()
            }
            Transition::Fail { reason } => f.debug_struct("Fail").field("reason", reason).finish(),
            Transition::FailRefunded { reason } => f
                .debug_struct("FailRefunded")
                .field("reason", reason)
                .finish(),
            Transition::Cancel => f.write_str("Cancel"),
            Transition::Expire => f.write_str("Expire"),
            Transition::Attempt { attempt } => {
                f.debug_struct("Attempt").field("attempt", attempt).finish()
            }
            // The held income is the tenant's.
            Transition::Hold { attempt, .. } => f
                .debug_struct("Hold")
                .field("attempt", attempt)
                .field("income", &Hidden)
                .finish(),
            Transition::Await { method, next } => f
                .debug_struct("Await")
                .field("method", method)
                .field("next", next)
                .finish(),
            Transition::Signal { signal } => {
                f.debug_struct("Signal").field("signal", signal).finish()
            }
        }
    }
}

impl Debug for Account {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // The name may be a person's (a private landlord).
        f.debug_struct("Account")
            .field("account_id", &self.account_id)
            .field("name", &Hidden)
            .field("plan", &self.plan)
            .field("subscription_status", &self.subscription_status)
            .field("current_period_end", &self.current_period_end)
            .field("created_at", &self.created_at)
            .field("api_window", &self.api_window)
            .field("api_requests", &self.api_requests)
            .field("revoked_keys", &self.revoked_keys)
            .field("api_keys", &self.api_keys.len())
            .finish_non_exhaustive()
    }
}

impl Debug for ApiKeyRecord {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // `key_id` and `display_prefix` are made to be shown; the hash is what the lookup uses.
        f.debug_struct("ApiKeyRecord")
            .field("key_id", &self.key_id)
            .field("key_hash", &Hidden)
            .field("account_id", &self.account_id)
            .field("mode", &self.mode)
            .field("display_prefix", &self.display_prefix)
            .field("created_at", &self.created_at)
            .field("revoked_at", &self.revoked_at)
            .finish_non_exhaustive()
    }
}

impl Debug for ParsedKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParsedKey")
            .field("mode", &self.mode)
            .field("hash", &Hidden)
            .field("account_id", &self.account_id)
            .finish_non_exhaustive()
    }
}

impl Debug for PresentedKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("PresentedKey")
            .field("key_id", &self.key_id)
            .field("key_hash", &Hidden)
            .field("account_id", &self.account_id)
            .field("mode", &self.mode)
            .finish()
    }
}

impl Debug for WebhookMessage {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookMessage")
            .field("webhook_id", &self.webhook_id)
            .field("account_id", &self.account_id)
            .field("url", &UrlOrigin(&self.url))
            .field("body", &Size(self.body.len()))
            .finish_non_exhaustive()
    }
}

/// The `Debug` output of `value` (plain and pretty), after asserting none of `secrets` is in it:
/// the check every crate's redaction tests make.
pub fn assert_hides(value: &impl Debug, secrets: &[&str]) -> String {
    let out = format!("{value:?} {value:#?}");
    for secret in secrets {
        assert!(!out.contains(secret), "{secret} leaked in {out}");
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::income::{PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod};
    use crate::report::{IncomeReport, build_report};
    use crate::{Mode, SubscriptionStatus};

    const EMAIL: &str = "jane.private@example.com";
    const NAME: &str = "Jane Privatename";
    const PHONE: &str = "+1 555 010 9999";
    const PHONE_E164: &str = "+15550109999";
    const ADDRESS: &str = "17 Hidden Lane";
    const RENT: f64 = 1234.56;
    const HOOK_SECRET_PATH: &str = "hook-path-secret";
    const HOOK_SECRET_QUERY: &str = "tok3n-in-query";
    const PLAID_USER: &str = "user-sandbox-b0e2c4ee";
    const LINK_TOKEN: &str = "link-sandbox-af1a0311";
    const TOKEN_HASH: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const EMPLOYER: &str = "Secret Employer Inc";

    /// A report whose one source, the employer, pays 7,777.77 a month.
    fn employer_report() -> IncomeReport {
        let as_of = chrono::NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        let employer = ProviderIncomeSource::on_cycle(
            EMPLOYER,
            "SALARY",
            PayFrequency::Monthly,
            as_of,
            12,
            |_| 7777.77,
        );
        build_report(
            &ProviderIncome {
                as_of,
                method: VerificationMethod::Bank,
                sources: vec![employer],
                provider_confidence: None,
            },
            Some(RENT),
        )
    }

    fn hook_url() -> String {
        format!("https://hooks.example.com/{HOOK_SECRET_PATH}?t={HOOK_SECRET_QUERY}")
    }

    fn input() -> NewVerificationInput {
        NewVerificationInput {
            tenant_email: EMAIL.into(),
            tenant_name: Some(NAME.into()),
            tenant_phone: Some(PHONE.into()),
            property_address: Some(ADDRESS.into()),
            monthly_rent: Some(RENT),
            rent_subsidy_monthly: Some(432.19),
            income_multiple: Some(2.5),
            webhook_url: Some(hook_url()),
            sms_phone: Some(PHONE_E164.into()),
            ..Default::default()
        }
    }

    #[test]
    fn verification_hides_the_tenant_and_the_tokens() {
        let mut v = Verification::new_pending(
            "acct_1",
            Mode::Live,
            input(),
            Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap(),
            chrono::Duration::days(7),
        );
        v.provider_user = Some(PLAID_USER.into());
        v.provider_link_token = Some(LINK_TOKEN.into());
        v.token_hashes = vec![TOKEN_HASH.into()];
        v.message_links
            .insert("invite_sms".into(), format!("{TOKEN_HASH}-sms"));
        v.income_report = Some(employer_report());
        let out = assert_hides(
            &v,
            &[
                EMAIL,
                NAME,
                PHONE,
                PHONE_E164,
                ADDRESS,
                "1234.56",
                "432.19",
                HOOK_SECRET_PATH,
                HOOK_SECRET_QUERY,
                PLAID_USER,
                LINK_TOKEN,
                TOKEN_HASH,
                EMPLOYER,
                "7777.77",
            ],
        );
        // Still useful: ids, status and where webhooks go.
        assert!(out.contains(&v.verification_id.to_string()) && out.contains("Pending"));
        assert!(
            out.contains("https://hooks.example.com/<redacted>"),
            "{out}"
        );
    }

    #[test]
    fn new_verification_input_hides_the_tenant() {
        assert_hides(
            &input(),
            &[
                EMAIL,
                NAME,
                PHONE,
                ADDRESS,
                "1234.56",
                "432.19",
                HOOK_SECRET_PATH,
                HOOK_SECRET_QUERY,
            ],
        );
    }

    #[test]
    fn a_completing_transition_hides_the_income() {
        let report = employer_report();
        assert_hides(
            &Transition::Complete {
                report: Box::new(report),
            },
            &[EMPLOYER, "7777.77"],
        );
    }

    #[test]
    fn account_hides_its_name() {
        let at = Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap();
        let account = Account {
            account_id: "acct_1".into(),
            name: NAME.into(),
            plan: "pro".into(),
            subscription_status: SubscriptionStatus::Active,
            current_period_end: at,
            created_at: at,
            api_window: None,
            api_requests: 0,
            sms_month: 0,
            sms_sent: 0,
            key_bursts: Default::default(),
            revoked_keys: vec![],
            api_keys: [(TOKEN_HASH.to_string(), Mode::Live)].into(),
        };
        let out = assert_hides(&account, &[NAME, TOKEN_HASH]);
        assert!(out.contains("acct_1"));
    }

    #[test]
    fn api_key_record_and_parsed_key_hide_the_hash() {
        let record = ApiKeyRecord {
            key_id: "key_9f86d081884c7d65".into(),
            key_hash: TOKEN_HASH.into(),
            account_id: "acct_1".into(),
            mode: Mode::Test,
            display_prefix: "tiv_test_ab".into(),
            created_at: Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap(),
            revoked_at: None,
        };
        let out = assert_hides(&record, &[TOKEN_HASH]);
        assert!(out.contains("key_9f86d081884c7d65"));
        let parsed = ParsedKey {
            mode: Mode::Live,
            hash: TOKEN_HASH.into(),
            account_id: "acct_1".into(),
        };
        assert_hides(&parsed, &[TOKEN_HASH]);
        let presented = PresentedKey {
            key_id: "key_9f86d081884c7d65".into(),
            key_hash: TOKEN_HASH.into(),
            account_id: "acct_1".into(),
            mode: Mode::Live,
        };
        assert_hides(&presented, &[TOKEN_HASH]);
    }

    #[test]
    fn webhook_message_hides_url_path_query_and_body() {
        let message = WebhookMessage {
            webhook_id: "msg_1".into(),
            account_id: "acct_1".into(),
            url: hook_url(),
            body: format!("{{\"data\":{{\"tenant\":\"{EMAIL}\"}}}}"),
        };
        let out = assert_hides(&message, &[HOOK_SECRET_PATH, HOOK_SECRET_QUERY, EMAIL]);
        assert!(out.contains("msg_1"));
        let unparsable = WebhookMessage {
            url: format!("not a url {HOOK_SECRET_QUERY}"),
            ..message
        };
        assert_hides(&unparsable, &[HOOK_SECRET_QUERY]);
    }
}
