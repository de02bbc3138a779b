//! The landlord's review of a verification's documents (POST /api/v1/verify/review): accepted or
//! rejected, with a note, kept in the report beside the documents it judges
//! (`IncomeReport::document_review`). One review per report: the first one stands, so the PDF, the
//! JSON and every later reader show the same decision. No I/O.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::FieldError;
use crate::ts;

/// The longest review note, in characters (as long as the tenant's note).
pub const REVIEW_NOTE_MAX_CHARS: usize = 500;

/// What the landlord decided about the documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewDecision {
    Accepted,
    Rejected,
}

impl ReviewDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewDecision::Accepted => "accepted",
            ReviewDecision::Rejected => "rejected",
        }
    }
}

/// A recorded review, as the report keeps and shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentReview {
    pub decision: ReviewDecision,
    /// Trimmed, line breaks as `\n`, 1 to `REVIEW_NOTE_MAX_CHARS` characters.
    pub note: String,
    #[serde(with = "ts")]
    pub reviewed_at: DateTime<Utc>,
}

/// The review a request body asks for, at `now`: `decision` (`accepted` or `rejected`) and `note`
/// (required, at most `REVIEW_NOTE_MAX_CHARS`, no control characters but line breaks and tabs).
/// Every field problem is told at once; messages name fields, never their values.
pub fn review_of(body: &Value, now: DateTime<Utc>) -> Result<DocumentReview, Vec<FieldError>> {
    let Some(body) = body.as_object() else {
        return Err(vec![FieldError::new(
            "body",
            "invalid_type",
            "The body must be a JSON object",
        )]);
    };
    let mut errors = Vec::new();
    let decision = match body.get("decision") {
        None | Some(Value::Null) => {
            errors.push(FieldError::new(
                "decision",
                "required",
                "decision is required",
            ));
            None
        }
        Some(Value::String(d)) if d == "accepted" => Some(ReviewDecision::Accepted),
        Some(Value::String(d)) if d == "rejected" => Some(ReviewDecision::Rejected),
        Some(_) => {
            errors.push(FieldError::new(
                "decision",
                "invalid",
                "decision must be \"accepted\" or \"rejected\"",
            ));
            None
        }
    };
    let note = match body.get("note") {
        None | Some(Value::Null) => Err(("required", "note is required".to_string())),
        Some(Value::String(n)) => note_of(n),
        Some(_) => Err(("invalid_type", "note must be a string".to_string())),
    };
    let note = note
        .map_err(|(code, message)| errors.push(FieldError::new("note", code, message)))
        .ok();
    match (decision, note) {
        (Some(decision), Some(note)) if errors.is_empty() => Ok(DocumentReview {
            decision,
            note,
            reviewed_at: now,
        }),
        _ => Err(errors),
    }
}

/// The note as it is kept, or the field problem. The bounds are the sent text's, as the OpenAPI
/// file states them: 1 to 500 characters, no control character but line breaks and tabs, and
/// something besides spaces. Kept trimmed, with each line break as `\n`.
fn note_of(sent: &str) -> Result<String, (&'static str, String)> {
    if sent.chars().count() > REVIEW_NOTE_MAX_CHARS {
        return Err((
            "too_long",
            format!("note must be at most {REVIEW_NOTE_MAX_CHARS} characters"),
        ));
    }
    if sent
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(("invalid", "note must not contain control characters".into()));
    }
    let note = sent.replace("\r\n", "\n").replace('\r', "\n");
    let note = note.trim();
    if note.is_empty() {
        return Err(("required", "note must not be empty".into()));
    }
    Ok(note.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        "2026-11-26T12:00:00Z".parse().unwrap()
    }

    #[test]
    fn a_decision_and_a_note_make_a_review() {
        let review = review_of(
            &json!({"decision": "rejected", "note": "  Net pay edited.\r\nSee stub 2.  "}),
            now(),
        )
        .unwrap();
        assert_eq!(review.decision, ReviewDecision::Rejected);
        assert_eq!(review.note, "Net pay edited.\nSee stub 2.");
        assert_eq!(review.reviewed_at, now());
    }

    #[test]
    fn every_field_problem_is_told_at_once() {
        let fields = |body: Value| -> Vec<(String, &'static str)> {
            review_of(&body, now())
                .unwrap_err()
                .into_iter()
                .map(|e| (e.field, e.code))
                .collect()
        };
        assert_eq!(
            fields(json!({})),
            [("decision".into(), "required"), ("note".into(), "required")]
        );
        assert_eq!(
            fields(json!({"decision": "maybe", "note": " "})),
            [("decision".into(), "invalid"), ("note".into(), "required")]
        );
        let long = "x".repeat(REVIEW_NOTE_MAX_CHARS + 1);
        assert_eq!(
            fields(json!({"decision": "accepted", "note": long})),
            [("note".into(), "too_long")]
        );
        assert_eq!(
            fields(json!({"decision": "accepted", "note": "bell\u{7}"})),
            [("note".into(), "invalid")]
        );
        assert_eq!(
            fields(json!({"decision": "accepted", "note": 5})),
            [("note".into(), "invalid_type")]
        );
        assert_eq!(fields(json!([1])), [("body".into(), "invalid_type")]);
        let at_most = "x".repeat(REVIEW_NOTE_MAX_CHARS);
        assert!(review_of(&json!({"decision": "accepted", "note": at_most}), now()).is_ok());
        // The bounds are the sent text's (the OpenAPI file's maxLength): padding counts.
        let padded = format!(" {}", "x".repeat(REVIEW_NOTE_MAX_CHARS));
        assert_eq!(
            fields(json!({"decision": "accepted", "note": padded})),
            [("note".into(), "too_long")]
        );
        assert_eq!(
            fields(json!({"decision": "accepted", "note": "\u{85}"})),
            [("note".into(), "invalid")]
        );
        let review = review_of(&json!({"decision": "accepted", "note": "a\rb\tc"}), now());
        assert_eq!(review.unwrap().note, "a\nb\tc");
    }
}
