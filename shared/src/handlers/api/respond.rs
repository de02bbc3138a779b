//! The request pipeline every API handler runs through: authenticate and meter, run the
//! operation, turn its outcome into the enveloped response with the rate headers, and log it.

use std::future::Future;

use chrono::{DateTime, Utc};
use tracing::Instrument;

use crate::domain::Account;
use crate::domain::metering::PresentedKey;
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::auth::{Caller, counted, meter, refused, resolve_key};
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, Store, StoreError};

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        if let StoreError::MeterRefused(outcome) = e {
            return ApiError::MeterRefused(outcome);
        }
        if let StoreError::Busy = e {
            // Contention, not a fault: the client retries (Retry-After) and nothing was written.
            tracing::warn!(error = %e, "store contended");
            return ApiError::Busy;
        }
        // The span carries the request id; the store's text stays in the log.
        tracing::error!(error = %e, "store call failed");
        ApiError::Internal
    }
}
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
    S: Store,
    C: Clock,
    P: FnOnce(PresentedKey) -> PF,
    PF: Future<Output = T>,
    F: FnOnce(Caller, T, DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<ApiResponse, ApiError>>,
{
    // Boxed: the pipeline's future holds the operation's, which would make every handler's
    // future (and the stack of whoever awaits it) large.
    Box::pin(pipeline(
        deps,
        req,
        |_, _| std::future::ready(None),
        prefetch,
        op,
    ))
    .await
}

/// What a write that carries its own metering did: the account as its count left it, and the
/// response (or the error, e.g. a store failure, after which the request must not be retried).
pub(crate) type MeteredWrite = Result<(Account, ApiResponse), ApiError>;

/// As `respond`, for a write that can carry its own metering (`MeterStore::meter_and_create`):
/// `combined(key, now)` tries the whole request in ONE write, with the authentication and the
/// allowance in its condition. Some(outcome) when it did (or failed in a way that must not be
/// retried); None when nothing was written or counted, and the request goes the usual way: the
/// metering write (with `prefetch` beside it, as in `respond`), then `op` (which says why it was
/// refused, or does the work).
pub(crate) async fn respond_combined<S, C, W, WF, P, PF, T, F, Fut>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    combined: W,
    prefetch: P,
    op: F,
) -> ApiResponse
where
    S: Store,
    C: Clock,
    W: FnOnce(PresentedKey, DateTime<Utc>) -> WF,
    WF: Future<Output = Option<MeteredWrite>>,
    P: FnOnce(PresentedKey) -> PF,
    PF: Future<Output = T>,
    F: FnOnce(Caller, T, DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<ApiResponse, ApiError>>,
{
    Box::pin(pipeline(deps, req, combined, prefetch, op)).await
}

async fn pipeline<S, C, W, WF, P, PF, T, F, Fut>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    combined: W,
    prefetch: P,
    op: F,
) -> ApiResponse
where
    S: Store,
    C: Clock,
    W: FnOnce(PresentedKey, DateTime<Utc>) -> WF,
    WF: Future<Output = Option<MeteredWrite>>,
    P: FnOnce(PresentedKey) -> PF,
    PF: Future<Output = T>,
    F: FnOnce(Caller, T, DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<ApiResponse, ApiError>>,
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
        let (result, rate) = match resolve_key(deps, req).await {
            Err(e) => (Err(e), None),
            Ok(key) => match combined(key.clone(), now).await {
                Some(Ok((account, response))) => {
                    let rate = counted(deps, &account, now);
                    (Ok(response), rate)
                }
                // Refused by the account's condition: answered as the metering write would.
                Some(Err(ApiError::MeterRefused(outcome))) => {
                    let (e, rate) = refused(deps, &key, *outcome, now);
                    (Err(e), rate)
                }
                Some(Err(e)) => (Err(e), None),
                None => {
                    let (metered, fetched) =
                        futures::join!(meter(deps, key.clone(), now), prefetch(key));
                    match metered {
                        Ok((caller, rate)) => (op(caller, fetched, now).await, Some(rate)),
                        Err((e, rate)) => (Err(e), rate),
                    }
                }
            },
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
        | ApiError::ResendLimitReached { retry_after, .. } => {
            response = response.with_header("retry-after", retry_after.to_string());
        }
        ApiError::Busy => response = response.with_header("retry-after", "1"),
        _ => {}
    }
    response
}
