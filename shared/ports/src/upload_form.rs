//! A browser upload straight to S3: an HTML form POST whose policy we sign with SigV4.
//!
//! The Rust SDK presigns only single-request URLs, and a presigned PUT cannot bound the size of
//! what arrives. A POST policy can: S3 refuses a body outside `content-length-range`, a key other
//! than the one signed, or a Content-Type other than the one signed. The function that hands out
//! the form needs only `s3:PutObject` on the upload prefix; the browser never sees a credential,
//! only the signature over this one policy, valid for minutes.

use base64::Engine as _;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

/// The credentials that sign (the function's own role, from its environment).
#[derive(Clone)]
pub struct SigningCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    /// Present for a role's temporary credentials; the form must then carry it.
    pub session_token: Option<String>,
}

impl std::fmt::Debug for SigningCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningCredentials(redacted)")
    }
}

/// What one upload may be: one object key, one Content-Type, a size range, until a moment.
#[derive(Debug, Clone)]
pub struct UploadRules {
    pub bucket: String,
    pub key: String,
    pub content_type: String,
    pub max_bytes: u64,
    pub expires_at: DateTime<Utc>,
    /// Where S3 sends the browser after a successful upload (`success_action_redirect`).
    pub redirect: Option<String>,
}

/// The form the browser posts: its action URL, then these fields in order, then the file last
/// (S3 ignores every field after `file`).
#[derive(Debug, Clone, PartialEq)]
pub struct UploadForm {
    pub url: String,
    pub fields: Vec<(String, String)>,
}

/// How long a signed upload form is accepted.
pub const UPLOAD_FORM_LIFETIME: chrono::Duration = chrono::Duration::minutes(15);

/// The Content-Type every upload is stored with: the analysis reads the first bytes, never a
/// declared type, and downloads are served as attachments.
pub const UPLOAD_CONTENT_TYPE: &str = "application/octet-stream";

const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// The signed form for `rules`, as of `now`. `endpoint` is the bucket's base URL
/// (`https://<bucket>.s3.<region>.amazonaws.com`, or a local emulator's).
pub fn upload_form(
    credentials: &SigningCredentials,
    region: &str,
    endpoint: &str,
    rules: &UploadRules,
    now: DateTime<Utc>,
) -> UploadForm {
    let date = now.format("%Y%m%d").to_string();
    let amz_date = now.format("%Y%m%dT%H%M%SZ").to_string();
    let credential = format!(
        "{}/{date}/{region}/s3/aws4_request",
        credentials.access_key_id
    );
    let mut fields = vec![
        ("key".to_string(), rules.key.clone()),
        ("Content-Type".to_string(), rules.content_type.clone()),
    ];
    if let Some(redirect) = &rules.redirect {
        fields.push(("success_action_redirect".to_string(), redirect.clone()));
    }
    fields.extend([
        ("x-amz-algorithm".to_string(), ALGORITHM.to_string()),
        ("x-amz-credential".to_string(), credential),
        ("x-amz-date".to_string(), amz_date),
    ]);
    if let Some(token) = &credentials.session_token {
        fields.push(("x-amz-security-token".to_string(), token.clone()));
    }
    let mut conditions = vec![
        json!({"bucket": rules.bucket}),
        json!(["content-length-range", 1, rules.max_bytes]),
    ];
    conditions.extend(fields.iter().map(|(name, value)| json!({ name: value })));
    let policy = json!({
        "expiration": rules.expires_at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        "conditions": Value::Array(conditions),
    });
    let policy = base64::engine::general_purpose::STANDARD.encode(policy.to_string());
    let signature = sign_policy(&credentials.secret_access_key, &date, region, &policy);
    fields.push(("policy".to_string(), policy));
    fields.push(("x-amz-signature".to_string(), signature));
    UploadForm {
        url: endpoint.trim_end_matches('/').to_string(),
        fields,
    }
}

/// SigV4 over a POST policy: the string to sign is the base64 policy itself, signed with the
/// key derived for the day, region and `s3` (AWS, "Authenticating Requests: Browser-Based
/// Uploads Using POST").
pub fn sign_policy(secret_access_key: &str, date: &str, region: &str, policy_b64: &str) -> String {
    let mut key = hmac(format!("AWS4{secret_access_key}").as_bytes(), date);
    for part in [region, "s3", "aws4_request"] {
        key = hmac(&key, part);
    }
    hex::encode(hmac(&key, policy_b64))
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    /// The worked example of AWS's S3 API reference ("Example: Browser-Based Upload using HTTP
    /// POST (Using AWS Signature Version 4)"): its policy as printed, with CRLF line ends, its
    /// example credentials, and the signature it publishes.
    #[test]
    fn the_signature_matches_the_published_aws_example() {
        let policy = [
            r#"{ "expiration": "2015-12-30T12:00:00.000Z","#,
            r#"  "conditions": ["#,
            r#"    {"bucket": "sigv4examplebucket"},"#,
            r#"    ["starts-with", "$key", "user/user1/"],"#,
            r#"    {"acl": "public-read"},"#,
            r#"    {"success_action_redirect": "http://sigv4examplebucket.s3.amazonaws.com/successful_upload.html"},"#,
            r#"    ["starts-with", "$Content-Type", "image/"],"#,
            r#"    {"x-amz-meta-uuid": "14365123651274"},"#,
            r#"    {"x-amz-server-side-encryption": "AES256"},"#,
            r#"    ["starts-with", "$x-amz-meta-tag", ""],"#,
            "",
            r#"    {"x-amz-credential": "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request"},"#,
            r#"    {"x-amz-algorithm": "AWS4-HMAC-SHA256"},"#,
            r#"    {"x-amz-date": "20151229T000000Z" }"#,
            "  ]",
            "}",
        ]
        .join("\r\n");
        let policy_b64 = base64::engine::general_purpose::STANDARD.encode(policy);
        assert!(
            policy_b64.starts_with("eyAiZXhwaXJhdGlvbiI6ICIyMDE1LTEyLTMwVDEyOjAwOjAwLjAwMFoiLA0K")
        );
        assert!(policy_b64.ends_with("fQ0KICBdDQp9"));
        assert_eq!(
            sign_policy(
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "20151229",
                "us-east-1",
                &policy_b64
            ),
            "8afdbf4008c03f22c2cd3cdb72e4afbb1f6a588f3255ac628749a66d7f09699e"
        );
    }

    fn rules() -> UploadRules {
        UploadRules {
            bucket: "tivs-documents".into(),
            key: "uploads/v1/d1.pdf".into(),
            content_type: "application/pdf".into(),
            max_bytes: 10 * 1024 * 1024,
            expires_at: Utc.with_ymd_and_hms(2026, 3, 10, 12, 5, 0).unwrap(),
            redirect: Some("https://verify.example.com/t/v/tok".into()),
        }
    }

    fn credentials(session_token: Option<&str>) -> SigningCredentials {
        SigningCredentials {
            access_key_id: "AKIAIOSFODNN7EXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            session_token: session_token.map(Into::into),
        }
    }

    fn field<'a>(form: &'a UploadForm, name: &str) -> &'a str {
        form.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no field {name}"))
    }

    #[test]
    fn the_policy_binds_the_key_type_size_and_expiry_and_the_signature_covers_it() {
        let now = Utc.with_ymd_and_hms(2026, 3, 10, 12, 0, 0).unwrap();
        let form = upload_form(
            &credentials(Some("session-token")),
            "us-east-1",
            "https://tivs-documents.s3.us-east-1.amazonaws.com/",
            &rules(),
            now,
        );
        assert_eq!(
            form.url,
            "https://tivs-documents.s3.us-east-1.amazonaws.com"
        );
        let policy_b64 = field(&form, "policy");
        let policy: Value = serde_json::from_slice(
            &base64::engine::general_purpose::STANDARD
                .decode(policy_b64)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(policy["expiration"], "2026-03-10T12:05:00.000Z");
        let conditions = policy["conditions"].as_array().unwrap();
        for expected in [
            json!({"bucket": "tivs-documents"}),
            json!(["content-length-range", 1, 10_485_760]),
            json!({"key": "uploads/v1/d1.pdf"}),
            json!({"Content-Type": "application/pdf"}),
            json!({"x-amz-credential": "AKIAIOSFODNN7EXAMPLE/20260310/us-east-1/s3/aws4_request"}),
            json!({"x-amz-date": "20260310T120000Z"}),
            json!({"x-amz-security-token": "session-token"}),
            json!({"success_action_redirect": "https://verify.example.com/t/v/tok"}),
        ] {
            assert!(
                conditions.contains(&expected),
                "{expected} in {conditions:?}"
            );
        }
        assert_eq!(
            field(&form, "x-amz-signature"),
            sign_policy(
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "20260310",
                "us-east-1",
                policy_b64
            )
        );
        // The file goes last; every signed field comes before it.
        assert_eq!(form.fields.last().unwrap().0, "x-amz-signature");
    }

    #[test]
    fn long_lived_credentials_carry_no_token_and_debug_shows_no_secret() {
        let creds = credentials(None);
        let form = upload_form(
            &creds,
            "eu-west-1",
            "http://127.0.0.1:5000/b",
            &rules(),
            Utc::now(),
        );
        assert!(form.fields.iter().all(|(n, _)| n != "x-amz-security-token"));
        assert!(!format!("{creds:?}").contains("EXAMPLEKEY"));
    }
}
