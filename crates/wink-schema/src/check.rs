//! Checking that a schema is a usable JSON Schema before anything is validated against it:
//! known `type` names, `$ref`s that resolve, `pattern`s that are regular expressions, `enum`s
//! with a value, and closed objects whose required properties are declared (else no value —
//! no model output — can ever satisfy the schema).
//!
//! ```
//! use serde_json::json;
//! let problem = wink_schema::check_schema(&json!({"type": "objectz"})).unwrap_err();
//! assert_eq!(problem.to_string(), "type: unknown type 'objectz' (expected string, integer, number, boolean, object, array or null)");
//! assert!(wink_schema::check_schema(&json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string", "pattern": "^[a-z]+$"}}})).is_ok());
//! ```

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Value};

use crate::keywords::{resolve_ref, type_name};

/// Why a schema is not usable: where in it (dotted key path, empty for the root) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    /// Key path inside the schema (`properties.a.type`); empty at the root.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for SchemaProblem {}

/// The first problem of `schema` (see the module docs), in document order.
pub fn check_schema(schema: &Value) -> Result<(), SchemaProblem> {
    let mut path = Vec::new();
    check(schema, schema, &mut path)
}

/// Keywords whose value is one subschema.
const SINGLE: [&str; 8] = [
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];
/// Keywords whose value is an array of subschemas.
const LISTS: [&str; 5] = ["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// The key path to the node being checked: the schema's own keys, borrowed (issue 22: every
/// tool's schema is checked when a prompt file is loaded).
type KeyPath<'s> = Vec<Cow<'s, str>>;

/// `map[name]`: small maps (most schema objects) are scanned rather than hashed.
fn keyword<'s>(map: &'s Map<String, Value>, name: &str) -> Option<&'s Value> {
    if map.len() <= 8 {
        map.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value)
    } else {
        map.get(name)
    }
}

fn check<'s>(root: &Value, node: &'s Value, path: &mut KeyPath<'s>) -> Result<(), SchemaProblem> {
    let map = match node {
        Value::Bool(_) => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(problem(path, "a schema must be an object or a boolean")),
    };
    check_keywords(root, map, path)?;
    for (key, value) in map {
        path.push(Cow::Borrowed(key));
        let result = match (key.as_str(), value) {
            (k, Value::Object(_) | Value::Bool(_)) if SINGLE.contains(&k) => {
                check(root, value, path)
            }
            (k, Value::Array(items)) if LISTS.contains(&k) => {
                items.iter().enumerate().try_for_each(|(index, item)| {
                    path.push(Cow::Owned(index.to_string()));
                    let result = check(root, item, path);
                    path.pop();
                    result
                })
            }
            (k, Value::Object(members)) if MAPS.contains(&k) => {
                members.iter().try_for_each(|(name, member)| {
                    if k == "patternProperties" {
                        check_regex(name).map_err(|m| problem(path, &m))?;
                    }
                    path.push(Cow::Borrowed(name));
                    let result = check(root, member, path);
                    path.pop();
                    result
                })
            }
            _ => Ok(()),
        };
        path.pop();
        result?;
    }
    Ok(())
}

fn check_keywords<'s>(
    root: &Value,
    map: &Map<String, Value>,
    path: &mut KeyPath<'s>,
) -> Result<(), SchemaProblem> {
    let mut at = |key: &'static str, message: String| {
        path.push(Cow::Borrowed(key));
        let found = problem(path, &message);
        path.pop();
        found
    };
    if let Some(declared) = keyword(map, "type") {
        let names: Vec<&Value> = match declared {
            Value::Array(names) => names.iter().collect(),
            other => vec![other],
        };
        for name in names {
            match name.as_str() {
                Some(text) if type_name(text).is_some() => {}
                Some(text) => {
                    return Err(at(
                        "type",
                        format!(
                            "unknown type '{text}' (expected string, integer, number, boolean, object, array or null)"
                        ),
                    ));
                }
                None => {
                    return Err(at(
                        "type",
                        "type must be a type name or an array of type names".to_owned(),
                    ));
                }
            }
        }
    }
    if let Some(reference) = keyword(map, "$ref") {
        match reference.as_str() {
            Some(text) if resolve_ref(root, text).is_some() => {}
            Some(text) => {
                return Err(at(
                    "$ref",
                    format!("'{text}' does not resolve to a schema in this document"),
                ));
            }
            None => return Err(at("$ref", "$ref must be a string".to_owned())),
        }
    }
    if let Some(pattern) = keyword(map, "pattern") {
        match pattern.as_str() {
            Some(text) => check_regex(text).map_err(|message| at("pattern", message))?,
            None => return Err(at("pattern", "pattern must be a string".to_owned())),
        }
    }
    if let Some(Value::Array(values)) = keyword(map, "enum")
        && values.is_empty()
    {
        return Err(at(
            "enum",
            "enum has no values, so no value can satisfy the schema".to_owned(),
        ));
    }
    if keyword(map, "additionalProperties") == Some(&Value::Bool(false))
        && keyword(map, "patternProperties").is_none()
        && let Some(Value::Array(required)) = keyword(map, "required")
    {
        let declared = keyword(map, "properties").and_then(Value::as_object);
        if let Some(name) = required
            .iter()
            .filter_map(Value::as_str)
            .find(|name| !declared.is_some_and(|d| d.contains_key(*name)))
        {
            return Err(at(
                "required",
                format!(
                    "'{name}' is required but not declared in properties while additionalProperties is false, so no value can satisfy the schema"
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `pattern` parses as a regular expression. Lookaround and backreferences (ECMA-262
/// features the Rust syntax lacks) are accepted.
fn check_regex(pattern: &str) -> Result<(), String> {
    use regex_syntax::ast::ErrorKind;
    match regex_syntax::ast::parse::Parser::new().parse(pattern) {
        Ok(_) => Ok(()),
        Err(error)
            if matches!(
                error.kind(),
                ErrorKind::UnsupportedLookAround | ErrorKind::UnsupportedBackreference
            ) =>
        {
            Ok(())
        }
        Err(error) => Err(format!(
            "'{pattern}' is not a regular expression: {}",
            error.kind()
        )),
    }
}

fn problem(path: &[Cow<'_, str>], message: &str) -> SchemaProblem {
    SchemaProblem {
        path: path.join("."),
        message: message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn first(schema: Value) -> String {
        check_schema(&schema).map_or_else(|p| p.to_string(), |()| "ok".to_owned())
    }

    #[test]
    fn problems_are_named_by_their_key_path() {
        assert_eq!(
            first(json!({"type": "object", "properties": {"a": {"type": ["string", "nul"]}}})),
            "properties.a.type: unknown type 'nul' (expected string, integer, number, boolean, object, array or null)"
        );
        assert_eq!(
            first(json!({"properties": {"a": {"$ref": "#/$defs/Missing"}}})),
            "properties.a.$ref: '#/$defs/Missing' does not resolve to a schema in this document"
        );
        assert_eq!(
            first(json!({"items": {"type": "string", "pattern": "([a-z"}})),
            "items.pattern: '([a-z' is not a regular expression: unclosed character class"
        );
        assert_eq!(
            first(json!({"anyOf": [{"type": "string"}, {"enum": []}]})),
            "anyOf.1.enum: enum has no values, so no value can satisfy the schema"
        );
        assert_eq!(
            first(
                json!({"type": "object", "properties": {"a": {}}, "required": ["a", "b"], "additionalProperties": false})
            ),
            "required: 'b' is required but not declared in properties while additionalProperties is false, so no value can satisfy the schema"
        );
        assert_eq!(
            first(json!({"patternProperties": {"(": {}}})),
            "patternProperties: '(' is not a regular expression: unclosed group"
        );
        assert_eq!(
            first(json!({"properties": {"a": 3}})),
            "properties.a: a schema must be an object or a boolean"
        );
    }

    #[test]
    fn usable_schemas_pass() {
        for schema in [
            json!({}),
            json!(true),
            json!({"type": "dict"}),
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}),
            json!({"type": "string", "pattern": "^(?=.*[0-9])\\w+\\/x$"}),
            json!({"$ref": "#", "$defs": {}}),
            json!({"items": [{"type": "string"}, {"type": "number"}]}),
            json!({"properties": {"x": {"type": "object", "properties": {}, "required": ["y"]}}}),
        ] {
            assert_eq!(first(schema.clone()), "ok", "{schema}");
        }
    }
}
