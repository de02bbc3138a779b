//! The local stack: moto on loopback, the resources of template.yaml, a demo account, an HTTP
//! server that routes to the functions' handlers, and (for what moto lacks) the stream and queue
//! pumps. `make dev` runs it; the tests use the same pieces.

pub mod argyle_emulator;
pub mod household_fixtures;
pub mod moto;
pub mod plaid_emulator;
pub mod proxy;
pub mod pump;
pub mod receiver;
pub mod schedules;
pub mod seed;
pub mod server;
pub mod stack;

use std::sync::Arc;

use adapters::live_provider::LiveProvider;
use adapters::wiring;
use domain::plans::Plans;
use domain::webhook::LocalWebhookOrigins;
use service::config::{
    DeliverWebhookConfig, ExpireVerificationsConfig, PublishEventsConfig, ReachConfig,
    ReminderSchedules, Settings, TenantPortalConfig, TestModeDelivery,
};

/// Settings of the HTTP handlers for a local stack whose pages are served at `base_url`. No
/// webhook receiver is listed yet: the stack adds its own once it is listening (tests add theirs).
pub fn local_settings(table: &str, base_url: &str, lifetime: chrono::Duration) -> Settings {
    Settings {
        table_name: table.to_string(),
        public_base_url: Some(base_url.trim_end_matches('/').to_string()),
        plans: Plans::defaults(),
        local_webhook_origins: LocalWebhookOrigins::default(),
        verification_lifetime: lifetime,
        // The local stack has no bank-data provider: live keys use the sandbox, marked as local.
        live_income: service::config::LiveIncome::local_sandbox(),
        sms_region: Default::default(),
        sms_countries: Default::default(),
        // Every local stack has its documents bucket (`app_with`).
        documents: true,
    }
}

/// Builds the app that `server::route` serves, with the income provider `settings` name for live
/// verifications (the local sandbox, or none).
pub fn app(sdk: &aws_config::SdkConfig, settings: Settings) -> Arc<server::App> {
    let sandbox = service::config::Provider::LocalSandbox;
    let live_provider = match settings.live_income.uses(sandbox) {
        true => LiveProvider::local_sandbox(),
        // The local stack holds no Plaid credentials: tests that need Plaid use `app_with`.
        false => LiveProvider::none(),
    };
    app_with(sdk, settings, live_provider)
}

/// The app with a given income provider for live verifications (tests: none, or Plaid on loopback).
pub fn app_with(
    sdk: &aws_config::SdkConfig,
    settings: Settings,
    live_provider: LiveProvider,
) -> Arc<server::App> {
    app_with_webhooks(sdk, settings, live_provider, Default::default())
}

/// The app with live income providers and the verifiers of their webhooks (the emulators').
pub fn app_with_webhooks(
    sdk: &aws_config::SdkConfig,
    settings: Settings,
    live_provider: LiveProvider,
    verifiers: wiring::WebhookVerifiers,
) -> Arc<server::App> {
    // The browser posts uploads straight to moto's S3, path-style.
    let bucket = stack::documents_bucket_for(&settings.table_name);
    let portal = TenantPortalConfig {
        table_name: settings.table_name.clone(),
        live_income: settings.live_income.clone(),
        plaid: Default::default(),
        argyle: Default::default(),
        documents: Some(service::config::DocumentBucket {
            upload_url: sdk.endpoint_url().map(|e| format!("{e}/{bucket}")),
            bucket: bucket.clone(),
        }),
        public_base_url: settings.public_base_url.clone(),
        link_window: domain::retention::LinkWindow::DEFAULT,
    };
    let documents = adapters::s3::S3Objects::new(sdk, &bucket);
    let provider_webhooks = wiring::provider_webhooks_with(&settings.table_name, sdk, verifiers);
    Arc::new(server::App {
        provider_webhooks,
        api: wiring::api(settings, sdk),
        documents,
        portal: wiring::tenant_portal_with(&portal, sdk, live_provider),
        origin: service::http::OriginCheck::off(),
    })
}

/// The ARN the local reminder schedules name as their target (the schedule pump calls the
/// handler itself).
pub const LOCAL_REMINDER_FUNCTION_ARN: &str =
    "arn:aws:lambda:us-east-1:123456789012:function:send-reminders";

/// The stream and queue functions' dependencies, wired to the local resources.
pub struct Workers {
    pub outbox: pump::Outbox,
    /// `send-reminders` (the local stack sends test-mode SMS to moto, as its e-mails; the outbox's
    /// invite SMS and reminder schedules are the outbox's).
    pub reach: pump::Reach,
    pub expiry: pump::Expiry,
    pub delivery: pump::Delivery,
    /// `analyze-document`, reading the local documents bucket.
    pub analysis: adapters::wiring::Analysis,
}

impl Workers {
    /// `backoff` is the webhook and outbox retry schedule (tests pass zeros to retry at once);
    /// `local_origins` the only non-public receivers webhooks may reach (share the API's list).
    pub fn new(
        sdk: &aws_config::SdkConfig,
        names: &stack::Resources,
        created: &stack::Created,
        base_url: &str,
        backoff: Vec<u32>,
        local_origins: &LocalWebhookOrigins,
    ) -> Self {
        let mut outbox = wiring::publish_events_with(
            PublishEventsConfig {
                table_name: names.table.clone(),
                sender_email: names.sender.clone(),
                webhook_queue_url: created.webhook_queue_url.clone(),
                retry_queue_url: created.retry_queue_url.clone(),
                public_base_url: base_url.to_string(),
                // The local stack shows every e-mail and SMS, test mode included.
                test_mode_delivery: TestModeDelivery::Send,
                schedules: ReminderSchedules {
                    group: names.schedule_group.clone(),
                    target_arn: LOCAL_REMINDER_FUNCTION_ARN.to_string(),
                    role_arn: names.scheduler_role_arn.clone(),
                },
                reminder_offsets: domain::reach::DEFAULT_REMINDER_OFFSETS.to_vec(),
                sms: Default::default(),
                live_income: service::config::LiveIncome::local_sandbox(),
                plaid: Default::default(),
                argyle: Default::default(),
            },
            sdk,
            LiveProvider::local_sandbox(),
        );
        // Same zeros as the webhook back-off in tests: a failed retry is visible at once.
        outbox.retry_backoff = backoff.clone();
        let mut delivery = wiring::deliver_webhook(
            DeliverWebhookConfig {
                table_name: names.table.clone(),
                webhook_queue_url: created.webhook_queue_url.clone(),
                webhook_secrets_prefix: names.webhook_secrets_prefix.clone(),
                timeout: service::config::DEFAULT_WEBHOOK_TIMEOUT,
                local_webhook_origins: local_origins.clone(),
            },
            sdk,
        );
        delivery.backoff = backoff;
        let expiry = wiring::expire_verifications(
            ExpireVerificationsConfig {
                table_name: names.table.clone(),
                documents_bucket: Some(names.documents_bucket.clone()),
            },
            sdk,
        );
        let reach_config = ReachConfig {
            table_name: names.table.clone(),
            sender_email: names.sender.clone(),
            webhook_queue_url: created.webhook_queue_url.clone(),
            public_base_url: base_url.to_string(),
            test_mode_delivery: TestModeDelivery::Send,
            reminder_offsets: domain::reach::DEFAULT_REMINDER_OFFSETS.to_vec(),
            sms: Default::default(),
        };
        let reach = wiring::send_reminders(reach_config, sdk);
        let analysis = wiring::analyze_document_with(
            &service::config::AnalyzeDocumentConfig {
                table_name: names.table.clone(),
                bucket: names.documents_bucket.clone(),
                fingerprint_key_secret_arn: created.fingerprint_key_secret_arn.clone(),
            },
            sdk,
            created.fingerprint_key.clone(),
        );
        Workers {
            outbox,
            reach,
            expiry,
            delivery,
            analysis,
        }
    }
}

/// `DEV_LIVE_PROVIDER` as the live keys' providers, in order: none for `sandbox`, else a
/// comma-separated list of `plaid` (Plaid Check) and `argyle`.
pub fn live_kinds(raw: &str) -> Result<Vec<service::config::Provider>, String> {
    use service::config::Provider;
    if raw.trim() == "sandbox" {
        return Ok(vec![]);
    }
    let mut kinds = vec![];
    for name in raw.split(',').map(str::trim) {
        let kind = match name {
            "plaid" => Provider::PlaidCheck,
            "argyle" => Provider::Argyle,
            other => {
                return Err(format!(
                    "DEV_LIVE_PROVIDER {other:?}: sandbox, or a list of plaid and argyle"
                ));
            }
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}
