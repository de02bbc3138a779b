//! The households of the fixtures (sample events, `make dev`): one decided (two applicants who
//! completed), two open (an applicant and a guarantor; two applicants; all pending) and one of
//! another account.

use adapters::dynamo::DynamoStore;
use chrono::{Duration, Utc};
use domain::household::{Household, HouseholdShape, MemberRole, member_id};
use domain::income::{PayFrequency, ProviderIncome, ProviderIncomeSource, VerificationMethod};
use domain::report::build_report;
use domain::{Mode, NewVerificationInput, Transition, Verification};
use ports::StoreError;
use ports::store::prelude::*;

use crate::stack::{DEMO_ACCOUNT, OTHER_ACCOUNT};

pub const FIXTURE_HOUSEHOLD_DECIDED: &str = "8d1a9e0f-3f2c-8405-9e5f-92a3b4c5d6e7";
pub const FIXTURE_HOUSEHOLD_OPEN: &str = "9e2b0f1a-4a3d-8416-8f6a-a3b4c5d6e7f8";
pub const FIXTURE_HOUSEHOLD_OTHER: &str = "a0c31a2b-5b4e-8417-9a7b-b4c5d6e7f809";
/// A second open one (two applicants, pending), so two cancels in a row each cancel a household.
pub const FIXTURE_HOUSEHOLD_OPEN_SECOND: &str = "b1d42b3c-6c5f-8400-8b8c-c5d6e7f8091a";

/// Writes the fixture households (each once).
pub async fn seed_households(store: &DynamoStore) -> Result<(), StoreError> {
    use MemberRole::{Applicant, Guarantor};
    for (id, account, roles, complete) in [
        (
            FIXTURE_HOUSEHOLD_DECIDED,
            DEMO_ACCOUNT,
            [Applicant, Applicant],
            true,
        ),
        (
            FIXTURE_HOUSEHOLD_OPEN,
            DEMO_ACCOUNT,
            [Applicant, Guarantor],
            false,
        ),
        (
            FIXTURE_HOUSEHOLD_OTHER,
            OTHER_ACCOUNT,
            [Applicant, Guarantor],
            false,
        ),
        (
            FIXTURE_HOUSEHOLD_OPEN_SECOND,
            DEMO_ACCOUNT,
            [Applicant, Applicant],
            false,
        ),
    ] {
        let household_id = id.parse().expect("fixture uuid");
        if store.get_household(household_id).await?.is_some() {
            continue;
        }
        let now = Utc::now();
        // As the service makes them: the id names the shape, and each member's id follows.
        let shape = HouseholdShape::new(&roles).expect("a fixture's shape");
        assert_eq!(
            HouseholdShape::of(household_id).as_ref(),
            Some(&shape),
            "a fixture id names its shape"
        );
        let members: Vec<Verification> = (roles.iter().enumerate())
            .map(|(i, role)| {
                let input = NewVerificationInput {
                    tenant_email: format!("household.member{i}+good@example.com"),
                    tenant_name: Some(format!("Member {i}")),
                    property_address: Some("2 Shared House Lane, Springfield".into()),
                    monthly_rent: Some(1800.0),
                    ..Default::default()
                };
                let mut v =
                    Verification::new_pending(account, Mode::Test, input, now, Duration::days(7));
                v.verification_id = member_id(household_id, i);
                v.household_id = Some(household_id);
                v.household_role = Some(*role);
                v
            })
            .collect();
        let household = Household {
            household_id,
            account_id: account.into(),
            mode: Mode::Test,
            created_at: now,
            property_address: Some("2 Shared House Lane, Springfield".into()),
            monthly_rent: 1800.0,
            rent_subsidy_monthly: None,
            income_multiple: None,
            guarantor_multiple: None,
            webhook_url: None,
            members: shape.members(household_id),
            decision: None,
            decided_at: None,
            cancelled_at: None,
            erased_at: None,
        };
        store
            .create_household(&household, &members, None, None)
            .await?;
        if complete {
            for v in &members {
                let started = match store.transition(v, &Transition::Start, now).await? {
                    ports::TransitionOutcome::Applied(s) => s,
                    ports::TransitionOutcome::Conflict(_) => continue,
                };
                // A year of monthly pay of 3,000.00 up to today.
                let income = ProviderIncome {
                    as_of: now.date_naive(),
                    method: VerificationMethod::Bank,
                    provider_confidence: Some(0.95),
                    sources: vec![ProviderIncomeSource::on_cycle(
                        "Acme Corp",
                        "SALARY",
                        PayFrequency::Monthly,
                        now.date_naive(),
                        12,
                        |_| 3000.0,
                    )],
                };
                let report = build_report(&income, v.monthly_rent);
                store
                    .transition(
                        &started,
                        &Transition::Complete {
                            report: Box::new(report),
                        },
                        now,
                    )
                    .await?;
            }
        }
    }
    Ok(())
}
