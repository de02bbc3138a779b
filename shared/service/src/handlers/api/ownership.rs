//! Which verifications a caller may see: only their own account's, of their key's mode. Anything
//! else answers 404, so another account's id is never revealed to exist.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::handlers::api::respond::respond;
use crate::handlers::api::validate::verification_id_param;
use crate::handlers::api::{ApiDeps, Caller};
use crate::http::{ApiRequest, ApiResponse};
use domain::Verification;
use domain::error::ApiError;
use domain::metering::PresentedKey;
use ports::{Clock, MeterStore, VerificationStore};

/// The pipeline of the endpoints on one verification (`?verification_id=`): the verification is
/// read during the metering write, and `op` gets it only if it is the caller's; otherwise 404.
pub(crate) async fn respond_on_named<S, C, F, Fut>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    op: F,
) -> ApiResponse
where
    S: MeterStore + VerificationStore,
    C: Clock,
    F: FnOnce(Verification, DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<ApiResponse, ApiError>>,
{
    let prefetch = |_| fetch_named(&deps.store, req);
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        op(visible(fetched?, &caller)?, now).await
    })
    .await
}

/// Reads the verification named by the query, for a prefetch (errors surface after authentication).
pub(crate) async fn fetch_named<S: VerificationStore>(
    store: &S,
    req: &ApiRequest,
) -> Result<Option<Verification>, ApiError> {
    let id = verification_id_param(req)?;
    Ok(store.get_verification(id).await?)
}

/// The caller may see only their own verifications of their key's mode; anything else is 404.
pub(crate) fn visible(
    fetched: Option<Verification>,
    caller: &Caller,
) -> Result<Verification, ApiError> {
    match fetched {
        Some(v) if v.account_id == caller.account.account_id && v.mode == caller.mode() => Ok(v),
        _ => Err(ApiError::NotFound("Verification not found".into())),
    }
}

/// Loads a verification of the key's account and mode: another owner's, or the other mode's, is
/// 404.
pub(crate) async fn owned_verification<S: VerificationStore>(
    store: &S,
    key: &PresentedKey,
    id: Uuid,
) -> Result<Verification, ApiError> {
    match store.get_verification(id).await? {
        Some(v) if v.account_id == key.account_id && v.mode == key.mode => Ok(v),
        _ => Err(ApiError::NotFound("Verification not found".into())),
    }
}
