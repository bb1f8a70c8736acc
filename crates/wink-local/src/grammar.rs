//! GBNF grammars for constrained decoding: JSON Schema → GBNF, and the grammar of a whole model turn.
//!
//! The converter covers the JSON Schema subset tool parameters use in practice: `type` (one or a list),
//! `properties`/`required` (properties in declared order, optional ones may be left out),
//! `additionalProperties` (a schema, or `false`), `items`/`prefixItems`/`minItems`/`maxItems`, `enum`,
//! `const`, `anyOf`/`oneOf`, `allOf` (object schemas are merged), `minLength`/`maxLength`, and local `$ref`s
//! (`#`, `#/$defs/…`, `#/definitions/…`, recursion allowed). Keywords that cannot be expressed in a grammar
//! (`pattern`, `format`, `minimum`, …) are accepted and not enforced. Objects accept only their declared
//! properties unless `additionalProperties` is a schema (or the object declares no properties at all).

use crate::completion::DecodingConstraint;
use crate::error::LocalError;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use wink_model::ToolSpec;

/// Optional JSON whitespace, bounded so that a model cannot loop on spaces forever.
const WS_RULE: &str = r#"| " " | "\n" [ \t]{0,20}"#;
const STRING_RULE: &str = r#""\"" char* "\"""#;
const CHAR_RULE: &str = r#"[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})"#;
const INTEGER_RULE: &str = r#""-"? ("0" | [1-9] [0-9]{0,15})"#;
const NUMBER_RULE: &str =
    r#""-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?"#;
const BOOLEAN_RULE: &str = r#""true" | "false""#;
const NULL_RULE: &str = r#""null""#;
const VALUE_RULE: &str = "object | array | string | number | boolean | null";
const OBJECT_RULE: &str =
    r#""{" ws ( string ws ":" ws value ( ws "," ws string ws ":" ws value )* )? ws "}""#;
const ARRAY_RULE: &str = r#""[" ws ( value ( ws "," ws value )* )? ws "]""#;
const TEMPLATE_OBJECT_RULE: &str = r#""{" ( string ": " value ( ", " string ": " value )* )? "}""#;
const TEMPLATE_ARRAY_RULE: &str = r#""[" ( value ( ", " value )* )? "]""#;
/// A final answer: plain text starting with a letter, a digit, `*`, `#` or a non-ASCII character, so it cannot
/// open a tool call (`<tool_call>`, a ```json fence, a bare JSON object). Merely excluding those openers is not
/// enough: Qwen2.5-Coder-0.5B then writes `>` and repeats the call after it.
const FINAL_ANSWER_RULE: &str = r#"( [A-Za-z0-9*#] | [^\x00-\x7F] ) [^\x00]*"#;

/// The grammar of a JSON document matching `schema` (root rule `root`).
///
/// # Errors
/// [`LocalError::Schema`] when the schema cannot be expressed (unresolvable `$ref`, `false`, a non-object
/// schema node, …); `location` names `origin` and the JSON pointer of the offending node.
pub fn json_schema_grammar(schema: &Value, origin: &str) -> Result<String, LocalError> {
    let mut builder = GrammarBuilder::default();
    let document = builder.schema(schema, schema, origin, "", "document")?;
    builder.set_root(format!("ws {document} ws"));
    Ok(builder.finish())
}

/// How a tool call may be written in a constrained turn.
///
/// Measured on Qwen2.5-Coder-1.5B (`bench/eval`, greedy): left free, the model writes most calls as a
/// pretty-printed object in a ```json fence. The conversation keeps the call as data and the chat template
/// writes it back as a `<tool_call>` block, so the next prompt differed from the tokens the KV cache held
/// (12–50 tokens evaluated again per call); written back as generated, the model copied its fenced calls
/// and repeated them. Decoding the call in the template's own form removes both.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CallForm {
    /// Exactly the chat template's form: `<tool_call>\n{"name": "<tool>", "arguments": {…}}\n</tool_call>`
    /// with JSON spaced as the template writes it (`", "`, `": "`, nothing inside brackets). A model that
    /// opens a ```json fence or a bare object is steered into the `<tool_call>` opening (the decision to
    /// call stays the model's), so what it generates is what later prompts hold.
    #[default]
    Template,
    /// Inside `<tool_call>…</tool_call>` tags, inside a ```json fence, or bare, with any JSON whitespace:
    /// small Qwen models use all three and the arguments are constrained whichever they pick.
    Any,
}

/// The grammar a model turn must follow under `constraint` with `tools` offered, or `None` when the turn is
/// unconstrained ([`DecodingConstraint::Auto`] with no tools on offer). Calls take the
/// [`CallForm::Template`] form; see [`turn_grammar_in`].
///
/// # Errors
/// Those of [`turn_grammar_in`].
pub fn turn_grammar(
    constraint: &DecodingConstraint,
    tools: &[ToolSpec],
) -> Result<Option<String>, LocalError> {
    turn_grammar_in(constraint, tools, CallForm::Template)
}

/// The grammar a model turn must follow under `constraint` with `tools` offered, tool calls written in
/// `form`, or `None` when the turn is unconstrained ([`DecodingConstraint::Auto`] with no tools on offer).
///
/// A tool call is `{"name": "<tool>", "arguments": <object matching the tool's schema>}`; `form` says how it
/// is wrapped and spaced. The turn is one call.
///
/// # Errors
/// [`LocalError::NoToolsOffered`] for [`DecodingConstraint::RequireTool`] without tools,
/// [`LocalError::RequiredToolMissing`] for [`DecodingConstraint::RequireNamedTool`] of a tool not in `tools`;
/// [`LocalError::Schema`]
/// when a schema cannot be converted.
pub fn turn_grammar_in(
    constraint: &DecodingConstraint,
    tools: &[ToolSpec],
    form: CallForm,
) -> Result<Option<String>, LocalError> {
    let mut builder = GrammarBuilder::default();
    let layout = match form {
        CallForm::Template => Layout::Template,
        CallForm::Any => Layout::Free,
    };
    match constraint {
        DecodingConstraint::JsonSchema(schema) => {
            let document =
                builder.schema(schema, schema, "structured output schema", "", "document")?;
            builder.set_root(format!("ws {document} ws"));
        }
        DecodingConstraint::FinalAnswer => {
            builder.set_root("final-answer".to_owned());
            builder.define("final-answer", FINAL_ANSWER_RULE.to_owned());
        }
        DecodingConstraint::RequireTool => {
            if tools.is_empty() {
                return Err(LocalError::NoToolsOffered);
            }
            builder.set_root("tool-call".to_owned());
            builder.tool_call(tools, layout)?;
        }
        DecodingConstraint::RequireNamedTool(name) => {
            let named: Vec<ToolSpec> = tools.iter().filter(|t| t.name == *name).cloned().collect();
            if named.is_empty() {
                return Err(LocalError::RequiredToolMissing { name: name.clone() });
            }
            builder.set_root("tool-call".to_owned());
            builder.tool_call(&named, layout)?;
        }
        // `Auto` and any future variant default to "a call or an answer".
        _ => {
            if tools.is_empty() {
                return Ok(None);
            }
            builder.set_root("tool-call | final-answer".to_owned());
            builder.tool_call(tools, layout)?;
            builder.define("final-answer", FINAL_ANSWER_RULE.to_owned());
        }
    }
    Ok(Some(builder.finish()))
}

/// How JSON is spaced: any bounded whitespace, or exactly as the chat template's `tojson` writes it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Layout {
    #[default]
    Free,
    /// `{"a": 1, "b": [1, 2]}`: `", "` and `": "` between items, nothing inside brackets.
    Template,
}

/// Collects named rules in definition order, so the output is deterministic.
#[derive(Debug, Default)]
struct GrammarBuilder {
    layout: Layout,
    root: String,
    rules: Vec<(String, String)>,
    /// `$ref` target → rule name, so each referenced schema is converted once (and recursion terminates).
    refs: BTreeMap<String, String>,
}

impl GrammarBuilder {
    fn set_root(&mut self, body: String) {
        self.root = body;
    }

    fn has(&self, name: &str) -> bool {
        self.rules.iter().any(|(n, _)| n == name)
    }

    fn define(&mut self, name: &str, body: String) {
        if let Some(rule) = self.rules.iter_mut().find(|(n, _)| n == name) {
            rule.1 = body;
        } else {
            self.rules.push((name.to_owned(), body));
        }
    }

    /// A rule name derived from `hint` that is not taken yet.
    fn fresh(&self, hint: &str) -> String {
        let base = rule_name(hint);
        if !self.has(&base) && !self.refs.values().any(|n| *n == base) {
            return base;
        }
        (2..)
            .map(|i| format!("{base}-{i}"))
            .find(|candidate| !self.has(candidate) && !self.refs.values().any(|n| n == candidate))
            .unwrap_or(base)
    }

    /// Defines a shared primitive rule (and what it depends on) once; returns its name.
    fn primitive(&mut self, name: &'static str) -> String {
        if !self.has(name) {
            let (body, needs): (&str, &[&'static str]) = match name {
                "ws" => (WS_RULE, &[]),
                "string" => (STRING_RULE, &["char"]),
                "char" => (CHAR_RULE, &[]),
                "integer" => (INTEGER_RULE, &[]),
                "number" => (NUMBER_RULE, &[]),
                "boolean" => (BOOLEAN_RULE, &[]),
                "null" => (NULL_RULE, &[]),
                "object" if self.layout == Layout::Template => {
                    (TEMPLATE_OBJECT_RULE, &["string", "value"])
                }
                "array" if self.layout == Layout::Template => (TEMPLATE_ARRAY_RULE, &["value"]),
                "object" => (OBJECT_RULE, &["string", "ws", "value"]),
                "array" => (ARRAY_RULE, &["value", "ws"]),
                _ => (
                    VALUE_RULE,
                    &["object", "array", "string", "number", "boolean", "null"],
                ),
            };
            self.define(name, body.to_owned());
            for dependency in needs {
                self.primitive(dependency);
            }
        }
        name.to_owned()
    }

    fn tool_call(&mut self, tools: &[ToolSpec], layout: Layout) -> Result<(), LocalError> {
        self.layout = layout;
        let wrapped = match layout {
            Layout::Template => r#""<tool_call>\n" call "\n</tool_call>""#,
            Layout::Free => {
                r#""<tool_call>" ws call ws "</tool_call>" | "```json\n" call "\n```" | call"#
            }
        };
        self.define("tool-call", wrapped.to_owned());
        if layout == Layout::Free {
            self.primitive("ws");
        }
        self.define("call", String::new());
        let mut alternatives = Vec::with_capacity(tools.len());
        for tool in tools {
            let call_rule = self.fresh(&format!("call-{}", tool.name));
            self.define(&call_rule, String::new());
            let origin = format!("parameters of tool {}", tool.name);
            let arguments = self.schema(
                &tool.parameters,
                &tool.parameters,
                &origin,
                "",
                &format!("{}-arguments", tool.name),
            )?;
            let name_json = Value::String(tool.name.clone()).to_string();
            let body = match layout {
                Layout::Template => {
                    let opening =
                        gbnf_literal(&format!("{{\"name\": {name_json}, \"arguments\": "));
                    format!(r#"{opening} {arguments} "}}""#)
                }
                Layout::Free => {
                    let name_literal = gbnf_literal(&name_json);
                    format!(
                        r#""{{" ws "\"name\"" ws ":" ws {name_literal} ws "," ws "\"arguments\"" ws ":" ws {arguments} ws "}}""#
                    )
                }
            };
            self.define(&call_rule, body);
            alternatives.push(call_rule);
        }
        self.define("call", alternatives.join(" | "));
        Ok(())
    }

    /// Converts `schema` (found at `pointer` inside `root`) and returns the name of the rule matching it.
    fn schema(
        &mut self,
        schema: &Value,
        root: &Value,
        origin: &str,
        pointer: &str,
        hint: &str,
    ) -> Result<String, LocalError> {
        let fail = |reason: String| schema_error(origin, pointer, reason);
        let object = match schema {
            Value::Bool(true) => return Ok(self.primitive("value")),
            Value::Bool(false) => {
                return Err(fail("the schema `false` matches nothing".to_owned()));
            }
            Value::Object(object) => object,
            other => {
                return Err(fail(format!(
                    "a schema must be an object or a boolean, found {other}"
                )));
            }
        };

        if let Some(reference) = object.get("$ref") {
            let reference = reference
                .as_str()
                .ok_or_else(|| fail("`$ref` must be a string".to_owned()))?;
            if let Some(name) = self.refs.get(reference) {
                return Ok(name.clone());
            }
            let target = resolve_ref(root, reference).ok_or_else(|| {
                fail(format!("`$ref` {reference:?} does not point into this schema (only local references like #/$defs/Name are supported)"))
            })?;
            let last = reference
                .rsplit('/')
                .next()
                .filter(|s| !s.is_empty() && *s != "#")
                .unwrap_or(hint);
            let name = self.fresh(last);
            self.refs.insert(reference.to_owned(), name.clone());
            self.define(&name, String::new());
            let body_rule = self.schema(
                target,
                root,
                origin,
                reference.trim_start_matches('#'),
                &format!("{name}-body"),
            )?;
            self.define(&name, body_rule);
            return Ok(name);
        }

        let name = self.fresh(hint);
        self.define(&name, String::new());
        let body = self.schema_body(object, root, origin, pointer, &name)?;
        self.define(&name, body);
        Ok(name)
    }

    fn schema_body(
        &mut self,
        object: &Map<String, Value>,
        root: &Value,
        origin: &str,
        pointer: &str,
        name: &str,
    ) -> Result<String, LocalError> {
        let fail = |reason: String| schema_error(origin, pointer, reason);

        if let Some(constant) = object.get("const") {
            return Ok(gbnf_literal(&constant.to_string()));
        }
        if let Some(values) = object.get("enum") {
            let values = values
                .as_array()
                .filter(|values| !values.is_empty())
                .ok_or_else(|| fail("`enum` must be a non-empty array".to_owned()))?;
            return Ok(values
                .iter()
                .map(|value| gbnf_literal(&value.to_string()))
                .collect::<Vec<_>>()
                .join(" | "));
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(options) = object.get(keyword) {
                let options = options
                    .as_array()
                    .filter(|options| !options.is_empty())
                    .ok_or_else(|| fail(format!("`{keyword}` must be a non-empty array")))?;
                let mut alternatives = Vec::with_capacity(options.len());
                for (i, option) in options.iter().enumerate() {
                    let merged = merge_siblings(object, option, keyword);
                    alternatives.push(self.schema(
                        &merged,
                        root,
                        origin,
                        &format!("{pointer}/{keyword}/{i}"),
                        &format!("{name}-{i}"),
                    )?);
                }
                return Ok(alternatives.join(" | "));
            }
        }
        if let Some(parts) = object.get("allOf") {
            let parts = parts
                .as_array()
                .ok_or_else(|| fail("`allOf` must be an array".to_owned()))?;
            let mut merged = object.clone();
            merged.remove("allOf");
            for part in parts {
                let part = match part.get("$ref").and_then(Value::as_str) {
                    Some(reference) => resolve_ref(root, reference).ok_or_else(|| {
                        fail(format!("`$ref` {reference:?} in allOf does not resolve"))
                    })?,
                    None => part,
                };
                merge_object_schema(&mut merged, part);
            }
            return self.schema_body(&merged, root, origin, pointer, name);
        }

        match object.get("type") {
            Some(Value::Array(types)) => {
                let mut alternatives = Vec::with_capacity(types.len());
                for kind in types {
                    let mut single = object.clone();
                    single.insert("type".to_owned(), kind.clone());
                    let kind_name = kind.as_str().unwrap_or("value");
                    alternatives.push(self.schema(
                        &Value::Object(single),
                        root,
                        origin,
                        pointer,
                        &format!("{name}-{kind_name}"),
                    )?);
                }
                if alternatives.is_empty() {
                    return Err(fail("`type` is an empty list".to_owned()));
                }
                Ok(alternatives.join(" | "))
            }
            Some(Value::String(kind)) => self.typed(kind, object, root, origin, pointer, name),
            Some(other) => Err(fail(format!(
                "`type` must be a string or a list of strings, found {other}"
            ))),
            None if object.contains_key("properties")
                || object.contains_key("additionalProperties") =>
            {
                self.typed("object", object, root, origin, pointer, name)
            }
            None if object.contains_key("items") || object.contains_key("prefixItems") => {
                self.typed("array", object, root, origin, pointer, name)
            }
            None => Ok(self.primitive("value")),
        }
    }

    fn typed(
        &mut self,
        kind: &str,
        object: &Map<String, Value>,
        root: &Value,
        origin: &str,
        pointer: &str,
        name: &str,
    ) -> Result<String, LocalError> {
        match kind {
            "string" => {
                let min = object.get("minLength").and_then(Value::as_u64);
                let max = object.get("maxLength").and_then(Value::as_u64);
                if min.is_none() && max.is_none() {
                    return Ok(self.primitive("string"));
                }
                let char_rule = self.primitive("char");
                let (min, max) = (
                    min.unwrap_or(0),
                    max.map_or_else(String::new, |m| m.to_string()),
                );
                Ok(format!(r#""\"" {char_rule}{{{min},{max}}} "\"""#))
            }
            "integer" => Ok(self.primitive("integer")),
            "number" => Ok(self.primitive("number")),
            "boolean" => Ok(self.primitive("boolean")),
            "null" => Ok(self.primitive("null")),
            "array" => self.array(object, root, origin, pointer, name),
            "object" => self.object(object, root, origin, pointer, name),
            other => Err(schema_error(
                origin,
                pointer,
                format!("unknown type {other:?}"),
            )),
        }
    }

    /// Between two items or a key and its value: `ws "<mark>" ws`, or the template's `"<mark> "`.
    fn separator(&mut self, mark: char) -> String {
        match self.layout {
            Layout::Free => {
                let ws = self.primitive("ws");
                format!(r#"{ws} "{mark}" {ws}"#)
            }
            Layout::Template => format!(r#""{mark} ""#),
        }
    }

    /// Inside brackets: `ws`, or nothing in the template's layout.
    fn inner(&mut self) -> String {
        match self.layout {
            Layout::Free => self.primitive("ws"),
            Layout::Template => String::new(),
        }
    }

    fn array(
        &mut self,
        object: &Map<String, Value>,
        root: &Value,
        origin: &str,
        pointer: &str,
        name: &str,
    ) -> Result<String, LocalError> {
        let ws = self.inner();
        let comma = self.separator(',');
        if let Some(prefix) = object.get("prefixItems").and_then(Value::as_array) {
            let mut items = Vec::with_capacity(prefix.len());
            for (i, item) in prefix.iter().enumerate() {
                items.push(self.schema(
                    item,
                    root,
                    origin,
                    &format!("{pointer}/prefixItems/{i}"),
                    &format!("{name}-{i}"),
                )?);
            }
            let joined = items.join(&format!(" {comma} "));
            return Ok(format!(r#""[" {ws} {joined} {ws} "]""#));
        }
        let item = match object.get("items") {
            Some(items) => self.schema(
                items,
                root,
                origin,
                &format!("{pointer}/items"),
                &format!("{name}-item"),
            )?,
            None => self.primitive("value"),
        };
        let min = object.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = object.get("maxItems").and_then(Value::as_u64);
        let more = format!("{comma} {item}");
        let list = match (min, max) {
            (_, Some(0)) => String::new(),
            (0, None) => format!("( {item} ( {more} )* )?"),
            (0, Some(max)) => format!("( {item} ( {more} ){{0,{}}} )?", max - 1),
            (min, None) => format!("{item} ( {more} ){{{},}}", min - 1),
            (min, Some(max)) => format!("{item} ( {more} ){{{},{}}}", min - 1, max.max(min) - 1),
        };
        Ok(format!(r#""[" {ws} {list} {ws} "]""#))
    }

    fn object(
        &mut self,
        object: &Map<String, Value>,
        root: &Value,
        origin: &str,
        pointer: &str,
        name: &str,
    ) -> Result<String, LocalError> {
        let ws = self.inner();
        let comma = self.separator(',');
        let colon = self.separator(':');
        let empty = Map::new();
        let properties = object
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let additional = object.get("additionalProperties");

        if properties.is_empty() {
            return match additional {
                Some(Value::Bool(false)) => Ok(format!(r#""{{" {ws} "}}""#)),
                Some(schema @ Value::Object(_)) => {
                    let value = self.schema(
                        schema,
                        root,
                        origin,
                        &format!("{pointer}/additionalProperties"),
                        &format!("{name}-value"),
                    )?;
                    let string = self.primitive("string");
                    let entry = format!("{string} {colon} {value}");
                    Ok(format!(
                        r#""{{" {ws} ( {entry} ( {comma} {entry} )* )? {ws} "}}""#
                    ))
                }
                _ => Ok(self.primitive("object")),
            };
        }

        // One rule per property: `"key" ws ":" ws value`.
        let mut entries = Vec::with_capacity(properties.len());
        for (key, property_schema) in properties {
            let value = self.schema(
                property_schema,
                root,
                origin,
                &format!("{pointer}/properties/{}", escape_pointer(key)),
                &format!("{name}-{key}"),
            )?;
            let key_literal = gbnf_literal(&Value::String(key.clone()).to_string());
            entries.push((
                format!("{key_literal} {colon} {value}"),
                required.contains(&key.as_str()),
            ));
        }

        // Properties keep their declared order; optional ones may be skipped. `rest(i, first)` matches the
        // properties from `i` on, where `first` says whether none has been written yet (no leading comma).
        // Optional properties get a helper rule per (index, first) pair.
        let body = self.object_rest(&entries, 0, true, name, &mut BTreeMap::new());
        Ok(format!(r#""{{" {ws} {body} {ws} "}}""#))
    }

    fn object_rest(
        &mut self,
        entries: &[(String, bool)],
        index: usize,
        first: bool,
        name: &str,
        memo: &mut BTreeMap<(usize, bool), String>,
    ) -> String {
        if let Some(done) = memo.get(&(index, first)) {
            return done.clone();
        }
        let Some((entry, required)) = entries.get(index) else {
            return String::new();
        };
        let written = if first {
            entry.clone()
        } else {
            match self.layout {
                Layout::Free => format!(r#""," ws {entry}"#),
                Layout::Template => format!(r#"", " {entry}"#),
            }
        };
        let after_written = self.object_rest(entries, index + 1, false, name, memo);
        let with_entry = format!("{written} {after_written}").trim_end().to_owned();
        let expression = if *required {
            with_entry
        } else {
            let without_entry = self.object_rest(entries, index + 1, first, name, memo);
            let rule = format!("{name}-rest-{index}{}", if first { "-first" } else { "" });
            let body = if without_entry.is_empty() {
                format!("( {with_entry} )?")
            } else {
                format!("{with_entry} | {without_entry}")
            };
            self.define(&rule, body);
            rule
        };
        memo.insert((index, first), expression.clone());
        expression
    }

    fn finish(self) -> String {
        let mut out = format!("root ::= {}\n", self.root);
        for (name, body) in &self.rules {
            let _ = writeln!(out, "{name} ::= {body}");
        }
        out
    }
}

/// `anyOf` branches inherit the sibling keywords of their parent (e.g. a shared `type`).
fn merge_siblings(parent: &Map<String, Value>, option: &Value, keyword: &str) -> Value {
    let Value::Object(option_map) = option else {
        return option.clone();
    };
    let mut merged = parent.clone();
    merged.remove(keyword);
    merged.retain(|key, _| {
        !matches!(
            key.as_str(),
            "description" | "title" | "default" | "examples"
        )
    });
    if merged.is_empty() || option_map.contains_key("$ref") {
        return option.clone();
    }
    for (key, value) in option_map {
        merged.insert(key.clone(), value.clone());
    }
    Value::Object(merged)
}

/// `allOf`: properties and `required` lists are combined; other keywords of `part` fill gaps.
fn merge_object_schema(target: &mut Map<String, Value>, part: &Value) {
    let Value::Object(part) = part else {
        return;
    };
    for (key, value) in part {
        match (key.as_str(), target.get_mut(key), value) {
            ("properties", Some(Value::Object(existing)), Value::Object(extra)) => {
                for (name, schema) in extra {
                    existing.insert(name.clone(), schema.clone());
                }
            }
            ("required", Some(Value::Array(existing)), Value::Array(extra)) => {
                for name in extra {
                    if !existing.contains(name) {
                        existing.push(name.clone());
                    }
                }
            }
            (_, None, _) => {
                target.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
}

fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A GBNF rule name (`[a-zA-Z0-9-]+`) derived from arbitrary text.
fn rule_name(hint: &str) -> String {
    let mut name = String::with_capacity(hint.len());
    for c in hint.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_matches('-').to_owned();
    if name.is_empty()
        || matches!(
            name.as_str(),
            "root"
                | "ws"
                | "string"
                | "char"
                | "integer"
                | "number"
                | "boolean"
                | "null"
                | "value"
                | "object"
                | "array"
                | "call"
                | "tool-call"
                | "final-answer"
        )
    {
        format!("{name}-schema").trim_start_matches('-').to_owned()
    } else {
        name
    }
}

/// A GBNF string literal matching `text` exactly.
fn gbnf_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The error for the schema at `pointer` (`/` for the root) of `origin`'s schema.
fn schema_error(origin: &str, pointer: &str, reason: String) -> LocalError {
    LocalError::Schema {
        location: format!(
            "{origin}: {}",
            if pointer.is_empty() { "/" } else { pointer }
        ),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn add_tool() -> ToolSpec {
        ToolSpec::new(
            "add",
            "Add two integers.",
            json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
        )
    }

    fn weather_tool() -> ToolSpec {
        ToolSpec::new(
            "get_weather",
            "Current weather of a city.",
            json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
            }, "required": ["city"]}),
        )
    }

    #[test]
    fn flat_object_with_required_integers() {
        insta::assert_snapshot!(json_schema_grammar(&add_tool().parameters, "test").unwrap());
    }

    #[test]
    fn nested_objects_arrays_enums_and_optional_fields() {
        let schema = json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": 80},
                "priority": {"enum": ["low", "high", 3, null]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                "owner": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "email": {"type": ["string", "null"]}
                    },
                    "required": ["name"]
                },
                "done": {"type": "boolean"}
            },
            "required": ["title", "owner"]
        });
        insta::assert_snapshot!(json_schema_grammar(&schema, "test").unwrap());
    }

    #[test]
    fn all_optional_fields_and_refs() {
        let schema = json!({
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "number"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                    }
                }
            },
            "type": "object",
            "properties": {
                "root": {"$ref": "#/$defs/Node"},
                "count": {"type": "integer"},
                "mode": {"const": "tree"}
            }
        });
        insta::assert_snapshot!(json_schema_grammar(&schema, "test").unwrap());
    }

    #[test]
    fn any_of_additional_properties_and_tuples() {
        let schema = json!({
            "anyOf": [
                {"type": "object", "additionalProperties": {"type": "integer"}},
                {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
                {"type": "array", "items": {"type": "boolean"}, "minItems": 2, "maxItems": 3}
            ]
        });
        insta::assert_snapshot!(json_schema_grammar(&schema, "test").unwrap());
    }

    #[test]
    fn auto_turn_grammar_with_two_tools() {
        let grammar = turn_grammar_in(
            &DecodingConstraint::Auto,
            &[weather_tool(), add_tool()],
            CallForm::Any,
        )
        .unwrap()
        .unwrap();
        insta::assert_snapshot!(grammar);
    }

    /// The template's form: one opening, the template's spacing, in objects, arrays and free values.
    #[test]
    fn auto_turn_grammar_in_the_template_form() {
        let note = ToolSpec::new(
            "note",
            "Keep a note.",
            json!({"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
                "payload": {}
            }, "required": ["tags"]}),
        );
        let grammar = turn_grammar(
            &DecodingConstraint::Auto,
            &[weather_tool(), add_tool(), note],
        )
        .unwrap()
        .unwrap();
        assert!(!grammar.contains(" ws"), "{grammar}");
        insta::assert_snapshot!(grammar);
    }

    #[test]
    fn require_tool_and_final_answer_grammars() {
        let require = turn_grammar(&DecodingConstraint::RequireTool, &[add_tool()])
            .unwrap()
            .unwrap();
        assert!(require.starts_with("root ::= tool-call\n"), "{require}");
        assert!(!require.contains("final-answer"), "{require}");
        let final_answer = turn_grammar(&DecodingConstraint::FinalAnswer, &[add_tool()])
            .unwrap()
            .unwrap();
        assert_eq!(
            final_answer,
            "root ::= final-answer\nfinal-answer ::= ( [A-Za-z0-9*#] | [^\\x00-\\x7F] ) [^\\x00]*\n"
        );
        assert_eq!(
            turn_grammar(&DecodingConstraint::FinalAnswer, &[])
                .unwrap()
                .unwrap(),
            final_answer
        );
    }

    #[test]
    fn unconstrained_without_tools_and_error_when_tool_required() {
        assert_eq!(turn_grammar(&DecodingConstraint::Auto, &[]).unwrap(), None);
        assert!(matches!(
            turn_grammar(&DecodingConstraint::RequireTool, &[]),
            Err(LocalError::NoToolsOffered)
        ));
    }

    #[test]
    fn bad_schemas_name_their_location() {
        let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}});
        let error = json_schema_grammar(&schema, "tool t")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "cannot build a grammar for the JSON Schema at tool t: /properties/x: `$ref` \"#/$defs/Missing\" does not point into this schema (only local references like #/$defs/Name are supported)"
        );
        let error = json_schema_grammar(&json!({"type": "widget"}), "tool t")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "cannot build a grammar for the JSON Schema at tool t: /: unknown type \"widget\""
        );
    }

    #[test]
    fn literals_escape_json_text() {
        assert_eq!(gbnf_literal(r#""a\"b""#), r#""\"a\\\"b\"""#);
        assert_eq!(gbnf_literal("x\ny\u{1}"), r#""x\ny\x01""#);
        assert_eq!(rule_name("get_weather-arguments"), "get-weather-arguments");
        assert_eq!(rule_name("value"), "value-schema");
    }
}
