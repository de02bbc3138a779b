use super::*;

fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

#[test]
fn amounts_need_two_decimals_and_honest_grouping() {
    assert_eq!(money("$1,234.56"), Some(123_456));
    assert_eq!(money("(12.00)"), Some(-1_200));
    assert_eq!(money("-200.00"), Some(-20_000));
    assert_eq!(money("1234.5"), None);
    assert_eq!(money("25.0000"), None);
    assert_eq!(money("12,34.00"), None);
    assert_eq!(money("2026"), None);
    assert_eq!(
        amounts("Gross Pay $2,000.00 $44,000.00"),
        [200_000, 4_400_000]
    );
}

#[test]
fn dates_read_in_the_common_us_forms() {
    assert_eq!(date("Pay Date: 11/06/2026"), Some(d("2026-11-06")));
    assert_eq!(date("11/06/26"), Some(d("2026-11-06")));
    assert_eq!(date("2026-11-06"), Some(d("2026-11-06")));
    assert_eq!(
        dates("Oct 19, 2026 – Nov 1, 2026"),
        [d("2026-10-19"), d("2026-11-01")]
    );
    assert_eq!(date("Effective December 1, 2026."), Some(d("2026-12-01")));
    assert_eq!(date("Mayor 3, 2026"), None);
    assert_eq!(date("13/40/2026"), None);
}
