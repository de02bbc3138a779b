//! API keys, tenant-link tokens and webhook secrets: generation, format checks and hashing.
//!
//! API keys are self-describing, GitHub-style: `tiv_live_` or `tiv_test_`, the id of the account
//! they belong to and `_`, 30 random base62 characters, then a 6-character base62 CRC-32 of the
//! account id, `_` and the random part, so a mistyped key is rejected without a table lookup, and
//! the key names the account whose item authenticates it (its hash listed there) in the very write
//! that meters the request. Account ids are checked where they are made (`valid_account_id`), so
//! every key names its account. Only the SHA-256 of a key or token is ever stored.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use rand::rngs::OsRng;
use rand::{Rng, TryRngCore};
use sha2::{Digest, Sha256};

use crate::Mode;

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const LIVE_PREFIX: &str = "tiv_live_";
const TEST_PREFIX: &str = "tiv_test_";
const RANDOM_LEN: usize = 30;
const CHECKSUM_LEN: usize = 6;
/// Longest account id (the admin tool's own ids are 21 characters).
pub const MAX_ACCOUNT_ID_LEN: usize = 64;

pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// The hex HMAC-SHA512 of `body` under `key` (how Argyle signs its webhooks:
/// https://docs.argyle.com/api-guide/webhooks).
pub fn hmac_sha512_hex(key: &[u8], body: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha512>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// Equal strings, compared without an early exit: how a presented secret (a webhook signature,
/// the edge's origin header) is checked, so the time taken says nothing of how much matched.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
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

/// A new key of `account_id`, naming it (the format above); None for an id that is not a valid
/// account id (`valid_account_id`), which no account has.
pub fn generate_api_key(account_id: &str, mode: Mode) -> Option<GeneratedKey> {
    let mut rng = rand::rng();
    let random: String = (0..RANDOM_LEN)
        .map(|_| BASE62[rng.random_range(0..BASE62.len())] as char)
        .collect();
    account_key_from_random(account_id, mode, &random)
}

fn mode_prefix(mode: Mode) -> &'static str {
    match mode {
        Mode::Live => LIVE_PREFIX,
        Mode::Test => TEST_PREFIX,
    }
}

/// Whether `account_id` may be an account's id: 1 to `MAX_ACCOUNT_ID_LEN` ASCII letters, digits,
/// `_` and `-`, so a key can name it. Checked wherever an account is made.
pub fn valid_account_id(account_id: &str) -> bool {
    !account_id.is_empty()
        && account_id.len() <= MAX_ACCOUNT_ID_LEN
        && account_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Builds a key (naming `account_id`) around a given random part; None when the account id is not
/// valid. Used by `generate_api_key`, and by the local stack and
/// tests for fixed keys (which exist only in a local table).
pub fn account_key_from_random(account_id: &str, mode: Mode, random: &str) -> Option<GeneratedKey> {
    if !valid_account_id(account_id) {
        return None;
    }
    let prefix = mode_prefix(mode);
    let body = format!("{account_id}_{random}");
    let secret = format!(
        "{prefix}{body}{}",
        base62_fixed(crc32(body.as_bytes()), CHECKSUM_LEN)
    );
    Some(generated(secret, prefix.len() + account_id.len() + 1 + 4))
}

fn generated(secret: String, shown: usize) -> GeneratedKey {
    let hash = sha256_hex(secret.as_bytes());
    GeneratedKey {
        key_id: key_id_for_hash(&hash),
        display_prefix: secret[..shown].to_string(),
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
    /// The account the key names.
    pub account_id: String,
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
    if rest.len() < RANDOM_LEN + CHECKSUM_LEN || !rest.is_ascii() {
        return None;
    }
    let (body, checksum) = rest.split_at(rest.len() - CHECKSUM_LEN);
    let (named, random) = body.split_at(body.len() - RANDOM_LEN);
    let account_id = named.strip_suffix('_')?;
    if !valid_account_id(account_id) {
        return None;
    }
    if !random.bytes().all(|b| b.is_ascii_alphanumeric())
        || base62_fixed(crc32(body.as_bytes()), CHECKSUM_LEN) != checksum
    {
        return None;
    }
    Some(ParsedKey {
        mode,
        hash: sha256_hex(raw.as_bytes()),
        account_id: account_id.to_string(),
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

/// A page's Content-Security-Policy nonce: 128 bits from the operating system's random source,
/// drawn afresh for each response (a nonce an attacker can predict allows their script).
pub fn csp_nonce() -> String {
    let mut bytes = [0u8; 16];
    OsRng
        .try_fill_bytes(&mut bytes)
        .expect("the operating system's random source is readable");
    STANDARD.encode(bytes)
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
    fn csp_nonces_are_128_random_bits_each_time() {
        let nonces: std::collections::HashSet<String> = (0..64).map(|_| csp_nonce()).collect();
        assert_eq!(nonces.len(), 64);
        for nonce in &nonces {
            assert_eq!(STANDARD.decode(nonce).unwrap().len(), 16);
        }
    }

    #[test]
    fn generated_keys_name_their_account_and_typos_anywhere_fail_the_checksum() {
        for mode in [Mode::Live, Mode::Test] {
            let key = generate_api_key("acct_0123456789abcdef", mode).unwrap();
            let parsed = parse_api_key(&key.secret).expect("valid");
            assert_eq!(parsed.mode, mode);
            assert_eq!(parsed.hash, key.hash);
            assert_eq!(parsed.account_id, "acct_0123456789abcdef");
            assert!(key.display_prefix.ends_with(&key.secret[31..35]));
            assert!(!key.display_prefix.contains(&key.secret[35..]));
            // A changed character in the account part or in the random part breaks the checksum.
            for at in [12, 40] {
                let mut typo = key.secret.clone().into_bytes();
                typo[at] = if typo[at] == b'a' { b'b' } else { b'a' };
                assert_eq!(parse_api_key(&String::from_utf8(typo).unwrap()), None);
            }
            // Another account's name on the same random part is refused too.
            let moved = key.secret.replacen("acct_0", "acct_1", 1);
            assert_eq!(parse_api_key(&moved), None);
        }
        // No key for an id that is not an account id.
        assert!(generate_api_key("acct with spaces", Mode::Test).is_none());
        assert!(!valid_account_id(&"a".repeat(MAX_ACCOUNT_ID_LEN + 1)));
        assert!(valid_account_id(&"a".repeat(MAX_ACCOUNT_ID_LEN)));
    }

    #[test]
    fn keys_without_an_account_or_of_another_shape_do_not_parse() {
        // A random part and its checksum alone (no account named) is not a key.
        let random = "Abcdefghij0123456789KLMNOPQRST";
        let bare = format!(
            "tiv_live_{random}{}",
            base62_fixed(crc32(random.as_bytes()), CHECKSUM_LEN)
        );
        assert_eq!(parse_api_key(&bare), None);
        assert_eq!(parse_api_key("tiv_live_short"), None);
        // A named part without its separator, or with characters a key cannot hold.
        let named = account_key_from_random("acct_x", Mode::Live, "Abcdefghij0123456789KLMNOPQRST")
            .unwrap();
        assert_eq!(
            parse_api_key(&named.secret.replacen("acct_x_", "acct_xx", 1)),
            None
        );
        assert!(account_key_from_random("acct x", Mode::Live, "A").is_none());
        assert!(account_key_from_random("", Mode::Live, "A").is_none());
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
