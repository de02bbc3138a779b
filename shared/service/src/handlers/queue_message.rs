//! What a function fed by an SQS queue reads off each message Lambda hands it: its JSON body, which
//! attempt this is, and the delay before the next one. The queue's own calls are the `Queue` port.

use aws_lambda_events::event::sqs::SqsMessage;
use serde::de::DeserializeOwned;

/// The JSON body of a message Lambda received from SQS; None when it has none or it is not a `T`
/// (such a message will not become readable by retrying).
pub fn json_body<T: DeserializeOwned>(record: &SqsMessage) -> Option<T> {
    record
        .body
        .as_deref()
        .and_then(|b| serde_json::from_str(b).ok())
}

/// Which attempt of a received message this is (1 for the first delivery).
pub fn receive_count(m: &SqsMessage) -> usize {
    m.attributes
        .get("ApproximateReceiveCount")
        .and_then(|c| c.parse().ok())
        .unwrap_or(1)
}

/// The delay before the next attempt, from `backoff` indexed by the attempt that failed (its last
/// value repeats); None for an empty list.
pub fn backoff_delay(backoff: &[u32], attempt: usize) -> Option<u32> {
    backoff
        .get(attempt.saturating_sub(1))
        .or(backoff.last())
        .copied()
}
