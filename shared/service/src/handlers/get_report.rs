//! `get-report`: GET /api/v1/verify/report?verification_id=... The report of the caller's own
//! completed verification as a PDF download. Same authentication, metering and rate headers as
//! GET /api/v1/verify; another owner's or an unknown id is 404, a verification that is not (or no
//! longer) completed is 409 `report_not_ready`. A GET: it changes nothing.

use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::respond_on_named;
use crate::http::{ApiRequest, ApiResponse};
use domain::Status;
use domain::error::ApiError;
use domain::report_pdf::{report_filename, report_pdf};
use ports::{Clock, MeterStore, VerificationStore};

/// GET /api/v1/verify/report?verification_id=...
pub async fn get_report<S: MeterStore + VerificationStore, C: Clock>(
    deps: &ApiDeps<S, C>,
    req: ApiRequest,
) -> ApiResponse {
    respond_on_named(deps, &req, |v, now| async move {
        let status = v.effective_status(now);
        if status != Status::Completed || v.income_report.is_none() {
            return Err(ApiError::ReportNotReady {
                status: status.as_str(),
            });
        }
        Ok(ApiResponse::pdf(report_pdf(&v, now), &report_filename(&v)))
    })
    .await
}
