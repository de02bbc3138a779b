//! The review of a verification's documents with its metering in ONE transaction (as
//! `metered_reach` does for a resend): the count on the account item, and one conditional update
//! that sets the report reviewed (`documents::finish::reviewed_report`: the review, and after an
//! acceptance the figures computed again) only while the verification is the key's own,
//! completed, has a report from documents and no review yet, and its report is still the
//! revision read.

use aws_sdk_dynamodb::types::{
    AttributeValue, CancellationReason, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
    Update,
};
use uuid::Uuid;

use super::items::s;
use super::metered_create::seen_own_verification;
use super::{DynamoStore, Expr, unavailable};
use domain::Status;
use domain::documents::finish::reviewed_report;
use ports::{Metered, MeteredReview, ReviewRefusal, ReviewStore, StoreError};
use service::table_schema::{self as schema, keys};

impl ReviewStore for DynamoStore {
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
        let marker = Uuid::new_v4().to_string();
        // The report is computed from the verification as read; the condition on its revision
        // keeps the write to that report. Without one to review, the write is refused, and the
        // verification seen then says why.
        let read = self.read(keys::verification(verification_id)).await?;
        let reviewed = read.as_ref().and_then(|v| reviewed_report(v, review));
        let read_revision = read
            .as_ref()
            .and_then(|v| v.income_report.as_ref())
            .filter(|_| reviewed.is_some())
            .map_or(0, |r| r.revision);
        let value = serde_dynamo::to_attribute_value::<_, AttributeValue>(&reviewed)
            .map_err(|e| StoreError::Unavailable(format!("document review: {e}")))?;
        let mut expr = Expr::default();
        let report = expr.name("income_report");
        let documents = expr.name("documents");
        let reviewed_name = expr.name("document_review");
        let revision_name = expr.name("revision");
        let report_v = expr.value("report", value);
        let read_rev = expr.value("revision", AttributeValue::N(read_revision.to_string()));
        let account = expr.set("account_id", "acct", s(&key.account_id));
        let mode = expr.set("mode", "mode", s(key.mode.as_str()));
        let status = expr.set("status", "completed", s(Status::Completed.as_str()));
        let (pk, sk) = keys::verification(verification_id);
        let update = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression(format!("SET {report} = {report_v}"))
            .condition_expression(format!(
                "attribute_exists(PK) AND {account} AND {mode} AND {status} \
                 AND attribute_exists({report}.{documents}) \
                 AND attribute_not_exists({report}.{reviewed_name}) \
                 AND {report}.{revision_name} = {read_rev}"
            ))
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            // A refusal carries the verification, which tells why.
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        let items = vec![TransactWriteItem::builder().update(update).build()];
        let why = |reasons: &[CancellationReason]| {
            let Some(seen) = seen_own_verification(reasons, 1, key)? else {
                return Ok(None);
            };
            Ok(Some(match seen {
                None => ReviewRefusal::NotFound,
                Some(v) if v.status != Status::Completed => {
                    ReviewRefusal::NotCompleted(v.effective_status(now))
                }
                Some(v) => match v.income_report {
                    Some(r) if r.documents.is_some() => match r.document_review {
                        Some(stands) => ReviewRefusal::AlreadyReviewed(Box::new(stands)),
                        // Every condition held as read: a refusal this item does not explain.
                        None => return Ok(None),
                    },
                    _ => ReviewRefusal::NoDocuments,
                },
            }))
        };
        self.transact_counted(items, (key, now, plans), &marker, None, why)
            .await
    }
}
