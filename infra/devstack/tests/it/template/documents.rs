//! The documents bucket, its queue and the two roles that touch it, as template.yaml declares
//! them, and the local stack's bucket as bootstrap makes it on moto (moto keeps the settings but
//! enforces neither a POST policy nor a lifecycle rule: the service checks what arrived itself).

use serde_yaml::Value;

use super::{strings, template};
use crate::common;

/// A tagged value (`!GetAtt X.Arn`, `!Sub "..."`, `!Ref X`) as text.
fn text(v: &Value) -> String {
    match v {
        Value::Tagged(t) => format!("{} {}", t.tag, text(&t.value)),
        Value::String(s) => s.clone(),
        other => serde_yaml::to_string(other).unwrap().trim().to_string(),
    }
}

/// Every Allow statement of a function's policies: (actions, resources).
fn allows(resource: &Value) -> Vec<(Vec<String>, Vec<String>)> {
    let mut out = vec![];
    let policies = resource["Properties"]["Policies"]
        .as_sequence()
        .cloned()
        .unwrap_or_default();
    for policy in policies {
        let document = if policy["PolicyDocument"].is_mapping() {
            policy["PolicyDocument"].clone()
        } else {
            policy.clone()
        };
        for s in document["Statement"].as_sequence().into_iter().flatten() {
            if s["Effect"].as_str() != Some("Allow") {
                continue;
            }
            let listed = |v: &Value| match v.as_sequence() {
                Some(items) => items.iter().map(text).collect(),
                None => vec![text(v)],
            };
            out.push((listed(&s["Action"]), listed(&s["Resource"])));
        }
    }
    out
}

#[test]
fn the_documents_bucket_is_private_encrypted_tls_only_and_expires_uploads() {
    let t = template();
    let r = &t["Resources"];
    let bucket = &r["DocumentBucket"]["Properties"];
    let sse = &bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"][0];
    assert_eq!(
        sse["ServerSideEncryptionByDefault"]["SSEAlgorithm"].as_str(),
        Some("aws:kms")
    );
    for setting in [
        "BlockPublicAcls",
        "BlockPublicPolicy",
        "IgnorePublicAcls",
        "RestrictPublicBuckets",
    ] {
        assert_eq!(
            bucket["PublicAccessBlockConfiguration"][setting].as_bool(),
            Some(true),
            "{setting}"
        );
    }
    assert_eq!(
        bucket["OwnershipControls"]["Rules"][0]["ObjectOwnership"].as_str(),
        Some("BucketOwnerEnforced")
    );
    // Versioned: each version posted is kept apart, and downloaded as analysed.
    assert_eq!(
        bucket["VersioningConfiguration"]["Status"].as_str(),
        Some("Enabled")
    );
    let rules = bucket["LifecycleConfiguration"]["Rules"]
        .as_sequence()
        .unwrap();
    let expiry = rules
        .iter()
        .find(|rule| rule["ExpirationInDays"].is_u64())
        .expect("an expiry rule");
    assert_eq!(expiry["Prefix"].as_str(), Some("uploads/"));
    assert_eq!(expiry["ExpirationInDays"].as_u64(), Some(30));
    assert_eq!(expiry["Status"].as_str(), Some("Enabled"));
    assert_eq!(
        expiry["NoncurrentVersionExpiration"]["NoncurrentDays"].as_u64(),
        Some(30),
        "replaced versions expire as uploads do"
    );
    // Every upload's notification goes to the documents queue.
    let queue = &bucket["NotificationConfiguration"]["QueueConfigurations"][0];
    assert_eq!(queue["Event"].as_str(), Some("s3:ObjectCreated:*"));
    assert_eq!(text(&queue["Queue"]), "!GetAtt DocumentQueue.Arn");
    assert_eq!(
        queue["Filter"]["S3Key"]["Rules"][0]["Value"].as_str(),
        Some(domain::documents::record::UPLOAD_PREFIX)
    );
    // TLS only.
    let tls = &r["DocumentBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"][0];
    assert_eq!(tls["Effect"].as_str(), Some("Deny"));
    assert_eq!(
        tls["Condition"]["Bool"]["aws:SecureTransport"].as_str(),
        Some("false")
    );
    // The queue: the handler's last receive is the queue's, and Lambda's visibility advice.
    let q = &r["DocumentQueue"]["Properties"];
    // S3 can't send to a queue under the AWS-managed aws/sqs key: SQS-managed encryption.
    assert_eq!(q["SqsManagedSseEnabled"].as_bool(), Some(true));
    assert!(q["KmsMasterKeyId"].is_null());
    assert_eq!(
        q["RedrivePolicy"]["maxReceiveCount"].as_i64(),
        Some(service::handlers::analyze_document::DOCUMENT_MAX_RECEIVES as i64)
    );
    let timeout = r["AnalyzeDocumentFunction"]["Properties"]["Timeout"]
        .as_u64()
        .unwrap();
    assert!(q["VisibilityTimeout"].as_u64().unwrap() >= 6 * timeout);
    assert!(
        service::handlers::analyze_document::ANALYSIS_TIME_LIMIT.as_secs() < timeout,
        "the analysis stops before the function does"
    );
    // The analysis child's limits fit the function: its address space beside the function's
    // own (a 10 MB file, twice, and the runtime), its CPU time within the wait for it.
    let child = adapters::analysis_child::LIMITS;
    let memory_mb = r["AnalyzeDocumentFunction"]["Properties"]["MemorySize"]
        .as_u64()
        .unwrap();
    assert!((child.address_space_bytes >> 20) + 256 <= memory_mb);
    assert!(
        child.cpu_seconds * 2 < service::handlers::analyze_document::ANALYSIS_TIME_LIMIT.as_secs()
    );
}

#[test]
fn only_uploads_are_reachable_and_each_role_has_the_s3_actions_it_uses() {
    let t = template();
    let r = &t["Resources"];
    let uploads = "!Sub ${DocumentBucket.Arn}/uploads/*".to_string();
    let s3 = |resource: &Value| -> Vec<(Vec<String>, Vec<String>)> {
        allows(resource)
            .into_iter()
            .filter(|(actions, _)| actions.iter().any(|a| a.starts_with("s3:")))
            .collect()
    };
    assert_eq!(
        s3(&r["TenantPortalFunction"]),
        vec![(vec!["s3:PutObject".to_string()], vec![uploads.clone()])]
    );
    // analyze-document reads a version (the current one's id from HeadObject when the
    // notification names none) and deletes one it does not take in; list-documents signs links
    // to one version.
    let actions = |names: &[&str]| names.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let analysis = actions(&[
        "s3:GetObject",
        "s3:GetObjectVersion",
        "s3:DeleteObjectVersion",
    ]);
    assert_eq!(
        s3(&r["AnalyzeDocumentRole"]),
        vec![(analysis, vec![uploads.clone()])]
    );
    assert_eq!(
        s3(&r["ListDocumentsFunction"]),
        vec![(actions(&["s3:GetObjectVersion"]), vec![uploads.clone()])]
    );
    // The erasure lists the bucket's versions under `uploads/` only, and deletes versions; it
    // reads none.
    let erasers = ["EraseVerificationDataFunction", "ExpireVerificationsRole"];
    for eraser in erasers {
        assert_eq!(
            s3(&r[eraser]),
            vec![
                (
                    vec!["s3:ListBucketVersions".to_string()],
                    vec!["!GetAtt DocumentBucket.Arn".to_string()]
                ),
                (
                    vec!["s3:DeleteObjectVersion".to_string()],
                    vec![uploads.clone()]
                ),
            ],
            "{eraser}"
        );
        let policy = &r[eraser]["Properties"]["Policies"][0];
        let document = match &policy["PolicyDocument"] {
            Value::Null => policy,
            document => document,
        };
        let listing = (document["Statement"].as_sequence().unwrap().iter())
            .find(|s| s["Action"].as_str() == Some("s3:ListBucketVersions"))
            .unwrap();
        assert_eq!(
            strings(&listing["Condition"]["StringLike"]["s3:prefix"]),
            ["uploads/*"],
            "{eraser}"
        );
    }
    for (name, resource) in r.as_mapping().unwrap() {
        let name = name.as_str().unwrap();
        let allowed = [
            "TenantPortalFunction",
            "AnalyzeDocumentRole",
            "ListDocumentsFunction",
            "EraseVerificationDataFunction",
            "ExpireVerificationsRole",
        ];
        if !allowed.contains(&name) {
            assert!(s3(resource).is_empty(), "{name} reaches S3");
        }
    }
    // The analysis writes a verification's documents and nothing else of it.
    let statements =
        r["AnalyzeDocumentRole"]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
            .as_sequence()
            .unwrap();
    let write = statements
        .iter()
        .find(|s| s["Sid"].as_str() == Some("WriteDocuments"))
        .unwrap();
    assert_eq!(
        strings(&write["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"]),
        ["PK", "SK", "documents", "uploads", "documents_rev"]
    );
    for function in [
        "TenantPortalFunction",
        "AnalyzeDocumentFunction",
        "ListDocumentsFunction",
        "EraseVerificationDataFunction",
        "ExpireVerificationsFunction",
    ] {
        assert_eq!(
            text(&r[function]["Properties"]["Environment"]["Variables"]["DOCUMENT_BUCKET"]),
            "!Ref DocumentBucket",
            "{function}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_bucket_has_the_template_s_settings() {
    let env = common::env().await;
    let s3 = adapters::s3::s3_client(&env.sdk);
    let bucket = &env.names.documents_bucket;
    let sse = s3
        .get_bucket_encryption()
        .bucket(bucket)
        .send()
        .await
        .unwrap();
    let rule = &sse.server_side_encryption_configuration().unwrap().rules()[0];
    assert_eq!(
        rule.apply_server_side_encryption_by_default()
            .unwrap()
            .sse_algorithm()
            .as_str(),
        "aws:kms"
    );
    let block = s3
        .get_public_access_block()
        .bucket(bucket)
        .send()
        .await
        .unwrap();
    let block = block.public_access_block_configuration().unwrap();
    assert_eq!(
        (
            block.block_public_acls(),
            block.block_public_policy(),
            block.ignore_public_acls(),
            block.restrict_public_buckets()
        ),
        (Some(true), Some(true), Some(true), Some(true))
    );
    let notification = s3
        .get_bucket_notification_configuration()
        .bucket(bucket)
        .send()
        .await
        .unwrap();
    let queue = &notification.queue_configurations()[0];
    assert!(queue.queue_arn().ends_with(&env.names.documents_queue));
}
