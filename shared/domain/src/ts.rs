//! Timestamps go out as RFC 3339 UTC with milliseconds and `Z`, everywhere (design §3); the
//! serde helpers (`#[serde(with = "ts")]`, `ts::option`) keep stored and rendered timestamps in
//! that one format, so they also sort as strings.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// Timestamps go out as RFC 3339 UTC with milliseconds and `Z`, everywhere (design §3).
pub fn format_ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_ts(*t))
}
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    let raw = String::deserialize(d)?;
    DateTime::parse_from_rfc3339(&raw)
        .map(|t| t.with_timezone(&Utc))
        .map_err(serde::de::Error::custom)
}

pub mod option {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&super::format_ts(*t)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        let raw = Option::<String>::deserialize(d)?;
        raw.map(|r| {
            DateTime::parse_from_rfc3339(&r)
                .map(|t| t.with_timezone(&Utc))
                .map_err(serde::de::Error::custom)
        })
        .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn timestamps_have_millis_and_z() {
        assert_eq!(
            format_ts(at("2026-11-28T10:15:00Z")),
            "2026-11-28T10:15:00.000Z"
        );
    }
}
