//! Secrets Manager: a secret's text, read once at a function's cold start.

use aws_sdk_secretsmanager::error::ProvideErrorMetadata;

use domain::documents::reuse::{FINGERPRINT_KEY_MIN_BYTES, FingerprintKey};

/// The text of the secret `arn`; the error is the service's code (ResourceNotFoundException,
/// AccessDeniedException, ...), which says what to fix without quoting the ARN.
pub async fn secret_string(
    client: &aws_sdk_secretsmanager::Client,
    arn: &str,
) -> Result<String, String> {
    let answer = client
        .get_secret_value()
        .secret_id(arn)
        .send()
        .await
        .map_err(|e| {
            e.code()
                .unwrap_or("no answer from Secrets Manager")
                .to_string()
        })?;
    answer
        .secret_string()
        .map(str::to_string)
        .ok_or_else(|| "the secret holds no text".to_string())
}

/// The fingerprint key held in the secret `arn` (its text's bytes, at least 32).
pub async fn fingerprint_key(
    client: &aws_sdk_secretsmanager::Client,
    arn: &str,
) -> Result<FingerprintKey, String> {
    let text = secret_string(client, arn).await?;
    FingerprintKey::new(text.trim().as_bytes().to_vec()).ok_or_else(|| {
        format!("the fingerprint key must be at least {FINGERPRINT_KEY_MIN_BYTES} characters")
    })
}
