//! What a consumer-reporting provider (Plaid Check) must know of the tenant beyond the request:
//! legal name, mobile phone, date of birth and home address. The tenant types them on the page
//! at consent; they go to the provider in that request and are never stored here, so nothing is
//! left to erase but the provider's user, which is closed when the verification ends. `Debug`
//! shows no value.

use std::collections::HashMap;

use chrono::{Datelike, NaiveDate};

use super::reach::{PhoneRegion, normalise_phone};

/// The tenant's legal name, phone, date of birth and US home address, as the page's consent form
/// sends them.
#[derive(Clone, PartialEq, Eq)]
pub struct TenantIdentity {
    pub first_name: String,
    pub last_name: String,
    /// E.164, read as a US number when it has no country code.
    pub phone: String,
    pub date_of_birth: NaiveDate,
    pub street: String,
    pub city: String,
    /// The state, as two capital letters.
    pub region: String,
    /// Five digits, or ZIP+4.
    pub postal_code: String,
}

impl std::fmt::Debug for TenantIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TenantIdentity(<redacted>)")
    }
}

/// The form's field names.
pub const FIELDS: [&str; 8] = [
    "first_name",
    "last_name",
    "phone",
    "date_of_birth",
    "street",
    "city",
    "region",
    "postal_code",
];

/// The longest name, street or city taken, in characters as sent.
pub const MAX_LINE_CHARS: usize = 100;

/// The states, the District of Columbia and the territories a US address names.
pub const REGIONS: [&str; 56] = [
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM",
    "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA",
    "WV", "WI", "WY", "AS", "GU", "MP", "PR", "VI",
];

/// Why the typed identity is not taken, as the tenant reads it.
pub const IDENTITY_NOTICE: &str = "Please type your legal name, your mobile number, your date of \
birth (you must be 18 or older) and your US home address: street, city, the state's two letters \
and the ZIP code.";

/// Whether each identity field present is well formed (the form's own rules, any state): a
/// full date, lines of 1 to 100 characters without control characters, two letters, a ZIP, a
/// phone number's characters.
pub fn fields_well_formed(form: &HashMap<String, String>) -> bool {
    let field = |name: &str| form.get(name).map(String::as_str);
    let phone_chars = |p: &str| {
        (1..=30).contains(&p.len())
            && p.chars()
                .all(|c| c.is_ascii_digit() || " +-().".contains(c))
    };
    field("first_name").is_none_or(is_line)
        && field("last_name").is_none_or(is_line)
        && field("phone").is_none_or(phone_chars)
        && field("date_of_birth").is_none_or(|d| d.len() == 10 && parse_date(d).is_some())
        && field("street").is_none_or(is_line)
        && field("city").is_none_or(is_line)
        && field("region")
            .is_none_or(|r| r.len() == 2 && r.chars().all(|c| c.is_ascii_alphabetic()))
        && field("postal_code").is_none_or(is_zip)
}

/// The identity the form carries, when every field is there and true to life: an adult of at
/// most 120 on `today`, a state of `REGIONS`. None otherwise.
pub fn from_form(form: &HashMap<String, String>, today: NaiveDate) -> Option<TenantIdentity> {
    if !fields_well_formed(form) {
        return None;
    }
    let field = |name: &str| form.get(name).map(|v| v.trim().to_string());
    let date_of_birth = parse_date(&field("date_of_birth")?)?;
    let age = today.year()
        - date_of_birth.year()
        - i32::from((today.month(), today.day()) < (date_of_birth.month(), date_of_birth.day()));
    let region = field("region")?.to_ascii_uppercase();
    if !(18..=120).contains(&age) || !REGIONS.contains(&region.as_str()) {
        return None;
    }
    let phone = normalise_phone(&field("phone")?, PhoneRegion::default())?;
    Some(TenantIdentity {
        first_name: field("first_name")?,
        last_name: field("last_name")?,
        phone,
        date_of_birth,
        street: field("street")?,
        city: field("city")?,
        region,
        postal_code: field("postal_code")?,
    })
}

fn parse_date(raw: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(raw, "%Y-%m-%d").ok()
}

/// At most 100 characters as sent, none a control character, something besides spaces: the
/// OpenAPI form's pattern. Kept trimmed.
fn is_line(raw: &str) -> bool {
    raw.chars().count() <= MAX_LINE_CHARS
        && !raw.chars().any(char::is_control)
        && raw.chars().any(|c| !c.is_whitespace() && c != '\u{feff}')
}

fn is_zip(raw: &str) -> bool {
    let digits = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_digit());
    match raw.split_once('-') {
        Some((zip, plus4)) => digits(zip, 5) && digits(plus4, 4),
        None => digits(raw, 5),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 26).unwrap()
    }

    const GOOD: [(&str, &str); 8] = [
        ("first_name", "Jane"),
        ("last_name", "Tenant"),
        ("phone", "(415) 555-0123"),
        ("date_of_birth", "1990-04-12"),
        ("street", "1 Main St Apt 4"),
        ("city", "Oakland"),
        ("region", "ca"),
        ("postal_code", "94612-1234"),
    ];

    #[test]
    fn a_whole_true_identity_is_taken_and_never_shown() {
        let id = from_form(&form(&GOOD), today()).unwrap();
        assert_eq!(id.region, "CA");
        assert_eq!(id.phone, "+14155550123");
        assert_eq!(id.date_of_birth.to_string(), "1990-04-12");
        let shown = format!("{id:?}");
        assert!(
            !shown.contains("1990") && !shown.contains("Main"),
            "{shown}"
        );
    }

    #[test]
    fn a_missing_malformed_or_untrue_field_is_not_taken() {
        let with = |name: &str, value: &str| {
            let mut f = form(&GOOD);
            f.insert(name.into(), value.into());
            f
        };
        let cases = [
            with("date_of_birth", "12/04/1990"),
            // 18 tomorrow; 121 years old.
            with("date_of_birth", "2008-11-27"),
            with("date_of_birth", "1905-01-01"),
            with("street", " "),
            with("street", &"a".repeat(101)),
            with("city", "Oak\u{7}land"),
            with("region", "XX"),
            with("region", "C"),
            with("postal_code", "9461"),
            with("postal_code", "94612-12"),
            with("phone", "555"),
            with("phone", "call me"),
            with("last_name", ""),
        ];
        for f in cases {
            assert_eq!(from_form(&f, today()), None, "{f:?}");
        }
        let mut missing = form(&GOOD);
        missing.remove("city");
        assert_eq!(from_form(&missing, today()), None);
        // Exactly 18 today is an adult.
        assert!(from_form(&with("date_of_birth", "2008-11-26"), today()).is_some());
        // The form's own rules say nothing of truth: XX is two letters, an infant a date.
        assert!(fields_well_formed(&with("region", "XX")));
        assert!(!fields_well_formed(&with("postal_code", "ABCDE")));
    }
}
