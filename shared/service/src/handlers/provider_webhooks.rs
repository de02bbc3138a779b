//! `provider-webhooks`: `POST /webhooks/providers/{provider}`, the data providers' webhooks:
//! Plaid's (`/webhooks/providers/plaid`) and Argyle's (`/webhooks/providers/argyle`), one verifier
//! each.
//!
//! A webhook is work only once verified (`ports::ProviderWebhookVerifier`): anything else is
//! answered 401 and changes nothing. A verified one that names a verification's waiting
//! connection records the provider's signal on it in one conditional write; the table's stream
//! then hands the reading of the data to the outbox (`provider_data`), whose retry road has the
//! back-off. A duplicate finds the signal written and is answered 200 with no more work, and of
//! two concurrent ones the conditional write lets one through. Nothing is answered 200 before
//! the signal is stored: a 503 asks the provider to send it again.
//!
//! The verification is named by the URL Plaid was given with the link token
//! (`?verification_id=`), or by the provider's record of our reference (Argyle's user keeps the
//! verification id as its `external_id`). Either is trusted only when the signed body names
//! that verification's user.

use serde_json::json;
use tracing::Instrument;
use uuid::Uuid;

use crate::handlers::api::respond::error_response;
use crate::http::{ApiRequest, ApiResponse};
use domain::Transition;
use domain::awaiting::DataSignal;
use domain::error::ApiError;
use ports::{
    Clock, ProviderNotice, ProviderWebhookVerifier, TransitionOutcome, VerificationStore,
    WebhookRefusal,
};

/// What `provider-webhooks` needs: the verifications, the time, and one verifier per provider
/// (None: that provider is not configured, and its route answers 404).
pub struct ProviderWebhookDeps<S, C, V, A> {
    pub store: S,
    pub clock: C,
    pub plaid: Option<V>,
    pub argyle: Option<A>,
}

/// Entry point of the `provider-webhooks` function.
pub async fn provider_webhooks<S, C, V, A>(
    deps: &ProviderWebhookDeps<S, C, V, A>,
    req: ApiRequest,
) -> ApiResponse
where
    S: VerificationStore,
    C: Clock,
    V: ProviderWebhookVerifier,
    A: ProviderWebhookVerifier,
{
    let span = tracing::info_span!("provider_webhook", request_id = %req.request_id, provider = tracing::field::Empty);
    async {
        let response = handle(deps, &req).await;
        tracing::info!(status = response.status, "provider webhook answered");
        response.with_header("x-request-id", req.request_id.clone())
    }
    .instrument(span)
    .await
}

/// A received webhook's answer: `result` says what became of it.
fn received(result: &str) -> ApiResponse {
    ApiResponse::json(200, &json!({"success": true, "result": result}))
}

/// A refusal, enveloped as every error of the service. A 401 carries no Bearer challenge: the
/// provider proves itself by the signature, not by an API key.
fn refuse(req: &ApiRequest, e: ApiError) -> ApiResponse {
    match e {
        ApiError::Unauthorized { .. } => ApiResponse::json(e.status(), &e.body(&req.request_id)),
        ApiError::MethodNotAllowed => {
            error_response(&e, &req.request_id).with_header("allow", "POST")
        }
        _ => error_response(&e, &req.request_id),
    }
}

/// The provider sends a webhook again after a 503; a minute lets a store or key fetch recover.
const TRY_AGAIN: ApiError = ApiError::Unavailable { retry_after: 60 };

async fn handle<S, C, V, A>(deps: &ProviderWebhookDeps<S, C, V, A>, req: &ApiRequest) -> ApiResponse
where
    S: VerificationStore,
    C: Clock,
    V: ProviderWebhookVerifier,
    A: ProviderWebhookVerifier,
{
    let provider = req
        .path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let at = Received {
        store: &deps.store,
        clock: &deps.clock,
        req,
    };
    match (provider, &deps.plaid, &deps.argyle) {
        ("plaid", Some(plaid), _) => at.checked_by(provider, plaid).await,
        ("argyle", _, Some(argyle)) => at.checked_by(provider, argyle).await,
        _ => refuse(req, ApiError::NotFound("No such provider webhook".into())),
    }
}

/// A webhook received, with what checks and records it.
struct Received<'a, S, C> {
    store: &'a S,
    clock: &'a C,
    req: &'a ApiRequest,
}

impl<S: VerificationStore, C: Clock> Received<'_, S, C> {
    /// The webhook as `verifier`'s provider's.
    async fn checked_by<V: ProviderWebhookVerifier>(
        &self,
        provider: &str,
        verifier: &V,
    ) -> ApiResponse {
        tracing::Span::current().record("provider", provider);
        let deps = self;
        let req = self.req;
        if req.method != http::Method::POST {
            return refuse(req, ApiError::MethodNotAllowed);
        }
        let signature = req.header(verifier.signature_header());
        let notice = match verifier
            .verify(signature, &req.body, deps.clock.now())
            .await
        {
            Ok(notice) => notice,
            Err(WebhookRefusal::Unverified(why)) => {
                tracing::warn!(why, "provider webhook refused: unverified");
                let message = "The webhook's signature does not hold".to_string();
                let code = "webhook_unverified";
                return refuse(req, ApiError::Unauthorized { code, message });
            }
            Err(WebhookRefusal::Unavailable(why)) => {
                tracing::warn!(why = %why, "provider webhook not checked: keys unavailable");
                return refuse(req, TRY_AGAIN);
            }
        };
        let (user_id, signal) = match notice {
            ProviderNotice::Data {
                provider_user_id,
                signal,
            } => (provider_user_id, signal),
            ProviderNotice::Ignored { kind } => {
                tracing::info!(kind = %kind, "provider webhook of no concern");
                return received("ignored");
            }
        };
        match deps.record_signal(verifier, &user_id, signal).await {
            Ok(result) => received(result),
            Err(Retry(why)) => {
                tracing::warn!(why, "provider webhook not recorded yet");
                refuse(req, TRY_AGAIN)
            }
        }
    }
}

/// Why a verified webhook could not be recorded now (the provider sends it again).
struct Retry(&'static str);

impl<S: VerificationStore, C: Clock> Received<'_, S, C> {
    /// Records the signal on the named verification's waiting connection, once.
    async fn record_signal<V: ProviderWebhookVerifier>(
        &self,
        verifier: &V,
        user_id: &str,
        signal: DataSignal,
    ) -> Result<&'static str, Retry> {
        let deps = self;
        let named = match verifier.verification_of(user_id).await {
            Ok(Some(id)) => Some(id),
            Ok(None) => {
                (self.req.query.get("verification_id")).and_then(|id| Uuid::parse_str(id).ok())
            }
            Err(_) => return Err(Retry("the provider could not name the verification")),
        };
        let Some(id) = named else {
            return Ok("unknown_verification");
        };
        let v = match deps.store.get_verification(id).await {
            Ok(Some(v)) => v,
            Ok(None) => return Ok("unknown_verification"),
            Err(_) => return Err(Retry("store unavailable")),
        };
        // The URL is not signed: only a body naming this verification's user counts for it.
        let own = (v.provider_user.as_deref())
            .and_then(|h| ports::provider_users::part(h, verifier.method()));
        if !own.is_some_and(|h| verifier.is_user(h, user_id)) {
            tracing::warn!(verification_id = %id, "webhook names another user; ignored");
            return Ok("other_user");
        }
        let Some(waiting) = v.awaiting_now() else {
            if v.status.is_open() && v.consented_at.is_some() {
                // Ready before the page recorded the wait: kept by the provider, sent again.
                return Err(Retry("the connection is not waiting yet"));
            }
            return Ok("settled");
        };
        // Each provider's user is made at consent, so a payroll webhook can arrive while the bank
        // is awaited: it is no signal for that wait.
        if waiting.method != verifier.method() {
            return Ok("other_method");
        }
        if waiting.signal.is_some() {
            return Ok("duplicate");
        }
        let now = deps.clock.now();
        match deps
            .store
            .transition(&v, &Transition::Signal { signal }, now)
            .await
        {
            Ok(TransitionOutcome::Applied(_)) => {
                tracing::info!(verification_id = %id, signal = ?signal, "provider signal recorded");
                Ok("recorded")
            }
            Ok(TransitionOutcome::Conflict(Some(fresh)))
                if fresh.awaiting_now().is_some_and(|w| w.signal.is_some()) =>
            {
                Ok("duplicate")
            }
            Ok(TransitionOutcome::Conflict(Some(fresh))) if fresh.awaiting_now().is_none() => {
                Ok("settled")
            }
            Ok(TransitionOutcome::Conflict(_)) => Err(Retry("the verification changed meanwhile")),
            Err(_) => Err(Retry("store unavailable")),
        }
    }
}
