//! Links end (issue 33, point 5): a closed verification's page and PDF copy stay for the window
//! after the close (30 days by default), then every path under the link answers the same closed
//! page, holding nothing of the verification, the tenant or the landlord, and changing nothing.
//! Against DynamoDB on moto, through the local server.

use super::*;

use common::completed_days_ago;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_links_page_and_pdf_end_after_the_window_and_then_hold_no_data() {
    let env = env().await;
    let body = json!({
        "tenant_email": "wendy.window+good@example.com", "tenant_name": "Wendy Window",
        "property_address": "30 Window Way", "monthly_rent": 1777,
    });
    let (id, link) = create_with(&env, &env.test_key, body).await;
    open_and_consent(&env, &link).await;
    let p = page(&env, "POST", &link, Some("action=connect&scenario=good")).await;
    assert_eq!(p.status, 303, "{}", p.html);
    let landlord = env
        .store
        .get_account(devstack::stack::DEMO_ACCOUNT)
        .await
        .unwrap()
        .unwrap()
        .name;
    let pdf = format!("{link}/report.pdf");

    // A day inside the window: the page and the PDF as before.
    completed_days_ago(&env, &id, 29).await;
    let p = page(&env, "GET", &link, None).await;
    assert_eq!(p.status, 200);
    assert!(
        p.html.contains("30 Window Way") && p.html.contains(&landlord),
        "{}",
        p.html
    );
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let copy = client
        .get(format!("{}{pdf}", env.base))
        .send()
        .await
        .unwrap();
    assert_eq!(copy.status(), 200);

    // Past it: the closed page everywhere, with no data, and the item unchanged.
    completed_days_ago(&env, &id, 31).await;
    let before = raw_item(&env, &id).await;
    let secrets = [
        "Wendy",
        "wendy.window",
        "30 Window Way",
        "1777",
        "1,777",
        landlord.as_str(),
        id.as_str(),
    ];
    let sample = format!("{link}/samples/genuine.pdf");
    for (method, path, form) in [
        ("GET", &link, None),
        ("HEAD", &link, None),
        ("GET", &pdf, None),
        ("GET", &sample, None),
        ("POST", &link, Some("action=note&note=still+here")),
    ] {
        let p = page(&env, method, path, form).await;
        assert_eq!(p.status, 410, "{method} {path}");
        if method != "HEAD" {
            assert!(p.html.contains("This link has ended"), "{}", p.html);
            let shown = without_random_parts(&p.html);
            for secret in secrets {
                assert!(
                    !shown.contains(secret),
                    "{method} {path} shows {secret}: {shown}"
                );
            }
        }
    }
    assert_eq!(raw_item(&env, &id).await, before, "nothing changed");
    // The landlord still reads the report (the account's retention, not the link's window).
    assert_eq!(
        api_get(&env, &env.test_key, &id).await["status"],
        "completed"
    );
}

/// The page without what each response draws at random, its reference (a UUID) and its CSP
/// nonces: they may hold any run of hex digits, the rent's "1777" included.
fn without_random_parts(html: &str) -> String {
    let mut shown = html.to_string();
    for (start, end) in [("Reference: ", "<"), ("nonce=\"", "\"")] {
        let mut from = 0;
        while let Some(at) = shown[from..].find(start).map(|i| from + i + start.len()) {
            let stop = shown[at..].find(end).map_or(shown.len(), |i| at + i);
            shown.replace_range(at..stop, "");
            from = at;
        }
    }
    shown
}
