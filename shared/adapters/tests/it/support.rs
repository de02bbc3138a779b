//! Helpers every area of this binary shares: the fixed clock, the settings the handlers run with,
//! and reading a response body.

use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::Plan;
use domain::plans::Plans;
use serde_json::Value;
use service::config::{LiveIncome, Settings};
use service::http::ApiResponse;

/// The instant the handler tests run at, unless a test moves its own clock.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 10, 12, 0, 0).unwrap()
}

/// A plan with API access.
pub fn plan(name: &str, verifications_per_month: u32, api_requests_per_day: u32) -> Plan {
    Plan {
        name: name.into(),
        verifications_per_month,
        api_requests_per_day,
        api_access: true,
        sms_per_month: 0,
        key_burst: Default::default(),
    }
}

/// The settings of a local stack with these plans.
pub fn settings_with(plans: Plans) -> Settings {
    Settings {
        table_name: "unused".into(),
        public_base_url: Some("https://verify.example.com".into()),
        plans,
        local_webhook_origins: Default::default(),
        verification_lifetime: Duration::days(7),
        live_income: LiveIncome::local_sandbox(),
        sms_region: Default::default(),
        sms_countries: Default::default(),
        documents: false,
    }
}

/// The settings of a local stack whose one plan, `pro`, allows 50 verifications a month.
pub fn settings() -> Settings {
    settings_with(Plans::new(vec![plan("pro", 50, 1000)]))
}

/// A response's JSON body.
pub fn body(response: &ApiResponse) -> Value {
    serde_json::from_str(&response.body).expect("JSON body")
}
