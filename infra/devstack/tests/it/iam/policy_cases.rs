//! The evaluator's own allow and deny cases, on a small template written like template.yaml (a
//! SAM function with `Policies`, a function with a `Role` of its own and a `RolePolicy` attached
//! to a SAM role), with accesses built from the request bodies the SDK sends.

mod documented;

use devstack::proxy::Call;
use serde_json::json;

use super::access::{Access, accesses, table_arn};
use super::policy::{Names, Statement, allows, glob, grants, pseudo, roles, used_by};

const TEMPLATE: &str = r#"
Resources:
  ApiFunction:
    Type: AWS::Serverless::Function
    Metadata: { BuildProperties: { Binary: api } }
    Properties:
      Policies:
        - Version: "2012-10-17"
          Statement:
            - Effect: Allow
              Action: dynamodb:GetItem
              Resource: !GetAtt Table.Arn
              Condition:
                ForAllValues:StringLike:
                  dynamodb:LeadingKeys: ["ACCOUNT#*", "VERIFICATION#*"]
            - Effect: Allow
              Action: dynamodb:Query
              Resource:
                - !Sub "${Table.Arn}/index/GSI1"
              Condition:
                ForAllValues:StringLike:
                  dynamodb:LeadingKeys: ["OWNER#*"]
            - Effect: Deny
              Action: dynamodb:GetItem
              Resource: !GetAtt Table.Arn
              Condition:
                ForAnyValue:StringLike:
                  dynamodb:LeadingKeys: ["ACCOUNT#blocked*"]
  PortalFunction:
    Type: AWS::Serverless::Function
    Metadata: { BuildProperties: { Binary: portal } }
    Properties:
      Policies:
        - Version: "2012-10-17"
          Statement:
            - Effect: Allow
              Action: dynamodb:UpdateItem
              Resource: !GetAtt Table.Arn
  PortalSecret:
    Type: AWS::IAM::RolePolicy
    Properties:
      RoleName: !Ref PortalFunctionRole
      PolicyDocument:
        Statement:
          - Effect: Allow
            Action: secretsmanager:GetSecretValue
            Resource: !Ref SecretArn
  EdgeSecretPolicy:
    Type: AWS::IAM::Policy
    Properties:
      PolicyName: edge
      Roles: [!Ref PortalFunctionRole, !Ref WorkerRole]
      PolicyDocument:
        Statement:
          - Sid: EdgeSecret
            Effect: Allow
            Action: secretsmanager:GetSecretValue
            Resource: !Ref EdgeSecret
  WorkerFunction:
    Type: AWS::Serverless::Function
    Metadata: { BuildProperties: { Binary: worker } }
    Properties:
      Role: !GetAtt WorkerRole.Arn
  WorkerRole:
    Type: AWS::IAM::Role
    Properties:
      Policies:
        - PolicyName: worker
          PolicyDocument:
            Statement:
              - Sid: Secrets
                Effect: Allow
                Action: dynamodb:GetItem
                Resource: !GetAtt Table.Arn
                Condition:
                  ForAllValues:StringLike:
                    dynamodb:LeadingKeys: ["ACCOUNT#*"]
                  ForAllValues:StringEquals:
                    dynamodb:Attributes: [PK, SK, current]
                  StringEqualsIfExists:
                    dynamodb:Select: SPECIFIC_ATTRIBUTES
                    dynamodb:ReturnValues: NONE
              - Sid: Mail
                Effect: Allow
                Action: ses:SendEmail
                Resource: !Sub "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/*"
                Condition:
                  StringEquals:
                    ses:FromAddress: !Ref SenderEmail
              - Sid: Sms
                Effect: Allow
                Action: sns:Publish
                NotResource: !Sub "arn:${AWS::Partition}:sns:*:*:*"
              - Sid: Queue
                Effect: Allow
                Action: [sqs:SendMessage]
                Resource: !GetAtt Queue.Arn
              - Sid: Pass
                Effect: Allow
                Action: iam:PassRole
                Resource: !GetAtt SchedulerRole.Arn
                Condition:
                  StringEquals:
                    iam:PassedToService: scheduler.amazonaws.com
              - Sid: ListUploads
                Effect: Allow
                Action: s3:ListBucket
                Resource: !GetAtt Bucket.Arn
                Condition:
                  StringLike:
                    s3:prefix: ["uploads/*"]
              - Sid: EraseUploads
                Effect: Allow
                Action: s3:DeleteObject
                Resource: !Sub "${Bucket.Arn}/uploads/*"
"#;

struct Fixed;

impl Names for Fixed {
    fn resolve(&self, reference: &str) -> String {
        if let Some(v) = pseudo(reference) {
            return v;
        }
        match reference {
            "Table.Arn" => table_arn("t"),
            "SecretArn" => "arn:aws:secretsmanager:us-east-1:123456789012:secret:plaid-AbC".into(),
            "EdgeSecret" => "arn:aws:secretsmanager:us-east-1:123456789012:secret:edge-XyZ".into(),
            "SenderEmail" => "no-reply@example.com".into(),
            "Queue.Arn" => "arn:aws:sqs:us-east-1:123456789012:q".into(),
            "SchedulerRole.Arn" => "arn:aws:iam::123456789012:role/sched".into(),
            "Bucket.Arn" => "arn:aws:s3:::docs".into(),
            other => panic!("{other}"),
        }
    }
}

fn role(function: &str) -> Vec<Statement> {
    let template: serde_yaml::Value = serde_yaml::from_str(TEMPLATE).unwrap();
    roles(&template, &Fixed).remove(function).unwrap()
}

/// A recorded call as the proxy has it.
fn call(operation: &str, service: &str, body: serde_json::Value) -> Call {
    Call::answered(operation, service, body.to_string().as_bytes())
}

fn dynamo(op: &str, body: serde_json::Value) -> Vec<Access> {
    accesses(&call(&format!("DynamoDB_20120810.{op}"), "dynamodb", body))
}

fn get(pk: &str) -> Vec<Access> {
    dynamo(
        "GetItem",
        json!({"TableName": "t", "Key": {"PK": {"S": pk}, "SK": {"S": "X"}}}),
    )
}

fn one(mut list: Vec<Access>) -> Access {
    assert_eq!(list.len(), 1, "{list:?}");
    list.remove(0)
}

#[test]
fn leading_keys_allow_the_listed_prefixes_only() {
    let api = role("api");
    assert!(allows(&api, &one(get("ACCOUNT#acct_1"))));
    assert!(allows(&api, &one(get("VERIFICATION#123"))));
    assert!(
        !allows(&api, &one(get("WEBHOOK_EVENT#evt"))),
        "another prefix"
    );
    assert!(
        !allows(&api, &one(get("ACCOUNT#blocked-1"))),
        "an explicit deny wins"
    );
    let other_table = one(dynamo(
        "GetItem",
        json!({"TableName": "u", "Key": {"PK": {"S": "ACCOUNT#a"}}}),
    ));
    assert!(!allows(&api, &other_table), "another table");
}

#[test]
fn each_transaction_part_needs_its_own_action_and_prefix() {
    let api = role("api");
    let parts = dynamo(
        "TransactWriteItems",
        json!({"TransactItems": [
            {"ConditionCheck": {"TableName": "t", "Key": {"PK": {"S": "HOUSEHOLD#h"}, "SK": {"S": "HOUSEHOLD"}}}},
            {"Update": {"TableName": "t", "Key": {"PK": {"S": "ACCOUNT#a"}, "SK": {"S": "ACCOUNT"}}, "UpdateExpression": "SET #n = :v", "ExpressionAttributeNames": {"#n": "api_requests"}}},
        ]}),
    );
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].action, "dynamodb:ConditionCheckItem");
    assert_eq!(parts[0].leading_prefixes(), vec!["HOUSEHOLD#"]);
    assert_eq!(parts[1].action, "dynamodb:UpdateItem");
    assert!(parts.iter().all(|p| !allows(&api, p)), "api may only read");
    let portal = role("portal");
    assert!(allows(&portal, &parts[1]), "no condition: any key");
    assert!(
        !allows(&portal, &parts[0]),
        "an UpdateItem grant is no ConditionCheckItem"
    );
}

#[test]
fn a_query_is_checked_on_its_index_and_its_partition_key() {
    let api = role("api");
    let query = |index: &str, pk: &str| {
        one(dynamo(
            "Query",
            json!({"TableName": "t", "IndexName": index, "KeyConditionExpression": format!("#pk = :pk AND begins_with({index}SK, :p)"),
                   "ExpressionAttributeNames": {"#pk": format!("{index}PK")},
                   "ExpressionAttributeValues": {":pk": {"S": pk}, ":p": {"S": "2026"}}}),
        ))
    };
    assert!(allows(&api, &query("GSI1", "OWNER#acct#live")));
    assert!(
        !allows(&api, &query("GSI3", "HOUSEHOLD#h")),
        "GSI3 is not granted"
    );
    assert!(
        !allows(&api, &query("GSI1", "HOUSEHOLD#h")),
        "another partition"
    );
}

#[test]
fn attributes_and_select_limit_a_read_to_its_projection() {
    let worker = role("worker");
    let read = |projection: Option<&str>| {
        let mut body =
            json!({"TableName": "t", "Key": {"PK": {"S": "ACCOUNT#a"}, "SK": {"S": "S"}}});
        if let Some(p) = projection {
            body["ProjectionExpression"] = json!(p);
            body["ExpressionAttributeNames"] = json!({"#c": "current", "#n": "name"});
        }
        one(dynamo("GetItem", body))
    };
    assert!(allows(&worker, &read(Some("#c"))));
    assert!(allows(&worker, &read(Some("PK, SK, #c"))));
    assert!(
        !allows(&worker, &read(Some("#c, #n"))),
        "an attribute outside the list"
    );
    assert!(
        !allows(&worker, &read(None)),
        "no projection reads every attribute"
    );
    let mut returning = read(Some("#c"));
    returning
        .context
        .insert("dynamodb:ReturnValues".into(), vec!["ALL_OLD".into()]);
    assert!(!allows(&worker, &returning));
}

#[test]
fn mail_texts_queues_roles_and_secrets_are_checked_on_their_arns_and_conditions() {
    let worker = role("worker");
    let mail = |from: &str| {
        let mut c = call(
            "POST /v2/email/outbound-emails",
            "ses",
            json!({"FromEmailAddress": from}),
        );
        c.path_and_query = "/v2/email/outbound-emails".into();
        one(accesses(&c))
    };
    assert!(allows(&worker, &mail("no-reply@example.com")));
    assert!(!allows(&worker, &mail("ceo@example.com")), "another sender");
    let sms = |form: &str| {
        let mut c = call("POST /", "sns", json!(null));
        c.body = form.to_string().into_bytes().into();
        one(accesses(&c))
    };
    assert!(allows(
        &worker,
        &sms("Action=Publish&PhoneNumber=%2B12015550123&Message=hi")
    ));
    let topic = sms("Action=Publish&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A1%3At&Message=hi");
    assert!(
        !allows(&worker, &topic),
        "a topic is excluded by NotResource"
    );
    let send = |url: &str| {
        one(accesses(&call(
            "AmazonSQS.SendMessage",
            "sqs",
            json!({"QueueUrl": url}),
        )))
    };
    assert!(allows(
        &worker,
        &send("http://127.0.0.1:5000/123456789012/q")
    ));
    assert!(!allows(
        &worker,
        &send("http://127.0.0.1:5000/123456789012/other")
    ));
    let schedule = |role: &str| {
        accesses(&call(
            "POST /schedules/s1",
            "scheduler",
            json!({"GroupName": "g", "Target": {"RoleArn": role}}),
        ))
    };
    let pass = schedule("arn:aws:iam::123456789012:role/sched");
    assert_eq!(pass[0].action, "scheduler:CreateSchedule");
    assert!(
        !allows(&worker, &pass[0]),
        "no scheduler grant in this role"
    );
    assert!(allows(&worker, &pass[1]), "passing the scheduler's role");
    assert!(!allows(
        &worker,
        &schedule("arn:aws:iam::123456789012:role/admin")[1]
    ));
    let secret = |id: &str| {
        one(accesses(&call(
            "secretsmanager.GetSecretValue",
            "secretsmanager",
            json!({"SecretId": id}),
        )))
    };
    let portal = role("portal");
    let arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:plaid-AbC";
    assert!(allows(&portal, &secret(arn)), "the attached RolePolicy");
    assert!(!allows(&portal, &secret(&format!("{arn}x"))));
    assert!(!allows(&worker, &secret(arn)));
}

/// An `AWS::IAM::Policy` is an inline policy of every role its `Roles` lists, a SAM role and a
/// role of a function's own alike, and of no other role.
#[test]
fn a_policy_attached_by_roles_counts_for_each_role_it_lists() {
    let secret = one(accesses(&call(
        "secretsmanager.GetSecretValue",
        "secretsmanager",
        json!({"SecretId": "arn:aws:secretsmanager:us-east-1:123456789012:secret:edge-XyZ"}),
    )));
    let (portal, worker, api) = (role("portal"), role("worker"), role("api"));
    assert!(
        allows(&portal, &secret),
        "listed: the SAM role PortalFunctionRole"
    );
    assert!(
        allows(&worker, &secret),
        "listed: the function's own WorkerRole"
    );
    assert!(!allows(&api, &secret), "ApiFunctionRole is not listed");
    let edge = |statements: &[Statement]| {
        (grants(statements).into_iter())
            .filter(|g| g.statement == "EdgeSecretPolicy EdgeSecret")
            .count()
    };
    assert_eq!((edge(&portal), edge(&worker), edge(&api)), (1, 1, 0));
}

/// An S3 call as the SDK sends it, path-style (`/<bucket>/?...` on the bucket): method, path and
/// query, body.
fn s3(method: &str, path_and_query: &str, body: &str) -> Vec<Access> {
    let path = path_and_query.split('?').next().unwrap();
    let mut c = call(&format!("{method} {path}"), "s3", json!(null));
    c.path_and_query = path_and_query.into();
    c.body = body.to_string().into_bytes().into();
    accesses(&c)
}

#[test]
fn a_listing_is_checked_on_its_prefix_and_a_multi_object_delete_on_each_key() {
    let worker = role("worker");
    let list = |query: &str| one(s3("GET", &format!("/docs/?list-type=2{query}"), ""));
    let own = list("&prefix=uploads%2Fv1%2F");
    assert_eq!(own.action, "s3:ListBucket");
    assert_eq!(own.resource, "arn:aws:s3:::docs");
    assert!(allows(&worker, &own), "{own:?}");
    assert!(!allows(&worker, &list("")), "no prefix: the whole bucket");
    assert!(!allows(&worker, &list("&prefix=")), "an empty prefix");
    assert!(
        !allows(&worker, &list("&prefix=reports%2F")),
        "another prefix"
    );
    let other_bucket = one(s3("GET", "/other?list-type=2&prefix=uploads%2F", ""));
    assert!(!allows(&worker, &other_bucket));
    assert!(!allows(&role("api"), &own), "no S3 grant in that role");

    let body = |keys: &[&str]| {
        let objects: String = (keys.iter())
            .map(|k| format!("<Object><Key>{k}</Key></Object>"))
            .collect();
        format!(
            r#"<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">{objects}<Quiet>true</Quiet></Delete>"#
        )
    };
    let deletes = s3(
        "POST",
        "/docs/?delete",
        &body(&["uploads/v1/d1", "uploads/v1/d2"]),
    );
    assert_eq!(deletes.len(), 2, "one authorization per key");
    assert!(deletes.iter().all(|d| d.action == "s3:DeleteObject"));
    assert_eq!(deletes[1].resource, "arn:aws:s3:::docs/uploads/v1/d2");
    assert!(deletes.iter().all(|d| allows(&worker, d)));
    let mixed = s3(
        "POST",
        "/docs?delete",
        &body(&["uploads/v1/d1", "reports/r1"]),
    );
    assert!(allows(&worker, &mixed[0]));
    assert!(!allows(&worker, &mixed[1]), "a key outside uploads/");
}

#[test]
fn grants_are_split_by_leading_key_and_marked_used_by_matching_calls() {
    let api = role("api");
    let all: Vec<_> = (grants(&api).into_iter())
        .filter(|g| !g.statement.starts_with("SAM-managed"))
        .collect();
    assert_eq!(all.len(), 3, "{all:?}");
    let used = used_by(&api, &one(get("ACCOUNT#a")));
    assert_eq!(used.len(), 1);
    assert_eq!(used[0].leading_key.as_deref(), Some("ACCOUNT#*"));
}

#[test]
fn wildcards_match_as_in_iam() {
    assert!(glob("ACCOUNT#*", "ACCOUNT#acct_1"));
    assert!(glob("*", ""));
    assert!(glob("arn:aws:sns:*:*:*", "arn:aws:sns:us-east-1:1:t"));
    assert!(!glob("arn:aws:sns:*:*:*", "*"));
    assert!(glob("a?c", "abc"));
    assert!(!glob("ACCOUNT#*", "ACCOUNTS#x"));
}

/// SAM's managed policies are statements of the role SAM makes: logs always, X-Ray with
/// `Tracing: Active` (from `Globals`), the poller's for an SQS event. A SAM policy template, a
/// managed policy by name and a role's `ManagedPolicyArns` are named unreadable.
#[test]
fn sam_managed_policies_are_read_and_other_forms_are_named() {
    let template: serde_yaml::Value = serde_yaml::from_str(
        r#"
Globals:
  Function:
    Tracing: Active
Resources:
  PollerFunction:
    Type: AWS::Serverless::Function
    Metadata: { BuildProperties: { Binary: poller } }
    Properties:
      Events:
        Queue: { Type: SQS, Properties: { Queue: !GetAtt Queue.Arn } }
      Policies:
        - SQSPollerPolicy: { QueueName: q }
        - AWSLambdaExecute
  OwnFunction:
    Type: AWS::Serverless::Function
    Metadata: { BuildProperties: { Binary: own } }
    Properties:
      Role: !GetAtt OwnRole.Arn
  OwnRole:
    Type: AWS::IAM::Role
    Properties:
      ManagedPolicyArns: [arn:aws:iam::aws:policy/AdministratorAccess]
"#,
    )
    .unwrap();
    let read = super::policy::read_roles(&template, &Fixed);
    let poller = &read.roles["poller"];
    let send = |action: &str, resource: &str| Access {
        action: action.into(),
        resource: resource.into(),
        context: Default::default(),
        call: "case".into(),
    };
    assert!(allows(
        poller,
        &send(
            "logs:PutLogEvents",
            "arn:aws:logs:us-east-1:1:log-group:x:*"
        )
    ));
    assert!(allows(poller, &send("xray:PutTraceSegments", "*")));
    assert!(allows(
        poller,
        &send("sqs:ReceiveMessage", "arn:aws:sqs:us-east-1:1:q")
    ));
    assert!(!allows(
        poller,
        &send("sqs:SendMessage", "arn:aws:sqs:us-east-1:1:q")
    ));
    assert!(
        read.roles["own"].is_empty(),
        "a role of its own gets nothing from SAM"
    );
    for named in [
        "poller: Policies[0]: the SAM policy template",
        "poller: Policies[1]: the managed policy AWSLambdaExecute",
        "own: OwnRole's ManagedPolicyArns",
    ] {
        assert!(
            read.unreadable.iter().any(|u| u.starts_with(named)),
            "{named}: {:?}",
            read.unreadable
        );
    }
}
