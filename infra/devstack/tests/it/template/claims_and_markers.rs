//! Claims and markers apart from the verification (issue 33, point 2). IAM tells a table's items
//! apart by their partition key only (`dynamodb:LeadingKeys`), so the claims (`CLAIM#`) and the
//! markers (`MARKER#`) have partitions of their own: a role that puts or deletes those may not put
//! or delete a verification, report included. (moto enforces no IAM: only these checks and the
//! IAM test see a grant that reaches too far.)

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

/// The roles that claim and mark messages.
const MARKING_ROLES: [&str; 3] = ["PublishEventsRole", "SendRemindersRole", "RetryEventsRole"];

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
