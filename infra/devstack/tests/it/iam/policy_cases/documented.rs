//! The evaluator against cases taken from the IAM documentation, one table row each: the policy
//! statements, one request, whether IAM allows it, and the page the rule comes from.
//!
//! - EVAL: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html
//!   (an explicit deny overrides any allow; no allow is an implicit deny)
//! - ACTION: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_action.html
//!   (wildcards `*` and `?`; action names are case-insensitive)
//! - NOTACTION: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notaction.html
//! - NOTRESOURCE: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notresource.html
//! - OPERATORS: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html
//!   (an absent key fails a condition, but passes a negated operator and `...IfExists`)
//! - MULTI: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_multi-value-conditions.html
//!   (several values: OR, NOR for a negated operator; several keys or operators: AND)
//! - SETS: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html
//!   (`ForAllValues` passes on an absent key, `ForAnyValue` fails on one)

use std::collections::BTreeMap;

use super::super::access::Access;
use super::super::policy::{Read, allows, read_roles};
use super::Fixed;

const EVAL: &str = "reference_policies_evaluation-logic";
const ACTION: &str = "reference_policies_elements_action";
const NOTACTION: &str = "reference_policies_elements_notaction";
const NOTRESOURCE: &str = "reference_policies_elements_notresource";
const OPERATORS: &str = "reference_policies_elements_condition_operators";
const MULTI: &str = "reference_policies_multi-value-conditions";
const SETS: &str = "reference_policies_condition-single-vs-multi-valued-context-keys";

/// The statements (YAML flow sequence) as the policy of a function's own role.
fn read(statements: &str) -> Read {
    let template = format!(
        r#"
Resources:
  F:
    Type: AWS::Serverless::Function
    Metadata: {{ BuildProperties: {{ Binary: f }} }}
    Properties:
      Role: !GetAtt R.Arn
  R:
    Type: AWS::IAM::Role
    Properties:
      Policies:
        - PolicyName: p
          PolicyDocument:
            Version: "2012-10-17"
            Statement: {statements}
"#
    );
    read_roles(&serde_yaml::from_str(&template).unwrap(), &Fixed)
}

fn request(action: &str, resource: &str, context: &[(&str, &[&str])]) -> Access {
    Access {
        action: action.into(),
        resource: resource.into(),
        context: (context.iter())
            .map(|(k, vs)| (k.to_string(), vs.iter().map(|v| v.to_string()).collect()))
            .collect::<BTreeMap<_, _>>(),
        call: "case".into(),
    }
}

const TABLE: &str = "arn:aws:dynamodb:us-east-1:123456789012:table/t";
const BUCKET_OBJECT: &str = "arn:aws:s3:::docs/uploads/a.pdf";

#[test]
fn the_evaluator_decides_as_the_iam_documentation_says() {
    type Context<'a> = &'a [(&'a str, &'a [&'a str])];
    let cases: &[(&str, &str, &str, &str, Context, bool)] = &[
        // (page, statements, action, resource, context, allowed)
        (EVAL, "[]", "s3:GetObject", BUCKET_OBJECT, &[], false),
        (
            EVAL,
            "[{Effect: Allow, Action: 's3:*', Resource: '*'}, {Effect: Deny, Action: s3:GetObject, Resource: 'arn:aws:s3:::docs/*'}]",
            "s3:GetObject",
            BUCKET_OBJECT,
            &[],
            false,
        ),
        (
            EVAL,
            "[{Effect: Allow, Action: 's3:*', Resource: '*'}, {Effect: Deny, Action: s3:GetObject, Resource: 'arn:aws:s3:::docs/*'}]",
            "s3:PutObject",
            BUCKET_OBJECT,
            &[],
            true,
        ),
        (
            ACTION,
            "[{Effect: Allow, Action: 's3:Get*', Resource: '*'}]",
            "s3:GetObjectVersion",
            BUCKET_OBJECT,
            &[],
            true,
        ),
        (
            ACTION,
            "[{Effect: Allow, Action: 's3:Get*', Resource: '*'}]",
            "s3:PutObject",
            BUCKET_OBJECT,
            &[],
            false,
        ),
        (
            ACTION,
            "[{Effect: Allow, Action: 'sqs:?eceiveMessage', Resource: '*'}]",
            "sqs:ReceiveMessage",
            "arn:aws:sqs:us-east-1:1:q",
            &[],
            true,
        ),
        (
            ACTION,
            "[{Effect: Allow, Action: 'dynamodb:getitem', Resource: '*'}]",
            "dynamodb:GetItem",
            TABLE,
            &[],
            true,
        ),
        // Resource ARNs are case-sensitive.
        (
            ACTION,
            "[{Effect: Allow, Action: 's3:GetObject', Resource: 'arn:aws:s3:::DOCS/*'}]",
            "s3:GetObject",
            BUCKET_OBJECT,
            &[],
            false,
        ),
        (
            NOTACTION,
            "[{Effect: Allow, Action: 's3:*', Resource: '*'}, {Effect: Deny, NotAction: 's3:Get*', Resource: '*'}]",
            "s3:DeleteObject",
            BUCKET_OBJECT,
            &[],
            false,
        ),
        (
            NOTACTION,
            "[{Effect: Allow, Action: 's3:*', Resource: '*'}, {Effect: Deny, NotAction: 's3:Get*', Resource: '*'}]",
            "s3:GetObject",
            BUCKET_OBJECT,
            &[],
            true,
        ),
        (
            NOTRESOURCE,
            "[{Effect: Allow, Action: sns:Publish, NotResource: 'arn:aws:sns:*:*:*'}]",
            "sns:Publish",
            "+15550100000",
            &[],
            true,
        ),
        (
            NOTRESOURCE,
            "[{Effect: Allow, Action: sns:Publish, NotResource: 'arn:aws:sns:*:*:*'}]",
            "sns:Publish",
            "arn:aws:sns:us-east-1:1:topic",
            &[],
            false,
        ),
        (
            OPERATORS,
            "[{Effect: Allow, Action: 'ses:SendEmail', Resource: '*', Condition: {StringEquals: {'ses:FromAddress': a@example.com}}}]",
            "ses:SendEmail",
            "*",
            &[],
            false,
        ),
        (
            OPERATORS,
            "[{Effect: Allow, Action: 'ses:SendEmail', Resource: '*', Condition: {StringEqualsIfExists: {'ses:FromAddress': a@example.com}}}]",
            "ses:SendEmail",
            "*",
            &[],
            true,
        ),
        (
            OPERATORS,
            "[{Effect: Allow, Action: 'ses:SendEmail', Resource: '*', Condition: {StringEqualsIfExists: {'ses:FromAddress': a@example.com}}}]",
            "ses:SendEmail",
            "*",
            &[("ses:FromAddress", &["b@example.com"])],
            false,
        ),
        (
            OPERATORS,
            "[{Effect: Allow, Action: 'ses:SendEmail', Resource: '*', Condition: {StringNotLike: {'ses:FromAddress': '*@evil.example'}}}]",
            "ses:SendEmail",
            "*",
            &[],
            true,
        ),
        (
            OPERATORS,
            "[{Effect: Allow, Action: 's3:ListBucket', Resource: '*', Condition: {StringLike: {'s3:prefix': 'uploads/*'}}}]",
            "s3:ListBucket",
            "arn:aws:s3:::docs",
            &[("s3:prefix", &["uploads/a"])],
            true,
        ),
        // Condition key names are case-insensitive.
        (
            OPERATORS,
            "[{Effect: Allow, Action: 's3:ListBucket', Resource: '*', Condition: {StringLike: {'S3:Prefix': 'uploads/*'}}}]",
            "s3:ListBucket",
            "arn:aws:s3:::docs",
            &[("s3:prefix", &["uploads/a"])],
            true,
        ),
        (
            MULTI,
            "[{Effect: Allow, Action: 's3:ListBucket', Resource: '*', Condition: {StringEquals: {'s3:prefix': [a, b]}}}]",
            "s3:ListBucket",
            "arn:aws:s3:::docs",
            &[("s3:prefix", &["b"])],
            true,
        ),
        (
            MULTI,
            "[{Effect: Allow, Action: 's3:ListBucket', Resource: '*', Condition: {StringNotEquals: {'s3:prefix': [a, b]}}}]",
            "s3:ListBucket",
            "arn:aws:s3:::docs",
            &[("s3:prefix", &["a"])],
            false,
        ),
        (
            MULTI,
            "[{Effect: Allow, Action: 's3:ListBucket', Resource: '*', Condition: {StringNotEquals: {'s3:prefix': [a, b]}}}]",
            "s3:ListBucket",
            "arn:aws:s3:::docs",
            &[("s3:prefix", &["c"])],
            true,
        ),
        (
            MULTI,
            "[{Effect: Allow, Action: 'iam:PassRole', Resource: '*', Condition: {StringEquals: {'iam:PassedToService': scheduler.amazonaws.com}, ArnLike: {'iam:AssociatedResourceArn': 'arn:aws:scheduler:*'}}}]",
            "iam:PassRole",
            "arn:aws:iam::1:role/r",
            &[("iam:PassedToService", &["scheduler.amazonaws.com"])],
            false,
        ),
        (
            SETS,
            "[{Effect: Allow, Action: 'dynamodb:GetItem', Resource: '*', Condition: {'ForAllValues:StringLike': {'dynamodb:LeadingKeys': ['ACCOUNT#*']}}}]",
            "dynamodb:GetItem",
            TABLE,
            &[],
            true,
        ),
        (
            SETS,
            "[{Effect: Allow, Action: 'dynamodb:GetItem', Resource: '*', Condition: {'ForAllValues:StringLike': {'dynamodb:LeadingKeys': ['ACCOUNT#*']}}}]",
            "dynamodb:GetItem",
            TABLE,
            &[("dynamodb:LeadingKeys", &["ACCOUNT#a", "VERIFICATION#v"])],
            false,
        ),
        (
            SETS,
            "[{Effect: Allow, Action: 'dynamodb:GetItem', Resource: '*', Condition: {'ForAnyValue:StringLike': {'dynamodb:LeadingKeys': ['ACCOUNT#*']}}}]",
            "dynamodb:GetItem",
            TABLE,
            &[],
            false,
        ),
        (
            SETS,
            "[{Effect: Allow, Action: 'dynamodb:GetItem', Resource: '*', Condition: {'ForAnyValue:StringLike': {'dynamodb:LeadingKeys': ['ACCOUNT#*']}}}]",
            "dynamodb:GetItem",
            TABLE,
            &[("dynamodb:LeadingKeys", &["ACCOUNT#a", "VERIFICATION#v"])],
            true,
        ),
    ];
    for (page, statements, action, resource, context, allowed) in cases {
        let read = read(statements);
        assert!(read.unreadable.is_empty(), "{page}: {:?}", read.unreadable);
        let access = request(action, resource, context);
        assert_eq!(
            allows(&read.roles["f"], &access),
            *allowed,
            "{page}: {statements} for {action} on {resource} {context:?}"
        );
    }
}

/// What the reader cannot evaluate is named, never skipped.
#[test]
fn every_policy_form_it_cannot_evaluate_is_named() {
    for (statements, named) in [
        (
            "[{Effect: Allow, NotAction: 'iam:*', Resource: '*'}]",
            "an Allow by NotAction",
        ),
        (
            "[{Effect: Allow, Action: 's3:*', Resource: '*', Condition: {DateLessThan: {'aws:CurrentTime': '2030-01-01T00:00:00Z'}}}]",
            "the condition operator DateLessThan",
        ),
        (
            "[{Effect: Allow, Action: 's3:*', Resource: '*', Condition: {Bool: {'aws:SecureTransport': 'true'}}}]",
            "the condition operator Bool",
        ),
        (
            "[{Effect: Allow, Action: 's3:*', Resource: '*', Principal: '*'}]",
            "the element Principal",
        ),
        (
            "[{Effect: Allow, Action: 's3:*'}]",
            "one of Resource and NotResource",
        ),
        (
            "[{Effect: Maybe, Action: 's3:*', Resource: '*'}]",
            "neither Allow nor Deny",
        ),
    ] {
        let read = read(statements);
        assert!(
            read.unreadable
                .iter()
                .any(|u| u.starts_with("f: ") && u.contains(named)),
            "{statements}: {:?}",
            read.unreadable
        );
    }
}
