//! The list of an owner's verifications, as the store answers it.

use chrono::{DateTime, Utc};

use domain::{Mode, Status, Verification};

/// The most items a COUNT behind a list's `total` scans before the request is allowed: the
/// page then runs beside the metering write at a cost bounded by a constant (a refused request
/// pays at most this per count); a larger count follows the write.
pub const COUNT_CAP: u32 = 100;

#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    pub account_id: String,
    pub mode: Mode,
    /// The status as shown (`Verification::effective_status`), not as stored.
    pub status: Option<Status>,
    pub offset: u32,
    pub limit: u32,
    /// `now - lifetime`: an open verification created at or before this instant is past its
    /// `expires_at` and is shown (so filtered and counted) as expired, swept or not.
    pub expired_if_created_by: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ListPage {
    pub items: Vec<Verification>,
    /// Size of the whole (filtered) set: the counters, corrected by the open verifications past
    /// expiry that no sweeper has moved yet; for `pending` and `in_progress` (one shared counter),
    /// also by a count of the in-progress ones.
    pub total: u64,
    /// Verification items read from the table to build the page (for the benchmark and the cost
    /// tests): at most offset+limit, three times that for `status=expired` (a merge of three
    /// sorted queries), plus the unswept expired ones counted for `total`, plus for `pending` and
    /// `in_progress` the in-progress ones counted for it.
    pub items_read: u64,
}
