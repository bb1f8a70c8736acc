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

mod finish;
mod normalizer;
mod strict;
mod types;
use finish::*;
use normalizer::*;
pub use strict::*;

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
