//! The outside systems behind the ports: DynamoDB (the store), SES (mailer) and SQS (queues),
//! the income providers (Plaid, Argyle for payroll, and the sandbox for test mode and the local stack), the HTTP
//! client that delivers webhooks, and the signed form of a browser upload to S3.

pub mod argyle;
pub mod dynamo;
pub mod plaid;
pub mod s3;
pub mod sandbox;
pub mod scheduler;
pub mod secrets;
pub mod ses;
pub mod sns;
pub mod sqs;
pub mod webhook_client;
