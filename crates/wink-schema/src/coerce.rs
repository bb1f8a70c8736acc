//! WINK's lenient scalar coercion, guided by a schema.
//!
//! WINK parses model-produced JSON with `coerce=True`: a field declared `int`
//! accepts `"42"`, a `bool` accepts `"true"`, a `str` accepts `7`. [`coerce`]
//! applies the same conversions to a [`Value`] before validation, so that
//! `{"views": "42", "featured": "true"}` reads as `{"views": 42, "featured": true}`.
//!
//! | Schema type | Accepted and converted |
//! |---|---|
//! | `integer` | a string holding an integer (`" 42 "`, `"+7"`) |
//! | `number` | a string holding a finite number (`"0.9"`, `"1e3"`) |
//! | `boolean` | `"true"`/`"1"`/`"yes"`/`"on"`, `"false"`/`"0"`/`"no"`/`"off"` (any case, trimmed); a number (non-zero is `true`) |
//! | `string` | a number or boolean, as Python's `str()` prints it (`7`, `2.5`, `True`) |
//! | `array` | a string, wrapped into a one-element array |
//! | nullable (`[T, "null"]`, `anyOf` with `null`) | a blank string becomes `null` |
//! | `enum` / `const` | a value that converts to one of the options (`"1"` for `[1, 2]`) |
//!
//! Alternatives (`anyOf`, `oneOf`, type arrays) are tried in order and the first
//! that converts the value into something valid wins, as WINK tries the members
//! of a union. Anything that cannot be converted is left as it is, for the
//! validator to report.
//!
//! ```
//! use serde_json::json;
//! use wink_schema::coerce::coerce;
//!
//! let schema = json!({"type": "object", "properties": {
//!     "views": {"type": "integer"}, "featured": {"type": ["boolean", "null"]}
//! }});
//! assert_eq!(
//!     coerce(&schema, &json!({"views": "42", "featured": "true"})),
//!     json!({"views": 42, "featured": true})
//! );
//! ```

use crate::keywords::{TypeName, json_equal, resolve_ref, type_name, value_has_type};
use crate::python;
use crate::validate::{ValidationOptions, collect_errors_within};
use serde_json::{Map, Number, Value};

/// How many `$ref` hops may be followed without descending into the value.
const MAX_REFERENCE_HOPS: usize = 64;

/// Returns `value` with WINK's scalar coercions applied where `schema` asks for
/// another type. `$ref`s resolve against `schema`.
#[must_use]
pub fn coerce(schema: &Value, value: &Value) -> Value {
    Coercer { root: schema }.coerce(schema, value, 0)
}

struct Coercer<'a> {
    root: &'a Value,
}

impl<'a> Coercer<'a> {
    fn coerce(&self, schema: &'a Value, value: &Value, hops: usize) -> Value {
        let Some(schema) = schema.as_object() else {
            return value.clone();
        };
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if hops >= MAX_REFERENCE_HOPS {
                return value.clone();
            }
            if let Some(target) = resolve_ref(self.root, reference) {
                let coerced = self.coerce(target, value, hops + 1);
                return self.coerce_here(schema, &coerced, hops);
            }
        }
        self.coerce_here(schema, value, hops)
    }

    fn coerce_here(&self, schema: &'a Map<String, Value>, value: &Value, hops: usize) -> Value {
        let branches: Vec<&'a Value> = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| schema.get(*key).and_then(Value::as_array))
            .flatten()
            .collect();
        if !branches.is_empty() && !schema.contains_key("type") {
            return self.coerce_union(&branches, value, hops);
        }
        let value = self.coerce_type(schema, value);
        let value = coerce_to_options(schema, value);
        match value {
            Value::Object(map) => Value::Object(self.coerce_members(schema, map)),
            Value::Array(items) => Value::Array(self.coerce_items(schema, items)),
            scalar => scalar,
        }
    }

    /// WINK's union: a blank string is `null` when `null` is allowed; otherwise
    /// the first alternative that yields a valid value wins.
    fn coerce_union(&self, branches: &[&'a Value], value: &Value, hops: usize) -> Value {
        let nullable = branches.iter().any(|branch| self.admits_null(branch));
        if nullable && is_blank(value) {
            return Value::Null;
        }
        if value.is_null() {
            return Value::Null;
        }
        let options = ValidationOptions {
            allow_extra_keys: true,
        };
        for branch in branches {
            if self.admits_null(branch) && !self.admits_more_than_null(branch) {
                continue;
            }
            let candidate = self.coerce(branch, value, hops);
            if collect_errors_within(self.root, branch, &candidate, &options, Vec::new()).is_empty()
            {
                return candidate;
            }
        }
        value.clone()
    }

    fn admits_null(&self, schema: &Value) -> bool {
        self.types_of(schema).contains(&"null")
    }

    fn admits_more_than_null(&self, schema: &Value) -> bool {
        let types = self.types_of(schema);
        types.is_empty() || types.iter().any(|json_type| *json_type != "null")
    }

    /// The declared JSON types of a schema, following `$ref`s.
    fn types_of(&self, schema: &Value) -> Vec<&'static str> {
        let mut current = schema;
        for _ in 0..MAX_REFERENCE_HOPS {
            let Some(map) = current.as_object() else {
                return Vec::new();
            };
            if let Some(declared) = map.get("type") {
                return declared_types(declared);
            }
            match map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| resolve_ref(self.root, reference))
            {
                Some(target) => current = target,
                None => return Vec::new(),
            }
        }
        Vec::new()
    }

    fn coerce_type(&self, schema: &Map<String, Value>, value: &Value) -> Value {
        let Some(declared) = schema.get("type") else {
            return value.clone();
        };
        let types = declared_types(declared);
        if types.is_empty()
            || types
                .iter()
                .any(|json_type| value_has_type(value, json_type))
        {
            return value.clone();
        }
        if types.contains(&"null") && types.len() > 1 && is_blank(value) {
            return Value::Null;
        }
        types
            .iter()
            .find_map(|json_type| coerce_scalar(value, json_type))
            .unwrap_or_else(|| value.clone())
    }

    fn coerce_members(
        &self,
        schema: &'a Map<String, Value>,
        mut map: Map<String, Value>,
    ) -> Map<String, Value> {
        let properties = schema.get("properties").and_then(Value::as_object);
        let additional = schema
            .get("additionalProperties")
            .filter(|value| value.is_object());
        for (key, member) in &mut map {
            let member_schema = properties
                .and_then(|properties| properties.get(key))
                .or(additional);
            if let Some(member_schema) = member_schema {
                *member = self.coerce(member_schema, member, 0);
            }
        }
        map
    }

    fn coerce_items(&self, schema: &'a Map<String, Value>, items: Vec<Value>) -> Vec<Value> {
        let (positional, rest): (&[Value], Option<&Value>) =
            match (schema.get("prefixItems"), schema.get("items")) {
                (Some(Value::Array(prefix)), rest) => (prefix.as_slice(), rest),
                (_, Some(Value::Array(prefix))) => {
                    (prefix.as_slice(), schema.get("additionalItems"))
                }
                (_, rest) => (&[], rest),
            };
        items
            .into_iter()
            .enumerate()
            .map(|(index, item)| match positional.get(index).or(rest) {
                Some(item_schema) => self.coerce(item_schema, &item, 0),
                None => item,
            })
            .collect()
    }
}

fn declared_types(declared: &Value) -> Vec<&'static str> {
    let names: Vec<&Value> = match declared {
        Value::Array(names) => names.iter().collect(),
        other => vec![other],
    };
    let mut types = Vec::new();
    for name in names.iter().filter_map(|name| name.as_str()) {
        match type_name(name) {
            Some(TypeName::Json(json_type)) => types.push(json_type),
            Some(TypeName::Any) | None => return Vec::new(),
        }
    }
    types
}

fn is_blank(value: &Value) -> bool {
    value.as_str().is_some_and(|text| text.trim().is_empty())
}

/// One of WINK's primitive coercions, or `None` when it does not apply.
fn coerce_scalar(value: &Value, json_type: &str) -> Option<Value> {
    match (json_type, value) {
        ("integer", Value::String(text)) => text.trim().parse::<i64>().ok().map(Value::from),
        ("number", Value::String(text)) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|number| number.is_finite())
            .and_then(Number::from_f64)
            .map(Value::Number),
        ("boolean", Value::String(text)) => match text.trim().to_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Some(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Some(Value::Bool(false)),
            _ => None,
        },
        ("boolean", Value::Number(number)) => {
            number.as_f64().map(|float| Value::Bool(float != 0.0))
        }
        ("string", Value::Number(number)) => Some(Value::String(python::number_repr(number))),
        ("string", Value::Bool(flag)) => Some(Value::String(
            if *flag { "True" } else { "False" }.to_owned(),
        )),
        ("array", Value::String(_)) => Some(Value::Array(vec![value.clone()])),
        _ => None,
    }
}

/// `enum`/`const`: a value that is not an option but converts to one becomes it.
fn coerce_to_options(schema: &Map<String, Value>, value: Value) -> Value {
    let mut options: Vec<&Value> = Vec::new();
    if let Some(Value::Array(listed)) = schema.get("enum") {
        options.extend(listed);
    }
    if let Some(constant) = schema.get("const") {
        options.push(constant);
    }
    if options.is_empty() || options.iter().any(|option| json_equal(option, &value)) {
        return value;
    }
    for option in options {
        let json_type = crate::keywords::type_of(option);
        let converted = coerce_scalar(&value, json_type).or_else(|| {
            (json_type == "integer")
                .then(|| coerce_scalar(&value, "number"))
                .flatten()
        });
        if let Some(converted) = converted
            && json_equal(&converted, option)
        {
            return option.clone();
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_follow_wink_coercions() {
        let schema = json!({"type": "object", "properties": {
            "i": {"type": "integer"}, "n": {"type": "number"}, "b": {"type": "boolean"},
            "s": {"type": "string"}, "t": {"type": "string"}, "l": {"type": "array", "items": {"type": "string"}},
            "bn": {"type": "boolean"}, "bad": {"type": "integer"}
        }});
        let value = json!({"i": " 42 ", "n": "0.9", "b": "Yes", "s": 7, "t": true, "l": "one", "bn": 0, "bad": "4.5"});
        assert_eq!(
            coerce(&schema, &value),
            json!({"i": 42, "n": 0.9, "b": true, "s": "7", "t": "True", "l": ["one"], "bn": false, "bad": "4.5"})
        );
    }

    #[test]
    fn unions_try_alternatives_in_order() {
        let schema = json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "b": {"type": ["integer", "null"]},
            "c": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "d": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]},
            "e": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
        }, "$defs": {"P": {"type": "object", "properties": {"x": {"type": "integer"}}}}});
        let value = json!({"a": "5", "b": "  ", "c": "", "d": {"x": "3"}, "e": "true"});
        assert_eq!(
            coerce(&schema, &value),
            json!({"a": 5, "b": null, "c": null, "d": {"x": 3}, "e": true})
        );
    }

    #[test]
    fn enum_options_are_matched_after_conversion() {
        let schema = json!({"type": "object", "properties": {
            "n": {"enum": [1, 2]}, "k": {"const": true}, "s": {"enum": ["1", "2"]}
        }});
        assert_eq!(
            coerce(&schema, &json!({"n": "2", "k": "on", "s": 1})),
            json!({"n": 2, "k": true, "s": "1"})
        );
    }

    #[test]
    fn nested_arrays_and_refs() {
        let schema = json!({"type": "array", "items": {"$ref": "#/$defs/Item"},
            "$defs": {"Item": {"type": "object", "properties": {"score": {"type": "number"}}}}});
        assert_eq!(
            coerce(&schema, &json!([{"score": "0.5"}, {"score": 1}])),
            json!([{"score": 0.5}, {"score": 1}])
        );
    }
}
