//! What the report PDF says, one function per section, in the order they print. A new report
//! field gets its line in its section (or a new section function called from [`render_report`]).

use chrono::{DateTime, Utc};

use super::layout::Document;
use crate::Verification;
use crate::documents::CheckResult;
use crate::income::{AmountsBasis, PayFrequency};
use crate::report::{
    ExcludedSource, IncomeReport, IncomeSource, MORE_THAN_ONE_METHOD, sightings_words,
};
use crate::stability::Stability;

/// Every section of a completed verification's report.
pub fn render_report(doc: &mut Document, v: &Verification, now: DateTime<Utc>) {
    header(doc, v, now);
    applicant(doc, v);
    if let Some(report) = &v.income_report {
        summary(doc, v, report);
        stability(doc, report);
        sources(doc, report);
        excluded(doc, report);
        documents(doc, report);
        method(doc, report);
    }
    consent(doc, v);
    tenant_note(doc, v);
}

fn header(doc: &mut Document, v: &Verification, now: DateTime<Utc>) {
    doc.title("Income verification report");
    doc.subtitle(&format!(
        "Verification {}  |  generated {}",
        v.verification_id,
        human_ts(now)
    ));
    if v.income_report.as_ref().and_then(|r| r.local_sandbox) == Some(true)
        || v.mode == crate::Mode::Test
    {
        doc.subtitle("TEST MODE: sandbox income, not a real applicant's data");
    }
}

fn applicant(doc: &mut Document, v: &Verification) {
    doc.heading("Tenant and property");
    doc.row("Tenant", v.tenant_name.as_deref().unwrap_or("(not given)"));
    doc.row("Tenant e-mail", &v.tenant_email);
    doc.row(
        "Property",
        v.property_address.as_deref().unwrap_or("(not given)"),
    );
    doc.row(
        "Monthly rent",
        &v.monthly_rent.map_or("(not given)".into(), money),
    );
    if let Some(at) = v.completed_at {
        doc.row("Completed", &human_ts(at));
    }
}

fn summary(doc: &mut Document, v: &Verification, report: &IncomeReport) {
    doc.heading("Affordability");
    doc.row("Total monthly income", &money(report.total_monthly_income));
    doc.row(
        "Income as of",
        &format!("{} (the end of the provider's data)", report.as_of),
    );
    doc.row(
        "Rent-to-income ratio",
        &report
            .rent_to_income_ratio
            .map_or("not computed (no rent or no income)".into(), |r| {
                format!("{r:.4} ({:.1}% of income)", r * 100.0)
            }),
    );
    // With a subsidy the contract's 3x figure is on the tenant's portion, not the full rent.
    let portion = report
        .affordability
        .as_ref()
        .map(|a| a.tenant_portion)
        .or(v.monthly_rent);
    let rule = match (report.passes_3x_rule, portion) {
        (Some(passes), Some(portion)) => format!(
            "{}: income {} is {} 3 x {} {} = {}",
            if passes { "Passes" } else { "Does not pass" },
            money(report.total_monthly_income),
            if passes { "at least" } else { "below" },
            if report
                .affordability
                .as_ref()
                .is_some_and(|a| a.rent_subsidy_monthly > 0.0)
            {
                "the tenant's portion"
            } else {
                "the rent"
            },
            money(portion),
            money(portion * 3.0),
        ),
        _ => "not applied (no rent given)".into(),
    };
    doc.row("3x rent rule", &rule);
    if let Some(waiting) = &report.awaiting_review {
        doc.row(
            "Awaiting review",
            &format!(
                "{} not counted until the landlord accepts them; income would then be {}",
                waiting.documents.join(", "),
                money(waiting.total_monthly_income_if_accepted)
            ),
        );
    }
    if report.revision > 1 {
        doc.row(
            "Revision",
            &format!("{} (recomputed after the review)", report.revision),
        );
    }
    if let Some(a) = &report.affordability {
        doc.row(
            "Rent subsidy",
            &format!("{} a month", money(a.rent_subsidy_monthly)),
        );
        doc.row("Tenant's portion", &money(a.tenant_portion));
        doc.row(
            "Income required",
            &format!(
                "{} ({} x the tenant's portion)",
                money(a.income_required),
                a.income_multiple
            ),
        );
        doc.row(
            "Meets the requirement",
            if a.meets_requirement { "yes" } else { "no" },
        );
        doc.paragraph(&a.rule);
    }
    if let Some(basis) = report.amounts_basis {
        doc.row(
            "Amounts",
            &format!("{} (as the provider reports them)", label(&basis)),
        );
    }
}

fn stability(doc: &mut Document, report: &IncomeReport) {
    if let Some(overall) = &report.stability {
        doc.heading("Income stability");
        stability_rows(doc, "", overall);
    }
}

fn stability_rows(doc: &mut Document, indent: &str, s: &Stability) {
    doc.row(
        &format!("{indent}months observed"),
        &s.months_observed.to_string(),
    );
    doc.row(
        &format!("{indent}last payment"),
        &s.last_payment_date.to_string(),
    );
    let cv = s
        .regularity
        .coefficient_of_variation
        .map_or(String::new(), |cv| format!(" (variation {cv:.2})"));
    doc.row(
        &format!("{indent}regularity"),
        &format!("{}{cv}", label(&s.regularity.label)),
    );
    let change = s.trend.change_percent.map_or(String::new(), |p| {
        format!(" ({p:+.1}% last 3 months vs before)")
    });
    doc.row(
        &format!("{indent}trend"),
        &format!("{}{change}", label(&s.trend.label)),
    );
}

/// A serde enum's wire name in words (`insufficient_history` -> `insufficient history`).
fn basis_words(basis: AmountsBasis) -> &'static str {
    match basis {
        AmountsBasis::Gross => "gross (before taxes and deductions)",
        AmountsBasis::Net => "net (after taxes and deductions)",
    }
}

fn label<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default()
}

fn sources(doc: &mut Document, report: &IncomeReport) {
    doc.heading(&format!(
        "Income counted ({} source{})",
        report.income_sources.len(),
        if report.income_sources.len() == 1 {
            ""
        } else {
            "s"
        }
    ));
    for source in &report.income_sources {
        source_rows(doc, source);
        doc.space(4.0);
    }
    if let Some(review) = &report.document_review {
        doc.row(
            "Landlord's review",
            &format!(
                "{} on {}",
                label(&review.decision),
                human_ts(review.reviewed_at)
            ),
        );
        doc.paragraph(&review.note);
    }
}

fn source_rows(doc: &mut Document, source: &IncomeSource) {
    doc.row(
        &source.name,
        &format!("{} a month", money(source.monthly_income)),
    );
    doc.row("   category", &source.income_category);
    doc.row("   method", &label(&source.method));
    if let Some(basis) = source.amounts_basis {
        let net = source
            .net_monthly_income
            .map_or(String::new(), |n| format!("; net {} a month", money(n)));
        doc.row("   amounts", &format!("{}{net}", basis_words(basis)));
    }
    doc.row(
        "   pay frequency",
        source
            .pay_frequency
            .map_or("irregular (no fixed pay schedule)", PayFrequency::words),
    );
    doc.row("   counted as", &source.basis);
    if let (Some(base), Some(variable)) =
        (source.base_monthly_income, source.variable_monthly_income)
    {
        doc.row(
            "   base and variable",
            &format!(
                "base pay {} a month; bonus, commission and overtime {} a month",
                money(base),
                money(variable)
            ),
        );
    }
    if !source.sightings.is_empty() {
        doc.row("   seen by", &sightings_words(&source.sightings));
    }
    let reason = source.reason.map_or(String::new(), |r| {
        format!(" (counted at the {})", label(&r))
    });
    doc.row(
        "   12-month average",
        &format!("{} a month{reason}", money(source.twelve_month_average)),
    );
    if let Some(st) = &source.stability {
        stability_rows(doc, "   ", st);
    }
}

fn excluded(doc: &mut Document, report: &IncomeReport) {
    if report.excluded_sources.is_empty() {
        return;
    }
    doc.heading(&format!(
        "Seen but not counted ({})",
        report.excluded_sources.len()
    ));
    for source in &report.excluded_sources {
        excluded_rows(doc, source);
        doc.space(4.0);
    }
}

fn excluded_rows(doc: &mut Document, source: &ExcludedSource) {
    doc.row(
        &source.name,
        &format!(
            "{} in {} payment{}",
            money(source.observed_amount),
            source.payment_count,
            if source.payment_count == 1 { "" } else { "s" }
        ),
    );
    doc.row("   category", &source.income_category);
    doc.row("   method", &label(&source.method));
    doc.row("   reason", &label(&source.reason));
    if let Some(kept) = &source.duplicate_of {
        doc.row("   same income as", kept);
    }
    if !source.sightings.is_empty() {
        doc.row("   seen by", &sightings_words(&source.sightings));
    }
    doc.paragraph(&source.explanation);
}

/// The uploaded documents: each verdict in words, and every check that did not pass with its
/// evidence.
fn documents(doc: &mut Document, report: &IncomeReport) {
    let Some(documents) = &report.documents else {
        return;
    };
    doc.heading(&format!("Documents ({})", documents.len()));
    if report.needs_review == Some(true) {
        doc.paragraph(
            "Needs review: a document shows signs of editing or inconsistencies, could not be \
             checked, or has figures the tenant typed.",
        );
    }
    for d in documents {
        doc.paragraph(&d.summary);
        for c in d.checks.iter().filter(|c| c.result != CheckResult::Pass) {
            doc.row(
                &format!("   {} {}", c.check.replace('_', " "), label(&c.result)),
                &c.evidence,
            );
        }
        doc.space(4.0);
    }
}

fn method(doc: &mut Document, report: &IncomeReport) {
    doc.heading("Method");
    doc.row("Verification method", &label(&report.verification_method));
    if !report.methods_used.is_empty() {
        let used: Vec<String> = report.methods_used.iter().map(label).collect();
        doc.row("Methods used", &used.join(", "));
    }
    if report.methods_used.len() > 1 {
        doc.paragraph(MORE_THAN_ONE_METHOD);
    }
    // Every try when the tenant page routed between methods: why the final method was used.
    if !report.attempts.is_empty() {
        doc.row("Methods tried", "oldest first");
        for a in &report.attempts {
            let when = human_ts(a.at);
            doc.row(
                &format!("   {}", label(&a.method)),
                &format!("{} at {when}", label(&a.outcome)),
            );
        }
    }
    doc.row(
        "Confidence score",
        &format!("{:.2} (0 to 1)", report.confidence_score),
    );
    for f in &report.confidence_factors {
        doc.row(
            &format!("   x {:.3}  {}", f.effect, f.factor.replace('_', " ")),
            &f.detail,
        );
    }
}

fn consent(doc: &mut Document, v: &Verification) {
    doc.heading("Consent");
    doc.row(
        "Tenant consented",
        &v.consented_at.map_or("(not recorded)".into(), human_ts),
    );
    doc.row(
        "Consent text version",
        v.consent_version.as_deref().unwrap_or("(not recorded)"),
    );
}

fn tenant_note(doc: &mut Document, v: &Verification) {
    if let Some(note) = v.tenant_note.as_deref() {
        doc.heading("Note from the tenant");
        doc.paragraph(note);
    }
}

/// `5200.0` as `5,200.00`.
pub fn money(amount: f64) -> String {
    let cents = (amount * 100.0).round() as i64;
    let (sign, cents) = if cents < 0 {
        ("-", -cents)
    } else {
        ("", cents)
    };
    let whole = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{sign}{grouped}.{:02}", cents % 100)
}

/// A timestamp as the report prints it (UTC, to the second), e.g. `2026-11-22 17:35:40 UTC`.
fn human_ts(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_groups_thousands_with_two_decimals() {
        assert_eq!(money(5200.0), "5,200.00");
        assert_eq!(money(1516.666), "1,516.67");
        assert_eq!(money(0.5), "0.50");
        assert_eq!(money(1234567.891), "1,234,567.89");
        assert_eq!(money(-12.0), "-12.00");
    }
}
