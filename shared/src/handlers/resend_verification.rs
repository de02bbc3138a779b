//! `resend-verification`: POST /api/v1/verify/resend?verification_id=... Sends the tenant's
//! invite again, with a new link (earlier links stay valid until expiry), for a pending or
//! in-progress verification; at most `MAX_RESENDS_PER_DAY` a UTC day (429 with `Retry-After` to
//! the next UTC midnight past that). Metered like every request.
//!
//! The request is one conditional write on the verification (the day's count and the invite
//! round), so concurrent resends at the limit never exceed it; the new e-mail and the
//! `verification.resent` webhook follow from the stream (`resend_invite`), so a 202 is never lost
//! work.

use serde_json::json;

use crate::domain::public_view::render_verification;
use crate::domain::resend::{
    MAX_RESENDS_PER_DAY, resendable, resends_today, seconds_to_next_utc_midnight,
};
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::respond_on_named;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, ResendOutcome, Store};

/// POST /api/v1/verify/resend?verification_id=...
pub async fn resend_verification<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    respond_on_named(deps, &req, |mut current, now| async move {
        let id = current.verification_id;
        // Each lost race is another writer's success (a resend, of which a day has at most
        // MAX_RESENDS_PER_DAY, or a status change), so this settles within a few rounds.
        for _ in 0..(MAX_RESENDS_PER_DAY + 3) {
            if !resendable(&current, now) {
                return Err(ApiError::NotResendable {
                    status: current.effective_status(now).as_str(),
                });
            }
            match deps
                .store
                .record_resend(&current, now, MAX_RESENDS_PER_DAY)
                .await?
            {
                ResendOutcome::Applied(updated) => {
                    let used = resends_today(&updated, now);
                    tracing::info!(verification_id = %id, round = updated.invite_round, "invite resend recorded");
                    return Ok(ApiResponse::json(
                        202,
                        &json!({
                            "success": true,
                            "message": "Invitation resent",
                            "data": render_verification(&updated, now),
                            "resends": {
                                "today": used,
                                "limit": MAX_RESENDS_PER_DAY,
                                "remaining_today": MAX_RESENDS_PER_DAY.saturating_sub(used),
                            },
                        }),
                    ));
                }
                ResendOutcome::LimitReached => {
                    return Err(ApiError::ResendLimitReached {
                        limit: MAX_RESENDS_PER_DAY,
                        retry_after: seconds_to_next_utc_midnight(now),
                    });
                }
                ResendOutcome::Conflict(Some(fresh)) => current = fresh,
                ResendOutcome::Conflict(None) => {
                    return Err(ApiError::NotFound("Verification not found".into()));
                }
            }
        }
        tracing::error!(verification_id = %id, "resend kept losing races");
        Err(ApiError::Internal)
    })
    .await
}
