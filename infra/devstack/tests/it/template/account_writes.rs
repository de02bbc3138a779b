//! No API or event function can write an account's keys or plan (issue 33, point 2): the account
//! item (`ACCOUNT#`) and the API-key items (`APIKEY#`) take no write from any role of the stack,
//! only the operator's tool writes them; the counters live on the usage item (`USAGE#`), and
//! every role's update of it is bounded to the counters (`dynamodb:Attributes`) and to reading
//! back at most the counts it moved (`dynamodb:ReturnValues`).

use serde_yaml::Value;
use service::table_schema::keys;

use super::*;

/// Every write action a table grant could carry.
const WRITES: [&str; 5] = [
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:PartiQLUpdate",
];

/// The attributes a usage update may name: the keys and the counters (docs/architecture.md,
/// "Stored items").
const USAGE_ATTRIBUTES: [&str; 7] = [
    "PK",
    "SK",
    "api_requests_*",
    "api_burst_*",
    "api_last_metered_create",
    "live_created_*",
    "sms_sent_*",
];

/// Each resource with policies (functions and roles) and its statements on the table.
fn table_statements(t: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (name, resource) in t["Resources"].as_mapping().unwrap() {
        let name = name.as_str().unwrap().to_string();
        let Some(policies) = resource["Properties"]["Policies"].as_sequence() else {
            continue;
        };
        for policy in policies {
            let document = if policy["PolicyDocument"].is_null() {
                policy
            } else {
                &policy["PolicyDocument"]
            };
            for s in document["Statement"].as_sequence().into_iter().flatten() {
                if serde_yaml::to_string(&s["Resource"])
                    .unwrap()
                    .contains("Table.Arn")
                {
                    out.push((name.clone(), s.clone()));
                }
            }
        }
    }
    out
}

fn actions(s: &Value) -> Vec<String> {
    match &s["Action"] {
        Value::String(a) => vec![a.clone()],
        list => strings(list),
    }
}

fn writes(s: &Value) -> bool {
    actions(s)
        .iter()
        .any(|a| WRITES.contains(&a.as_str()) || a == "dynamodb:*")
}

fn leading_keys(s: &Value) -> Vec<String> {
    match &s["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"] {
        Value::Null => vec!["*".to_string()],
        keys => strings(keys),
    }
}

#[test]
fn no_role_writes_an_account_or_an_api_key() {
    let t = template();
    let statements = table_statements(&t);
    assert!(
        statements.len() > 30,
        "the roles' table statements are read"
    );
    let account = keys::account("a").0;
    let api_key = keys::api_key("h").0;
    for (role, s) in statements.iter().filter(|(_, s)| writes(s)) {
        for prefix in leading_keys(s) {
            let reaches = |key: &str| iam_glob(&prefix, key);
            assert!(
                !reaches(&account) && !reaches(&api_key),
                "{role} may write {prefix}, which reaches an account or an API key: {s:?}"
            );
        }
    }
}

#[test]
fn every_usage_update_is_bounded_to_the_counters_and_reads_back_no_more() {
    let t = template();
    let usage = keys::usage("a").0;
    let mut bounded = BTreeSet::new();
    for (role, s) in table_statements(&t) {
        let reaches_usage = leading_keys(&s).iter().any(|p| iam_glob(p, &usage));
        if !reaches_usage || !writes(&s) {
            continue;
        }
        assert_eq!(
            actions(&s),
            ["dynamodb:UpdateItem"],
            "{role}: only UpdateItem on the usage item"
        );
        assert_eq!(
            leading_keys(&s),
            ["USAGE#*"],
            "{role}: the usage grant is its own statement"
        );
        let listed = &s["Condition"]["ForAllValues:StringLike"]["dynamodb:Attributes"];
        assert!(listed.is_sequence(), "{role}: an attribute bound");
        for attribute in strings(listed) {
            assert!(
                USAGE_ATTRIBUTES.contains(&attribute.as_str()),
                "{role}: {attribute} is not a usage counter"
            );
        }
        let returns = &s["Condition"]["StringEqualsIfExists"]["dynamodb:ReturnValues"];
        let returns = match returns {
            Value::String(one) => vec![one.clone()],
            Value::Sequence(_) => strings(returns),
            _ => panic!("{role}: a ReturnValues bound"),
        };
        for value in &returns {
            assert!(
                ["NONE", "UPDATED_NEW"].contains(&value.as_str()),
                "{role}: reads back {value}"
            );
        }
        bounded.insert(role);
    }
    // Every API function counts its requests; the event functions move the month's counts.
    let counting = [
        "CreateVerificationFunction",
        "GetVerificationFunction",
        "GetUsageFunction",
        "CancelHouseholdFunction",
        "PublishEventsRole",
        "SendRemindersRole",
        "RetryEventsRole",
    ];
    for role in counting {
        assert!(bounded.contains(role), "{role} has a bounded usage grant");
    }
}

/// IAM's `StringLike` on one value, as the IAM test's evaluator matches it.
fn iam_glob(pattern: &str, value: &str) -> bool {
    crate::iam::policy::glob(pattern, value)
}
