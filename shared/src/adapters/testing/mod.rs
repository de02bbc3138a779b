//! Test support (feature `test-support`, enabled by the test crates' dev-dependencies): the store
//! in memory, a fault-injecting wrapper for any store, and a clock the test moves.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use crate::ports::Clock;

mod faulty;
mod memory;

pub use faulty::{ArmedFaults, FaultPlan, FaultyStore, StoreOp};
pub use memory::MemoryStore;

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
