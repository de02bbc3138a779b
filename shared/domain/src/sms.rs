//! The bounds on SMS, as rules: which destination countries may be texted (`SMS_COUNTRIES`,
//! default US and CA), and each plan's monthly allowance of texts. Pure: no AWS.
//!
//! The country is the one the number belongs to, decided by the `phonenumber` crate's metadata
//! (libphonenumber's): the calling code alone is not enough, since +1 (the North American
//! Numbering Plan) serves the US and Canada and also about twenty Caribbean and Pacific countries
//! (+1 876 Jamaica, +1 809 the Dominican Republic), known destinations of SMS pumping. The crate
//! tells them apart by area code, and its metadata is kept up to date upstream; a hand-kept table
//! of NANP area codes would need the same care by hand.

use chrono::{DateTime, Datelike, Utc};
use phonenumber::country::Id as Region;

use crate::{Account, Plan};

/// Why an SMS was refused before the provider saw it, as the claim item records it.
pub const SMS_COUNTRY_NOT_ALLOWED: &str = "sms_country_not_allowed";
/// The account's monthly SMS allowance was used up.
pub const SMS_ALLOWANCE_USED: &str = "sms_allowance_used";

/// The countries SMS may go to unless configured.
pub const DEFAULT_SMS_COUNTRIES: [Region; 2] = [Region::US, Region::CA];

/// The destination countries SMS may go to (ISO 3166 alpha-2 region codes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmsCountries(Vec<Region>);

impl Default for SmsCountries {
    fn default() -> Self {
        SmsCountries(DEFAULT_SMS_COUNTRIES.to_vec())
    }
}

impl SmsCountries {
    /// A comma-separated list of region codes (`US,CA`); None when empty or a code is unknown.
    pub fn parse(raw: &str) -> Option<SmsCountries> {
        let mut regions = Vec::new();
        for code in raw.split(',') {
            let region: Region = code.trim().to_ascii_uppercase().parse().ok()?;
            if !regions.contains(&region) {
                regions.push(region);
            }
        }
        (!regions.is_empty()).then_some(SmsCountries(regions))
    }

    /// Whether `e164` is a valid number of one of these countries.
    pub fn allows(&self, e164: &str) -> bool {
        phone_country(e164).is_some_and(|region| self.0.contains(&region))
    }

    /// The codes, as messages list them (`US, CA`).
    pub fn names(&self) -> String {
        let codes: Vec<&str> = self.0.iter().map(|r| r.as_ref()).collect();
        codes.join(", ")
    }
}

/// The country a number in E.164 belongs to, by its calling code and, where the code is shared
/// (+1, +7, +44...), its leading digits; None for no valid number.
pub fn phone_country(e164: &str) -> Option<Region> {
    let number = phonenumber::parse(None, e164.trim()).ok()?;
    if !phonenumber::is_valid(&number) {
        return None;
    }
    number.country().id()
}

/// The UTC month of `now` as the SMS count names it (`yyyymm`).
pub fn sms_month(now: DateTime<Utc>) -> u32 {
    now.year().unsigned_abs() * 100 + now.month()
}

/// The account's texts counted in `now`'s UTC month (the count of an earlier month is stale).
pub fn sms_used(account: &Account, now: DateTime<Utc>) -> u32 {
    if account.sms_month == sms_month(now) {
        account.sms_sent
    } else {
        0
    }
}

/// The monthly SMS allowance of the account's plan (None: a plan the configuration does not
/// know, which texts nobody).
pub fn sms_allowance(plan: Option<&Plan>) -> u32 {
    plan.map_or(0, |p| p.sms_per_month)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_country_comes_from_the_number_not_from_its_calling_code() {
        let allowed = SmsCountries::default();
        // US and Canada share +1 with the Caribbean: the area code tells them apart.
        assert_eq!(phone_country("+14155552671"), Some(Region::US));
        assert_eq!(phone_country("+14165550123"), Some(Region::CA));
        assert_eq!(phone_country("+18765550123"), Some(Region::JM));
        assert_eq!(phone_country("+18095550123"), Some(Region::DO));
        assert_eq!(phone_country("+442079460958"), Some(Region::GB));
        assert!(allowed.allows("+14155552671"));
        assert!(allowed.allows("+14165550123"));
        for refused in [
            "+18765550123",
            "+18095550123",
            "+12465550123",
            "+442079460958",
        ] {
            assert!(!allowed.allows(refused), "{refused}");
        }
        // No valid number anywhere: no country, never texted.
        for invalid in ["+10000000000", "+999123", "not a number", ""] {
            assert_eq!(phone_country(invalid), None, "{invalid}");
            assert!(!allowed.allows(invalid), "{invalid}");
        }
    }

    #[test]
    fn the_allow_list_parses_region_codes_and_refuses_nonsense() {
        assert_eq!(SmsCountries::default().names(), "US, CA");
        let uk = SmsCountries::parse(" gb , GB,ie").unwrap();
        assert_eq!(uk.names(), "GB, IE");
        assert!(uk.allows("+442079460958"));
        assert!(!uk.allows("+14155552671"));
        for bad in ["", " ", "US,", "Atlantis", "US,XX"] {
            assert!(SmsCountries::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_month_count_counts_only_in_its_month() {
        let now: DateTime<Utc> = "2026-11-20T10:00:00Z".parse().unwrap();
        let mut account = crate::Account::opened("a", "a Lettings", "pro", now);
        assert_eq!(sms_used(&account, now), 0);
        assert_eq!(sms_month(now), 202611);
        account.sms_month = 202611;
        account.sms_sent = 7;
        assert_eq!(sms_used(&account, now), 7);
        account.sms_month = 202610;
        assert_eq!(sms_used(&account, now), 0);
        assert_eq!(sms_allowance(None), 0);
    }
}
