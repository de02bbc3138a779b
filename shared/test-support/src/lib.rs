//! Test support, a dev-dependency of the crates that test handlers (no function binary links it):
//! the store in memory, a fault-injecting wrapper for any store, a clock the test moves, and the
//! document fixtures (`documents`, and the generated layouts of `layouts`).

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use domain::Account;
use ports::Clock;

pub mod documents;
mod faulty;
mod faulty_claims;
mod faulty_erasure;
pub mod hostile;
pub mod layouts;
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
    Account::opened(account_id, &format!("{account_id} Lettings"), plan, now)
}
