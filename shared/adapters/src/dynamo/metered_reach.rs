//! The resend and the redelivery request with their metering in ONE transaction (as
//! `metered_create` does for a create and a cancel), so each costs one DynamoDB round trip; what
//! the answer shows (the verification after the resend) is read beside it.

use aws_sdk_dynamodb::types::{
    CancellationReason, ConditionCheck, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
    Update,
};
use uuid::Uuid;

use super::items::{from_item, n, s};
use super::metered_create::seen_own_verification;
use super::metering::refused_item;
use super::{DynamoStore, Expr, unavailable};
use domain::webhook_log::{StoredWebhookEvent, WebhookSubject};
use domain::{Status, Verification, format_ts, resend};
use ports::{
    Metered, MeteredRedelivery, MeteredResend, RedeliveryRefusal, StoreError, VerificationRefusal,
    WebhookHistoryStore,
};
use service::table_schema::{self as schema, keys};

/// The prefix of the verification attribute in which a metered resend keeps its own place in the
/// day's count (`resend_request_<marker>`), so the read beside the transaction, when it saw the
/// resend, tells that place even if later resends followed. At most a few a day, for a lifetime
/// of days.
const RESEND_REQUEST_PREFIX: &str = "resend_request_";

impl DynamoStore {
    pub(super) async fn metered_resend(
        &self,
        request: &MeteredResend<'_>,
    ) -> Result<Metered<Verification, VerificationRefusal>, StoreError> {
        let MeteredResend {
            key,
            now,
            plans,
            verification_id,
            max_per_day,
        } = *request;
        let marker = Uuid::new_v4().simple().to_string();
        let place_attribute = format!("{RESEND_REQUEST_PREFIX}{marker}");
        // Written without a read: the day's count lives in an attribute named by the day, so
        // one expression can both check it and raise it (a count of another day is not this
        // one's). `resend_day` / `resends_on_day` are kept beside it for the domain's reading.
        let mut expr = Expr::default();
        let day_count = expr.names_as("day_count", &day_count_attribute(now));
        let status = expr.name("status");
        let account = expr.name("account_id");
        let mode = expr.name("mode");
        let expires = expr.name("expires_at");
        let round = expr.name("invite_round");
        let day = expr.name("resend_day");
        let on_day = expr.name("resends_on_day");
        let at = expr.name("last_resent_at");
        let place = expr.names_as("place", &place_attribute);
        let now_v = expr.value("now", s(format_ts(now)));
        let today = expr.value("today", s(resend::utc_day(now)));
        let zero = expr.value("zero", n(0));
        let one = expr.value("one", n(1));
        let max = expr.value("max", n(max_per_day));
        let pending = expr.value("pending", s(Status::Pending.as_str()));
        let in_progress = expr.value("in_progress", s(Status::InProgress.as_str()));
        let acct = expr.value("acct", s(&key.account_id));
        let mode_v = expr.value("mode", s(key.mode.as_str()));
        let (pk, sk) = keys::verification(verification_id);
        let update = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(&pk))
            .key(schema::SK, s(&sk))
            .update_expression(format!(
                "SET {day_count} = if_not_exists({day_count}, {zero}) + {one}, \
                 {on_day} = if_not_exists({day_count}, {zero}) + {one}, {day} = {today}, \
                 {round} = if_not_exists({round}, {zero}) + {one}, {at} = {now_v}, \
                 {place} = if_not_exists({day_count}, {zero}) + {one}"
            ))
            .condition_expression(format!(
                "attribute_exists(PK) AND {account} = {acct} AND {mode} = {mode_v} \
                 AND {status} IN ({pending}, {in_progress}) AND {expires} > {now_v} \
                 AND (attribute_not_exists({day_count}) OR {day_count} < {max})"
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
                None => VerificationRefusal::NotFound,
                Some(v) if !resend::resendable(&v, now) => VerificationRefusal::Closed(Box::new(v)),
                Some(_) => VerificationRefusal::ResendLimitReached,
            }))
        };
        let (counted, seen) = futures::join!(
            self.transact_counted(items, (key, now, plans), &marker, None, why),
            self.get((pk, sk))
        );
        let account = match counted?.into_done() {
            Ok(account) => account,
            // Refused: what the read beside it saw is not needed.
            Err(refused) => return Ok(*refused),
        };
        let item = seen?.unwrap_or_default();
        let place = item
            .get(&place_attribute)
            .and_then(|p| p.as_n().ok())
            .and_then(|p| p.parse::<u32>().ok());
        let read: Verification = from_item(item)?;
        Ok(Metered::Done(account, resend::as_placed(&read, place, now)))
    }

    pub(super) async fn metered_redelivery(
        &self,
        request: &MeteredRedelivery<'_>,
    ) -> Result<Metered<StoredWebhookEvent, RedeliveryRefusal>, StoreError> {
        let MeteredRedelivery {
            key,
            now,
            plans,
            event_id,
            subject,
        } = *request;
        let marker = Uuid::new_v4().to_string();
        let mut event = Expr::default();
        let redeliveries = event.name("redeliveries");
        let requested = event.name("redelivery_requested_at");
        let message = event.name("message");
        let event_account = event.name("account_id");
        // The subject is stored flat, as `verification_id` or `household_id` (`WebhookSubject`).
        let (subject_attribute, subject_id, (pk, sk)) = match subject {
            WebhookSubject::Verification(id) => ("verification_id", id, keys::verification(id)),
            WebhookSubject::Household(id) => ("household_id", id, keys::household(id)),
        };
        let event_subject = event.name(subject_attribute);
        let one = event.value("one", n(1));
        let now_v = event.value("now", s(format_ts(now)));
        let acct = event.value("acct", s(&key.account_id));
        let sid = event.value("sid", s(subject_id.to_string()));
        let (event_pk, event_sk) = keys::webhook_event(event_id);
        let redelivery = Update::builder()
            .table_name(self.table())
            .key(schema::PK, s(event_pk))
            .key(schema::SK, s(event_sk))
            .update_expression(format!(
                "ADD {redeliveries} {one} SET {requested} = {now_v}"
            ))
            .condition_expression(format!(
                "attribute_exists(PK) AND {message}.{event_account} = {acct} \
                 AND {event_subject} = {sid}"
            ))
            .set_expression_attribute_names(event.names())
            .set_expression_attribute_values(event.values())
            .build()
            .map_err(unavailable)?;
        // The event's mode is its subject's (the verification or the household, both stored with
        // `account_id` and `mode`): the key's account and mode, checked there.
        let mut owner = Expr::default();
        let account = owner.name("account_id");
        let mode = owner.name("mode");
        let acct = owner.value("acct", s(&key.account_id));
        let mode_v = owner.value("mode", s(key.mode.as_str()));
        let owned = ConditionCheck::builder()
            .table_name(self.table())
            .key(schema::PK, s(&pk))
            .key(schema::SK, s(&sk))
            .condition_expression(format!("{account} = {acct} AND {mode} = {mode_v}"))
            .set_expression_attribute_names(owner.names())
            .set_expression_attribute_values(owner.values())
            .build()
            .map_err(unavailable)?;
        let items = vec![
            TransactWriteItem::builder().update(redelivery).build(),
            TransactWriteItem::builder().condition_check(owned).build(),
        ];
        // The subject refused: not the key's. Else the event refused: none of the key's by that
        // id (whether its subject has a `webhook_url` is told by the read beside).
        let why = |reasons: &[CancellationReason]| {
            let refused = |i| refused_item(reasons, i).is_some();
            Ok((refused(2) || refused(1)).then_some(RedeliveryRefusal::NotFound))
        };
        // The event as stored, for the answer, and the subject, for a refusal, read beside it.
        let (counted, stored, subject) = futures::join!(
            self.transact_counted(items, (key, now, plans), &marker, None, why),
            self.get_webhook_event(event_id),
            self.get((pk, sk))
        );
        let account = match counted? {
            Metered::Done(account, ()) => account,
            Metered::AccountRefused(why) => return Ok(Metered::AccountRefused(why)),
            Metered::Refused(account, _) => {
                // The key's own subject (its check held) without a `webhook_url` has no events.
                let hookless = subject?.is_some_and(|item| {
                    let of = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
                    of("account_id").as_deref() == Some(key.account_id.as_str())
                        && of("mode").as_deref() == Some(key.mode.as_str())
                        && !item.contains_key("webhook_url")
                });
                let why = match hookless {
                    true => RedeliveryRefusal::NoWebhookUrl,
                    false => RedeliveryRefusal::NotFound,
                };
                return Ok(Metered::Refused(account, why));
            }
        };
        match stored? {
            Some(event) => Ok(Metered::Done(account, event)),
            // Counted and requested, but TTL removed the event meanwhile: the work stands.
            None => Err(StoreError::Unavailable(
                "redelivered event not read back".into(),
            )),
        }
    }
}

/// The attribute that counts the resends of `now`'s UTC day (`resends_on_YYYY-MM-DD`): a day's
/// own counter lets one write check and raise it without reading the verification first. A
/// verification lives days, so it keeps a handful at most.
pub(super) fn day_count_attribute(now: chrono::DateTime<chrono::Utc>) -> String {
    format!("resends_on_{}", domain::resend::utc_day(now))
}
