//! Test support (feature `test-support`, enabled by the test crates' dev-dependencies): the store
//! in memory, a fault-injecting wrapper for any store, a clock the test moves, and the document
//! fixtures (`documents`).

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use crate::domain::{Account, SubscriptionStatus};
use crate::ports::Clock;

pub mod documents;
mod faulty;
mod faulty_claims;
mod faulty_erasure;
mod memory;
mod uploads;

pub use faulty::{ArmedFaults, FaultPlan, FaultyStore, StoreOp};
pub use memory::MemoryStore;
pub use uploads::{ExampleSigner, MemoryObjects};

/// A clock that stands still until the test moves it; clones share the time.
#[derive(Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    pub fn at(now: DateTime<Utc>) -> Self {
        ManualClock(Arc::new(Mutex::new(now)))
    }
    pub fn advance(&self, by: chrono::Duration) {
        *self.0.lock().unwrap() += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

/// An account on `plan`, subscribed and paid up, created at `now`, that has made no API request.
pub fn active_account(account_id: &str, plan: &str, now: DateTime<Utc>) -> Account {
    Account {
        account_id: account_id.into(),
        name: format!("{account_id} Lettings"),
        plan: plan.into(),
        subscription_status: SubscriptionStatus::Active,
        current_period_end: now + chrono::Duration::days(30),
        created_at: now,
        api_window: None,
        api_requests: 0,
        sms_month: 0,
        sms_sent: 0,
        revoked_keys: vec![],
        api_keys: Default::default(),
    }
}
