//! The outside systems behind the ports: DynamoDB (the store), SES and SQS, the income providers
//! (Plaid, and the sandbox for test mode and the local stack).

pub mod aws;
pub mod dynamo;
pub mod plaid;
pub mod sandbox;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;
