//! The table's shape, defined once: attribute and index names, the key of every item kind, and the
//! reading of ids back out of keys. The store adapter writes items by it, the stream handlers here
//! read records by it, the local bootstrap creates the table from it (`adapters::dynamo`), and a
//! test checks that `template.yaml` declares the same.

pub const PK: &str = "PK";
pub const SK: &str = "SK";
pub const GSI_OWNER_CREATED: &str = "GSI1";
pub const GSI_OWNER_STATUS: &str = "GSI2";
pub const GSI1PK: &str = "GSI1PK";
pub const GSI1SK: &str = "GSI1SK";
pub const GSI2PK: &str = "GSI2PK";
pub const GSI2SK: &str = "GSI2SK";
/// Sparse: only household members' verifications carry its keys, so one Query of a household's
/// partition returns its members as they are.
pub const GSI_HOUSEHOLD_MEMBERS: &str = "GSI3";
pub const GSI3PK: &str = "GSI3PK";
pub const GSI3SK: &str = "GSI3SK";
/// Epoch seconds; DynamoDB's TTL deletes expiry markers and idempotency records by it.
pub const TTL_ATTRIBUTE: &str = "ttl";
pub const STREAM_VIEW: &str = "NEW_AND_OLD_IMAGES";
/// SK of the expiry marker; the stream's TTL REMOVE of this item expires the verification.
pub const EXPIRY_SK: &str = "EXPIRY";
pub const VERIFICATION_SK: &str = "VERIFICATION";
/// SK of the erasure marker, put when a verification has closed with its TTL at the end of the
/// account's retention; the stream's TTL REMOVE of this item erases the verification's personal
/// data (`expire-verifications`).
pub const ERASURE_SK: &str = "ERASURE";
/// The account attribute holding its retention period in days (`domain::retention`); unset
/// means the default. The roles that read it may read no other attribute of the account.
pub const RETENTION_ATTRIBUTE: &str = "retention_days";
/// SK prefix of a message's claim item (`MSG#<message key>`, in the partition of the
/// verification's claims, `keys::claims`).
pub const MESSAGE_CLAIM_PREFIX: &str = "MSG#";
/// SK of a stored outgoing webhook event; the stream's MODIFY of it (a redelivery request) is
/// `publish-events`' work, as a verification's change is.
pub const WEBHOOK_EVENT_SK: &str = "WEBHOOK_EVENT";
/// SK of a household item; its stream MODIFY (the decision written) sends `household.completed`.
pub const HOUSEHOLD_SK: &str = "HOUSEHOLD";

/// (index name, partition key, sort key); every GSI projects ALL.
pub const GSIS: [(&str, &str, &str); 3] = [
    (GSI_OWNER_CREATED, GSI1PK, GSI1SK),
    (GSI_OWNER_STATUS, GSI2PK, GSI2SK),
    (GSI_HOUSEHOLD_MEMBERS, GSI3PK, GSI3SK),
];
/// Every key attribute is a string.
pub const KEY_ATTRIBUTES: [&str; 8] = [PK, SK, GSI1PK, GSI1SK, GSI2PK, GSI2SK, GSI3PK, GSI3SK];

/// The account attribute the tenant-facing functions may read (`dynamodb:Attributes` in
/// template.yaml, with the key attributes): the landlord's display name.
pub const ACCOUNT_NAME_ATTRIBUTE: &str = "name";
/// The account's plan, read beside its name by the senders of SMS (their allowance).
pub const ACCOUNT_PLAN_ATTRIBUTE: &str = "plan";
/// The account's default verification methods (admin `set-default-methods`), which the tenant
/// page reads at consent for a verification created without its own (`dynamodb:Attributes`).
pub const ACCOUNT_DEFAULT_METHODS_ATTRIBUTE: &str = "default_methods";

/// Key builders, one per item kind (see the table in `dynamo.rs`), and their inverse where a
/// caller reads an id out of a key (stream records).
///
/// A verification's claims and markers have partitions of their own, apart from the
/// verification's: IAM tells items apart by their partition key only (`dynamodb:LeadingKeys`),
/// so a role that may put or delete a claim or a marker may not put or delete the verification.
pub mod keys {
    use uuid::Uuid;

    use super::{ERASURE_SK, EXPIRY_SK, HOUSEHOLD_SK, MESSAGE_CLAIM_PREFIX, VERIFICATION_SK};
    use domain::webhook_log::WebhookSubject;
    use domain::{Mode, Status, Verification, format_ts};

    const VERIFICATION_PREFIX: &str = "VERIFICATION#";
    /// The partition of a verification's message claims.
    const CLAIM_PREFIX: &str = "CLAIM#";
    /// The partition of a verification's expiry and erasure markers.
    const MARKER_PREFIX: &str = "MARKER#";

    /// The account: name, plan, subscription, API keys, settings. Only the operator's tool
    /// writes it; every runtime role may only read it.
    pub fn account(id: &str) -> (String, String) {
        (format!("ACCOUNT#{id}"), "ACCOUNT".into())
    }
    /// The account's usage: the counters the API and event functions move (the day's requests,
    /// each key's burst, the month's live creates and SMS), each role only its own attributes.
    pub fn usage(id: &str) -> (String, String) {
        (format!("USAGE#{id}"), "USAGE".into())
    }
    pub fn api_key(hash: &str) -> (String, String) {
        (format!("APIKEY#{hash}"), "APIKEY".into())
    }
    /// GSI1 partition of an account's API keys.
    pub fn account_keys(account_id: &str) -> String {
        format!("KEYS#{account_id}")
    }
    pub fn verification(id: Uuid) -> (String, String) {
        (format!("{VERIFICATION_PREFIX}{id}"), VERIFICATION_SK.into())
    }
    /// The partition of a verification's markers: `MARKER#<id>`.
    pub fn markers(id: Uuid) -> String {
        format!("{MARKER_PREFIX}{id}")
    }
    pub fn expiry_marker(id: Uuid) -> (String, String) {
        (markers(id), EXPIRY_SK.into())
    }
    pub fn erasure_marker(id: Uuid) -> (String, String) {
        (markers(id), ERASURE_SK.into())
    }
    /// The partition of a verification's message claims: `CLAIM#<id>`.
    pub fn claims(id: Uuid) -> String {
        format!("{CLAIM_PREFIX}{id}")
    }
    /// The claim item of one message to the tenant (`reach::Message::key`).
    pub fn message_claim(id: Uuid, message_key: &str) -> (String, String) {
        (claims(id), format!("{MESSAGE_CLAIM_PREFIX}{message_key}"))
    }
    /// The verification id of a `VERIFICATION#<id>` partition key; None for any other key.
    pub fn verification_id(pk: &str) -> Option<Uuid> {
        Uuid::parse_str(pk.strip_prefix(VERIFICATION_PREFIX)?).ok()
    }
    /// The verification id of a marker's `MARKER#<id>` partition key (what a stream record of
    /// its TTL deletion carries); None for any other key.
    pub fn marker_verification_id(pk: &str) -> Option<Uuid> {
        Uuid::parse_str(pk.strip_prefix(MARKER_PREFIX)?).ok()
    }
    /// The submissions of one document fingerprint (`FingerprintStore`), test and live apart:
    /// one item per verification that submitted it.
    pub fn fingerprint(mode: Mode, fingerprint: &str) -> String {
        format!("FINGERPRINT#{}#{fingerprint}", mode.as_str())
    }
    pub fn fingerprint_submission(mode: Mode, fingerprint: &str, id: Uuid) -> (String, String) {
        (self::fingerprint(mode, fingerprint), submission(id))
    }
    /// The SK of a verification's submission of a fingerprint.
    pub fn submission(id: Uuid) -> String {
        format!("SUBMISSION#{id}")
    }
    /// The partition listing a verification's fingerprint submissions, one item per fingerprint
    /// whose SK is that fingerprint's partition key: what an erasure reads to delete them.
    pub fn submitted(id: Uuid) -> String {
        format!("SUBMITTED#{id}")
    }
    pub fn household(id: Uuid) -> (String, String) {
        (format!("HOUSEHOLD#{id}"), HOUSEHOLD_SK.into())
    }
    pub fn owner(account: &str, mode: Mode) -> String {
        format!("OWNER#{account}#{}", mode.as_str())
    }
    pub fn owner_status(account: &str, mode: Mode, status: Status) -> String {
        format!("OWNER#{account}#{}#{}", mode.as_str(), status.as_str())
    }
    pub fn stats(account: &str, mode: Mode) -> (String, String) {
        (owner(account, mode), "STATS".into())
    }
    pub fn month(account: &str, mode: Mode, month: &str) -> (String, String) {
        (owner(account, mode), format!("MONTH#{month}"))
    }
    /// A stored outgoing webhook event, by its `webhook-id`.
    pub fn webhook_event(event_id: &str) -> (String, String) {
        (
            format!("WEBHOOK_EVENT#{event_id}"),
            super::WEBHOOK_EVENT_SK.into(),
        )
    }
    /// The partition of a subject's delivery attempts: a verification's, or a household's.
    pub fn deliveries(subject: WebhookSubject) -> String {
        match subject {
            WebhookSubject::Verification(id) => format!("DELIVERIES#{id}"),
            WebhookSubject::Household(id) => format!("DELIVERIES#HOUSEHOLD#{id}"),
        }
    }
    /// An attempt's sort key: by time (newest first when read backwards), then event and attempt.
    pub fn delivery_attempt(at: &str, event_id: &str, attempt: u32) -> String {
        format!("{at}#{event_id}#{attempt:03}")
    }
    pub fn idempotency(hash: &str) -> (String, String) {
        (format!("IDEMPOTENCY#{hash}"), "IDEMPOTENCY".into())
    }
    /// Sort key shared by both GSIs: newest first when read backwards.
    pub fn created_sort(v: &Verification) -> String {
        format!("{}#{}", format_ts(v.created_at), v.verification_id)
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::keys;

    #[test]
    fn verification_ids_read_back_from_their_keys() {
        let id = Uuid::new_v4();
        assert_eq!(keys::verification_id(&keys::verification(id).0), Some(id));
        for (pk, _) in [keys::expiry_marker(id), keys::erasure_marker(id)] {
            assert_eq!(keys::marker_verification_id(&pk), Some(id));
            assert_eq!(
                keys::verification_id(&pk),
                None,
                "a marker is no verification"
            );
        }
        let (claims, _) = keys::message_claim(id, "invite_email");
        assert_eq!(claims, keys::claims(id));
        assert_eq!(
            keys::verification_id(&claims),
            None,
            "a claim is no verification"
        );
        assert_eq!(
            keys::marker_verification_id(&claims),
            None,
            "a claim is no marker"
        );
        assert_eq!(
            keys::marker_verification_id(&keys::verification(id).0),
            None
        );
        assert_eq!(keys::verification_id(&keys::account("a").0), None);
        assert_eq!(keys::verification_id("VERIFICATION#not-a-uuid"), None);
        assert_eq!(keys::marker_verification_id("MARKER#not-a-uuid"), None);
    }
}
