//! Strategies for generated tenants and the changes the properties make to them.

use super::*;

// ------------------------------------------------------------------------------------------
// Generators.
// ------------------------------------------------------------------------------------------

/// The end of the data window: up to a year before 2026-11-13 (where shrinking goes), so pay
/// dates meet every weekday, month length and month's end.
pub(super) fn as_of() -> impl Strategy<Value = NaiveDate> {
    (0i64..=365).prop_map(|back| latest_as_of() - Duration::days(back))
}

/// The four cycles employers pay on; daily pay is gig money, not a job.
pub(super) fn frequency() -> impl Strategy<Value = PayFrequency> {
    select(
        [
            PayFrequency::Weekly,
            PayFrequency::Biweekly,
            PayFrequency::SemiMonthly,
            PayFrequency::Monthly,
        ]
        .to_vec(),
    )
}

/// Gross pay per period of 400.00 to 5,000.00 in whole cents, and the net after taxes and
/// deductions at a share of 62% to 88%, rounded to the cent: the range real pay stubs show.
pub(super) fn gross_and_net() -> impl Strategy<Value = (i64, i64)> {
    (40_000i64..=500_000, 6_200i64..=8_800).prop_map(|(gross, share)| (gross, net_of(gross, share)))
}

/// The five ways a job is seen, equally likely: the rules must reach one figure for the job
/// whichever methods the tenant connected.
pub(super) fn sightings() -> impl Strategy<Value = Sightings> {
    use Sightings::*;
    select(
        [
            BankOnly,
            PayrollOnly,
            PayrollAndBank,
            StubsAndBank,
            PayrollStubsAndBank,
        ]
        .to_vec(),
    )
}

/// A bank names a payroll deposit after the employer, after its payroll processor, or with
/// words that name no one: the rules may use the name as support only, never need it. Which
/// processor is settled when the job is named (`jobs`).
pub(super) fn payer() -> impl Strategy<Value = Payer> {
    prop_oneof![
        Just(Payer::Employer),
        Just(Payer::Processor(PROCESSORS[0])),
        Just(Payer::Generic),
    ]
}

prop_compose! {
    /// One active job, with 3 to 12 months of history whose last pay falls in the last period
    /// before the as-of date, so the job is current by any rule. Its employer and processor are
    /// settled by `jobs`, which keeps them distinct between jobs.
    fn job()(
        frequency in frequency(),
        (gross_cents, net_cents) in gross_and_net(),
        history_months in 3u32..=12,
        last_pay_back in 0i64..28,
        sightings in sightings(),
        payer in payer(),
        stubs in 1usize..=4,
        lag_seed in any::<u64>(),
    ) -> Job {
        Job {
            employer: EMPLOYERS[0],
            frequency,
            gross_cents,
            net_cents,
            history_months,
            last_pay_back,
            sightings,
            payer,
            stubs,
            lag_seed,
            split: None,
        }
    }
}

/// `count` jobs (at most 3) at distinct employers, each with a processor of its own, so two jobs
/// share a bank name only when it is generic. Three are always drawn and the first `count` kept:
/// without a dependent strategy, proptest shrinks the count and every job in place.
pub(super) fn jobs(count: RangeInclusive<usize>) -> impl Strategy<Value = Vec<Job>> {
    (
        count,
        subsequence(EMPLOYERS.to_vec(), 3).prop_shuffle(),
        Just(PROCESSORS.to_vec()).prop_shuffle(),
        uniform3(job()),
    )
        .prop_map(|(count, employers, processors, jobs)| {
            (jobs.into_iter().zip(employers).zip(processors))
                .take(count)
                .map(|((job, employer), processor)| Job {
                    employer,
                    payer: match job.payer {
                        Payer::Processor(_) => Payer::Processor(processor),
                        other => other,
                    },
                    ..job
                })
                .collect()
        })
}

/// 0 to 2 monthly benefits from distinct payers: 150.00 to 2,500.00 a month, the last paid in the
/// last month, so each is current and regular.
pub(super) fn benefits() -> impl Strategy<Value = Vec<Benefit>> {
    let benefit = (
        prop_oneof![Just("BENEFIT_OTHER"), Just("RETIREMENT")],
        15_000i64..=250_000,
        0i64..28,
    );
    (
        0usize..=2,
        subsequence(BENEFIT_PAYERS.to_vec(), 2).prop_shuffle(),
        uniform2(benefit),
    )
        .prop_map(|(count, payers, benefits)| {
            (payers.into_iter().zip(benefits))
                .take(count)
                .map(
                    |(payer, (category, amount_cents, last_paid_back))| Benefit {
                        payer,
                        category,
                        amount_cents,
                        last_paid_back,
                    },
                )
                .collect()
        })
}

/// `count` (at most 2) single deposits from distinct payers, of 20.00 to 5,000.00, anywhere in
/// the bank window: money the tenant received once, which is never monthly income.
pub(super) fn one_offs(count: RangeInclusive<usize>) -> impl Strategy<Value = Vec<OneOff>> {
    let one_off = (
        prop_oneof![Just("OTHER"), Just("CASH_DEPOSIT")],
        2_000i64..=500_000,
        0i64..365,
    );
    (
        count,
        subsequence(ONE_OFF_PAYERS.to_vec(), 2).prop_shuffle(),
        uniform2(one_off),
    )
        .prop_map(|(count, payers, one_offs)| {
            (payers.into_iter().zip(one_offs))
                .take(count)
                .map(|(payer, (category, amount_cents, paid_back))| OneOff {
                    payer,
                    category,
                    amount_cents,
                    paid_back,
                })
                .collect()
        })
}

/// A tenant with `jobs` jobs, 0 to 2 benefits and `one_offs` one-offs, a bank window of the last
/// 90 to 365 days, and the sources in a random order.
pub(super) fn tenant_with(
    jobs_count: RangeInclusive<usize>,
    one_offs_count: RangeInclusive<usize>,
) -> impl Strategy<Value = Tenant> {
    (
        as_of(),
        90i64..=365,
        jobs(jobs_count),
        benefits(),
        one_offs(one_offs_count),
        proptest::collection::vec(any::<u16>(), ORDER_KEYS),
    )
        .prop_map(
            |(as_of, bank_days, jobs, benefits, one_offs, order)| Tenant {
                as_of,
                bank_days,
                jobs,
                benefits,
                one_offs,
                order,
            },
        )
}

/// The tenant of the brief: 1 to 3 jobs, 0 to 2 benefits, 0 to 2 one-offs.
pub(super) fn tenant() -> impl Strategy<Value = Tenant> {
    tenant_with(1..=3, 0..=2)
}

/// A tenant and the position of one of its jobs, for a property that changes that job.
pub(super) fn tenant_and_job() -> impl Strategy<Value = (Tenant, usize)> {
    (tenant(), any::<Index>()).prop_map(|(tenant, job)| {
        let j = job.index(tenant.jobs.len());
        (tenant, j)
    })
}

/// A tenant whose first two jobs are paid the same net on the same dates (same cycle, same last
/// pay date, same deposit lags), both seen by the bank and the first also by payroll. Only the
/// payer name, if that, tells their deposits apart; the twin's gross follows from its own net
/// share, so the two jobs still differ.
pub(super) fn twin_jobs_tenant() -> impl Strategy<Value = Tenant> {
    (tenant_with(2..=3, 0..=2), 6_200i64..=8_800).prop_map(|(mut tenant, twin_share)| {
        let first = tenant.jobs[0].clone();
        let twin = &mut tenant.jobs[1];
        twin.frequency = first.frequency;
        twin.history_months = first.history_months;
        twin.last_pay_back = first.last_pay_back;
        twin.lag_seed = first.lag_seed;
        twin.net_cents = first.net_cents;
        twin.gross_cents = (first.net_cents * 10_000 + twin_share / 2) / twin_share;
        twin.sightings = Sightings::BankOnly;
        tenant.jobs[0].sightings = Sightings::PayrollAndBank;
        tenant
    })
}

/// A second sighting added to a job's: the methods before and after.
pub(super) fn added_sighting() -> impl Strategy<Value = (Sightings, Sightings)> {
    prop_oneof![
        Just((Sightings::BankOnly, Sightings::PayrollAndBank)),
        Just((Sightings::BankOnly, Sightings::StubsAndBank)),
        Just((Sightings::PayrollOnly, Sightings::PayrollAndBank)),
        Just((Sightings::PayrollAndBank, Sightings::PayrollStubsAndBank)),
        Just((Sightings::StubsAndBank, Sightings::PayrollStubsAndBank)),
    ]
}

/// A new bank name for a job: a processor no other job's deposits carry (None: generic words).
pub(super) fn renamed_payer() -> impl Strategy<Value = Option<Index>> {
    proptest::option::of(any::<Index>())
}

/// A split of every deposit of a job: across two accounts or into two same-day credits, at
/// 80/20 or at a random share per deposit.
pub(super) fn split() -> impl Strategy<Value = Split> {
    let kind = prop_oneof![
        Just(SplitKind::TwoAccounts),
        Just(SplitKind::SameDayCredits)
    ];
    let shares = prop_oneof![
        Just(Shares::EightyTwenty),
        any::<u64>().prop_map(|seed| Shares::Random { seed }),
    ];
    (kind, shares).prop_map(|(kind, shares)| Split { kind, shares })
}

/// Whether the report's total is within 1% of the tenant's known monthly income.
pub(super) fn assert_total_within_one_percent(
    tenant: &Tenant,
    report: &IncomeReport,
) -> Result<(), TestCaseError> {
    let known = tenant.known_monthly_cents();
    let total = to_cents(report.total_monthly_income) as f64;
    prop_assert!(
        (total - known).abs() <= 0.01 * known,
        "total {:.2} against known {:.2}\n{}",
        total / 100.0,
        known / 100.0,
        summary(report)
    );
    Ok(())
}
