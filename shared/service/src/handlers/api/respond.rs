//! The request pipeline every API handler runs through: authenticate and meter (alone for a read,
//! or in the one transaction of a write), run the operation, turn its outcome into the enveloped
//! response with the rate headers, and log it.

use std::future::Future;

use chrono::{DateTime, Utc};
use tracing::Instrument;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::auth::{Caller, RateInfo, counted, meter, refused, resolve_key};
use crate::http::{ApiRequest, ApiResponse};
use domain::Account;
use domain::error::ApiError;
use domain::metering::{MeterRefusal, PresentedKey};
use ports::{Clock, MeterStore, Metered, StoreError};

/// Authenticates, runs `op`, and turns the outcome into the response with headers and logs.
///
/// `prefetch` runs the operation's reads at the same time as the metering write: a read needs only
/// the key's owner (the key names it), and its result is used only once the request is allowed.
/// That keeps a GET at one DynamoDB round trip, cold or warm. Only reads bounded by a constant
/// belong there: a refused request (401/403/429) must not pay for more, and its prefetched result
/// is dropped unused (so the list's page is read there only when it is one bounded query).
pub(crate) async fn respond<S, C, P, PF, T, F, Fut>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    prefetch: P,
    op: F,
) -> ApiResponse
where
    S: MeterStore,
    C: Clock,
    P: FnOnce(PresentedKey) -> PF,
    PF: Future<Output = T>,
    F: FnOnce(Caller, T, DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<ApiResponse, ApiError>>,
{
    // Boxed: the pipeline's future holds the operation's, which would make every handler's
    // future (and the stack of whoever awaits it) large.
    Box::pin(pipeline(deps, req, |key, now| async move {
        let (metered, fetched) = futures::join!(meter(deps, key.clone(), now), prefetch(key));
        match metered {
            Ok((caller, rate)) => (op(caller, fetched, now).await, Some(rate)),
            Err((e, rate)) => (Err(e), rate),
        }
    }))
    .await
}

/// What a write that carries its own metering did (`respond_metered`).
pub(crate) enum Attempt {
    /// The request's own input refused it before any write: it is metered alone (as a read is),
    /// then answered with this error (unless its account refuses it first).
    Invalid(ApiError),
    /// Counted (by the one transaction, or alone after the operation was refused): the account
    /// after the count, and the answer.
    Counted(Account, Result<ApiResponse, ApiError>),
    /// The account refused the request; nothing was written or counted.
    AccountRefused(MeterRefusal),
    /// The store failed: nothing is known to be done, and nothing more is tried.
    Failed(ApiError),
}

/// The store's outcome of a metered write as an `Attempt`: `answer` turns what the write did (the
/// operation's answer, or why it was refused) into the response, given the account after the
/// count.
pub(crate) async fn attempt<T, R, F, Fut>(
    written: Result<Metered<T, R>, StoreError>,
    answer: F,
) -> Attempt
where
    F: FnOnce(Account, Result<T, R>) -> Fut,
    Fut: Future<Output = Result<ApiResponse, ApiError>>,
{
    let (account, done) = match written {
        Err(e) => return Attempt::Failed(e.into()),
        Ok(Metered::AccountRefused(why)) => return Attempt::AccountRefused(why),
        Ok(Metered::Done(account, done)) => (account, Ok(done)),
        Ok(Metered::Refused(account, why)) => (account, Err(why)),
    };
    let answered = answer(account.clone(), done).await;
    Attempt::Counted(account, answered)
}

/// As `respond`, for a write that carries its own metering (`MeterStore::meter_and_create`, ...):
/// `write(key, now)` does the whole request in ONE transaction with the authentication and the
/// allowance in its condition. A refused operation is told by the store from what it saw, with
/// the request counted alone: there is no second write of the operation.
pub(crate) async fn respond_metered<S, C, W, WF>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    write: W,
) -> ApiResponse
where
    S: MeterStore,
    C: Clock,
    W: FnOnce(PresentedKey, DateTime<Utc>) -> WF,
    WF: Future<Output = Attempt>,
{
    Box::pin(pipeline(deps, req, |key, now| async move {
        match write(key.clone(), now).await {
            Attempt::Invalid(e) => match meter(deps, key, now).await {
                Ok((_, rate)) => (Err(e), Some(rate)),
                Err((refused, rate)) => (Err(refused), rate),
            },
            Attempt::Counted(account, answer) => (answer, counted(deps, &account, now)),
            Attempt::AccountRefused(why) => {
                let (e, rate) = refused(deps, why, now);
                (Err(e), rate)
            }
            Attempt::Failed(e) => (Err(e), None),
        }
    }))
    .await
}

async fn pipeline<S, C, H, HF>(deps: &ApiDeps<S, C>, req: &ApiRequest, handle: H) -> ApiResponse
where
    S: MeterStore,
    C: Clock,
    H: FnOnce(PresentedKey, DateTime<Utc>) -> HF,
    HF: Future<Output = (Result<ApiResponse, ApiError>, Option<RateInfo>)>,
{
    let span = tracing::info_span!(
        "api_request",
        request_id = %req.request_id,
        method = %req.method,
        path = %req.path,
        account_id = tracing::field::Empty,
    );
    async {
        let now = deps.clock.now();
        let (result, rate) = match resolve_key(req) {
            Err(e) => (Err(e), None),
            Ok(key) => handle(key, now).await,
        };
        let mut response = match result {
            Ok(resp) => {
                tracing::info!(status = resp.status, "request served");
                resp
            }
            Err(e) => {
                if e.status() >= 500 {
                    tracing::error!(status = e.status(), code = e.code(), "request failed");
                } else {
                    tracing::info!(status = e.status(), code = e.code(), "request refused");
                }
                error_response(&e, &req.request_id)
            }
        };
        if let Some(rate) = rate {
            response = response
                .with_header("x-ratelimit-limit", rate.limit.to_string())
                .with_header("x-ratelimit-remaining", rate.remaining.to_string())
                .with_header("x-ratelimit-reset", rate.reset.timestamp().to_string());
        }
        response.with_header("x-request-id", req.request_id.clone())
    }
    .instrument(span)
    .await
}

/// The enveloped error response, with the headers its status calls for.
pub fn error_response(e: &ApiError, request_id: &str) -> ApiResponse {
    let mut response = ApiResponse::json(e.status(), &e.body(request_id));
    match e {
        ApiError::Unauthorized { code, .. } => {
            let error = if *code == "missing_api_key" {
                "invalid_request"
            } else {
                "invalid_token"
            };
            response = response.with_header(
                "www-authenticate",
                format!("Bearer realm=\"api\", error=\"{error}\""),
            );
        }
        ApiError::RateLimited { retry_after }
        | ApiError::KeyBurstExceeded { retry_after }
        | ApiError::ResendLimitReached { retry_after, .. }
        | ApiError::Unavailable { retry_after } => {
            response = response.with_header("retry-after", retry_after.to_string());
        }
        ApiError::Busy => response = response.with_header("retry-after", "1"),
        _ => {}
    }
    response
}
