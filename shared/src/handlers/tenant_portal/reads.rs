//! What the tenant page reads besides the verification: who asks (for a rendered page), and the
//! household of a member (beside it, or before any provider call), so that a member of a
//! cancelled household is shown cancelled before the stream writes it.

use super::PortalDeps;
use crate::domain::Verification;
use crate::ports::{Store, StoreError};

/// Who asks, as the page names them (read only when a page is rendered).
pub(super) async fn requester_name<S: Store, C, P>(
    deps: &PortalDeps<S, C, P>,
    v: &Verification,
) -> Result<String, StoreError> {
    Ok(deps
        .store
        .get_account(&v.account_id)
        .await?
        .map_or_else(|| "the requester".to_string(), |a| a.name))
}

/// Member `v` as its household's cancel makes it (`Household::member_as_of`): cancelled when the
/// household was cancelled while it was open. Reads the household only for an open member; a
/// household gone (or never there) changes nothing.
pub(super) async fn household_view<S: Store, C, P>(
    deps: &PortalDeps<S, C, P>,
    v: Verification,
) -> Result<Verification, StoreError> {
    match v.household_id {
        Some(household_id) if v.status.is_open() => {
            Ok(match deps.store.get_household(household_id).await? {
                Some(household) => household.member_as_of(&v),
                None => v,
            })
        }
        _ => Ok(v),
    }
}
