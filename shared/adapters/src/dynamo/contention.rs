//! Contention: a write that meets a concurrent transaction on the same item is refused with
//! `TransactionConflict` (which the SDK does not retry). Such writes are tried again after a short,
//! jittered back-off (jitter so the racers do not meet again), a bounded number of times; past
//! that, `StoreError::Busy` (the API's 503 `busy`), and nothing was written.

use std::future::Future;
use std::time::Duration;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::operation::update_item::{UpdateItemError, UpdateItemOutput};
use rand::Rng;

use ports::StoreError;

/// Tries of one contended write, the first included.
pub(super) const ATTEMPTS: u32 = 4;
/// The back-off before the second try; it doubles each time (at most ~160 ms in all).
const FIRST_BACKOFF_MS: u64 = 20;

/// One try of a write: done (whatever its outcome), or refused by contention and worth another.
pub(super) enum Attempt<T> {
    Done(T),
    Contended,
}

/// Runs `attempt` until it is not contended, at most `ATTEMPTS` times with a jittered, growing
/// back-off between; `StoreError::Busy` when every try was contended.
pub(super) async fn retry_contended<T, F, Fut>(mut attempt: F) -> Result<T, StoreError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Attempt<T>, StoreError>>,
{
    for n in 1..=ATTEMPTS {
        match attempt().await? {
            Attempt::Done(t) => return Ok(t),
            Attempt::Contended if n < ATTEMPTS => tokio::time::sleep(backoff(n)).await,
            Attempt::Contended => {}
        }
    }
    Err(StoreError::Busy)
}

/// The pause after the `n`th contended try: uniform in [half, whole] of a doubling base.
fn backoff(n: u32) -> Duration {
    let base = FIRST_BACKOFF_MS << (n - 1).min(6);
    Duration::from_millis(rand::rng().random_range(base / 2..=base))
}

/// Sends an UpdateItem, again while a concurrent transaction on its item refuses it; the caller
/// classifies any other outcome.
pub(super) async fn send_update(
    update: UpdateItemFluentBuilder,
) -> Result<Result<UpdateItemOutput, SdkError<UpdateItemError>>, StoreError> {
    retry_contended(|| {
        let update = update.clone();
        async move {
            Ok(match update.send().await {
                Err(e) if e.as_service_error().is_some_and(update_contended) => Attempt::Contended,
                outcome => Attempt::Done(outcome),
            })
        }
    })
    .await
}

/// An UpdateItem refused only because a transaction held its item.
pub(super) fn update_contended(e: &UpdateItemError) -> bool {
    matches!(e, UpdateItemError::TransactionConflictException(_))
}

/// A transaction refused only because of concurrent ones: cancelled for a conflict with no
/// condition failing (a failed condition is an answer, not contention), or one with the same
/// client token still in progress.
pub(super) fn transaction_contended(e: &TransactWriteItemsError) -> bool {
    match e {
        TransactWriteItemsError::TransactionCanceledException(c) => {
            let codes = || c.cancellation_reasons().iter().filter_map(|r| r.code());
            codes().any(|code| code == "TransactionConflict")
                && !codes().any(|code| code == "ConditionalCheckFailed")
        }
        TransactWriteItemsError::TransactionInProgressException(_) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use aws_sdk_dynamodb::types::CancellationReason;
    use aws_sdk_dynamodb::types::error::{
        ConditionalCheckFailedException, InternalServerError,
        ProvisionedThroughputExceededException, TransactionCanceledException,
        TransactionConflictException, TransactionInProgressException,
    };

    use super::*;

    fn cancelled(codes: &[&str]) -> TransactWriteItemsError {
        let mut e = TransactionCanceledException::builder();
        for code in codes {
            e = e.cancellation_reasons(CancellationReason::builder().code(*code).build());
        }
        TransactWriteItemsError::TransactionCanceledException(e.build())
    }

    #[test]
    fn an_update_is_contended_only_by_a_transaction_conflict() {
        let conflict = UpdateItemError::TransactionConflictException(
            TransactionConflictException::builder().build(),
        );
        assert!(update_contended(&conflict));
        let not = [
            UpdateItemError::ConditionalCheckFailedException(
                ConditionalCheckFailedException::builder().build(),
            ),
            UpdateItemError::InternalServerError(InternalServerError::builder().build()),
            UpdateItemError::ProvisionedThroughputExceededException(
                ProvisionedThroughputExceededException::builder().build(),
            ),
        ];
        for e in &not {
            assert!(!update_contended(e), "{e:?}");
        }
    }

    #[test]
    fn a_transaction_is_contended_by_conflicts_but_a_failed_condition_is_an_answer() {
        assert!(transaction_contended(&cancelled(&[
            "None",
            "TransactionConflict"
        ])));
        assert!(transaction_contended(
            &TransactWriteItemsError::TransactionInProgressException(
                TransactionInProgressException::builder().build()
            )
        ));
        // A failed condition decides the request, whatever else conflicted.
        assert!(!transaction_contended(&cancelled(&[
            "ConditionalCheckFailed",
            "TransactionConflict"
        ])));
        assert!(!transaction_contended(&cancelled(&[
            "None",
            "ValidationError"
        ])));
        assert!(!transaction_contended(
            &TransactWriteItemsError::InternalServerError(InternalServerError::builder().build())
        ));
    }

    #[tokio::test]
    async fn contention_is_retried_then_answered_busy() {
        let tries = AtomicU32::new(0);
        let outcome: Result<(), _> = retry_contended(|| {
            tries.fetch_add(1, Ordering::SeqCst);
            async { Ok(Attempt::Contended) }
        })
        .await;
        assert!(matches!(outcome, Err(StoreError::Busy)));
        assert_eq!(tries.load(Ordering::SeqCst), ATTEMPTS);
    }

    #[tokio::test]
    async fn a_try_that_is_not_contended_ends_the_retries() {
        let tries = AtomicU32::new(0);
        let outcome = retry_contended(|| {
            let n = tries.fetch_add(1, Ordering::SeqCst);
            async move {
                Ok(if n < 2 {
                    Attempt::Contended
                } else {
                    Attempt::Done(n)
                })
            }
        })
        .await;
        assert_eq!(outcome.unwrap(), 2);
        assert_eq!(tries.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn the_back_off_is_jittered_within_a_doubling_bound() {
        for n in 1..ATTEMPTS {
            let base = FIRST_BACKOFF_MS << (n - 1);
            let pause = backoff(n).as_millis() as u64;
            assert!((base / 2..=base).contains(&pause), "{n}: {pause}");
        }
    }
}
