//! JSON text exactly as Python's `json.dumps(value, ensure_ascii=False)` writes it
//! (`", "` and `": "` separators), used wherever WINK shows JSON to the model.

use serde_json::Value;

/// Serialize `value` the way Python's `json.dumps(value, ensure_ascii=False)` does
/// (delegates to [`wink_schema::python::dumps`], the one implementation in the workspace).
///
/// ```
/// assert_eq!(wink_core::python_json(&serde_json::json!({"a": [1, 2], "b": "é"})), r#"{"a": [1, 2], "b": "é"}"#);
/// ```
pub fn python_json(value: &Value) -> String {
    wink_schema::python::dumps(value, false)
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
