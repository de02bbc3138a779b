//! Configuration of `tenant-portal`.

use super::{ConfigError, Env, LiveIncome, Provider};

/// Where a provider's credentials are (`PLAID_BASE_URL` and `PLAID_SECRET_ARN`, or the
/// `ARGYLE_` pair), read with the rest at cold start; the secret itself is fetched from Secrets
/// Manager when the deps are built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderVariables {
    pub base_url: Option<String>,
    pub secret_arn: Option<String>,
}

/// Plaid's pair of variables.
pub type PlaidVariables = ProviderVariables;

impl ProviderVariables {
    fn read(env: &Env, prefix: &str) -> Self {
        ProviderVariables {
            base_url: env.optional(&format!("{prefix}_BASE_URL")),
            secret_arn: env.optional(&format!("{prefix}_SECRET_ARN")),
        }
    }

    /// The variable as the provider's adapter asks for it (`<PREFIX>_BASE_URL`,
    /// `<PREFIX>_SECRET_ARN`).
    pub fn get(&self, name: &str) -> Option<String> {
        if name.ends_with("_BASE_URL") {
            self.base_url.clone()
        } else if name.ends_with("_SECRET_ARN") {
            self.secret_arn.clone()
        } else {
            None
        }
    }
}

impl ProviderVariables {
    /// `INCOME_PROVIDERS`, and where the Plaid and the Argyle credentials are: each pair read
    /// only when its provider is in the list.
    pub fn with_live_income(
        env: &Env,
    ) -> Result<(LiveIncome, PlaidVariables, ProviderVariables), ConfigError> {
        let live_income = LiveIncome::from_env(env)?;
        // Plaid Check is a product of Plaid's, on the same credentials.
        let of = |provider: Provider, prefix: &str| {
            if live_income.uses(provider) {
                ProviderVariables::read(env, prefix)
            } else {
                ProviderVariables::default()
            }
        };
        let (plaid, argyle) = (
            of(Provider::PlaidCheck, "PLAID"),
            of(Provider::Argyle, "ARGYLE"),
        );
        Ok((live_income, plaid, argyle))
    }
}

/// The documents bucket (`DOCUMENT_BUCKET`) and the URL the browser posts uploads to
/// (`DOCUMENT_UPLOAD_URL`; unset: the bucket's regional URL).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentBucket {
    pub bucket: String,
    pub upload_url: Option<String>,
}

#[derive(Debug, Clone)]
pub struct TenantPortalConfig {
    pub table_name: String,
    /// None: no documents bucket, so the page offers the bank only.
    pub documents: Option<DocumentBucket>,
    /// `PUBLIC_BASE_URL`: where S3 sends the browser back after an upload (unset: the request's
    /// own host).
    pub public_base_url: Option<String>,
    /// `INCOME_PROVIDERS`: the income of live verifications (the local stack sets the local
    /// sandbox in code).
    pub live_income: LiveIncome,
    /// Read only when `live_income` uses Plaid Check; checked when the deps are built.
    pub plaid: PlaidVariables,
    /// Read only when `live_income` uses Argyle; checked when the deps are built.
    pub argyle: ProviderVariables,
}

impl TenantPortalConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::parse(&Env::process())
    }

    pub fn parse(env: &Env) -> Result<Self, ConfigError> {
        let (live_income, plaid, argyle) = ProviderVariables::with_live_income(env)?;
        Ok(TenantPortalConfig {
            table_name: env.required("TABLE_NAME")?,
            documents: env
                .optional("DOCUMENT_BUCKET")
                .map(|bucket| DocumentBucket {
                    bucket,
                    upload_url: env.optional("DOCUMENT_UPLOAD_URL"),
                }),
            public_base_url: env.optional("PUBLIC_BASE_URL"),
            live_income,
            plaid,
            argyle,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plaid_variables_are_read_only_for_plaid() {
        let vars = [
            ("TABLE_NAME", "t"),
            ("PLAID_BASE_URL", "https://sandbox.plaid.com"),
            ("PLAID_SECRET_ARN", "arn:aws:secretsmanager:x"),
        ];
        let none = TenantPortalConfig::parse(&Env::from_pairs(vars)).unwrap();
        assert_eq!(
            (none.live_income, none.plaid),
            (LiveIncome::none(), PlaidVariables::default())
        );
        let plaid = vars
            .into_iter()
            .chain([("INCOME_PROVIDERS", "plaid_check")]);
        let plaid = TenantPortalConfig::parse(&Env::from_pairs(plaid)).unwrap();
        assert_eq!(plaid.live_income, LiveIncome::of(&[Provider::PlaidCheck]));
        assert_eq!(plaid.argyle, ProviderVariables::default());
        assert_eq!(
            plaid.plaid.get("PLAID_BASE_URL").as_deref(),
            Some("https://sandbox.plaid.com")
        );
    }

    #[test]
    fn argyle_variables_are_read_only_for_argyle() {
        let vars = [
            ("TABLE_NAME", "t"),
            ("INCOME_PROVIDERS", "argyle"),
            ("ARGYLE_BASE_URL", "https://api-sandbox.argyle.com"),
            ("ARGYLE_SECRET_ARN", "arn:aws:secretsmanager:x"),
            ("PLAID_SECRET_ARN", "arn:aws:secretsmanager:y"),
        ];
        let argyle = TenantPortalConfig::parse(&Env::from_pairs(vars)).unwrap();
        assert_eq!(argyle.live_income, LiveIncome::of(&[Provider::Argyle]));
        assert_eq!(argyle.plaid, PlaidVariables::default());
        assert_eq!(
            argyle.argyle.get("ARGYLE_SECRET_ARN").as_deref(),
            Some("arn:aws:secretsmanager:x")
        );
    }

    #[test]
    fn the_sandbox_is_refused_for_live_verifications() {
        let vars = [("TABLE_NAME", "t"), ("INCOME_PROVIDERS", "sandbox")];
        let refused = TenantPortalConfig::parse(&Env::from_pairs(vars)).unwrap_err();
        assert!(
            refused.to_string().contains("INCOME_PROVIDERS"),
            "{refused}"
        );
    }

    #[test]
    fn both_pairs_are_read_when_both_providers_are_listed() {
        let vars = [
            ("TABLE_NAME", "t"),
            ("INCOME_PROVIDERS", "plaid_check,argyle"),
            ("ARGYLE_SECRET_ARN", "arn:aws:secretsmanager:x"),
            ("PLAID_SECRET_ARN", "arn:aws:secretsmanager:y"),
        ];
        let both = TenantPortalConfig::parse(&Env::from_pairs(vars)).unwrap();
        assert_eq!(
            both.argyle.get("ARGYLE_SECRET_ARN").as_deref(),
            Some("arn:aws:secretsmanager:x")
        );
        assert_eq!(
            both.plaid.get("PLAID_SECRET_ARN").as_deref(),
            Some("arn:aws:secretsmanager:y")
        );
    }
}
