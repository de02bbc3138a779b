//! A data provider's signed webhooks (Plaid's and Argyle's, on one route shape): who checks the
//! signature, and what a verified webhook says about one tenant's connection.

use std::future::Future;

use chrono::{DateTime, Utc};

pub use domain::awaiting::DataSignal;

/// What a verified webhook says: the provider's own id of the user it concerns, and whether that
/// user's data is ready or failed. None of our concern (another product's webhook): `Ignored`.
#[derive(Clone, PartialEq, Eq)]
pub enum ProviderNotice {
    Data {
        provider_user_id: String,
        signal: DataSignal,
    },
    Ignored {
        kind: String,
    },
}

impl std::fmt::Debug for ProviderNotice {
    /// The provider's user id is an identifier of a person at the provider: never in a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProviderNotice::Data { signal, .. } => write!(f, "Data({signal:?})"),
            ProviderNotice::Ignored { kind } => write!(f, "Ignored({kind})"),
        }
    }
}

/// Why a webhook was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookRefusal {
    /// The signature, its key, its age or the body's digest does not hold: 401, no work.
    #[error("unverified: {0}")]
    Unverified(&'static str),
    /// The keys could not be fetched from the provider: 503, so the provider sends it again.
    #[error("provider unreachable: {0}")]
    Unavailable(String),
}

/// Checks one provider's signed webhooks. `signature` is the provider's signature header
/// (`Plaid-Verification`, `X-Argyle-Signature`), `body` the exact bytes received.
pub trait ProviderWebhookVerifier: Send + Sync {
    /// The header that carries the signature.
    fn signature_header(&self) -> &'static str;

    fn verify(
        &self,
        signature: Option<&str>,
        body: &[u8],
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<ProviderNotice, WebhookRefusal>> + Send;

    /// The method whose provider sends these webhooks: its part of the stored handle is the one
    /// `is_user` is given (`crate::provider_users`).
    fn method(&self) -> domain::income::VerificationMethod;

    /// The verification a verified webhook's user was made for, when the provider keeps our
    /// reference (Argyle's `external_id`). None: the webhook's URL names it (Plaid: the link
    /// token's webhook carries `?verification_id=`). The handle check (`is_user`) still decides.
    fn verification_of(
        &self,
        _provider_user_id: &str,
    ) -> impl Future<Output = Result<Option<uuid::Uuid>, WebhookRefusal>> + Send {
        async { Ok(None) }
    }

    /// Whether this provider's own user handle (its part of `Verification::provider_user`) is
    /// the user a webhook names.
    fn is_user(&self, handle: &str, provider_user_id: &str) -> bool;
}
