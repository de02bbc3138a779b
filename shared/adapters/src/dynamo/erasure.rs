//! Retention and erasure on the table: the account's `retention_days`, the erasure marker
//! (`MARKER#<id>` / `ERASURE`, TTL = the erasure's time), and the erasure: one conditional
//! UpdateItem of the verification (alone, or in the metered transaction of an API request), then
//! the stored webhook events whose bodies held the verification as it was.

use std::collections::{BTreeSet, HashMap};

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeValue, CancellationReason, ReturnValue, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, Update,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{from_item, n, s, verification_from_item, with_key};
use super::metered_create::seen_own_verification;
use super::{DynamoStore, Expr, unavailable, written};
use domain::retention::{ERASED_ATTRIBUTES, RetentionDays, closed_at};
use domain::webhook_log::{WebhookSubject, household_event_id};
use domain::{Mode, Status, Verification, format_ts};
use ports::{ErasureOutcome, ErasureRefusal, ErasureStore, Metered, MeteredErasure, StoreError};
use service::table_schema::{self as schema, RETENTION_ATTRIBUTE, keys};

/// The closed statuses an erasure needs as stored (a cancel is stored `expired`).
const CLOSED: [Status; 3] = [Status::Completed, Status::Expired, Status::Failed];

/// The event-id suffixes of the status webhooks a verification may have had stored
/// (`outbox_work::webhook_message`), and of the review's (`reviewed_webhook_message`); `erased` is
/// not among them: that event holds no personal data.
const STATUS_EVENTS: [&str; 6] = [
    "in_progress",
    "completed",
    "failed",
    "cancelled",
    "expired",
    "reviewed",
];

impl ErasureStore for DynamoStore {
    async fn retention_days(&self, account_id: &str) -> Result<Option<RetentionDays>, StoreError> {
        let out = self
            .get_item(&keys::account(account_id))
            .projection_expression("#pk, #days")
            .expression_attribute_names("#pk", schema::PK)
            .expression_attribute_names("#days", RETENTION_ATTRIBUTE)
            .send()
            .await
            .map_err(unavailable)?;
        let Some(item) = out.item.filter(|i| i.contains_key(schema::PK)) else {
            return Ok(None);
        };
        let days = item
            .get(RETENTION_ATTRIBUTE)
            .and_then(|d| d.as_n().ok())
            .and_then(|d| d.parse::<u32>().ok());
        Ok(Some(RetentionDays::stored(days)))
    }

    async fn set_retention_days(
        &self,
        account_id: &str,
        days: RetentionDays,
    ) -> Result<bool, StoreError> {
        let result = self
            .update_item(&keys::account(account_id))
            .update_expression("SET #days = :days")
            .condition_expression("attribute_exists(PK)")
            .expression_attribute_names("#days", RETENTION_ATTRIBUTE)
            .expression_attribute_values(":days", n(days.days()))
            .send()
            .await;
        written(result)
    }

    async fn arm_erasure(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        let put = self
            .put_item(erasure_marker_item(id, at))
            .condition_expression("attribute_not_exists(PK) OR #ttl > :at")
            .expression_attribute_names("#ttl", schema::TTL_ATTRIBUTE)
            .expression_attribute_values(":at", n(at.timestamp()))
            .send()
            .await;
        // Refused: an earlier marker is kept; it fires first, and the erasure re-checks then.
        written(put).map(|_| ())
    }

    async fn closed_unerased(
        &self,
        account_id: &str,
    ) -> Result<Vec<(Uuid, DateTime<Utc>)>, StoreError> {
        let mut out = Vec::new();
        for mode in [Mode::Live, Mode::Test] {
            for status in CLOSED {
                let mut start = None;
                loop {
                    let page = self
                        .client()
                        .query()
                        .table_name(self.table())
                        .index_name(schema::GSI_OWNER_STATUS)
                        .key_condition_expression("#pk = :pk")
                        .expression_attribute_names("#pk", schema::GSI2PK)
                        .expression_attribute_values(
                            ":pk",
                            s(keys::owner_status(account_id, mode, status)),
                        )
                        .set_exclusive_start_key(start)
                        .send()
                        .await
                        .map_err(unavailable)?;
                    for item in page.items.unwrap_or_default() {
                        let v = verification_from_item(item)?;
                        if let (None, Some(at)) = (v.erased_at, closed_at(&v)) {
                            out.push((v.verification_id, at));
                        }
                    }
                    start = page.last_evaluated_key;
                    if start.is_none() {
                        break;
                    }
                }
            }
        }
        Ok(out)
    }

    async fn erase_verification(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<ErasureOutcome, StoreError> {
        let update = self.erasure_update(id, now, None)?;
        let result = self
            .client()
            .update_item()
            .table_name(self.table())
            .set_key(Some(update.key))
            .update_expression(update.update_expression)
            .set_condition_expression(update.condition_expression)
            .set_expression_attribute_names(update.expression_attribute_names)
            .set_expression_attribute_values(update.expression_attribute_values)
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await;
        let outcome = match result {
            Ok(out) => ErasureOutcome::Erased(from_item(out.attributes.unwrap_or_default())?),
            Err(e) => match e.into_service_error() {
                UpdateItemError::ConditionalCheckFailedException(c) => match c.item {
                    None => ErasureOutcome::NotFound,
                    Some(item) => {
                        let v: Verification = from_item(item)?;
                        if v.erased_at.is_some() {
                            ErasureOutcome::AlreadyErased(v)
                        } else if v.effective_status(now).is_open() {
                            ErasureOutcome::Open(v)
                        } else {
                            return Err(StoreError::Unavailable(
                                "erasure refused on a closed verification".into(),
                            ));
                        }
                    }
                },
                other => return Err(unavailable(other)),
            },
        };
        if let ErasureOutcome::Erased(v) | ErasureOutcome::AlreadyErased(v) = &outcome {
            self.erase_related_items(v).await?;
        }
        Ok(outcome)
    }

    async fn forget_provider_user(&self, id: Uuid, provider_user: &str) -> Result<(), StoreError> {
        let result = self
            .update_item(&keys::verification(id))
            .update_expression("REMOVE #user, #link")
            .condition_expression("#user = :user")
            .expression_attribute_names("#user", "provider_user")
            .expression_attribute_names("#link", "provider_link_token")
            .expression_attribute_values(":user", s(provider_user))
            .send()
            .await;
        // Refused: forgotten already (or erased), which is what was asked.
        written(result).map(|_| ())
    }

    async fn meter_and_erase(
        &self,
        erasure: &MeteredErasure<'_>,
    ) -> Result<Metered<(), ErasureRefusal>, StoreError> {
        let MeteredErasure {
            key,
            now,
            plans,
            verification_id,
        } = *erasure;
        let marker = Uuid::new_v4().to_string();
        let update =
            self.erasure_update(verification_id, now, Some((&key.account_id, key.mode)))?;
        let items = vec![TransactWriteItem::builder().update(update).build()];
        let why = |reasons: &[CancellationReason]| {
            let Some(seen) = seen_own_verification(reasons, 1, key)? else {
                return Ok(None);
            };
            Ok(match seen {
                None => Some(ErasureRefusal::NotFound),
                Some(v) if v.erased_at.is_some() => Some(ErasureRefusal::AlreadyErased),
                Some(v) if v.effective_status(now).is_open() => {
                    Some(ErasureRefusal::Open(Box::new(v)))
                }
                Some(_) => None,
            })
        };
        self.transact_counted(items, (key, now, plans), &marker, None, why)
            .await
    }
}

impl DynamoStore {
    /// The verification's erasure (`retention::erase`) as one conditional update: only while it
    /// exists, is closed (as stored, or past its expiry) and not erased yet, and with `owner`,
    /// only while it is theirs.
    /// A refusal carries the verification, which tells why.
    fn erasure_update(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
        owner: Option<(&str, Mode)>,
    ) -> Result<Update, StoreError> {
        let mut expr = Expr::default();
        let sets = [
            expr.set("tenant_email", "empty", s("")),
            expr.set(
                "message_links",
                "no_links",
                AttributeValue::M(HashMap::new()),
            ),
            expr.set(
                "documents",
                "no_documents",
                AttributeValue::M(HashMap::new()),
            ),
            expr.set("erased_at", "now", s(format_ts(now))),
        ];
        let removes: Vec<String> = ERASED_ATTRIBUTES.iter().map(|a| expr.name(a)).collect();
        let status = expr.name("status");
        let closed: Vec<String> = CLOSED
            .iter()
            .map(|c| expr.value(c.as_str(), s(c.as_str())))
            .collect();
        let erased = expr.name("erased_at");
        let expires = expr.name("expires_at");
        // `:now` is the `erased_at` value set above. An open verification past its expiry reads
        // expired: it may be erased before the TTL's sweep records its expiry.
        let mut condition = format!(
            "attribute_exists(PK) AND attribute_not_exists({erased}) \
             AND ({status} IN ({}) OR {expires} <= :now)",
            closed.join(", ")
        );
        if let Some((account_id, mode)) = owner {
            let account = expr.set("account_id", "acct", s(account_id));
            let mode = expr.set("mode", "mode", s(mode.as_str()));
            condition = format!("{condition} AND {account} AND {mode}");
        }
        let (pk, sk) = keys::verification(id);
        Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression(format!(
                "SET {} REMOVE {}",
                sets.join(", "),
                removes.join(", ")
            ))
            .condition_expression(condition)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)
    }

    /// Every item beside the verification that held its personal data, erased: its stored
    /// webhook events (their bodies showed the verification as it was), its documents'
    /// fingerprint submissions (the tenant's keyed marks) and its erasure marker.
    /// Message claims and delivery attempts hold none (states, times, codes) and stay.
    ///
    /// The uploaded objects, outside the table, are erased by the handler's
    /// `retention::erase_personal_data` after this store call, not here.
    async fn erase_related_items(&self, v: &Verification) -> Result<(), StoreError> {
        let events = self.stored_event_ids(v).await?;
        let deletes = events
            .iter()
            .map(|event| self.delete_item(&keys::webhook_event(event)).send());
        for deleted in futures::future::join_all(deletes).await {
            deleted.map_err(unavailable)?;
        }
        self.erase_fingerprints(v.verification_id).await?;
        self.delete_item(&keys::erasure_marker(v.verification_id))
            .send()
            .await
            .map_err(unavailable)?;
        if let Some(household) = v.household_id {
            self.erase_household(household, v.erased_at.unwrap_or_else(Utc::now))
                .await?;
        }
        Ok(())
    }

    /// A member's erasure takes its household's shared personal data with it: the address, the
    /// rent and subsidy, the decision (combined figures of the members' incomes), then its stored
    /// `household.completed`. `erased_at` is set once; the call is safe to repeat. Nothing when
    /// the household is gone.
    async fn erase_household(&self, id: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        let result = self
            .update_item(&keys::household(id))
            .update_expression(
                "SET #e = if_not_exists(#e, :at), #rent = :zero \
                 REMOVE #address, #subsidy, #decision",
            )
            .condition_expression("attribute_exists(PK)")
            .expression_attribute_names("#e", "erased_at")
            .expression_attribute_names("#rent", "monthly_rent")
            .expression_attribute_names("#address", "property_address")
            .expression_attribute_names("#subsidy", "rent_subsidy_monthly")
            .expression_attribute_names("#decision", "decision")
            .expression_attribute_values(":at", s(format_ts(at)))
            .expression_attribute_values(":zero", n(0))
            .send()
            .await;
        written(result)?;
        let event = household_event_id(id);
        self.delete_item(&keys::webhook_event(&event))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// The ids of every webhook event the verification may have stored, but `erased`: its status
    /// events, its resent rounds', its reminders' (the labels its reminder claims name), and any
    /// its delivery log names.
    async fn stored_event_ids(&self, v: &Verification) -> Result<BTreeSet<String>, StoreError> {
        let id = v.verification_id;
        let prefix = format!("msg_{}_", id.simple());
        let mut suffixes: BTreeSet<String> = STATUS_EVENTS.iter().map(|e| e.to_string()).collect();
        suffixes.extend((1..=v.invite_round).map(|round| format!("resent_{round}")));
        let (partition, log_partition) = (
            keys::claims(id),
            keys::deliveries(WebhookSubject::Verification(id)),
        );
        let reminders = format!("{}reminder_", schema::MESSAGE_CLAIM_PREFIX);
        let claims = self.partition_keys(&partition, Some(&reminders));
        let log = self.partition_keys(&log_partition, None);
        let (claims, log) = futures::join!(claims, log);
        for sk in claims? {
            let message = sk.trim_start_matches(schema::MESSAGE_CLAIM_PREFIX);
            let label = message
                .strip_prefix("reminder_")
                .and_then(|m| m.strip_suffix("_email").or_else(|| m.strip_suffix("_sms")));
            if let Some(label) = label {
                suffixes.insert(format!("reminder_sent_{label}"));
            }
        }
        // An attempt's sort key is `<time>#<event id>#<attempt>` (`keys::delivery_attempt`).
        for sk in log? {
            if let Some(suffix) = sk.split('#').nth(1).and_then(|e| e.strip_prefix(&prefix)) {
                suffixes.insert(suffix.to_string());
            }
        }
        suffixes.remove("erased");
        Ok(suffixes
            .into_iter()
            .map(|suffix| format!("{prefix}{suffix}"))
            .collect())
    }

    /// The sort keys of a partition's items (those beginning with `begins` when given): a
    /// keys-only Query, paged.
    pub(super) async fn partition_keys(
        &self,
        pk: &str,
        begins: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let mut query = self
                .client()
                .query()
                .table_name(self.table())
                .expression_attribute_values(":pk", s(pk))
                .projection_expression("SK")
                .set_exclusive_start_key(start);
            query = match begins {
                Some(begins) => query
                    .key_condition_expression("PK = :pk AND begins_with(SK, :begins)")
                    .expression_attribute_values(":begins", s(begins)),
                None => query.key_condition_expression("PK = :pk"),
            };
            let page = query.send().await.map_err(unavailable)?;
            for item in page.items.unwrap_or_default() {
                if let Some(AttributeValue::S(sk)) = item.get(schema::SK) {
                    out.push(sk.clone());
                }
            }
            start = page.last_evaluated_key;
            if start.is_none() {
                return Ok(out);
            }
        }
    }
}

/// The erasure marker of a verification, its TTL at `at` (`ErasureStore::arm_erasure`).
pub fn erasure_marker_item(id: Uuid, at: DateTime<Utc>) -> super::Item {
    let mut marker = with_key(HashMap::new(), keys::erasure_marker(id));
    marker.insert("verification_id".into(), s(id.to_string()));
    marker.insert(schema::TTL_ATTRIBUTE.into(), n(at.timestamp()));
    marker
}

#[cfg(test)]
mod tests {
    use super::*;
    use service::table_schema::ERASURE_SK;

    #[test]
    fn the_marker_names_its_verification_and_its_time() {
        let id = Uuid::new_v4();
        let at = Utc::now();
        let item = erasure_marker_item(id, at);
        assert_eq!(item[schema::SK], s(ERASURE_SK));
        assert_eq!(item[schema::TTL_ATTRIBUTE], n(at.timestamp()));
    }
}
