//! `get-usage`: GET /api/v1/usage. The plan, this month's verifications and the API allowance,
//! matching the `X-RateLimit-*` headers of every answer, and this month's SMS against the plan's
//! allowance (the account's live texts, whichever key asks: test-mode texts are never counted).

use serde_json::json;

use crate::handlers::api::ApiDeps;
use crate::handlers::api::auth::RateInfo;
use crate::handlers::api::respond::respond;
use crate::http::{ApiRequest, ApiResponse};
use domain::metering::PresentedKey;
use domain::sms::{sms_allowance, sms_used};
use domain::{format_ts, usage_month};
use ports::{Clock, MeterStore, VerificationStore};

/// GET /api/v1/usage
pub async fn get_usage<S: MeterStore + VerificationStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    let req = &req;
    let prefetch = |key: PresentedKey| async move {
        let month = usage_month(deps.clock.now());
        deps.store
            .owner_stats(&key.account_id, key.mode, &month)
            .await
    };
    respond(deps, req, prefetch, |caller, fetched, now| async move {
        let (stats, month) = fetched?;
        let rate = RateInfo::of(&caller.account, &caller.plan, now);
        let limit = caller.plan.verifications_per_month as u64;
        let sms_limit = sms_allowance(Some(&caller.plan));
        let sms_used = sms_used(&caller.account, now);
        Ok(ApiResponse::json(
            200,
            &json!({
                "success": true,
                "data": {
                    "plan": caller.plan.name,
                    "verifications": {
                        "used_this_month": month.created,
                        "limit": limit,
                        "remaining": limit.saturating_sub(month.created),
                        "total_all_time": stats.total,
                        "completed_this_month": month.completed,
                    },
                    "api": {
                        "requests_limit": rate.limit,
                        "requests_remaining": rate.remaining,
                        "resets_at": format_ts(rate.reset),
                    },
                    "sms": {
                        "used_this_month": sms_used,
                        "limit": sms_limit,
                        "remaining": sms_limit.saturating_sub(sms_used),
                    },
                    "subscription": {
                        "status": caller.account.subscription_status.as_str(),
                        "current_period_end": format_ts(caller.account.current_period_end),
                    },
                }
            }),
        ))
    })
    .await
}
