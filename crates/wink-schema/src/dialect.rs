//! One normaliser from a tool's JSON Schema to each provider's dialect.
//!
//! Input: what schemars 1.x emits (draft 2020-12, `$defs`, `Option` fields as
//! `"type": [T, "null"]` or `anyOf` with `null`), hand-written schemas, and BFCL's
//! dialect (`"dict"`, `"float"`, `"tuple"`, `"any"`, `"optional": true`).
//! [`normalize`] returns a new schema; it never panics and is idempotent:
//! `normalize(normalize(s, d), d) == normalize(s, d)`.
//!
//! # Rules shared by every dialect
//! * `$schema`, `$id`, `$anchor`, `$comment`, `title`, `x-*` extension keys are
//!   dropped; OpenAPI's `nullable: true` becomes a `"null"` type; BFCL's
//!   `optional: true` removes the property from its parent's `required`.
//! * Type aliases: `dict` → `object`, `float` → `number`, `tuple` → `array`,
//!   `any` → no `type` (also `str`, `int`, `bool`, `list`, any letter case);
//!   one-element type arrays collapse to a string; unknown names are an error.
//! * Draft 4 `exclusiveMinimum: true` + `minimum: n` becomes
//!   `exclusiveMinimum: n`; draft 4 tuple `items: [...]` becomes `prefixItems`.
//! * An `enum` contradicting its `type` is reconciled: on an array type it moves
//!   to `items` (BFCL lists of choices), otherwise the type becomes the enum
//!   values' types (BFCL `"boolean"` with `["True", "False", "dontcare"]`).
//! * A schema with `properties` but no `type` gets `"type": "object"`; the top
//!   level is always `{"type": "object", "properties": {...}, ...}` (a root
//!   `$ref` is inlined; a root of another type is an error).
//!
//! # [`SchemaDialect::OpenAi`] and [`SchemaDialect::Anthropic`]
//! Only the shared rules: every other keyword (`$defs`/`$ref`, `default`,
//! `format`, `anyOf`/`oneOf`/`allOf`, ...) is kept. The two are separate so that
//! adapters name their provider and the rules can diverge.
//!
//! # [`SchemaDialect::OpenAiStrict`] (`"strict": true`)
//! * Keywords kept: `type`, `description`, `properties`, `required`,
//!   `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `$ref`, `$defs`,
//!   `definitions`, `pattern`, `format` (only `date-time`, `time`, `date`,
//!   `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`), `minimum`,
//!   `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minItems`,
//!   `maxItems`. Everything else (`default`, `minLength`, `examples`, `not`, ...)
//!   is dropped; `oneOf` becomes `anyOf`; `allOf` is merged into its parent;
//!   `prefixItems` becomes `items` (`anyOf` of the positions) plus `maxItems`.
//! * Every object lists all its properties in `required` and has
//!   `additionalProperties: false`; a property that was optional becomes
//!   nullable (`"type": [T, "null"]`, `null` added to an `enum`, or
//!   `anyOf: [..., {"type": "null"}]` when there is no type). Use
//!   [`strip_strict_nulls`] on the arguments the model sends back.
//! * A `$ref` with sibling keywords is inlined (OpenAI rejects siblings); where
//!   that would recurse, the siblings are dropped and the bare `$ref` kept.
//! * Lossy on purpose (strict mode cannot say otherwise): open maps become
//!   closed, an unconstrained value becomes `"type": ["string", "number",
//!   "boolean", "null"]`, an array without `items` gets those items. Check
//!   [`fits_openai_strict`] first and send such tools non-strict.
//!
//! # [`SchemaDialect::Conservative`] (local OpenAI-compatible servers, Gemini-like)
//! * Every `$ref` is inlined from `$defs`/`definitions` and those are removed; a
//!   recursive reference is an error ([`SchemaError::RecursiveRef`]).
//! * No type arrays and no `null`: `["string", "null"]` becomes `"string"`, a
//!   `null` branch of `anyOf` and a `null` in `enum` are removed, and — the
//!   documented choice — a property that was nullable is **dropped from
//!   `required`**, so "absent" carries the meaning of `null`. Several non-null
//!   types become `anyOf` of single types; a one-branch `anyOf` is merged into
//!   its parent.
//! * Keywords kept: `type`, `description`, `properties`, `required`, `items`,
//!   `enum`, `anyOf`, `minimum`, `maximum`, `minItems`, `maxItems`,
//!   `minLength`, `maxLength`. `const` becomes a one-value `enum`; `oneOf`
//!   becomes `anyOf`; `allOf` is merged; `format`, `pattern`, `default`,
//!   `additionalProperties` and the rest are dropped. (Gemini accepts `enum`
//!   only on strings; other enums are kept as they are.)

use crate::keywords::{
    TypeName, insert_after, insert_first, json_equal, resolve_ref, type_name, type_of,
    value_has_type,
};
use serde_json::{Map, Value, json};
use std::fmt;

/// A provider's flavour of JSON Schema for tool parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaDialect {
    /// OpenAI function calling / structured outputs with `"strict": true`.
    OpenAiStrict,
    /// OpenAI (and LiteLLM) without strict mode: cleaned, otherwise unchanged.
    OpenAi,
    /// Anthropic `input_schema` (JSON Schema 2020-12, `$defs`/`$ref` allowed).
    Anthropic,
    /// Local OpenAI-compatible servers and Gemini-like targets: no `$ref`, no
    /// type arrays, no `null`, no `format`.
    Conservative,
}

impl SchemaDialect {
    /// Every dialect, for tests and tooling.
    pub const ALL: [SchemaDialect; 4] = [
        SchemaDialect::OpenAiStrict,
        SchemaDialect::OpenAi,
        SchemaDialect::Anthropic,
        SchemaDialect::Conservative,
    ];

    /// A short stable name (`openai-strict`, `openai`, `anthropic`, `conservative`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SchemaDialect::OpenAiStrict => "openai-strict",
            SchemaDialect::OpenAi => "openai",
            SchemaDialect::Anthropic => "anthropic",
            SchemaDialect::Conservative => "conservative",
        }
    }

    /// Whether the dialect keeps only a known subset of keywords.
    fn restricts_keywords(self) -> bool {
        matches!(
            self,
            SchemaDialect::OpenAiStrict | SchemaDialect::Conservative
        )
    }
}

impl fmt::Display for SchemaDialect {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// Why a schema could not be normalised. Paths are JSON Pointers into the input
/// schema, written `#/properties/a/items`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// Something that must be a schema is not an object or boolean.
    #[error("schema at {path} must be a JSON object or boolean, found {found}")]
    NotASchema {
        /// Where.
        path: String,
        /// The JSON type found instead.
        found: &'static str,
    },
    /// The top level does not describe an object.
    #[error("tool parameters schema must describe an object, found type {found}")]
    RootNotObject {
        /// The top-level `type` found.
        found: String,
    },
    /// A `type` name that is neither JSON Schema's nor a known alias.
    #[error("unknown type '{name}' at {path}")]
    UnknownType {
        /// Where.
        path: String,
        /// The unknown name.
        name: String,
    },
    /// A keyword with a malformed value.
    #[error("invalid '{keyword}' at {path}: {reason}")]
    InvalidKeyword {
        /// Where.
        path: String,
        /// The keyword.
        keyword: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `$ref` that does not point into the document.
    #[error("cannot resolve $ref '{reference}' at {path}")]
    UnresolvedRef {
        /// Where.
        path: String,
        /// The reference.
        reference: String,
    },
    /// A `$ref` that would have to be inlined into itself.
    #[error("recursive $ref '{reference}' at {path} cannot be inlined for the {dialect} dialect")]
    RecursiveRef {
        /// Where.
        path: String,
        /// The reference.
        reference: String,
        /// The dialect that needed the inlining.
        dialect: SchemaDialect,
    },
    /// A construct the dialect cannot express.
    #[error("{reason} at {path} is not supported by the {dialect} dialect")]
    Unsupported {
        /// Where.
        path: String,
        /// What.
        reason: String,
        /// The dialect.
        dialect: SchemaDialect,
    },
}

/// Keywords dropped in every dialect.
const ALWAYS_DROPPED: &[&str] = &[
    "$schema", "$id", "$anchor", "$comment", "title", "nullable", "optional",
];

const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const CONSERVATIVE_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "items",
    "enum",
    "anyOf",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
];

/// Keywords whose value is one schema.
const SCHEMA_KEYS: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAY_KEYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAP_KEYS: &[&str] = &[
    "properties",
    "$defs",
    "definitions",
    "patternProperties",
    "dependentSchemas",
];

/// What OpenAI strict gets for a value the schema leaves unconstrained.
const ANY_VALUE_TYPES: [&str; 4] = ["string", "number", "boolean", "null"];

/// Private key carrying, through an `allOf` merge, the references a subschema
/// descends from; always removed before the subschema is normalised.
const ANCESTRY_KEY: &str = "\u{0}wink:ancestry";

/// Upper bound on rewrite rounds for one schema node (each round removes a
/// construct; the bound only guards against a bug turning into a hang).
const MAX_REWRITE_ROUNDS: usize = 256;

/// Normalises a tool's parameter schema for `dialect`.
///
/// ```
/// use serde_json::json;
/// use wink_schema::dialect::{SchemaDialect, normalize};
///
/// let bfcl = json!({"type": "dict", "properties": {
///     "base": {"type": "integer"}, "unit": {"type": "string", "default": "units"}
/// }, "required": ["base"]});
/// assert_eq!(
///     normalize(&bfcl, SchemaDialect::OpenAiStrict).unwrap(),
///     json!({"type": "object", "properties": {
///         "base": {"type": "integer"}, "unit": {"type": ["string", "null"]}
///     }, "required": ["base", "unit"], "additionalProperties": false})
/// );
/// ```
///
/// # Errors
/// See [`SchemaError`]: malformed schemas, unknown types, unresolvable
/// references, recursion the conservative dialect cannot inline, a top level
/// that is not an object.
pub fn normalize(schema: &Value, dialect: SchemaDialect) -> Result<Value, SchemaError> {
    let Value::Object(map) = schema else {
        return Err(SchemaError::NotASchema {
            path: "#".to_owned(),
            found: type_of(schema),
        });
    };
    let mut normalizer = Normalizer {
        root: schema,
        dialect,
        path: Vec::new(),
        references: Vec::new(),
    };
    let mut map = map.clone();
    if let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned) {
        normalizer.inline_reference(&mut map, &reference)?;
    }
    if !map.contains_key("type") {
        insert_first(&mut map, "type", json!("object"));
    }
    let Value::Object(mut out) = normalizer.node_map(map)?.value else {
        return Err(SchemaError::RootNotObject {
            found: "boolean".to_owned(),
        });
    };
    match out.get("type") {
        Some(Value::String(found)) if found == "object" => {}
        Some(found) => {
            return Err(SchemaError::RootNotObject {
                found: found.to_string(),
            });
        }
        None => {
            return Err(SchemaError::RootNotObject {
                found: "any".to_owned(),
            });
        }
    }
    if !out.contains_key("properties") {
        insert_after(&mut out, "type", "properties", json!({}));
    }
    Ok(Value::Object(out))
}

/// Whether [`SchemaDialect::OpenAiStrict`] can express `schema` without
/// narrowing it: `false` when it contains an open map (an object without
/// `properties`, or with `additionalProperties` other than `false`), a value
/// with no constraint at all, or an array without `items`. Adapters send such
/// tools with `"strict": false` and [`SchemaDialect::OpenAi`].
#[must_use]
pub fn fits_openai_strict(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return true;
    };
    // A top level without properties declares a tool without parameters.
    if !map.contains_key("properties") && !map.contains_key("additionalProperties") {
        return children(map).all(fits_strict_node);
    }
    fits_strict_node(schema)
}

fn fits_strict_node(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return true;
    };
    let types = declared_types(map);
    let unconstrained = map.get("type").is_none()
        && ![
            "anyOf",
            "oneOf",
            "allOf",
            "$ref",
            "enum",
            "const",
            "properties",
            "items",
            "prefixItems",
        ]
        .iter()
        .any(|key| map.contains_key(*key));
    let is_object = types.contains(&"object") || map.contains_key("properties");
    let open_object = is_object
        && (!map.contains_key("properties")
            || matches!(
                map.get("additionalProperties"),
                Some(Value::Bool(true) | Value::Object(_))
            ));
    let untyped_array =
        types.contains(&"array") && !map.contains_key("items") && !map.contains_key("prefixItems");
    let any_type = types.is_empty()
        && matches!(map.get("type"), Some(Value::String(name)) if type_name(name) == Some(TypeName::Any));
    if unconstrained || open_object || untyped_array || any_type {
        return false;
    }
    children(map).all(fits_strict_node)
}

/// Removes the `null`s a model sends for optional properties under
/// [`SchemaDialect::OpenAiStrict`] (which made them required and nullable), so
/// that `arguments` validate against the tool's original `schema` again. A
/// `null` is kept where the original schema admits it.
#[must_use]
pub fn strip_strict_nulls(schema: &Value, arguments: &Value) -> Value {
    strip_nulls(schema, schema, arguments, 0)
}

fn strip_nulls(root: &Value, schema: &Value, value: &Value, hops: usize) -> Value {
    let Some(schema) = follow_refs(root, schema, hops) else {
        return value.clone();
    };
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let branch = object_branch(root, schema);
            let mut out = Map::new();
            for (key, item) in map {
                let property = properties.and_then(|properties| properties.get(key));
                if let Some(property) = property {
                    if item.is_null()
                        && !required.contains(&key.as_str())
                        && !admits_null(root, property, 0)
                    {
                        continue;
                    }
                    out.insert(key.clone(), strip_nulls(root, property, item, 0));
                } else if let Some(additional @ Value::Object(_)) =
                    schema.get("additionalProperties")
                {
                    out.insert(key.clone(), strip_nulls(root, additional, item, 0));
                } else {
                    out.insert(key.clone(), item.clone());
                }
            }
            match branch {
                Some(branch) if properties.is_none() => {
                    strip_nulls(root, branch, &Value::Object(out), 0)
                }
                _ => Value::Object(out),
            }
        }
        Value::Array(items) => match schema.get("items") {
            Some(item_schema @ Value::Object(_)) => Value::Array(
                items
                    .iter()
                    .map(|item| strip_nulls(root, item_schema, item, 0))
                    .collect(),
            ),
            _ => value.clone(),
        },
        other => other.clone(),
    }
}

/// Follows `$ref`s (bounded) to a schema object.
fn follow_refs<'a>(
    root: &'a Value,
    schema: &'a Value,
    hops: usize,
) -> Option<&'a Map<String, Value>> {
    let map = schema.as_object()?;
    match map.get("$ref").and_then(Value::as_str) {
        Some(reference) if hops < 64 => follow_refs(root, resolve_ref(root, reference)?, hops + 1),
        Some(_) => None,
        None => Some(map),
    }
}

/// The one `anyOf`/`oneOf` branch describing an object, if any.
fn object_branch<'a>(root: &'a Value, schema: &'a Map<String, Value>) -> Option<&'a Value> {
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_array))
        .flatten()
        .find(|branch| {
            follow_refs(root, branch, 0).is_some_and(|map| {
                declared_types(map).contains(&"object") || map.contains_key("properties")
            })
        })
}

fn admits_null(root: &Value, schema: &Value, hops: usize) -> bool {
    let Some(map) = follow_refs(root, schema, hops) else {
        return matches!(schema, Value::Bool(true));
    };
    if let Some(declared) = map.get("type") {
        let names: Vec<&Value> = match declared {
            Value::Array(names) => names.iter().collect(),
            other => vec![other],
        };
        return names.iter().filter_map(|name| name.as_str()).any(|name| {
            matches!(
                type_name(name),
                Some(TypeName::Any | TypeName::Json("null"))
            )
        });
    }
    if let Some(Value::Array(options)) = map.get("enum") {
        return options.iter().any(Value::is_null);
    }
    if let Some(constant) = map.get("const") {
        return constant.is_null();
    }
    let branches: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| map.get(*key).and_then(Value::as_array))
        .flatten()
        .collect();
    if !branches.is_empty() {
        return branches
            .iter()
            .any(|branch| admits_null(root, branch, hops + 1));
    }
    true
}

/// The JSON type names a schema declares (after alias resolution).
fn declared_types(map: &Map<String, Value>) -> Vec<&'static str> {
    let names: Vec<&Value> = match map.get("type") {
        Some(Value::Array(names)) => names.iter().collect(),
        Some(other) => vec![other],
        None => Vec::new(),
    };
    names
        .iter()
        .filter_map(|name| match name.as_str().and_then(type_name) {
            Some(TypeName::Json(json_type)) => Some(json_type),
            _ => None,
        })
        .collect()
}

/// Every direct subschema of a schema object.
fn children(map: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    let singles = SCHEMA_KEYS.iter().filter_map(|key| map.get(*key));
    let arrays = SCHEMA_ARRAY_KEYS
        .iter()
        .filter_map(|key| map.get(*key).and_then(Value::as_array))
        .flatten();
    let maps = SCHEMA_MAP_KEYS
        .iter()
        .filter_map(|key| map.get(*key).and_then(Value::as_object))
        .flat_map(|entries| entries.values());
    singles.chain(arrays).chain(maps)
}

fn is_null_schema(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    match map.get("type") {
        Some(Value::String(name)) => return name == "null",
        Some(Value::Array(names)) => return names.len() == 1 && names[0] == "null",
        Some(_) => return false,
        None => {}
    }
    if let Some(Value::Array(options)) = map.get("enum") {
        return !options.is_empty() && options.iter().all(Value::is_null);
    }
    map.get("const").is_some_and(Value::is_null)
}

/// The result of normalising one schema node.
struct Normalized {
    value: Value,
    /// The node admitted `null` before the conservative dialect removed it.
    nullable: bool,
}

struct Normalizer<'a> {
    root: &'a Value,
    dialect: SchemaDialect,
    /// JSON Pointer tokens from the input root to the node being normalised.
    path: Vec<String>,
    /// `$ref`s inlined on the way to the current node (recursion detection).
    references: Vec<String>,
}

impl Normalizer<'_> {
    fn here(&self) -> String {
        let mut out = String::from("#");
        for token in &self.path {
            out.push('/');
            out.push_str(&token.replace('~', "~0").replace('/', "~1"));
        }
        out
    }

    fn invalid(&self, keyword: &str, reason: impl Into<String>) -> SchemaError {
        SchemaError::InvalidKeyword {
            path: self.here(),
            keyword: keyword.to_owned(),
            reason: reason.into(),
        }
    }

    fn unsupported(&self, reason: impl Into<String>) -> SchemaError {
        SchemaError::Unsupported {
            path: self.here(),
            reason: reason.into(),
            dialect: self.dialect,
        }
    }

    fn node(&mut self, schema: &Value) -> Result<Normalized, SchemaError> {
        match schema {
            Value::Bool(true) => self.node_map(Map::new()),
            Value::Bool(false) if self.dialect.restricts_keywords() => {
                Err(self.unsupported("the `false` schema (no value allowed)"))
            }
            Value::Bool(false) => Ok(Normalized {
                value: Value::Bool(false),
                nullable: false,
            }),
            Value::Object(map) => self.node_map(map.clone()),
            other => Err(SchemaError::NotASchema {
                path: self.here(),
                found: type_of(other),
            }),
        }
    }

    fn node_map(&mut self, map: Map<String, Value>) -> Result<Normalized, SchemaError> {
        let depth = self.references.len();
        let result = self.normalize_map(map);
        self.references.truncate(depth);
        result
    }

    fn normalize_map(&mut self, mut map: Map<String, Value>) -> Result<Normalized, SchemaError> {
        let nullable = self.rewrite(&mut map)?;
        let optional_properties = optional_property_names(&map);
        self.filter_keywords(&mut map);
        let property_nullability = self.normalize_children(&mut map)?;
        self.finish(&mut map, &property_nullability, &optional_properties)?;
        Ok(Normalized {
            value: Value::Object(map),
            nullable,
        })
    }

    /// Rewrites the node itself (not its children) until nothing changes;
    /// returns whether the conservative dialect removed a `null` from it.
    fn rewrite(&mut self, map: &mut Map<String, Value>) -> Result<bool, SchemaError> {
        let mut nullable = false;
        for _ in 0..MAX_REWRITE_ROUNDS {
            self.absorb_ancestry(map);
            if let Some(reference) = map.get("$ref") {
                let Some(reference) = reference.as_str().map(str::to_owned) else {
                    return Err(self.invalid("$ref", "must be a string"));
                };
                if self.must_inline(map) {
                    let recursive = self.references.contains(&reference);
                    if recursive && self.dialect == SchemaDialect::OpenAiStrict {
                        // Strict keeps recursion as a bare `$ref`, dropping the siblings.
                        map.retain(|key, _| key == "$ref");
                    } else {
                        self.inline_reference(map, &reference)?;
                        continue;
                    }
                }
            }
            if self.dialect.restricts_keywords() {
                if map.contains_key("allOf") {
                    self.merge_all_of(map)?;
                    continue;
                }
                if let Some(branches) = map.shift_remove("oneOf") {
                    if map.contains_key("anyOf") {
                        return Err(self.unsupported("`oneOf` next to `anyOf`"));
                    }
                    map.insert("anyOf".to_owned(), branches);
                }
            }
            self.normalize_type(map)?;
            if map.shift_remove("nullable") == Some(Value::Bool(true)) {
                add_null(map);
            }
            normalize_exclusive_bounds(map);
            self.reconcile_enum(map)?;
            if self.dialect == SchemaDialect::Conservative {
                let (changed, removed_null) = self.remove_nulls(map)?;
                nullable |= removed_null;
                if let Some(constant) = map.shift_remove("const") {
                    if !map.contains_key("enum") {
                        map.insert("enum".to_owned(), Value::Array(vec![constant]));
                    }
                    continue;
                }
                if changed {
                    continue;
                }
            }
            self.normalize_tuple(map)?;
            return Ok(nullable);
        }
        Err(self.unsupported("a schema that does not stabilise under rewriting"))
    }

    /// Takes the ancestry marker left by [`mark_subschemas`] and puts those
    /// references on the recursion stack for this node's subtree.
    fn absorb_ancestry(&mut self, map: &mut Map<String, Value>) {
        if let Some(Value::Array(references)) = map.shift_remove(ANCESTRY_KEY) {
            self.references.extend(references.into_iter().filter_map(
                |reference| match reference {
                    Value::String(reference) => Some(reference),
                    _ => None,
                },
            ));
        }
    }

    fn must_inline(&self, map: &Map<String, Value>) -> bool {
        match self.dialect {
            SchemaDialect::Conservative => true,
            SchemaDialect::OpenAiStrict => map.iter().any(|(key, value)| {
                key != "$ref" && key != "$defs" && key != "definitions" && self.keeps(key, value)
            }),
            SchemaDialect::OpenAi | SchemaDialect::Anthropic => false,
        }
    }

    fn inline_reference(
        &mut self,
        map: &mut Map<String, Value>,
        reference: &str,
    ) -> Result<(), SchemaError> {
        if self.references.iter().any(|seen| seen == reference) {
            return Err(SchemaError::RecursiveRef {
                path: self.here(),
                reference: reference.to_owned(),
                dialect: self.dialect,
            });
        }
        let target =
            resolve_ref(self.root, reference).ok_or_else(|| SchemaError::UnresolvedRef {
                path: self.here(),
                reference: reference.to_owned(),
            })?;
        let target = match target {
            Value::Object(target) => target.clone(),
            Value::Bool(true) => Map::new(),
            other => {
                return Err(SchemaError::NotASchema {
                    path: reference.to_owned(),
                    found: type_of(other),
                });
            }
        };
        self.references.push(reference.to_owned());
        let siblings = std::mem::replace(map, target);
        for (key, value) in siblings {
            if key != "$ref" {
                map.insert(key, value);
            }
        }
        Ok(())
    }

    fn merge_all_of(&mut self, map: &mut Map<String, Value>) -> Result<(), SchemaError> {
        let Some(Value::Array(branches)) = map.shift_remove("allOf") else {
            return Err(self.invalid("allOf", "must be an array of schemas"));
        };
        for branch in branches {
            let mut branch = match branch {
                Value::Object(branch) => branch,
                Value::Bool(true) => continue,
                other => {
                    return Err(SchemaError::NotASchema {
                        path: format!("{}/allOf", self.here()),
                        found: type_of(&other),
                    });
                }
            };
            let depth = self.references.len();
            loop {
                if let Some(reference) = branch
                    .get("$ref")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                {
                    self.inline_reference(&mut branch, &reference)?;
                } else if branch.contains_key("allOf") {
                    self.merge_all_of(&mut branch)?;
                } else {
                    break;
                }
            }
            // The references inlined for this branch are ancestors of its
            // subschemas only, not of the siblings merged from other branches.
            let ancestry = self.references.split_off(depth);
            if !ancestry.is_empty() {
                mark_subschemas(&mut branch, &ancestry);
            }
            for (key, value) in branch {
                match (key.as_str(), map.get_mut(&key)) {
                    ("properties", Some(Value::Object(existing))) => {
                        if let Value::Object(added) = value {
                            for (name, schema) in added {
                                existing.entry(name).or_insert(schema);
                            }
                        }
                    }
                    ("required", Some(Value::Array(existing))) => {
                        if let Value::Array(added) = value {
                            for name in added {
                                if !existing.contains(&name) {
                                    existing.push(name);
                                }
                            }
                        }
                    }
                    ("type", Some(existing)) => {
                        if !same_types(existing, &value) {
                            return Err(self.unsupported("`allOf` branches with different types"));
                        }
                    }
                    (_, Some(_)) => {}
                    (_, None) => {
                        map.insert(key, value);
                    }
                }
            }
        }
        Ok(())
    }

    fn normalize_type(&self, map: &mut Map<String, Value>) -> Result<(), SchemaError> {
        let Some(declared) = map.get("type") else {
            return Ok(());
        };
        let names: Vec<&Value> = match declared {
            Value::Array(names) => names.iter().collect(),
            Value::String(_) => vec![declared],
            _ => return Err(self.invalid("type", "must be a string or an array of strings")),
        };
        if names.is_empty() {
            return Err(self.invalid("type", "must not be an empty array"));
        }
        let mut canonical: Vec<&'static str> = Vec::new();
        let mut any = false;
        for name in names {
            let Some(text) = name.as_str() else {
                return Err(self.invalid("type", "must be a string or an array of strings"));
            };
            match type_name(text) {
                Some(TypeName::Json(json_type)) => {
                    if !canonical.contains(&json_type) {
                        canonical.push(json_type);
                    }
                }
                Some(TypeName::Any) => any = true,
                None => {
                    return Err(SchemaError::UnknownType {
                        path: self.here(),
                        name: text.to_owned(),
                    });
                }
            }
        }
        if any {
            map.shift_remove("type");
        } else {
            map.insert("type".to_owned(), types_value(&canonical));
        }
        Ok(())
    }

    fn reconcile_enum(&self, map: &mut Map<String, Value>) -> Result<(), SchemaError> {
        let options = match map.get("enum") {
            None => return Ok(()),
            Some(Value::Array(options)) => options,
            Some(_) => return Err(self.invalid("enum", "must be an array")),
        };
        let declared = declared_types(map);
        if declared.is_empty() {
            return Ok(());
        }
        if declared == ["array"] && !options.iter().any(Value::is_array) {
            // BFCL: "an array of these choices" written as an enum on the array.
            let Some(options) = map.shift_remove("enum") else {
                return Ok(());
            };
            let items = map.entry("items").or_insert_with(|| json!({}));
            if let Value::Object(items) = items
                && !items.contains_key("enum")
            {
                items.insert("enum".to_owned(), options);
            }
            return Ok(());
        }
        let admitted = |option: &Value| {
            declared
                .iter()
                .any(|json_type| value_has_type(option, json_type))
        };
        if options.iter().all(admitted) {
            return Ok(());
        }
        let mut found: Vec<&'static str> = Vec::new();
        for option in options {
            let json_type = type_of(option);
            if !found.contains(&json_type) {
                found.push(json_type);
            }
        }
        if found.contains(&"number") {
            found.retain(|json_type| *json_type != "integer");
        }
        map.insert("type".to_owned(), types_value(&found));
        Ok(())
    }

    /// Conservative dialect: removes `null` from type arrays, enums and `anyOf`,
    /// splits multi-type arrays into `anyOf`, merges one-branch `anyOf`.
    /// Returns (node changed in a way that needs another round, null removed).
    fn remove_nulls(&self, map: &mut Map<String, Value>) -> Result<(bool, bool), SchemaError> {
        let mut removed_null = false;
        let mut changed = false;
        if let Some(Value::Array(names)) = map.get("type") {
            let mut remaining: Vec<Value> = names
                .iter()
                .filter(|name| *name != "null")
                .cloned()
                .collect();
            removed_null = remaining.len() < names.len();
            match remaining.len() {
                0 => {
                    map.insert("type".to_owned(), json!("null"));
                    removed_null = false;
                }
                1 => {
                    map.insert("type".to_owned(), remaining.remove(0));
                }
                _ => {
                    if map.contains_key("anyOf") {
                        return Err(self.unsupported("a type array next to `anyOf`"));
                    }
                    map.shift_remove("type");
                    let branches = remaining
                        .into_iter()
                        .map(|name| json!({ "type": name }))
                        .collect();
                    map.insert("anyOf".to_owned(), Value::Array(branches));
                    changed = true;
                }
            }
        }
        if let Some(Value::Array(options)) = map.get_mut("enum")
            && options.iter().any(Value::is_null)
            && !options.iter().all(Value::is_null)
        {
            options.retain(|option| !option.is_null());
            removed_null = true;
        }
        if let Some(branches) = map.get("anyOf") {
            let Value::Array(branches) = branches else {
                return Err(self.invalid("anyOf", "must be an array of schemas"));
            };
            let mut remaining: Vec<Value> = branches
                .iter()
                .filter(|branch| !self.is_null_like(branch, 0))
                .cloned()
                .collect();
            if remaining.len() < branches.len() && !remaining.is_empty() {
                removed_null = true;
            }
            if remaining.is_empty() {
                // Only `null` is allowed: keep one such branch, merged below.
                remaining.extend(branches.first().cloned());
            }
            if remaining.len() == 1 {
                map.shift_remove("anyOf");
                if let Some(Value::Object(branch)) = remaining.into_iter().next() {
                    for (key, value) in branch {
                        map.entry(key).or_insert(value);
                    }
                }
                changed = true;
            } else if remaining.len() < branches.len() && !remaining.is_empty() {
                map.insert("anyOf".to_owned(), Value::Array(remaining));
            }
        }
        Ok((changed, removed_null))
    }

    /// Whether a schema admits only `null`, looking through `$ref`s and
    /// alternatives whose every branch admits only `null`.
    fn is_null_like(&self, schema: &Value, hops: usize) -> bool {
        if is_null_schema(schema) {
            return true;
        }
        let Some(map) = schema.as_object() else {
            return false;
        };
        if hops >= MAX_REWRITE_ROUNDS || map.contains_key("type") {
            return false;
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return resolve_ref(self.root, reference)
                .is_some_and(|target| self.is_null_like(target, hops + 1));
        }
        let branches: Vec<&Value> = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| map.get(*key).and_then(Value::as_array))
            .flatten()
            .collect();
        !branches.is_empty()
            && branches
                .iter()
                .all(|branch| self.is_null_like(branch, hops + 1))
    }

    /// `prefixItems` / draft 4 tuple `items`: kept as `prefixItems` where the
    /// dialect allows it, else folded into one `items` schema.
    fn normalize_tuple(&self, map: &mut Map<String, Value>) -> Result<(), SchemaError> {
        if !self.dialect.restricts_keywords() && map.contains_key("prefixItems") {
            return Ok(());
        }
        let (prefix, rest) = if let Some(prefix) = map.shift_remove("prefixItems") {
            (prefix, map.shift_remove("items"))
        } else if matches!(map.get("items"), Some(Value::Array(_))) {
            (
                map.shift_remove("items").unwrap_or(Value::Null),
                map.shift_remove("additionalItems"),
            )
        } else {
            return Ok(());
        };
        let Value::Array(prefix) = prefix else {
            return Err(self.invalid("prefixItems", "must be an array of schemas"));
        };
        if !self.dialect.restricts_keywords() {
            map.insert("prefixItems".to_owned(), Value::Array(prefix));
            if let Some(rest) = rest {
                map.insert("items".to_owned(), rest);
            }
            return Ok(());
        }
        let closed = matches!(rest, Some(Value::Bool(false)));
        let mut distinct: Vec<Value> = Vec::new();
        let open_rest = match rest {
            Some(Value::Bool(false) | Value::Bool(true)) | None => None,
            Some(other) => Some(other),
        };
        for schema in prefix.iter().cloned().chain(open_rest) {
            if !distinct.contains(&schema) {
                distinct.push(schema);
            }
        }
        let items = match distinct.len() {
            0 => json!({}),
            1 => distinct.remove(0),
            _ => json!({ "anyOf": distinct }),
        };
        map.insert("items".to_owned(), items);
        if closed && !map.contains_key("maxItems") {
            map.insert("maxItems".to_owned(), json!(prefix.len()));
        }
        Ok(())
    }

    fn keeps(&self, key: &str, value: &Value) -> bool {
        if ALWAYS_DROPPED.contains(&key) || key.starts_with("x-") {
            return false;
        }
        match self.dialect {
            SchemaDialect::OpenAiStrict => {
                STRICT_KEYWORDS.contains(&key)
                    && (key != "format"
                        || value
                            .as_str()
                            .is_some_and(|format| STRICT_FORMATS.contains(&format)))
            }
            SchemaDialect::Conservative => CONSERVATIVE_KEYWORDS.contains(&key),
            SchemaDialect::OpenAi | SchemaDialect::Anthropic => true,
        }
    }

    fn filter_keywords(&self, map: &mut Map<String, Value>) {
        map.retain(|key, value| self.keeps(key, value));
    }

    fn normalize_children(
        &mut self,
        map: &mut Map<String, Value>,
    ) -> Result<Vec<(String, bool)>, SchemaError> {
        let mut property_nullability = Vec::new();
        for key in SCHEMA_MAP_KEYS {
            let Some(entries) = map.get_mut(*key) else {
                continue;
            };
            let Value::Object(entries) = entries else {
                return Err(self.invalid(key, "must map names to schemas"));
            };
            for (name, child) in entries.iter_mut() {
                self.path.push((*key).to_owned());
                self.path.push(name.clone());
                let normalized = self.node(child);
                self.path.truncate(self.path.len() - 2);
                let normalized = normalized?;
                *child = normalized.value;
                if *key == "properties" {
                    property_nullability.push((name.clone(), normalized.nullable));
                }
            }
        }
        for key in SCHEMA_ARRAY_KEYS {
            let Some(branches) = map.get_mut(*key) else {
                continue;
            };
            let Value::Array(branches) = branches else {
                return Err(self.invalid(key, "must be an array of schemas"));
            };
            for (index, child) in branches.iter_mut().enumerate() {
                self.path.push((*key).to_owned());
                self.path.push(index.to_string());
                let normalized = self.node(child);
                self.path.truncate(self.path.len() - 2);
                *child = normalized?.value;
            }
        }
        for key in SCHEMA_KEYS {
            let Some(child) = map.get_mut(*key) else {
                continue;
            };
            match child {
                Value::Bool(_) => {}
                Value::Object(_) => {
                    self.path.push((*key).to_owned());
                    let normalized = self.node(child);
                    self.path.pop();
                    *child = normalized?.value;
                }
                other => {
                    return Err(SchemaError::NotASchema {
                        path: format!("{}/{key}", self.here()),
                        found: type_of(other),
                    });
                }
            }
        }
        Ok(property_nullability)
    }

    fn finish(
        &self,
        map: &mut Map<String, Value>,
        property_nullability: &[(String, bool)],
        optional_properties: &[String],
    ) -> Result<(), SchemaError> {
        if map.contains_key("properties") && !map.contains_key("type") {
            insert_first(map, "type", json!("object"));
        }
        let mut required: Option<Vec<String>> = match map.get("required") {
            None => None,
            Some(Value::Array(names)) => {
                let mut collected: Vec<String> = Vec::with_capacity(names.len());
                for name in names {
                    let Some(name) = name.as_str() else {
                        return Err(self.invalid("required", "must be an array of property names"));
                    };
                    if !collected.iter().any(|seen| seen == name)
                        && !optional_properties.iter().any(|optional| optional == name)
                    {
                        collected.push(name.to_owned());
                    }
                }
                Some(collected)
            }
            Some(_) => return Err(self.invalid("required", "must be an array of property names")),
        };
        let is_object = declared_types(map).contains(&"object");
        match self.dialect {
            SchemaDialect::OpenAiStrict => {
                if is_object {
                    self.close_object(map, required.as_deref().unwrap_or_default());
                    required = None;
                }
                let declared = declared_types(map);
                if declared.contains(&"array") && !map.contains_key("items") {
                    map.insert("items".to_owned(), json!({ "type": ANY_VALUE_TYPES }));
                }
                let unconstrained = [
                    "type",
                    "anyOf",
                    "$ref",
                    "enum",
                    "const",
                    "properties",
                    "items",
                ]
                .iter()
                .all(|key| !map.contains_key(*key));
                if unconstrained {
                    insert_first(map, "type", json!(ANY_VALUE_TYPES));
                }
            }
            SchemaDialect::Conservative => {
                if let Some(names) = &mut required {
                    let properties = map.get("properties").and_then(Value::as_object);
                    names.retain(|name| {
                        properties.is_some_and(|properties| properties.contains_key(name))
                            && !property_nullability
                                .iter()
                                .any(|(property, nullable)| property == name && *nullable)
                    });
                }
            }
            SchemaDialect::OpenAi | SchemaDialect::Anthropic => {}
        }
        if let Some(names) = required {
            map.insert(
                "required".to_owned(),
                Value::Array(names.into_iter().map(Value::String).collect()),
            );
        }
        Ok(())
    }

    /// OpenAI strict objects: every property required (optional ones made
    /// nullable) and no additional properties.
    fn close_object(&self, map: &mut Map<String, Value>, originally_required: &[String]) {
        if !map.contains_key("properties") {
            insert_after(map, "type", "properties", json!({}));
        }
        let mut names = Vec::new();
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            for (name, schema) in properties.iter_mut() {
                if !originally_required.iter().any(|required| required == name) {
                    make_nullable(schema);
                }
                names.push(Value::String(name.clone()));
            }
        }
        insert_after(map, "properties", "required", Value::Array(names));
        insert_after(map, "required", "additionalProperties", Value::Bool(false));
    }
}

/// Records on every direct subschema of `map` that it descends from
/// `ancestry` (references inlined while merging an `allOf` branch), so that
/// recursion through them is still detected below, and only below, them.
fn mark_subschemas(map: &mut Map<String, Value>, ancestry: &[String]) {
    let mark = |schema: &mut Value| {
        if let Value::Object(schema) = schema {
            let entry = schema
                .entry(ANCESTRY_KEY)
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(references) = entry {
                references.extend(ancestry.iter().cloned().map(Value::String));
            }
        }
    };
    for key in SCHEMA_KEYS {
        if let Some(child) = map.get_mut(*key) {
            mark(child);
        }
    }
    for key in SCHEMA_ARRAY_KEYS {
        if let Some(Value::Array(children)) = map.get_mut(*key) {
            children.iter_mut().for_each(mark);
        }
    }
    for key in SCHEMA_MAP_KEYS {
        if let Some(Value::Object(children)) = map.get_mut(*key) {
            children.values_mut().for_each(mark);
        }
    }
}

/// Names of properties marked with BFCL's non-standard `"optional": true`.
fn optional_property_names(map: &Map<String, Value>) -> Vec<String> {
    map.get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter(|(_, schema)| schema.get("optional") == Some(&Value::Bool(true)))
                .map(|(name, _)| name.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether two `type` values name the same set of JSON types (aliases resolved).
fn same_types(left: &Value, right: &Value) -> bool {
    let canonical = |declared: &Value| {
        let mut map = Map::new();
        map.insert("type".to_owned(), declared.clone());
        let mut types = declared_types(&map);
        types.sort_unstable();
        types
    };
    json_equal(left, right) || canonical(left) == canonical(right)
}

fn types_value(types: &[&str]) -> Value {
    match types {
        [single] => json!(single),
        several => json!(several),
    }
}

/// Adds `"null"` to a declared type (OpenAPI `nullable: true`).
fn add_null(map: &mut Map<String, Value>) {
    match map.get_mut("type") {
        Some(Value::String(name)) if name != "null" => {
            let name = std::mem::take(name);
            map.insert("type".to_owned(), json!([name, "null"]));
        }
        Some(Value::Array(names)) if !names.iter().any(|name| name == "null") => {
            names.push(json!("null"));
        }
        Some(_) => {}
        None => {
            if let Some(Value::Array(branches)) = map.get_mut("anyOf")
                && !branches.iter().any(is_null_schema)
            {
                branches.push(json!({"type": "null"}));
            }
        }
    }
}

/// Draft 4 boolean exclusive bounds to draft 6+ numeric ones.
fn normalize_exclusive_bounds(map: &mut Map<String, Value>) {
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match map.get(flag) {
            Some(Value::Bool(true)) => match map.shift_remove(bound) {
                Some(value) => {
                    map.insert(flag.to_owned(), value);
                }
                None => {
                    map.shift_remove(flag);
                }
            },
            Some(Value::Bool(false)) => {
                map.shift_remove(flag);
            }
            _ => {}
        }
    }
}

/// Makes a normalised OpenAI-strict schema admit `null`.
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    let already = declared_types(map).contains(&"null")
        || map
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(is_null_schema))
        || is_null_schema(schema);
    if already {
        return;
    }
    let Value::Object(map) = schema else {
        return;
    };
    if map.contains_key("type") && !map.contains_key("const") {
        add_null(map);
        if let Some(Value::Array(options)) = map.get_mut("enum")
            && !options.iter().any(Value::is_null)
        {
            options.push(Value::Null);
        }
    } else if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
    } else {
        let description = map.shift_remove("description");
        let inner = std::mem::take(map);
        map.insert(
            "anyOf".to_owned(),
            json!([Value::Object(inner), {"type": "null"}]),
        );
        if let Some(description) = description {
            map.insert("description".to_owned(), description);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(schema: Value) -> Value {
        normalize(&schema, SchemaDialect::OpenAiStrict).unwrap()
    }

    fn conservative(schema: Value) -> Value {
        normalize(&schema, SchemaDialect::Conservative).unwrap()
    }

    #[test]
    fn empty_schema_becomes_empty_object_everywhere() {
        assert_eq!(
            strict(json!({})),
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
        assert_eq!(
            conservative(json!({})),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            normalize(&json!({"type": "dict"}), SchemaDialect::Anthropic).unwrap(),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn strict_makes_optional_properties_nullable() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string", "enum": ["x", "y"]},
            "b": {"$ref": "#/$defs/B"},
            "c": {"const": "k", "description": "d"},
            "d": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "e": {"type": ["string", "null"]}
        }, "$defs": {"B": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}});
        assert_eq!(
            strict(schema),
            json!({"type": "object", "properties": {
                "a": {"type": ["string", "null"], "enum": ["x", "y", null]},
                "b": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]},
                "c": {"anyOf": [{"const": "k"}, {"type": "null"}], "description": "d"},
                "d": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "e": {"type": ["string", "null"]}
            }, "required": ["a", "b", "c", "d", "e"], "additionalProperties": false,
            "$defs": {"B": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": false}}})
        );
    }

    #[test]
    fn strict_inlines_refs_with_siblings_and_merges_all_of() {
        let schema = json!({"type": "object", "properties": {
            "p": {"$ref": "#/$defs/P", "description": "the p"},
            "q": {"allOf": [{"$ref": "#/$defs/P"}], "description": "the q"}
        }, "required": ["p", "q"], "$defs": {"P": {"type": "object", "title": "P", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}});
        let expected_object = json!({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": false});
        let out = strict(schema);
        let mut p = expected_object.clone();
        p["description"] = json!("the p");
        assert_eq!(out["properties"]["p"], p);
        assert_eq!(out["properties"]["q"]["description"], json!("the q"));
        assert_eq!(
            out["properties"]["q"]["properties"],
            expected_object["properties"]
        );
    }

    #[test]
    fn conservative_inlines_and_strips_nulls() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": ["string", "null"], "format": "email"},
            "inner": {"anyOf": [{"$ref": "#/definitions/Inner"}, {"type": "null"}], "description": "outer words"},
            "kind": {"const": "file"},
            "either": {"type": ["string", "integer"]},
            "mode": {"enum": ["a", null]}
        }, "required": ["name", "inner", "kind", "either", "mode"],
        "definitions": {"Inner": {"type": "object", "description": "inner words", "properties": {"x": {"type": "number", "default": 1}}, "additionalProperties": false}}});
        assert_eq!(
            conservative(schema),
            json!({"type": "object", "properties": {
                "name": {"type": "string"},
                "inner": {"description": "outer words", "type": "object", "properties": {"x": {"type": "number"}}},
                "kind": {"enum": ["file"]},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "mode": {"enum": ["a"]}
            }, "required": ["kind", "either"]})
        );
    }

    #[test]
    fn conservative_rejects_recursive_refs() {
        let schema = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
        let error = normalize(&schema, SchemaDialect::Conservative).unwrap_err();
        assert_eq!(
            error.to_string(),
            "recursive $ref '#/$defs/Node' at #/properties/node/properties/next cannot be inlined for the conservative dialect"
        );
        assert!(normalize(&schema, SchemaDialect::OpenAiStrict).is_ok());
        assert!(normalize(&schema, SchemaDialect::Anthropic).is_ok());
    }

    #[test]
    fn all_of_recursion_is_detected_only_below_its_reference() {
        // `Base` is reached through `allOf` and again from a sibling branch's
        // property: not recursive.
        let shared = json!({"type": "object", "properties": {"item": {"allOf": [
            {"$ref": "#/$defs/Base"},
            {"type": "object", "properties": {"other": {"$ref": "#/$defs/Base"}}}
        ]}}, "$defs": {"Base": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}});
        let out = conservative(shared);
        assert_eq!(
            out["properties"]["item"]["properties"]["other"]["properties"]["id"],
            json!({"type": "integer"})
        );
        // Recursion that only ever goes through `allOf` terminates with an error.
        let cyclic = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/B"}},
            "$defs": {"B": {"type": "object", "properties": {"child": {"allOf": [{"$ref": "#/$defs/B"}]}}}}});
        assert!(matches!(
            normalize(&cyclic, SchemaDialect::Conservative),
            Err(SchemaError::RecursiveRef { .. })
        ));
        let self_all_of = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}});
        for dialect in [SchemaDialect::Conservative, SchemaDialect::OpenAiStrict] {
            assert!(
                matches!(
                    normalize(&self_all_of, dialect),
                    Err(SchemaError::RecursiveRef { .. })
                ),
                "{dialect}"
            );
        }
    }

    #[test]
    fn errors_name_the_place() {
        let unknown = json!({"type": "object", "properties": {"a": {"type": "widget"}}});
        assert_eq!(
            normalize(&unknown, SchemaDialect::OpenAi)
                .unwrap_err()
                .to_string(),
            "unknown type 'widget' at #/properties/a"
        );
        let dangling = json!({"properties": {"a": {"$ref": "#/$defs/Nope"}}});
        assert_eq!(
            normalize(&dangling, SchemaDialect::Conservative)
                .unwrap_err()
                .to_string(),
            "cannot resolve $ref '#/$defs/Nope' at #/properties/a"
        );
        assert_eq!(
            normalize(&json!({"type": "string"}), SchemaDialect::Anthropic)
                .unwrap_err()
                .to_string(),
            "tool parameters schema must describe an object, found type \"string\""
        );
        assert_eq!(
            normalize(&json!([]), SchemaDialect::Anthropic)
                .unwrap_err()
                .to_string(),
            "schema at # must be a JSON object or boolean, found array"
        );
        let bad_required =
            json!({"type": "object", "properties": {"a": {"type": "object", "required": "x"}}});
        assert_eq!(
            normalize(&bad_required, SchemaDialect::OpenAi)
                .unwrap_err()
                .to_string(),
            "invalid 'required' at #/properties/a: must be an array of property names"
        );
    }

    #[test]
    fn bfcl_quirks_are_reconciled() {
        let schema = json!({"type": "dict", "properties": {
            "good_for_kids": {"type": "boolean", "enum": ["True", "False", "dontcare"], "default": "dontcare"},
            "metrics": {"type": "array", "items": {"type": "string"}, "enum": ["trust", "buzz"]},
            "venue": {"type": "string", "optional": true},
            "coords": {"type": "tuple", "items": {"type": "float"}},
            "data": {"type": "any", "description": "anything"}
        }, "required": ["venue", "coords"]});
        assert_eq!(
            normalize(&schema, SchemaDialect::Anthropic).unwrap(),
            json!({"type": "object", "properties": {
                "good_for_kids": {"type": "string", "enum": ["True", "False", "dontcare"], "default": "dontcare"},
                "metrics": {"type": "array", "items": {"type": "string", "enum": ["trust", "buzz"]}},
                "venue": {"type": "string"},
                "coords": {"type": "array", "items": {"type": "number"}},
                "data": {"description": "anything"}
            }, "required": ["coords"]})
        );
        let strict_out = strict(schema);
        assert_eq!(
            strict_out["properties"]["data"],
            json!({"type": ["string", "number", "boolean", "null"], "description": "anything"})
        );
    }

    #[test]
    fn tuples_per_dialect() {
        let schema = json!({"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false, "minItems": 2}}, "required": ["pair"]});
        assert_eq!(
            strict(schema.clone())["properties"]["pair"],
            json!({"type": "array", "minItems": 2, "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "maxItems": 2})
        );
        assert_eq!(
            normalize(&schema, SchemaDialect::Anthropic).unwrap()["properties"]["pair"],
            json!({"type": "array", "minItems": 2, "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false})
        );
        let draft4 = json!({"type": "object", "properties": {"pair": {"type": "array", "items": [{"type": "string"}], "additionalItems": false}}});
        assert_eq!(
            normalize(&draft4, SchemaDialect::OpenAi).unwrap()["properties"]["pair"],
            json!({"type": "array", "prefixItems": [{"type": "string"}], "items": false})
        );
    }

    #[test]
    fn fits_strict_detects_open_maps() {
        assert!(fits_openai_strict(
            &json!({"type": "object", "properties": {"a": {"type": "string"}}})
        ));
        assert!(!fits_openai_strict(
            &json!({"type": "object", "properties": {"a": {"type": "dict"}}})
        ));
        assert!(!fits_openai_strict(
            &json!({"type": "object", "properties": {"a": {"type": "object", "properties": {}, "additionalProperties": {"type": "string"}}}})
        ));
        assert!(!fits_openai_strict(
            &json!({"type": "object", "properties": {"a": {"type": "any"}}})
        ));
        assert!(!fits_openai_strict(
            &json!({"type": "object", "properties": {"a": {"type": "array"}}})
        ));
    }

    #[test]
    fn strip_strict_nulls_restores_absent_optionals() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": ["string", "null"]}, "c": {"type": "string"},
            "inner": {"$ref": "#/$defs/I"}, "list": {"type": "array", "items": {"$ref": "#/$defs/I"}}
        }, "required": ["c"], "$defs": {"I": {"type": "object", "properties": {"x": {"type": "integer"}}}}});
        let arguments = json!({"a": null, "b": null, "c": null, "inner": {"x": null}, "list": [{"x": null}, {"x": 1}]});
        assert_eq!(
            strip_strict_nulls(&schema, &arguments),
            json!({"b": null, "c": null, "inner": {}, "list": [{}, {"x": 1}]})
        );
    }
}
