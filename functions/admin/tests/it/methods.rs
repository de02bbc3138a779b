//! `set-default-methods`: an account's default verification methods, on the account item.

use adapters::dynamo::DynamoStore;
use admin::{Command, run};
use chrono::Utc;
use devstack::moto::Moto;
use domain::income::VerificationMethod;
use domain::plans::Plans;
use ports::store::prelude::*;

use crate::line;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_keeps_its_default_methods_in_order() {
    let moto = Moto::start().unwrap();
    let sdk = moto.sdk_config().await;
    let names = devstack::stack::Resources::named("admin-methods");
    devstack::stack::bootstrap(&sdk, &names).await.unwrap();
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(&sdk), names.table.clone());
    let plans = Plans::defaults();
    let go = |c: Command| run(&store, admin::NO_SECRETS, &plans, c, Utc::now());
    go(Command::CreateAccount {
        name: "Acme Lettings".into(),
        plan: "pro".into(),
        id: Some("acct_methods".into()),
    })
    .await
    .unwrap();
    let show = || {
        go(Command::ShowAccount {
            account: "acct_methods".into(),
        })
    };
    assert_eq!(line(&show().await.unwrap(), "default methods "), "all");

    let set = |methods: &str| {
        go(Command::SetDefaultMethods {
            account: "acct_methods".into(),
            methods: methods.into(),
        })
    };
    let out = set("payroll, bank").await.unwrap();
    assert_eq!(out, "account acct_methods: default methods payroll, bank");
    assert_eq!(
        store.get_default_methods("acct_methods").await.unwrap(),
        vec![VerificationMethod::Payroll, VerificationMethod::Bank]
    );
    assert_eq!(
        line(&show().await.unwrap(), "default methods "),
        "payroll, bank"
    );
    // The account itself still reads as before: the attribute sits beside its fields.
    let account = store.get_account("acct_methods").await.unwrap().unwrap();
    assert_eq!(account.name, "Acme Lettings");

    // Any method is accepted: the tenant page skips one its stack lacks (a default spans keys).
    let out = set("document,payroll").await.unwrap();
    assert_eq!(
        out,
        "account acct_methods: default methods document, payroll"
    );
    set("payroll,bank").await.unwrap();

    let refused = set("bank,crypto").await.unwrap_err();
    assert!(refused.contains("crypto"), "{refused}");
    assert_eq!(
        store
            .get_default_methods("acct_methods")
            .await
            .unwrap()
            .len(),
        2,
        "a refused set writes nothing"
    );
    assert!(
        go(Command::SetDefaultMethods {
            account: "acct_nobody".into(),
            methods: "bank".into(),
        })
        .await
        .is_err()
    );

    set("all").await.unwrap();
    assert!(
        store
            .get_default_methods("acct_methods")
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(line(&show().await.unwrap(), "default methods "), "all");
}
