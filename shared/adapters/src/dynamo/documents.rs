//! The documents of a verification: one entry of its `documents` map per upload, each write one
//! UpdateItem conditioned on the verification being in progress and on `documents_rev` as read,
//! so writes of the analysis, of the tenant and of the finishing step have one order.

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::AttributeValue;

use super::items::{n, s};
use super::{DynamoStore, Expr, unavailable};
use domain::documents::record::DocumentRecord;
use domain::{Status, Verification};
use ports::{DocumentStore, StoreError};
use service::table_schema::keys;

impl DocumentStore for DynamoStore {
    async fn put_document(
        &self,
        current: &Verification,
        document_id: &str,
        record: &DocumentRecord,
    ) -> Result<bool, StoreError> {
        let value = serde_dynamo::to_attribute_value::<_, AttributeValue>(record)
            .map_err(|e| StoreError::Unavailable(format!("document record: {e}")))?;
        let mut expr = Expr::default();
        let documents = expr.name("documents");
        let entry = expr.names_as("doc", document_id);
        let set_entry = format!("{documents}.{entry} = {}", expr.value("record", value));
        let uploads = expr.set("uploads", "uploads", n(current.uploads.max(record.number)));
        let rev = expr.name("documents_rev");
        let next_rev = expr.value("next_rev", n(current.documents_rev + 1));
        let status = expr.set("status", "in_progress", s(Status::InProgress.as_str()));
        let read_rev = if current.documents_rev == 0 {
            format!("attribute_not_exists({rev})")
        } else {
            format!("{rev} = {}", expr.value("rev", n(current.documents_rev)))
        };
        let result = self
            .update_item(&keys::verification(current.verification_id))
            .update_expression(format!("SET {set_entry}, {uploads}, {rev} = {next_rev}"))
            // An erased verification takes no document again, whatever its status still says
            // (an open one past its expiry may be erased before the expiry marks it).
            .condition_expression(format!(
                "{status} AND {read_rev} AND attribute_not_exists({})",
                expr.name("erased_at")
            ))
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .send()
            .await;
        match result {
            Ok(_) => Ok(true),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(UpdateItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                Ok(false)
            }
            Err(e) => Err(unavailable(e)),
        }
    }
}
