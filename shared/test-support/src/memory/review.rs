//! `ReviewStore` in memory: the review of a verification's documents, with its metering, under
//! the one lock as the adapter's transaction. An acceptance computes the report again
//! (`documents::finish::reviewed_report`).

use super::MemoryStore;
use super::meter::{allowed, owned, settle};
use domain::Status;
use domain::documents::finish::reviewed_report;
use ports::{Metered, MeteredReview, ReviewRefusal, ReviewStore, StoreError};

impl ReviewStore for MemoryStore {
    async fn meter_and_review(
        &self,
        request: &MeteredReview<'_>,
    ) -> Result<Metered<(), ReviewRefusal>, StoreError> {
        let MeteredReview {
            key,
            now,
            plans,
            verification_id,
            review,
        } = *request;
        let mut t = self.lock();
        let account = match allowed(&t, key, now, plans) {
            Ok(account) => account,
            Err(refusal) => return Ok(Metered::AccountRefused(*refusal)),
        };
        let done = match t.verifications.get_mut(&verification_id) {
            Some(v) if owned(v, key) => match v.income_report.as_ref() {
                _ if v.status != Status::Completed => {
                    Err(ReviewRefusal::NotCompleted(v.effective_status(now)))
                }
                Some(report) if report.documents.is_some() => match &report.document_review {
                    Some(stands) => Err(ReviewRefusal::AlreadyReviewed(Box::new(stands.clone()))),
                    None => {
                        v.income_report = reviewed_report(v, review);
                        Ok(())
                    }
                },
                _ => Err(ReviewRefusal::NoDocuments),
            },
            _ => Err(ReviewRefusal::NotFound),
        };
        Ok(settle(&mut t, &account, now, done))
    }
}
