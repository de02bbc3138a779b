//! Webhooks: URL rules (checked at create and again at delivery) and Standard Webhooks signing.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use reqwest::Url;
use sha2::Sha256;

use crate::secrets::webhook_secret_bytes;

/// Addresses a webhook may never reach: private, loopback, link-local (cloud metadata lives
/// there), shared, multicast, unspecified and documentation ranges.
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
                || (seg[0] & 0xfe00) == 0xfc00 // unique local
                || (seg[0] & 0xffc0) == 0xfe80 // link-local
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

/// Whether an address is loopback (the only private target the local stack may use).
fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v| v.is_loopback()),
    }
}

/// Whether a resolved address may be called. `allow_loopback` is for the local stack and tests.
pub fn address_allowed(ip: IpAddr, allow_loopback: bool) -> bool {
    !is_forbidden_ip(ip) || (allow_loopback && is_loopback(ip))
}

/// Checks a webhook URL before it is stored. Returns a reason fit for an error message.
/// Hostnames are resolved at delivery, where their addresses are checked again.
pub fn check_url(raw: &str, allow_insecure: bool) -> Result<Url, &'static str> {
    if raw.len() > 2048 {
        return Err("webhook_url must be at most 2048 characters");
    }
    let url = Url::parse(raw).map_err(|_| "webhook_url must be an absolute URL")?;
    match url.scheme() {
        "https" => {}
        "http" if allow_insecure => {}
        _ => return Err("webhook_url must use https"),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("webhook_url must not contain credentials");
    }
    let host = url.host_str().ok_or("webhook_url must have a host")?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        if !address_allowed(ip, allow_insecure) {
            return Err("webhook_url must not point at a private, loopback or link-local address");
        }
    } else {
        let lower = bare.to_ascii_lowercase();
        let internal = lower == "localhost"
            || lower.ends_with(".localhost")
            || lower.ends_with(".local")
            || lower.ends_with(".internal")
            || !lower.contains('.');
        if internal && !(allow_insecure && (lower == "localhost")) {
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

    #[test]
    fn urls_are_checked() {
        assert!(check_url("https://hooks.example.com/x", false).is_ok());
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
            assert!(check_url(bad, false).is_err(), "{bad}");
        }
        assert!(check_url("http://127.0.0.1:8080/hook", true).is_ok());
        assert!(check_url("http://localhost:8080/hook", true).is_ok());
        assert!(check_url("http://10.0.0.1/hook", true).is_err());
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
