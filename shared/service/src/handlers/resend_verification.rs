//! `resend-verification`: POST /api/v1/verify/resend?verification_id=... Sends the tenant's
//! invite again, with a new link (earlier links stay valid until expiry), for a pending or
//! in-progress verification; at most `MAX_RESENDS_PER_DAY` a UTC day (429 with `Retry-After` to
//! the next UTC midnight past that). Metered like every request.
//!
//! The request is one conditional write on the verification (the day's count and the invite
//! round), so concurrent resends at the limit never exceed it; it carries its metering in the same
//! transaction (`MeterStore::meter_and_resend`: one DynamoDB round trip), and when that refuses,
//! the verification as the write saw it says why. A household member needs no check of its
//! household: the household's cancel cancels the member in the same write. The new e-mail and
//! the
//! `verification.resent` webhook follow from the stream (`resend_invite`), so a 202 is never lost
//! work.

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::respond::{Attempt, attempt, respond_metered};
use crate::handlers::api::validate::verification_id_param;
use crate::http::{ApiRequest, ApiResponse};
use domain::Verification;
use domain::error::ApiError;
use domain::metering::PresentedKey;
use domain::public_view::render_verification;
use domain::resend::{MAX_RESENDS_PER_DAY, resends_today, seconds_to_next_utc_midnight};
use ports::{Clock, MeterStore, MeteredResend, VerificationRefusal};

/// POST /api/v1/verify/resend?verification_id=...
pub async fn resend_verification<S: MeterStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    respond_metered(deps, req, |key, now| resend(deps, req, key, now)).await
}

/// The resend with its metering in ONE write (`MeterStore::meter_and_resend`). A refusal is told
/// by the verification as the write saw it (404, 400, 429), with the request counted alone.
async fn resend<S: MeterStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Attempt {
    let verification_id = match verification_id_param(req) {
        Ok(id) => id,
        Err(e) => return Attempt::Invalid(e),
    };
    let request = MeteredResend {
        key: &key,
        now,
        plans: &deps.settings.plans,
        verification_id,
        max_per_day: MAX_RESENDS_PER_DAY,
    };
    let written = deps.store.meter_and_resend(&request).await;
    attempt(written, |_, done| async move {
        match done {
            Ok(updated) => Ok(resent(&updated, now)),
            Err(VerificationRefusal::Closed(current)) => Err(ApiError::NotResendable {
                status: current.effective_status(now).as_str(),
            }),
            Err(VerificationRefusal::ResendLimitReached) => Err(ApiError::ResendLimitReached {
                limit: MAX_RESENDS_PER_DAY,
                retry_after: seconds_to_next_utc_midnight(now),
            }),
            Err(VerificationRefusal::NotFound) => {
                Err(ApiError::NotFound("Verification not found".into()))
            }
        }
    })
    .await
}

/// The 202 of a recorded resend.
fn resent(updated: &Verification, now: DateTime<Utc>) -> ApiResponse {
    let used = resends_today(updated, now);
    tracing::info!(verification_id = %updated.verification_id, round = updated.invite_round, "invite resend recorded");
    ApiResponse::json(
        202,
        &json!({
            "success": true,
            "message": "Invitation resent",
            "data": render_verification(updated, now),
            "resends": {
                "today": used,
                "limit": MAX_RESENDS_PER_DAY,
                "remaining_today": MAX_RESENDS_PER_DAY.saturating_sub(used),
            },
        }),
    )
}
