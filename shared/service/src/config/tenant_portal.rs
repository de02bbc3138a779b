//! Configuration of `tenant-portal`.

use super::{ConfigError, Env, LiveIncome, Provider};
use domain::retention::{LinkWindow, MAX_LINK_DAYS_AFTER_CLOSE};

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
    /// `TENANT_LINK_DAYS_AFTER_CLOSE`: how long a closed verification's link still opens its page
    /// and PDF copy (unset: 30 days).
    pub link_window: LinkWindow,
}

/// `TENANT_LINK_DAYS_AFTER_CLOSE`, a whole number of days up to `MAX_LINK_DAYS_AFTER_CLOSE`.
fn link_window(env: &Env) -> Result<LinkWindow, ConfigError> {
    const NAME: &str = "TENANT_LINK_DAYS_AFTER_CLOSE";
    let Some(raw) = env.optional(NAME) else {
        return Ok(LinkWindow::DEFAULT);
    };
    raw.parse::<u32>()
        .ok()
        .filter(|d| *d <= MAX_LINK_DAYS_AFTER_CLOSE)
        .map(LinkWindow::days)
        .ok_or_else(|| {
            ConfigError(format!(
                "{NAME} must be a whole number of days up to {MAX_LINK_DAYS_AFTER_CLOSE}, not '{raw}'"
            ))
        })
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
            link_window: link_window(env)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_window_is_30_days_unless_set_within_bounds() {
        let with = |days: Option<&str>| {
            let vars = [("TABLE_NAME", "t")]
                .into_iter()
                .map(|(k, v)| (k, v.to_string()));
            let vars = vars.chain(days.map(|d| ("TENANT_LINK_DAYS_AFTER_CLOSE", d.to_string())));
            TenantPortalConfig::parse(&Env::from_pairs(vars)).map(|c| c.link_window)
        };
        assert_eq!(with(None).unwrap(), LinkWindow::DEFAULT);
        assert_eq!(with(Some("7")).unwrap(), LinkWindow::days(7));
        assert_eq!(with(Some("0")).unwrap(), LinkWindow::days(0));
        for bad in ["-1", "3.5", "ten", "366"] {
            let refused = with(Some(bad)).unwrap_err();
            assert!(
                refused.to_string().contains("TENANT_LINK_DAYS_AFTER_CLOSE"),
                "{bad}"
            );
        }
    }

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
