//! JSON Schema plumbing for wink: pure functions over [`serde_json::Value`].
//!
//! * [`validate`](mod@validate) — validate tool arguments and structured output against a
//!   schema, reporting every problem with WINK's wording
//!   (`Missing required field: 'query'`, `Extra keys not permitted: ['x']`).
//! * [`output`] — structured output as WINK does it: the `response_format`
//!   payload, and parsing the model's text (fenced block → whole message → first
//!   embedded value) with WINK's error messages.
//! * [`coerce`](mod@coerce) — WINK's lenient scalar coercion (`"42"` → `42` for an
//!   integer field) applied before validation.
//! * [`dialect`] — one normaliser from a tool's schema (schemars, hand-written,
//!   BFCL) to OpenAI strict, OpenAI, Anthropic and a conservative dialect.
//! * [`names`] — reversible, collision-free provider-safe tool name aliases
//!   (`file.read` ↔ `file__read`).
//! * [`python`] — Python `repr()` / `json.dumps()` renderings used by WINK's
//!   messages and tool payloads.
//!
//! ```
//! use serde_json::json;
//! use wink_schema::dialect::{SchemaDialect, normalize};
//! use wink_schema::output::{OutputSpec, parse_structured_output};
//! use wink_schema::validate::validate;
//!
//! let params = json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]});
//! let errors = validate(&params, &json!({"q": "x"})).unwrap_err();
//! assert_eq!(
//!     format!("Tool validation failed: {errors}"),
//!     "Tool validation failed: Missing required field: 'query'; Extra keys not permitted: ['q']"
//! );
//!
//! let strict = normalize(&params, SchemaDialect::OpenAiStrict).unwrap();
//! assert_eq!(strict["additionalProperties"], json!(false));
//!
//! let spec = OutputSpec::object("review", json!({"type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"]}));
//! let output = parse_structured_output("Done.\n```json\n{\"verdict\": \"done\"}\n```", &spec).unwrap();
//! assert_eq!(output, json!({"verdict": "done"}));
//! ```

mod check;
pub mod coerce;
pub mod dialect;
mod keywords;
pub mod names;
pub mod output;
pub mod python;
mod strict;
mod text;
pub mod validate;

pub use check::{SchemaProblem, check_schema};
pub use coerce::coerce;
pub use dialect::{SchemaDialect, SchemaError, fits_openai_strict, normalize, strip_strict_nulls};
pub use names::{NameError, ToolNameAliases, is_provider_safe};
pub use output::{
    OutputContainer, OutputParseError, OutputSpec, parse_prompt_output, parse_provider_payload,
    parse_structured_output, response_format, schema_name,
};
pub use strict::{DUPLICATE_KEY, StrictJsonError, StrictValue, parse_strict_json};
pub use text::{first_sentence, namespace_of};
pub use validate::{
    PathSegment, ValidationError, ValidationErrors, ValidationOptions, validate, validate_with,
};
