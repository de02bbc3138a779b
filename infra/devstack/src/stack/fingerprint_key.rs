//! The reuse check's key, as template.yaml makes it: a generated secret in Secrets Manager
//! (moto), read back through the same loader as analyze-document's cold start.

use aws_config::SdkConfig;
use aws_sdk_secretsmanager::operation::create_secret::CreateSecretError;
use domain::documents::reuse::FingerprintKey;

/// The secret `name` (made once, with a random key), its ARN and the key read from it.
pub async fn fingerprint_key(
    sdk: &SdkConfig,
    name: &str,
) -> Result<(String, FingerprintKey), String> {
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let generated = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let created = client
        .create_secret()
        .name(name)
        .secret_string(generated)
        .send()
        .await;
    if let Err(e) = created
        && !matches!(
            e.as_service_error(),
            Some(CreateSecretError::ResourceExistsException(_))
        )
    {
        return Err(format!("create the fingerprint key's secret: {e}"));
    }
    let arn = client
        .describe_secret()
        .secret_id(name)
        .send()
        .await
        .map_err(|e| format!("describe the fingerprint key's secret: {e}"))?
        .arn
        .ok_or("the fingerprint key's secret has no ARN")?;
    let key = adapters::secrets::fingerprint_key(&client, &arn).await?;
    Ok((arn, key))
}
