//! What the tenant page reads besides the verification: who asks (for a rendered page).

use super::deps::PortalDeps;
use domain::Verification;
use ports::{AccountStore, StoreError};

/// Who asks, as the page names them (read only when a page is rendered).
pub(super) async fn requester_name<S: AccountStore, C, P, U>(
    deps: &PortalDeps<S, C, P, U>,
    v: &Verification,
) -> Result<String, StoreError> {
    Ok(deps
        .store
        .get_account_name(&v.account_id)
        .await?
        .unwrap_or_else(|| "the requester".to_string()))
}
