//! The identity check: the employee, account holder or recipient named on the document is the
//! tenant. Tolerant of case, punctuation, order ("DOE, JANE") and middle names or initials.

use super::fields::normalise;
use super::{Check, CheckResult, Fields, names};

const SUFFIXES: &[&str] = &["jr", "sr", "ii", "iii", "iv", "mr", "mrs", "ms", "dr"];

fn tokens(name: &str) -> Vec<String> {
    normalise(name)
        .split(' ')
        .filter(|t| !t.is_empty() && !SUFFIXES.contains(t))
        .map(str::to_string)
        .collect()
}

/// Whether two names are the same person's: at least two full words of the shorter name appear
/// in the other, and each of its other words is there too or matches an initial either way.
pub fn same_person(a: &str, b: &str) -> bool {
    let (ta, tb) = (tokens(a), tokens(b));
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
        && short.iter().all(|t| {
            long.contains(t)
                || long.iter().any(|l| {
                    (t.len() == 1 && l.starts_with(t.as_str()))
                        || (l.len() == 1 && t.starts_with(l.as_str()))
                })
        })
}

/// `identity`: not applicable without the tenant's name; unknown when the document names no one.
pub fn check(fields: &Fields, tenant_name: Option<&str>) -> Check {
    let Some(tenant) = tenant_name else {
        return Check::new(
            names::IDENTITY,
            CheckResult::NotApplicable,
            "no tenant name to compare",
        );
    };
    match fields.person() {
        None => Check::new(
            names::IDENTITY,
            CheckResult::Unknown,
            "the document names no person",
        ),
        Some((role, name)) => {
            let same = same_person(name, tenant);
            Check::new(
                names::IDENTITY,
                if same {
                    CheckResult::Pass
                } else {
                    CheckResult::Fail
                },
                format!(
                    "{role} '{name}' {} the tenant's name '{tenant}'",
                    if same { "matches" } else { "does not match" }
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::same_person;

    #[test]
    fn names_match_across_case_order_and_middle_names() {
        assert!(same_person("JANE Q. DOE", "Jane Doe"));
        assert!(same_person("Doe, Jane Quinn", "jane doe"));
        assert!(same_person("Jane Doe", "Jane Q Doe"));
        assert!(same_person("Jane Quinn Doe Jr.", "Jane Q. Doe"));
        assert!(!same_person("John Smith", "Jane Doe"));
        assert!(!same_person("Jane Smith", "Jane Doe"));
        assert!(!same_person("Jane", "Jane Doe"));
    }
}
