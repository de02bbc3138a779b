//! Least privilege, proven from the calls (issue 21): moto enforces no IAM, so a role missing a
//! grant passes every other test and fails on AWS. Here every function runs with AWS clients of
//! its own, through its own recording proxy (`devstack::proxy::FunctionProxies`), in runs that
//! cover success, refusal, held-claim, household, retry and waiting-connection paths
//! (`iam/runs.rs`). Each recorded call becomes what IAM authorizes (`iam/access.rs`: the
//! action, the table or index, every partition key a transaction part or condition check
//! touches, the projected attributes, the queue, identity, schedule, role and secret ARNs), and
//! is checked against that function's statements in template.yaml (`iam/policy.rs`, with its
//! own allow and deny cases in `iam/policy_cases.rs`).
//!
//! The test fails on any call a role does not allow (naming the function, the call and the grant
//! it needs), on any grant no recorded call used unless `KEPT` below explains it, on any
//! attribute a `dynamodb:Attributes` list names that no call reads or writes, and on any policy
//! form the reader cannot evaluate (`iam/policy.rs`). SAM's managed policies count as statements
//! of the roles SAM makes (`iam/managed.rs`). What each function called is written to
//! `target/test-artifacts/iam-calls.md`.
//!
//! The same recorded calls are then checked against mutated copies of template.yaml (a needed
//! grant deleted, an attribute list widened, a `NotAction` added): each must fail, by name.
//!
//! Run: `cargo test -p devstack --test it iam::` (`IAM_TEMPLATE=<file>` checks another template).

use crate::common;

mod access;
mod managed;
mod mutations;
pub(crate) mod policy;
mod policy_cases;
mod runs;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use access::{ATTRIBUTES, Access, LEADING_KEYS, accesses, queue_arn, table_arn};
use devstack::proxy::Call;
use policy::{Grant, Names, Statement, allows, grants, read_roles, used_by};
use serde_yaml::Value;

/// Grants no function's code calls, and why each stays: (function, statement Sid, action, why).
/// A grant the runs do not use and that is not here fails the test: remove it from
/// template.yaml, or add a run that uses it, or explain it here.
const KEPT: &[(&str, &str, &str, &str)] = &[
    (
        "*",
        "OwnLogGroup",
        "logs:*",
        "the Lambda runtime writes the function's logs",
    ),
    (
        "*",
        "Tracing",
        "xray:*",
        "the Lambda runtime sends the X-Ray segments (Tracing: Active)",
    ),
    (
        "*",
        "TableStream",
        "dynamodb:*",
        "the event source mapping reads the table's stream with the function's role",
    ),
    (
        "*",
        "ListStreams",
        "dynamodb:ListStreams",
        "the event source mapping finds the stream with the function's role",
    ),
    (
        "*",
        "OnFailureDestination",
        "sqs:SendMessage",
        "the stream mapping sends a failed batch's description to its on-failure queue",
    ),
    (
        "*",
        "RetryQueue",
        "sqs:GetQueueAttributes",
        "the SQS event source mapping reads its queue's attributes",
    ),
    (
        "*",
        "WebhookQueue",
        "sqs:GetQueueAttributes",
        "the SQS event source mapping reads its queue's attributes",
    ),
    (
        "analyze-document",
        "DocumentQueue",
        "sqs:GetQueueAttributes",
        "the SQS event source mapping reads its queue's attributes",
    ),
    (
        "*",
        "MessageClaims",
        "dynamodb:GetItem",
        "a refused claim's item is read only when the refusal did not bring it, and DynamoDB and \
         moto both bring it (ALL_OLD): the read is the claim's fallback, which no run reaches",
    ),
    (
        "send-reminders",
        "DeadLetters",
        "sqs:SendMessage",
        "Lambda sends an invocation that failed every retry to the function's DLQ",
    ),
    (
        "*",
        "AWSLambdaBasicExecutionRole",
        "logs:*",
        "SAM attaches it to the role it makes; the Lambda runtime writes the function's logs",
    ),
    (
        "*",
        "AWSXrayWriteOnlyAccess",
        "xray:*",
        "SAM attaches it with Tracing: Active; the Lambda runtime sends the X-Ray segments",
    ),
    (
        "*",
        "AWSLambdaSQSQueueExecutionRole",
        "*",
        "SAM attaches it for an SQS event; the event source mapping polls with the role",
    ),
    (
        "*",
        "AWSLambdaDynamoDBExecutionRole",
        "*",
        "SAM attaches it for a stream event; the event source mapping reads with the role",
    ),
];

/// Key attributes any item request names: a `dynamodb:Attributes` list must hold them, whether
/// or not a call's expression names them.
const KEY_ATTRIBUTES: [&str; 2] = ["PK", "SK"];

/// The local stack's names for what template.yaml's policies name.
struct LocalNames {
    rig_table: String,
    queues: BTreeMap<&'static str, String>,
    sender: String,
    group: String,
    scheduler_role: String,
    plaid_secret: String,
    argyle_secret: String,
    fingerprint_key_secret: String,
    origin_secret: String,
    documents_bucket: String,
    /// The local stack's prefix, which names its resources as the stack's name does on AWS.
    stack_name: String,
}

impl Names for LocalNames {
    fn resolve(&self, reference: &str) -> String {
        if let Some(value) = policy::pseudo(reference) {
            return value;
        }
        match reference {
            "Table.Arn" => table_arn(&self.rig_table),
            "Table.StreamArn" => format!("{}/stream/local", table_arn(&self.rig_table)),
            "SenderEmail" => self.sender.clone(),
            "ReminderScheduleGroup" => self.group.clone(),
            "ReminderSchedulerRole.Arn" => self.scheduler_role.clone(),
            "PlaidSecretArn" => self.plaid_secret.clone(),
            "ArgyleSecretArn" => self.argyle_secret.clone(),
            "FingerprintKeySecret" => self.fingerprint_key_secret.clone(),
            "EdgeOriginSecret" => self.origin_secret.clone(),
            "AWS::StackName" => self.stack_name.clone(),
            "DocumentBucket.Arn" => format!("arn:aws:s3:::{}", self.documents_bucket),
            "SendRemindersFunction.Arn" => devstack::LOCAL_REMINDER_FUNCTION_ARN.to_string(),
            other => {
                let (resource, attribute) = other.split_once('.').unwrap_or((other, ""));
                if let Some(name) = self.queues.get(resource) {
                    assert_eq!(attribute, "Arn", "{other}");
                    return queue_arn(name);
                }
                if resource.ends_with("LogGroup") && attribute == "Arn" {
                    return format!(
                        "arn:aws:logs:{}:{}:log-group:{resource}:*",
                        access::REGION,
                        access::ACCOUNT_ID
                    );
                }
                panic!(
                    "template.yaml's policies name {other}: give it a local name in tests/iam.rs"
                )
            }
        }
    }
}

fn kept(function: &str, grant: &Grant) -> Option<&'static str> {
    KEPT.iter()
        .find(|(f, sid, action, _)| {
            (*f == "*" || *f == function)
                && grant.statement.ends_with(&format!(" {sid}"))
                && policy::glob(action, &grant.action)
        })
        .map(|(_, _, _, why)| *why)
}

/// The grant a denied access needs, as template.yaml would write it.
fn needed(access: &Access) -> String {
    let resource = if access.resource.contains(":dynamodb:") {
        match access.resource.split_once("/index/") {
            Some((_, index)) => format!("!Sub \"${{Table.Arn}}/index/{index}\""),
            None => "!GetAtt Table.Arn".to_string(),
        }
    } else {
        access.resource.clone()
    };
    let mut out = format!("Action: {}, Resource: {resource}", access.action);
    let prefixes = access.leading_prefixes();
    if access.context.contains_key(LEADING_KEYS) && !prefixes.is_empty() {
        let keys: Vec<String> = prefixes.iter().map(|p| format!("\"{p}*\"")).collect();
        let _ = write!(out, ", dynamodb:LeadingKeys: [{}]", keys.join(", "));
    }
    // The request's other keys, but for what a read asks of DynamoDB (its Select and
    // attributes: a grant names those only to limit a read, as deliver-webhook's does).
    for (key, values) in &access.context {
        let read_attributes =
            key == access::ATTRIBUTES && access.context.contains_key(access::SELECT);
        if key != LEADING_KEYS && (!key.starts_with("dynamodb:") || read_attributes) {
            let _ = write!(out, ", {key}: {values:?}");
        }
    }
    out
}

/// The roles as docs/security.md tables them: each function's table actions by key prefix (with
/// an attribute limit where a grant has one), and the other services it may call.
fn role_table(roles: &BTreeMap<String, Vec<Statement>>) -> String {
    let mut out = String::from(
        "\n## The roles, as docs/security.md tables them\n\n| function | table items, by key prefix | other services |\n|---|---|---|\n",
    );
    for (function, statements) in roles {
        let mut table: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut services = BTreeSet::new();
        for s in statements.iter().filter(|s| s.allow) {
            let limited = s.conditions.iter().any(|c| c.key == access::ATTRIBUTES);
            for action in &s.actions {
                let (service, name) = action.split_once(':').unwrap_or(("", action));
                let on_stream = s
                    .resources
                    .iter()
                    .any(|r| r.contains("/stream/") || r == "*");
                match service {
                    "dynamodb" if !on_stream => {
                        let name = if limited {
                            format!("{name} (some attributes)")
                        } else {
                            name.to_string()
                        };
                        for prefix in s.leading_key_patterns() {
                            let prefix = prefix.trim_end_matches("#*").to_string();
                            table.entry(prefix).or_default().insert(name.clone());
                        }
                    }
                    "ses" | "sns" | "sqs" | "s3" | "scheduler" | "secretsmanager" => {
                        services.insert(match service {
                            "ses" => "SES",
                            "s3" => "S3",
                            "sns" => "SNS",
                            "sqs" => "SQS",
                            "scheduler" => "EventBridge Scheduler",
                            _ => "Secrets Manager",
                        });
                    }
                    _ => {}
                }
            }
        }
        let items: Vec<String> = table
            .iter()
            .map(|(prefix, actions)| {
                let actions: Vec<&str> = actions.iter().map(String::as_str).collect();
                format!("{prefix}: {}", actions.join(", "))
            })
            .collect();
        let services: Vec<&str> = services.into_iter().collect();
        let services = if services.is_empty() {
            "-".to_string()
        } else {
            services.join(", ")
        };
        let _ = writeln!(out, "| `{function}` | {} | {services} |", items.join("; "));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_aws_call_of_every_function_is_allowed_by_its_role_and_every_grant_is_used() {
    let mut rig = runs::rig().await;
    runs::success(&mut rig).await;
    runs::refusals(&mut rig).await;
    runs::held_claims(&mut rig).await;
    runs::households(&mut rig).await;
    runs::retries(&mut rig).await;
    runs::connections(&mut rig).await;
    runs::household_replay(&mut rig).await;
    runs::erasure(&mut rig).await;
    runs::documents(&mut rig).await;
    let calls = rig.proxies.take();
    let names = local_names(&rig);

    // IAM_TEMPLATE checks another copy (e.g. with a grant deleted, to see the test fail).
    let path = std::env::var("IAM_TEMPLATE").ok();
    let own = concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml");
    let template = read_template(path.as_deref().unwrap_or(own));
    let checked = check(&template, &names, &calls);
    let artifact = common::artifacts_dir().join("iam-calls.md");
    std::fs::write(&artifact, &checked.report).unwrap();
    assert!(
        checked.failures.is_empty(),
        "{}\n(all calls: {})",
        checked.failures.join("\n\n"),
        artifact.display()
    );
    if path.is_some() {
        return;
    }
    // The check fails on each mutated copy, naming what changed.
    for mutation in mutations::all(&template) {
        let copy = common::artifacts_dir().join(format!("iam-template-{}.yaml", mutation.name));
        std::fs::write(&copy, serde_yaml::to_string(&mutation.template).unwrap()).unwrap();
        let checked = check(&mutation.template, &names, &calls);
        let named = checked
            .failures
            .iter()
            .any(|f| mutation.expect.iter().all(|e| f.contains(e)));
        assert!(
            named,
            "{}: the check should fail naming {:?}; it gave {:#?} (IAM_TEMPLATE={} to see it)",
            mutation.name,
            mutation.expect,
            checked.failures,
            copy.display()
        );
    }
}

fn read_template(path: &str) -> Value {
    serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn local_names(rig: &runs::Rig) -> LocalNames {
    LocalNames {
        rig_table: rig.names.table.clone(),
        queues: BTreeMap::from([
            ("WebhookQueue", rig.names.webhook_queue.clone()),
            ("RetryQueue", rig.names.retry_queue.clone()),
            ("WebhookDeadLetterQueue", rig.names.webhook_dlq.clone()),
            ("RetryDeadLetterQueue", rig.names.retry_dlq.clone()),
            (
                "StreamFailureQueue",
                format!("{}-stream-failures", rig.names.table),
            ),
            ("DocumentQueue", rig.names.documents_queue.clone()),
            ("DocumentDeadLetterQueue", rig.names.documents_dlq.clone()),
            (
                "ReminderDeadLetterQueue",
                format!("{}-reminders-dlq", rig.names.table),
            ),
        ]),
        sender: rig.names.sender.clone(),
        group: rig.names.schedule_group.clone(),
        scheduler_role: rig.names.scheduler_role_arn.clone(),
        plaid_secret: rig.plaid_secret_arn.clone(),
        argyle_secret: rig.argyle_secret_arn.clone(),
        fingerprint_key_secret: rig.created.fingerprint_key_secret_arn.clone(),
        origin_secret: rig.origin_secret_arn.clone(),
        documents_bucket: rig.names.documents_bucket.clone(),
        stack_name: rig.names.table.trim_end_matches("-table").to_string(),
    }
}

/// What one check of a template found: the report, and every failure, each naming its cause.
struct Checked {
    report: String,
    failures: Vec<String>,
}

/// Checks every recorded call against its function's role in `template`, and every grant and
/// listed attribute against the calls.
fn check(template: &Value, names: &LocalNames, calls: &BTreeMap<String, Vec<Call>>) -> Checked {
    let read = read_roles(template, names);
    let roles = read.roles;
    let mut failures = Vec::new();
    if !read.unreadable.is_empty() {
        failures.push(format!(
            "{} policy form(s) the check cannot evaluate (it never skips one):\n{}",
            read.unreadable.len(),
            read.unreadable.join("\n")
        ));
    }

    let mut denied = BTreeSet::new();
    let mut used: BTreeMap<&str, BTreeSet<Grant>> = BTreeMap::new();
    let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    // Per function and statement with an attribute list, the attributes the calls it allowed named.
    let mut named: BTreeMap<(&str, String), BTreeSet<String>> = BTreeMap::new();
    for (function, calls) in calls {
        let Some(statements) = roles.get(function) else {
            failures.push(format!(
                "{function} made calls but has no role in template.yaml"
            ));
            continue;
        };
        for call in calls {
            for access in accesses(call) {
                let line = access.describe();
                seen.entry(function).or_default().insert(line.clone());
                if allows(statements, &access) {
                    used.entry(function)
                        .or_default()
                        .extend(used_by(statements, &access));
                    for s in statements.iter().filter(|s| s.allow && s.matches(&access)) {
                        if attribute_list(s).is_some() {
                            let attributes = access.context.get(ATTRIBUTES).cloned();
                            named
                                .entry((function.as_str(), s.label.clone()))
                                .or_default()
                                .extend(attributes.unwrap_or_default());
                        }
                    }
                } else {
                    denied.insert(format!(
                        "{function}: {line}\n    its role allows no such call; it needs {{{}}}",
                        needed(&access)
                    ));
                }
            }
        }
    }

    let mut unused = Vec::new();
    let mut widened = Vec::new();
    let mut report = String::from("# AWS calls per function (tests/iam.rs)\n");
    for (function, statements) in &roles {
        let _ = writeln!(report, "\n## {function}\n\nCalls:\n");
        for line in seen.get(function.as_str()).into_iter().flatten() {
            let _ = writeln!(report, "- {line}");
        }
        let _ = writeln!(report, "\nGrants not used by a call:\n");
        for grant in grants(statements) {
            if used
                .get(function.as_str())
                .is_some_and(|u| u.contains(&grant))
            {
                continue;
            }
            match kept(function, &grant) {
                Some(why) => {
                    let _ = writeln!(report, "- {grant}: kept, {why}");
                }
                None => unused.push(format!("{function}: {grant}")),
            }
        }
        for s in statements {
            let (Some(listed), Some(seen)) = (
                attribute_list(s),
                named.get(&(function.as_str(), s.label.clone())),
            ) else {
                continue;
            };
            let extra: Vec<&String> = (listed.iter())
                .filter(|a| !KEY_ATTRIBUTES.contains(&a.as_str()))
                .filter(|a| !seen.iter().any(|named| policy::glob(a, named)))
                .collect();
            if !extra.is_empty() {
                widened.push(format!("{function}: {}: {extra:?}", s.label));
            }
        }
    }
    report.push_str(&role_table(&roles));

    if !denied.is_empty() {
        failures.push(format!(
            "{} call(s) the role does not allow (moto enforces no IAM; AWS would answer AccessDenied):\n{}",
            denied.len(),
            denied.into_iter().collect::<Vec<_>>().join("\n"),
        ));
    }
    if !unused.is_empty() {
        failures.push(format!(
            "{} grant(s) no recorded call used; remove each from template.yaml, or explain it in KEPT (tests/iam.rs):\n{}",
            unused.len(),
            unused.join("\n"),
        ));
    }
    if !widened.is_empty() {
        failures.push(format!(
            "{} dynamodb:Attributes list(s) name attributes no recorded call reads or writes; remove them:\n{}",
            widened.len(),
            widened.join("\n"),
        ));
    }
    Checked { report, failures }
}

/// The attributes a statement's `dynamodb:Attributes` condition allows, if it has one.
fn attribute_list(s: &Statement) -> Option<&[String]> {
    (s.conditions.iter())
        .find(|c| c.key == ATTRIBUTES)
        .map(|c| c.values.as_slice())
}
