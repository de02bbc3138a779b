//! The statuses of a verification and its mode: plain values every part of the service reads.

use serde::{Deserialize, Serialize};

/// The five statuses of the contract (§3). "cancelled" is only ever a word in the cancel response;
/// a cancelled verification is stored as `Expired` with `cancelled_at` set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    InProgress,
    Completed,
    Expired,
    Failed,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Pending,
        Status::InProgress,
        Status::Completed,
        Status::Expired,
        Status::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::InProgress => "in_progress",
            Status::Completed => "completed",
            Status::Expired => "expired",
            Status::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Pending and in-progress verifications can still be cancelled, expired or completed.
    pub fn is_open(self) -> bool {
        matches!(self, Status::Pending | Status::InProgress)
    }
}

/// Live keys see live verifications, test keys see test ones; never the other way round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Live,
    Test,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Live => "live",
            Mode::Test => "test",
        }
    }
}
