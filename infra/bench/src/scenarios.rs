//! The two scenarios beyond single invocations: list cost at two table sizes (5) and a webhook
//! batch to a slow receiver (6).

use super::*;

// ------------------------------------------------------------------------------------------------
// 5. List cost

pub(crate) struct ListRun {
    pub(crate) verifications: usize,
    pub(crate) seed_seconds: f64,
    pub(crate) store_items_read: u64,
    pub(crate) store_items: usize,
    pub(crate) store_total: u64,
    pub(crate) store_ms: f64,
    pub(crate) handler_scanned: u64,
    pub(crate) handler_dynamodb: usize,
    pub(crate) handler_sequential: usize,
    pub(crate) handler_ms: f64,
    pub(crate) handler_status: i64,
    pub(crate) handler_items: usize,
    pub(crate) full_page_items_read: u64,
}

/// The list-cost scenario's results: one run per size, and the list function's memory.
pub(crate) struct Lists {
    pub(crate) runs: Vec<ListRun>,
    pub(crate) memory: Vec<ListMemory>,
}

/// The list function's peak RSS for one page at an offset (after the largest seeding).
pub(crate) struct ListMemory {
    pub(crate) offset: u32,
    pub(crate) verifications: usize,
    pub(crate) peak_rss: Option<u64>,
    pub(crate) status: i64,
    pub(crate) items: usize,
}

pub(crate) const LIST_ACCOUNT: &str = "acct_bench";

/// Resets the process's peak RSS (VmHWM) to its current RSS (Linux: `clear_refs` 5).
fn reset_peak_rss(pid: u32) {
    let _ = std::fs::write(format!("/proc/{pid}/clear_refs"), "5");
}

/// The handler's answer: its status and the page's item count.
fn page_answer(body: &str) -> (i64, usize) {
    let body: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let items = body["body"]
        .as_str()
        .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok())
        .and_then(|b| b["data"].as_array().map(Vec::len))
        .unwrap_or(0);
    (body["statusCode"].as_i64().unwrap_or(0), items)
}

pub(crate) async fn list_cost(
    root: &Path,
    launch: &Launch,
    moto: &Moto,
    sdk: &aws_config::SdkConfig,
    sizes: &[usize],
) -> Result<Lists, Error> {
    let names = Resources::named(&format!(
        "bench-list-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    ));
    let created = stack::bootstrap(sdk, &names).await.map_err(err)?;
    let client = aws_sdk_dynamodb::Client::new(sdk);
    let store = DynamoStore::new(client.clone(), names.table.clone());
    let (_live, test_key) = stack::seed_account(&store, LIST_ACCOUNT, "business", false).await?;
    let template =
        std::fs::read_to_string(root.join("events/list-verifications/200-default.json"))?;
    let mut event: serde_json::Value = serde_json::from_str(&template)?;
    event["headers"]["authorization"] = format!("Bearer {test_key}").into();
    let event = event.to_string();

    let proxy = Proxy::start(&moto.endpoint).await?;
    let mut api = RuntimeApi::start().await?;
    let env = lambda_env(
        "list-verifications",
        &api.endpoint(),
        &proxy.endpoint,
        &names.table,
        &created,
    )?;
    let mut child = launch.spawn(&env)?;
    let result = async {
        wait_next(&mut api, &mut child, 1, &launch.log).await?;
        // One unmeasured request first: every measured one is then a warm instance's, with the
        // account's daily window open, so the sizes differ in nothing but the table.
        tokio::time::timeout(STEP_TIMEOUT, api.invoke(&event))
            .await
            .map_err(|_| err("list-verifications: no answer"))?
            .ok_or_else(|| err("list-verifications: runtime API closed"))?;
        wait_next(&mut api, &mut child, 2, &launch.log).await?;
        let mut nexts = 2;
        let mut runs = Vec::new();
        let mut seeded = 0;
        for &size in sizes {
            let t = Instant::now();
            devstack::seed::seed_verifications(&client, &names.table, LIST_ACCOUNT, seeded, size)
                .await
                .map_err(err)?;
            let seed_seconds = t.elapsed().as_secs_f64();
            seeded = size;
            eprintln!("  seeded {size} verifications in {seed_seconds:.1} s");
            let query = |limit| ListQuery {
                account_id: LIST_ACCOUNT.into(),
                mode: Mode::Test,
                status: None,
                offset: 0,
                limit,
                expired_if_created_by: chrono::Utc::now() - domain::VERIFICATION_LIFETIME,
            };
            let t = Instant::now();
            let page = store
                .list_verifications(&query(service::handlers::list_verifications::DEFAULT_LIMIT))
                .await?;
            let store_ms = ms(t.elapsed());
            let full = store
                .list_verifications(&query(service::handlers::list_verifications::MAX_LIMIT))
                .await?;
            proxy.take();
            let (outcome, took) =
                tokio::time::timeout(Duration::from_secs(300), api.invoke(&event))
                    .await
                    .map_err(|_| err("list-verifications: no answer"))?
                    .ok_or_else(|| err("list-verifications: runtime API closed"))?;
            nexts += 1;
            wait_next(&mut api, &mut child, nexts, &launch.log).await?;
            let calls = CallStats::of(&proxy.take());
            let (handler_status, handler_items) = page_answer(&outcome.body);
            runs.push(ListRun {
                verifications: size,
                seed_seconds,
                store_items_read: page.items_read,
                store_items: page.items.len(),
                store_total: page.total,
                store_ms,
                handler_scanned: calls.scanned,
                handler_dynamodb: calls.dynamodb,
                handler_sequential: calls.sequential,
                handler_ms: ms(took),
                handler_status,
                handler_items,
                full_page_items_read: full.items_read,
            });
        }
        // The peak RSS of a page of 100 at offset 0 and at the deepest offset (10,000), each
        // measured from the RSS before it: the skipped items are counted and dropped.
        let mut memory = Vec::new();
        let deepest = service::handlers::list_verifications::MAX_OFFSET;
        for offset in [0, deepest].into_iter().filter(|o| (*o as usize) < seeded) {
            let mut paged: serde_json::Value = serde_json::from_str(&event)?;
            paged["rawQueryString"] = format!("offset={offset}&limit=100").into();
            paged["queryStringParameters"] =
                serde_json::json!({"offset": offset.to_string(), "limit": "100"});
            let pid = child.id().ok_or_else(|| err("list-verifications exited"))?;
            reset_peak_rss(pid);
            let outcome =
                tokio::time::timeout(Duration::from_secs(300), api.invoke(&paged.to_string()))
                    .await
                    .map_err(|_| err("list-verifications: no answer"))?
                    .ok_or_else(|| err("list-verifications: runtime API closed"))?;
            nexts += 1;
            wait_next(&mut api, &mut child, nexts, &launch.log).await?;
            let (status, items) = page_answer(&outcome.0.body);
            memory.push(ListMemory {
                offset,
                verifications: seeded,
                peak_rss: peak_rss(pid),
                status,
                items,
            });
        }
        Ok::<_, Error>(Lists { runs, memory })
    }
    .await;
    stop(child).await;
    // Frees moto's memory for what follows.
    let _ = client.delete_table().table_name(&names.table).send().await;
    result
}

// ------------------------------------------------------------------------------------------------
// 6. Webhook batch

pub(crate) struct WebhookRun {
    pub(crate) one: Spread,
    pub(crate) ten: Spread,
    pub(crate) ten_received: usize,
    pub(crate) ten_max_in_flight: usize,
}

pub(crate) fn webhook_event(sample: &str, url: &str, n: usize) -> Result<String, Error> {
    let mut event: serde_json::Value =
        serde_json::from_str(&sample.replace(SAMPLE_WEBHOOK_URL, url))?;
    let record = event["Records"][0].clone();
    let mut records = Vec::new();
    for i in 0..n {
        let mut r = record.clone();
        r["messageId"] = uuid::Uuid::new_v4().to_string().into();
        let mut body: serde_json::Value =
            serde_json::from_str(r["body"].as_str().ok_or_else(|| err("sample body"))?)?;
        body["webhook_id"] = format!("msg_bench_{i}_{}", uuid::Uuid::new_v4().simple()).into();
        r["body"] = body.to_string().into();
        records.push(r);
    }
    event["Records"] = records.into();
    Ok(event.to_string())
}

pub(crate) async fn webhook_batch(
    root: &Path,
    launch: &Launch,
    moto: &Moto,
    sdk: &aws_config::SdkConfig,
    rounds: usize,
) -> Result<WebhookRun, Error> {
    let (names, created, store) = fresh_stack(sdk, "bench-hook").await?;
    let hook = slow_receiver(Duration::from_millis(200)).await?;
    let sample =
        std::fs::read_to_string(root.join("events/deliver-webhook/delivered-one-message.json"))?;
    let mut api = RuntimeApi::start().await?;
    let mut env = lambda_env(
        "deliver-webhook",
        &api.endpoint(),
        &moto.endpoint,
        &names.table,
        &created,
    )?;
    env.push(local_receiver(&hook));
    let mut child = launch.spawn(&env)?;
    let result = async {
        wait_next(&mut api, &mut child, 1, &launch.log).await?;
        let mut nexts = 1;
        let (mut one, mut ten) = (Vec::new(), Vec::new());
        let (mut received, mut max_in_flight) = (usize::MAX, usize::MAX);
        // Round 0 warms the instance (connections to moto) and is not counted.
        for round in 0..=rounds {
            for n in [1, 10] {
                hook.reset();
                let event = webhook_event(&sample, &hook.url, n)?;
                store_queued_webhooks(&store, &event, &hook.url).await?;
                let (outcome, took) = tokio::time::timeout(STEP_TIMEOUT, api.invoke(&event))
                    .await
                    .map_err(|_| err("deliver-webhook: no answer"))?
                    .ok_or_else(|| err("deliver-webhook: runtime API closed"))?;
                nexts += 1;
                wait_next(&mut api, &mut child, nexts, &launch.log).await?;
                let body: serde_json::Value =
                    serde_json::from_str(&outcome.body).unwrap_or_default();
                let failures = body["batchItemFailures"].as_array().map_or(0, Vec::len);
                if failures > 0 || hook.answered() != n {
                    return Err(err(format!(
                        "deliver-webhook: {failures} failures, {} of {n} received: {}",
                        hook.answered(),
                        outcome.body
                    )));
                }
                if round == 0 {
                    continue;
                }
                if n == 1 {
                    one.push(ms(took));
                } else {
                    ten.push(ms(took));
                    received = received.min(hook.answered());
                    max_in_flight = max_in_flight.min(hook.max_in_flight());
                }
            }
        }
        Ok::<_, Error>(WebhookRun {
            one: Spread::new(one),
            ten: Spread::new(ten),
            ten_received: received,
            ten_max_in_flight: max_in_flight,
        })
    }
    .await;
    stop(child).await;
    result
}
