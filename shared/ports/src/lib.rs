//! Ports: one trait per outside system (the store: one per role, in `store`). Handlers are
//! generic over these (static dispatch), so they run in tests without Lambda and without AWS types.

use std::future::Future;

use chrono::{DateTime, Utc};

use domain::Verification;
use domain::income::{ProviderIncome, VerificationMethod};
use domain::tenant_identity::TenantIdentity;

pub mod documents;
pub mod list;
pub mod provider_users;
pub mod provider_webhooks;
pub mod reach;
mod redact;
pub mod store;
pub mod upload_form;
pub mod webhooks;

pub use documents::{
    DOWNLOAD_LINK_SECONDS, DocumentEraser, DocumentStore, DownloadSigner, FingerprintStore,
    MeteredReview, ObjectError, ObjectStore, ReviewRefusal, ReviewStore, StoredObject,
    UploadSigner,
};
pub use domain::metering::MeterOutcome;
pub use list::{ListPage, ListQuery};
pub use provider_webhooks::{ProviderNotice, ProviderWebhookVerifier, WebhookRefusal};
pub use reach::*;
pub use store::*;

/// Time, injectable so expiry and windows are testable.
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// An e-mail to one recipient.
#[derive(Clone, PartialEq)]
pub struct Email {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
}

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// Worth retrying (throttling, outage).
    #[error("transient mail failure: {0}")]
    Transient(String),
    /// The provider refused this message for good (bad address, suppressed recipient).
    #[error("mail rejected: {0}")]
    Permanent(String),
    /// Refused because of the service's own SES set-up (account suspended or paused, sender
    /// identity missing or unverified): not the tenant's fault; retried and alarmed.
    #[error("mail refused by the service's configuration: {0}")]
    Operator(String),
}

/// Outgoing e-mail (SES v2).
pub trait Mailer: Send + Sync {
    fn send(&self, email: &Email) -> impl Future<Output = Result<(), MailError>> + Send;
}

/// The webhook queue (SQS).
pub trait Queue: Send + Sync {
    fn send(&self, body: &str) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Makes a received message visible again after `delay_seconds` (the retry's back-off).
    fn retry_later(
        &self,
        receipt_handle: &str,
        delay_seconds: u32,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The provider could not produce income data for this tenant; the verification fails.
    #[error("income provider refused: {0}")]
    Rejected(String),
    /// Timeout, outage or a malformed answer; the tenant may try again.
    #[error("income provider unavailable: {0}")]
    Unavailable(String),
}

/// What the tenant page shows to connect an income source.
#[derive(Clone, PartialEq)]
pub enum ConnectStep {
    /// Sandbox: the tenant picks a scenario from a plain form (no JavaScript).
    ChooseScenario { scenarios: Vec<(String, String)> },
    /// A provider's own widget (e.g. Plaid Link) opened with this short-lived token. A fresh one
    /// is made for every page, so an expired or used token never strands the tenant.
    Widget {
        link_token: String,
        /// Where Link's script comes from: Plaid's CDN (None), or the local stack's stand-in,
        /// set in code by the local stack only.
        script: Option<String>,
    },
    /// A payroll provider's widget (Argyle Link) opened with this short-lived user token; in
    /// its sandbox environment when `sandbox` is set.
    PayrollWidget {
        user_token: String,
        sandbox: bool,
        /// Where Link's script comes from: Argyle's (None), or the local stack's stand-in, set
        /// in code by the local stack only.
        script: Option<String>,
    },
}

/// Where income data comes from (sandbox scenarios, or a bank-income API).
pub trait IncomeProvider: Send + Sync {
    /// Creates the tenant's user at the provider, for providers that have users (Plaid): an opaque
    /// handle the caller stores in the same write as the consent, before anything else can fail,
    /// so a later failure never needs a second user. None for providers without users.
    /// `identity` is what the tenant typed when `identity_methods` asks for it; never stored.
    fn create_user(
        &self,
        _verification: &Verification,
        _identity: Option<&TenantIdentity>,
    ) -> impl Future<Output = Result<Option<String>, ProviderError>> + Send {
        async { Ok(None) }
    }

    /// The methods whose provider needs the tenant's legal name, date of birth and address at
    /// consent (a consumer report: Plaid Check, for `bank`).
    fn identity_methods(&self) -> &[VerificationMethod] {
        &[]
    }

    /// Prepares the connection step of `method` on the tenant page; `provider_user` is what
    /// `create_user` gave. Changes nothing on our side (a GET renders it).
    fn begin(
        &self,
        verification: &Verification,
        method: VerificationMethod,
        provider_user: Option<&str>,
    ) -> impl Future<Output = Result<ConnectStep, ProviderError>> + Send;

    /// Fetches the tenant's income of `method` once they connected. `connection` is the scenario
    /// the tenant chose (sandbox) or the provider user from `create_user` (widget providers).
    fn fetch_income(
        &self,
        verification: &Verification,
        method: VerificationMethod,
        connection: &str,
    ) -> impl Future<Output = Result<ProviderIncome, ProviderError>> + Send;

    /// The verification methods this provider serves for live keys, in the order the page offers
    /// them (a stack's several providers: `INCOME_PROVIDERS`; the sandbox's depend on the
    /// scenario).
    fn methods(&self) -> &[VerificationMethod] {
        &[VerificationMethod::Bank]
    }

    /// Closes the tenant's connection at the provider once the report is built or the
    /// verification ended: the user `create_user` gave (`provider_user`) and, with it, every bank
    /// connection made for it. Nothing to close for providers without users.
    fn close_user(
        &self,
        _verification: &Verification,
        _provider_user: &str,
    ) -> impl Future<Output = Result<(), ProviderError>> + Send {
        async { Ok(()) }
    }

    /// True when the income is invented (sandbox scenarios), not read from a real provider.
    fn simulated(&self) -> bool {
        false
    }

    /// True when the provider of `method` builds its report after the tenant finishes in its
    /// window and says so by webhook (Plaid Check, Argyle): the page then records the connection as
    /// waiting (`domain::awaiting`) instead of reading at once.
    fn reports_later(&self, _method: VerificationMethod) -> bool {
        false
    }
}
