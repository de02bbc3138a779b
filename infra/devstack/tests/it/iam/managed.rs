//! The managed policies SAM attaches to the role it makes for a function with `Policies`, as
//! statements the evaluator reads like the template's own, each document as AWS publishes it:
//!
//! - every such role: `AWSLambdaBasicExecutionRole`
//!   (https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html);
//! - with `Tracing: Active` (the function's or `Globals`'): `AWSXrayWriteOnlyAccess`
//!   (https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSXrayWriteOnlyAccess.html);
//! - an `SQS` event: `AWSLambdaSQSQueueExecutionRole`
//!   (https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaSQSQueueExecutionRole.html);
//! - a `DynamoDB` event: `AWSLambdaDynamoDBExecutionRole`
//!   (https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaDynamoDBExecutionRole.html),
//!   and for its `DestinationConfig.OnFailure` queue, `sqs:SendMessage` on it (SAM's event source
//!   documentation, https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-function-dynamodb.html).
//!
//! Another event type with a policy of SAM's own is not known here: it is named unreadable.

use serde_yaml::Value;

use super::policy::{Names, Statement, resolve};

/// The event types SAM adds no role policy for (their permission is on the function).
const NO_ROLE_POLICY: [&str; 2] = ["HttpApi", "Api"];

fn statement(policy: &str, actions: &[&str], resource: &str) -> Statement {
    Statement {
        label: format!("SAM-managed {policy}"),
        allow: true,
        actions: actions.iter().map(|a| a.to_string()).collect(),
        not_actions: vec![],
        resources: vec![resource.to_string()],
        not_resources: vec![],
        conditions: vec![],
    }
}

const LOGS: [&str; 3] = [
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:PutLogEvents",
];

/// The statements SAM's role for `function` holds beside its `Policies`, and the event types
/// whose policies are not known here.
pub fn sam_statements(
    template: &Value,
    function: &Value,
    names: &dyn Names,
) -> (Vec<Statement>, Vec<String>) {
    let props = &function["Properties"];
    let mut out = vec![statement("AWSLambdaBasicExecutionRole", &LOGS, "*")];
    let tracing = match &props["Tracing"] {
        Value::Null => &template["Globals"]["Function"]["Tracing"],
        own => own,
    };
    if tracing.as_str() == Some("Active") {
        let xray = [
            "xray:PutTraceSegments",
            "xray:PutTelemetryRecords",
            "xray:GetSamplingRules",
            "xray:GetSamplingTargets",
            "xray:GetSamplingStatisticSummaries",
        ];
        out.push(statement("AWSXrayWriteOnlyAccess", &xray, "*"));
    }
    let mut not_known = Vec::new();
    for (name, event) in props["Events"].as_mapping().into_iter().flatten() {
        let kind = event["Type"].as_str().unwrap_or_default();
        match kind {
            "SQS" => {
                let sqs = [
                    "sqs:ReceiveMessage",
                    "sqs:DeleteMessage",
                    "sqs:GetQueueAttributes",
                ];
                out.push(statement("AWSLambdaSQSQueueExecutionRole", &sqs, "*"));
                out.push(statement("AWSLambdaSQSQueueExecutionRole", &LOGS, "*"));
            }
            "DynamoDB" => {
                let stream = [
                    "dynamodb:DescribeStream",
                    "dynamodb:GetRecords",
                    "dynamodb:GetShardIterator",
                    "dynamodb:ListStreams",
                ];
                out.push(statement("AWSLambdaDynamoDBExecutionRole", &stream, "*"));
                out.push(statement("AWSLambdaDynamoDBExecutionRole", &LOGS, "*"));
                let failure = &event["Properties"]["DestinationConfig"]["OnFailure"];
                if !failure.is_null() {
                    let destination = resolve(&failure["Destination"], names);
                    let send = ["sqs:SendMessage"];
                    out.push(statement("OnFailure destination", &send, &destination));
                }
            }
            kind if NO_ROLE_POLICY.contains(&kind) => {}
            other => not_known.push(format!(
                "the event {:?} of type {other}: the policy SAM adds for it is not known here",
                name.as_str().unwrap_or_default()
            )),
        }
    }
    (out, not_known)
}
