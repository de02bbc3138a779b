//! Round trips of the requests an account refuses, and of the first request of a UTC day.

use super::*;

/// A request its account refuses (401 revoked key, 429 daily allowance used up, 403 subscription
/// inactive) on a write that carries its own metering: the one read of the account and its usage
/// tells why. No write at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_its_account_refuses_is_one_sequential_round_trip() {
    let env = env().await;
    let counter = RoundTrips::default();
    let now = chrono::Utc::now();
    let seed = |id: &'static str, plan: &'static str| {
        let store = env.store.clone();
        async move {
            devstack::stack::seed_account(&store, id, plan, true)
                .await
                .unwrap()
                .1
        }
    };
    let revoked = seed("acct_rt_revoked", "business").await;
    let key_id = devstack::stack::demo_key("acct_rt_revoked", Mode::Test).key_id;
    assert!(
        env.store
            .revoke_api_key("acct_rt_revoked", &key_id, now)
            .await
            .unwrap()
    );
    let inactive = seed("acct_rt_inactive", "business").await;
    let canceled = (domain::SubscriptionStatus::Canceled, now);
    assert!(
        env.store
            .update_account("acct_rt_inactive", None, Some(canceled))
            .await
            .unwrap()
    );
    // The "tiny" plan allows 3 requests a day: used up here.
    let used_up = seed("acct_rt_tiny", "tiny").await;
    let setup = instance(&env, &counter);
    for _ in 0..3 {
        let resp = get_usage(
            &setup,
            request(http::Method::GET, "/api/v1/usage", &used_up),
        )
        .await;
        assert_eq!(resp.status, 200, "{}", resp.body);
    }
    counter.take();
    let cancel = |key: &str| {
        let id = uuid::Uuid::new_v4();
        request(
            http::Method::DELETE,
            &format!("/api/v1/verify?verification_id={id}"),
            key,
        )
    };
    let mut measured = Vec::new();
    for (why, key, status) in [
        ("revoked key", &revoked, 401),
        ("daily allowance used up", &used_up, 429),
        ("subscription inactive", &inactive, 403),
    ] {
        let create = measure!(&env, &counter, "create-verification", status, |deps, n| {
            create_verification(
                deps,
                create_request(key, &format!("refused{n}@example.com")),
            )
        });
        let cancelled = measure!(&env, &counter, "cancel-verification", status, |deps, _| {
            cancel_verification(deps, cancel(key))
        });
        for m in [create, cancelled] {
            measured.push((format!("{}, {why}", m.name), m.cold, m.warm, m.calls));
        }
    }
    let table: Vec<String> = (measured.iter())
        .map(|(name, cold, warm, calls)| format!("{name}: cold {cold}, warm {warm} ({calls})"))
        .collect();
    println!("sequential DynamoDB round trips\n{}", table.join("\n"));
    for (name, cold, warm, _) in &measured {
        assert_eq!((*cold, *warm), (1, 1), "{name}: {}", table.join("; "));
    }
    // Refused: nothing was counted on the used-up account, nor created on any.
    let tiny = env
        .store
        .get_account("acct_rt_tiny")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(tiny.api_requests, 3);
    let month = domain::usage_month(now);
    for account in ["acct_rt_revoked", "acct_rt_inactive", "acct_rt_tiny"] {
        let (stats, _) = env
            .store
            .owner_stats(account, Mode::Test, &month)
            .await
            .unwrap();
        assert_eq!(stats.total, 0, "{account}");
    }
}

/// The first request of a UTC day (cold and warm: each round on a day of its own) takes the same
/// two round trips as any other: the day's count lives on an attribute named by the day, so it
/// starts with the same one write as any other count, after the one read of the account and its
/// usage.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_request_of_a_utc_day_is_the_usual_two_round_trips() {
    let env = env().await;
    devstack::stack::seed_fixtures(&env.store).await.unwrap();
    let key = env.test_key.as_str();
    let counter = RoundTrips::default();
    let setup = instance(&env, &counter);
    let mut open = Vec::new();
    for n in 0..4 {
        let resp =
            create_verification(&setup, create_request(key, &format!("day{n}@example.com"))).await;
        assert_eq!(resp.status, 201, "{}", resp.body);
        open.push(
            json_of(&resp)["data"]["verification_id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let mut to_cancel = Vec::new();
    for n in 0..2 {
        let resp =
            households::create_household(&setup, household_request(key, &format!("daycx{n}")))
                .await;
        assert_eq!(resp.status, 201, "{}", resp.body);
        to_cancel.push(
            json_of(&resp)["data"]["household_id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let resp = households::create_household(&setup, household_request(key, "dayhh")).await;
    assert_eq!(resp.status, 201, "{}", resp.body);
    let household_id = json_of(&resp)["data"]["household_id"]
        .as_str()
        .unwrap()
        .to_string();
    counter.take();
    let completed = devstack::stack::FIXTURE_COMPLETED;
    let get = |path: String| request(http::Method::GET, &path, key);
    // Each round on the next UTC day (the open verifications are used first, before expiry).
    let mut day = 0i64;
    let mut last_at = chrono::Utc::now();
    let mut measured = Vec::new();
    macro_rules! first_of_day {
        ($name:expr, $status:expr, $call:expr) => {{
            let deps = instance(&env, &counter);
            deps.clock.advance(chrono::Duration::days(day));
            let mut trips = Vec::new();
            let mut calls = Vec::new();
            for round in 0..2usize {
                day += 1;
                deps.clock.advance(chrono::Duration::days(1));
                last_at = deps.clock.now();
                let resp: ApiResponse = $call(&deps, round).await;
                assert_eq!(resp.status, $status, "{} ({round}): {}", $name, resp.body);
                let (_, depth, trace) = counter.take();
                trips.push(depth);
                calls.push(trace);
            }
            measured.push(($name, trips[0], trips[1], calls.join(" | ")));
        }};
    }
    first_of_day!("cancel-verification", 200, |deps, n: usize| {
        cancel_verification(
            deps,
            request(
                http::Method::DELETE,
                &format!("/api/v1/verify?verification_id={}", open[n]),
                key,
            ),
        )
    });
    first_of_day!("resend-verification", 202, |deps, n: usize| {
        resend_verification(
            deps,
            request(
                http::Method::POST,
                &format!("/api/v1/verify/resend?verification_id={}", open[2 + n]),
                key,
            ),
        )
    });
    first_of_day!("cancel-household", 200, |deps, n: usize| {
        households::cancel_household(
            deps,
            request(
                http::Method::DELETE,
                &format!("/api/v1/households?household_id={}", to_cancel[n]),
                key,
            ),
        )
    });
    first_of_day!("create-verification", 201, |deps, n| {
        create_verification(
            deps,
            create_request(key, &format!("firstday{n}@example.com")),
        )
    });
    first_of_day!("create-household", 201, |deps, n| {
        households::create_household(deps, household_request(key, &format!("firsthh{n}")))
    });
    first_of_day!("get-verification", 200, |deps, _| {
        get_verification(
            deps,
            get(format!("/api/v1/verify?verification_id={completed}")),
        )
    });
    first_of_day!("get-usage", 200, |deps, _| {
        get_usage(deps, get("/api/v1/usage".into()))
    });
    first_of_day!("list-verifications", 200, |deps, _| {
        list_verifications(deps, get("/api/v1/verifications".into()))
    });
    first_of_day!("get-household", 200, |deps, _| {
        households::get_household(
            deps,
            get(format!("/api/v1/households?household_id={household_id}")),
        )
    });
    let table: Vec<String> = (measured.iter())
        .map(|(name, cold, warm, calls)| format!("{name}: cold {cold}, warm {warm} ({calls})"))
        .collect();
    println!(
        "sequential DynamoDB round trips, first request of a UTC day\n{}",
        table.join("\n")
    );
    // Every one, a household's cancel included (its id names its members), is the read of the
    // account and its usage, then the one write.
    for (name, cold, warm, _) in &measured {
        assert_eq!((*cold, *warm), (2, 2), "{name}: {}", table.join("; "));
    }
    assert_eq!(
        day,
        2 * measured.len() as i64,
        "a day of its own for every request"
    );
    // Each of those days counted from one: the last day's count is its one request.
    let account = env
        .store
        .get_account(devstack::stack::DEMO_ACCOUNT)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(account.api_window, Some(domain::api_window(last_at)));
    assert_eq!(account.api_requests, 1);
}
