//! `resend-verification`: POST /api/v1/verify/resend?verification_id=... Sends the tenant's
//! invite again, with a new link (earlier links stay valid until expiry), for a pending or
//! in-progress verification; at most `MAX_RESENDS_PER_DAY` a UTC day (429 with `Retry-After` to
//! the next UTC midnight past that). Metered like every request.
//!
//! The request is one conditional write on the verification (the day's count and the invite
//! round), so concurrent resends at the limit never exceed it; it carries its metering in the same
//! transaction (`MeterStore::meter_and_resend`: one DynamoDB round trip), and when that refuses,
//! the usual way (metering, the read, the write) says why. A household member needs no check of
//! its household: the household's cancel cancels the member in the same write. The new e-mail
//! and the
//! `verification.resent` webhook follow from the stream (`resend_invite`), so a 202 is never lost
//! work.

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::domain::Verification;
use crate::domain::metering::PresentedKey;
use crate::domain::public_view::render_verification;
use crate::domain::resend::{
    MAX_RESENDS_PER_DAY, resendable, resends_today, seconds_to_next_utc_midnight,
};
use crate::error::ApiError;
use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::respond_on_named_combined;
use crate::handlers::api::respond::MeteredWrite;
use crate::handlers::api::validate::verification_id_param;
use crate::http::{ApiRequest, ApiResponse};
use crate::ports::{Clock, MeteredResend, ResendOutcome, Store};

/// POST /api/v1/verify/resend?verification_id=...
pub async fn resend_verification<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let combined = |key, now| resend_in_one_write(deps, req, key, now);
    respond_on_named_combined(deps, req, combined, |mut current, now| async move {
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
                ResendOutcome::Applied(updated) => return Ok(resent(&updated, now)),
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

/// The resend with its metering in ONE write (`MeterStore::meter_and_resend`). None (nothing
/// written or counted): the usual way, which reads the verification and tells why (400, 404,
/// 429) or, after a lost race, writes the resend itself.
async fn resend_in_one_write<S: Store, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: &ApiRequest,
    key: PresentedKey,
    now: DateTime<Utc>,
) -> Option<MeteredWrite> {
    let verification_id = verification_id_param(req).ok()?;
    let request = MeteredResend {
        key: &key,
        now,
        plans: &deps.settings.plans,
        verification_id,
        max_per_day: MAX_RESENDS_PER_DAY,
    };
    match deps.store.meter_and_resend(&request).await {
        Ok(Some((account, updated))) => Some(Ok((account, resent(&updated, now)))),
        Ok(None) => None,
        Err(e) => Some(Err(e.into())),
    }
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
