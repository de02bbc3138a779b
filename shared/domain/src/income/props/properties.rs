//! The properties, each over generated tenants.

use super::generators::*;
use super::*;

// ------------------------------------------------------------------------------------------
// The properties.
// ------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// The rules find the tenant's monthly income: every job once, at gross where a payroll or
    /// stub sighting states it, every benefit, and no one-off.
    #[test]
    fn the_total_is_within_one_percent_of_the_known_income(tenant in tenant()) {
        assert_total_within_one_percent(&tenant, &tenant.report())?;
    }

    /// Two jobs paid the same net on the same dates are still two jobs: grouping by dates and
    /// amounts must not fold one into the other, nor into the other's payroll.
    #[test]
    fn two_distinct_jobs_are_never_merged(tenant in twin_jobs_tenant()) {
        let report = tenant.report();
        assert_total_within_one_percent(&tenant, &report)?;
        prop_assert!(
            report.income_sources.len() >= tenant.jobs.len(),
            "{} counted sources for {} jobs\n{}",
            report.income_sources.len(),
            tenant.jobs.len(),
            summary(&report)
        );
    }

    /// Seeing a job a second time adds no income: at most the level moves from net to gross.
    #[test]
    fn a_second_sighting_raises_the_total_by_at_most_the_gross_net_gap(
        (tenant, j) in tenant_and_job(),
        (before, after) in added_sighting(),
    ) {
        let once = tenant.with_job(j, |job| job.sightings = before);
        let twice = tenant.with_job(j, |job| job.sightings = after);
        let change = Change::between(&once, &twice);
        let gap = tenant.jobs[j].monthly_gap_cents();
        prop_assert!(
            change.cents <= gap + 1,
            "job {j} seen by {before:?} then {after:?}: the total rose by {:.2}, the gap is {:.2}\n{}",
            dollars(change.cents),
            dollars(gap),
            change.reports
        );
    }

    /// The payer name on a deposit is support only: a deposit named after the payroll processor,
    /// or naming no one, counts as the one named after the employer.
    #[test]
    fn the_bank_payer_name_never_changes_the_total(
        (tenant, j) in tenant_and_job(),
        processor in renamed_payer(),
    ) {
        let named = tenant.with_job(j, |job| {
            job.sightings = job.sightings.with_bank();
            job.payer = Payer::Employer;
        });
        let payer = match processor {
            Some(pick) => Payer::Processor(tenant.free_processor(j, pick)),
            None => Payer::Generic,
        };
        let renamed = named.with_job(j, |job| job.payer = payer);
        let change = Change::between(&named, &renamed);
        prop_assert!(
            change.cents == 0,
            "job {j} renamed from {:?} to {:?}: the total moved by {:.2}\n{}",
            named.jobs[j].bank_name(),
            renamed.jobs[j].bank_name(),
            dollars(change.cents),
            change.reports
        );
    }

    /// A pay split across two accounts, or into two credits on one day, is one pay: the parts
    /// are summed before anything else.
    #[test]
    fn splitting_a_deposit_changes_the_total_by_at_most_a_cent_per_pay(
        (tenant, j) in tenant_and_job(),
        split in split(),
    ) {
        let whole = tenant.with_job(j, |job| job.sightings = job.sightings.with_bank());
        let parted = whole.with_job(j, |job| job.split = Some(split));
        let pays = whole.jobs[j].deposits(&whole).len() as i64;
        let change = Change::between(&whole, &parted);
        prop_assert!(
            change.cents.abs() <= pays,
            "job {j} split {split:?} over {pays} deposits: the total moved by {:.2}\n{}",
            dollars(change.cents),
            change.reports
        );
    }

    /// A one-off is not monthly income, so taking it away never takes income away.
    #[test]
    fn removing_a_one_off_never_lowers_the_total(
        tenant in tenant_with(1..=3, 1..=2),
        one_off in any::<Index>(),
    ) {
        let k = one_off.index(tenant.one_offs.len());
        let mut without = tenant.clone();
        without.one_offs.remove(k);
        let change = Change::between(&tenant, &without);
        prop_assert!(
            change.cents >= 0,
            "removing one-off {k}: the total moved by {:.2}\n{}",
            dollars(change.cents),
            change.reports
        );
    }

    /// The total is what the report shows: the sum of the counted sources, to the cent.
    #[test]
    fn the_counted_sources_add_up_to_the_total(tenant in tenant()) {
        let report = tenant.report();
        let sum: i64 = report.income_sources.iter().map(|s| to_cents(s.monthly_income)).sum();
        prop_assert_eq!(sum, to_cents(report.total_monthly_income), "{}", summary(&report));
    }
}
