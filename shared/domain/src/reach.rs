//! Reaching the tenant beyond the first e-mail: the SMS number in E.164, the reminder points
//! before expiry, the notices a verification sends once each, and their texts. Pure: no AWS.
//!
//! A `Message` is one message to the tenant that must go out at most once: each invite round's
//! e-mail and SMS, and per reminder point the reminder e-mail and the reminder SMS. The store
//! claims a message with one transaction on its claim item and the verification (open, not
//! expired, not sent yet, no live lease), so redelivered events and races send it once.

use chrono::{DateTime, Duration, Utc};
use phonenumber::country::Id as Region;

use crate::sms::SmsCountries;
use crate::verification::SmsReach;
use crate::{Status, Verification, format_ts};

/// The region a number without a country code is read in, unless configured (`SMS_DEFAULT_REGION`).
pub const DEFAULT_PHONE_REGION: &str = "US";

/// Reminders before expiry in production: 72 h and 24 h before `expires_at`.
pub const DEFAULT_REMINDER_OFFSETS: [Duration; 2] = [Duration::hours(72), Duration::hours(24)];

/// The carriers' required opt-out wording, at the end of every SMS.
pub const SMS_OPT_OUT: &str = "Reply STOP to opt out.";

/// A phone-number region code (ISO 3166 alpha-2, e.g. `US`), checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhoneRegion(Region);

impl PhoneRegion {
    pub fn parse(code: &str) -> Option<PhoneRegion> {
        code.trim()
            .to_ascii_uppercase()
            .parse()
            .ok()
            .map(PhoneRegion)
    }
}

impl Default for PhoneRegion {
    fn default() -> Self {
        PhoneRegion(Region::US)
    }
}

/// A valid `tenant_phone` of a country SMS may not go to (`SmsCountries`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountryNotAllowed;

/// Sets `sms_phone` (E.164) or `sms: unusable` from `tenant_phone`. An unusable number keeps the
/// verification and its e-mail; it is only not texted. A valid number of a country outside
/// `countries` is refused, so the caller learns at once that it would never be texted.
pub fn resolve_sms(
    input: &mut super::NewVerificationInput,
    region: PhoneRegion,
    countries: &SmsCountries,
) -> Result<(), CountryNotAllowed> {
    if let Some(phone) = input.tenant_phone.as_deref() {
        input.sms_phone = normalise_phone(phone, region);
        match &input.sms_phone {
            None => input.sms = Some(SmsReach::Unusable),
            Some(e164) if !countries.allows(e164) => return Err(CountryNotAllowed),
            Some(_) => {}
        }
    }
    Ok(())
}

/// The number in E.164 (`+15550109999`) if it is a valid number, read in `region` when it has no
/// country code.
pub fn normalise_phone(raw: &str, region: PhoneRegion) -> Option<String> {
    let number = phonenumber::parse(Some(region.0), raw.trim()).ok()?;
    if !phonenumber::is_valid(&number) {
        return None;
    }
    Some(number.format().mode(phonenumber::Mode::E164).to_string())
}

/// A reminder point: this long before `expires_at`. Its label (`72h`, `8m`) names the notice and
/// the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReminderPoint {
    pub before_expiry: Duration,
}

impl ReminderPoint {
    pub fn label(self) -> String {
        let minutes = self.before_expiry.num_minutes();
        if minutes % 60 == 0 {
            format!("{}h", minutes / 60)
        } else {
            format!("{minutes}m")
        }
    }

    /// The point among `offsets` with this label.
    pub fn from_label(label: &str, offsets: &[Duration]) -> Option<ReminderPoint> {
        offsets
            .iter()
            .map(|&before_expiry| ReminderPoint { before_expiry })
            .find(|p| p.label() == label)
    }

    pub fn due_at(self, v: &Verification) -> DateTime<Utc> {
        v.expires_at - self.before_expiry
    }
}

/// The reminders `v` gets: at most two, each due after `now` and after the verification was
/// created; none when the landlord turned them off.
pub fn reminder_points(
    v: &Verification,
    offsets: &[Duration],
    now: DateTime<Utc>,
) -> Vec<ReminderPoint> {
    if v.reminders_off {
        return vec![];
    }
    offsets
        .iter()
        .take(2)
        .map(|&before_expiry| ReminderPoint { before_expiry })
        .filter(|p| p.due_at(v) > now && p.due_at(v) > v.created_at)
        .collect()
}

/// How long one attempt at a message holds its claim before another attempt may take it over.
pub const MESSAGE_LEASE: Duration = Duration::minutes(5);

/// One message to the tenant that goes out at most once: each has its own claim item
/// (`MessageClaimStore`) and its own entry in the verification's `message_links`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// The invite e-mail of round `n`: 0 is the first, a resend (POST /verify/resend) the next.
    InviteEmail(u32),
    InviteSms,
    ReminderEmail(String),
    ReminderSms(String),
    /// The invite SMS of resend round `n`, beside that round's e-mail.
    ResentSms(u32),
}

impl Message {
    /// Its key: the claim item's (`MSG#<key>`) and its link's in `message_links` (letters,
    /// digits, `_` only).
    pub fn key(&self) -> String {
        match self {
            Message::InviteEmail(0) => "invite_email".into(),
            Message::InviteEmail(round) => format!("resent_{round}_email"),
            Message::InviteSms => "invite_sms".into(),
            Message::ReminderEmail(label) => format!("reminder_{label}_email"),
            Message::ReminderSms(label) => format!("reminder_{label}_sms"),
            Message::ResentSms(round) => format!("resent_{round}_sms"),
        }
    }

    /// The statuses in which it may still go out: the first invite (e-mail and SMS) only before
    /// the tenant started, a resent round and reminders while the verification is open.
    pub fn open_statuses(&self) -> &'static [Status] {
        match self {
            Message::InviteEmail(0) | Message::InviteSms => &[Status::Pending],
            _ => &[Status::Pending, Status::InProgress],
        }
    }
}

/// How the texts name the landlord and the property (and nothing more of the verification).
pub fn property_phrase(v: &Verification) -> String {
    v.property_address
        .as_deref()
        .map(|a| format!(" for {a}"))
        .unwrap_or_default()
}

pub fn expiry_phrase(v: &Verification) -> String {
    format!("{} UTC", &format_ts(v.expires_at)[..16].replace('T', " "))
}

/// How many characters of the landlord's name and of the property an SMS shows: an address may
/// be 500 characters, and a text past two segments costs more and may be cut by the carrier.
pub const SMS_NAME_CHARS: usize = 40;

/// `s` cut to at most `max` characters (on a char boundary), an ellipsis marking the cut.
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let kept: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// `property_phrase` for an SMS: the property shortened.
fn sms_property_phrase(v: &Verification) -> String {
    v.property_address
        .as_deref()
        .map(|a| format!(" for {}", shorten(a, SMS_NAME_CHARS)))
        .unwrap_or_default()
}

/// The invite SMS: the landlord, the property, the link, the opt-out.
pub fn invite_sms_text(v: &Verification, requester: &str, link: &str) -> String {
    format!(
        "{} asks you to verify your income{}: {link} {SMS_OPT_OUT}",
        shorten(requester, SMS_NAME_CHARS),
        sms_property_phrase(v)
    )
}

/// A reminder SMS.
pub fn reminder_sms_text(v: &Verification, requester: &str, link: &str) -> String {
    format!(
        "Reminder: {} asks you to verify your income{}. Link expires {}: {link} {SMS_OPT_OUT}",
        shorten(requester, SMS_NAME_CHARS),
        sms_property_phrase(v),
        expiry_phrase(v)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, NewVerificationInput};

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn verification(created: &str) -> Verification {
        Verification::new_pending(
            "acct",
            Mode::Live,
            NewVerificationInput {
                tenant_email: "t@example.com".into(),
                tenant_name: Some("Tess Tenant".into()),
                tenant_phone: Some("555 010 9999".into()),
                property_address: Some("12 Elm St".into()),
                monthly_rent: Some(1500.0),
                ..Default::default()
            },
            at(created),
            crate::VERIFICATION_LIFETIME,
        )
    }

    #[test]
    fn numbers_normalise_to_e164_in_the_default_or_configured_region() {
        let us = PhoneRegion::default();
        assert_eq!(
            normalise_phone("(201) 555-0123", us).as_deref(),
            Some("+12015550123")
        );
        assert_eq!(
            normalise_phone("+44 20 7946 0958", us).as_deref(),
            Some("+442079460958")
        );
        let gb = PhoneRegion::parse("gb").unwrap();
        assert_eq!(
            normalise_phone("020 7946 0958", gb).as_deref(),
            Some("+442079460958")
        );
        // Passes the contract's digit-count check but is no number anywhere.
        assert_eq!(normalise_phone("000-000-0000", us), None);
        assert_eq!(normalise_phone("1234567", us), None);
        assert!(PhoneRegion::parse("XX").is_none());
    }

    #[test]
    fn a_create_refuses_a_valid_number_of_a_country_sms_may_not_reach() {
        let resolve = |phone: &str| {
            let mut input = NewVerificationInput {
                tenant_phone: Some(phone.into()),
                ..Default::default()
            };
            let outcome = resolve_sms(&mut input, PhoneRegion::default(), &SmsCountries::default());
            (outcome, input.sms_phone, input.sms)
        };
        // US, CA (read in the default region without a country code).
        assert_eq!(
            resolve("(415) 555-2671"),
            (Ok(()), Some("+14155552671".into()), None)
        );
        assert_eq!(
            resolve("+1 416 555 0123"),
            (Ok(()), Some("+14165550123".into()), None)
        );
        // Jamaica shares +1; the United Kingdom has its own code: both refused.
        assert_eq!(resolve("+1 876 555 0123").0, Err(CountryNotAllowed));
        assert_eq!(resolve("+44 20 7946 0958").0, Err(CountryNotAllowed));
        // No valid number: accepted, e-mail only, as before.
        assert_eq!(
            resolve("000-000-0000"),
            (Ok(()), None, Some(SmsReach::Unusable))
        );
    }

    #[test]
    fn reminders_fall_72h_and_24h_before_expiry_never_in_the_past_nor_when_off() {
        let v = verification("2026-11-20T10:00:00.000Z");
        let points = reminder_points(&v, &DEFAULT_REMINDER_OFFSETS, v.created_at);
        let due: Vec<_> = points.iter().map(|p| (p.label(), p.due_at(&v))).collect();
        assert_eq!(
            due,
            vec![
                ("72h".to_string(), at("2026-11-24T10:00:00.000Z")),
                ("24h".to_string(), at("2026-11-26T10:00:00.000Z")),
            ]
        );
        // The stream ran late past the first point: only the second is scheduled.
        let late = reminder_points(&v, &DEFAULT_REMINDER_OFFSETS, at("2026-11-25T00:00:00Z"));
        assert_eq!(late.len(), 1);
        assert_eq!(late[0].label(), "24h");
        let mut off = v.clone();
        off.reminders_off = true;
        assert!(reminder_points(&off, &DEFAULT_REMINDER_OFFSETS, v.created_at).is_empty());
        // At most two, whatever the configuration.
        let many = [
            Duration::hours(90),
            Duration::hours(72),
            Duration::hours(24),
        ];
        assert_eq!(reminder_points(&v, &many, v.created_at).len(), 2);
        // Minute offsets (the local stack) have their own labels and round-trip.
        let local = [Duration::minutes(8), Duration::minutes(4)];
        let p = ReminderPoint::from_label("8m", &local).unwrap();
        assert_eq!(p.before_expiry, Duration::minutes(8));
        assert!(ReminderPoint::from_label("72h", &local).is_none());
    }

    #[test]
    fn messages_have_distinct_keys_and_the_invite_waits_only_while_pending() {
        let keys = [
            Message::InviteEmail(0).key(),
            Message::InviteEmail(1).key(),
            Message::InviteSms.key(),
            Message::ResentSms(1).key(),
            Message::ReminderEmail("72h".into()).key(),
            Message::ReminderSms("72h".into()).key(),
            Message::ReminderEmail("24h".into()).key(),
        ];
        let unique: std::collections::HashSet<_> = keys.iter().collect();
        assert_eq!(unique.len(), keys.len());
        assert!(
            keys.iter()
                .all(|k| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        );
        assert_eq!(Message::InviteSms.open_statuses(), &[Status::Pending]);
        assert_eq!(Message::InviteEmail(0).open_statuses(), &[Status::Pending]);
        assert!(
            Message::InviteEmail(1)
                .open_statuses()
                .contains(&Status::InProgress)
        );
        assert!(
            Message::ReminderSms("24h".into())
                .open_statuses()
                .contains(&Status::InProgress)
        );
    }

    #[test]
    fn texts_name_the_landlord_the_property_and_the_link_and_nothing_more() {
        let v = verification("2026-11-20T10:00:00.000Z");
        let link = "https://verify.example.com/t/x/y";
        for text in [
            invite_sms_text(&v, "Acme Rentals", link),
            reminder_sms_text(&v, "Acme Rentals", link),
        ] {
            assert!(text.contains("Acme Rentals"), "{text}");
            assert!(text.contains("12 Elm St"), "{text}");
            assert!(text.contains(link), "{text}");
            assert!(text.ends_with("Reply STOP to opt out."), "{text}");
            // Neither the tenant's name, nor the rent, nor the number.
            for private in ["Tess", "1500", "555"] {
                assert!(!text.contains(private), "{private} in {text}");
            }
            assert!(text.chars().count() <= 320, "two SMS segments at most");
        }
    }

    #[test]
    fn an_sms_shortens_a_long_property_and_landlord_name_on_a_char_boundary() {
        let mut v = verification("2026-11-20T10:00:00.000Z");
        // 500 characters, multi-byte ones included, as the API accepts.
        let address: String = "Rue de l'Église 12, Zürich – 東京 "
            .repeat(20)
            .chars()
            .take(500)
            .collect();
        assert_eq!(address.chars().count(), 500);
        v.property_address = Some(address.clone());
        let landlord = "Ñandú Property Management & Lettings Group International Holdings";
        // A real link: the base URL, the verification id, a 43-character token.
        let (token, _) = crate::secrets::generate_link_token();
        let link = crate::tenant_link::tenant_link(
            "https://verify.example.com",
            v.verification_id,
            &token,
        );
        for text in [
            invite_sms_text(&v, landlord, &link),
            reminder_sms_text(&v, landlord, &link),
        ] {
            assert!(
                text.chars().count() <= 320,
                "{} chars: {text}",
                text.chars().count()
            );
            assert!(text.contains(&link), "the link is whole: {text}");
            assert!(text.ends_with(SMS_OPT_OUT), "{text}");
            let shown: String = address.chars().take(SMS_NAME_CHARS - 1).collect();
            assert!(
                text.contains(&format!(" for {}…", shown.trim_end())),
                "{text}"
            );
            assert!(
                text.contains("Ñandú Property Management & Lettings Gr…"),
                "{text}"
            );
        }
        // A short property and landlord are shown whole, without an ellipsis.
        let short = invite_sms_text(&verification("2026-11-20T10:00:00.000Z"), "Acme", &link);
        assert!(short.starts_with("Acme asks you to verify your income for 12 Elm St: "));
        assert!(!short.contains('…'));
    }
}
