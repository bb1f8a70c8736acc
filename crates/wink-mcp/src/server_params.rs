//! The prompt's params as MCP sees them: the arguments of the prompt `ns:key` (`prompts/get`)
//! and the query of a parameterised section's resource template
//! (`wink://NS/KEY/SECTION{?field,...}`). A value given there replaces the served one (the
//! `--params` binding, else the section's or the type's default) for that render only.
//!
//! MCP sends prompt arguments and URI parameters as text: a string field takes the text as it
//! is, any other field reads it as JSON (`3`, `true`, `["a"]`).

use rmcp::ErrorData;
use rmcp::model::PromptArgument;
use serde_json::{Map, Value};
use wink_core::{FieldType, ParamField, ParamsType, Prompt};

use crate::server::PromptServer;

/// A params field offered as a prompt argument: the argument's name (the field's, or
/// `Type.field` when two types have a field of that name), its type and field.
#[derive(Debug, Clone)]
pub(crate) struct ParamArgument {
    pub(crate) name: String,
    pub(crate) params_type: ParamsType,
    pub(crate) field: ParamField,
}

impl PromptServer {
    /// Every field of every params type of the prompt, as prompt arguments (in declaration
    /// order).
    pub(crate) fn param_arguments(&self) -> Vec<ParamArgument> {
        let types = self.prompt().template().params_types();
        let clashes = |name: &str| {
            types
                .iter()
                .filter(|t| t.fields().iter().any(|f| f.name == name))
                .count()
                > 1
        };
        types
            .iter()
            .flat_map(|t| {
                t.fields().iter().map(|field| ParamArgument {
                    name: if clashes(&field.name) {
                        format!("{}.{}", t.name(), field.name)
                    } else {
                        field.name.clone()
                    },
                    params_type: t.clone(),
                    field: field.clone(),
                })
            })
            .collect()
    }

    /// The prompt arguments `prompts/list` shows: none is required (the served values fill in).
    pub(crate) fn prompt_arguments(&self) -> Vec<PromptArgument> {
        self.param_arguments()
            .into_iter()
            .map(|argument| {
                let served = self
                    .served_fields(&argument.params_type)
                    .get(&argument.field.name)
                    .map(|v| format!("; absent: {}", short(v)))
                    .unwrap_or_default();
                PromptArgument::new(argument.name)
                    .with_description(format!(
                        "Field '{}' of the params '{}' ({}){served}.",
                        argument.field.name,
                        argument.params_type.name(),
                        type_words(argument.field.field_type)
                    ))
                    .with_required(false)
            })
            .collect()
    }

    /// The prompt with the `prompts/get` arguments bound over the served params (an unknown
    /// argument or a value of the wrong type is `-32602`).
    pub(crate) fn prompt_with_arguments(
        &self,
        arguments: Option<&Map<String, Value>>,
    ) -> Result<Prompt, ErrorData> {
        let offered = self.param_arguments();
        let mut given: Vec<(&ParamArgument, Value)> = Vec::new();
        for (name, value) in arguments.into_iter().flatten() {
            let argument = offered.iter().find(|a| &a.name == name).ok_or_else(|| {
                let names: Vec<&str> = offered.iter().map(|a| a.name.as_str()).collect();
                ErrorData::invalid_params(
                    format!(
                        "Unknown argument '{name}' of prompt '{}'. Its arguments: {}.",
                        self.prompt_name(),
                        if names.is_empty() {
                            "none".to_owned()
                        } else {
                            names.join(", ")
                        }
                    ),
                    None,
                )
            })?;
            let value = match value {
                Value::String(text) => field_value(&argument.field, text),
                other => Ok(other.clone()),
            }
            .map_err(|why| ErrorData::invalid_params(format!("Argument '{name}': {why}"), None))?;
            given.push((argument, value));
        }
        let mut prompt = self.prompt().clone();
        for params_type in self.prompt().template().params_types() {
            let fields: Vec<(String, Value)> = given
                .iter()
                .filter(|(a, _)| a.params_type == *params_type)
                .map(|(a, v)| (a.field.name.clone(), v.clone()))
                .collect();
            if !fields.is_empty() {
                prompt = self.bind_fields(prompt, params_type, fields);
            }
        }
        Ok(prompt)
    }

    /// `prompt` with `fields` of `params_type` bound over the served values.
    pub(crate) fn bind_fields(
        &self,
        prompt: Prompt,
        params_type: &ParamsType,
        fields: Vec<(String, Value)>,
    ) -> Prompt {
        let mut merged = self.served_fields(params_type);
        merged.extend(fields);
        prompt.bind_json(params_type.name(), Value::Object(merged))
    }

    /// The values a params type renders with now: the type's default, a section's default, the
    /// bound value, each over the one before.
    pub(crate) fn served_fields(&self, params_type: &ParamsType) -> Map<String, Value> {
        let mut fields = Map::new();
        if let Some(default) = params_type.type_default() {
            fields.extend(default.fields().clone());
        }
        let template = self.prompt().template();
        if let Some(default) = template
            .nodes()
            .iter()
            .filter(|n| n.section.params_type() == Some(params_type))
            .find_map(|n| n.section.default_params())
        {
            fields.extend(default.fields().clone());
        }
        if let Ok(lookup) = self.prompt().param_lookup()
            && let Some(bound) = lookup.get(params_type.id())
        {
            fields.extend(bound.fields().clone());
        }
        fields
    }
}

/// A field's value from MCP's text: the text itself for a string field, else the text read as
/// JSON.
pub(crate) fn field_value(field: &ParamField, text: &str) -> Result<Value, String> {
    if matches!(field.field_type, FieldType::String) {
        return Ok(Value::String(text.to_owned()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) if field.field_type.accepts(&value) => Ok(value),
        _ if matches!(field.field_type, FieldType::Any) => Ok(Value::String(text.to_owned())),
        _ => Err(format!(
            "'{text}' is not {} (field '{}')",
            type_words(field.field_type),
            field.name
        )),
    }
}

/// "a string", "an integer", ...
pub(crate) fn type_words(field_type: FieldType) -> &'static str {
    match field_type {
        FieldType::String => "a string",
        FieldType::Integer => "an integer",
        FieldType::Number => "a number",
        FieldType::Boolean => "a boolean",
        FieldType::Array => "a JSON array",
        FieldType::Object => "a JSON object",
        _ => "any value",
    }
}

/// A served value as a description shows it: strings quoted, at most 60 characters.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        return text;
    }
    let cut: String = text.chars().take(57).collect();
    format!("{cut}...")
}
