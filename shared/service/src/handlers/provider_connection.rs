//! The outbox's piece that ends a tenant's connection at the income provider: once a verification
//! with a provider user closed (its report built, or it failed, expired or was cancelled), the
//! user is closed at the provider (Plaid: `/user/remove`, which removes its bank connections too),
//! then forgotten on the verification. A failure goes to the retry queue like any other piece.

use uuid::Uuid;

use crate::handlers::outbox::OutboxStore;
use crate::handlers::outbox::{OutboxDeps, OutboxError, RetryWork};
use domain::Verification;
use ports::IncomeProvider;

/// The piece for a verification that just closed holding a provider user (none otherwise).
pub(crate) fn close_work(old: &Verification, new: &Verification) -> Option<RetryWork> {
    (old.status.is_open() && !new.status.is_open() && new.provider_user.is_some()).then_some(
        RetryWork::CloseProviderUser {
            verification_id: new.verification_id,
        },
    )
}

/// Closes the verification's provider user, then forgets it (one conditional write on the user
/// closed). Done when there is none left: a redone piece closes nothing twice.
pub(crate) async fn close_user<S: OutboxStore, M, T, R, Q, C, P: IncomeProvider>(
    deps: &OutboxDeps<S, M, T, R, Q, C, P>,
    verification_id: Uuid,
) -> Result<(), OutboxError> {
    let Some(v) = deps.store.get_verification(verification_id).await? else {
        return Ok(());
    };
    let Some(user) = v.provider_user.as_deref() else {
        return Ok(());
    };
    deps.provider
        .close_user(&v, user)
        .await
        .map_err(|e| OutboxError::Provider(e.to_string()))?;
    deps.store
        .forget_provider_user(verification_id, user)
        .await?;
    tracing::info!(%verification_id, "provider user closed");
    Ok(())
}
