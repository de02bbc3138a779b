//! The identity check: the employee, account holder or recipient named on the document is the
//! tenant. Names are written many ways by honest people and payroll systems: surname first
//! ("SMITH, J"), initials, nicknames, accents dropped, hyphenated and married names. The same
//! name in another form is a partial match for a person to review, never a mismatch.

use unicode_normalization::UnicodeNormalization;

use super::fields::normalise;
use super::{Check, CheckResult, Fields, names};

const SUFFIXES: &[&str] = &[
    "jr", "sr", "ii", "iii", "iv", "mr", "mrs", "ms", "miss", "dr",
];

/// Common English given names and their usual short forms, each group one name.
const NICKNAMES: &[&[&str]] = &[
    &["robert", "rob", "bob", "bobby", "robbie", "bert"],
    &["william", "will", "bill", "billy", "willie", "liam"],
    &[
        "elizabeth",
        "liz",
        "lizzie",
        "beth",
        "betty",
        "eliza",
        "libby",
        "betsy",
    ],
    &["james", "jim", "jimmy", "jamie"],
    &["john", "jack", "johnny", "jon"],
    &["michael", "mike", "mikey", "mick"],
    &[
        "katherine",
        "catherine",
        "kathryn",
        "kate",
        "katie",
        "kathy",
        "cathy",
        "kat",
    ],
    &["margaret", "maggie", "meg", "peggy", "marge"],
    &["richard", "rick", "ricky", "dick", "rich"],
    &["thomas", "tom", "tommy"],
    &["joseph", "joe", "joey"],
    &["charles", "charlie", "chuck", "chas"],
    &["christopher", "chris", "topher"],
    &["christina", "christine", "chris", "tina", "chrissy"],
    &["daniel", "dan", "danny"],
    &["david", "dave", "davey"],
    &["edward", "ed", "eddie", "ted", "ned"],
    &["anthony", "tony"],
    &["andrew", "andy", "drew"],
    &["alexander", "alex", "al", "xander", "sasha"],
    &["alexandra", "alex", "alexa", "sandra", "lexi"],
    &["benjamin", "ben", "benny"],
    &["jennifer", "jen", "jenny"],
    &["jessica", "jess", "jessie"],
    &["patricia", "pat", "patty", "trish"],
    &["patrick", "pat", "paddy"],
    &["rebecca", "becky", "becca"],
    &["samantha", "sam", "sammy"],
    &["samuel", "sam", "sammy"],
    &["stephen", "steven", "steve"],
    &["susan", "sue", "suzy"],
    &["victoria", "vicky", "tori"],
    &["deborah", "debbie", "deb"],
    &["nicholas", "nick", "nicky"],
    &["matthew", "matt"],
    &["jonathan", "jon", "jonny"],
    &["timothy", "tim", "timmy"],
    &["gregory", "greg"],
    &["jeffrey", "jeff"],
    &["kenneth", "ken", "kenny"],
    &["ronald", "ron", "ronnie"],
    &["donald", "don", "donnie"],
    &["lawrence", "larry"],
    &["abigail", "abby"],
    &["amanda", "mandy"],
    &["barbara", "barb"],
    &["dorothy", "dot", "dottie"],
    &["josephine", "jo", "josie"],
    &["jose", "pepe"],
    &["francisco", "paco", "pancho", "frank"],
    &["francis", "frank", "frankie", "fran"],
];

/// A name as given names and surname words, accents folded and case dropped. With a comma, the
/// surname comes first ("SMITH, John"); otherwise it is the last word, a hyphenated one split
/// into its parts ("Doe-Smith").
struct Name {
    given: Vec<String>,
    surname: Vec<String>,
}

impl Name {
    fn parse(name: &str) -> Name {
        let folded: String = name.nfkd().filter(|c| c.is_ascii()).collect();
        let words = |text: &str| -> Vec<String> {
            text.split_whitespace()
                .map(normalise)
                .filter(|w| !w.is_empty() && !SUFFIXES.contains(&w.as_str()))
                .collect()
        };
        if let Some((surname, given)) = folded.split_once(',') {
            let surname = words(surname).join(" ");
            return Name {
                given: words(given),
                surname: surname.split(' ').map(str::to_string).collect(),
            };
        }
        let mut given = words(&folded);
        let surname = given
            .pop()
            .map(|w| w.split(' ').map(str::to_string).collect())
            .unwrap_or_default();
        Name { given, surname }
    }

    fn all(&self) -> Vec<&str> {
        (self.given.iter().chain(&self.surname))
            .map(String::as_str)
            .filter(|w| !w.is_empty())
            .collect()
    }
}

/// Whether two names are plainly the same person's: the same surname, at least two full words
/// of the shorter name in the other, and each of its other words there too or matching an
/// initial either way.
pub fn same_person(a: &str, b: &str) -> bool {
    let (na, nb) = (Name::parse(a), Name::parse(b));
    if na.surname != nb.surname {
        return false;
    }
    let (ta, tb) = (na.all(), nb.all());
    let (short, long) = if ta.len() <= tb.len() {
        (ta, tb)
    } else {
        (tb, ta)
    };
    let exact = short
        .iter()
        .filter(|t| t.len() > 1 && long.contains(t))
        .count();
    exact >= 2
        && short
            .iter()
            .all(|t| long.contains(t) || long.iter().any(|l| initial_of(t, l)))
}

/// One word is the other's initial.
fn initial_of(a: &str, b: &str) -> bool {
    (a.len() == 1 && b.starts_with(a)) || (b.len() == 1 && a.starts_with(b))
}

/// The same given name: equal, or a common short form of it.
fn same_given_name(a: &str, b: &str) -> bool {
    a == b
        || NICKNAMES
            .iter()
            .any(|group| group.contains(&a) && group.contains(&b))
}

/// How two names compare, in words, when they are not plainly the same person's; None when
/// nothing of them agrees.
fn partial_match(document: &Name, tenant: &Name) -> Option<&'static str> {
    let shares_surname = document.surname.iter().any(|s| {
        s.len() > 1 && (tenant.surname.contains(s) || tenant.given.iter().any(|g| g == s))
    }) || tenant
        .surname
        .iter()
        .any(|s| s.len() > 1 && document.all().contains(&s.as_str()));
    let (first_doc, first_tenant) = (document.given.first(), tenant.given.first());
    let first_names = match (first_doc, first_tenant) {
        (Some(a), Some(b)) if same_given_name(a, b) => Some(true),
        (Some(a), Some(b)) if initial_of(a, b) => Some(false),
        (None, _) | (_, None) => Some(false),
        _ => None,
    };
    match (shares_surname, first_names) {
        (true, Some(_)) => {
            Some("the surnames agree; the first name is an initial, a short form or missing")
        }
        (false, Some(true)) => {
            Some("the first names agree and the surnames differ: a married or former name?")
        }
        _ => None,
    }
}

/// `identity`: not applicable without the tenant's name; unknown when the document names no one;
/// `partial` when the name is the tenant's written another way, with how it compares.
pub fn check(fields: &Fields, tenant_name: Option<&str>) -> Check {
    let Some(tenant) = tenant_name else {
        return Check::new(
            names::IDENTITY,
            CheckResult::NotApplicable,
            "no tenant name to compare",
        );
    };
    let Some((role, name)) = fields.person() else {
        return Check::new(
            names::IDENTITY,
            CheckResult::Unknown,
            "the document names no person",
        );
    };
    if same_person(name, tenant) {
        return Check::new(
            names::IDENTITY,
            CheckResult::Pass,
            format!("{role} '{name}' matches the tenant's name '{tenant}'"),
        );
    }
    match partial_match(&Name::parse(name), &Name::parse(tenant)) {
        Some(how) => Check::new(
            names::IDENTITY,
            CheckResult::Partial,
            format!(
                "{role} '{name}' partly matches the tenant's name '{tenant}': {how}; needs review"
            ),
        ),
        None => Check::new(
            names::IDENTITY,
            CheckResult::Fail,
            format!("{role} '{name}' does not match the tenant's name '{tenant}'"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::PayStub;
    use proptest::prelude::*;

    fn compared(on_document: &str, tenant: &str) -> CheckResult {
        let fields = Fields::PayStub(PayStub {
            employee: Some(on_document.to_string()),
            ..Default::default()
        });
        check(&fields, Some(tenant)).result
    }

    #[test]
    fn names_match_across_case_order_and_middle_names() {
        assert!(same_person("JANE Q. DOE", "Jane Doe"));
        assert!(same_person("Doe, Jane Quinn", "jane doe"));
        assert!(same_person("Jane Doe", "Jane Q Doe"));
        assert!(same_person("Jane Quinn Doe Jr.", "Jane Q. Doe"));
        assert!(same_person("José García", "Jose Garcia"));
        assert!(!same_person("John Smith", "Jane Doe"));
        assert!(!same_person("Jane Smith", "Jane Doe"));
        assert!(!same_person("Jane", "Jane Doe"));
    }

    #[test]
    fn names_as_people_write_them_are_partial_matches_never_mismatches() {
        use CheckResult::*;
        for (document, tenant) in [
            ("SMITH, J", "John Smith"),
            ("Smith, J.", "John A. Smith"),
            ("J. Smith", "John Smith"),
            ("Bob Smith", "Robert Smith"),
            ("Liz Taylor", "Elizabeth Taylor"),
            ("Jane Doe-Smith", "Jane Smith"),
            ("Jane Smith", "Jane Doe-Smith"),
            ("Jane Smith", "Jane Doe"),
            ("Maria Lopez-Garcia", "María García"),
            ("SMITH", "John Smith"),
        ] {
            assert_eq!(compared(document, tenant), Partial, "{document} / {tenant}");
        }
        assert_eq!(compared("John Smith", "Jane Doe"), Fail);
        assert_eq!(compared("John Smith", "Jane Smith"), Fail);
        assert_eq!(compared("Jane Q. Doe", "Jane Doe"), Pass);
    }

    proptest! {
        /// Any of the usual rewritings of the tenant's own name is never a mismatch.
        #[test]
        fn the_tenant_s_name_rewritten_is_never_a_mismatch(
            group in prop::sample::select(NICKNAMES.to_vec()),
            pick in 0usize..8,
            surname in "[A-Z][a-z]{2,9}",
            other in "[A-Z][a-z]{2,9}",
            form in 0usize..6,
        ) {
            let full = group[0];
            let short = group[pick % group.len()];
            let cap = |w: &str| format!("{}{}", w[..1].to_uppercase(), &w[1..]);
            let tenant = format!("{} {surname}", cap(full));
            let written = match form {
                0 => format!("{}, {}", surname.to_uppercase(), &full[..1].to_uppercase()),
                1 => format!("{} {surname}", cap(short)),
                2 => format!("{} {surname}-{other}", cap(full)),
                3 => format!("{} {other}", cap(short)),
                4 => format!("{}. {surname}", full[..1].to_uppercase()),
                _ => format!("{}, {}", surname, cap(short)),
            };
            let result = compared(&written, &tenant);
            prop_assert!(matches!(result, CheckResult::Pass | CheckResult::Partial), "{written} / {tenant}: {result:?}");
        }
    }
}
