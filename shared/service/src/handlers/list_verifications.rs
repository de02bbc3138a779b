//! `list-verifications`: GET /api/v1/verifications?limit=&offset=&status= The caller's
//! verifications of their key's mode, newest first, one page at a time; `household_id=` (additive)
//! lists one household's members.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::handlers::api::ApiDeps;
use crate::handlers::api::Caller;
use crate::handlers::api::respond::respond;
use crate::handlers::api::validate::integer_param;
use crate::handlers::api::views::list_item;
use crate::handlers::households;
use crate::http::{ApiRequest, ApiResponse};
use domain::error::ApiError;
use domain::household::Household;
use domain::metering::PresentedKey;
use domain::{Status, Verification};
use ports::list::COUNT_CAP;
use ports::{
    Clock, HouseholdStore, ListPage, ListQuery, MeterStore, StoreError, VerificationStore,
};

/// Page size when the caller names none.
pub const DEFAULT_LIMIT: u32 = 20;
/// Larger limits are clamped to this (and `pagination.limit` says so).
pub const MAX_LIMIT: u32 = 100;
/// Deep offsets cost O(offset) reads (of keys only: memory stays one page); past this, callers
/// should filter instead.
pub const MAX_OFFSET: u32 = 10_000;

/// The list query of a request, for the caller's account and mode, as seen at `now`.
fn list_query(
    req: &ApiRequest,
    key: &PresentedKey,
    now: DateTime<Utc>,
    lifetime: chrono::Duration,
) -> Result<ListQuery, ApiError> {
    let limit = integer_param(req, "limit", DEFAULT_LIMIT, 1, Some(MAX_LIMIT))?;
    let offset = integer_param(req, "offset", 0, 0, None)?;
    if offset > MAX_OFFSET {
        return Err(ApiError::validation(
            "offset",
            "out_of_range",
            format!("offset must be at most {MAX_OFFSET}; filter by status to narrow the list"),
        ));
    }
    // An empty `status=` is refused like any other value outside the five: leaving the
    // parameter out is how to list every status.
    let status = match req.query.get("status").map(|s| s.trim()) {
        None => None,
        Some(raw) => Some(Status::parse(raw).ok_or_else(|| {
            ApiError::validation(
                "status",
                "invalid",
                "status must be one of pending, in_progress, completed, expired, failed; \
                 leave it out to list every status",
            )
        })?),
    };
    Ok(ListQuery {
        account_id: key.account_id.clone(),
        mode: key.mode,
        status,
        offset,
        limit,
        expired_if_created_by: now - lifetime,
    })
}

/// What runs beside the metering write: the page of the list with every query capped
/// (`list_verifications_capped`: None when it needs more), or the household named by
/// `household_id=` with its members (one bounded read: `get_household_with_members`).
enum Prefetched {
    Page(Result<Option<ListPage>, StoreError>),
    Household(Result<Option<HouseholdWithMembers>, ApiError>),
}

type HouseholdWithMembers = Box<(Household, Vec<Verification>)>;

/// The members of the household named by `household_id=` as read beside the metering write,
/// filtered by status as shown and paged like the list; another account's household lists
/// nothing (its existence is not revealed).
fn household_page(
    fetched: Option<HouseholdWithMembers>,
    caller: &Caller,
    query: &ListQuery,
    now: DateTime<Utc>,
) -> ListPage {
    let Some((household, members)) = fetched
        .map(|b| *b)
        .filter(|(h, _)| households::is_visible(h, caller))
    else {
        return ListPage {
            items: vec![],
            total: 0,
            items_read: 0,
        };
    };
    let items_read = members.len() as u64;
    // As GET /households shows them: an open member of a cancelled household is cancelled.
    let mut members: Vec<Verification> =
        members.iter().map(|v| household.member_as_of(v)).collect();
    members.retain(|v| query.status.is_none_or(|s| v.effective_status(now) == s));
    // Newest first, as the list; members share their creation time, so by household order.
    let total = members.len() as u64;
    let items = members
        .into_iter()
        .skip(query.offset as usize)
        .take(query.limit as usize)
        .collect();
    ListPage {
        items,
        total,
        items_read,
    }
}

/// GET /api/v1/verifications?limit=&offset=&status=
pub async fn list_verifications<S, C>(deps: &ApiDeps<S, C>, req: ApiRequest) -> ApiResponse
where
    S: MeterStore + VerificationStore + HouseholdStore,
    C: Clock,
{
    let req = &req;
    let lifetime = deps.settings.verification_lifetime;
    let now = deps.clock.now();
    // A refused request (401/403/429) must not pay for an unbounded read, and never sees a page.
    // So the page beside the metering write is capped: each of its queries (the page's, and the
    // COUNTs behind `total` for `pending`, `in_progress` and `expired`) reads at most `COUNT_CAP`
    // items, and a page that needs more (a deeper offset, a larger count) follows the write that
    // allowed it. A refused request thus reads a bounded amount, whose result is dropped unread.
    // `household_id=` (additive) is bounded too: the household and its members, at most seven
    // items, so it runs beside the write (a bad id is answered once the request is metered).
    let prefetch = |key: PresentedKey| async move {
        if req.query.contains_key("household_id") {
            let fetched = async {
                let id = households::household_id_param(req)?;
                let found = deps.store.get_household_with_members(id).await?;
                Ok(found.map(Box::new))
            };
            return Some(Prefetched::Household(fetched.await));
        }
        let query = list_query(req, &key, now, lifetime).ok()?;
        let capped = deps.store.list_verifications_capped(&query, COUNT_CAP);
        Some(Prefetched::Page(capped.await))
    };
    respond(deps, req, prefetch, |caller, prefetched, now| async move {
        let query = list_query(req, &caller.key, now, lifetime)?;
        let page = match prefetched {
            Some(Prefetched::Household(fetched)) => household_page(fetched?, &caller, &query, now),
            Some(Prefetched::Page(Ok(Some(page)))) => page,
            Some(Prefetched::Page(Err(e))) => return Err(e.into()),
            Some(Prefetched::Page(Ok(None))) | None => {
                deps.store.list_verifications(&query).await?
            }
        };
        let ListQuery { limit, offset, .. } = query;
        let items: Vec<Value> = page.items.iter().map(|v| list_item(v, now)).collect();
        Ok(ApiResponse::json(
            200,
            &json!({
                "success": true,
                "data": items,
                "pagination": { "limit": limit, "offset": offset, "total": page.total },
            }),
        ))
    })
    .await
}
