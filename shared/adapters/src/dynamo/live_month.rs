//! The verifications created in a month, counted once: a live one on the account's usage item,
//! in an attribute named by the month (`live_created_<yyyymm>`), so the write that counts an API
//! request checks the monthly allowance of the account's plan in the same condition; a test one
//! on the owner's month item (`created`), which has no allowance. The month
//! item also counts the month's completions of either mode.

use aws_sdk_dynamodb::types::{TransactWriteItem, Update};

use super::items::{n, s};
use super::{DynamoStore, Expr, unavailable};
use domain::Mode;
use ports::StoreError;
use service::table_schema::{self as schema, keys};

/// The usage attribute counting the live verifications created in `month` (`yyyy-mm`).
pub fn live_created_attribute(month: &str) -> String {
    format!("live_created_{}", month.replace('-', ""))
}

/// Where the month's allowance of a create is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MonthCheck {
    /// By the create's own count of the month, against this limit when given (a create without
    /// its metering, whose caller knows the plan).
    Limit(Option<u32>),
    /// By the write that counts the request (`metered_create::count_update`), which moves the
    /// live count on the same usage item; a test create still counts on its month item.
    ByCount,
}

impl DynamoStore {
    /// The count of a create of `count` verifications of `account_id`/`mode` in `month`, for its
    /// transaction, its allowance checked as `check` says: None when the request's count moves it
    /// (a live create with `MonthCheck::ByCount`).
    pub(super) fn month_created(
        &self,
        (account_id, mode, month): (&str, Mode, &str),
        count: u64,
        check: MonthCheck,
    ) -> Result<Option<TransactWriteItem>, StoreError> {
        let limit = match check {
            MonthCheck::Limit(limit) => limit,
            MonthCheck::ByCount if mode == Mode::Live => return Ok(None),
            MonthCheck::ByCount => None,
        };
        let (key, attribute) = created_counter(account_id, mode, month);
        let mut expr = Expr::default();
        let created = expr.name(&attribute);
        let by = expr.value("count", n(count));
        // The most created before this write that leaves room for `count` (a limit below
        // `count` is refused by the caller before any write).
        let condition = limit.map(|l| {
            let most = expr.value("most", n(u64::from(l).saturating_sub(count)));
            format!("attribute_not_exists({created}) OR {created} <= {most}")
        });
        let update = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(key.0))
            .key(schema::SK, s(key.1))
            .update_expression(format!("ADD {created} {by}"))
            .set_condition_expression(condition)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .build()
            .map_err(unavailable)?;
        Ok(Some(TransactWriteItem::builder().update(update).build()))
    }

    /// Gives one create of `month` back (a failure on the service's side), on its one count.
    pub(super) fn month_created_refund(
        &self,
        account_id: &str,
        mode: Mode,
        month: &str,
    ) -> Result<TransactWriteItem, StoreError> {
        let (key, attribute) = created_counter(account_id, mode, month);
        let mut expr = Expr::default();
        let update = format!(
            "ADD {} {}",
            expr.name(&attribute),
            expr.value("minus", n(-1))
        );
        Ok(TransactWriteItem::builder()
            .update(self.update(key, &update, &expr)?)
            .build())
    }
}

/// The item and attribute that count the creates of `account_id`/`mode` in `month`.
pub(super) fn created_counter(
    account_id: &str,
    mode: Mode,
    month: &str,
) -> ((String, String), String) {
    match mode {
        Mode::Live => (keys::usage(account_id), live_created_attribute(month)),
        Mode::Test => (keys::month(account_id, mode, month), "created".into()),
    }
}
