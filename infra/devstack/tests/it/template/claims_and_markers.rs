//! Claims and markers apart from the verification (issue 33, point 2). IAM tells a table's items
//! apart by their partition key only (`dynamodb:LeadingKeys`), so the claims (`CLAIM#`) and the
//! markers (`MARKER#`) have partitions of their own: a role that puts or deletes those may not put
//! or delete a verification, report included. The roles that still update a verification for a
//! mark (a message's link, the outbox's `failed`) are bounded to the attributes they write and
//! read nothing back. (moto enforces no IAM: only these checks and the IAM test see a grant that
//! reaches too far.)

use super::*;

/// The functions and roles that may put or delete a `VERIFICATION#` item, and why. No other may.
const WRITE_VERIFICATIONS: &[(&str, &str, &str)] = &[
    (
        "CreateVerificationFunction",
        "dynamodb:PutItem",
        "creates the verification, in one transaction with its expiry marker",
    ),
    (
        "CreateHouseholdFunction",
        "dynamodb:PutItem",
        "creates each member's verification, in one transaction with the household",
    ),
];

/// The roles that claim and mark messages and write the verification only for such marks.
const MARKING_ROLES: [&str; 3] = ["PublishEventsRole", "SendRemindersRole", "RetryEventsRole"];

/// Attributes no marking role may write on a verification: who owns it, where it reports, who
/// may open it, when it ends, and its erasure.
const NEVER_MARKED: [&str; 9] = [
    "account_id",
    "mode",
    "webhook_url",
    "tenant_email",
    "token_hashes",
    "recent_token_hashes",
    "expires_at",
    "erased_at",
    "GSI1PK",
];

/// The resources that carry table policies: SAM functions (`Policies`) and roles of their own.
fn policy_holders(t: &Value) -> Vec<String> {
    let resources = t["Resources"].as_mapping().unwrap();
    resources
        .iter()
        .filter(|(_, r)| {
            matches!(
                r["Type"].as_str(),
                Some("AWS::Serverless::Function" | "AWS::IAM::Role")
            ) && r["Properties"]["Policies"].is_sequence()
        })
        .map(|(name, _)| name.as_str().unwrap().to_string())
        .collect()
}

/// Every statement of a resource's policies (a SAM function's inline documents, or a role's).
fn statements(t: &Value, resource: &str) -> Vec<Value> {
    (t["Resources"][resource]["Properties"]["Policies"].as_sequence())
        .into_iter()
        .flatten()
        .flat_map(|p| {
            let document = match p["PolicyDocument"].is_null() {
                true => p,
                false => &p["PolicyDocument"],
            };
            document["Statement"]
                .as_sequence()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

/// Whether a `LeadingKeys` pattern (or `*`: no condition) admits the partition key `pk`.
fn admits(pattern: &str, pk: &str) -> bool {
    crate::iam::policy::glob(pattern, pk)
}

/// Only the creates may put a verification, and no role may delete one (an erasure is an update
/// of the verification, which keeps its status and times).
#[test]
fn only_the_creates_may_put_a_verification_and_none_may_delete_one() {
    use service::table_schema::keys;
    let t = template();
    let id = uuid::Uuid::nil();
    let verification = keys::verification(id).0;
    // The grants below name the partitions the keys are built in.
    assert!(admits(
        "CLAIM#*",
        &keys::message_claim(id, "invite_email").0
    ));
    assert!(admits("MARKER#*", &keys::expiry_marker(id).0));
    assert!(admits("MARKER#*", &keys::erasure_marker(id).0));
    let mut found = BTreeSet::new();
    for resource in policy_holders(&t) {
        for (action, target, prefix) in table_grants(&t, &resource) {
            let writes = matches!(action.as_str(), "dynamodb:PutItem" | "dynamodb:DeleteItem");
            if writes && target == "table" && admits(&prefix, &verification) {
                found.insert((resource.clone(), action));
            }
        }
    }
    let allowed: BTreeSet<(String, String)> = (WRITE_VERIFICATIONS.iter())
        .map(|(resource, action, _why)| (resource.to_string(), action.to_string()))
        .collect();
    assert_eq!(found, allowed, "puts and deletes of VERIFICATION# items");
    // The claims and markers are still written where they are meant to be.
    let grant = |action: &str, prefix: &str| {
        (
            format!("dynamodb:{action}"),
            "table".to_string(),
            prefix.to_string(),
        )
    };
    for role in MARKING_ROLES {
        let grants = table_grants(&t, role);
        for action in ["PutItem", "UpdateItem", "DeleteItem"] {
            assert!(
                grants.contains(&grant(action, "CLAIM#*")),
                "{role}: {action}"
            );
        }
    }
    let expiry = table_grants(&t, "ExpireVerificationsRole");
    assert!(
        expiry.contains(&grant("PutItem", "MARKER#*")),
        "arms the erasure"
    );
    assert!(
        expiry.contains(&grant("DeleteItem", "MARKER#*")),
        "erases its marker"
    );
    for create in ["CreateVerificationFunction", "CreateHouseholdFunction"] {
        let grants = table_grants(&t, create);
        assert!(
            grants.contains(&grant("PutItem", "MARKER#*")),
            "{create}: expiry marker"
        );
    }
}

/// Each UpdateItem statement of the marking roles that reaches a verification names the
/// attributes it may write (never the ownership, destination, links, expiry or erasure) and
/// reads nothing back beyond the updated attributes.
#[test]
fn the_marking_roles_update_a_verification_within_bounds() {
    let t = template();
    let verification = service::table_schema::keys::verification(uuid::Uuid::nil()).0;
    for role in MARKING_ROLES {
        let reaching: Vec<Value> = statements(&t, role)
            .into_iter()
            .filter(|s| {
                let actions = serde_yaml::to_string(&s["Action"]).unwrap();
                let keys = &s["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"];
                let prefixes = match keys.is_sequence() {
                    true => strings(keys),
                    false => vec!["*".to_string()],
                };
                (actions.contains("dynamodb:UpdateItem") || actions.contains("dynamodb:*"))
                    && prefixes.iter().any(|p| admits(p, &verification))
            })
            .collect();
        assert!(!reaching.is_empty(), "{role} binds a message's link");
        for s in reaching {
            let sid = s["Sid"].as_str().unwrap_or("?").to_string();
            let condition = &s["Condition"];
            let listed = ["ForAllValues:StringEquals", "ForAllValues:StringLike"]
                .iter()
                .find_map(|op| condition[*op]["dynamodb:Attributes"].as_sequence())
                .unwrap_or_else(|| panic!("{role} {sid}: no dynamodb:Attributes bound"));
            let listed: Vec<&str> = listed.iter().filter_map(Value::as_str).collect();
            for attribute in [schema::PK, schema::SK] {
                assert!(listed.contains(&attribute), "{role} {sid}: {attribute}");
            }
            for attribute in &listed {
                assert!(
                    !attribute.contains('*'),
                    "{role} {sid}: wildcard {attribute}"
                );
                assert!(
                    !NEVER_MARKED.contains(attribute),
                    "{role} {sid}: may write {attribute}"
                );
            }
            let returns = ["StringEquals", "StringEqualsIfExists"]
                .iter()
                .find_map(|op| {
                    let v = &condition[*op]["dynamodb:ReturnValues"];
                    match v {
                        Value::String(one) => Some(vec![one.clone()]),
                        Value::Sequence(_) => Some(strings(v)),
                        _ => None,
                    }
                })
                .unwrap_or_else(|| panic!("{role} {sid}: no dynamodb:ReturnValues bound"));
            for value in returns {
                assert!(
                    matches!(value.as_str(), "NONE" | "UPDATED_OLD" | "UPDATED_NEW"),
                    "{role} {sid}: returns {value}"
                );
            }
        }
    }
}

/// The expiry function's stream filter passes the markers' TTL deletions only: their own
/// partition and their sort keys, as the handler checks (`removed_marker`).
#[test]
fn the_expiry_filter_selects_the_markers_partition() {
    use devstack::pump::{pattern_matches, template_filters};
    use service::table_schema::keys;
    let id = uuid::Uuid::nil();
    let removal = |(pk, sk): (String, String)| {
        serde_json::json!({
            "eventName": "REMOVE",
            "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"},
            "dynamodb": {"Keys": {"PK": {"S": pk}, "SK": {"S": sk}}},
        })
    };
    let passes = |record: &serde_json::Value| {
        (template_filters("expire-verifications").iter()).any(|p| pattern_matches(p, record))
    };
    assert!(passes(&removal(keys::expiry_marker(id))));
    assert!(passes(&removal(keys::erasure_marker(id))));
    let (verification, _) = keys::verification(id);
    assert!(!passes(&removal((verification, schema::EXPIRY_SK.into()))));
    assert!(!passes(&removal(keys::message_claim(id, "invite_email"))));
    assert!(!passes(&removal(keys::verification(id))));
}
