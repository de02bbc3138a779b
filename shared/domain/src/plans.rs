//! The plans the service sells, read by the API functions and the admin tool (from `PLANS`, or
//! the defaults).

use crate::Plan;

/// The plans the service sells. Defaults are those of the reference product (design §3); a
/// deployment can replace them with the `PLANS` environment variable (a JSON array of plans).
#[derive(Debug, Clone, PartialEq)]
pub struct Plans(Vec<Plan>);

impl Plans {
    pub fn new(plans: Vec<Plan>) -> Self {
        Plans(plans)
    }

    pub fn defaults() -> Self {
        let plan = |name: &str, verifications, requests, api_access, sms| Plan {
            name: name.to_string(),
            verifications_per_month: verifications,
            api_requests_per_day: requests,
            api_access,
            sms_per_month: sms,
            key_burst: Default::default(),
        };
        // SMS: four or five texts per verification of the allowance (an invite, two reminders,
        // a resend or two), starter at pro's ratio.
        Plans(vec![
            plan("starter", 10, 0, false, 40),
            plan("pro", 50, 100, true, 200),
            plan("business", 200, 500, true, 1_000),
        ])
    }

    pub fn get(&self, name: &str) -> Option<&Plan> {
        self.0.iter().find(|p| p.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Plan> {
        self.0.iter()
    }

    pub fn parse(raw: &str) -> Result<Self, String> {
        let plans: Vec<Plan> = serde_json::from_str(raw)
            .map_err(|e| format!("PLANS is not a JSON array of plans: {e}"))?;
        if plans.is_empty() {
            return Err("PLANS is empty".into());
        }
        Ok(Plans(plans))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_plans_match_the_design() {
        let plans = Plans::defaults();
        let pro = plans.get("pro").unwrap();
        assert_eq!(
            (pro.verifications_per_month, pro.api_requests_per_day),
            (50, 100)
        );
        let business = plans.get("business").unwrap();
        assert_eq!(
            (
                business.verifications_per_month,
                business.api_requests_per_day
            ),
            (200, 500)
        );
        assert!(!plans.get("starter").unwrap().api_access);
        let sms = |name: &str| plans.get(name).unwrap().sms_per_month;
        assert_eq!(
            (sms("starter"), sms("pro"), sms("business")),
            (40, 200, 1_000)
        );
    }

    #[test]
    fn plans_parse_from_json() {
        let plans = Plans::parse(r#"[{"name":"x","verifications_per_month":1,"api_requests_per_day":2,"api_access":true}]"#).unwrap();
        assert_eq!(plans.get("x").unwrap().api_requests_per_day, 2);
        // A plan that names no SMS allowance texts nobody.
        assert_eq!(plans.get("x").unwrap().sms_per_month, 0);
        assert!(Plans::parse("[]").is_err());
        assert!(Plans::parse("nope").is_err());
    }
}
