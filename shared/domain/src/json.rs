//! Reading a stored or uploaded JSON document, with an error that names the field at fault.

use serde::de::DeserializeOwned;

/// Parses `body` as a `T`. The error names the path of the field at fault (`sources[0].amount:
/// invalid type ...`), or only the cause when the document itself is malformed.
pub fn parse_naming_field<T: DeserializeOwned>(body: &str) -> Result<T, String> {
    let de = &mut serde_json::Deserializer::from_str(body);
    serde_path_to_error::deserialize(de).map_err(|e| match e.path().to_string().as_str() {
        // `.` is the document itself; `?` a place the parser had not named yet.
        "." | "?" => e.inner().to_string(),
        path => format!("{path}: {}", e.inner()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Doc {
        #[allow(dead_code)]
        items: Vec<Item>,
    }

    #[derive(Debug, serde::Deserialize)]
    struct Item {
        #[allow(dead_code)]
        amount: f64,
    }

    #[test]
    fn the_error_names_the_field_at_fault() {
        let err = parse_naming_field::<Doc>(r#"{"items": [{"amount": 1}, {"amount": "x"}]}"#)
            .unwrap_err();
        assert!(err.starts_with("items[1].amount: invalid type"), "{err}");
    }

    #[test]
    fn a_malformed_document_gets_only_its_cause() {
        let err = parse_naming_field::<Doc>("{").unwrap_err();
        assert!(err.starts_with("EOF while parsing"), "{err}");
    }
}
