//! The admin tool's commands, generic over the store so they are tested against moto.

mod income_report;

pub use income_report::{IncomeReportArgs, income_report, parse_payments};

use chrono::{DateTime, Duration, Utc};
use clap::{Subcommand, ValueEnum};
use domain::methods;
use domain::retention::{MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, RetentionDays};
use domain::secrets::{
    MAX_ACCOUNT_ID_LEN, generate_api_key, generate_webhook_secret, valid_account_id,
};
use domain::{Account, ApiKeyRecord, Mode, SubscriptionStatus, format_ts};
use ports::WebhookSecrets;
use ports::store::prelude::*;
use service::handlers::retention::rearm_account;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KeyMode {
    Live,
    Test,
}

impl From<KeyMode> for Mode {
    fn from(m: KeyMode) -> Mode {
        match m {
            KeyMode::Live => Mode::Live,
            KeyMode::Test => Mode::Test,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create an account on a plan (subscription active for 30 days).
    CreateAccount {
        #[arg(long)]
        name: String,
        #[arg(long, default_value = "pro")]
        plan: String,
        /// Account id (1 to 64 ASCII letters, digits, `_` and `-`, so its keys can name it);
        /// generated when omitted.
        #[arg(long)]
        id: Option<String>,
    },
    /// Show an account (plan, subscription, today's API usage).
    ShowAccount {
        #[arg(long)]
        account: String,
    },
    /// Issue an API key. The key is printed once and never stored.
    IssueKey {
        #[arg(long)]
        account: String,
        #[arg(long, value_enum, default_value = "live")]
        mode: KeyMode,
    },
    /// List an account's keys (ids and prefixes only).
    ListKeys {
        #[arg(long)]
        account: String,
    },
    /// Revoke a key by its id (key_...).
    RevokeKey {
        #[arg(long)]
        account: String,
        #[arg(long)]
        key_id: String,
    },
    /// Move an account to another plan.
    SetPlan {
        #[arg(long)]
        account: String,
        #[arg(long)]
        plan: String,
    },
    /// Set the subscription state and the end of the current period.
    SetSubscription {
        #[arg(long)]
        account: String,
        /// active, trialing, past_due or canceled
        #[arg(long)]
        status: String,
        /// RFC 3339, e.g. 2026-12-31T00:00:00Z
        #[arg(long)]
        period_end: String,
    },
    /// Set how long the personal data of the account's closed verifications is kept (30 to
    /// 2555 days; 365 unless set), and re-arm the erasure of every closed verification not yet
    /// erased: a shorter period applies at the next sweep, a longer one when the earlier marker
    /// fires and finds the erasure not due.
    SetRetention {
        #[arg(long)]
        account: String,
        #[arg(long)]
        days: u32,
    },
    /// Issue or rotate the account's webhook signing secret; the old one keeps signing for
    /// `--overlap-hours` so receivers can switch without missing a delivery.
    RotateWebhookSecret {
        #[arg(long)]
        account: String,
        #[arg(long, default_value_t = 24)]
        overlap_hours: i64,
    },
    /// Set the verification methods of creates that name none, in order of preference: a
    /// comma-separated list of bank, payroll and document; `all` clears it (every method the
    /// stack has). The tenant page takes it at consent and skips a method the stack lacks, so
    /// any method is accepted here.
    SetDefaultMethods {
        #[arg(long)]
        account: String,
        #[arg(long)]
        methods: String,
    },
    /// Print the income report of a file of raw income data, as the API would build it (no
    /// table needed).
    IncomeReport(IncomeReportArgs),
}

/// For a caller with no webhook secrets at hand: every command but `rotate-webhook-secret`.
pub const NO_SECRETS: Option<&adapters::webhook_secrets::SecretsManagerWebhookSecrets> = None;

/// Runs one command and returns what to print. `secrets` holds the accounts' webhook signing
/// secrets (Secrets Manager, apart from the table); only `rotate-webhook-secret` needs it.
pub async fn run<S: Store, K: WebhookSecretStore>(
    store: &S,
    secrets: Option<&K>,
    plans: &domain::plans::Plans,
    command: Command,
    now: DateTime<Utc>,
) -> Result<String, String> {
    let err = |e: ports::StoreError| e.to_string();
    match command {
        Command::IncomeReport(args) => income_report(&args),
        Command::CreateAccount { name, plan, id } => {
            if plans.get(&plan).is_none() {
                return Err(format!("unknown plan '{plan}'"));
            }
            let account_id = id.unwrap_or_else(|| {
                format!("acct_{}", &uuid::Uuid::new_v4().simple().to_string()[..16])
            });
            // Every key names its account, so an account id must fit in a key.
            if !valid_account_id(&account_id) {
                return Err(format!(
                    "invalid account id: use 1 to {MAX_ACCOUNT_ID_LEN} ASCII letters, digits, '_' \
                     and '-'"
                ));
            }
            store
                .put_account(&Account::opened(&account_id, &name, &plan, now))
                .await
                .map_err(|e| {
                    format!("could not create the account (does it exist already?): {e}")
                })?;
            Ok(format!("created account {account_id}"))
        }
        Command::ShowAccount { account } => {
            let a = store
                .get_account(&account)
                .await
                .map_err(err)?
                .ok_or("no such account")?;
            let defaults = store.get_default_methods(&account).await.map_err(err)?;
            Ok(format!(
                "account {}\nname {}\nplan {}\nsubscription {} until {}\napi requests today {}\ndefault methods {}",
                a.account_id,
                a.name,
                a.plan,
                a.subscription_status.as_str(),
                format_ts(a.current_period_end),
                if a.api_window.as_deref() == Some(domain::api_window(now).as_str()) {
                    a.api_requests
                } else {
                    0
                },
                if defaults.is_empty() {
                    "all".to_string()
                } else {
                    methods::names(&defaults)
                }
            ))
        }
        Command::IssueKey { account, mode } => {
            store
                .get_account(&account)
                .await
                .map_err(err)?
                .ok_or("no such account")?;
            let key = generate_api_key(&account, mode.into())
                .ok_or("the account id cannot be named in a key")?;
            store
                .put_api_key(&ApiKeyRecord {
                    key_id: key.key_id.clone(),
                    key_hash: key.hash,
                    account_id: account,
                    mode: mode.into(),
                    display_prefix: key.display_prefix,
                    created_at: now,
                    revoked_at: None,
                })
                .await
                .map_err(err)?;
            Ok(format!(
                "key id {}\napi key {}\nThis is the only time the key is shown; store it now.",
                key.key_id, key.secret
            ))
        }
        Command::ListKeys { account } => {
            let keys = store.list_api_keys(&account).await.map_err(err)?;
            Ok(keys
                .iter()
                .map(|k| {
                    format!(
                        "{}  {}...  {}  created {}  {}",
                        k.key_id,
                        k.display_prefix,
                        k.mode.as_str(),
                        format_ts(k.created_at),
                        k.revoked_at.map_or("active".to_string(), |t| format!(
                            "revoked {}",
                            format_ts(t)
                        ))
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"))
        }
        Command::RevokeKey { account, key_id } => {
            if store
                .revoke_api_key(&account, &key_id, now)
                .await
                .map_err(err)?
            {
                Ok(format!("revoked {key_id}"))
            } else {
                Err(format!("no key {key_id} on account {account}"))
            }
        }
        Command::SetPlan { account, plan } => {
            if plans.get(&plan).is_none() {
                return Err(format!("unknown plan '{plan}'"));
            }
            match store
                .update_account(&account, Some(&plan), None)
                .await
                .map_err(err)?
            {
                true => Ok(format!("account {account} is on plan {plan}")),
                false => Err("no such account".into()),
            }
        }
        Command::SetSubscription {
            account,
            status,
            period_end,
        } => {
            let status = SubscriptionStatus::parse(&status)
                .ok_or("status must be active, trialing, past_due or canceled")?;
            let end = DateTime::parse_from_rfc3339(&period_end)
                .map_err(|_| "period-end must be an RFC 3339 timestamp")?
                .with_timezone(&Utc);
            match store
                .update_account(&account, None, Some((status, end)))
                .await
                .map_err(err)?
            {
                true => Ok(format!(
                    "subscription of {account}: {} until {}",
                    status.as_str(),
                    format_ts(end)
                )),
                false => Err("no such account".into()),
            }
        }
        Command::SetDefaultMethods { account, methods } => {
            let chosen = if methods.trim() == "all" {
                vec![]
            } else {
                let names: Vec<&str> = methods.split(',').map(str::trim).collect();
                methods::parse_methods(&names).map_err(|unknown| {
                    format!(
                        "unknown method(s) {}: use bank, payroll, document or all",
                        unknown.join(", ")
                    )
                })?
            };
            match store
                .set_default_methods(&account, &chosen)
                .await
                .map_err(err)?
            {
                true if chosen.is_empty() => Ok(format!(
                    "account {account}: every method the stack has, by default"
                )),
                true => Ok(format!(
                    "account {account}: default methods {}",
                    methods::names(&chosen)
                )),
                false => Err("no such account".into()),
            }
        }
        Command::SetRetention { account, days } => {
            let retention = RetentionDays::new(days).ok_or(format!(
                "retention must be {MIN_RETENTION_DAYS} to {MAX_RETENTION_DAYS} days"
            ))?;
            if !store
                .set_retention_days(&account, retention)
                .await
                .map_err(err)?
            {
                return Err("no such account".into());
            }
            let armed = rearm_account(store, &account).await.map_err(err)?;
            Ok(format!(
                "retention of {account}: {days} days\nerasure armed again for {armed} closed verifications"
            ))
        }
        Command::RotateWebhookSecret {
            account,
            overlap_hours,
        } => {
            store
                .get_account(&account)
                .await
                .map_err(err)?
                .ok_or("no such account")?;
            let secrets = secrets.ok_or(
                "rotate-webhook-secret needs --webhook-secrets-prefix and --webhook-secrets-key \
                 (the stack's outputs WebhookSecretsPrefix and WebhookSecretsKeyArn)",
            )?;
            let old = secrets.get_webhook_secrets(&account).await.map_err(err)?;
            let secret = generate_webhook_secret();
            let next = WebhookSecrets {
                current: Some(secret.clone()),
                previous_valid_until: old
                    .current
                    .as_ref()
                    .map(|_| now + Duration::hours(overlap_hours.max(0))),
                previous: old.current,
            };
            secrets
                .put_webhook_secrets(&account, &next)
                .await
                .map_err(err)?;
            Ok(format!(
                "webhook secret {secret}\nDeliveries are signed with it from now on{}.",
                next.previous_valid_until
                    .map(|t| format!("; the previous secret also signs until {}", format_ts(t)))
                    .unwrap_or_default()
            ))
        }
    }
}
