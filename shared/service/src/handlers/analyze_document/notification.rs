//! The bucket's ObjectCreated notifications, as the documents queue delivers them: the uploads
//! each message announces.

use aws_lambda_events::event::sqs::SqsMessage;
use serde::Deserialize;
use uuid::Uuid;

use domain::documents::record::parse_object_key;

#[derive(Deserialize)]
struct Notification {
    #[serde(rename = "Records", default)]
    records: Vec<S3Record>,
}

#[derive(Deserialize)]
struct S3Record {
    #[serde(rename = "eventName", default)]
    event_name: String,
    s3: S3Entity,
}

#[derive(Deserialize)]
struct S3Entity {
    object: S3Object,
}

#[derive(Deserialize)]
struct S3Object {
    key: String,
    #[serde(default)]
    size: u64,
    #[serde(rename = "eTag", default)]
    etag: String,
    /// Present when the bucket is versioned (AWS); a local emulator may leave it out.
    #[serde(rename = "versionId", default)]
    version_id: Option<String>,
}

/// One object to analyse, from its notification.
#[derive(Debug, Clone)]
pub struct Arrival {
    pub verification_id: Uuid,
    pub document_id: String,
    pub key: String,
    pub size: u64,
    pub etag: String,
    /// The object version, from the notification or, when it names none, from the key's
    /// current version of the same ETag.
    pub version_id: Option<String>,
}

/// Keys in notifications are URL-encoded, with `+` for a space.
fn decode_key(raw: &str) -> String {
    let spaced = raw.replace('+', " ");
    let bytes = spaced.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(hex)) => match u8::from_str_radix(&String::from_utf8_lossy(hex), 16) {
                Ok(b) => {
                    out.push(b);
                    i += 3;
                }
                Err(_) => {
                    out.push(b'%');
                    i += 1;
                }
            },
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The uploads a queue message announces (none for S3's test event or another event).
pub fn arrivals(message: &SqsMessage) -> Vec<Arrival> {
    let Some(notification) = message
        .body
        .as_deref()
        .and_then(|b| serde_json::from_str::<Notification>(b).ok())
    else {
        return vec![];
    };
    notification
        .records
        .into_iter()
        .filter(|r| r.event_name.starts_with("ObjectCreated:"))
        .filter_map(|r| {
            let key = decode_key(&r.s3.object.key);
            let (verification_id, document_id) = parse_object_key(&key)?;
            Some(Arrival {
                verification_id,
                document_id,
                key,
                size: r.s3.object.size,
                etag: r.s3.object.etag,
                version_id: r
                    .s3
                    .object
                    .version_id
                    .filter(|v| !v.is_empty() && v != "null"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_decoded_and_only_uploads_of_created_objects_count() {
        assert_eq!(decode_key("uploads/a+b%2Fc"), "uploads/a b/c");
        let id = Uuid::new_v4();
        let body = serde_json::json!({"Records": [
            {"eventName": "ObjectCreated:Post", "s3": {"object": {"key": format!("uploads/{id}/d1"), "size": 10, "eTag": "e1"}}},
            {"eventName": "ObjectRemoved:Delete", "s3": {"object": {"key": format!("uploads/{id}/d2"), "size": 0, "eTag": "e2"}}},
            {"eventName": "ObjectCreated:Put", "s3": {"object": {"key": "elsewhere/x", "size": 1, "eTag": "e3"}}},
        ]});
        let mut message = SqsMessage::default();
        message.body = Some(body.to_string());
        let found = arrivals(&message);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].verification_id, found[0].document_id.as_str()),
            (id, "d1")
        );
        message.body = Some(r#"{"Service":"Amazon S3","Event":"s3:TestEvent"}"#.into());
        assert!(arrivals(&message).is_empty());
    }
}
