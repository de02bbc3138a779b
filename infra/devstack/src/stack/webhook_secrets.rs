//! The accounts' signing secrets as template.yaml keeps them: Secrets Manager secrets under one
//! name prefix, encrypted under a customer-managed KMS key (moto's; it enforces no key policy).

use aws_config::SdkConfig;

use adapters::webhook_secrets::SecretsManagerWebhookSecrets;

/// Creates the stack's webhook-secrets key in moto's KMS and returns its ARN. Through KMS's JSON
/// protocol on loopback: the service needs no SDK crate of its own for this one call.
pub async fn webhook_secrets_key(sdk: &SdkConfig, description: &str) -> Result<String, String> {
    let endpoint = sdk
        .endpoint_url()
        .ok_or("the local stack has no endpoint")?;
    let region = sdk.region().map(|r| r.to_string()).unwrap_or_default();
    let answer = reqwest::Client::new()
        .post(endpoint)
        .header("Content-Type", "application/x-amz-json-1.1")
        .header("X-Amz-Target", "TrentService.CreateKey")
        // moto reads the service and region from the credential scope; it checks no signature.
        .header(
            "Authorization",
            format!(
                "AWS4-HMAC-SHA256 Credential=testing/20260101/{region}/kms/aws4_request, SignedHeaders=host, Signature=0"
            ),
        )
        .body(serde_json::json!({ "Description": description }).to_string())
        .send()
        .await
        .map_err(|e| format!("create the webhook secrets' key: {e}"))?
        .error_for_status()
        .map_err(|e| format!("create the webhook secrets' key: {e}"))?
        .text()
        .await
        .map_err(|e| format!("create the webhook secrets' key: {e}"))?;
    let answer: serde_json::Value = serde_json::from_str(&answer)
        .map_err(|e| format!("create the webhook secrets' key: {e}"))?;
    answer["KeyMetadata"]["Arn"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "the webhook secrets' key has no ARN".into())
}

/// The admin tool's writer of the local stack's secrets (tests put secrets through it too).
pub fn writer(
    sdk: &SdkConfig,
    names: &super::Resources,
    created: &super::Created,
) -> SecretsManagerWebhookSecrets {
    adapters::wiring::webhook_secrets_writer(
        sdk,
        &names.webhook_secrets_prefix,
        &created.webhook_secrets_key_arn,
    )
}
