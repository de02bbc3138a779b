//! `erase-verification-data`: DELETE /api/v1/verify/data?verification_id=... erases the personal
//! and financial data of a closed verification at once (`domain::retention`), as its account's
//! retention would later. An open one past its expiry reads expired and may be erased too; any
//! other open one is refused (400): the landlord cancels it first. The erasure of the verification itself is written in one transaction
//! with the request's metering (`ErasureStore::meter_and_erase`); the items beside it and the
//! uploaded documents follow (`retention::erase_personal_data`) before the answer. Asking again
//! answers the same 200; a failure of the rest answers 500, and asking again finishes it.

use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::api::validate::verification_id_param;
use crate::handlers::retention::erase_personal_data;
use crate::http::{ApiRequest, ApiResponse};
use domain::error::ApiError;
use domain::metering::PresentedKey;
use domain::{Verification, format_ts};
use ports::{
    Clock, DocumentEraser, ErasureOutcome, ErasureRefusal, ErasureStore, MeterStore, MeteredErasure,
};

/// DELETE /api/v1/verify/data?verification_id=...; `documents` erases the verification's
/// uploads.
pub async fn erase_verification_data<S, C, D>(
    deps: &ApiDeps<S, C>,
    documents: &D,
    req: ApiRequest,
) -> ApiResponse
where
    S: MeterStore + ErasureStore,
    C: Clock,
    D: DocumentEraser,
{
    let req = &req;
    respond_metered(deps, req, |key, now| erase(deps, documents, req, key, now)).await
}

async fn erase<S, C, D>(
    deps: &ApiDeps<S, C>,
    documents: &D,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt
where
    S: MeterStore + ErasureStore,
    C: Clock,
    D: DocumentEraser,
{
    let id = match verification_id_param(req) {
        Ok(id) => id,
        Err(e) => return Attempt::Invalid(e),
    };
    let erasure = MeteredErasure {
        key: &key,
        now,
        plans: &deps.settings.plans,
        verification_id: id,
    };
    let written = deps.store.meter_and_erase(&erasure).await;
    attempt(written, |_, done| async move {
        match done {
            // Erased by this request's write, or before: what still holds personal data goes too.
            Ok(()) | Err(ErasureRefusal::AlreadyErased) => {
                finish(&deps.store, documents, id, now).await
            }
            Err(ErasureRefusal::Open(v)) => Err(ApiError::NotErasable {
                status: v.status.as_str(),
            }),
            Err(ErasureRefusal::NotFound) => Err(not_found()),
        }
    })
    .await
}

/// The erasure's rest, and the answer.
async fn finish<S: ErasureStore, D: DocumentEraser>(
    store: &S,
    documents: &D,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<ApiResponse, ApiError> {
    match erase_personal_data(store, documents, id, now).await? {
        ErasureOutcome::Erased(v) | ErasureOutcome::AlreadyErased(v) => Ok(erased(&v)),
        ErasureOutcome::Open(v) => Err(ApiError::NotErasable {
            status: v.status.as_str(),
        }),
        ErasureOutcome::NotFound => Err(not_found()),
    }
}

fn not_found() -> ApiError {
    ApiError::NotFound("Verification not found".into())
}

/// The 200 of an erased verification.
fn erased(v: &Verification) -> ApiResponse {
    tracing::info!(verification_id = %v.verification_id, "personal data erased on request");
    ApiResponse::json(
        200,
        &json!({
            "success": true,
            "message": "Personal data erased",
            "data": {
                "verification_id": v.verification_id,
                "erased_at": v.erased_at.map(format_ts),
            },
        }),
    )
}
