//! Per function: cold init (1), one real invocation with its peak RSS and AWS calls (2, 4), and the
//! binary and zip sizes (3).

use super::*;

// ------------------------------------------------------------------------------------------------
// 1. Cold init

pub(crate) struct ColdInit {
    pub(crate) times: Spread,
    /// Peak RSS at the first `next` (after init, before any event).
    pub(crate) init_rss: Option<u64>,
}

pub(crate) async fn cold_init(
    launch: &Launch,
    function: &str,
    starts: usize,
    endpoint: &str,
    table: &str,
    queues: &devstack::stack::Created,
) -> Result<ColdInit, Error> {
    let mut times = Vec::with_capacity(starts);
    let mut rss = Vec::new();
    // The first start is not measured: it only brings the binary into the page cache (and lets
    // Python write its bytecode cache), as on a Lambda host that has the code on local disk.
    for i in 0..=starts {
        let mut api = RuntimeApi::start().await?;
        let env = lambda_env(function, &api.endpoint(), endpoint, table, queues)?;
        let started = Instant::now();
        let mut child = launch.spawn(&env)?;
        let first = wait_next(&mut api, &mut child, 1, &launch.log).await;
        let pid = child.id();
        if let (Ok(_), Some(pid)) = (&first, pid) {
            rss.extend(peak_rss(pid));
        }
        stop(child).await;
        let first = first?;
        if i > 0 {
            times.push(ms(first.saturating_duration_since(started)));
        }
    }
    Ok(ColdInit {
        times: Spread::new(times),
        init_rss: rss.into_iter().max(),
    })
}

// ------------------------------------------------------------------------------------------------
// 2 and 4. One real invocation (peak RSS) and the AWS calls of a cold and a warm invocation

#[derive(Debug, Default, Clone)]
pub(crate) struct CallStats {
    pub(crate) dynamodb: usize,
    pub(crate) sequential: usize,
    pub(crate) other: usize,
    pub(crate) scanned: u64,
}

impl CallStats {
    pub(crate) fn of(calls: &[Call]) -> Self {
        let dynamo: Vec<&Call> = calls.iter().filter(|c| c.is_dynamodb()).collect();
        CallStats {
            dynamodb: dynamo.len(),
            sequential: proxy::sequential(&dynamo),
            other: calls.len() - dynamo.len(),
            scanned: calls.iter().filter_map(|c| c.scanned).sum(),
        }
    }

    /// `GetItem → UpdateItem → (GetItem ∥ GetItem)`: the calls in order, overlapping ones grouped.
    pub(crate) fn shape(calls: &[Call]) -> String {
        let mut sorted: Vec<&Call> = calls.iter().collect();
        sorted.sort_by_key(|c| c.start);
        let mut groups: Vec<(Instant, Vec<&Call>)> = Vec::new();
        for call in sorted {
            match groups.last_mut() {
                Some((end, group)) if call.start < *end => {
                    *end = (*end).max(call.end);
                    group.push(call);
                }
                _ => groups.push((call.end, vec![call])),
            }
        }
        groups
            .iter()
            .map(|(_, g)| {
                let names: Vec<String> = g
                    .iter()
                    .map(|c| {
                        let failed = if c.status >= 400 { "✗" } else { "" };
                        format!("{}{failed}", c.short())
                    })
                    .collect();
                if names.len() == 1 {
                    names[0].clone()
                } else {
                    format!("({})", names.join(" ∥ "))
                }
            })
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

pub(crate) struct Invocations {
    pub(crate) peak_rss: Option<u64>,
    pub(crate) init_calls: usize,
    pub(crate) cold: CallStats,
    pub(crate) cold_shape: String,
    pub(crate) warm: CallStats,
    pub(crate) warm_shape: String,
    pub(crate) cold_ms: f64,
    pub(crate) warm_ms: f64,
    /// Problems with the answers (wrong status, batch failures).
    pub(crate) problems: Vec<String>,
}

/// A fresh table with the demo accounts, the fixtures and a webhook secret.
pub(crate) async fn fresh_stack(
    sdk: &aws_config::SdkConfig,
    prefix: &str,
) -> Result<(Resources, Created, DynamoStore), Error> {
    let names = Resources::named(&format!(
        "{prefix}-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    ));
    let created = stack::bootstrap(sdk, &names).await.map_err(err)?;
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::new(sdk), names.table.clone());
    stack::seed_account(&store, stack::DEMO_ACCOUNT, "business", true).await?;
    stack::seed_account(&store, stack::OTHER_ACCOUNT, "pro", true).await?;
    stack::seed_fixtures(&store).await?;
    let secrets = WebhookSecrets {
        current: Some(domain::secrets::generate_webhook_secret()),
        previous: None,
        previous_valid_until: None,
    };
    stack::webhook_secrets::writer(sdk, &names, &created)
        .put_webhook_secrets(stack::DEMO_ACCOUNT, &secrets)
        .await?;
    Ok((names, created, store))
}

/// Stores the webhook event each queued message of an SQS `event` names, to `url`: the queue
/// carries references only, and deliver-webhook drops a message whose event is not stored (so
/// without this, the bench would time that drop, not a delivery).
pub(crate) async fn store_queued_webhooks(
    store: &DynamoStore,
    event: &str,
    url: &str,
) -> Result<(), Error> {
    let event: serde_json::Value = serde_json::from_str(event)?;
    for record in event["Records"].as_array().into_iter().flatten() {
        let body = record["body"]
            .as_str()
            .ok_or_else(|| err("a queued message's body"))?;
        let queued: domain::webhook::QueuedWebhook = serde_json::from_str(body)?;
        let message = domain::webhook::WebhookMessage {
            webhook_id: queued.webhook_id,
            account_id: queued.account_id,
            url: url.to_string(),
            body: serde_json::json!({
                "type": "verification.completed",
                "timestamp": "2026-11-21T10:09:00.000Z",
                "data": {"verification_id": stack::FIXTURE_COMPLETED, "status": "completed"},
            })
            .to_string(),
        };
        let stored = domain::webhook_log::StoredWebhookEvent::of(&message, chrono::Utc::now())
            .ok_or_else(|| err("a webhook event to store"))?;
        store.put_webhook_event(&stored).await?;
    }
    Ok(())
}

/// Checks an answer against what its sample event's file name expects.
pub(crate) fn check_answer(
    function: &Function,
    event_file: &str,
    outcome: &runtime_api::Outcome,
) -> Option<String> {
    if outcome.kind != "response" {
        return Some(format!("{event_file}: {} {}", outcome.kind, outcome.body));
    }
    let body: serde_json::Value = serde_json::from_str(&outcome.body).unwrap_or_default();
    if function.http {
        let expected: i64 = event_file[..3].parse().unwrap_or(0);
        let got = body["statusCode"].as_i64().unwrap_or(0);
        (got != expected).then(|| format!("{event_file}: status {got}, expected {expected}"))
    } else {
        let failures = body["batchItemFailures"].as_array().map_or(0, Vec::len);
        (failures > 0).then(|| format!("{event_file}: {failures} batch item failures"))
    }
}

pub(crate) async fn invocations(
    root: &Path,
    launch: &Launch,
    function: &Function,
    events: &[&str],
    moto: &Moto,
    sdk: &aws_config::SdkConfig,
) -> Result<Invocations, Error> {
    let (names, created, store) = fresh_stack(sdk, "bench").await?;
    let hook = slow_receiver(Duration::ZERO).await?;
    let proxy = Proxy::start(&moto.endpoint).await?;
    let mut api = RuntimeApi::start().await?;
    let mut env = lambda_env(
        function.name,
        &api.endpoint(),
        &proxy.endpoint,
        &names.table,
        &created,
    )?;
    env.push(local_receiver(&hook));
    let mut child = launch.spawn(&env)?;
    let result = async {
        wait_next(&mut api, &mut child, 1, &launch.log).await?;
        let init_calls = proxy.take().len();
        let mut stats = Vec::new();
        let mut problems = Vec::new();
        let mut peak = None;
        for (i, file) in events.iter().enumerate() {
            let path = root.join("events").join(function.name).join(file);
            let event = std::fs::read_to_string(&path)
                .map_err(|e| err(format!("{}: {e}", path.display())))?
                .replace(SAMPLE_WEBHOOK_URL, &hook.url);
            if function.name == "deliver-webhook" {
                store_queued_webhooks(&store, &event, &hook.url).await?;
            }
            let (outcome, took) = tokio::time::timeout(STEP_TIMEOUT, api.invoke(&event))
                .await
                .map_err(|_| err(format!("{}: no answer to {file}", function.name)))?
                .ok_or_else(|| err(format!("{}: runtime API closed", function.name)))?;
            problems.extend(check_answer(function, file, &outcome));
            // Idle again: every call of this invocation has ended.
            wait_next(&mut api, &mut child, i + 2, &launch.log).await?;
            if i == 0 {
                peak = child.id().and_then(peak_rss);
            }
            stats.push((proxy.take(), ms(took)));
        }
        let (warm_calls, warm_ms) = stats.pop().expect("two invocations");
        let (cold_calls, cold_ms) = stats.pop().expect("two invocations");
        Ok::<_, Error>(Invocations {
            peak_rss: peak,
            init_calls,
            cold: CallStats::of(&cold_calls),
            cold_shape: CallStats::shape(&cold_calls),
            warm: CallStats::of(&warm_calls),
            warm_shape: CallStats::shape(&warm_calls),
            cold_ms,
            warm_ms,
            problems,
        })
    }
    .await;
    stop(child).await;
    result
}

// ------------------------------------------------------------------------------------------------
// 3. Sizes

pub(crate) struct Size {
    pub(crate) binary: u64,
    pub(crate) zipped: u64,
}

/// The binary's size and the size of a deflated zip holding it as `bootstrap` (what is uploaded).
pub(crate) fn size_of(python: &Path, binary: &Path, zip_dir: &Path) -> Result<Size, Error> {
    let function = binary
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let zip = zip_dir.join(format!("{function}.zip"));
    let status = std::process::Command::new(python)
        .arg("-c")
        .arg(
            "import sys, zipfile\n\
             with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:\n\
             \x20   z.write(sys.argv[1], 'bootstrap')",
        )
        .arg(binary)
        .arg(&zip)
        .status()?;
    if !status.success() {
        return Err(err(format!("zipping {} failed", binary.display())));
    }
    Ok(Size {
        binary: std::fs::metadata(binary)?.len(),
        zipped: std::fs::metadata(&zip)?.len(),
    })
}
