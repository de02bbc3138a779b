//! The admin commands: against DynamoDB in moto, and the offline income report.

mod income_report;
mod methods;
mod retention;

use adapters::dynamo::DynamoStore;
use admin::{Command, KeyMode, run};
use chrono::Utc;
use devstack::moto::Moto;
use domain::plans::Plans;
use domain::secrets::parse_api_key;
use ports::store::prelude::*;

fn line<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("'{prefix}' in {out}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_keys_plans_subscriptions_and_secrets() {
    let moto = Moto::start().unwrap();
    let sdk = moto.sdk_config().await;
    let names = devstack::stack::Resources::named("admin");
    let created = devstack::stack::bootstrap(&sdk, &names).await.unwrap();
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), names.table.clone());
    let secrets = devstack::stack::webhook_secrets::writer(&sdk, &names, &created);
    let plans = Plans::defaults();
    let now = Utc::now();
    let go = |c: Command| run(&store, Some(&secrets), &plans, c, now);

    assert!(
        go(Command::CreateAccount {
            name: "X".into(),
            plan: "gold".into(),
            id: None
        })
        .await
        .is_err()
    );
    let out = go(Command::CreateAccount {
        name: "Acme Lettings".into(),
        plan: "pro".into(),
        id: Some("acct_acme".into()),
    })
    .await
    .unwrap();
    assert_eq!(out, "created account acct_acme");
    assert!(
        go(Command::CreateAccount {
            name: "Dup".into(),
            plan: "pro".into(),
            id: Some("acct_acme".into())
        })
        .await
        .is_err()
    );

    // Every key names its account: an id a key cannot name is refused, and nothing is written.
    for bad in ["acct with spaces", "acct/x", "", "acct_é", &"a".repeat(65)] {
        let refused = go(Command::CreateAccount {
            name: "Bad".into(),
            plan: "pro".into(),
            id: Some(bad.to_string()),
        })
        .await;
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.starts_with("invalid account id")),
            "{bad:?}: {refused:?}"
        );
        if !bad.is_empty() {
            assert!(store.get_account(bad).await.unwrap().is_none(), "{bad:?}");
        }
    }
    let longest = "a-Z_9".repeat(12) + "abcd";
    let out = go(Command::CreateAccount {
        name: "Longest".into(),
        plan: "pro".into(),
        id: Some(longest.clone()),
    })
    .await
    .unwrap();
    assert_eq!(out, format!("created account {longest}"));

    let out = go(Command::IssueKey {
        account: "acct_acme".into(),
        mode: KeyMode::Live,
    })
    .await
    .unwrap();
    let secret = line(&out, "api key ");
    let key_id = line(&out, "key id ");
    let parsed = parse_api_key(secret).expect("a well-formed key");
    let listed = store.list_api_keys("acct_acme").await.unwrap();
    let stored = (listed.iter())
        .find(|k| k.key_hash == parsed.hash)
        .expect("stored under its hash");
    assert_eq!(stored.key_id, key_id);
    assert_eq!(stored.account_id, "acct_acme");
    // The key names its account, and the account lists its hash: the metering write alone
    // authenticates it.
    assert_eq!(parsed.account_id, "acct_acme");
    let account = store.get_account("acct_acme").await.unwrap().unwrap();
    assert_eq!(
        account.api_keys.get(&parsed.hash),
        Some(&domain::Mode::Live)
    );
    go(Command::IssueKey {
        account: "acct_acme".into(),
        mode: KeyMode::Test,
    })
    .await
    .unwrap();
    assert!(
        go(Command::IssueKey {
            account: "acct_nobody".into(),
            mode: KeyMode::Test
        })
        .await
        .is_err()
    );

    let listed = go(Command::ListKeys {
        account: "acct_acme".into(),
    })
    .await
    .unwrap();
    assert_eq!(listed.lines().count(), 2);
    assert!(!listed.contains(secret), "listing never shows a key");
    assert!(listed.contains(key_id));

    go(Command::RevokeKey {
        account: "acct_acme".into(),
        key_id: key_id.into(),
    })
    .await
    .unwrap();
    let listed = go(Command::ListKeys {
        account: "acct_acme".into(),
    })
    .await
    .unwrap();
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with(key_id) && l.contains("revoked"))
    );
    let account = store.get_account("acct_acme").await.unwrap().unwrap();
    assert_eq!(account.revoked_keys, vec![key_id.to_string()]);
    assert!(
        go(Command::RevokeKey {
            account: "acct_acme".into(),
            key_id: "key_nope".into()
        })
        .await
        .is_err()
    );

    go(Command::SetPlan {
        account: "acct_acme".into(),
        plan: "business".into(),
    })
    .await
    .unwrap();
    assert!(
        go(Command::SetPlan {
            account: "acct_acme".into(),
            plan: "gold".into()
        })
        .await
        .is_err()
    );
    go(Command::SetSubscription {
        account: "acct_acme".into(),
        status: "past_due".into(),
        period_end: "2027-01-31T00:00:00Z".into(),
    })
    .await
    .unwrap();
    assert!(
        go(Command::SetSubscription {
            account: "acct_acme".into(),
            status: "paused".into(),
            period_end: "2027-01-31T00:00:00Z".into()
        })
        .await
        .is_err()
    );
    let shown = go(Command::ShowAccount {
        account: "acct_acme".into(),
    })
    .await
    .unwrap();
    assert!(shown.contains("plan business"));
    assert!(shown.contains("subscription past_due until 2027-01-31T00:00:00.000Z"));

    let first = go(Command::RotateWebhookSecret {
        account: "acct_acme".into(),
        overlap_hours: 24,
    })
    .await
    .unwrap();
    let first_secret = line(&first, "webhook secret ").to_string();
    assert!(first_secret.starts_with("whsec_"));
    let second = go(Command::RotateWebhookSecret {
        account: "acct_acme".into(),
        overlap_hours: 24,
    })
    .await
    .unwrap();
    let second_secret = line(&second, "webhook secret ").to_string();
    // Kept in Secrets Manager under the stack's own key, and nowhere in the table.
    let described = aws_sdk_secretsmanager::Client::new(&sdk)
        .describe_secret()
        .secret_id(secrets.name("acct_acme"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        described.kms_key_id(),
        Some(created.webhook_secrets_key_arn.as_str())
    );
    let items = aws_sdk_dynamodb::Client::new(&sdk)
        .scan()
        .table_name(&names.table)
        .send()
        .await
        .unwrap();
    let table = format!("{:?}", items.items());
    assert!(!table.contains(&first_secret) && !table.contains(&second_secret));
    let secrets = secrets.get_webhook_secrets("acct_acme").await.unwrap();
    assert_eq!(
        secrets.signing(now),
        vec![second_secret.as_str(), first_secret.as_str()]
    );
    assert_eq!(
        secrets.signing(now + chrono::Duration::hours(25)),
        vec![second_secret.as_str()]
    );
}
