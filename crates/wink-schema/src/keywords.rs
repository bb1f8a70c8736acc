//! Small helpers shared by the validator and the dialect normaliser: JSON type
//! names (including BFCL's non-standard aliases), `$ref` resolution and JSON
//! equality.

use serde_json::{Map, Value};

/// What a `"type"` name stands for after alias resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypeName {
    /// One of the seven JSON Schema type names.
    Json(&'static str),
    /// No constraint (BFCL's `"any"`).
    Any,
}

/// Maps a `"type"` name to its JSON Schema meaning. Accepts the standard names
/// and the aliases found in hand-written and BFCL schemas (`dict`, `float`,
/// `tuple`, `any`, plus Python's `str`, `int`, `bool`, `list`), case-insensitively.
pub(crate) fn type_name(name: &str) -> Option<TypeName> {
    // Compared without lowercasing a copy (issue 22: every tool schema's types are checked).
    const ALIASES: [(&str, &str); 19] = [
        ("null", "null"),
        ("none", "null"),
        ("boolean", "boolean"),
        ("bool", "boolean"),
        ("object", "object"),
        ("dict", "object"),
        ("map", "object"),
        ("mapping", "object"),
        ("array", "array"),
        ("tuple", "array"),
        ("list", "array"),
        ("set", "array"),
        ("number", "number"),
        ("float", "number"),
        ("double", "number"),
        ("string", "string"),
        ("str", "string"),
        ("integer", "integer"),
        ("int", "integer"),
    ];
    let name = name.trim();
    if name.eq_ignore_ascii_case("any") {
        return Some(TypeName::Any);
    }
    ALIASES
        .iter()
        .find(|(alias, _)| name.eq_ignore_ascii_case(alias))
        .map(|(_, canonical)| TypeName::Json(canonical))
}

/// The JSON type of a value (`"integer"` for integral numbers).
pub(crate) fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(number) => {
            if is_integral(number) {
                "integer"
            } else {
                "number"
            }
        }
    }
}

/// Whether a number is an integer in the JSON Schema sense (`5` and `5.0`).
pub(crate) fn is_integral(number: &serde_json::Number) -> bool {
    if number.is_i64() || number.is_u64() {
        return true;
    }
    number
        .as_f64()
        .is_some_and(|float| float.is_finite() && float.fract() == 0.0)
}

/// Whether `value` is an instance of the JSON type `json_type`.
pub(crate) fn value_has_type(value: &Value, json_type: &str) -> bool {
    match json_type {
        "number" => value.is_number(),
        other => type_of(value) == other,
    }
}

/// Resolves a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any JSON
/// pointer into the root document).
pub(crate) fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    if !pointer.starts_with('/') {
        return None;
    }
    let decoded = percent_decode(pointer)?;
    root.pointer(&decoded)
}

fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// JSON equality where numbers compare by value (`1 == 1.0`).
pub(crate) fn json_equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(a), Value::Number(b)) => {
            if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
                return x == y;
            }
            if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
                return x == y;
            }
            match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, x)| b.get(key).is_some_and(|y| json_equal(x, y)))
        }
        _ => left == right,
    }
}

/// Inserts `key` right after `after` (or at the end when `after` is absent),
/// replacing an existing entry in place.
pub(crate) fn insert_after(map: &mut Map<String, Value>, after: &str, key: &str, value: Value) {
    if let Some(slot) = map.get_mut(key) {
        *slot = value;
        return;
    }
    if !map.contains_key(after) {
        map.insert(key.to_owned(), value);
        return;
    }
    let entries = std::mem::take(map);
    let mut pending = Some(value);
    for (existing_key, existing_value) in entries {
        let is_anchor = existing_key == after;
        map.insert(existing_key, existing_value);
        if is_anchor && let Some(value) = pending.take() {
            map.insert(key.to_owned(), value);
        }
    }
}

/// Inserts `key` as the first entry (replacing an existing entry in place).
pub(crate) fn insert_first(map: &mut Map<String, Value>, key: &str, value: Value) {
    if let Some(slot) = map.get_mut(key) {
        *slot = value;
        return;
    }
    let entries = std::mem::take(map);
    map.insert(key.to_owned(), value);
    map.extend(entries);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_local_pointers() {
        let root = json!({"$defs": {"A": {"type": "string"}, "a/b": {"type": "integer"}},
                          "definitions": {"B": {"type": "number"}}});
        assert_eq!(
            resolve_ref(&root, "#/$defs/A"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            resolve_ref(&root, "#/definitions/B"),
            Some(&json!({"type": "number"}))
        );
        assert_eq!(
            resolve_ref(&root, "#/$defs/a~1b"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(resolve_ref(&root, "#"), Some(&root));
        assert_eq!(resolve_ref(&root, "#/$defs/Missing"), None);
        assert_eq!(resolve_ref(&root, "other.json#/x"), None);
    }

    #[test]
    fn maps_type_aliases() {
        assert_eq!(type_name("dict"), Some(TypeName::Json("object")));
        assert_eq!(type_name("float"), Some(TypeName::Json("number")));
        assert_eq!(type_name("tuple"), Some(TypeName::Json("array")));
        assert_eq!(type_name("any"), Some(TypeName::Any));
        assert_eq!(type_name("String"), Some(TypeName::Json("string")));
        assert_eq!(type_name("widget"), None);
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_equal(&json!(1), &json!(1.0)));
        assert!(json_equal(&json!({"a": [1]}), &json!({"a": [1.0]})));
        assert!(!json_equal(&json!(true), &json!(1)));
        assert_eq!(type_of(&json!(5.0)), "integer");
        assert_eq!(type_of(&json!(5.5)), "number");
    }

    #[test]
    fn inserts_at_positions() {
        let mut map = json!({"type": "object", "properties": {}, "required": []});
        let object = map.as_object_mut().unwrap();
        insert_after(object, "properties", "additionalProperties", json!(false));
        insert_first(object, "title", json!("T"));
        assert_eq!(
            serde_json::to_string(&map).unwrap(),
            r#"{"title":"T","type":"object","properties":{},"additionalProperties":false,"required":[]}"#
        );
    }
}
