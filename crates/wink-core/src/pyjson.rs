//! JSON text exactly as Python's `json.dumps(value, ensure_ascii=False)` writes it
//! (`", "` and `": "` separators), used wherever WINK shows JSON to the model.

use std::io;

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{Formatter, Serializer};

#[derive(Debug, Default)]
struct PythonFormatter;

impl Formatter for PythonFormatter {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }
}

/// Serialize `value` the way Python's `json.dumps(value, ensure_ascii=False)` does.
///
/// ```
/// assert_eq!(wink_core::python_json(&serde_json::json!({"a": [1, 2], "b": "é"})), r#"{"a": [1, 2], "b": "é"}"#);
/// ```
pub fn python_json(value: &Value) -> String {
    let mut out = Vec::with_capacity(64);
    let mut serializer = Serializer::with_formatter(&mut out, PythonFormatter);
    // Serializing a `Value` into memory cannot fail.
    if value.serialize(&mut serializer).is_err() {
        return value.to_string();
    }
    String::from_utf8(out).unwrap_or_else(|_| value.to_string())
}

/// Remove `null` members of objects, recursively (WINK's `dump(value, exclude_none=True)`).
pub fn exclude_none(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), exclude_none(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(exclude_none).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_python_separators() {
        assert_eq!(
            python_json(&json!({"group": {"value": 1}})),
            r#"{"group": {"value": 1}}"#
        );
        assert_eq!(python_json(&json!([])), "[]");
        assert_eq!(python_json(&json!({})), "{}");
        assert_eq!(
            python_json(&json!([{"answer": "first"}, {"answer": "second"}])),
            r#"[{"answer": "first"}, {"answer": "second"}]"#
        );
    }

    #[test]
    fn exclude_none_drops_nulls_recursively() {
        assert_eq!(
            exclude_none(&json!({"a": null, "b": {"c": null, "d": 1}})),
            json!({"b": {"d": 1}})
        );
    }
}
