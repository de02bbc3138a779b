//! Argyle's signed webhooks (`POST /webhooks/providers/argyle`), as
//! https://docs.argyle.com/api-guide/webhooks documents them: the header `X-Argyle-Signature`
//! holds the hex HMAC-SHA512 of the body as received, keyed with the `secret` of our
//! subscription. Anything else is unverified.
//!
//! Argyle's webhooks are not per user: the verification is found through the user the message
//! names (`GET /v2/users/{id}`, whose `external_id` begins with the verification id).
//!
//! Argyle speaks per account, the wait is per tenant: every event below asks for a read now, and
//! the read decides from every account's state (`income`): still syncing waits, all failed
//! refuses.
//! - `paystubs.fully_synced` (https://docs.argyle.com/api-reference/paystubs-webhooks) and
//!   `gigs.fully_synced` (https://docs.argyle.com/api-reference/gigs-webhooks): an account's
//!   records are all in.
//! - `accounts.failed` (https://docs.argyle.com/api-reference/accounts-webhooks): a connection
//!   failed; the read leaves that account out.
//!
//! `paystubs.partially_synced` and the rest are of no concern: the read waits for a full sync.

use chrono::{DateTime, Utc};

use crate::argyle::client::{ArgyleIncomeProvider, is_user_id};
use crate::argyle::config::{ArgyleConfig, ArgyleConfigError};
use crate::argyle::wire::WebhookMessage;
use domain::awaiting::DataSignal;
use domain::income::VerificationMethod;
use domain::secrets::{hmac_sha512_hex, same_secret as same};
use ports::{ProviderNotice, ProviderWebhookVerifier, WebhookRefusal};

/// The header Argyle signs with.
pub const SIGNATURE_HEADER: &str = "x-argyle-signature";
/// A hex HMAC-SHA512 is 128 characters; anything longer is refused before hashing.
const SIGNATURE_LEN: usize = 128;

/// Checks Argyle's webhooks with our subscription's secret, and asks Argyle whose user a
/// webhook names. `Debug` shows neither key.
pub struct ArgyleWebhookVerifier {
    secret: String,
    argyle: ArgyleIncomeProvider,
}

impl std::fmt::Debug for ArgyleWebhookVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgyleWebhookVerifier")
            .field("secret", &"<redacted>")
            .field("argyle", &self.argyle)
            .finish()
    }
}

impl ArgyleWebhookVerifier {
    /// The verifier of `config`, which must hold the webhook secret.
    pub fn new(config: ArgyleConfig) -> Result<Self, ArgyleConfigError> {
        let secret = (config.webhook_secret.clone()).ok_or(ArgyleConfigError::NoWebhookSecret)?;
        Ok(ArgyleWebhookVerifier {
            secret,
            argyle: ArgyleIncomeProvider::new(config)?,
        })
    }

    /// The signature Argyle sends with `body` under `secret` (the emulator signs with it).
    pub fn sign(secret: &str, body: &[u8]) -> String {
        hmac_sha512_hex(secret.as_bytes(), body)
    }
}

/// What a verified message says.
fn notice_of(body: &[u8]) -> ProviderNotice {
    let Ok(message) = serde_json::from_slice::<WebhookMessage>(body) else {
        return ProviderNotice::Ignored {
            kind: "unreadable".into(),
        };
    };
    let read_now = matches!(
        message.event.as_str(),
        "paystubs.fully_synced" | "gigs.fully_synced" | "accounts.failed"
    );
    let user = (message.data.and_then(|d| d.user)).filter(|u| is_user_id(u.trim()));
    match (read_now, user) {
        (true, Some(user)) => ProviderNotice::Data {
            provider_user_id: user.trim().to_string(),
            signal: DataSignal::Ready,
        },
        _ => ProviderNotice::Ignored {
            kind: event_name(&message.event),
        },
    }
}

/// Argyle's event names are short dotted words (`paystubs.added`); anything else, which could
/// carry user data, is not logged.
fn event_name(raw: &str) -> String {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    match raw.trim() {
        e if !e.is_empty() && e.len() <= 64 && e.bytes().all(word) => e.to_string(),
        _ => "unknown".to_string(),
    }
}

impl ProviderWebhookVerifier for ArgyleWebhookVerifier {
    fn signature_header(&self) -> &'static str {
        SIGNATURE_HEADER
    }

    async fn verify(
        &self,
        signature: Option<&str>,
        body: &[u8],
        _now: DateTime<Utc>,
    ) -> Result<ProviderNotice, WebhookRefusal> {
        use WebhookRefusal::Unverified;
        let signature = (signature.map(str::trim))
            .filter(|s| !s.is_empty() && s.len() <= SIGNATURE_LEN)
            .ok_or(Unverified("no X-Argyle-Signature header"))?;
        let expected = Self::sign(&self.secret, body);
        if !same(&signature.to_ascii_lowercase(), &expected) {
            return Err(Unverified("bad signature"));
        }
        Ok(notice_of(body))
    }

    fn method(&self) -> VerificationMethod {
        VerificationMethod::Payroll
    }

    async fn verification_of(
        &self,
        provider_user_id: &str,
    ) -> Result<Option<uuid::Uuid>, WebhookRefusal> {
        (self.argyle.verification_of(provider_user_id).await)
            .map_err(|e| WebhookRefusal::Unavailable(e.to_string()))
    }

    fn is_user(&self, handle: &str, provider_user_id: &str) -> bool {
        same(handle.trim(), provider_user_id.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const USER: &str = "018051aa-f7a9-a0db-2f38-6cfa325e9d69";

    /// The message of https://docs.argyle.com/api-reference/paystubs-webhooks, with `event`.
    fn message(event: &str, user: &str) -> String {
        serde_json::json!({
            "event": event,
            "name": "name-for-the-webhook-subscription",
            "data": {"account": "0187c66e-e7e5-811c-b006-2232f00f426a", "user": user,
                     "available_count": "24"},
        })
        .to_string()
    }

    #[test]
    fn the_events_that_end_a_sync_ask_for_a_read_and_the_rest_are_ignored() {
        for event in [
            "paystubs.fully_synced",
            "gigs.fully_synced",
            "accounts.failed",
        ] {
            assert_eq!(
                notice_of(message(event, USER).as_bytes()),
                ProviderNotice::Data {
                    provider_user_id: USER.into(),
                    signal: DataSignal::Ready
                },
                "{event}"
            );
        }
        for event in [
            "paystubs.partially_synced",
            "accounts.updated",
            "identities.added",
        ] {
            let notice = notice_of(message(event, USER).as_bytes());
            assert_eq!(notice, ProviderNotice::Ignored { kind: event.into() });
        }
        // No user, or one that is not an Argyle id, is no one's data; a hostile event is not logged.
        let no_user = notice_of(message("paystubs.fully_synced", "a@b.example").as_bytes());
        assert!(matches!(no_user, ProviderNotice::Ignored { .. }));
        let odd = notice_of(message("x y@z", USER).as_bytes());
        assert_eq!(
            odd,
            ProviderNotice::Ignored {
                kind: "unknown".into()
            }
        );
    }

    proptest! {
        /// Only the hex HMAC-SHA512 of these very bytes under this secret verifies: another
        /// secret, or one changed byte of the body, never does.
        #[test]
        fn a_signature_holds_only_for_its_body_and_secret(
            body in proptest::collection::vec(any::<u8>(), 0..256),
            flip in any::<prop::sample::Index>(),
            secret in "[a-zA-Z0-9]{8,40}",
        ) {
            let good = ArgyleWebhookVerifier::sign(&secret, &body);
            prop_assert_eq!(good.len(), SIGNATURE_LEN);
            prop_assert!(same(&good, &ArgyleWebhookVerifier::sign(&secret, &body)));
            let other = ArgyleWebhookVerifier::sign(&format!("{secret}x"), &body);
            prop_assert!(!same(&good, &other));
            if !body.is_empty() {
                let mut changed = body.clone();
                changed[flip.index(body.len())] ^= 1;
                prop_assert!(!same(&good, &ArgyleWebhookVerifier::sign(&secret, &changed)));
            }
        }
    }
}
