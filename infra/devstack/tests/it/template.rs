//! template.yaml agrees with the schema defined in Rust, and with the functions in the workspace.

use std::collections::BTreeSet;
use std::path::Path;

use serde_yaml::Value;
use service::table_schema as schema;
mod account_writes;
mod claims_and_markers;
mod documents;
mod edge;
mod routes;
mod table_roles;
mod webhook_secrets;

fn template() -> Value {
    let raw =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../template.yaml"))
            .unwrap();
    serde_yaml::from_str(&raw).expect("template.yaml parses")
}

fn strings(v: &Value) -> Vec<String> {
    v.as_sequence()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn table_matches_the_rust_schema() {
    let t = template();
    let props = &t["Resources"]["Table"]["Properties"];
    let attrs: BTreeSet<(String, String)> = props["AttributeDefinitions"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["AttributeName"].as_str().unwrap().into(),
                a["AttributeType"].as_str().unwrap().into(),
            )
        })
        .collect();
    let expected: BTreeSet<(String, String)> = schema::KEY_ATTRIBUTES
        .iter()
        .map(|a| (a.to_string(), "S".to_string()))
        .collect();
    assert_eq!(attrs, expected);
    let key = |ks: &Value| -> Vec<(String, String)> {
        ks.as_sequence()
            .unwrap()
            .iter()
            .map(|k| {
                (
                    k["AttributeName"].as_str().unwrap().into(),
                    k["KeyType"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    assert_eq!(
        key(&props["KeySchema"]),
        vec![
            (schema::PK.into(), "HASH".into()),
            (schema::SK.into(), "RANGE".into())
        ]
    );
    let gsis = props["GlobalSecondaryIndexes"].as_sequence().unwrap();
    assert_eq!(gsis.len(), schema::GSIS.len());
    for (index, pk, sk) in schema::GSIS {
        let gsi = gsis
            .iter()
            .find(|g| g["IndexName"] == index)
            .unwrap_or_else(|| panic!("{index} declared"));
        assert_eq!(
            key(&gsi["KeySchema"]),
            vec![(pk.into(), "HASH".into()), (sk.into(), "RANGE".into())]
        );
        assert_eq!(gsi["Projection"]["ProjectionType"], "ALL");
    }
    assert_eq!(
        props["StreamSpecification"]["StreamViewType"],
        schema::STREAM_VIEW
    );
    assert_eq!(
        props["TimeToLiveSpecification"]["AttributeName"],
        schema::TTL_ATTRIBUTE
    );
    assert_eq!(props["TimeToLiveSpecification"]["Enabled"], true);
}

/// cfn-lint does not check FilterCriteria: run the template's own patterns over the sample events.
#[test]
fn stream_filters_pass_exactly_the_records_meant_for_each_function() {
    use devstack::pump::{pattern_matches, template_filters};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events");
    let record = |path: &str| -> serde_json::Value {
        let raw = std::fs::read_to_string(root.join(path)).unwrap();
        serde_json::from_str::<serde_json::Value>(&raw).unwrap()["Records"][0].clone()
    };
    let passes = |function: &str, path: &str| {
        template_filters(function)
            .iter()
            .any(|p| pattern_matches(p, &record(path)))
    };
    let outbox = template_filters("publish-events");
    let expiry = template_filters("expire-verifications");
    assert_eq!((outbox.len(), expiry.len()), (2, 1));
    // A redelivery request reaches the outbox; a stored event's own INSERT does not.
    assert!(passes(
        "publish-events",
        "publish-events/queued-webhook-redelivery.json"
    ));
    assert!(!passes(
        "publish-events",
        "publish-events/ignored-webhook-event-insert.json"
    ));
    assert!(passes(
        "publish-events",
        "publish-events/sent-email-on-insert.json"
    ));
    assert!(passes(
        "publish-events",
        "publish-events/queued-webhook-on-completion.json"
    ));
    assert!(!passes(
        "publish-events",
        "publish-events/ignored-marker-insert.json"
    ));
    assert!(!passes(
        "publish-events",
        "expire-verifications/expired-ttl-remove.json"
    ));
    assert!(passes(
        "expire-verifications",
        "expire-verifications/expired-ttl-remove.json"
    ));
    assert!(!passes(
        "expire-verifications",
        "expire-verifications/ignored-user-remove.json"
    ));
    assert!(!passes(
        "expire-verifications",
        "publish-events/sent-email-on-insert.json"
    ));
}

#[test]
fn local_queue_matches_the_template() {
    let t = template();
    let queue = &t["Resources"]["WebhookQueue"]["Properties"];
    assert_eq!(
        queue["RedrivePolicy"]["maxReceiveCount"].as_i64(),
        Some(devstack::stack::WEBHOOK_MAX_RECEIVES as i64)
    );
    // The back-off fits in the queue's retention, and spans about three days.
    let backoff: u64 = service::handlers::deliver_webhook::DEFAULT_BACKOFF
        .iter()
        .map(|d| *d as u64)
        .sum();
    assert!(backoff < queue["MessageRetentionPeriod"].as_u64().unwrap());
    assert!((2 * 86_400..4 * 86_400).contains(&backoff), "{backoff}");
    // Lambda advises a visibility timeout of six times the function's timeout.
    let timeout = t["Resources"]["DeliverWebhookFunction"]["Properties"]["Timeout"]
        .as_u64()
        .unwrap();
    assert!(queue["VisibilityTimeout"].as_u64().unwrap() >= 6 * timeout);
}

/// Failed outbox work stays retriable for the window (and the stream keeps a record it could not
/// hand off until it leaves the stream); test keys e-mail nobody in a deployed stack; SES faults of
/// the operator alarm.
#[test]
fn outbox_retries_outlast_a_day_and_test_mode_mails_nobody() {
    let t = template();
    let r = &t["Resources"];
    let stream = &r["PublishEventsFunction"]["Properties"]["Events"]["Stream"]["Properties"];
    assert_eq!(stream["MaximumRetryAttempts"].as_i64(), Some(-1));
    assert_eq!(stream["MaximumRecordAgeInSeconds"].as_i64(), Some(-1));

    let queue = &r["RetryQueue"]["Properties"];
    let retention = queue["MessageRetentionPeriod"].as_i64().unwrap();
    let window = service::handlers::retry_events::RETRY_WINDOW.num_seconds();
    assert!(retention >= 4 * 86_400 && retention > window + 43_200);
    let max_receives = queue["RedrivePolicy"]["maxReceiveCount"].as_i64().unwrap();
    assert_eq!(max_receives, devstack::stack::RETRY_MAX_RECEIVES as i64);
    // Receives within the window, on the consumer's back-off, stay below the DLQ's threshold.
    let (mut waited, mut receives) = (0i64, 1i64);
    let backoff = service::handlers::retry_events::DEFAULT_RETRY_BACKOFF;
    while waited < window {
        waited += backoff[(receives as usize - 1).min(backoff.len() - 1)] as i64;
        receives += 1;
    }
    assert!(window >= 24 * 3600);
    assert!(receives < max_receives, "{receives} receives in the window");
    let consumer = &r["RetryEventsFunction"]["Properties"];
    assert!(
        queue["VisibilityTimeout"].as_i64().unwrap() >= 6 * consumer["Timeout"].as_i64().unwrap()
    );
    // `!GetAtt`/`!Ref` are YAML tags: compared as written.
    let written = |v: &Value| serde_yaml::to_string(v).unwrap();
    assert!(
        written(&consumer["Events"]["Queue"]["Properties"]["Queue"]).contains("RetryQueue.Arn")
    );

    for function in ["PublishEventsFunction", "RetryEventsFunction"] {
        let vars = &r[function]["Properties"]["Environment"]["Variables"];
        assert_eq!(vars["TEST_MODE_DELIVERY"], "suppress", "{function}");
        assert!(!vars["RETRY_QUEUE_URL"].is_null(), "{function}");
        let filter = r
            .as_mapping()
            .unwrap()
            .values()
            .find(|res| {
                res["Type"] == "AWS::Logs::MetricFilter"
                    && res["Properties"]["FilterPattern"]
                        .as_str()
                        .is_some_and(|p| p.contains("ses_operator_error"))
                    && written(&res["Properties"]["LogGroupName"])
                        == written(&r[function]["Properties"]["LoggingConfig"]["LogGroup"])
            })
            .unwrap_or_else(|| panic!("{function}: SES operator errors are counted"));
        let metric = filter["Properties"]["MetricTransformations"][0]["MetricName"].clone();
        assert!(
            r.as_mapping().unwrap().values().any(|res| {
                res["Type"] == "AWS::CloudWatch::Alarm" && res["Properties"]["MetricName"] == metric
            }),
            "an alarm watches {metric:?}"
        );
    }
}

/// deliver-webhook (the one function calling addresses API users choose) may touch the table for
/// the stored events it sends and their delivery log, and nothing else: GetItem on WEBHOOK_EVENT#
/// items (the queue carries references only), PutItem on DELIVERIES#. Its secrets are in Secrets
/// Manager (`template::webhook_secrets`).
#[test]
fn deliver_webhook_reads_only_its_stored_events() {
    let t = template();
    let statements = t["Resources"]["DeliverWebhookRole"]["Properties"]["Policies"][0]
        ["PolicyDocument"]["Statement"]
        .as_sequence()
        .unwrap()
        .clone();
    let table_statements: Vec<&Value> = statements
        .iter()
        .filter(|s| format!("{:?}", s["Action"]).contains("dynamodb:"))
        .collect();
    assert_eq!(
        table_statements.len(),
        2,
        "two statements touch the table: the stored event's read and the delivery log's put"
    );
    // The stored event a queued reference names: GetItem under WEBHOOK_EVENT# only.
    let event = table_statements[0];
    assert_eq!(event["Action"], "dynamodb:GetItem");
    assert_eq!(
        strings(&event["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]),
        vec!["WEBHOOK_EVENT#*"]
    );
    assert!(
        service::table_schema::keys::webhook_event("msg_x")
            .0
            .starts_with("WEBHOOK_EVENT#")
    );
    // The delivery log: PutItem of new items under DELIVERIES# only, nothing read back.
    let log = table_statements[1];
    assert_eq!(log["Action"], "dynamodb:PutItem");
    assert_eq!(
        strings(&log["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]),
        vec!["DELIVERIES#*"]
    );
    assert_eq!(
        log["Condition"]["StringEqualsIfExists"]["dynamodb:ReturnValues"],
        "NONE"
    );
    // Both kinds of log (a verification's, a household's) fall under the one prefix.
    use domain::webhook_log::WebhookSubject;
    for subject in [
        WebhookSubject::Verification(uuid::Uuid::nil()),
        WebhookSubject::Household(uuid::Uuid::nil()),
    ] {
        assert!(service::table_schema::keys::deliveries(subject).starts_with("DELIVERIES#"));
    }
}

/// Slow receivers cannot take the account's concurrency: the SQS trigger has a maximum, set by a
/// parameter (Lambda accepts 2 to 1000).
#[test]
fn webhook_delivery_concurrency_is_bounded() {
    let t = template();
    let scaling = &t["Resources"]["DeliverWebhookFunction"]["Properties"]["Events"]["Queue"]["Properties"]
        ["ScalingConfig"]["MaximumConcurrency"];
    let Value::Tagged(reference) = scaling else {
        panic!("MaximumConcurrency is a !Ref: {scaling:?}")
    };
    assert_eq!(reference.tag, "!Ref");
    let name = reference.value.as_str().unwrap();
    let parameter = &t["Parameters"][name];
    assert_eq!(parameter["Default"].as_u64(), Some(10));
    assert!(parameter["MinValue"].as_u64().unwrap() >= 2);
    assert!(parameter["MaxValue"].as_u64().unwrap() <= 1000);
}

/// The reminders' least privilege: the schedules' role may invoke send-reminders and nothing
/// else; the outbox (publish-events, and retry-events redoing a failed piece) may create schedules
/// only in the reminder group and pass only that role (to the scheduler), send-reminders neither;
/// SMS go to phone numbers only (no topic); test keys text nobody. (moto enforces no IAM: only
/// this test sees a missing grant.)
#[test]
fn reminder_roles_are_least_privilege() {
    let t = template();
    let r = &t["Resources"];
    let written = |v: &Value| serde_yaml::to_string(v).unwrap();
    let statements = |role: &str| -> Vec<Value> {
        r[role]["Properties"]["Policies"]
            .as_sequence()
            .unwrap()
            .iter()
            .flat_map(|p| {
                p["PolicyDocument"]["Statement"]
                    .as_sequence()
                    .unwrap()
                    .clone()
            })
            .collect()
    };
    let scheduler = statements("ReminderSchedulerRole");
    assert_eq!(scheduler.len(), 1);
    assert_eq!(scheduler[0]["Action"], "lambda:InvokeFunction");
    assert!(written(&scheduler[0]["Resource"]).contains("SendRemindersFunction.Arn"));
    let trust =
        &r["ReminderSchedulerRole"]["Properties"]["AssumeRolePolicyDocument"]["Statement"][0];
    assert_eq!(trust["Principal"]["Service"], "scheduler.amazonaws.com");

    // The outbox creates the schedules: publish-events, and retry-events when that failed.
    for role in ["PublishEventsRole", "RetryEventsRole"] {
        let granted = statements(role);
        let with_action = |action: &str| -> Vec<&Value> {
            granted
                .iter()
                .filter(|s| written(&s["Action"]).contains(action))
                .collect()
        };
        let create = with_action("scheduler:");
        assert_eq!(create.len(), 1, "{role}");
        assert_eq!(create[0]["Action"], "scheduler:CreateSchedule", "{role}");
        assert!(
            written(&create[0]["Resource"]).contains("schedule/${ReminderScheduleGroup}/*"),
            "{role}"
        );
        let pass = with_action("iam:");
        assert_eq!(pass.len(), 1, "{role}");
        assert_eq!(pass[0]["Action"], "iam:PassRole", "{role}");
        assert!(
            written(&pass[0]["Resource"]).contains("ReminderSchedulerRole.Arn"),
            "{role}"
        );
        assert_eq!(
            pass[0]["Condition"]["StringEquals"]["iam:PassedToService"], "scheduler.amazonaws.com",
            "{role}"
        );
    }
    // send-reminders creates no schedule and passes no role.
    assert!(
        statements("SendRemindersRole")
            .iter()
            .all(|s| !written(&s["Action"]).contains("scheduler:")
                && !written(&s["Action"]).contains("iam:")),
        "SendRemindersRole"
    );
    for role in ["PublishEventsRole", "RetryEventsRole", "SendRemindersRole"] {
        let sms: Vec<Value> = statements(role)
            .into_iter()
            .filter(|s| s["Action"] == "sns:Publish")
            .collect();
        assert_eq!(sms.len(), 1, "{role}");
        assert!(sms[0]["Resource"].is_null(), "{role}: phone numbers only");
        assert!(
            written(&sms[0]["NotResource"]).contains(":sns:*:*:*"),
            "{role}"
        );
    }
    let vars = &r["SendRemindersFunction"]["Properties"]["Environment"]["Variables"];
    assert_eq!(vars["TEST_MODE_DELIVERY"], "suppress");
    for function in ["PublishEventsFunction", "RetryEventsFunction"] {
        let outbox_vars = &r[function]["Properties"]["Environment"]["Variables"];
        for name in [
            "REMINDER_SCHEDULE_GROUP",
            "REMINDER_FUNCTION_ARN",
            "REMINDER_SCHEDULER_ROLE_ARN",
        ] {
            assert!(!outbox_vars[name].is_null(), "{function}: {name}");
        }
    }
    assert_eq!(
        r["ReminderScheduleGroup"]["Type"],
        "AWS::Scheduler::ScheduleGroup"
    );
}

/// The tenant-facing functions (the internet-facing tenant page, and the three that write to
/// tenants) read the landlord's display name and nothing else of the account: every grant of
/// theirs on `ACCOUNT#` is a GetItem limited to the key and `name` attributes, the one attribute
/// `get_account_name` projects, beside the tenant page's `default_methods` (read at consent) and
/// the senders' `plan`.
#[test]
fn tenant_facing_roles_read_only_the_account_name() {
    let t = template();
    let account = service::table_schema::keys::account("acct_x").0;
    for resource in [
        "TenantPortalFunction",
        "PublishEventsRole",
        "SendRemindersRole",
        "RetryEventsRole",
    ] {
        let props = &t["Resources"][resource]["Properties"];
        let statements: Vec<Value> = props["Policies"]
            .as_sequence()
            .unwrap()
            .iter()
            .flat_map(|p| {
                let document = if p["PolicyDocument"].is_null() {
                    p
                } else {
                    &p["PolicyDocument"]
                };
                document["Statement"].as_sequence().unwrap().clone()
            })
            .collect();
        let reaching: Vec<&Value> = statements
            .iter()
            .filter(|st| {
                let keys = &st["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"];
                format!("{:?}", st["Action"]).contains("dynamodb:")
                    && keys.is_sequence()
                    && serde_yaml::to_string(&st["Resource"])
                        .unwrap()
                        .contains("Table.Arn")
                    && strings(keys)
                        .iter()
                        .any(|k| account.starts_with(k.trim_end_matches('*')))
            })
            .collect();
        assert!(!reaching.is_empty(), "{resource} reads the name");
        // The tenant page reads the name, and at consent the default methods; the senders of
        // SMS the name and the plan (its allowance).
        let mut readable = vec![
            schema::PK.to_string(),
            schema::SK.to_string(),
            service::table_schema::ACCOUNT_NAME_ATTRIBUTE.to_string(),
        ];
        readable.push(if resource == "TenantPortalFunction" {
            service::table_schema::ACCOUNT_DEFAULT_METHODS_ATTRIBUTE.to_string()
        } else {
            service::table_schema::ACCOUNT_PLAN_ATTRIBUTE.to_string()
        });
        for st in reaching {
            if st["Sid"] == "SmsAllowance" {
                // The month's SMS count and no other attribute.
                assert_eq!(st["Action"], "dynamodb:UpdateItem", "{resource}");
                assert_eq!(
                    strings(&st["Condition"]["ForAllValues:StringLike"]["dynamodb:Attributes"]),
                    vec!["PK", "SK", "sms_sent_*"],
                    "{resource}"
                );
                continue;
            }
            if st["Action"] == "dynamodb:UpdateItem" {
                continue; // retry-events' refund of a verification's count, never a read
            }
            assert_eq!(st["Action"], "dynamodb:GetItem", "{resource}");
            assert_eq!(
                strings(&st["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"]),
                readable,
                "{resource}"
            );
        }
    }
}

/// The table grants of a function (its SAM `Policies`) or of a role of its own (`Policies[].
/// PolicyDocument`), as (action, resource, LeadingKeys prefix) triples; the resource is `table`
/// or `index/<name>`.
fn table_grants(t: &Value, resource: &str) -> BTreeSet<(String, String, String)> {
    let props = &t["Resources"][resource]["Properties"];
    let statements: Vec<Value> = props["Policies"]
        .as_sequence()
        .unwrap_or_else(|| panic!("{resource} has policies"))
        .iter()
        .flat_map(|p| {
            let document = if p["PolicyDocument"].is_null() {
                p
            } else {
                &p["PolicyDocument"]
            };
            document["Statement"].as_sequence().unwrap().clone()
        })
        .collect();
    let mut grants = BTreeSet::new();
    for s in statements {
        let actions = match &s["Action"] {
            Value::String(a) => vec![a.clone()],
            list => strings(list),
        };
        let written = serde_yaml::to_string(&s["Resource"]).unwrap();
        if !written.contains("Table.Arn") {
            continue;
        }
        let target = match written.split_once("/index/") {
            Some((_, index)) => format!("index/{}", index.trim().trim_matches('"')),
            None if written.contains("/stream/") => "stream".to_string(),
            None => "table".to_string(),
        };
        // No LeadingKeys condition: any key ("*").
        let prefixes = match &s["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"] {
            Value::Null => vec!["*".to_string()],
            keys => strings(keys),
        };
        for action in actions.iter().filter(|a| a.starts_with("dynamodb:")) {
            for prefix in &prefixes {
                grants.insert((action.clone(), target.clone(), prefix.clone()));
            }
        }
    }
    grants
}

/// The counts the docs state are true: every "N functions" (or "N Lambda functions") is the
/// route table's number of functions, and every "N endpoints" (or "N API endpoints") its number
/// of `/api/v1` routes. Counts are written in digits (CONTRIBUTING.md), so a stale one fails here.
#[test]
fn the_docs_state_the_true_function_and_endpoint_counts() {
    use service::routes::Function;
    let functions = Function::ALL.len();
    let endpoints = Function::ALL
        .iter()
        .flat_map(|f| f.routes())
        .filter(|r| r.path.starts_with("/api/v1/"))
        .count();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    let mut stated = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let words: Vec<String> = text
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_ascii_lowercase()
            })
            .collect();
        for (i, word) in words.iter().enumerate() {
            let Ok(n) = word.parse::<usize>() else {
                continue;
            };
            let next = |k: usize| words.get(i + k).map(String::as_str);
            let noun = match (next(1), next(2)) {
                (Some("lambda"), Some(noun)) | (Some("api"), Some(noun)) => noun,
                (Some(noun), _) => noun,
                _ => continue,
            };
            let expected = match noun {
                "functions" => functions,
                "endpoints" => endpoints,
                _ => continue,
            };
            stated += 1;
            assert_eq!(
                n,
                expected,
                "{}: \"{n} {noun}\" (the route table has {expected})",
                file.display()
            );
        }
    }
    assert!(stated > 0, "the docs state the counts somewhere");
}
