//! The live SMS sent in a month, counted on the account's usage item beside the API and
//! live-create counts (`usage`), in an attribute named by the month (`sms_sent_<yyyymm>`). The count moves only inside
//! the transaction of an SMS claim (`message_claims`), conditioned on the allowance, and goes back
//! inside the transaction that releases a failed attempt's claim. The count of a new month removes
//! the month before, so the item keeps one such attribute.
//!
//! The allowance (the plan's `sms_per_month`) comes with the claim: its sender read the plan
//! beside the landlord's name. So the condition names the month's count alone, and a sender's role
//! may write no attribute of the usage item but `sms_sent_*` (template.yaml).

use aws_sdk_dynamodb::types::{Delete, TransactWriteItem, Update};

use super::items::{Item, n, s};
use super::{DynamoStore, Expr, unavailable};
use ports::{SmsAllowance, StoreError};
use service::table_schema::{self as schema, keys};

const SMS_PREFIX: &str = "sms_sent_";

/// The usage attribute counting the live SMS of `month` (`yyyymm`).
pub fn sms_attribute(month: u32) -> String {
    format!("{SMS_PREFIX}{month}")
}

/// The month before `month` (`yyyymm`), as its attribute names it.
fn previous_attribute(month: u32) -> String {
    let previous = match month % 100 {
        1 => month - 100 + 11,
        _ => month - 1,
    };
    sms_attribute(previous)
}

/// The account's SMS count (`Account::sms_month`, `sms_sent`): its item's latest month.
pub(super) fn sms_count_of(item: &Item) -> Option<(u32, u32)> {
    item.iter()
        .filter_map(|(attribute, value)| {
            let month: u32 = attribute.strip_prefix(SMS_PREFIX)?.parse().ok()?;
            Some((month, value.as_n().ok()?.parse::<u32>().ok()?))
        })
        .max_by_key(|(month, _)| *month)
}

impl DynamoStore {
    /// One more SMS on the account's month count, only while the count is below the allowance;
    /// for the transaction of a claim.
    pub(super) fn sms_count(&self, a: &SmsAllowance) -> Result<TransactWriteItem, StoreError> {
        let mut expr = Expr::default();
        let count = expr.names_as("sms", &sms_attribute(a.month));
        let previous = expr.names_as("sms_previous", &previous_attribute(a.month));
        let one = expr.value("one", n(1));
        let limit = expr.value("limit", n(a.limit));
        let update = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(keys::usage(&a.account_id).0))
            .key(schema::SK, s(keys::usage(&a.account_id).1))
            .update_expression(format!("ADD {count} {one} REMOVE {previous}"))
            .condition_expression(format!(
                "attribute_not_exists({count}) OR {count} < {limit}"
            ))
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .build()
            .map_err(unavailable)?;
        Ok(TransactWriteItem::builder().update(update).build())
    }

    /// A released claim's count given back (never below zero, never on a month no longer kept),
    /// and the claim deleted while still `sending`: one transaction's items.
    pub(super) fn sms_release(
        &self,
        claim: (String, String),
        a: &SmsAllowance,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let delete = Delete::builder()
            .table_name(self.table())
            .key(schema::PK, s(claim.0))
            .key(schema::SK, s(claim.1))
            .condition_expression("#state = :sending")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":sending", s("sending"))
            .build()
            .map_err(unavailable)?;
        let mut expr = Expr::default();
        let count = expr.names_as("sms", &sms_attribute(a.month));
        let minus = expr.value("minus", n(-1));
        let zero = expr.value("zero", n(0));
        let update = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(keys::usage(&a.account_id).0))
            .key(schema::SK, s(keys::usage(&a.account_id).1))
            .update_expression(format!("ADD {count} {minus}"))
            .condition_expression(format!("{count} > {zero}"))
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .build()
            .map_err(unavailable)?;
        Ok(vec![
            TransactWriteItem::builder().delete(delete).build(),
            TransactWriteItem::builder().update(update).build(),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_month_count_has_its_months_attribute_and_the_latest_is_read() {
        assert_eq!(sms_attribute(202611), "sms_sent_202611");
        assert_eq!(previous_attribute(202611), "sms_sent_202610");
        assert_eq!(previous_attribute(202701), "sms_sent_202612");
        let mut item = Item::new();
        item.insert("sms_sent_202610".into(), n(9));
        item.insert("sms_sent_202611".into(), n(4));
        item.insert("sms_sent_nonsense".into(), n(1));
        assert_eq!(sms_count_of(&item), Some((202611, 4)));
        assert_eq!(sms_count_of(&Item::new()), None);
    }
}
