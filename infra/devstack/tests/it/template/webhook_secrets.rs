//! The webhook signing secrets live in Secrets Manager under one prefix, encrypted under a
//! customer-managed key: of every role, only deliver-webhook may read them, and the key's policy
//! lets only deliver-webhook (through Secrets Manager) and the operator use it. moto ignores key
//! policies, so only these tests see a wider grant before AWS does.

use super::*;

const PREFIX: &str = "${AWS::StackName}/webhook-secrets/";

fn written(v: &Value) -> String {
    serde_yaml::to_string(v).unwrap()
}

/// A string or a list of strings, as a statement's Action may be written.
fn actions(v: &Value) -> Vec<String> {
    match v.as_str() {
        Some(one) => vec![one.to_string()],
        None => strings(v),
    }
}

/// IAM's match of an action pattern a policy writes (`kms:Get*`): the evaluator's wildcard
/// match, case-insensitive as action names are.
fn matches(pattern: &str, action: &str) -> bool {
    crate::iam::policy::glob(&pattern.to_ascii_lowercase(), &action.to_ascii_lowercase())
}

/// Every statement of every identity policy in the template, with the role it belongs to: the
/// roles' inline policies, the functions' own, and the separate `AWS::IAM::Policy` resources.
fn identity_statements(t: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (name, resource) in t["Resources"].as_mapping().unwrap() {
        let name = name.as_str().unwrap().to_string();
        let props = &resource["Properties"];
        let documents: Vec<(String, &Value)> = match resource["Type"].as_str() {
            Some("AWS::IAM::Role" | "AWS::Serverless::Function") => props["Policies"]
                .as_sequence()
                .into_iter()
                .flatten()
                .map(|p| (name.clone(), &p["PolicyDocument"]))
                .collect(),
            Some("AWS::IAM::Policy" | "AWS::IAM::ManagedPolicy") => {
                vec![(written(&props["Roles"]), &props["PolicyDocument"])]
            }
            _ => Vec::new(),
        };
        for (owner, document) in documents {
            for statement in document["Statement"].as_sequence().into_iter().flatten() {
                out.push((owner.clone(), statement.clone()));
            }
        }
    }
    out
}

#[test]
fn only_deliver_webhook_reads_the_webhook_secrets_and_no_role_uses_their_key() {
    let t = template();
    let mut reading = Vec::new();
    for (owner, statement) in identity_statements(&t) {
        let resource = written(&statement["Resource"]);
        for action in actions(&statement["Action"]) {
            // A grant that reaches the secrets: on their prefix, or on every secret.
            let reaches_secrets = resource.contains("webhook-secrets/")
                || (resource.contains('*') && !resource.contains(":secret:"));
            if matches(&action, "secretsmanager:GetSecretValue") && reaches_secrets {
                reading.push(format!("{owner}: {action}"));
            }
            // No identity policy names the key: its policy alone decides who uses it.
            for kms in [
                "kms:Decrypt",
                "kms:Encrypt",
                "kms:GenerateDataKey",
                "kms:CreateGrant",
            ] {
                assert!(!matches(&action, kms), "{owner} is granted {action}");
            }
            if matches(&action, "secretsmanager:PutSecretValue")
                || matches(&action, "secretsmanager:CreateSecret")
            {
                panic!("{owner} may write secrets: only the operator does");
            }
        }
    }
    assert_eq!(
        reading,
        vec!["DeliverWebhookRole: secretsmanager:GetSecretValue".to_string()]
    );
    // Its grant is the prefix's secrets only, the prefix deliver-webhook reads and the admin tool
    // is given (an output).
    let grant = identity_statements(&t)
        .into_iter()
        .find(|(owner, s)| owner == "DeliverWebhookRole" && s["Sid"] == "WebhookSecrets")
        .map(|(_, s)| s)
        .expect("deliver-webhook's grant");
    assert_eq!(grant["Action"], "secretsmanager:GetSecretValue");
    assert!(
        written(&grant["Resource"]).contains(&format!(":secret:{PREFIX}*")),
        "{}",
        written(&grant["Resource"])
    );
    let variables =
        &t["Resources"]["DeliverWebhookFunction"]["Properties"]["Environment"]["Variables"];
    assert!(written(&variables["WEBHOOK_SECRETS_PREFIX"]).contains(PREFIX));
    assert!(written(&t["Outputs"]["WebhookSecretsPrefix"]["Value"]).contains(PREFIX));
    assert!(
        written(&t["Outputs"]["WebhookSecretsKeyArn"]["Value"]).contains("WebhookSecretsKey.Arn")
    );
    // No table grant reaches a partition of secrets any more: there is none.
    assert!(!written(&t).contains("SIGNING_SECRETS"));
}

#[test]
fn the_webhook_secrets_key_lets_only_deliver_webhook_decrypt_at_run_time() {
    let t = template();
    let key = &t["Resources"]["WebhookSecretsKey"];
    assert_eq!(key["Type"], "AWS::KMS::Key");
    assert_eq!(key["Properties"]["EnableKeyRotation"], true);
    let statements = key["Properties"]["KeyPolicy"]["Statement"]
        .as_sequence()
        .unwrap();
    let use_of_key = [
        "kms:Decrypt",
        "kms:Encrypt",
        "kms:GenerateDataKey",
        "kms:ReEncryptFrom",
        "kms:CreateGrant",
    ];
    let mut users = Vec::new();
    for statement in statements {
        assert_eq!(statement["Effect"], "Allow");
        assert!(
            statement["Principal"] != "*" && statement["Principal"]["AWS"] != "*",
            "no wildcard principal"
        );
        let granted = actions(&statement["Action"]);
        let uses: Vec<&str> = use_of_key
            .iter()
            .copied()
            .filter(|u| granted.iter().any(|g| matches(g, u)))
            .collect();
        if uses.is_empty() {
            continue;
        }
        // Every use of the key goes through Secrets Manager, for the prefix's secrets only.
        let condition = &statement["Condition"];
        assert!(
            written(&condition["StringEquals"]["kms:ViaService"])
                .contains("secretsmanager.${AWS::Region}.amazonaws.com"),
            "{:?}",
            statement["Sid"]
        );
        assert!(
            written(&condition["StringLike"]["kms:EncryptionContext:SecretARN"])
                .contains(&format!(":secret:{PREFIX}*")),
            "{:?}",
            statement["Sid"]
        );
        users.push((statement["Sid"].as_str().unwrap().to_string(), uses));
    }
    // The account administers the key without using it, so no IAM policy can grant its use.
    assert_eq!(
        users,
        vec![
            ("DeliverWebhookDecrypts".to_string(), vec!["kms:Decrypt"]),
            (
                "OperatorWritesAndRotates".to_string(),
                vec!["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"]
            ),
        ]
    );
    let by_sid = |sid: &str| {
        statements
            .iter()
            .find(|s| s["Sid"] == sid)
            .unwrap_or_else(|| panic!("{sid}"))
    };
    assert_eq!(
        written(&by_sid("DeliverWebhookDecrypts")["Principal"]["AWS"]).trim(),
        "!GetAtt DeliverWebhookRole.Arn"
    );
    assert_eq!(by_sid("DeliverWebhookDecrypts")["Action"], "kms:Decrypt");
    let operator = written(&by_sid("OperatorWritesAndRotates")["Principal"]["AWS"]);
    assert!(operator.contains("OperatorPrincipalArn"), "{operator}");
    let admin = actions(&by_sid("AccountAdministersOnly")["Action"]);
    assert!(admin.iter().all(|a| a != "kms:*"), "{admin:?}");
}

#[test]
fn the_action_patterns_match_as_iam_matches_them() {
    assert!(matches("kms:Get*", "kms:GetKeyPolicy"));
    assert!(matches("kms:*", "kms:Decrypt"));
    assert!(matches("KMS:decrypt", "kms:Decrypt"));
    assert!(!matches("kms:Describe*", "kms:Decrypt"));
    assert!(matches("*", "secretsmanager:GetSecretValue"));
    assert!(matches(
        "secretsmanager:*Value",
        "secretsmanager:GetSecretValue"
    ));
    assert!(!matches("kms:Encrypt", "kms:EncryptX"));
}
