//! `list-documents`: GET /api/v1/verify/documents?verification_id=... The caller's own
//! verification's uploaded documents, each with its verdict and a download link valid five
//! minutes, served as an attachment. Every upload is listed, a replaced one with the name of the
//! upload that replaced it, and each link is signed for the object version that was analysed. Same authentication, metering and rate headers as
//! GET /api/v1/verify; another owner's or an unknown id is 404. A GET: it changes nothing, and
//! signing a link calls nothing.

use chrono::Duration;
use serde_json::{Value, json};

use crate::handlers::api::ApiDeps;
use crate::handlers::api::ownership::respond_on_named;
use crate::http::{ApiRequest, ApiResponse};
use domain::documents::finish::listed;
use domain::documents::record::{DocumentRecord, DocumentState, object_key, verdict_words};
use domain::error::ApiError;
use domain::format_ts;
use ports::{Clock, DOWNLOAD_LINK_SECONDS, DownloadSigner, MeterStore, VerificationStore};

/// GET /api/v1/verify/documents?verification_id=...
pub async fn list_documents<S: MeterStore + VerificationStore, C: Clock, L: DownloadSigner>(
    deps: &ApiDeps<S, C>,
    links: &L,
    req: ApiRequest,
) -> ApiResponse {
    respond_on_named(deps, &req, |v, now| async move {
        let expires_at = format_ts(now + Duration::seconds(DOWNLOAD_LINK_SECONDS as i64));
        let mut documents = Vec::new();
        for (id, current) in listed(&v) {
            let key = object_key(v.verification_id, id);
            // Every upload to the form, the replaced ones first: each its own version's link.
            for (d, replaced_by) in
                (current.replaced.iter().map(|d| (d, Some(current)))).chain([(current, None)])
            {
                let link = links
                    .download_link(
                        &key,
                        d.version_id.as_deref(),
                        &format!("document-{}", d.number),
                    )
                    .await
                    .map_err(|e| {
                        tracing::error!(error = %e, "download link could not be signed");
                        ApiError::Internal
                    })?;
                let mut entry = listed_entry(d, link, &expires_at);
                if let Some(later) = replaced_by {
                    entry["replaced_by"] = Value::String(later.name());
                }
                documents.push(entry);
            }
        }
        Ok(ApiResponse::json(
            200,
            &json!({"success": true, "data": {
                "verification_id": v.verification_id,
                "documents": documents,
            }}),
        ))
    })
    .await
}

/// One upload as listed: its state, verdict or refusal, and its download link.
fn listed_entry(d: &DocumentRecord, link: String, expires_at: &str) -> Value {
    let state = match d.state {
        DocumentState::Analysing => "analysing",
        DocumentState::Analysed => "analysed",
        DocumentState::Refused => "refused",
    };
    let mut entry = json!({
        "name": d.name(),
        "state": state,
        "size": d.size,
        "uploaded_at": format_ts(d.uploaded_at),
        "download_url": link,
        "download_expires_at": expires_at,
    });
    if let Some(a) = &d.analysis {
        entry["kind"] = json!(a.kind);
        entry["verdict"] = json!(a.verdict);
        entry["verdict_words"] = Value::String(verdict_words(a.verdict).into());
    }
    if let Some(refusal) = &d.refusal {
        entry["refusal"] = Value::String(refusal.clone());
    }
    entry
}
