//! Documents: the tenant page's signed upload form, the browser's POST to the bucket (authorized
//! as tenant-portal's role, which signed it), the bucket's notification through the documents
//! queue to analyze-document, the tenant's typed figures, finishing with the documents, the form
//! posted again after completion (its version deleted), and the landlord's review of them.

use devstack::pump::pump_queue_once;
use serde_json::json;
use service::routes::Function;

use super::{Rig, VERIFY, created_id};
use crate::common;
use crate::documents::upload::{post_file, upload_form};

pub async fn documents(rig: &mut Rig) {
    let key = rig.test_key.clone();
    let body = json!({
        "tenant_email": format!("iam-docs-{}+good@example.com", uuid::Uuid::new_v4().simple()),
        "tenant_name": "Dora Uploader",
        "monthly_rent": 900,
    });
    let created = rig
        .expect("POST", VERIFY, Some(&key), Some(body), 201)
        .await;
    let link = rig.link(&created["data"]);
    let id = created_id(&created, "verification_id");
    assert_eq!(rig.page(&link, Some("action=consent&agree=yes")).await, 303);
    let html = rig
        .http
        .get(format!("{}{link}", rig.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let (action, fields) = upload_form(&html).expect("the page offers an upload");
    let (status, location) = post_file(&action, &fields, "photo.png", &common::TINY_PNG).await;
    assert_eq!(
        status, 303,
        "the bucket takes the upload and sends the browser back ({action} {fields:?} {location:?})"
    );
    // The bucket's notification, to analyze-document through its mapping (on its role).
    let sdk = rig.function_sdk(Function::AnalyzeDocument).await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let analysis = &rig.workers[&Function::AnalyzeDocument].analysis;
    let mut handed = 0;
    for _ in 0..10 {
        handed += pump_queue_once(&sqs, &rig.created.documents_queue_url, 0, |event| {
            service::handlers::analyze_document::analyze_documents(analysis, event)
        })
        .await
        .unwrap();
        let v = rig
            .store
            .get_verification(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        if !v.documents.is_empty() {
            break;
        }
    }
    assert!(handed > 0, "the upload's notification arrived");
    let v = rig
        .store
        .get_verification(id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    let (document, _) = v.documents.iter().next().expect("the upload is recorded");
    let today = chrono::Utc::now().date_naive();
    let form = format!(
        "action=state_pay&document={document}&pay_date={today}&gross=2500.00&net=1900.00&frequency=biweekly"
    );
    assert_eq!(rig.page(&link, Some(&form)).await, 303);
    assert_eq!(rig.page(&link, Some("action=finish_documents")).await, 303);
    rig.drain().await;
    // The form posted again after completion: analyze-document deletes that version.
    let (status, _) = post_file(&action, &fields, "late.png", &common::TINY_PNG).await;
    assert_eq!(status, 303);
    let mut late = 0;
    let analysis = &rig.workers[&Function::AnalyzeDocument].analysis;
    for _ in 0..10 {
        late += pump_queue_once(&sqs, &rig.created.documents_queue_url, 0, |event| {
            service::handlers::analyze_document::analyze_documents(analysis, event)
        })
        .await
        .unwrap();
        if late > 0 {
            break;
        }
    }
    assert!(late > 0, "the late upload's notification arrived");
    // The landlord lists the originals and downloads one through its link (signed by
    // list-documents' role, so S3 authorizes the GET as that role).
    let listed = rig
        .expect(
            "GET",
            &format!("{VERIFY}/documents?verification_id={id}"),
            Some(&key),
            None,
            200,
        )
        .await;
    let url = listed["data"]["documents"][0]["download_url"]
        .as_str()
        .expect("a download link");
    let download = rig.http.get(url).send().await.unwrap();
    assert_eq!(download.status().as_u16(), 200);
    assert!(
        download
            .headers()
            .get("content-disposition")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("attachment")),
        "served as an attachment"
    );
    assert_eq!(download.bytes().await.unwrap().as_ref(), &common::TINY_PNG);
    // The landlord's review: kept by the one metered write; a second one refused (counted alone).
    let review = format!("{VERIFY}/review?verification_id={id}");
    let body = json!({"decision": "accepted", "note": "Matches the employer's letter."});
    rig.expect("POST", &review, Some(&key), Some(body.clone()), 200)
        .await;
    let again = rig
        .expect("POST", &review, Some(&key), Some(body), 409)
        .await;
    assert_eq!(again["code"], "already_reviewed", "{again}");
}

use ports::store::prelude::*;
