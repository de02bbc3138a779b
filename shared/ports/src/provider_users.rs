//! The stored handle of a verification's provider users (`Verification::provider_user`): one
//! user per live provider the tenant may connect, each the provider's own opaque handle, named by
//! the method that provider serves. Written `bank=<handle>;payroll=<handle>`, in the stack's
//! order; a provider's handle never holds `;` or `=` (the adapters check theirs).

use domain::income::VerificationMethod;

/// Joins the users made at consent into one handle; None when no provider made one.
pub fn join(users: &[(VerificationMethod, String)]) -> Option<String> {
    let parts: Vec<String> = users
        .iter()
        .map(|(method, handle)| format!("{}={handle}", method.as_str()))
        .collect();
    (!parts.is_empty()).then(|| parts.join(";"))
}

/// The handle of the provider serving `method`, if the verification has one.
pub fn part(handle: &str, method: VerificationMethod) -> Option<&str> {
    handle.split(';').find_map(|entry| {
        let (name, user) = entry.split_once('=')?;
        (name.trim() == method.as_str())
            .then(|| user.trim())
            .filter(|u| !u.is_empty())
    })
}

/// Every provider's handle, with its method, in the stored order.
pub fn parts(handle: &str) -> Vec<(VerificationMethod, &str)> {
    handle
        .split(';')
        .filter_map(|entry| {
            let (name, user) = entry.split_once('=')?;
            let user = user.trim();
            Some((VerificationMethod::parse(name.trim())?, user)).filter(|_| !user.is_empty())
        })
        .collect()
}

/// Whether a provider's own handle can sit in the joined handle.
pub fn fits(handle: &str) -> bool {
    !handle.trim().is_empty() && !handle.contains([';', '='])
}

#[cfg(test)]
mod tests {
    use super::*;
    use VerificationMethod::*;

    #[test]
    fn each_provider_finds_its_own_user() {
        let joined = join(&[
            (Bank, "v-1a2b usr_9".into()),
            (Payroll, "018051aa-f7a9".into()),
        ])
        .unwrap();
        assert_eq!(joined, "bank=v-1a2b usr_9;payroll=018051aa-f7a9");
        assert_eq!(part(&joined, Bank), Some("v-1a2b usr_9"));
        assert_eq!(part(&joined, Payroll), Some("018051aa-f7a9"));
        assert_eq!(part(&joined, Document), None);
        assert_eq!(
            parts(&joined),
            vec![(Bank, "v-1a2b usr_9"), (Payroll, "018051aa-f7a9")]
        );
        assert_eq!(join(&[]), None);
        assert_eq!(part("payroll=", Payroll), None);
        assert!(fits("v-1 usr_9") && !fits("a;b") && !fits("a=b") && !fits(" "));
    }
}
