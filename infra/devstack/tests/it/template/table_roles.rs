//! Role checks of the calls that reach the table: household cancel, message claims, list and reminder reads.

use super::*;

/// DELETE /households reads the account and its usage, then writes one transaction (the
/// request's count on the usage, the household's `cancelled_at`, the cancel of each member its
/// id names and the owner's counters) with the usage read beside it, and reads nothing else; its role allows exactly that. No other
/// function checks the household item for a cancel any more (no member is open once its
/// household is cancelled); the outbox checks it only to store `household.completed` while the
/// household is not erased. (moto does not enforce IAM:
/// only this test sees a missing grant before AWS does.)
#[test]
fn household_cancel_roles_match_the_calls() {
    use service::table_schema::keys;
    let t = template();
    let nil = uuid::Uuid::nil();
    let prefix_of = |pk: String| format!("{}*", &pk[..=pk.find('#').unwrap()]);
    let household = prefix_of(keys::household(nil).0);
    let account = prefix_of(keys::account("a").0);
    let usage = prefix_of(keys::usage("a").0);
    let verification = prefix_of(keys::verification(nil).0);
    let owner = prefix_of(keys::stats("a", domain::Mode::Test).0);
    assert_eq!(household, "HOUSEHOLD#*");
    let members_index = format!("index/{}", schema::GSI_HOUSEHOLD_MEMBERS);
    let grant = |action: &str, target: &str, prefix: &str| {
        (
            format!("dynamodb:{action}"),
            target.to_string(),
            prefix.to_string(),
        )
    };

    let expected: BTreeSet<_> = [
        // The account and its usage, read together before the transaction; the usage again
        // beside it.
        grant("BatchGetItem", "table", &account),
        grant("BatchGetItem", "table", &usage),
        grant("GetItem", "table", &usage),
        // The transaction: the count, the household's cancelled_at, the members and counters.
        grant("UpdateItem", "table", &usage),
        grant("UpdateItem", "table", &household),
        grant("UpdateItem", "table", &verification),
        grant("UpdateItem", "table", &owner),
    ]
    .into_iter()
    .collect();
    assert_eq!(table_grants(&t, "CancelHouseholdFunction"), expected);
    // GET /households reads the members on their index.
    assert!(table_grants(&t, "GetHouseholdFunction").contains(&grant(
        "Query",
        &members_index,
        &household
    )));

    for resource in [
        "TenantPortalFunction",
        "SendRemindersRole",
        "ResendVerificationFunction",
    ] {
        let grants = table_grants(&t, resource);
        assert!(
            !grants.contains(&grant("ConditionCheckItem", "table", &household)),
            "{resource}: no call checks the household item"
        );
    }
    // The tenant page reads no household.
    assert!(
        !table_grants(&t, "TenantPortalFunction").contains(&grant("GetItem", "table", &household))
    );
    // The outbox's decision: the household read, then the decision written once; its event
    // stored only while the household is not erased (a condition check in the put's transaction).
    for role in ["PublishEventsRole", "RetryEventsRole"] {
        let grants = table_grants(&t, role);
        for needed in [
            grant("GetItem", "table", &household),
            grant("UpdateItem", "table", &household),
            grant("ConditionCheckItem", "table", &household),
        ] {
            assert!(grants.contains(&needed), "{role}: {needed:?}");
        }
    }
}

/// Every message to the tenant is claimed the one way (`MessageClaimStore`): a transaction that
/// puts its claim item (`CLAIM#<id>` / `MSG#<message>`) and binds its link on the verification,
/// then the claim marked sent or rejected (UpdateItem) or released (DeleteItem), a refused
/// claim's item read when the refusal did not bring it. The three functions that send messages
/// may do exactly that on `CLAIM#`, and no API function may release a claim.
#[test]
fn message_claim_roles_match_the_calls() {
    use service::table_schema::keys;
    let t = template();
    let nil = uuid::Uuid::nil();
    let (pk, sk) = keys::message_claim(nil, "invite_email");
    assert_eq!(sk, "MSG#invite_email");
    let claims = format!("{}*", &pk[..=pk.find('#').unwrap()]);
    assert_eq!(claims, "CLAIM#*");
    let grant = |action: &str| {
        (
            format!("dynamodb:{action}"),
            "table".to_string(),
            claims.clone(),
        )
    };
    for role in ["PublishEventsRole", "RetryEventsRole", "SendRemindersRole"] {
        let grants = table_grants(&t, role);
        for action in ["GetItem", "PutItem", "UpdateItem", "DeleteItem"] {
            assert!(grants.contains(&grant(action)), "{role}: {action}");
        }
    }
    for resource in [
        "CreateVerificationFunction",
        "CancelHouseholdFunction",
        "TenantPortalFunction",
    ] {
        assert!(
            !table_grants(&t, resource).contains(&grant("DeleteItem")),
            "{resource} releases no claim"
        );
    }
}

/// Two calls the code makes that the roles did not allow (moto enforces no IAM, so only this
/// test sees them before AWS would answer AccessDenied):
/// - `GET /api/v1/verifications?household_id=` queries the household's members on GSI3;
/// - `send-reminders` reads the stored `verification.reminder_sent` event when another attempt
///   holds the reminder e-mail (`get_webhook_event`).
#[test]
fn list_and_reminder_roles_allow_their_household_and_event_reads() {
    use service::table_schema::keys;
    let t = template();
    let nil = uuid::Uuid::nil();
    let prefix_of = |pk: String| format!("{}*", &pk[..=pk.find('#').unwrap()]);
    let household = prefix_of(keys::household(nil).0);
    let event = prefix_of(keys::webhook_event("msg_x").0);
    let members_index = format!("index/{}", schema::GSI_HOUSEHOLD_MEMBERS);
    let grant = |action: &str, target: &str, prefix: &str| {
        (
            format!("dynamodb:{action}"),
            target.to_string(),
            prefix.to_string(),
        )
    };
    for (resource, needed) in [
        (
            "ListVerificationsFunction",
            grant("Query", &members_index, &household),
        ),
        ("SendRemindersRole", grant("GetItem", "table", &event)),
    ] {
        assert!(
            table_grants(&t, resource).contains(&needed),
            "{resource}: {needed:?}"
        );
    }
}
