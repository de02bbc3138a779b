//! The live monthly allowance, counted twice and kept equal: on the month item (`created`, what
//! get-usage reports) and on the account item, in an attribute named by the month
//! (`live_created_<yyyymm>`), so the write that counts an API request can check the allowance of
//! the account's plan in the same condition as the plan itself, without the caller knowing the
//! plan (one DynamoDB round trip for a live create on a cold instance).
//!
//! Invariant: a live month item marked `MIRRORED` has its `created` equal to the account's
//! attribute of that month. Every write that changes one changes the other in the same
//! transaction and marks the month item (a create, a household create, a refund). A month item
//! without the mark predates this (an account mid-month at the deploy): a write that relies on the
//! account's count refuses on it, and the usual way copies its `created` to the account once
//! (`mirror_month`), then retries. See docs/runbook.md, "Live monthly allowance on the account".

use aws_sdk_dynamodb::types::{TransactWriteItem, Update};

use super::items::{n, s};
use super::schema::{self, keys};
use super::{DynamoStore, Expr, unavailable};
use crate::domain::Mode;
use crate::ports::StoreError;

/// The month item's mark: its `created` is mirrored on the account item.
pub(super) const MIRRORED: &str = "created_on_account";

/// The account attribute counting the live verifications created in `month` (`yyyy-mm`).
pub fn live_created_attribute(month: &str) -> String {
    format!("live_created_{}", month.replace('-', ""))
}

/// Where the month's allowance is checked, for the month item of a create.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MonthCheck {
    /// On the month item, against this limit when given (the usual way, after the metering
    /// write told the plan); a live create also moves the account's count.
    OnMonth(Option<u32>),
    /// On the account item, by the write that counts the request (one write): the month item
    /// only checks it is mirrored there.
    OnAccount,
}

impl DynamoStore {
    /// The month item's update of a create of `count` verifications of `account`/`mode` in
    /// `month`, and for a live one checked on the month, the account's count moved with it.
    pub(super) fn month_items(
        &self,
        (account_id, mode, month): (&str, Mode, &str),
        count: u64,
        check: MonthCheck,
    ) -> Result<(TransactWriteItem, Option<TransactWriteItem>), StoreError> {
        let mut expr = Expr::default();
        let created = expr.name("created");
        let by = expr.value("count", n(count));
        let mut update = format!("ADD {created} {by}");
        let limit = match check {
            MonthCheck::OnMonth(limit) => limit,
            MonthCheck::OnAccount => None,
        };
        // The most created before this write that leaves room for `count` (a limit below
        // `count` is refused by the caller before any write).
        let most = limit.map(|l| u64::from(l).saturating_sub(count));
        let condition = if mode == Mode::Live {
            let mirrored = expr.name(MIRRORED);
            update = format!("{update} SET {mirrored} = {}", expr.value("t", n(1)));
            let under = match most {
                Some(most) => {
                    format!(" AND {created} <= {}", expr.value("most", n(most)))
                }
                None => String::new(),
            };
            Some(format!(
                "attribute_not_exists({created}) OR (attribute_exists({mirrored}){under})"
            ))
        } else {
            most.map(|most| {
                format!(
                    "attribute_not_exists({created}) OR {created} <= {}",
                    expr.value("most", n(most))
                )
            })
        };
        let key = keys::month(account_id, mode, month);
        let month_op = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(key.0))
            .key(schema::SK, s(key.1))
            .update_expression(update)
            .set_condition_expression(condition)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .build()
            .map_err(unavailable)?;
        let account = match (mode, check) {
            (Mode::Live, MonthCheck::OnMonth(_)) => Some(self.live_created_add(
                account_id,
                month,
                i64::try_from(count).unwrap_or(i64::MAX),
            )?),
            _ => None,
        };
        Ok((
            TransactWriteItem::builder().update(month_op).build(),
            account,
        ))
    }

    /// Moves the account's live count of `month` by `by` (a create checked on the month item, a
    /// refund).
    pub(super) fn live_created_add(
        &self,
        account_id: &str,
        month: &str,
        by: i64,
    ) -> Result<TransactWriteItem, StoreError> {
        let mut expr = Expr::default();
        let attr = expr.name(&live_created_attribute(month));
        let update = format!("ADD {attr} {}", expr.value("by", n(by)));
        Ok(TransactWriteItem::builder()
            .update(self.update(keys::account(account_id), &update, &expr)?)
            .build())
    }

    /// After a live create refused on the month item: if that item predates the count on the
    /// account (no `MIRRORED` mark), copies its `created` to the account and marks it, so the
    /// create can be retried. Ok(true) when the month is now mirrored and was not before (or
    /// another writer just did it); Ok(false) when it already was (the refusal was the limit).
    pub(super) async fn mirror_month(
        &self,
        account_id: &str,
        month: &str,
    ) -> Result<bool, StoreError> {
        let key = keys::month(account_id, Mode::Live, month);
        let Some(item) = self.get(key.clone()).await? else {
            // No month item: nothing to copy (a refusal by a concurrent first create; retry).
            return Ok(true);
        };
        if item.contains_key(MIRRORED) {
            return Ok(false);
        }
        let created = item
            .get("created")
            .and_then(|v| v.as_n().ok())
            .cloned()
            .unwrap_or_else(|| "0".into());
        let mut month_expr = Expr::default();
        let created_name = month_expr.name("created");
        let mirrored = month_expr.name(MIRRORED);
        let seen = month_expr.value("seen", n(&created));
        let t = month_expr.value("t", n(1));
        // Conditioned on the count read: a refund or an old instance's create in between makes
        // this refuse, and the caller's retry reads again.
        let mark = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(key.0))
            .key(schema::SK, s(key.1))
            .update_expression(format!("SET {mirrored} = {t}"))
            .condition_expression(format!(
                "{created_name} = {seen} AND attribute_not_exists({mirrored})"
            ))
            .set_expression_attribute_names(month_expr.names())
            .set_expression_attribute_values(month_expr.values())
            .build()
            .map_err(unavailable)?;
        let mut account_expr = Expr::default();
        let attr = account_expr.name(&live_created_attribute(month));
        let copy = format!("SET {attr} = {}", account_expr.value("seen", n(&created)));
        let items = vec![
            TransactWriteItem::builder().update(mark).build(),
            TransactWriteItem::builder()
                .update(self.update(keys::account(account_id), &copy, &account_expr)?)
                .build(),
        ];
        // Refused: the month changed since the read (or another request mirrored it): either
        // way the caller's retry decides again.
        let _ = self.transact(items).await?;
        Ok(true)
    }
}
