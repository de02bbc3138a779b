//! Verifications: the item with its expiry marker, owner counters and idempotency record, all
//! written in one transaction at create; every later change a write conditioned on the status
//! the caller read (a cancel: on either open status, without a read), moving the counters with
//! it. Link tokens are in `link_tokens`, the list page in `list`.

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    Put, ReturnValue, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::items::{
    changed_attributes, expiry_marker_item, from_item, idempotency_item, n, owner_stats_from_item,
    s, verification_item,
};
use super::live_month::{MonthCheck, created_counter};
use super::metering::refused_item;
use super::{DynamoStore, Expr, unavailable};
use domain::{
    Mode, MonthStats, OwnerStats, Status, Transition, Verification, format_ts, usage_month,
};
use ports::{
    CreateOutcome, IdempotencyClaim, IdempotencyRecord, IdempotencyStore, LinkTokenOutcome,
    ListPage, ListQuery, StoreError, TransitionOutcome, VerificationStore,
};
use service::table_schema::{self as schema, keys};

impl VerificationStore for DynamoStore {
    async fn create_verification(
        &self,
        v: &Verification,
        idempotency: Option<&IdempotencyClaim>,
        monthly_limit: Option<u32>,
    ) -> Result<CreateOutcome, StoreError> {
        if monthly_limit == Some(0) {
            return Ok(CreateOutcome::LimitReached);
        }
        let items = self.create_items(v, idempotency, MonthCheck::Limit(monthly_limit))?;
        self.create_transaction(items, idempotency.is_some(), monthly_limit.is_some())
            .await
    }

    async fn get_verification(&self, id: Uuid) -> Result<Option<Verification>, StoreError> {
        self.read(keys::verification(id)).await
    }

    async fn add_recent_link_token(
        &self,
        current: &Verification,
        token_hash: &str,
        keep: usize,
    ) -> Result<LinkTokenOutcome, StoreError> {
        self.rotate_link_token(current, token_hash, keep).await
    }

    async fn transition(
        &self,
        current: &Verification,
        transition: &Transition,
        now: DateTime<Utc>,
    ) -> Result<TransitionOutcome, StoreError> {
        let from = current.status;
        if !transition.allowed_from().contains(&from) {
            return Ok(TransitionOutcome::Conflict(Some(current.clone())));
        }
        let next = transition.apply(current, now);
        let to = next.status;
        // Write exactly the attributes the transition changes, so a concurrent token append or
        // other field update is never overwritten.
        let mut expr = Expr::default();
        let mut sets = vec![
            expr.set("status", "to", s(to.as_str())),
            expr.set(
                schema::GSI2PK,
                "gsi2",
                s(keys::owner_status(&current.account_id, current.mode, to)),
            ),
        ];
        for (attr, value) in changed_attributes(current, &next)? {
            sets.push(expr.set(&attr, &attr, value));
        }
        let mut cond = expr.set("status", "from", s(from.as_str()));
        // A consent never replaces a provider user (the tenant may have connected with it), and
        // one without a provider user is recorded once.
        if let Transition::Consent { provider_user, .. } = transition {
            let guarded = if provider_user.is_some() {
                "provider_user"
            } else {
                "consented_at"
            };
            cond = format!("{cond} AND attribute_not_exists({})", expr.name(guarded));
        }
        // A try, a held income and a completion are written on the tries as read: a concurrent
        // one makes it conflict (a completion then never leaves out income held meanwhile).
        if matches!(
            transition,
            Transition::Attempt { .. }
                | Transition::Hold { .. }
                | Transition::Complete { .. }
                | Transition::Await { .. }
                | Transition::Signal { .. }
        ) {
            let attempts = expr.name("method_attempts");
            cond = match current.method_attempts.len() {
                0 => format!("{cond} AND attribute_not_exists({attempts})"),
                read => format!(
                    "{cond} AND size({attempts}) = {}",
                    expr.value("attempts_read", n(read as i64))
                ),
            };
        }
        // A wait never replaces one of the same try (a signal may have come first), and a
        // signal is written once, on the current try's wait: duplicate webhooks find it set.
        let tries = current.method_attempts.len() as i64;
        match transition {
            Transition::Await { .. } => {
                let (waiting, attempts) = (expr.name("awaiting"), expr.name("attempts"));
                let read = expr.value("tries_read", n(tries));
                cond = format!(
                    "{cond} AND (attribute_not_exists({waiting}) OR {waiting}.{attempts} <> {read})"
                );
            }
            Transition::Signal { .. } => {
                let (waiting, attempts) = (expr.name("awaiting"), expr.name("attempts"));
                let signal = expr.name("signal");
                let read = expr.value("tries_read", n(tries));
                cond = format!(
                    "{cond} AND {waiting}.{attempts} = {read} AND attribute_not_exists({waiting}.{signal})"
                );
            }
            _ => {}
        }
        // An erased verification takes no more personal data; only its expiry is still recorded
        // (one past `expires_at` may be erased before the TTL's sweep expires it).
        if *transition != Transition::Expire {
            cond = format!(
                "{cond} AND attribute_not_exists({})",
                expr.name("erased_at")
            );
        }
        // A completion covers the documents as read: an upload analysed meanwhile refuses it.
        if matches!(transition, Transition::Complete { .. }) {
            let rev = expr.name("documents_rev");
            cond = match current.documents_rev {
                0 => format!("{cond} AND attribute_not_exists({rev})"),
                read => format!("{cond} AND {rev} = {}", expr.value("rev", n(read))),
            };
        }
        let verification_update = Update::builder()
            .table_name(&self.table)
            .key(schema::PK, s(keys::verification(current.verification_id).0))
            .key(schema::SK, s(schema::VERIFICATION_SK))
            .update_expression(format!("SET {}", sets.join(", ")))
            .condition_expression(cond)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .build()
            .map_err(unavailable)?;
        let (from_counter, to_counter) = (OwnerStats::counter_of(from), OwnerStats::counter_of(to));
        let mut stats = Expr::default();
        let stats_update = format!(
            "ADD {} {}, {} {}",
            stats.name(from_counter),
            stats.value("minus", n(-1)),
            stats.name(to_counter),
            stats.value("plus", n(1))
        );
        let mut items = vec![
            TransactWriteItem::builder()
                .update(verification_update)
                .build(),
        ];
        // Between the open statuses (a start, a consent) no counter moves: both are `open`.
        if from_counter != to_counter {
            items.push(
                TransactWriteItem::builder()
                    .update(self.update(
                        keys::stats(&current.account_id, current.mode),
                        &stats_update,
                        &stats,
                    )?)
                    .build(),
            );
        }
        if to == Status::Completed {
            let mut month = Expr::default();
            let update = format!(
                "ADD {} {}",
                month.name("completed"),
                month.value("one", n(1))
            );
            items.push(
                TransactWriteItem::builder()
                    .update(self.update(
                        keys::month(&current.account_id, current.mode, &usage_month(now)),
                        &update,
                        &month,
                    )?)
                    .build(),
            );
        }
        if transition.refunds_allowance() {
            // A failure on the service's side gives the landlord's monthly allowance back, in
            // the same transaction (the month the verification was counted in).
            let counted_in = usage_month(current.created_at);
            items.push(self.month_created_refund(
                &current.account_id,
                current.mode,
                &counted_in,
            )?);
        }
        if self.transact(items).await?.is_ok() {
            return Ok(TransitionOutcome::Applied(next));
        }
        let fresh = self.get_verification(current.verification_id).await?;
        Ok(TransitionOutcome::Conflict(fresh))
    }

    async fn cancel_open(
        &self,
        id: Uuid,
        account_id: &str,
        mode: Mode,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let items = self.cancel_open_items(id, account_id, mode, now)?;
        Ok(self.transact(items).await?.is_ok())
    }

    async fn add_tenant_note(
        &self,
        id: Uuid,
        note: &str,
    ) -> Result<Option<Verification>, StoreError> {
        let mut expr = Expr::default();
        let set = expr.set("tenant_note", "note", s(note));
        let completed = expr.set("status", "completed", s(Status::Completed.as_str()));
        let cond = format!(
            "{completed} AND attribute_not_exists({}) AND attribute_not_exists({})",
            expr.name("tenant_note"),
            expr.name("erased_at")
        );
        let result = self
            .update_item(&keys::verification(id))
            .update_expression(format!("SET {set}"))
            .condition_expression(cond)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match result {
            Ok(out) => Ok(Some(from_item(out.attributes.unwrap_or_default())?)),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(UpdateItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn list_verifications(&self, q: &ListQuery) -> Result<ListPage, StoreError> {
        let page = self.list_page(q, None).await?;
        page.ok_or_else(|| StoreError::Unavailable("an uncapped list stopped".into()))
    }

    async fn list_verifications_capped(
        &self,
        q: &ListQuery,
        cap: u32,
    ) -> Result<Option<ListPage>, StoreError> {
        self.list_page(q, Some(cap)).await
    }

    async fn owner_stats(
        &self,
        account_id: &str,
        mode: Mode,
        month: &str,
    ) -> Result<(OwnerStats, MonthStats), StoreError> {
        // The month's creates are counted on one item (`live_month`): a live one's on the account.
        let (counter, attribute) = created_counter(account_id, mode, month);
        let live = async {
            match mode {
                Mode::Live => self.get(counter).await,
                Mode::Test => Ok(None),
            }
        };
        let (stats, month, live) = futures::join!(
            self.get(keys::stats(account_id, mode)),
            self.get(keys::month(account_id, mode, month)),
            live
        );
        let mut month: MonthStats = month?.map(from_item).transpose()?.unwrap_or_default();
        if let Some(account) = live? {
            let created = account.get(&attribute).and_then(|c| c.as_n().ok());
            month.created = created.and_then(|c| c.parse().ok()).unwrap_or(0);
        }
        Ok((owner_stats_from_item(stats?)?, month))
    }
}

impl DynamoStore {
    /// Runs a create's transaction (`create_items` or `household_items`: the idempotency record
    /// second when `claimed`, the month's count last when `limited`) and tells what it did.
    pub(super) async fn create_transaction(
        &self,
        items: Vec<TransactWriteItem>,
        claimed: bool,
        limited: bool,
    ) -> Result<CreateOutcome, StoreError> {
        let last = items.len() - 1;
        let reasons = match self.transact_with_reasons(items).await? {
            Ok(()) => return Ok(CreateOutcome::Created),
            Err(reasons) => reasons,
        };
        if claimed && let Some(Some(record)) = refused_item(&reasons, 1) {
            let record = from_item(record.clone())?;
            return Ok(CreateOutcome::IdempotencyConflict(record));
        }
        if limited && refused_item(&reasons, last).is_some() {
            return Ok(CreateOutcome::LimitReached);
        }
        Err(StoreError::Unavailable(format!(
            "create refused: {:?}",
            reasons.iter().map(|r| r.code()).collect::<Vec<_>>()
        )))
    }
}

impl IdempotencyStore for DynamoStore {
    async fn get_idempotency(
        &self,
        key_hash: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.read(keys::idempotency(key_hash)).await
    }
}

impl DynamoStore {
    /// `Transition::Cancel` written without a read, for one transaction: the verification, only
    /// while it is the owner's (`account_id`, `mode`), still open (pending or in progress) and
    /// not past its expiry at `now`, and the owner's counters (`open` -1 whichever open status it
    /// was in, `expired` +1). Anything else refuses the whole transaction.
    pub(super) fn cancel_open_items(
        &self,
        id: Uuid,
        account_id: &str,
        mode: Mode,
        now: DateTime<Utc>,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        Ok(vec![
            self.cancel_open_update(id, (account_id, mode), None, now)?,
            self.cancel_counters((account_id, mode), 1)?,
        ])
    }

    /// The verification's side of `cancel_open_items`; with `household`, also only while it is
    /// a member of that household.
    pub(super) fn cancel_open_update(
        &self,
        id: Uuid,
        (account_id, mode): (&str, Mode),
        household: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<TransactWriteItem, StoreError> {
        let to = Status::Expired;
        let mut expr = Expr::default();
        let at = expr.value("now", s(format_ts(now)));
        let status = expr.name("status");
        let gsi2 = expr.name(schema::GSI2PK);
        let cancelled = expr.name("cancelled_at");
        let expired = expr.name("expired_at");
        let to_v = expr.value("to", s(to.as_str()));
        let pending = expr.value("pending", s(Status::Pending.as_str()));
        let in_progress = expr.value("in_progress", s(Status::InProgress.as_str()));
        let owner_status = expr.value("gsi2", s(keys::owner_status(account_id, mode, to)));
        let account = expr.name("account_id");
        let acct = expr.value("acct", s(account_id));
        let mode_n = expr.name("mode");
        let mode_v = expr.value("mode", s(mode.as_str()));
        let expires = expr.name("expires_at");
        let mut condition = format!(
            "attribute_exists(PK) AND {status} IN ({pending}, {in_progress}) AND {account} = {acct} AND {mode_n} = {mode_v} AND {expires} > {at}"
        );
        if let Some(household) = household {
            let of = expr.set("household_id", "household", s(household.to_string()));
            condition = format!("{condition} AND {of}");
        }
        let (pk, sk) = keys::verification(id);
        let cancel = Update::builder()
            .table_name(&self.table)
            .key(schema::PK, s(pk))
            .key(schema::SK, s(sk))
            .update_expression(format!(
                "SET {status} = {to_v}, {gsi2} = {owner_status}, {cancelled} = {at}, {expired} = {at}"
            ))
            .condition_expression(condition)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            // A refusal carries the verification, which tells why (`metered_cancel`).
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        Ok(TransactWriteItem::builder().update(cancel).build())
    }

    /// The owner's counters of `count` cancels in one update (a transaction may touch an item
    /// once): `open` -count, `expired` +count.
    pub(super) fn cancel_counters(
        &self,
        (account_id, mode): (&str, Mode),
        count: usize,
    ) -> Result<TransactWriteItem, StoreError> {
        let mut stats = Expr::default();
        let stats_update = format!(
            "ADD {} {}, {} {}",
            stats.name(OwnerStats::counter_of(Status::Pending)),
            stats.value("minus", n(-(count as i64))),
            stats.name(OwnerStats::counter_of(Status::Expired)),
            stats.value("plus", n(count))
        );
        let stats = self.update(keys::stats(account_id, mode), &stats_update, &stats)?;
        Ok(TransactWriteItem::builder().update(stats).build())
    }

    /// The writes of a create, for one transaction: the verification, the idempotency record
    /// (when claimed; a refusal carries the record), its expiry marker, the owner's counters and
    /// the month's count (`live_month`: its allowance checked as `check` says), last when
    /// written. A cancelled transaction's reasons name them in this order.
    pub(super) fn create_items(
        &self,
        v: &Verification,
        idempotency: Option<&IdempotencyClaim>,
        check: MonthCheck,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let mut items = vec![self.put_new_item(verification_item(v)?)?];
        if let Some(claim) = idempotency {
            items.push(self.idempotency_put(claim, v)?);
        }
        let marker = expiry_marker_item(v);
        items.push(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(marker))
                        .build()
                        .map_err(unavailable)?,
                )
                .build(),
        );
        let mut stats = Expr::default();
        let stats_update = format!(
            "ADD {} {one}, {} {one}",
            stats.name("total"),
            stats.name(OwnerStats::counter_of(v.status)),
            one = stats.value("one", n(1))
        );
        items.push(
            TransactWriteItem::builder()
                .update(self.update(keys::stats(&v.account_id, v.mode), &stats_update, &stats)?)
                .build(),
        );
        let month = usage_month(v.created_at);
        items.extend(self.month_created((&v.account_id, v.mode, &month), 1, check)?);
        Ok(items)
    }

    /// The idempotency record of a create whose (first) verification is `v`, for its
    /// transaction: refused while a record of the key lives, and then carrying it.
    pub(super) fn idempotency_put(
        &self,
        claim: &IdempotencyClaim,
        v: &Verification,
    ) -> Result<TransactWriteItem, StoreError> {
        let put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(idempotency_item(claim, v)?))
            // A record past its 24 h that TTL has not swept yet counts as gone.
            .condition_expression("attribute_not_exists(PK) OR #ttl < :now")
            .expression_attribute_names("#ttl", schema::TTL_ATTRIBUTE)
            .expression_attribute_values(":now", n(v.created_at.timestamp()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(unavailable)?;
        Ok(TransactWriteItem::builder().put(put).build())
    }
}
