//! Rotating link tokens: each Idempotency-Key replay answers with a fresh tenant link (only hashes
//! are stored, so the first link cannot be shown again), and the replays' links are kept to a
//! bounded, most-recent set so that replays never grow the item without bound.

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};

use super::contention::send_update;
use super::items::{from_item, s};
use super::schema::keys;
use super::{DynamoStore, Expr, unavailable};
use crate::domain::Verification;
use crate::ports::{LinkTokenOutcome, StoreError};

/// Each lost race means another writer succeeded; past this many, the caller gets `Contended`.
const LINK_TOKEN_ATTEMPTS: usize = 12;

/// The token lists after binding `new`: it joins the rotating set, whose oldest entries beyond
/// `keep` leave both lists. Tokens outside the rotating set are never dropped.
pub(crate) fn rotated(
    tokens: &[String],
    recent: &[String],
    new: &str,
    keep: usize,
) -> (Vec<String>, Vec<String>) {
    let mut recent = recent.to_vec();
    recent.push(new.to_string());
    let excess = recent.len().saturating_sub(keep.max(1));
    let dropped: Vec<String> = recent.drain(..excess).collect();
    let mut tokens: Vec<String> = tokens
        .iter()
        .filter(|h| !dropped.contains(h))
        .cloned()
        .collect();
    tokens.push(new.to_string());
    (tokens, recent)
}

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

#[cfg(test)]
mod tests {
    use super::rotated;

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rotation_drops_only_the_oldest_replay_token() {
        // "first" (the create response) and "mail" (another fixed token) are not in the rotating
        // set.
        let (tokens, recent) = rotated(&v(&["first", "mail"]), &[], "r1", 2);
        assert_eq!((tokens, recent), (v(&["first", "mail", "r1"]), v(&["r1"])));
        let (tokens, recent) = rotated(&v(&["first", "r1", "mail"]), &v(&["r1"]), "r2", 2);
        assert_eq!(
            (tokens, recent),
            (v(&["first", "r1", "mail", "r2"]), v(&["r1", "r2"]))
        );
        let (tokens, recent) = rotated(
            &v(&["first", "r1", "mail", "r2"]),
            &v(&["r1", "r2"]),
            "r3",
            2,
        );
        assert_eq!(
            (tokens, recent),
            (v(&["first", "mail", "r2", "r3"]), v(&["r2", "r3"]))
        );
    }
}
