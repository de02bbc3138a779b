//! API keys, tenant-link tokens and webhook secrets: generation, format checks and hashing.
//!
//! API keys are self-describing, GitHub-style: `tiv_live_` or `tiv_test_`, 30 random base62
//! characters, then a 6-character base62 CRC-32 of the random part, so a mistyped key is rejected
//! without a table lookup. Only the SHA-256 of a key or token is ever stored.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use rand::Rng;
use sha2::{Digest, Sha256};

use crate::domain::Mode;

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const LIVE_PREFIX: &str = "tiv_live_";
const TEST_PREFIX: &str = "tiv_test_";
const RANDOM_LEN: usize = 30;
const CHECKSUM_LEN: usize = 6;

pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in data {
        crc ^= byte as u32;
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

fn base62_fixed(mut n: u32, width: usize) -> String {
    let mut out = vec![b'0'; width];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    String::from_utf8(out).expect("ascii")
}

/// A freshly generated API key. `secret` is shown once and never stored.
pub struct GeneratedKey {
    pub secret: String,
    pub hash: String,
    pub key_id: String,
    pub display_prefix: String,
}

pub fn generate_api_key(mode: Mode) -> GeneratedKey {
    let mut rng = rand::rng();
    let random: String = (0..RANDOM_LEN)
        .map(|_| BASE62[rng.random_range(0..BASE62.len())] as char)
        .collect();
    key_from_random(mode, &random)
}

/// Builds a well-formed key around a given random part. Used by `generate_api_key`, and by the
/// local stack for its fixed demo keys (which exist only in a local table).
pub fn key_from_random(mode: Mode, random: &str) -> GeneratedKey {
    let prefix = match mode {
        Mode::Live => LIVE_PREFIX,
        Mode::Test => TEST_PREFIX,
    };
    let secret = format!(
        "{prefix}{random}{}",
        base62_fixed(crc32(random.as_bytes()), CHECKSUM_LEN)
    );
    let hash = sha256_hex(secret.as_bytes());
    GeneratedKey {
        key_id: key_id_for_hash(&hash),
        display_prefix: secret[..prefix.len() + 4].to_string(),
        secret,
        hash,
    }
}

/// Public identifier of a key: derived from its hash, safe to log and show.
pub fn key_id_for_hash(hash: &str) -> String {
    format!("key_{}", &hash[..16])
}

/// A key that passed the offline format and checksum checks.
#[derive(Clone, PartialEq)]
pub struct ParsedKey {
    pub mode: Mode,
    pub hash: String,
}

/// Checks prefix, length, alphabet and checksum. Never echoes the key.
pub fn parse_api_key(raw: &str) -> Option<ParsedKey> {
    let (mode, rest) = if let Some(rest) = raw.strip_prefix(LIVE_PREFIX) {
        (Mode::Live, rest)
    } else if let Some(rest) = raw.strip_prefix(TEST_PREFIX) {
        (Mode::Test, rest)
    } else {
        return None;
    };
    if rest.len() != RANDOM_LEN + CHECKSUM_LEN || !rest.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let (random, checksum) = rest.split_at(RANDOM_LEN);
    if base62_fixed(crc32(random.as_bytes()), CHECKSUM_LEN) != checksum {
        return None;
    }
    Some(ParsedKey {
        mode,
        hash: sha256_hex(raw.as_bytes()),
    })
}

/// A tenant-link token: 256 random bits, URL-safe. Returns (token, sha256 hex).
pub fn generate_link_token() -> (String, String) {
    let bytes: [u8; 32] = rand::rng().random();
    let token = URL_SAFE_NO_PAD.encode(bytes);
    let hash = sha256_hex(token.as_bytes());
    (token, hash)
}

/// A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes.
pub fn generate_webhook_secret() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    format!("whsec_{}", STANDARD.encode(bytes))
}

/// Returns the raw signing key bytes of a `whsec_` secret.
pub fn webhook_secret_bytes(secret: &str) -> Option<Vec<u8>> {
    STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_parse_and_typos_do_not() {
        for mode in [Mode::Live, Mode::Test] {
            let key = generate_api_key(mode);
            let parsed = parse_api_key(&key.secret).expect("valid");
            assert_eq!(parsed.mode, mode);
            assert_eq!(parsed.hash, key.hash);
            assert!(key.key_id.starts_with("key_"));
            assert!(!key.display_prefix.contains(&key.secret[15..]));
            // One changed character breaks the checksum.
            let mut typo = key.secret.clone().into_bytes();
            typo[12] = if typo[12] == b'a' { b'b' } else { b'a' };
            assert_eq!(parse_api_key(&String::from_utf8(typo).unwrap()), None);
        }
        assert_eq!(parse_api_key("tiv_live_short"), None);
        assert_eq!(
            parse_api_key("sk_live_0000000000000000000000000000000000"),
            None
        );
    }

    #[test]
    fn crc_matches_reference_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn link_tokens_are_long_and_hashed() {
        let (token, hash) = generate_link_token();
        assert!(token.len() >= 43);
        assert_eq!(hash, sha256_hex(token.as_bytes()));
        let secret = generate_webhook_secret();
        assert_eq!(webhook_secret_bytes(&secret).unwrap().len(), 32);
    }
}
