//! Households: the household item and every member's verification in one transaction at create
//! (with the members' expiry markers, the owner counters, ONE month-counter update that checks the
//! allowance for all members at once, and the idempotency record), and the decision written once.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{
    CancellationReason, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{
    expiry_marker_item, from_item, household_item, n, s, to_item, verification_item,
};
use super::live_month::MonthCheck;
use super::metered_create::seen_own_verification;
use super::metering::refused_item;
use super::{DynamoStore, Expr, unavailable, written};
use domain::household::{Household, HouseholdDecision, HouseholdShape, MAX_MEMBERS};
use domain::{Mode, OwnerStats, Status, Verification, format_ts, usage_month};
use ports::{
    CreateOutcome, HouseholdCancelRefusal, HouseholdStore, IdempotencyClaim, Metered,
    MeteredHouseholdCancel, StoreError, VerificationStore,
};
use service::table_schema::{self as schema, keys};

impl DynamoStore {
    /// A Put of an item that must not exist yet, for a transaction.
    pub(super) fn put_new_item(&self, item: super::Item) -> Result<TransactWriteItem, StoreError> {
        Ok(TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(item))
                    .condition_expression("attribute_not_exists(PK)")
                    .build()
                    .map_err(unavailable)?,
            )
            .build())
    }
}

impl DynamoStore {
    /// The writes of a household create, for one transaction: the household, the idempotency
    /// record (when claimed; a refusal carries the record), the owner's counters, each member's
    /// verification and expiry marker, then ONE count of the month for all members at once (its
    /// allowance checked as `check` says), when written. At most 3 + 2 × 6 + 1 items, far below
    /// the 100 a transaction allows.
    pub(super) fn household_items(
        &self,
        household: &Household,
        members: &[Verification],
        idempotency: Option<&IdempotencyClaim>,
        check: MonthCheck,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let count = members.len();
        let Some(first) = members.first() else {
            return Err(StoreError::Corrupt("a household needs a member".into()));
        };
        if count > MAX_MEMBERS {
            return Err(StoreError::Corrupt("too many household members".into()));
        }
        let mut items = vec![self.put_new_item(household_item(household)?)?];
        if let Some(claim) = idempotency {
            items.push(self.idempotency_put(claim, first)?);
        }
        let mut stats = Expr::default();
        let stats_update = format!(
            "ADD {} {count}, {} {count}",
            stats.name("total"),
            stats.name(OwnerStats::counter_of(Status::Pending)),
            count = stats.value("count", n(count))
        );
        items.push(
            TransactWriteItem::builder()
                .update(self.update(
                    keys::stats(&first.account_id, first.mode),
                    &stats_update,
                    &stats,
                )?)
                .build(),
        );
        for v in members {
            items.push(self.put_new_item(verification_item(v)?)?);
            items.push(
                TransactWriteItem::builder()
                    .put(
                        Put::builder()
                            .table_name(&self.table)
                            .set_item(Some(expiry_marker_item(v)))
                            .build()
                            .map_err(unavailable)?,
                    )
                    .build(),
            );
        }
        let month = usage_month(first.created_at);
        let key = (first.account_id.as_str(), first.mode, month.as_str());
        items.extend(self.month_created(key, count as u64, check)?);
        Ok(items)
    }
}

impl DynamoStore {
    /// `MeterStore::meter_and_cancel_household`: the request's count, the household's cancel and
    /// the cancel of each member named, with the owner's counters, in ONE transaction, the
    /// account read beside it (`transact_counted`). At most 3 + 6 items. A refusal is read off
    /// the items as their conditions saw them (each returns itself).
    pub(super) async fn metered_household_cancel(
        &self,
        cancel: &MeteredHouseholdCancel<'_>,
    ) -> Result<Metered<(), HouseholdCancelRefusal>, StoreError> {
        let MeteredHouseholdCancel {
            key,
            now,
            plans,
            household_id,
            members,
        } = *cancel;
        if members.len() > MAX_MEMBERS {
            return Err(StoreError::Corrupt(format!(
                "a household cancel names {} members",
                members.len()
            )));
        }
        // Unique to this cancel: a household is cancelled once.
        let marker = format!("{household_id}-cancel");
        let owner = (key.account_id.as_str(), key.mode);
        let mut items = vec![self.cancel_household_item(household_id, owner, now)?];
        // None named (an id without a shape): the household's condition refuses it.
        if !members.is_empty() {
            items.push(self.cancel_counters(owner, members.len())?);
        }
        for member in members {
            items.push(self.cancel_open_update(*member, owner, Some(household_id), now)?);
        }
        let why = |reasons: &[CancellationReason]| {
            // Each named member whose condition refused, as it saw it (only the household's own).
            let mut closed = Vec::new();
            let mut open = Vec::new();
            for (i, id) in members.iter().enumerate() {
                match seen_own_verification(reasons, 3 + i, key)? {
                    None => open.push(*id),
                    Some(seen) => {
                        closed.extend(seen.filter(|v| v.household_id == Some(household_id)))
                    }
                }
            }
            if let Some(seen) = refused_item(reasons, 1) {
                let seen: Option<Household> = seen.cloned().map(from_item).transpose()?;
                let closed_own = seen.filter(|h| {
                    h.account_id == key.account_id && h.mode == key.mode && h.is_closed()
                });
                // Unknown, another's, or not the household its id describes: not found.
                return Ok(Some(match closed_own {
                    Some(h) => HouseholdCancelRefusal::Closed(Box::new(h), closed),
                    None => HouseholdCancelRefusal::NotFound,
                }));
            }
            let member_refused = open.len() < members.len();
            Ok(member_refused.then_some(HouseholdCancelRefusal::MembersClosed { closed, open }))
        };
        self.transact_counted(items, (key, now, plans), &marker, None, why)
            .await
    }

    /// The household cancel, for one transaction with its metering: `cancelled_at` = `now`, only
    /// if the household exists, is of the owner (`account_id` and `mode`), has as many members as
    /// its id's shape says (`HouseholdShape`: none for an id without one, which no household
    /// has), has no decision and is not cancelled yet.
    pub(super) fn cancel_household_item(
        &self,
        id: Uuid,
        (account_id, mode): (&str, Mode),
        now: DateTime<Utc>,
    ) -> Result<TransactWriteItem, StoreError> {
        let shaped = HouseholdShape::member_count(id);
        let mut expr = Expr::default();
        let set = expr.set("cancelled_at", "now", s(format_ts(now)));
        let account = expr.set("account_id", "acct", s(account_id));
        let mode = expr.set("mode", "mode", s(mode.as_str()));
        let decision = expr.name("decision");
        let cancelled = expr.name("cancelled_at");
        let members = expr.name("members");
        let count = expr.value("count", n(shaped));
        let (pk, sk) = keys::household(id);
        let update = Update::builder()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression(format!("SET {set}"))
            .condition_expression(format!(
                "attribute_exists(PK) AND {account} AND {mode} AND size({members}) = {count} AND attribute_not_exists({decision}) AND attribute_not_exists({cancelled})"
            ))
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        Ok(TransactWriteItem::builder().update(update).build())
    }
}

impl HouseholdStore for DynamoStore {
    async fn create_household(
        &self,
        household: &Household,
        members: &[Verification],
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> Result<CreateOutcome, StoreError> {
        if monthly_limit.is_some_and(|limit| members.len() as u64 > u64::from(limit)) {
            return Ok(CreateOutcome::LimitReached);
        }
        let items = self.household_items(
            household,
            members,
            idempotency,
            MonthCheck::Limit(monthly_limit),
        )?;
        self.create_transaction(items, idempotency.is_some(), monthly_limit.is_some())
            .await
    }

    async fn get_household(&self, id: Uuid) -> Result<Option<Household>, StoreError> {
        self.read(keys::household(id)).await
    }

    async fn get_household_with_members(
        &self,
        id: Uuid,
    ) -> Result<Option<(Household, Vec<Verification>)>, StoreError> {
        let (household, indexed) = futures::join!(self.get_household(id), self.indexed_members(id));
        let Some(household) = household? else {
            return Ok(None);
        };
        let mut found: HashMap<Uuid, Verification> = indexed?
            .into_iter()
            .map(|v| (v.verification_id, v))
            .collect();
        // A member the index does not show yet (it propagates in well under a second; a household
        // created before the index has none there) is read by itself.
        let missing: Vec<Uuid> = (household.members.iter())
            .map(|m| m.verification_id)
            .filter(|id| !found.contains_key(id))
            .collect();
        let reads = missing.iter().map(|id| self.get_verification(*id));
        for v in futures::future::try_join_all(reads)
            .await?
            .into_iter()
            .flatten()
        {
            found.insert(v.verification_id, v);
        }
        let members = (household.members.iter())
            .map(|m| {
                found.remove(&m.verification_id).ok_or_else(|| {
                    StoreError::Corrupt(format!("household member {} missing", m.verification_id))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some((household, members)))
    }

    async fn record_household_decision(
        &self,
        id: Uuid,
        decision: &HouseholdDecision,
        decided_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let value = aws_sdk_dynamodb::types::AttributeValue::M(to_item(decision)?);
        let result = self
            .update_item(&keys::household(id))
            .update_expression("SET #d = :d, #at = :at")
            .expression_attribute_names("#at", "decided_at")
            .expression_attribute_values(":at", super::items::s(format_ts(decided_at)))
            // A cancelled household is never decided: its cancel closed a member. Nor is an
            // erased one: a member's income is gone.
            .condition_expression(
                "attribute_exists(PK) AND attribute_not_exists(#d) AND attribute_not_exists(#c) \
                 AND attribute_not_exists(#e)",
            )
            .expression_attribute_names("#d", "decision")
            .expression_attribute_names("#c", "cancelled_at")
            .expression_attribute_names("#e", "erased_at")
            .expression_attribute_values(":d", value)
            .send()
            .await;
        written(result)
    }
}

impl DynamoStore {
    /// The household's members as its index shows them: one bounded Query (a household has at
    /// most `MAX_MEMBERS`).
    async fn indexed_members(&self, id: Uuid) -> Result<Vec<Verification>, StoreError> {
        let out = self
            .client()
            .query()
            .table_name(self.table())
            .index_name(schema::GSI_HOUSEHOLD_MEMBERS)
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", schema::GSI3PK)
            .expression_attribute_values(":pk", super::items::s(keys::household(id).0))
            .limit(MAX_MEMBERS as i32)
            .send()
            .await
            .map_err(unavailable)?;
        out.items
            .unwrap_or_default()
            .into_iter()
            .map(super::items::from_item)
            .collect()
    }
}
