//! Configuration of `analyze-document` and `list-documents`, the functions that read the
//! documents bucket, and of `erase-verification-data`, which erases uploads in it.

use super::{ConfigError, Env};

#[derive(Debug, Clone)]
pub struct AnalyzeDocumentConfig {
    pub table_name: String,
    /// `DOCUMENT_BUCKET`: where the uploads are.
    pub bucket: String,
    /// `FINGERPRINT_KEY_SECRET_ARN`: the secret holding the reuse check's key.
    pub fingerprint_key_secret_arn: String,
}

impl AnalyzeDocumentConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(AnalyzeDocumentConfig {
            table_name: env.required("TABLE_NAME")?,
            bucket: env.required("DOCUMENT_BUCKET")?,
            fingerprint_key_secret_arn: env.required("FINGERPRINT_KEY_SECRET_ARN")?,
        })
    }
}

/// `list-documents`: the API's settings and the documents bucket its links point into.
#[derive(Debug, Clone)]
pub struct ListDocumentsConfig {
    pub settings: super::Settings,
    /// `DOCUMENT_BUCKET`.
    pub bucket: String,
}

impl ListDocumentsConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(ListDocumentsConfig {
            settings: super::Settings::parse(env)?,
            bucket: env.required("DOCUMENT_BUCKET")?,
        })
    }
}

/// `erase-verification-data`: the API's settings and the documents bucket whose uploads it
/// erases.
#[derive(Debug, Clone)]
pub struct EraseVerificationDataConfig {
    pub settings: super::Settings,
    /// `DOCUMENT_BUCKET`; unset: the stack takes no uploads, so none is erased.
    pub bucket: Option<String>,
}

impl EraseVerificationDataConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(EraseVerificationDataConfig {
            settings: super::Settings::parse(env)?,
            bucket: env.optional("DOCUMENT_BUCKET"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_and_the_fingerprint_key_are_required() {
        let refused =
            AnalyzeDocumentConfig::parse(&Env::from_pairs([("TABLE_NAME", "t")])).unwrap_err();
        assert!(refused.to_string().contains("DOCUMENT_BUCKET"), "{refused}");
        let refused = AnalyzeDocumentConfig::parse(&Env::from_pairs([
            ("TABLE_NAME", "t"),
            ("DOCUMENT_BUCKET", "b"),
        ]))
        .unwrap_err();
        assert!(
            refused.to_string().contains("FINGERPRINT_KEY_SECRET_ARN"),
            "{refused}"
        );
        let config = AnalyzeDocumentConfig::parse(&Env::from_pairs([
            ("TABLE_NAME", "t"),
            ("DOCUMENT_BUCKET", "b"),
            ("FINGERPRINT_KEY_SECRET_ARN", "arn:fk"),
        ]))
        .unwrap();
        assert_eq!(
            (
                config.bucket.as_str(),
                config.fingerprint_key_secret_arn.as_str()
            ),
            ("b", "arn:fk")
        );
    }

    #[test]
    fn the_erasure_takes_the_bucket_when_set() {
        let without =
            EraseVerificationDataConfig::parse(&Env::from_pairs([("TABLE_NAME", "t")])).unwrap();
        assert_eq!(without.bucket, None);
        let with = EraseVerificationDataConfig::parse(&Env::from_pairs([
            ("TABLE_NAME", "t"),
            ("DOCUMENT_BUCKET", "b"),
        ]))
        .unwrap();
        assert_eq!(with.bucket.as_deref(), Some("b"));
    }
}
