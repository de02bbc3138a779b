//! The outside systems behind the ports: DynamoDB (the store), SES (mailer), SNS (texter), SQS
//! (queues), EventBridge Scheduler, S3 (the uploads), Secrets Manager, the income providers (Plaid,
//! Argyle) and the HTTP client that delivers webhooks; and the wiring, which builds each
//! function's handler dependencies from its configuration. The only crate that names an AWS SDK,
//! Plaid or Argyle.

pub mod analysis_child;
pub mod argyle;
pub mod dynamo;
pub mod live_provider;
pub mod plaid;
pub mod s3;
pub mod scheduler;
pub mod secrets;
pub mod ses;
pub mod sns;
pub mod sqs;
pub mod webhook_client;
pub mod webhook_secrets;
pub mod wiring;

/// Loads the AWS configuration once (region, credentials, endpoint from the environment).
pub async fn aws_config() -> aws_config::SdkConfig {
    aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await
}
