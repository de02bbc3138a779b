//! An account lives in two items, so that no API or event function can write its keys or plan:
//! the account item (`ACCOUNT#<id>`: name, plan, subscription, API keys, settings), which only the
//! operator's tool writes, and its usage item (`USAGE#<id>`), which holds the counters the runtime
//! moves, each role only its own attributes (template.yaml's `dynamodb:Attributes` bounds):
//!
//! - `api_requests_<yyyymmdd>`: the day's API requests (`api_day`);
//! - `api_burst_<key id>`: each key's burst state (`domain::metering::burst_step`);
//! - `api_last_metered_create`: the marker of the last metered write (`metered_create`);
//! - `live_created_<yyyymm>`: the month's live creates (`live_month`);
//! - `sms_sent_<yyyymm>`: the month's live texts (`sms_month`).
//!
//! A metered request reads both items (consistent reads, one BatchGetItem), judges them by the
//! domain's rule, and moves its counters with one conditional write on the usage item: a key
//! revoked, or a plan changed, is seen by every request that starts after the operator's write.

use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};

use super::items::Item;
use super::{DynamoStore, unavailable};
use ports::StoreError;
use service::table_schema::{self as schema, keys};

/// The prefix of each key's burst state on the usage item.
const BURST_PREFIX: &str = "api_burst_";
/// The prefixes (and names) of the usage item's attributes: an account's attribute is one of
/// them or belongs to the account item.
const USAGE_PREFIXES: [&str; 5] = [
    "api_requests_",
    BURST_PREFIX,
    "api_last_metered_create",
    "live_created_",
    "sms_sent_",
];

/// The usage attribute holding `key_id`'s burst state.
pub(super) fn burst_attribute(key_id: &str) -> String {
    format!("{BURST_PREFIX}{key_id}")
}

/// Each key's burst state on a usage item (`Account::key_bursts`).
pub(super) fn key_bursts_of(item: &Item) -> impl Iterator<Item = (String, i64)> + '_ {
    item.iter().filter_map(|(attribute, value)| {
        let key_id = attribute.strip_prefix(BURST_PREFIX)?;
        Some((key_id.to_string(), value.as_n().ok()?.parse().ok()?))
    })
}

fn is_usage_attribute(attribute: &str) -> bool {
    USAGE_PREFIXES.iter().any(|p| attribute.starts_with(p))
}

/// An account's attributes (`api_day::account_attributes`) as its two items: the account's, and
/// its usage's when it has any count.
pub(super) fn split(mut attributes: Item, account_id: &str) -> (Item, Option<Item>) {
    let usage: Item = attributes
        .keys()
        .filter(|a| is_usage_attribute(a))
        .cloned()
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|a| Some((a.clone(), attributes.remove(&a)?)))
        .collect();
    let with_key = |mut item: Item, (pk, sk): (String, String)| {
        item.insert(schema::PK.into(), AttributeValue::S(pk));
        item.insert(schema::SK.into(), AttributeValue::S(sk));
        item
    };
    let account = with_key(attributes, keys::account(account_id));
    let usage = (!usage.is_empty()).then(|| with_key(usage, keys::usage(account_id)));
    (account, usage)
}

/// The account item with its usage's counters beside its own attributes, as
/// `api_day::account_from_item` reads one account.
pub(super) fn merged(account: &Item, usage: &Item) -> Item {
    let mut item = account.clone();
    item.extend(
        usage
            .iter()
            .filter(|(a, _)| is_usage_attribute(a))
            .map(|(a, v)| (a.clone(), v.clone())),
    );
    item
}

impl DynamoStore {
    /// The account item and its usage item (empty when nothing was counted yet), both read
    /// consistently in one request; None when there is no such account.
    pub(super) async fn account_and_usage(
        &self,
        account_id: &str,
    ) -> Result<Option<(Item, Item)>, StoreError> {
        let (account_key, usage_key) = (keys::account(account_id), keys::usage(account_id));
        let key = |(pk, sk): &(String, String)| {
            Item::from([
                (schema::PK.to_string(), AttributeValue::S(pk.clone())),
                (schema::SK.to_string(), AttributeValue::S(sk.clone())),
            ])
        };
        let mut wanted = KeysAndAttributes::builder()
            .keys(key(&account_key))
            .keys(key(&usage_key))
            .consistent_read(true)
            .build()
            .map_err(unavailable)?;
        let mut found = Vec::new();
        // DynamoDB may leave keys unprocessed under load: ask again for those, a few times.
        for _ in 0..3 {
            let out = self
                .client
                .batch_get_item()
                .request_items(&self.table, wanted)
                .send()
                .await
                .map_err(unavailable)?;
            found.extend(
                (out.responses.and_then(|mut r| r.remove(&self.table))).unwrap_or_default(),
            );
            match out.unprocessed_keys.and_then(|mut u| u.remove(&self.table)) {
                Some(rest) if !rest.keys.is_empty() => wanted = rest,
                _ => {
                    let pk_of = |item: &Item| item.get(schema::PK)?.as_s().ok().cloned();
                    let mut account = None;
                    let mut usage = Item::new();
                    for item in found {
                        match pk_of(&item) {
                            Some(pk) if pk == account_key.0 => account = Some(item),
                            Some(pk) if pk == usage_key.0 => usage = item,
                            _ => {}
                        }
                    }
                    return Ok(account.map(|account| (account, usage)));
                }
            }
        }
        Err(StoreError::Unavailable(
            "the account's reads stayed unprocessed".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::items::{n, s};

    #[test]
    fn an_accounts_counters_go_to_its_usage_item_and_come_back_beside_it() {
        let mut attributes = Item::new();
        attributes.insert("name".into(), s("Acme"));
        attributes.insert("plan".into(), s("pro"));
        attributes.insert("api_keys".into(), AttributeValue::M(Default::default()));
        attributes.insert("api_requests_20261202".into(), n(3));
        attributes.insert("api_burst_key_1".into(), n(1_700_000_000_000_i64));
        attributes.insert("live_created_202612".into(), n(2));
        attributes.insert("sms_sent_202612".into(), n(1));
        let (account, usage) = split(attributes.clone(), "acct");
        let usage = usage.expect("counters make a usage item");
        assert_eq!(account["PK"], s("ACCOUNT#acct"));
        assert_eq!(usage["PK"], s("USAGE#acct"));
        assert!(account.contains_key("api_keys") && account.contains_key("plan"));
        for counter in [
            "api_requests_20261202",
            "api_burst_key_1",
            "live_created_202612",
        ] {
            assert!(usage.contains_key(counter) && !account.contains_key(counter));
        }
        assert!(!usage.contains_key("api_keys") && !usage.contains_key("plan"));
        // Merged back: the account's attributes and the counters, the account's own key.
        let mut back = merged(&account, &usage);
        assert_eq!(back.remove("PK"), Some(s("ACCOUNT#acct")));
        back.remove("SK");
        assert_eq!(back, attributes);
        assert_eq!(
            key_bursts_of(&usage).collect::<Vec<_>>(),
            vec![("key_1".to_string(), 1_700_000_000_000)]
        );
        // A usage item's own key never replaces the account's, and nothing counted: no usage.
        let (_, none) = split(Item::from([("name".to_string(), s("A"))]), "acct");
        assert!(none.is_none());
    }
}
