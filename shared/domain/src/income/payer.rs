//! What a payer's name can and cannot say. Names only support the grouping of sightings: the
//! dates and amounts decide (`income::streams`). A bank writes a payroll processor's name
//! ("GUSTO PAY 240913") or generic words ("PAYROLL DIR DEP PPD") as often as the employer's, so
//! those words name nobody; what is left, when anything is, may break a tie between deposits of
//! equal amounts.

/// Words that name no payer: what banks and payroll systems add to one.
pub const PAYER_NOISE: &[&str] = &[
    "the",
    "payroll",
    "pay",
    "paycheck",
    "wages",
    "wage",
    "salary",
    "inc",
    "llc",
    "ltd",
    "co",
    "corp",
    "corporation",
    "company",
    "dir",
    "dep",
    "direct",
    "deposit",
    "ach",
    "ppd",
    "des",
    "id",
    "eib",
    "dd",
    "net",
];

/// Payroll processors: their name on a deposit says who paid the wages, never for whom the
/// tenant works.
pub const PROCESSORS: &[&str] = &[
    "gusto",
    "adp",
    "paychex",
    "paylocity",
    "paycom",
    "paycor",
    "trinet",
    "justworks",
    "rippling",
    "intuit",
    "quickbooks",
    "workday",
    "ceridian",
    "dayforce",
    "insperity",
    "zenefits",
];

/// Payment apps: money from a person through them is a transfer, not pay, unless it comes on a
/// schedule of its own.
const PAYMENT_APPS: &[&str] = &["zelle", "venmo", "cashapp", "paypal"];

/// The payer's words, less the noise a bank, a processor or payroll adds, and less numbers
/// (reference and batch numbers change from deposit to deposit).
pub fn payer_words(name: &str) -> Vec<String> {
    name.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| {
            !w.is_empty()
                && !w.chars().all(|c| c.is_ascii_digit())
                && !PAYER_NOISE.contains(w)
                && !PROCESSORS.contains(w)
        })
        .map(str::to_string)
        .collect()
}

/// Whether two names name one payer: the same words, or one's words all in the other's.
pub fn same_payer(a: &str, b: &str) -> bool {
    let (a, b) = (payer_words(a), payer_words(b));
    let within = |x: &[String], y: &[String]| x.iter().all(|w| y.contains(w));
    !a.is_empty() && !b.is_empty() && (within(&a, &b) || within(&b, &a))
}

/// How far two names support each other: 1 when they may name one payer, -1 when both name
/// someone and nothing of one is in the other, 0 when either names nobody (a processor, generic
/// words). Banks shorten names ("ACMEHLDG" for Acme Holdings), so a word of one that begins the
/// other's words run together, or the two run-together names sharing their first
/// [`SHARED_PREFIX`] letters, is the same payer.
pub fn name_affinity(a: &str, b: &str) -> i8 {
    let (wa, wb) = (payer_words(a), payer_words(b));
    if wa.is_empty() || wb.is_empty() {
        return 0;
    }
    let (ja, jb) = (wa.concat(), wb.concat());
    let begins = |words: &[String], joined: &str| {
        words
            .iter()
            .any(|w| w.len() >= 3 && (joined.starts_with(w.as_str()) || w.starts_with(joined)))
    };
    let shared = ja
        .chars()
        .zip(jb.chars())
        .take_while(|(x, y)| x == y)
        .count();
    if same_payer(a, b) || begins(&wa, &jb) || begins(&wb, &ja) || shared >= SHARED_PREFIX {
        1
    } else {
        -1
    }
}

/// Two run-together names that share this many first letters name one payer.
pub const SHARED_PREFIX: usize = 4;

/// Whether money with this category and payer name came from a person through a payment app.
pub fn person_to_person(category: &str, name: &str) -> bool {
    if category == "TRANSFER_FROM_APPLICATION" {
        return true;
    }
    let squashed: String = name
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    PAYMENT_APPS.iter().any(|app| squashed.contains(app))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processors_generic_words_and_numbers_name_nobody() {
        for name in [
            "GUSTO PAY 240913",
            "PAYROLL DIR DEP PPD",
            "ADP WAGE PAY",
            "PAYCHEX EIB PAYROLL",
            "PAYLOCITY DIR DEP",
        ] {
            assert!(payer_words(name).is_empty(), "{name}");
            assert_eq!(name_affinity(name, "Acme Corp"), 0, "{name}");
        }
        assert_eq!(payer_words("ACME CORP PAYROLL 0042"), vec!["acme"]);
    }

    #[test]
    fn names_support_or_oppose_only_when_both_name_someone() {
        assert_eq!(name_affinity("ACME CORP DIR DEP", "Acme Corporation"), 1);
        assert_eq!(name_affinity("GLOBEX PAYROLL", "Acme Corp"), -1);
        assert_eq!(name_affinity("ACMEHLDG PAYROLL", "Acme Holdings LLC"), 1);
        assert_eq!(
            name_affinity("RIVERSIDE MED CTR", "Riverside Medical Center"),
            1
        );
        assert_eq!(
            name_affinity("GREENLEAF GROCERS", "Riverside Medical Center"),
            -1
        );
        assert!(same_payer("Acme", "ACME INDUSTRIES PAYROLL"));
        assert!(!same_payer("PAYROLL", "Acme"));
    }

    #[test]
    fn payment_apps_and_their_category_are_person_to_person() {
        assert!(person_to_person("OTHER", "ZELLE FROM JORDAN SMITH"));
        assert!(person_to_person("OTHER", "Cash App*J Smith"));
        assert!(person_to_person("TRANSFER_FROM_APPLICATION", "J SMITH"));
        assert!(!person_to_person("SALARY", "ACME CORP PAYROLL"));
    }
}
