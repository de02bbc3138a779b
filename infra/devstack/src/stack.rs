//! Creates the local resources (table, queues, SES sender, bucket, the fingerprint key's secret,
//! the webhook secrets' KMS key);
//! `seed` puts the demo accounts with their keys and the fixtures.

mod accounts;
mod fingerprint_key;
mod seed;
pub mod webhook_secrets;

pub use accounts::{DEMO_ACCOUNT, OTHER_ACCOUNT};
pub use seed::*;

use aws_config::SdkConfig;
use domain::documents::reuse::FingerprintKey;

/// Resource names of the local stack.
#[derive(Debug, Clone)]
pub struct Resources {
    pub table: String,
    pub webhook_queue: String,
    pub webhook_dlq: String,
    pub retry_queue: String,
    pub retry_dlq: String,
    pub sender: String,
    /// The EventBridge Scheduler group of the reminder schedules.
    pub schedule_group: String,
    /// The role the schedules would invoke `send-reminders` with (moto does not invoke; the
    /// local schedule pump does).
    pub scheduler_role_arn: String,
    /// The documents bucket, and the queue its ObjectCreated notifications go to (with its DLQ).
    pub documents_bucket: String,
    pub documents_queue: String,
    pub documents_dlq: String,
    /// The secret holding the reuse check's fingerprint key.
    pub fingerprint_key_secret: String,
    /// The name prefix of the accounts' webhook signing secrets (`WEBHOOK_SECRETS_PREFIX`).
    pub webhook_secrets_prefix: String,
}

/// The documents bucket of the local stack whose table is `table` (`<prefix>-table`).
pub fn documents_bucket_for(table: &str) -> String {
    format!("{}-documents", table.trim_end_matches("-table"))
}

impl Resources {
    pub fn named(prefix: &str) -> Self {
        Resources {
            table: format!("{prefix}-table"),
            webhook_queue: format!("{prefix}-webhooks"),
            webhook_dlq: format!("{prefix}-webhooks-dlq"),
            retry_queue: format!("{prefix}-retries"),
            retry_dlq: format!("{prefix}-retries-dlq"),
            sender: "no-reply@verify.local.test".to_string(),
            schedule_group: format!("{prefix}-reminders"),
            scheduler_role_arn: format!(
                "arn:aws:iam::123456789012:role/{prefix}-reminder-scheduler"
            ),
            documents_bucket: documents_bucket_for(&format!("{prefix}-table")),
            documents_queue: format!("{prefix}-documents"),
            documents_dlq: format!("{prefix}-documents-dlq"),
            fingerprint_key_secret: format!("{prefix}-fingerprint-key"),
            webhook_secrets_prefix: format!("{prefix}/webhook-secrets/"),
        }
    }
}

/// URLs of what `bootstrap` created.
#[derive(Debug, Clone)]
pub struct Created {
    pub webhook_queue_url: String,
    pub webhook_dlq_url: String,
    pub retry_queue_url: String,
    pub retry_dlq_url: String,
    pub documents_queue_url: String,
    pub documents_dlq_url: String,
    pub fingerprint_key_secret_arn: String,
    /// The key read back from that secret (analyze-document reads it at its cold start).
    pub fingerprint_key: FingerprintKey,
    /// The customer-managed KMS key the webhook signing secrets are encrypted under.
    pub webhook_secrets_key_arn: String,
}

/// How many receives before a webhook message goes to the DLQ (matches template.yaml).
pub const WEBHOOK_MAX_RECEIVES: i32 = 13;
/// How many receives before a retry-queue message goes to its DLQ (matches template.yaml).
pub const RETRY_MAX_RECEIVES: i32 = 20;

/// Creates a queue whose messages move to a DLQ after `max_receives`; returns (queue, DLQ) URLs.
async fn queue_with_dlq(
    sqs: &aws_sdk_sqs::Client,
    name: &str,
    dlq_name: &str,
    max_receives: i32,
) -> Result<(String, String), String> {
    use aws_sdk_sqs::types::QueueAttributeName;
    let dlq_url = sqs
        .create_queue()
        .queue_name(dlq_name)
        .send()
        .await
        .map_err(|e| format!("create DLQ: {e}"))?
        .queue_url
        .unwrap_or_default();
    let dlq_arn = sqs
        .get_queue_attributes()
        .queue_url(&dlq_url)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .map_err(|e| format!("DLQ attributes: {e}"))?
        .attributes
        .and_then(|mut a| a.remove(&QueueAttributeName::QueueArn))
        .unwrap_or_default();
    let redrive = serde_json::json!({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receives.to_string()});
    let queue_url = sqs
        .create_queue()
        .queue_name(name)
        .attributes(QueueAttributeName::RedrivePolicy, redrive.to_string())
        .attributes(QueueAttributeName::VisibilityTimeout, "30")
        .send()
        .await
        .map_err(|e| format!("create queue: {e}"))?
        .queue_url
        .unwrap_or_default();
    Ok((queue_url, dlq_url))
}

/// Creates the table (if missing), the webhook and retry queues with their DLQs, and the SES
/// sender identity.
pub async fn bootstrap(sdk: &SdkConfig, names: &Resources) -> Result<Created, String> {
    let dynamo = aws_sdk_dynamodb::Client::new(sdk);
    let exists = dynamo
        .describe_table()
        .table_name(&names.table)
        .send()
        .await
        .is_ok();
    if !exists {
        adapters::dynamo::create_table(&dynamo, &names.table)
            .await
            .map_err(|e| e.to_string())?;
    }
    let sqs = aws_sdk_sqs::Client::new(sdk);
    let (queue_url, dlq_url) = queue_with_dlq(
        &sqs,
        &names.webhook_queue,
        &names.webhook_dlq,
        WEBHOOK_MAX_RECEIVES,
    )
    .await?;
    let (retry_queue_url, retry_dlq_url) = queue_with_dlq(
        &sqs,
        &names.retry_queue,
        &names.retry_dlq,
        RETRY_MAX_RECEIVES,
    )
    .await?;
    let (documents_queue_url, documents_dlq_url) = queue_with_dlq(
        &sqs,
        &names.documents_queue,
        &names.documents_dlq,
        DOCUMENTS_MAX_RECEIVES,
    )
    .await?;
    documents_bucket(sdk, &names.documents_bucket, &names.documents_queue).await?;
    let (fingerprint_key_secret_arn, fingerprint_key) =
        fingerprint_key::fingerprint_key(sdk, &names.fingerprint_key_secret).await?;
    let webhook_secrets_key_arn = webhook_secrets::webhook_secrets_key(
        sdk,
        &format!("Webhook signing secrets of {}", names.table),
    )
    .await?;
    let scheduler = aws_sdk_scheduler::Client::new(sdk);
    let group = scheduler
        .create_schedule_group()
        .name(&names.schedule_group)
        .send()
        .await;
    if let Err(e) = group {
        let exists = matches!(
            e.as_service_error(),
            Some(aws_sdk_scheduler::operation::create_schedule_group::CreateScheduleGroupError::ConflictException(_))
        );
        if !exists {
            return Err(format!("create schedule group: {e}"));
        }
    }
    let ses = aws_sdk_sesv2::Client::new(sdk);
    let _ = ses
        .create_email_identity()
        .email_identity(&names.sender)
        .send()
        .await;
    Ok(Created {
        webhook_queue_url: queue_url,
        webhook_dlq_url: dlq_url,
        retry_queue_url,
        retry_dlq_url,
        documents_queue_url,
        documents_dlq_url,
        fingerprint_key_secret_arn,
        fingerprint_key,
        webhook_secrets_key_arn,
    })
}

/// How many receives before a documents-queue message goes to its DLQ (matches template.yaml).
pub const DOCUMENTS_MAX_RECEIVES: i32 =
    service::handlers::analyze_document::DOCUMENT_MAX_RECEIVES as i32;

/// The documents bucket as template.yaml makes it: versioned, encrypted, public access blocked,
/// and its uploads' ObjectCreated notifications sent to the documents queue. moto keeps the settings but
/// enforces neither a POST policy nor a lifecycle rule.
async fn documents_bucket(sdk: &SdkConfig, bucket: &str, queue: &str) -> Result<(), String> {
    use aws_sdk_s3::types::{
        Event, FilterRule, FilterRuleName, NotificationConfiguration,
        NotificationConfigurationFilter, PublicAccessBlockConfiguration, QueueConfiguration,
        S3KeyFilter, ServerSideEncryption, ServerSideEncryptionByDefault,
        ServerSideEncryptionConfiguration, ServerSideEncryptionRule,
    };
    let s3 = adapters::s3::s3_client(sdk);
    if s3.head_bucket().bucket(bucket).send().await.is_ok() {
        return Ok(());
    }
    s3.create_bucket()
        .bucket(bucket)
        .send()
        .await
        .map_err(|e| format!("create bucket: {e}"))?;
    let encryption = ServerSideEncryptionConfiguration::builder()
        .rules(
            ServerSideEncryptionRule::builder()
                .apply_server_side_encryption_by_default(
                    ServerSideEncryptionByDefault::builder()
                        .sse_algorithm(ServerSideEncryption::AwsKms)
                        .build()
                        .map_err(|e| e.to_string())?,
                )
                .build(),
        )
        .build()
        .map_err(|e| e.to_string())?;
    s3.put_bucket_encryption()
        .bucket(bucket)
        .server_side_encryption_configuration(encryption)
        .send()
        .await
        .map_err(|e| format!("bucket encryption: {e}"))?;
    s3.put_bucket_versioning()
        .bucket(bucket)
        .versioning_configuration(
            aws_sdk_s3::types::VersioningConfiguration::builder()
                .status(aws_sdk_s3::types::BucketVersioningStatus::Enabled)
                .build(),
        )
        .send()
        .await
        .map_err(|e| format!("bucket versioning: {e}"))?;
    s3.put_public_access_block()
        .bucket(bucket)
        .public_access_block_configuration(
            PublicAccessBlockConfiguration::builder()
                .block_public_acls(true)
                .block_public_policy(true)
                .ignore_public_acls(true)
                .restrict_public_buckets(true)
                .build(),
        )
        .send()
        .await
        .map_err(|e| format!("public access block: {e}"))?;
    let queue_arn = format!("arn:aws:sqs:{}:123456789012:{queue}", crate::moto::REGION);
    let notification = NotificationConfiguration::builder()
        .queue_configurations(
            QueueConfiguration::builder()
                .queue_arn(queue_arn)
                .events(Event::from("s3:ObjectCreated:*"))
                .filter(
                    NotificationConfigurationFilter::builder()
                        .key(
                            S3KeyFilter::builder()
                                .filter_rules(
                                    FilterRule::builder()
                                        .name(FilterRuleName::Prefix)
                                        .value(domain::documents::record::UPLOAD_PREFIX)
                                        .build(),
                                )
                                .build(),
                        )
                        .build(),
                )
                .build()
                .map_err(|e| e.to_string())?,
        )
        .build();
    s3.put_bucket_notification_configuration()
        .bucket(bucket)
        .notification_configuration(notification)
        .send()
        .await
        .map_err(|e| format!("bucket notification: {e}"))?;
    Ok(())
}
