//! `review-documents`: POST /api/v1/verify/review?verification_id=... records the landlord's review
//! of a completed verification's documents: `{"decision": "accepted"|"rejected", "note": "..."}`
//! (`documents::review`). The review is kept in the report (`income_report.document_review`), so
//! GET /api/v1/verify and the PDF show it. Another owner's or an unknown id is 404; a verification
//! not completed is 409 `report_not_ready`; a report not from documents is 409 `no_documents`.
//!
//! One review per report: a second one is 409 `already_reviewed` with the review that stands. A
//! review is the landlord's record of a decision; replacing it would leave the PDF already sent
//! and the JSON read earlier saying something else, so the first one stands.
//!
//! The request is one conditional write with its metering in the same transaction
//! (`ReviewStore::meter_and_review`): of concurrent reviews exactly one is kept, and when the
//! write refuses, the verification as it saw it says why, with the request counted alone.

use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::api::validate::{invalid_fields, json_body, verification_id_param};
use crate::handlers::api::{ApiDeps, MAX_BODY_BYTES};
use crate::http::{ApiRequest, ApiResponse};
use domain::documents::review::{DocumentReview, review_of};
use domain::error::ApiError;
use domain::format_ts;
use domain::metering::PresentedKey;
use ports::{Clock, MeterStore, MeteredReview, ReviewRefusal, ReviewStore};

/// POST /api/v1/verify/review?verification_id=...
pub async fn review_documents<S, C>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse
where
    S: MeterStore + ReviewStore,
    C: Clock,
{
    let req = &req;
    respond_metered(deps, req, |key, now| review(deps, req, key, now)).await
}

/// The request's review, or why its input is refused.
fn requested(req: &ApiRequest, now: DateTime<Utc>) -> Result<(Uuid, DocumentReview), ApiError> {
    let id = verification_id_param(req)?;
    // The create's limit: a note of 500 characters fits many times over, escaped or not.
    let body = json_body(req, MAX_BODY_BYTES)?;
    let review = review_of(&body, now).map_err(invalid_fields)?;
    Ok((id, review))
}

async fn review<S, C>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt
where
    S: MeterStore + ReviewStore,
    C: Clock,
{
    let (verification_id, review) = match requested(req, now) {
        Ok(requested) => requested,
        Err(e) => return Attempt::Invalid(e),
    };
    let request = MeteredReview {
        key: &key,
        now,
        plans: &deps.settings.plans,
        verification_id,
        review: &review,
    };
    let written = deps.store.meter_and_review(&request).await;
    let review = &review;
    attempt(written, |_, done| async move {
        match done {
            Ok(()) => Ok(recorded(verification_id, review)),
            Err(ReviewRefusal::NotFound) => {
                Err(ApiError::NotFound("Verification not found".into()))
            }
            Err(ReviewRefusal::NotCompleted(status)) => Err(ApiError::ReportNotReady {
                status: status.as_str(),
            }),
            Err(ReviewRefusal::NoDocuments) => Err(ApiError::Conflict {
                code: "no_documents",
                message: "This verification's report is not from documents: there is nothing to \
                          review"
                    .into(),
            }),
            Err(ReviewRefusal::AlreadyReviewed(stands)) => Err(ApiError::Conflict {
                code: "already_reviewed",
                message: format!(
                    "The documents were already reviewed ({}, at {}); a review is final",
                    stands.decision.as_str(),
                    format_ts(stands.reviewed_at)
                ),
            }),
        }
    })
    .await
}

/// The 200 of a recorded review.
fn recorded(verification_id: Uuid, review: &DocumentReview) -> ApiResponse {
    tracing::info!(%verification_id, decision = review.decision.as_str(), "document review recorded");
    ApiResponse::json(
        200,
        &json!({
            "success": true,
            "message": "Review recorded",
            "data": {
                "verification_id": verification_id,
                "document_review": review,
            },
        }),
    )
}
