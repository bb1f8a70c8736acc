//! JSON Schema validation of model-produced values (tool arguments, structured
//! output).
//!
//! The validator covers the subset of JSON Schema that tool and output schemas use
//! (schemars 1.x output, hand-written schemas, BFCL's dialect) and reports **every**
//! problem at once, so a model can fix all of them in one retry. Messages follow
//! WINK's serde wording: a problem inside a field is prefixed with the field's
//! path (`outer.inner`, `items[0].name`), top-level problems are not.
//!
//! | Situation | Message |
//! |---|---|
//! | required property absent | `Missing required field: 'query'` |
//! | undeclared properties | `Extra keys not permitted: ['x', 'y']` (payload order) |
//! | wrong type | `count: expected integer`, `tags: expected array or null` |
//! | `null` where not allowed | `name: value cannot be null` |
//! | `enum` / `const` | `mode: expected one of ['fast', 'slow']`, `kind: expected 'file'` |
//! | `minimum` … `exclusiveMaximum` | `n: must be >= 1`, `must be > 0`, `must be <= 9`, `must be < 10` |
//! | `minLength`/`maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties` | `q: length must be >= 1`, `length must be <= 5` |
//! | `multipleOf` | `n: must be a multiple of 5` |
//! | `uniqueItems` | `tags: items must be unique` |
//! | `oneOf` matching several branches | `v: matches more than one schema in oneOf` |
//! | `not` | `v: must not match the schema in 'not'`, or `may not be one of [...]` for an enum |
//!
//! Type names are JSON Schema's (`string`, `integer`, `number`, `boolean`,
//! `object`, `array`, `null`) where WINK printed Python's, and `null` replaces
//! Python's `None`; everything else is WINK's text.
//!
//! Extra keys: an object schema that declares `properties` but no
//! `additionalProperties` (nor `patternProperties`) is **closed** — WINK forbids
//! extras by default — unless [`ValidationOptions::allow_extra_keys`] is set. An
//! object schema without `properties` is an open map. `pattern` and `format` are
//! annotations here (not enforced); `patternProperties` makes the object open.
//! BFCL's `"optional": true` on a property overrides `required`.

use crate::keywords::{TypeName, json_equal, resolve_ref, type_name, value_has_type};
use crate::python;
use serde_json::{Map, Number, Value};
use std::fmt;

/// How many `$ref` hops may be followed without descending into the value; more
/// means the schema's references form a cycle.
const MAX_REFERENCE_HOPS: usize = 64;

/// Options for [`validate_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValidationOptions {
    /// Accept undeclared keys in object schemas that declare `properties` but say
    /// nothing about `additionalProperties`. Explicit `additionalProperties: false`
    /// is always enforced.
    pub allow_extra_keys: bool,
}

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// One validation problem and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// Where the problem is, from the validated value's root.
    pub path: Vec<PathSegment>,
    /// What is wrong, without the path prefix.
    pub message: String,
}

impl ValidationError {
    /// Creates an error at `path`.
    #[must_use]
    pub fn new(path: Vec<PathSegment>, message: impl Into<String>) -> Self {
        Self {
            path,
            message: message.into(),
        }
    }

    /// The path as WINK prints it: `outer.inner`, `items[0].name`; empty at the root.
    #[must_use]
    pub fn path_string(&self) -> String {
        format_path(&self.path)
    }

    /// The path as an RFC 6901 JSON Pointer (`/outer/inner`, `/items/0/name`).
    #[must_use]
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in &self.path {
            out.push('/');
            match segment {
                PathSegment::Key(key) => out.push_str(&key.replace('~', "~0").replace('/', "~1")),
                PathSegment::Index(index) => out.push_str(&index.to_string()),
            }
        }
        out
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            formatter.write_str(&self.message)
        } else {
            write!(formatter, "{}: {}", self.path_string(), self.message)
        }
    }
}

/// Every problem found in one value; never empty when returned as an error.
/// `Display` joins the problems with `"; "`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationErrors {
    errors: Vec<ValidationError>,
}

impl ValidationErrors {
    /// Wraps a list of problems.
    #[must_use]
    pub fn new(errors: Vec<ValidationError>) -> Self {
        Self { errors }
    }

    /// The problems, in the order they were found (schema property order).
    #[must_use]
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }

    /// Iterates over the problems.
    pub fn iter(&self) -> std::slice::Iter<'_, ValidationError> {
        self.errors.iter()
    }

    /// Number of problems.
    #[must_use]
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Whether there is no problem.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The problems as a vector.
    #[must_use]
    pub fn into_vec(self) -> Vec<ValidationError> {
        self.errors
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.errors.iter().enumerate() {
            if index > 0 {
                formatter.write_str("; ")?;
            }
            fmt::Display::fmt(error, formatter)?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}

impl<'a> IntoIterator for &'a ValidationErrors {
    type Item = &'a ValidationError;
    type IntoIter = std::slice::Iter<'a, ValidationError>;

    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

impl IntoIterator for ValidationErrors {
    type Item = ValidationError;
    type IntoIter = std::vec::IntoIter<ValidationError>;

    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

/// Validates `value` against `schema` with WINK's defaults (extra keys forbidden).
///
/// # Errors
/// Every problem found, see the module documentation for the messages.
pub fn validate(schema: &Value, value: &Value) -> Result<(), ValidationErrors> {
    validate_with(schema, value, &ValidationOptions::default())
}

/// Validates `value` against `schema`.
///
/// # Errors
/// Every problem found, see the module documentation for the messages.
pub fn validate_with(
    schema: &Value,
    value: &Value,
    options: &ValidationOptions,
) -> Result<(), ValidationErrors> {
    let errors = collect_errors(schema, value, options, Vec::new());
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ValidationErrors::new(errors))
    }
}

/// Validates `value` as if it sat at `base_path` inside a larger document; `$ref`s
/// resolve against `schema`.
pub(crate) fn collect_errors(
    schema: &Value,
    value: &Value,
    options: &ValidationOptions,
    base_path: Vec<PathSegment>,
) -> Vec<ValidationError> {
    collect_errors_within(schema, schema, value, options, base_path)
}

/// Validates `value` against `schema`, a part of the document `root` that its
/// `$ref`s resolve against.
pub(crate) fn collect_errors_within(
    root: &Value,
    schema: &Value,
    value: &Value,
    options: &ValidationOptions,
    base_path: Vec<PathSegment>,
) -> Vec<ValidationError> {
    let mut validator = Validator {
        root,
        options,
        errors: Vec::new(),
        path: base_path,
    };
    validator.check(schema, value, 0);
    validator.errors
}

fn format_path(path: &[PathSegment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            PathSegment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            PathSegment::Index(index) => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
    out
}

struct Validator<'a> {
    root: &'a Value,
    options: &'a ValidationOptions,
    errors: Vec<ValidationError>,
    path: Vec<PathSegment>,
}

impl<'a> Validator<'a> {
    fn fail(&mut self, message: impl Into<String>) {
        self.errors
            .push(ValidationError::new(self.path.clone(), message));
    }

    fn check(&mut self, schema: &'a Value, value: &Value, reference_hops: usize) {
        let schema = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                self.fail("no value is permitted here");
                return;
            }
            Value::Object(schema) => schema,
            // Not a schema: nothing to check against.
            _ => return,
        };

        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if reference_hops >= MAX_REFERENCE_HOPS {
                self.fail(format!("schema reference cycle at '{reference}'"));
                return;
            }
            match resolve_ref(self.root, reference) {
                Some(target) => self.check(target, value, reference_hops + 1),
                None => {
                    self.fail(format!("unresolvable schema reference '{reference}'"));
                    return;
                }
            }
        }

        if !self.check_type(schema, value) {
            return;
        }
        self.check_enum_and_const(schema, value);
        match value {
            Value::Number(number) => self.check_number(schema, number),
            Value::String(text) => {
                self.check_length(schema, "minLength", "maxLength", text.chars().count());
            }
            Value::Array(items) => self.check_array(schema, items),
            Value::Object(map) => self.check_object(schema, map),
            Value::Null | Value::Bool(_) => {}
        }
        self.check_combinators(schema, value, reference_hops);
    }

    /// Returns `false` (after recording the problem) when the value's type is not
    /// admitted, so that no further noise is reported for it.
    fn check_type(&mut self, schema: &Map<String, Value>, value: &Value) -> bool {
        let Some(declared) = schema.get("type") else {
            return true;
        };
        let names: Vec<&Value> = match declared {
            Value::Array(names) => names.iter().collect(),
            other => vec![other],
        };
        let mut expected: Vec<&'static str> = Vec::new();
        for name in names {
            let Some(text) = name.as_str() else {
                self.fail(format!(
                    "schema declares an invalid type {}",
                    python::repr(name)
                ));
                return false;
            };
            match type_name(text) {
                Some(TypeName::Any) => return true,
                Some(TypeName::Json(json_type)) => {
                    if value_has_type(value, json_type) {
                        return true;
                    }
                    if !expected.contains(&json_type) {
                        expected.push(json_type);
                    }
                }
                None => {
                    self.fail(format!("schema declares unknown type '{text}'"));
                    return false;
                }
            }
        }
        if expected.is_empty() {
            return true;
        }
        self.fail(type_mismatch_message(value, &expected));
        false
    }

    fn check_enum_and_const(&mut self, schema: &Map<String, Value>, value: &Value) {
        if let Some(Value::Array(options)) = schema.get("enum")
            && !options.iter().any(|option| json_equal(option, value))
        {
            self.fail(format!(
                "expected one of {}",
                python::repr(&Value::Array(options.clone()))
            ));
        }
        if let Some(constant) = schema.get("const")
            && !json_equal(constant, value)
        {
            self.fail(format!("expected {}", python::repr(constant)));
        }
    }

    fn check_number(&mut self, schema: &Map<String, Value>, number: &Number) {
        let Some(actual) = number.as_f64() else {
            return;
        };
        let bound = |key: &str| match schema.get(key) {
            Some(Value::Number(bound)) => bound.as_f64().map(|float| (float, bound.clone())),
            _ => None,
        };
        // Draft 4 spells exclusive bounds as booleans next to minimum/maximum.
        let draft4_exclusive = |key: &str| matches!(schema.get(key), Some(Value::Bool(true)));
        if let Some((minimum, shown)) = bound("minimum") {
            if draft4_exclusive("exclusiveMinimum") {
                if actual <= minimum {
                    self.fail(format!("must be > {}", python::number_repr(&shown)));
                }
            } else if actual < minimum {
                self.fail(format!("must be >= {}", python::number_repr(&shown)));
            }
        }
        if let Some((minimum, shown)) = bound("exclusiveMinimum")
            && actual <= minimum
        {
            self.fail(format!("must be > {}", python::number_repr(&shown)));
        }
        if let Some((maximum, shown)) = bound("maximum") {
            if draft4_exclusive("exclusiveMaximum") {
                if actual >= maximum {
                    self.fail(format!("must be < {}", python::number_repr(&shown)));
                }
            } else if actual > maximum {
                self.fail(format!("must be <= {}", python::number_repr(&shown)));
            }
        }
        if let Some((maximum, shown)) = bound("exclusiveMaximum")
            && actual >= maximum
        {
            self.fail(format!("must be < {}", python::number_repr(&shown)));
        }
        if let Some((divisor, shown)) = bound("multipleOf")
            && divisor > 0.0
        {
            let quotient = actual / divisor;
            if (quotient - quotient.round()).abs() > 1e-9 {
                self.fail(format!(
                    "must be a multiple of {}",
                    python::number_repr(&shown)
                ));
            }
        }
    }

    fn check_length(
        &mut self,
        schema: &Map<String, Value>,
        min_key: &str,
        max_key: &str,
        length: usize,
    ) {
        let limit = |key: &str| schema.get(key).and_then(Value::as_u64);
        let length = u64::try_from(length).unwrap_or(u64::MAX);
        if let Some(minimum) = limit(min_key)
            && length < minimum
        {
            self.fail(format!("length must be >= {minimum}"));
        }
        if let Some(maximum) = limit(max_key)
            && length > maximum
        {
            self.fail(format!("length must be <= {maximum}"));
        }
    }

    fn check_array(&mut self, schema: &'a Map<String, Value>, items: &[Value]) {
        self.check_length(schema, "minItems", "maxItems", items.len());
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
            let duplicated = items.iter().enumerate().any(|(index, item)| {
                items[index + 1..]
                    .iter()
                    .any(|other| json_equal(item, other))
            });
            if duplicated {
                self.fail("items must be unique");
            }
        }
        // Positional schemas: 2020-12 `prefixItems`, or draft 4 `items: [...]`.
        let (positional, rest): (&[Value], Option<&'a Value>) =
            match (schema.get("prefixItems"), schema.get("items")) {
                (Some(Value::Array(prefix)), rest) => (prefix.as_slice(), rest),
                (_, Some(Value::Array(prefix))) => {
                    (prefix.as_slice(), schema.get("additionalItems"))
                }
                (_, rest) => (&[], rest),
            };
        for (index, item) in items.iter().enumerate() {
            let item_schema = positional.get(index).or(rest);
            if let Some(item_schema) = item_schema {
                self.path.push(PathSegment::Index(index));
                self.check(item_schema, item, 0);
                self.path.pop();
            }
        }
    }

    fn check_object(&mut self, schema: &'a Map<String, Value>, map: &Map<String, Value>) {
        self.check_length(schema, "minProperties", "maxProperties", map.len());
        let properties = schema.get("properties").and_then(Value::as_object);
        // BFCL marks optional properties with a non-standard `"optional": true`.
        let marked_optional = |name: &str| {
            properties
                .and_then(|properties| properties.get(name))
                .is_some_and(|property| property.get("optional") == Some(&Value::Bool(true)))
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|name| !marked_optional(name))
                    .collect()
            })
            .unwrap_or_default();

        if let Some(properties) = properties {
            for (name, property_schema) in properties {
                match map.get(name) {
                    Some(property_value) => {
                        self.path.push(PathSegment::Key(name.clone()));
                        self.check(property_schema, property_value, 0);
                        self.path.pop();
                    }
                    None if required.contains(&name.as_str()) => {
                        self.fail(format!(
                            "Missing required field: {}",
                            python::str_repr(name)
                        ));
                    }
                    None => {}
                }
            }
        }
        for name in &required {
            let declared = properties.is_some_and(|properties| properties.contains_key(*name));
            if !declared && !map.contains_key(*name) {
                self.fail(format!(
                    "Missing required field: {}",
                    python::str_repr(name)
                ));
            }
        }

        let extras: Vec<&String> = map
            .keys()
            .filter(|key| properties.is_none_or(|properties| !properties.contains_key(*key)))
            .collect();
        if extras.is_empty() {
            return;
        }
        match schema.get("additionalProperties") {
            Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => self.fail_extra_keys(&extras),
            Some(additional @ Value::Object(_)) => {
                for key in extras {
                    if let Some(extra_value) = map.get(key) {
                        self.path.push(PathSegment::Key(key.clone()));
                        self.check(additional, extra_value, 0);
                        self.path.pop();
                    }
                }
            }
            _ => {
                let closed = properties.is_some()
                    && !schema.contains_key("patternProperties")
                    && !self.options.allow_extra_keys;
                if closed {
                    self.fail_extra_keys(&extras);
                }
            }
        }
    }

    fn fail_extra_keys(&mut self, extras: &[&String]) {
        self.fail(format!(
            "Extra keys not permitted: {}",
            python::str_list_repr(extras)
        ));
    }

    fn check_combinators(
        &mut self,
        schema: &'a Map<String, Value>,
        value: &Value,
        reference_hops: usize,
    ) {
        if let Some(Value::Array(branches)) = schema.get("allOf") {
            for branch in branches {
                self.check(branch, value, reference_hops);
            }
        }
        if let Some(Value::Array(branches)) = schema.get("anyOf") {
            self.check_alternatives(branches, value, reference_hops, false);
        }
        if let Some(Value::Array(branches)) = schema.get("oneOf") {
            self.check_alternatives(branches, value, reference_hops, true);
        }
        if let Some(negated) = schema.get("not")
            && self
                .branch_errors(negated, value, reference_hops)
                .is_empty()
        {
            match negated.get("enum") {
                Some(options @ Value::Array(_))
                    if negated.as_object().is_some_and(|n| n.len() == 1) =>
                {
                    self.fail(format!("may not be one of {}", python::repr(options)));
                }
                _ => self.fail("must not match the schema in 'not'"),
            }
        }
    }

    fn branch_errors(
        &mut self,
        branch: &'a Value,
        value: &Value,
        reference_hops: usize,
    ) -> Vec<ValidationError> {
        let saved = std::mem::take(&mut self.errors);
        self.check(branch, value, reference_hops);
        std::mem::replace(&mut self.errors, saved)
    }

    fn check_alternatives(
        &mut self,
        branches: &'a [Value],
        value: &Value,
        reference_hops: usize,
        exactly_one: bool,
    ) {
        let mut matches = 0_usize;
        let mut closest: Option<Vec<ValidationError>> = None;
        let mut first_failure: Option<Vec<ValidationError>> = None;
        let mut declared_types: Vec<&'static str> = Vec::new();
        for branch in branches {
            let errors = self.branch_errors(branch, value, reference_hops);
            if errors.is_empty() {
                matches += 1;
                continue;
            }
            let admits = self.branch_admits_type(branch, value, &mut declared_types);
            if admits
                && closest
                    .as_ref()
                    .is_none_or(|best| errors.len() < best.len())
            {
                closest = Some(errors);
            } else if first_failure.is_none() {
                first_failure = Some(errors);
            }
        }
        if matches == 1 || (matches > 1 && !exactly_one) {
            return;
        }
        if matches > 1 {
            self.fail("matches more than one schema in oneOf");
            return;
        }
        if let Some(errors) = closest {
            self.errors.extend(errors);
        } else if !declared_types.is_empty() {
            self.fail(type_mismatch_message(value, &declared_types));
        } else if let Some(errors) = first_failure {
            self.errors.extend(errors);
        }
    }

    /// Whether a branch's declared type admits the value (a branch without a
    /// `type` admits everything); collects declared types for the fallback message.
    fn branch_admits_type(
        &self,
        branch: &'a Value,
        value: &Value,
        declared: &mut Vec<&'static str>,
    ) -> bool {
        let mut current = branch;
        for _ in 0..MAX_REFERENCE_HOPS {
            let Some(map) = current.as_object() else {
                return true;
            };
            if let Some(types) = map.get("type") {
                let names: Vec<&Value> = match types {
                    Value::Array(names) => names.iter().collect(),
                    other => vec![other],
                };
                let mut admits = false;
                for name in names.iter().filter_map(|name| name.as_str()) {
                    match type_name(name) {
                        Some(TypeName::Json(json_type)) => {
                            if !declared.contains(&json_type) {
                                declared.push(json_type);
                            }
                            admits |= value_has_type(value, json_type);
                        }
                        Some(TypeName::Any) | None => admits = true,
                    }
                }
                return admits;
            }
            match map.get("$ref").and_then(Value::as_str) {
                Some(reference) => match resolve_ref(self.root, reference) {
                    Some(target) => current = target,
                    None => return true,
                },
                None => return true,
            }
        }
        true
    }
}

fn type_mismatch_message(value: &Value, expected: &[&'static str]) -> String {
    if value.is_null() && !expected.contains(&"null") {
        return "value cannot be null".to_owned();
    }
    // Present the names in a stable, readable order, null last.
    let mut ordered: Vec<&str> = ["string", "integer", "number", "boolean", "object", "array"]
        .into_iter()
        .filter(|name| expected.contains(name))
        .collect();
    if expected.contains(&"null") {
        ordered.push("null");
    }
    format!("expected {}", ordered.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(schema: &Value, value: &Value) -> String {
        match validate(schema, value) {
            Ok(()) => String::new(),
            Err(errors) => errors.to_string(),
        }
    }

    #[test]
    fn missing_required_field_matches_wink() {
        let schema = json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]});
        assert_eq!(
            messages(&schema, &json!({})),
            "Missing required field: 'query'"
        );
    }

    #[test]
    fn wink_transcript_case_reports_missing_and_extra() {
        let schema = json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]});
        assert_eq!(
            messages(&schema, &json!({"q": "x"})),
            "Missing required field: 'query'; Extra keys not permitted: ['q']"
        );
    }

    #[test]
    fn extra_keys_keep_payload_order_and_can_be_allowed() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let value = json!({"z": 1, "a": 1, "b": 2});
        assert_eq!(
            messages(&schema, &value),
            "Extra keys not permitted: ['z', 'b']"
        );
        let options = ValidationOptions {
            allow_extra_keys: true,
        };
        assert_eq!(validate_with(&schema, &value, &options), Ok(()));
        let explicit = json!({"type": "object", "properties": {}, "additionalProperties": false});
        assert_eq!(
            validate_with(&explicit, &json!({"x": 1}), &options)
                .unwrap_err()
                .to_string(),
            "Extra keys not permitted: ['x']"
        );
    }

    #[test]
    fn open_maps_and_additional_property_schemas() {
        let open = json!({"type": "dict"});
        assert_eq!(messages(&open, &json!({"anything": [1]})), "");
        let typed = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        assert_eq!(
            messages(&typed, &json!({"a": 1, "b": "x"})),
            "b: expected integer"
        );
    }

    #[test]
    fn nested_paths_follow_wink() {
        let schema = json!({
            "type": "object",
            "properties": {
                "mid": {"type": "object", "properties": {
                    "inner": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
                    "tags": {"type": "array", "items": {"type": "string"}}
                }, "required": ["inner"]}
            },
            "required": ["mid"]
        });
        let value = json!({"mid": {"inner": {"y": 1}, "tags": ["a", 2]}});
        assert_eq!(
            messages(&schema, &value),
            "mid.inner: Missing required field: 'x'; mid.inner: Extra keys not permitted: ['y']; mid.tags[1]: expected string"
        );
        let errors = validate(&schema, &value).unwrap_err();
        assert_eq!(errors.len(), 3);
        assert_eq!(errors.errors()[2].pointer(), "/mid/tags/1");
        assert_eq!(errors.errors()[0].path_string(), "mid.inner");
    }

    #[test]
    fn type_messages_use_json_names() {
        let schema = json!({"type": "object", "properties": {
            "count": {"type": "integer"},
            "ratio": {"type": "float"},
            "flag": {"type": "boolean"},
            "name": {"type": "string"},
            "maybe": {"type": ["string", "null"]},
            "point": {"type": "tuple", "items": {"type": "float"}},
            "free": {"type": "any"}
        }});
        let value = json!({"count": 1.5, "ratio": "x", "flag": 1, "name": null, "maybe": 3, "point": [1, "a"], "free": {"x": 1}});
        assert_eq!(
            messages(&schema, &value),
            "count: expected integer; ratio: expected number; flag: expected boolean; name: value cannot be null; maybe: expected string or null; point[1]: expected number"
        );
        assert_eq!(messages(&schema, &json!({"count": 2.0})), "");
        assert_eq!(messages(&schema, &json!([])), "expected object");
    }

    #[test]
    fn enum_const_and_bounds() {
        let schema = json!({"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "kind": {"const": "file"},
            "n": {"type": "integer", "minimum": 1, "maximum": 9},
            "x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10.5},
            "old": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
            "q": {"type": "string", "minLength": 2, "maxLength": 3},
            "list": {"type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": true},
            "step": {"type": "integer", "multipleOf": 5}
        }});
        let value = json!({"mode": "medium", "kind": "dir", "n": 0, "x": 0, "old": 0, "q": "é", "list": [1, 1, 1], "step": 7});
        assert_eq!(
            messages(&schema, &value),
            "mode: expected one of ['fast', 'slow']; kind: expected 'file'; n: must be >= 1; x: must be > 0; old: must be > 0; q: length must be >= 2; list: length must be <= 2; list: items must be unique; step: must be a multiple of 5"
        );
        let high = json!({"n": 10, "x": 10.5, "q": "abcd", "list": []});
        assert_eq!(
            messages(&schema, &high),
            "n: must be <= 9; x: must be < 10.5; q: length must be <= 3; list: length must be >= 1"
        );
    }

    #[test]
    fn refs_to_defs_and_definitions() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/Point"},
                "b": {"$ref": "#/definitions/Name"},
                "c": {"$ref": "#/$defs/Missing"}
            },
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
            "definitions": {"Name": {"type": "string", "minLength": 1}}
        });
        let value = json!({"a": {}, "b": "", "c": 1});
        assert_eq!(
            messages(&schema, &value),
            "a: Missing required field: 'x'; b: length must be >= 1; c: unresolvable schema reference '#/$defs/Missing'"
        );
    }

    #[test]
    fn recursive_refs_validate_finite_values() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {"type": "object", "properties": {
                "value": {"type": "integer"},
                "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
            }, "required": ["value"]}}
        });
        let good = json!({"value": 1, "next": {"value": 2, "next": null}});
        assert_eq!(messages(&schema, &good), "");
        let bad = json!({"value": 1, "next": {"next": {"value": "x"}}});
        assert_eq!(
            messages(&schema, &bad),
            "next: Missing required field: 'value'; next.next.value: expected integer"
        );
        let cycle = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}});
        assert_eq!(
            messages(&cycle, &json!(1)),
            "schema reference cycle at '#/$defs/A'"
        );
    }

    #[test]
    fn nullable_patterns() {
        let schema = json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "b": {"type": ["integer", "null"]},
            "c": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]},
            "d": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
        }, "$defs": {"P": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}});
        assert_eq!(
            messages(&schema, &json!({"a": null, "b": null, "c": null, "d": 1})),
            ""
        );
        assert_eq!(
            messages(
                &schema,
                &json!({"a": 1, "b": "x", "c": {"x": 1}, "d": true})
            ),
            "a: expected string or null; b: expected integer or null; c.x: expected string; d: expected string or integer"
        );
    }

    #[test]
    fn one_of_with_several_matches_is_reported() {
        let schema = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert_eq!(
            messages(&schema, &json!(1)),
            "matches more than one schema in oneOf"
        );
        assert_eq!(messages(&schema, &json!(1.5)), "");
    }

    #[test]
    fn all_of_and_not() {
        let schema = json!({"allOf": [{"type": "object", "required": ["a"]}, {"required": ["b"]}], "not": {"enum": [{"a": 0, "b": 0}]}});
        assert_eq!(
            messages(&schema, &json!({})),
            "Missing required field: 'a'; Missing required field: 'b'"
        );
        assert_eq!(
            messages(&schema, &json!({"a": 0, "b": 0})),
            "may not be one of [{'a': 0, 'b': 0}]"
        );
    }

    #[test]
    fn prefix_items_validate_positions() {
        let schema = json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false});
        assert_eq!(messages(&schema, &json!(["a", 1])), "");
        assert_eq!(
            messages(&schema, &json!([1, 1, 3])),
            "[0]: expected string; [2]: no value is permitted here"
        );
    }

    #[test]
    fn unknown_types_are_reported() {
        assert_eq!(
            messages(&json!({"type": "widget"}), &json!(1)),
            "schema declares unknown type 'widget'"
        );
    }
}
