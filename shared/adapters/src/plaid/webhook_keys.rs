//! Plaid's webhook verification, as its "Verify webhooks" page documents it
//! (https://plaid.com/docs/api/webhooks/webhook-verification/):
//!
//! 1. The `Plaid-Verification` header is a JWT; its header must say `alg: ES256` (anything else
//!    is refused before any key is looked at) and name the key by `kid`.
//! 2. The key is the JWK `/webhook_verification_key/get` answers for that `kid`. Keys are cached
//!    by `kid`; an unknown `kid` is fetched (Plaid rotates keys), and a key Plaid marked expired
//!    is refused.
//! 3. The signature (ECDSA P-256 with SHA-256, `r || s`) must hold over `header.payload`.
//! 4. The claims: `iat` at most 5 minutes old (replays of old webhooks are refused) and
//!    `request_body_sha256` equal to the SHA-256 of the body as received.
//!
//! The body then says what happened: `CHECK_REPORT_READY` and `CHECK_REPORT_FAILED` (webhook
//! type `CHECK_REPORT`, https://plaid.com/docs/api/products/check/) name the `user_id` of the
//! new User APIs. Every other webhook is verified and ignored.

use std::collections::HashMap;
use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Duration, Utc};
use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
use serde::{Deserialize, Serialize};

use crate::plaid::check::user_id_of;
use crate::plaid::client::PlaidClient;
use crate::plaid::config::{PlaidConfig, PlaidConfigError};
use domain::awaiting::DataSignal;
use domain::secrets::{same_secret as same, sha256_hex};
use ports::{ProviderError, ProviderNotice, ProviderWebhookVerifier, WebhookRefusal};

/// The oldest `iat` accepted, as Plaid's page asks.
pub const MAX_AGE: Duration = Duration::minutes(5);
/// How far in the future an `iat` may be (clocks differ a little).
const MAX_SKEW: Duration = Duration::seconds(30);
/// A JWT longer than this is not Plaid's (a few hundred bytes); refused before decoding.
const MAX_JWT_LEN: usize = 4096;
/// How many keys the cache holds; Plaid rotates rarely, so more means someone sends junk `kid`s.
const MAX_CACHED_KEYS: usize = 16;

/// Verifies Plaid's webhooks with keys fetched from Plaid and cached per cold start.
pub struct PlaidWebhookVerifier {
    plaid: PlaidClient,
    keys: Mutex<HashMap<String, CachedKey>>,
}

impl std::fmt::Debug for PlaidWebhookVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlaidWebhookVerifier")
            .field("plaid", &self.plaid)
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
struct CachedKey {
    /// The uncompressed P-256 point `04 || x || y`.
    point: Vec<u8>,
    expired_at: Option<i64>,
}

#[derive(Deserialize)]
struct JwtHeader {
    alg: String,
    #[serde(default)]
    kid: Option<String>,
}

#[derive(Deserialize)]
struct Claims {
    iat: i64,
    request_body_sha256: String,
}

#[derive(Serialize)]
struct KeyRequest<'a> {
    key_id: &'a str,
}

#[derive(Deserialize)]
struct KeyResponse {
    key: Jwk,
}

/// The JWK of `/webhook_verification_key/get`.
#[derive(Deserialize)]
struct Jwk {
    #[serde(default)]
    alg: Option<String>,
    #[serde(default)]
    crv: Option<String>,
    #[serde(default)]
    kty: Option<String>,
    x: String,
    y: String,
    #[serde(default)]
    expired_at: Option<i64>,
}

#[derive(Deserialize)]
struct WebhookBody {
    #[serde(default)]
    webhook_type: String,
    #[serde(default)]
    webhook_code: String,
    #[serde(default)]
    user_id: Option<String>,
}

impl PlaidWebhookVerifier {
    pub fn new(config: PlaidConfig) -> Result<Self, PlaidConfigError> {
        Ok(PlaidWebhookVerifier {
            plaid: PlaidClient::new(config)?,
            keys: Mutex::new(HashMap::new()),
        })
    }

    /// The key of `kid`: cached, else fetched (and cached).
    async fn key(&self, kid: &str) -> Result<CachedKey, WebhookRefusal> {
        if let Some(key) = self.keys.lock().expect("key cache").get(kid) {
            return Ok(key.clone());
        }
        let fetched: Result<KeyResponse, ProviderError> = self
            .plaid
            .call("/webhook_verification_key/get", &KeyRequest { key_id: kid })
            .await;
        let jwk = match fetched {
            Ok(answer) => answer.key,
            // Plaid knows no such key: the webhook is not Plaid's.
            Err(ProviderError::Rejected(_)) => {
                return Err(WebhookRefusal::Unverified("unknown key"));
            }
            Err(ProviderError::Unavailable(why)) => return Err(WebhookRefusal::Unavailable(why)),
        };
        let key = parse_jwk(&jwk).ok_or(WebhookRefusal::Unverified("unusable key"))?;
        let mut keys = self.keys.lock().expect("key cache");
        if keys.len() >= MAX_CACHED_KEYS {
            keys.clear();
        }
        keys.insert(kid.to_string(), key.clone());
        tracing::info!(kid, "Plaid webhook key fetched");
        Ok(key)
    }
}

fn parse_jwk(jwk: &Jwk) -> Option<CachedKey> {
    let fits = |field: &Option<String>, want: &str| field.as_deref().is_none_or(|v| v == want);
    if !(fits(&jwk.alg, "ES256") && fits(&jwk.crv, "P-256") && fits(&jwk.kty, "EC")) {
        return None;
    }
    let (x, y) = (
        URL_SAFE_NO_PAD.decode(&jwk.x).ok()?,
        URL_SAFE_NO_PAD.decode(&jwk.y).ok()?,
    );
    if x.len() != 32 || y.len() != 32 {
        return None;
    }
    let mut point = Vec::with_capacity(65);
    point.push(4);
    point.extend_from_slice(&x);
    point.extend_from_slice(&y);
    Some(CachedKey {
        point,
        expired_at: jwk.expired_at,
    })
}

fn decode_json<T: serde::de::DeserializeOwned>(part: &str) -> Option<T> {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).ok()?).ok()
}

/// What a verified body says.
fn notice_of(body: &[u8]) -> ProviderNotice {
    let Ok(body) = serde_json::from_slice::<WebhookBody>(body) else {
        return ProviderNotice::Ignored {
            kind: "unreadable".into(),
        };
    };
    let signal = match (body.webhook_type.as_str(), body.webhook_code.as_str()) {
        ("CHECK_REPORT", "CHECK_REPORT_READY") => Some(DataSignal::Ready),
        ("CHECK_REPORT", "CHECK_REPORT_FAILED") => Some(DataSignal::Failed),
        _ => None,
    };
    match (signal, body.user_id.filter(|u| !u.trim().is_empty())) {
        (Some(signal), Some(provider_user_id)) => ProviderNotice::Data {
            provider_user_id,
            signal,
        },
        _ => ProviderNotice::Ignored {
            kind: format!(
                "{}/{}",
                crate::plaid::errors::safe_token(Some(&body.webhook_type)),
                crate::plaid::errors::safe_token(Some(&body.webhook_code))
            ),
        },
    }
}

impl ProviderWebhookVerifier for PlaidWebhookVerifier {
    fn signature_header(&self) -> &'static str {
        "plaid-verification"
    }

    async fn verify(
        &self,
        signature: Option<&str>,
        body: &[u8],
        now: DateTime<Utc>,
    ) -> Result<ProviderNotice, WebhookRefusal> {
        use WebhookRefusal::Unverified;
        let jwt = signature
            .map(str::trim)
            .filter(|j| !j.is_empty() && j.len() <= MAX_JWT_LEN)
            .ok_or(Unverified("no Plaid-Verification header"))?;
        let mut parts = jwt.split('.');
        let (Some(head), Some(payload), Some(sig), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Unverified("not a JWT"));
        };
        let header: JwtHeader = decode_json(head).ok_or(Unverified("unreadable JWT header"))?;
        // Only ES256: never `none`, never an HMAC keyed with a public key.
        if header.alg != "ES256" {
            return Err(Unverified("alg is not ES256"));
        }
        let kid = header.kid.filter(|k| !k.is_empty() && k.len() <= 128);
        let kid = kid.ok_or(Unverified("no kid"))?;
        let key = self.key(&kid).await?;
        if key.expired_at.is_some_and(|at| at <= now.timestamp()) {
            return Err(Unverified("key expired"));
        }
        let signature = URL_SAFE_NO_PAD
            .decode(sig)
            .map_err(|_| Unverified("unreadable signature"))?;
        let signed = &jwt.as_bytes()[..head.len() + 1 + payload.len()];
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &key.point)
            .verify(signed, &signature)
            .map_err(|_| Unverified("bad signature"))?;
        let claims: Claims = decode_json(payload).ok_or(Unverified("unreadable claims"))?;
        let issued = DateTime::<Utc>::from_timestamp(claims.iat, 0).ok_or(Unverified("bad iat"))?;
        if now - issued > MAX_AGE {
            return Err(Unverified("iat older than 5 minutes"));
        }
        if issued - now > MAX_SKEW {
            return Err(Unverified("iat in the future"));
        }
        if !same(
            &claims.request_body_sha256.to_ascii_lowercase(),
            &sha256_hex(body),
        ) {
            return Err(Unverified("body does not match its digest"));
        }
        Ok(notice_of(body))
    }

    fn method(&self) -> domain::income::VerificationMethod {
        domain::income::VerificationMethod::Bank
    }

    fn is_user(&self, handle: &str, provider_user_id: &str) -> bool {
        user_id_of(handle).is_some_and(|own| same(own, provider_user_id))
    }
}
