//! Webhooks: URL rules (checked at create and again at delivery) and Standard Webhooks signing.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, RwLock};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use url::Url;

use crate::secrets::webhook_secret_bytes;

/// A webhook event: the `webhook-id`, the account whose secret signs it, the URL and the body. The
/// body is fixed when the event is made (`publish-events`) and stored once
/// (`webhook_log::StoredWebhookEvent`), so every attempt sends the same bytes under the same
/// `webhook-id`; only the timestamp and signature are per attempt. It never travels on SQS: the
/// webhook queue carries a `QueuedWebhook`, a reference to the stored event.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookMessage {
    pub webhook_id: String,
    pub account_id: String,
    pub url: String,
    pub body: String,
}

/// A webhook waiting for delivery, as it travels on the webhook queue (and lands in its DLQ): a
/// reference to the stored event (`WEBHOOK_EVENT#<webhook-id>`), never its body. `deliver-webhook`
/// reads the body at each attempt, so an event erased before it is sent is never sent. Ids only:
/// its `Debug` is derived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedWebhook {
    pub webhook_id: String,
    pub account_id: String,
}

impl QueuedWebhook {
    /// The reference to a stored event's message.
    pub fn of(message: &WebhookMessage) -> Self {
        QueuedWebhook {
            webhook_id: message.webhook_id.clone(),
            account_id: message.account_id.clone(),
        }
    }
}

/// Addresses a webhook may never reach: private, loopback, link-local (cloud metadata lives
/// there), shared, multicast, unspecified and documentation ranges, and every IPv6 form that
/// carries an IPv4 address a gateway would forward to (mapped, compatible, NAT64, 6to4, Teredo),
/// whatever the embedded address: a gateway can reach what this process could not.
pub fn is_forbidden_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return forbidden_v4(v4);
            }
            let seg = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || seg[..6] == [0; 6] // IPv4-compatible ::a.b.c.d (deprecated)
                || seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] // NAT64 64:ff9b::/96
                || seg[..3] == [0x64, 0xff9b, 1] // local-use NAT64 64:ff9b:1::/48
                || seg[0] == 0x2002 // 6to4 2002::/16
                || seg[..2] == [0x2001, 0] // Teredo 2001::/32
                || seg[..3] == [0x2001, 2, 0] // benchmarking 2001:2::/48
                || (seg[0] == 0x2001 && (seg[1] & 0xffe0) == 0x0020) // ORCHIDv2 2001:20::/28
                || seg[..4] == [0x100, 0, 0, 0] // discard-only 100::/64
                || (seg[0] & 0xfe00) == 0xfc00 // unique local
                || (seg[0] & 0xffc0) == 0xfe80 // link-local
                || (seg[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
                || seg[0] == 0x2001 && seg[1] == 0x0db8 // documentation
                || v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) // EC2 metadata (IPv6)
        }
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || o[0] == 0
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // carrier-grade NAT
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking
        || o[0] >= 240
}

/// The only webhook receivers that may be called although they are not public: in the local
/// stack its own demo receiver, in tests the receivers they start. Exact origins
/// (`http://127.0.0.1:3001`) on a loopback address; empty in a deployed stack, where every
/// target must be public https. Clones share one list, so the local stack can add a receiver
/// once its port is bound.
#[derive(Clone, Default)]
pub struct LocalWebhookOrigins(Arc<RwLock<BTreeSet<String>>>);

impl LocalWebhookOrigins {
    /// The environment variable the functions read it from: comma-separated origins.
    pub const ENV: &'static str = "LOCAL_WEBHOOK_ORIGINS";

    /// Parses a comma-separated list of origins; any bad entry fails the whole list.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let origins = LocalWebhookOrigins::default();
        for entry in raw.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            origins.allow(entry)?;
        }
        Ok(origins)
    }

    /// Adds one origin: `http(s)://<loopback IP>:<port>`, nothing more.
    pub fn allow(&self, origin: &str) -> Result<(), String> {
        let bad = |why: &str| format!("'{origin}' is not a local webhook origin: {why}");
        let url = Url::parse(origin).map_err(|_| bad("not a URL"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("scheme must be http or https"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("no credentials allowed"));
        }
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(bad("an origin has no path, query or fragment"));
        }
        let loopback = url
            .host_str()
            .map(|h| h.trim_start_matches('[').trim_end_matches(']'))
            .and_then(|h| h.parse::<IpAddr>().ok())
            .is_some_and(|ip| ip.is_loopback());
        if !loopback {
            return Err(bad(
                "the host must be a loopback IP address (127.0.0.1 or [::1])",
            ));
        }
        if url.port().is_none() {
            return Err(bad("the port must be given"));
        }
        self.0
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(url.origin().ascii_serialization());
        Ok(())
    }

    /// Whether `url` is at one of the listed origins.
    pub fn allows(&self, url: &Url) -> bool {
        let origins = self
            .0
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        !origins.is_empty() && origins.contains(&url.origin().ascii_serialization())
    }
}

impl std::fmt::Debug for LocalWebhookOrigins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let origins = self
            .0
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f.debug_tuple("LocalWebhookOrigins")
            .field(&*origins)
            .finish()
    }
}

/// Checks a webhook URL before it is stored and before each delivery. Returns a reason fit for
/// an error message. Host names are resolved at delivery, where their addresses are checked again.
pub fn check_url(raw: &str, local: &LocalWebhookOrigins) -> Result<Url, &'static str> {
    if raw.len() > 2048 {
        return Err("webhook_url must be at most 2048 characters");
    }
    let url = Url::parse(raw).map_err(|_| "webhook_url must be an absolute URL")?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err("webhook_url must not contain credentials");
    }
    if local.allows(&url) {
        return Ok(url);
    }
    if url.scheme() != "https" {
        return Err("webhook_url must use https");
    }
    let host = url.host_str().ok_or("webhook_url must have a host")?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        if is_forbidden_ip(ip) {
            return Err("webhook_url must not point at a private, loopback or link-local address");
        }
    } else {
        let lower = bare.to_ascii_lowercase();
        let internal = lower == "localhost"
            || lower.ends_with(".localhost")
            || lower.ends_with(".local")
            || lower.ends_with(".internal")
            || !lower.contains('.');
        if internal {
            return Err("webhook_url must be a public host name");
        }
    }
    Ok(url)
}

/// `webhook-signature` value: `v1,<base64 HMAC-SHA256(id.timestamp.body)>` for each secret,
/// space-separated (both secrets sign during a rotation).
pub fn signature_header(secrets: &[&str], msg_id: &str, timestamp: i64, body: &str) -> String {
    secrets
        .iter()
        .filter_map(|secret| webhook_secret_bytes(secret))
        .map(|key| {
            let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
            mac.update(format!("{msg_id}.{timestamp}.{body}").as_bytes());
            format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> LocalWebhookOrigins {
        LocalWebhookOrigins::default()
    }

    #[test]
    fn urls_are_checked() {
        assert!(check_url("https://hooks.example.com/x", &none()).is_ok());
        for bad in [
            "http://hooks.example.com/x",
            "ftp://example.com",
            "https://user:pw@example.com/",
            "https://127.0.0.1/",
            "https://10.1.2.3/",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/",
            "https://[fd00:ec2::254]/",
            "https://localhost/",
            "https://metadata.google.internal/",
            "https://intranet/",
            "not a url",
        ] {
            assert!(check_url(bad, &none()).is_err(), "{bad}");
        }
    }

    /// Every IPv6 form that embeds an IPv4 address is refused, at create (`check_url`) and after
    /// DNS resolution (`is_forbidden_ip`), whether the embedded address is private, loopback,
    /// metadata or public: a NAT64/6to4/Teredo gateway would forward to it.
    #[test]
    fn ipv6_forms_that_embed_ipv4_are_refused() {
        let embedded = [
            ("127.0.0.1", "7f00:1"),
            ("10.0.0.1", "a00:1"),
            ("169.254.169.254", "a9fe:a9fe"),
            ("192.168.1.1", "c0a8:101"),
            ("8.8.8.8", "808:808"),
        ];
        for (v4, hex) in embedded {
            for literal in [
                format!("::{v4}"),                           // IPv4-compatible
                format!("::{hex}"),                          // the same, written in hex
                format!("64:ff9b::{v4}"),                    // NAT64 well-known prefix
                format!("64:ff9b::{hex}"),                   // the same, in hex
                format!("64:ff9b:1::{v4}"),                  // local-use NAT64
                format!("2002:{hex}::1"),                    // 6to4 (address in bits 16..48)
                format!("2001:0:4136:e378:8000:63bf:{hex}"), // Teredo
                format!("::ffff:{v4}"),                      // mapped: refused when the IPv4 is
            ] {
                let ip: IpAddr = literal.parse().expect(&literal);
                let mapped_public = literal.starts_with("::ffff:") && v4 == "8.8.8.8";
                assert_eq!(is_forbidden_ip(ip), !mapped_public, "{literal}");
                let url = format!("https://[{literal}]/hook");
                assert_eq!(check_url(&url, &none()).is_err(), !mapped_public, "{url}");
            }
        }
        // Ordinary global unicast stays allowed.
        for ok in [
            "2606:4700::1111",
            "2a00:1450:4001:80b::200e",
            "2001:4860:4860::8888",
        ] {
            assert!(!is_forbidden_ip(ok.parse().unwrap()), "{ok}");
            assert!(
                check_url(&format!("https://[{ok}]/"), &none()).is_ok(),
                "{ok}"
            );
        }
    }

    #[test]
    fn only_listed_local_origins_pass() {
        let local =
            LocalWebhookOrigins::parse(" http://127.0.0.1:3001 , http://[::1]:4000/").unwrap();
        assert!(check_url("http://127.0.0.1:3001/webhooks", &local).is_ok());
        assert!(check_url("http://[::1]:4000/x?y=1", &local).is_ok());
        for refused in [
            "http://127.0.0.1:3002/webhooks",  // another loopback port
            "https://127.0.0.1:3001/webhooks", // another scheme is another origin
            "http://127.0.0.2:3001/webhooks",
            "http://localhost:3001/webhooks",
            "http://user:pw@127.0.0.1:3001/webhooks",
            "http://10.0.0.1:3001/hook",
        ] {
            assert!(check_url(refused, &local).is_err(), "{refused}");
        }
        // Public targets are unaffected by the list.
        assert!(check_url("https://hooks.example.com/x", &local).is_ok());
        assert!(check_url("http://hooks.example.com/x", &local).is_err());
    }

    #[test]
    fn bad_local_origins_are_refused_with_a_reason() {
        assert!(LocalWebhookOrigins::parse("").is_ok());
        for (bad, why) in [
            ("true", "not a URL"),
            ("http://127.0.0.1:3001/webhooks", "no path"),
            ("http://127.0.0.1", "port"),
            ("http://10.0.0.5:80", "loopback"),
            ("http://localhost:3001", "loopback"),
            ("ftp://127.0.0.1:21", "scheme"),
            ("http://a:b@127.0.0.1:3001", "credentials"),
        ] {
            let err = LocalWebhookOrigins::parse(&format!("http://127.0.0.1:1,{bad}")).unwrap_err();
            assert!(err.contains(bad) && err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn signature_matches_the_standard_webhooks_example() {
        // Test vector from the Standard Webhooks specification.
        let sig = signature_header(
            &["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            r#"{"test": 2432232314}"#,
        );
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }
}
