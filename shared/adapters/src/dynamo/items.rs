//! Every item mapping of the table in one place: domain value <-> stored item, with its keys and
//! index attributes. The adapter, the bench's seeding and the tests all build items here, so an
//! item written by any of them is the item the service writes.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::Duration;
use serde::Serialize;
use serde::de::DeserializeOwned;

use domain::household::Household;
use domain::{ApiKeyRecord, Mode, OwnerStats, Verification, format_ts};
use ports::{IdempotencyClaim, IdempotencyRecord, StoreError};
use service::table_schema::{self as schema, keys};

/// A stored item, as the SDK (and the stream's `serde_dynamo::Item`, once converted) carries it.
pub type Item = HashMap<String, AttributeValue>;

/// How long an Idempotency-Key is remembered.
const IDEMPOTENCY_LIFETIME: Duration = Duration::hours(24);

pub(super) fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

pub(super) fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

pub(super) fn to_item<T: Serialize>(value: &T) -> Result<Item, StoreError> {
    serde_dynamo::aws_sdk_dynamodb_1::to_item(value).map_err(|e| StoreError::Corrupt(e.to_string()))
}

pub(super) fn from_item<T: DeserializeOwned>(item: Item) -> Result<T, StoreError> {
    serde_dynamo::aws_sdk_dynamodb_1::from_item(item)
        .map_err(|e| StoreError::Corrupt(e.to_string()))
}

pub(super) fn with_key(mut item: Item, (pk, sk): (String, String)) -> Item {
    item.insert(schema::PK.into(), s(pk));
    item.insert(schema::SK.into(), s(sk));
    item
}

/// An API key, indexed under its account (GSI1, oldest first) for listing.
pub fn api_key_item(key: &ApiKeyRecord) -> Result<Item, StoreError> {
    let mut item = with_key(to_item(key)?, keys::api_key(&key.key_hash));
    item.insert(
        schema::GSI1PK.into(),
        s(keys::account_keys(&key.account_id)),
    );
    item.insert(schema::GSI1SK.into(), s(format_ts(key.created_at)));
    Ok(item)
}

/// A verification, indexed by owner (GSI1) and by owner and status (GSI2), newest first; a
/// household member also under its household (GSI3).
pub fn verification_item(v: &Verification) -> Result<Item, StoreError> {
    let mut item = with_key(to_item(v)?, keys::verification(v.verification_id));
    let sort = keys::created_sort(v);
    item.insert(schema::GSI1PK.into(), s(keys::owner(&v.account_id, v.mode)));
    item.insert(schema::GSI1SK.into(), s(sort.clone()));
    item.insert(
        schema::GSI2PK.into(),
        s(keys::owner_status(&v.account_id, v.mode, v.status)),
    );
    item.insert(schema::GSI2SK.into(), s(sort));
    if let Some(household) = v.household_id {
        item.insert(schema::GSI3PK.into(), s(keys::household(household).0));
        item.insert(schema::GSI3SK.into(), s(v.verification_id.to_string()));
    }
    Ok(item)
}

/// Reads a verification out of a stored item (also used on stream images).
pub fn verification_from_item(item: Item) -> Result<Verification, StoreError> {
    from_item(item)
}

/// The attributes a transition from `current` to `next` sets, derived from the items themselves
/// (not from a list of fields), so a new transition cannot forget one. `status` is left out: the
/// caller sets it together with the status index. Transitions only set fields, never clear them.
pub fn changed_attributes(
    current: &Verification,
    next: &Verification,
) -> Result<Vec<(String, AttributeValue)>, StoreError> {
    let before = to_item(current)?;
    let mut changed: Vec<(String, AttributeValue)> = to_item(next)?
        .into_iter()
        .filter(|(attr, value)| attr != "status" && before.get(attr) != Some(value))
        .collect();
    changed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(changed)
}

/// The marker whose TTL deletion (at `expires_at`) expires the verification.
pub fn expiry_marker_item(v: &Verification) -> Item {
    let mut marker = with_key(HashMap::new(), keys::expiry_marker(v.verification_id));
    marker.insert("verification_id".into(), s(v.verification_id.to_string()));
    marker.insert(schema::TTL_ATTRIBUTE.into(), n(v.expires_at.timestamp()));
    marker
}

/// A household (its members are verification items of their own).
pub fn household_item(h: &Household) -> Result<Item, StoreError> {
    Ok(with_key(to_item(h)?, keys::household(h.household_id)))
}

/// The idempotency record a create claims, remembered for 24 hours after it.
pub fn idempotency_item(claim: &IdempotencyClaim, v: &Verification) -> Result<Item, StoreError> {
    let record = IdempotencyRecord {
        body_hash: claim.body_hash.clone(),
        verification_id: v.verification_id,
        created_at: v.created_at,
        household_id: v.household_id,
    };
    let mut item = with_key(to_item(&record)?, keys::idempotency(&claim.key_hash));
    item.insert(
        schema::TTL_ATTRIBUTE.into(),
        n((v.created_at + IDEMPOTENCY_LIFETIME).timestamp()),
    );
    Ok(item)
}

/// The owner's counters, as a whole item (seeding; the service moves them with ADD).
pub fn owner_stats_item(
    account_id: &str,
    mode: Mode,
    stats: &OwnerStats,
) -> Result<Item, StoreError> {
    Ok(with_key(to_item(stats)?, keys::stats(account_id, mode)))
}

/// The owner's counters read off their item (none yet: all zero).
pub(super) fn owner_stats_from_item(item: Option<Item>) -> Result<OwnerStats, StoreError> {
    item.map(from_item)
        .transpose()
        .map(Option::unwrap_or_default)
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use domain::{NewVerificationInput, Transition};

    fn pending() -> Verification {
        let t = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let input = NewVerificationInput {
            tenant_email: "t@example.com".into(),
            ..Default::default()
        };
        Verification::new_pending("acct", Mode::Test, input, t, Duration::days(7))
    }

    #[test]
    fn a_transition_writes_exactly_the_fields_it_sets() {
        let v = pending();
        let now = v.created_at + Duration::minutes(5);
        let names = |t: Transition, from: &Verification| {
            let next = t.apply(from, now);
            changed_attributes(from, &next)
                .unwrap()
                .into_iter()
                .map(|(name, _)| name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(Transition::Start, &v), ["started_at"]);
        assert_eq!(
            names(Transition::Cancel, &v),
            ["cancelled_at", "expired_at"]
        );
        let consent = Transition::Consent {
            version: "v1".into(),
            provider_user: Some("user-1".into()),
            methods: vec![],
        };
        assert_eq!(
            names(consent.clone(), &v),
            [
                "consent_version",
                "consented_at",
                "provider_user",
                "started_at"
            ]
        );
        // Already started: the start time stays as it was.
        let started = Transition::Start.apply(&v, v.created_at);
        assert_eq!(
            names(consent, &started),
            ["consent_version", "consented_at", "provider_user"]
        );
        let fail = Transition::Fail { reason: "x".into() };
        assert_eq!(names(fail, &started), ["failed_at", "failure_reason"]);
    }

    #[test]
    fn items_read_back() {
        let v = pending();
        let item = verification_item(&v).unwrap();
        assert_eq!(item[schema::GSI1SK], item[schema::GSI2SK]);
        assert!(verification_from_item(item).unwrap() == v);
    }
}
