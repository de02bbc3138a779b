//! Configuration of `expire-verifications`.

use super::{ConfigError, Env};

#[derive(Debug, Clone)]
pub struct ExpireVerificationsConfig {
    pub table_name: String,
    /// `DOCUMENT_BUCKET`, whose uploads an erasure erases; unset: the stack takes no uploads.
    pub documents_bucket: Option<String>,
}

impl ExpireVerificationsConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(ExpireVerificationsConfig {
            table_name: env.required("TABLE_NAME")?,
            documents_bucket: env.optional("DOCUMENT_BUCKET"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_required() {
        let refused =
            ExpireVerificationsConfig::parse(&Env::from_pairs([("TABLE_NAME", " ")])).unwrap_err();
        assert!(
            refused.to_string().contains("TABLE_NAME is not set"),
            "{refused}"
        );
        let config =
            ExpireVerificationsConfig::parse(&Env::from_pairs([("TABLE_NAME", "t")])).unwrap();
        assert_eq!(config.documents_bucket, None, "no bucket: nothing to erase");
    }
}
