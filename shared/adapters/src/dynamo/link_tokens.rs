//! Rotating link tokens: each Idempotency-Key replay answers with a fresh tenant link (only hashes
//! are stored, so the first link cannot be shown again), and the replays' links are kept to a
//! bounded, most-recent set so that replays never grow the item without bound.

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};

use super::contention::send_update;
use super::items::{from_item, s};
use super::{DynamoStore, Expr, unavailable};
use domain::Verification;
use domain::tenant_link::rotated;
use ports::{LinkTokenOutcome, StoreError};
use service::table_schema::keys;

/// Each lost race means another writer succeeded; past this many, the caller gets `Contended`.
const LINK_TOKEN_ATTEMPTS: usize = 12;

fn list(values: &[String]) -> AttributeValue {
    AttributeValue::L(values.iter().map(|v| s(v.as_str())).collect())
}

/// `attr` still holds exactly `values` (an absent list reads as empty).
fn unchanged(expr: &mut Expr, attr: &str, placeholder: &str, values: &[String]) -> String {
    let name = expr.name(attr);
    let value = expr.value(placeholder, list(values));
    if values.is_empty() {
        format!("(attribute_not_exists({name}) OR {name} = {value})")
    } else {
        format!("{name} = {value}")
    }
}

impl DynamoStore {
    pub(super) async fn rotate_link_token(
        &self,
        current: &Verification,
        token_hash: &str,
        keep: usize,
    ) -> Result<LinkTokenOutcome, StoreError> {
        let key = keys::verification(current.verification_id);
        let mut tokens = current.token_hashes.clone();
        let mut recent = current.recent_token_hashes.clone();
        for _ in 0..LINK_TOKEN_ATTEMPTS {
            let (next_tokens, next_recent) = rotated(&tokens, &recent, token_hash, keep);
            let mut expr = Expr::default();
            // Conditioned on both lists as read: a concurrent replay meanwhile fails this write
            // (nothing lost), and it is redone on the fresh lists that the failure returns.
            // An erased verification binds no more links.
            let condition = format!(
                "attribute_exists(PK) AND attribute_not_exists({}) AND {} AND {}",
                expr.name("erased_at"),
                unchanged(&mut expr, "token_hashes", "tokens", &tokens),
                unchanged(&mut expr, "recent_token_hashes", "recent", &recent),
            );
            let update = format!(
                "SET {}, {}",
                expr.set("token_hashes", "next_tokens", list(&next_tokens)),
                expr.set("recent_token_hashes", "next_recent", list(&next_recent)),
            );
            // A cancel's transaction writes this item too: contention is retried.
            let result = send_update(
                self.update_item(&key)
                    .update_expression(update)
                    .condition_expression(condition)
                    .set_expression_attribute_names(expr.names())
                    .set_expression_attribute_values(expr.values())
                    .return_values_on_condition_check_failure(
                        ReturnValuesOnConditionCheckFailure::AllOld,
                    ),
            )
            .await?;
            match result {
                Ok(_) => return Ok(LinkTokenOutcome::Added),
                Err(e) => match e.into_service_error() {
                    UpdateItemError::ConditionalCheckFailedException(failed) => {
                        let Some(item) = failed.item else {
                            return Ok(LinkTokenOutcome::NotFound);
                        };
                        let fresh: Verification = from_item(item)?;
                        if fresh.erased_at.is_some() {
                            return Ok(LinkTokenOutcome::NotFound);
                        }
                        tokens = fresh.token_hashes;
                        recent = fresh.recent_token_hashes;
                    }
                    other => return Err(unavailable(other)),
                },
            }
        }
        Ok(LinkTokenOutcome::Contended)
    }
}
