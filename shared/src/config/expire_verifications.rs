//! Configuration of `expire-verifications`.

use super::{ConfigError, Env};

#[derive(Debug, Clone)]
pub struct ExpireVerificationsConfig {
    pub table_name: String,
}

impl ExpireVerificationsConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        Ok(ExpireVerificationsConfig {
            table_name: env.required("TABLE_NAME")?,
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
    }
}
