//! One builder per function: its configuration plus the AWS SDK configuration in, the handler's
//! dependencies out. The Lambdas' `main.rs`, the local stack and the admin tool all build through
//! here, so they run the same wiring.

use aws_config::SdkConfig;

use crate::argyle::{ArgyleConfig, ArgyleIncomeProvider};
use crate::dynamo::DynamoStore;
use crate::live_provider::{self, LiveProvider};
use crate::plaid::check::PlaidCheckIncomeProvider;
use crate::plaid::config::PlaidConfig;
use crate::s3::{S3Objects, S3UploadSigner};
use crate::scheduler::EventBridgeScheduler;
use crate::ses::SesMailer;
use crate::sns::SnsTexter;
use crate::sqs::SqsQueue;
use crate::webhook_client::WebhookClient;
use crate::webhook_secrets::{SECRETS_CACHE_LIFETIME, SecretsManagerWebhookSecrets};
use domain::documents::reuse::FingerprintKey;
use ports::SystemClock;
use service::config::AnalyzeDocumentConfig;
use service::config::{
    ConfigError, DeliverWebhookConfig, ExpireVerificationsConfig, LiveIncome, PlaidVariables,
    Provider, ProviderVariables, PublishEventsConfig, ReachConfig, Settings, TenantPortalConfig,
};
use service::handlers::analyze_document::{
    ANALYSIS_TIME_LIMIT, AnalysisDeps, DOCUMENT_MAX_RECEIVES,
};
use service::handlers::api::ApiDeps;
use service::handlers::deliver_webhook::{DEFAULT_BACKOFF, DeliveryDeps, WEBHOOK_MAX_ATTEMPTS};
use service::handlers::expire_verifications::ExpiryDeps;
use service::handlers::outbox::OutboxDeps;
use service::handlers::retry_events::DEFAULT_RETRY_BACKOFF;
use service::handlers::send_reminders::ReachDeps;
use service::handlers::tenant_portal::PortalDeps;
use service::handlers::tenant_portal::documents::DocumentUploads;
use service::http::OriginCheck;
use service::sandbox::SandboxProvider;

/// The service's table (every function, and the admin tool).
pub fn store(sdk: &SdkConfig, table_name: &str) -> DynamoStore {
    DynamoStore::new(aws_sdk_dynamodb::Client::new(sdk), table_name.to_string())
}

/// The API functions (create, get, cancel, list verifications; usage; the report PDF) share these
/// deps.
pub fn api(config: Settings, sdk: &SdkConfig) -> ApiDeps<DynamoStore, SystemClock> {
    ApiDeps::new(store(sdk, &config.table_name), SystemClock, config)
}

/// The HTTP functions' origin check (`service::http::OriginCheck`) against the secret
/// `secret_arn`, read once at cold start; off without one. A secret that cannot be read stops the
/// cold start: an edge-protected function must not answer unchecked.
pub async fn origin_check(
    secret_arn: Option<&str>,
    sdk: &SdkConfig,
) -> Result<OriginCheck, ConfigError> {
    let Some(arn) = secret_arn else {
        return Ok(OriginCheck::off());
    };
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let secret = crate::secrets::secret_string(&client, arn)
        .await
        .map_err(|e| ConfigError(format!("ORIGIN_SECRET_ARN: the origin secret: {e}")))?;
    if secret.trim().is_empty() {
        return Err(ConfigError(
            "ORIGIN_SECRET_ARN: the origin secret is empty".into(),
        ));
    }
    Ok(OriginCheck::expecting(&secret))
}

/// `origin_check` with `ORIGIN_SECRET_ARN` from the process environment (every HTTP function's
/// `main.rs`).
pub async fn origin_check_from_env(sdk: &SdkConfig) -> Result<OriginCheck, ConfigError> {
    let arn = service::config::origin_secret_arn(&service::config::Env::process());
    origin_check(arn.as_deref(), sdk).await
}

/// `tenant-portal`. The income provider of live verifications: Plaid or Argyle (credentials read
/// from Secrets Manager here, once), none, or the local sandbox (set in code by the local stack only:
/// no environment variable selects it).
pub async fn tenant_portal(
    config: TenantPortalConfig,
    sdk: &SdkConfig,
) -> Result<Portal, ConfigError> {
    let webhook = plaid_webhook_url(config.public_base_url.as_deref());
    let live_provider = live_provider(
        &config.live_income,
        &config.plaid,
        &config.argyle,
        webhook,
        sdk,
    )
    .await?;
    Ok(tenant_portal_with(&config, sdk, live_provider))
}

/// Where Plaid sends its webhooks: the stack's `POST /webhooks/providers/plaid`, on the same
/// HTTP API as the tenant page (`PUBLIC_BASE_URL`). None without a base URL: the sweep alone
/// then reads the reports.
pub fn plaid_webhook_url(public_base_url: Option<&str>) -> Option<String> {
    let base = public_base_url?.trim().trim_end_matches('/');
    (!base.is_empty()).then(|| format!("{base}/webhooks/providers/plaid"))
}

/// The income providers of live verifications, in `INCOME_PROVIDERS`' order: Plaid Check and
/// Argyle (each one's credentials read from Secrets Manager here, once, and only for a provider
/// in the list), none, or the local sandbox (set in code by the local stack only).
async fn live_provider(
    live_income: &LiveIncome,
    plaid: &PlaidVariables,
    argyle: &ProviderVariables,
    webhook_url: Option<String>,
    sdk: &SdkConfig,
) -> Result<LiveProvider, ConfigError> {
    let failed = |e: &dyn std::fmt::Display| ConfigError(e.to_string());
    let secrets = aws_sdk_secretsmanager::Client::new(sdk);
    let mut providers = Vec::new();
    for provider in live_income.providers() {
        providers.push(match provider {
            Provider::PlaidCheck => {
                let config = PlaidConfig::load(&secrets, |name| plaid.get(name))
                    .await
                    .map_err(|e| failed(&e))?;
                let provider = PlaidCheckIncomeProvider::new(config).map_err(|e| failed(&e))?;
                live_provider::Provider::PlaidCheck(provider.with_webhook_url(webhook_url.clone()))
            }
            Provider::Argyle => {
                let config = ArgyleConfig::load(&secrets, |name| argyle.get(name))
                    .await
                    .map_err(|e| failed(&e))?;
                let provider = ArgyleIncomeProvider::new(config).map_err(|e| failed(&e))?;
                live_provider::Provider::Argyle(provider)
            }
            Provider::LocalSandbox => live_provider::Provider::LocalSandbox(SandboxProvider),
        });
    }
    Ok(LiveProvider::of(providers))
}

/// `provider-webhooks`' deps: the table, Plaid's webhook keys fetched with Plaid's credentials
/// when Plaid Check is one of the live providers, and Argyle's webhook secret (with the API key
/// that finds a webhook's verification) when Argyle is. A provider not configured has no
/// verifier: its route 404s.
pub type ProviderWebhooks = service::handlers::provider_webhooks::ProviderWebhookDeps<
    DynamoStore,
    SystemClock,
    crate::plaid::PlaidWebhookVerifier,
    crate::argyle::ArgyleWebhookVerifier,
>;

/// The verifiers `provider-webhooks` checks with, one per configured provider.
#[derive(Default)]
pub struct WebhookVerifiers {
    pub plaid: Option<crate::plaid::PlaidWebhookVerifier>,
    pub argyle: Option<crate::argyle::ArgyleWebhookVerifier>,
}

/// `provider-webhooks`.
pub async fn provider_webhooks(
    config: service::config::ProviderWebhooksConfig,
    sdk: &SdkConfig,
) -> Result<ProviderWebhooks, ConfigError> {
    let failed = |e: &dyn std::fmt::Display| ConfigError(e.to_string());
    let secrets = aws_sdk_secretsmanager::Client::new(sdk);
    // The two providers' secrets are read concurrently: both are on the cold start's path.
    let plaid = async {
        if !config.live_income.uses(Provider::PlaidCheck) {
            return Ok(None);
        }
        let plaid = PlaidConfig::load(&secrets, |name| config.plaid.get(name))
            .await
            .map_err(|e| failed(&e))?;
        crate::plaid::PlaidWebhookVerifier::new(plaid)
            .map(Some)
            .map_err(|e| failed(&e))
    };
    let argyle = async {
        if !config.live_income.uses(Provider::Argyle) {
            return Ok(None);
        }
        let argyle = ArgyleConfig::load(&secrets, |name| config.argyle.get(name))
            .await
            .map_err(|e| failed(&e))?;
        crate::argyle::ArgyleWebhookVerifier::new(argyle)
            .map(Some)
            .map_err(|e| failed(&e))
    };
    let (plaid, argyle) = futures::try_join!(plaid, argyle)?;
    let verifiers = WebhookVerifiers { plaid, argyle };
    Ok(provider_webhooks_with(&config.table_name, sdk, verifiers))
}

/// `provider-webhooks` with its verifiers already built (the local stack: the emulators').
pub fn provider_webhooks_with(
    table_name: &str,
    sdk: &SdkConfig,
    verifiers: WebhookVerifiers,
) -> ProviderWebhooks {
    service::handlers::provider_webhooks::ProviderWebhookDeps {
        store: store(sdk, table_name),
        clock: SystemClock,
        plaid: verifiers.plaid,
        argyle: verifiers.argyle,
    }
}

/// `tenant-portal` with a provider already built (the local stack: a Plaid on loopback in tests).
pub fn tenant_portal_with(
    config: &TenantPortalConfig,
    sdk: &SdkConfig,
    live_provider: LiveProvider,
) -> Portal {
    let uploads = config.documents.as_ref().and_then(|d| {
        Some(DocumentUploads {
            signer: S3UploadSigner::new(sdk, &d.bucket, d.upload_url.as_deref())?,
            base_url: config.public_base_url.clone(),
        })
    });
    PortalDeps {
        store: store(sdk, &config.table_name),
        clock: SystemClock,
        live_provider,
        sandbox: SandboxProvider,
        uploads,
        link_window: config.link_window,
    }
}

/// `tenant-portal`'s deps.
pub type Portal = PortalDeps<DynamoStore, SystemClock, LiveProvider, S3UploadSigner>;

/// `analyze-document`.
pub type Analysis = AnalysisDeps<DynamoStore, S3Objects, SystemClock>;

/// `analyze-document`: the table, the bucket, the analysis of `documents`.
pub async fn analyze_document(
    config: AnalyzeDocumentConfig,
    sdk: &SdkConfig,
) -> Result<Analysis, ConfigError> {
    let secrets = aws_sdk_secretsmanager::Client::new(sdk);
    let key = crate::secrets::fingerprint_key(&secrets, &config.fingerprint_key_secret_arn)
        .await
        .map_err(|e| ConfigError(format!("FINGERPRINT_KEY_SECRET_ARN: {e}")))?;
    let mut deps = analyze_document_with(&config, sdk, key);
    // The function's binary analyses each file in a child of itself, under the OS's limits.
    deps.analyse = crate::analysis_child::Child::this_binary().analyser();
    Ok(deps)
}

/// `analyze-document` with its fingerprint key already read (the local stack reads it once).
pub fn analyze_document_with(
    config: &AnalyzeDocumentConfig,
    sdk: &SdkConfig,
    fingerprint_key: FingerprintKey,
) -> Analysis {
    AnalysisDeps {
        store: store(sdk, &config.table_name),
        objects: S3Objects::new(sdk, &config.bucket),
        clock: SystemClock,
        analyse: service::handlers::analyze_document::in_process(),
        time_limit: ANALYSIS_TIME_LIMIT,
        max_receives: DOCUMENT_MAX_RECEIVES,
        fingerprint_key,
    }
}

/// The outbox of `publish-events` and `retry-events` (the second redoes the first's failed work
/// with the same deps: e-mail, webhook queue, SMS, reminder schedules), with the production retry
/// back-off.
pub type Outbox = OutboxDeps<
    DynamoStore,
    SesMailer,
    SnsTexter,
    EventBridgeScheduler,
    SqsQueue,
    SystemClock,
    LiveProvider,
>;

/// `publish-events` and `retry-events`; the income provider closes tenant users at the provider.
pub async fn publish_events(
    config: PublishEventsConfig,
    sdk: &SdkConfig,
) -> Result<Outbox, ConfigError> {
    let webhook = plaid_webhook_url(Some(&config.public_base_url));
    let provider = live_provider(
        &config.live_income,
        &config.plaid,
        &config.argyle,
        webhook,
        sdk,
    )
    .await?;
    Ok(publish_events_with(config, sdk, provider))
}

/// `publish-events` and `retry-events` with a provider already built (the local stack).
pub fn publish_events_with(
    config: PublishEventsConfig,
    sdk: &SdkConfig,
    provider: LiveProvider,
) -> Outbox {
    let sqs = aws_sdk_sqs::Client::new(sdk);
    let schedules = config.schedules;
    OutboxDeps {
        store: store(sdk, &config.table_name),
        mailer: SesMailer::new(aws_sdk_sesv2::Client::new(sdk), config.sender_email),
        texter: SnsTexter::new(aws_sdk_sns::Client::new(sdk)),
        scheduler: EventBridgeScheduler::new(
            aws_sdk_scheduler::Client::new(sdk),
            schedules.group,
            schedules.target_arn,
            schedules.role_arn,
        ),
        queue: SqsQueue::new(sqs.clone(), config.webhook_queue_url),
        retry_queue: SqsQueue::new(sqs, config.retry_queue_url),
        provider,
        clock: SystemClock,
        public_base_url: config.public_base_url,
        test_mode_delivery: config.test_mode_delivery,
        reminder_offsets: config.reminder_offsets,
        retry_backoff: DEFAULT_RETRY_BACKOFF.to_vec(),
        sms: config.sms,
    }
}

/// `deliver-webhook`'s deps.
pub type Delivery =
    DeliveryDeps<DynamoStore, SecretsManagerWebhookSecrets, SqsQueue, SystemClock, WebhookClient>;

/// `deliver-webhook`, with the production delivery back-off and secrets' cache lifetime.
pub fn deliver_webhook(config: DeliverWebhookConfig, sdk: &SdkConfig) -> Delivery {
    DeliveryDeps {
        store: store(sdk, &config.table_name),
        secrets: SecretsManagerWebhookSecrets::reader(
            aws_sdk_secretsmanager::Client::new(sdk),
            &config.webhook_secrets_prefix,
            SECRETS_CACHE_LIFETIME,
        ),
        queue: SqsQueue::new(aws_sdk_sqs::Client::new(sdk), config.webhook_queue_url),
        clock: SystemClock,
        client: WebhookClient::new(config.timeout, config.local_webhook_origins),
        backoff: DEFAULT_BACKOFF.to_vec(),
        max_attempts: WEBHOOK_MAX_ATTEMPTS,
    }
}

/// The admin tool's writer of the accounts' signing secrets: `prefix` and the KMS key are the
/// stack's outputs `WebhookSecretsPrefix` and `WebhookSecretsKeyArn`.
pub fn webhook_secrets_writer(
    sdk: &SdkConfig,
    prefix: &str,
    kms_key_id: &str,
) -> SecretsManagerWebhookSecrets {
    SecretsManagerWebhookSecrets::writer(
        aws_sdk_secretsmanager::Client::new(sdk),
        prefix,
        kms_key_id,
    )
}

/// `expire-verifications`'s deps: the table, and the documents bucket when the stack has one.
pub type Expiry = ExpiryDeps<DynamoStore, SystemClock, Option<S3Objects>>;

/// `expire-verifications`.
pub fn expire_verifications(config: ExpireVerificationsConfig, sdk: &SdkConfig) -> Expiry {
    ExpiryDeps {
        store: store(sdk, &config.table_name),
        clock: SystemClock,
        documents: (config.documents_bucket.as_deref()).map(|bucket| S3Objects::new(sdk, bucket)),
    }
}

/// `send-reminders`: the reminder e-mail and SMS.
pub type Reach = ReachDeps<DynamoStore, SesMailer, SnsTexter, SqsQueue, SystemClock>;

/// `send-reminders`.
pub fn send_reminders(config: ReachConfig, sdk: &SdkConfig) -> Reach {
    ReachDeps {
        store: store(sdk, &config.table_name),
        mailer: SesMailer::new(aws_sdk_sesv2::Client::new(sdk), config.sender_email),
        texter: SnsTexter::new(aws_sdk_sns::Client::new(sdk)),
        queue: SqsQueue::new(aws_sdk_sqs::Client::new(sdk), config.webhook_queue_url),
        clock: SystemClock,
        public_base_url: config.public_base_url,
        test_mode_delivery: config.test_mode_delivery,
        reminder_offsets: config.reminder_offsets,
        sms: config.sms,
    }
}

/// `erase-verification-data`: the API's deps, and the documents bucket whose uploads it erases
/// (None: the stack has no bucket).
pub fn erase_verification_data(
    config: service::config::EraseVerificationDataConfig,
    sdk: &SdkConfig,
) -> (ApiDeps<DynamoStore, SystemClock>, Option<S3Objects>) {
    let documents = (config.bucket.as_deref()).map(|bucket| S3Objects::new(sdk, bucket));
    (api(config.settings, sdk), documents)
}

/// `list-documents`: the API's deps, and the bucket its download links are signed for.
pub fn list_documents(
    config: service::config::ListDocumentsConfig,
    sdk: &SdkConfig,
) -> (ApiDeps<DynamoStore, SystemClock>, S3Objects) {
    let links = S3Objects::new(sdk, &config.bucket);
    (api(config.settings, sdk), links)
}
