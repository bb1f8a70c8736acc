//! What the index knows about one tool.

use serde::{Deserialize, Serialize};
use serde_json::Value;
/// Re-exported from `wink-schema`, the one copy both `wink-core` and the search use, so
/// listings and search agree.
pub use wink_schema::{first_sentence, namespace_of};

/// The searchable description of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolDocument {
    /// The tool's name as the model calls it, e.g. `file.read`.
    pub name: String,
    /// One line: the first sentence of the description.
    pub summary: String,
    /// The full description.
    pub description: String,
    /// Parameters, nested object properties flattened to dotted names (`options.depth`).
    pub parameters: Vec<ParamDoc>,
    /// Free-form labels (`filesystem`, `read-only`, …).
    pub tags: Vec<String>,
    /// The values of the parameters' `enum`s (`celsius`, `fahrenheit`), in schema order.
    #[serde(default)]
    pub enum_values: Vec<String>,
    /// The part of a dotted name before its last `.` (`file` for `file.read`).
    pub namespace: Option<String>,
}

/// One parameter of a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamDoc {
    /// The parameter name; nested properties are joined with `.` (`filter.status`).
    pub name: String,
    /// The parameter's description (empty when the schema has none).
    pub description: String,
}

/// Nested object properties deeper than this are not collected.
const MAX_PARAM_DEPTH: usize = 3;

impl ToolDocument {
    /// A document with no parameters or tags; the summary and namespace are derived.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        let name = name.into();
        let description = description.into();
        Self {
            summary: first_sentence(&description),
            namespace: namespace_of(&name).map(str::to_owned),
            name,
            description,
            parameters: Vec::new(),
            tags: Vec::new(),
            enum_values: Vec::new(),
        }
    }

    /// Builds a document from a tool's JSON-schema parameters (OpenAI `parameters`, MCP
    /// `inputSchema`). Properties of `object` parameters (and of arrays of objects) are collected
    /// as dotted names up to three levels deep, with the values of their `enum`s (strings as
    /// they are, numbers and booleans as written in JSON). Anything that is not a schema object
    /// yields no parameters.
    ///
    /// ```
    /// use serde_json::json;
    /// let doc = wink_search::ToolDocument::from_json_schema(
    ///     "file.read",
    ///     "Reads a file, e.g. a config. Returns its text.",
    ///     &json!({"type": "object", "properties": {"path": {"type": "string", "description": "File path."}}}),
    /// );
    /// assert_eq!(doc.summary, "Reads a file, e.g. a config.");
    /// assert_eq!(doc.namespace.as_deref(), Some("file"));
    /// assert_eq!(doc.parameters[0].name, "path");
    /// ```
    pub fn from_json_schema(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: &Value,
    ) -> Self {
        let mut document = Self::new(name, description);
        collect_params(
            parameters,
            "",
            0,
            &mut document.parameters,
            &mut document.enum_values,
        );
        document
    }

    /// Replaces the tags.
    #[must_use]
    pub fn with_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }
}

fn collect_params(
    schema: &Value,
    prefix: &str,
    depth: usize,
    out: &mut Vec<ParamDoc>,
    values: &mut Vec<String>,
) {
    if depth >= MAX_PARAM_DEPTH {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        if let Some(items) = schema.get("items") {
            collect_params(items, prefix, depth, out, values);
        }
        return;
    };
    for (name, property) in properties {
        let full_name = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        out.push(ParamDoc {
            name: full_name.clone(),
            description,
        });
        collect_enum(property, values);
        collect_params(property, &full_name, depth + 1, out, values);
    }
}

/// Appends the values of `schema`'s `enum` (and of its array items' `enum`).
fn collect_enum(schema: &Value, values: &mut Vec<String>) {
    let items = schema.get("items");
    for list in [
        schema.get("enum"),
        items.and_then(|items| items.get("enum")),
    ]
    .into_iter()
    .flatten()
    .filter_map(Value::as_array)
    {
        for value in list {
            match value {
                Value::String(text) => values.push(text.clone()),
                Value::Number(_) | Value::Bool(_) => values.push(value.to_string()),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_schema_parameters_are_flattened() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name."},
                "options": {
                    "type": "object",
                    "properties": {"units": {"type": "string", "description": "metric or imperial", "enum": ["metric", "imperial", null]}}
                },
                "days": {"type": "array", "items": {"enum": [1, 7, true]}},
                "tags": {"type": "array", "items": {"type": "object", "properties": {"key": {}}}}
            }
        });
        let doc = ToolDocument::from_json_schema("weather.get", "Weather. More.", &schema);
        let names: Vec<(&str, &str)> = doc
            .parameters
            .iter()
            .map(|p| (p.name.as_str(), p.description.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("city", "City name."),
                ("options", ""),
                ("options.units", "metric or imperial"),
                ("days", ""),
                ("tags", ""),
                ("tags.key", ""),
            ]
        );
        assert_eq!(doc.enum_values, ["metric", "imperial", "1", "7", "true"]);
        assert_eq!(doc.summary, "Weather.");
        assert_eq!(doc.namespace.as_deref(), Some("weather"));
        assert!(doc.tags.is_empty());
    }

    #[test]
    fn non_schema_parameters_yield_nothing() {
        for value in [
            json!(null),
            json!("x"),
            json!([1, 2]),
            json!({"properties": 3}),
        ] {
            assert!(
                ToolDocument::from_json_schema("t", "", &value)
                    .parameters
                    .is_empty()
            );
        }
    }
}
