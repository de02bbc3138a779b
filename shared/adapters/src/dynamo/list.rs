//! The list page: filters by the status a reader sees, before any sweeper ran.
//!
//! An open (pending, in_progress) verification past `expires_at` is shown `expired`, but until
//! the expiry marker's TTL fires (possibly hours late) it is still stored, indexed and counted as
//! open. Since `expires_at = created_at + lifetime`, such "stale" items are exactly the open ones
//! whose created sort key is at or before `now - lifetime`, so a key condition on GSI2's sort key
//! separates them without reading the rest.
//!
//! The owner's counters hold one `open` counter for both open statuses (so a cancel need not know
//! which it ends: one write), so the list tells them apart by counting the in_progress range:
//!
//! - `in_progress`: the fresh range only; `total` = a COUNT of that fresh range.
//! - `pending`: the fresh range only; `total` = `open` - the stale pending count - a COUNT of the
//!   whole in_progress partition.
//! - `expired`: stored `expired` merged (newest first) with the stale pending and in_progress
//!   ranges; `total` = counter + both stale counts.
//! - other filters and no filter: as stored (the page shows the effective status).
//!
//! A page at any offset holds only its own items plus one query page per source: the items
//! before it are read with their keys only, counted and dropped (`list_cursor`).
//!
//! Every query of a page runs beside the others and the counters' read: one parallel round
//! (`list_verifications_capped`, before the request is allowed, stops each at a constant). The
//! COUNT queries cost what they scan: the stale ranges hold the open verifications past expiry not
//! swept yet (normally none to a few, as DynamoDB's TTL deletes markers within hours; a stopped
//! sweeper lets it grow until it runs again), the in_progress partition the tenants mid-flow
//! (at most those created within one lifetime plus the stale ones; a COUNT reads about 4 KB of
//! items per read unit, up to 1 MB per call). The split assumes the deployment's lifetime; items
//! created under another lifetime (a changed `VERIFICATION_LIFETIME_SECONDS`) are filtered by the
//! new one until they are swept.

use aws_sdk_dynamodb::types::Select;

use chrono::{DateTime, Utc};

use super::items::{Item, from_item, owner_stats_from_item, s};
use super::list_cursor::{self, Source};
use super::{DynamoStore, unavailable};
use domain::{Status, Verification, format_ts};
use ports::{ListPage, ListQuery, StoreError};
use service::table_schema::{self as schema, keys};

/// GSI2 sort keys are `<created, RFC 3339 millis>#<id>`; `$` sorts right after `#`, so every key
/// of a verification created at or before `cutoff` (to the millisecond) is below this bound and
/// every later one above it.
fn stale_bound(cutoff: DateTime<Utc>) -> String {
    format!("{}$", format_ts(cutoff))
}

/// Which part of an index partition a query reads.
#[derive(Clone, Copy)]
enum Range<'a> {
    All,
    /// Sort key above the bound: created after the cutoff.
    After(&'a str),
    /// Sort key below the bound: created at or before the cutoff.
    Before(&'a str),
}

impl<'a> Range<'a> {
    /// The key condition (`#pk`, `#sk`, `:pk`, `:bound`) and the bound it needs, if any.
    fn key_condition(self) -> (&'static str, Option<&'a str>) {
        match self {
            Range::All => ("#pk = :pk", None),
            Range::After(b) => ("#pk = :pk AND #sk > :bound", Some(b)),
            Range::Before(b) => ("#pk = :pk AND #sk < :bound", Some(b)),
        }
    }
}

impl DynamoStore {
    /// How many verifications of this stored status lie in a range of creation times (a COUNT
    /// query: nothing is returned, the range is scanned); None when that would scan over `cap`
    /// items (then at most `cap` were scanned).
    async fn count_of_status(
        &self,
        q: &ListQuery,
        status: Status,
        range: Range<'_>,
        cap: Option<u32>,
    ) -> Result<Option<u64>, StoreError> {
        let (condition, bound) = range.key_condition();
        let mut count = 0u64;
        let mut scanned = 0u64;
        let mut start = None;
        loop {
            let room = cap.map(|cap| u64::from(cap).saturating_sub(scanned));
            let mut request = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(schema::GSI_OWNER_STATUS)
                .key_condition_expression(condition)
                .expression_attribute_names("#pk", schema::GSI2PK)
                .expression_attribute_values(
                    ":pk",
                    s(keys::owner_status(&q.account_id, q.mode, status)),
                )
                .select(Select::Count)
                .set_limit(room.map(|r| r.min(i32::MAX as u64) as i32))
                .set_exclusive_start_key(start);
            if let Some(bound) = bound {
                request = request
                    .expression_attribute_names("#sk", schema::GSI2SK)
                    .expression_attribute_values(":bound", s(bound));
            }
            let out = request.send().await.map_err(unavailable)?;
            count += out.count.max(0) as u64;
            scanned += out.scanned_count.max(0) as u64;
            start = out.last_evaluated_key;
            if start.is_none() {
                return Ok(Some(count));
            }
            if cap.is_some_and(|cap| scanned >= u64::from(cap)) {
                return Ok(None);
            }
        }
    }

    /// One status as stored (GSI2), in a range of creation times, as a source of a page.
    fn status_source<'b>(q: &ListQuery, status: Status, range: Range<'b>) -> Source<'b> {
        let (condition, bound) = range.key_condition();
        Source {
            index: schema::GSI_OWNER_STATUS,
            pk_name: schema::GSI2PK,
            sk_name: schema::GSI2SK,
            pk: keys::owner_status(&q.account_id, q.mode, status),
            condition,
            bound,
        }
    }

    /// The page of the filtered set (newest first, `offset..offset + limit`), how its total
    /// follows from the counters, and the items read (those counted and skipped included).
    async fn filtered_page(
        &self,
        q: &ListQuery,
        cap: Option<u32>,
    ) -> Result<Option<(Vec<Item>, Total, u64)>, StoreError> {
        let bound = stale_bound(q.expired_if_created_by);
        let (offset, limit) = (q.offset as usize, q.limit as usize);
        let page = |sources| list_cursor::page_of(self, sources, offset, limit);
        let status = |status, range| Self::status_source(q, status, range);
        match q.status {
            None => {
                let owner = Source {
                    index: schema::GSI_OWNER_CREATED,
                    pk_name: schema::GSI1PK,
                    sk_name: schema::GSI1SK,
                    pk: keys::owner(&q.account_id, q.mode),
                    condition: Range::All.key_condition().0,
                    bound: None,
                };
                let (items, n) = page(vec![owner]).await?;
                Ok(Some((items, Total::Counter(0), n)))
            }
            Some(Status::Pending) => {
                let pending = Status::Pending;
                let (read, stale, in_progress) = futures::join!(
                    page(vec![status(pending, Range::After(&bound))]),
                    self.count_of_status(q, pending, Range::Before(&bound), cap),
                    self.count_of_status(q, Status::InProgress, Range::All, cap),
                );
                let ((items, n), stale, in_progress) = (read?, stale?, in_progress?);
                let (Some(stale), Some(in_progress)) = (stale, in_progress) else {
                    return Ok(None);
                };
                let n = n + stale + in_progress;
                Ok(Some((items, Total::OpenLess(stale + in_progress), n)))
            }
            Some(Status::InProgress) => {
                let in_progress = Status::InProgress;
                let (read, fresh) = futures::join!(
                    page(vec![status(in_progress, Range::After(&bound))]),
                    self.count_of_status(q, in_progress, Range::After(&bound), cap),
                );
                let ((items, n), fresh) = (read?, fresh?);
                let Some(fresh) = fresh else {
                    return Ok(None);
                };
                Ok(Some((items, Total::Counted(fresh), n + fresh)))
            }
            Some(Status::Expired) => {
                // Stored `expired` merged with the open ones past expiry, newest first.
                let sources = vec![
                    status(Status::Expired, Range::All),
                    status(Status::Pending, Range::Before(&bound)),
                    status(Status::InProgress, Range::Before(&bound)),
                ];
                let (read, stale_pending, stale_in_progress) = futures::join!(
                    page(sources),
                    self.count_of_status(q, Status::Pending, Range::Before(&bound), cap),
                    self.count_of_status(q, Status::InProgress, Range::Before(&bound), cap),
                );
                let (Some(stale_pending), Some(stale_in_progress)) =
                    (stale_pending?, stale_in_progress?)
                else {
                    return Ok(None);
                };
                let (items, n) = read?;
                let stale = stale_pending + stale_in_progress;
                Ok(Some((items, Total::Counter(stale), n + stale)))
            }
            Some(other) => {
                let (items, n) = page(vec![status(other, Range::All)]).await?;
                Ok(Some((items, Total::Counter(0), n)))
            }
        }
    }

    /// The page of `q`. With `cap`: no query reads over `cap` items (None when the page or a
    /// count would need more; a deeper page reads nothing).
    pub(super) async fn list_page(
        &self,
        q: &ListQuery,
        cap: Option<u32>,
    ) -> Result<Option<ListPage>, StoreError> {
        let wanted = (q.offset as usize) + (q.limit as usize);
        if cap.is_some_and(|cap| wanted > cap as usize) {
            return Ok(None);
        }
        // The counters are one item, read alongside the page queries.
        let (filtered, stats) = futures::join!(
            self.filtered_page(q, cap),
            self.get(keys::stats(&q.account_id, q.mode))
        );
        let Some((read, total, items_read)) = filtered? else {
            return Ok(None);
        };
        let stats = owner_stats_from_item(stats?)?;
        let total = match (total, q.status) {
            (Total::Counter(_), None) => stats.total,
            (Total::Counter(stale), Some(status)) => stats.count(status) + stale,
            // Stale pending are counted in `open` until swept, but shown expired.
            (Total::OpenLess(other), _) => stats.open.saturating_sub(other),
            (Total::Counted(n), _) => n,
        };
        let items = read
            .into_iter()
            .map(from_item)
            .collect::<Result<Vec<Verification>, _>>()?;
        Ok(Some(ListPage {
            items,
            total,
            items_read,
        }))
    }
}

/// How a filter's total follows from the owner's counters and the COUNT queries beside its page.
enum Total {
    /// The filter's own counter (all of them without a filter), plus the open ones past expiry
    /// shown as `expired`.
    Counter(u64),
    /// The `open` counter less the open ones the filter does not show.
    OpenLess(u64),
    /// Counted by a query.
    Counted(u64),
}
