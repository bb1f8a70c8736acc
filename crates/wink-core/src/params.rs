//! Section parameters: typed Rust structs and untyped (JSON) params types share one runtime
//! representation, so prompt files and Rust code render through the same path.

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::PromptError;

/// What a Rust type needs to be a section params type.
///
/// Blanket-implemented: derive `Serialize`, `Deserialize` and `JsonSchema` on a struct with
/// named fields. The type's default (the last step of parameter resolution) is what
/// deserializing `{}` yields — so a struct whose fields all have `#[serde(default)]` (or are
/// `Option`) has a default, and one with required fields does not (rendering without a bound
/// instance or section default then fails with `Missing parameters for section.`).
pub trait SectionParams: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static {}
impl<T> SectionParams for T where
    T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static
{
}

/// Identity of a params type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ParamsTypeId {
    /// A Rust type.
    Rust(TypeId),
    /// A params type declared by name (prompt files).
    Named(String),
}

/// The JSON type of a declared params field (prompt files).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// `"string"`.
    String,
    /// `"integer"`.
    Integer,
    /// `"number"`.
    Number,
    /// `"boolean"`.
    Boolean,
    /// `"array"`.
    Array,
    /// `"object"`.
    Object,
    /// No type constraint.
    Any,
}

impl FieldType {
    /// Parse a JSON-schema type name.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "string" => Self::String,
            "integer" => Self::Integer,
            "number" => Self::Number,
            "boolean" => Self::Boolean,
            "array" => Self::Array,
            "object" => Self::Object,
            "any" => Self::Any,
            _ => return None,
        })
    }

    /// The JSON-schema name.
    pub fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Array => "array",
            Self::Object => "object",
            Self::Any => "any",
        }
    }

    /// Whether `value` has this type.
    pub fn accepts(self, value: &Value) -> bool {
        match self {
            Self::String => value.is_string(),
            Self::Integer => value.is_i64() || value.is_u64(),
            Self::Number => value.is_number(),
            Self::Boolean => value.is_boolean(),
            Self::Array => value.is_array(),
            Self::Object => value.is_object(),
            Self::Any => true,
        }
    }
}

/// One field of a params type.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamField {
    /// Field name (placeholder name).
    pub name: String,
    /// JSON type.
    pub field_type: FieldType,
    /// Default value, when the field has one.
    pub default: Option<Value>,
}

type Decoded = (Arc<dyn Any + Send + Sync>, Map<String, Value>);
type Decoder = dyn Fn(&Value) -> Result<Decoded, String> + Send + Sync;

/// A params type: its identity, display name and fields.
/// Cheap to clone (one shared allocation): sections, templates and renders hold copies.
#[derive(Clone)]
pub struct ParamsType {
    data: Arc<ParamsTypeData>,
}

struct ParamsTypeData {
    /// Identity and display name, shared with every [`ParamsValue`] of the type.
    identity: Arc<(ParamsTypeId, String)>,
    fields: Vec<ParamField>,
    type_default: Option<Value>,
    /// [`ParamsType::type_default`], built on first use.
    default_value: OnceLock<Option<ParamsValue>>,
    decoder: Option<Arc<Decoder>>,
}

impl fmt::Debug for ParamsType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParamsType")
            .field("name", &self.data.identity.1)
            .field("fields", &self.data.fields)
            .finish_non_exhaustive()
    }
}

impl PartialEq for ParamsType {
    fn eq(&self, other: &Self) -> bool {
        self.data.identity.0 == other.data.identity.0
    }
}

impl ParamsType {
    /// The params type of Rust type `P`.
    pub fn of<P: SectionParams>() -> Self {
        let schema = schemars::schema_for!(P);
        let schema_value = schema.as_value();
        let name = schema_value
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| wink_session::short_type_name::<P>().to_owned());
        let fields = schema_value
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(field, spec)| ParamField {
                        name: field.clone(),
                        field_type: schema_field_type(spec),
                        default: spec.get("default").cloned(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let type_default = serde_json::from_value::<P>(Value::Object(Map::new()))
            .ok()
            .and_then(|p| serde_json::to_value(p).ok());
        let decoder: Arc<Decoder> = Arc::new(|value: &Value| {
            let typed = serde_json::from_value::<P>(value.clone()).map_err(|e| e.to_string())?;
            match serde_json::to_value(&typed).map_err(|e| e.to_string())? {
                Value::Object(fields) => {
                    Ok((Arc::new(typed) as Arc<dyn Any + Send + Sync>, fields))
                }
                _ => Err("params must serialize to a JSON object".to_owned()),
            }
        });
        Self::from_parts(
            ParamsTypeId::Rust(TypeId::of::<P>()),
            name,
            fields,
            type_default,
            Some(decoder),
        )
    }

    /// A params type declared by name with `fields` (prompt files). Its default exists when
    /// every field has a default.
    pub fn named(name: impl Into<String>, fields: Vec<ParamField>) -> Self {
        let type_default = fields
            .iter()
            .map(|f| f.default.clone().map(|d| (f.name.clone(), d)))
            .collect::<Option<Map<String, Value>>>()
            .map(Value::Object);
        let name = name.into();
        Self::from_parts(
            ParamsTypeId::Named(name.clone()),
            name,
            fields,
            type_default,
            None,
        )
    }

    fn from_parts(
        id: ParamsTypeId,
        name: String,
        fields: Vec<ParamField>,
        type_default: Option<Value>,
        decoder: Option<Arc<Decoder>>,
    ) -> Self {
        Self {
            data: Arc::new(ParamsTypeData {
                identity: Arc::new((id, name)),
                fields,
                type_default,
                default_value: OnceLock::new(),
                decoder,
            }),
        }
    }

    /// Identity.
    pub fn id(&self) -> &ParamsTypeId {
        &self.data.identity.0
    }

    /// Display name (`TaskParams`).
    pub fn name(&self) -> &str {
        &self.data.identity.1
    }

    /// Fields, in declaration order.
    pub fn fields(&self) -> &[ParamField] {
        &self.data.fields
    }

    /// Whether `name` is a field.
    pub fn has_field(&self, name: &str) -> bool {
        self.data.fields.iter().any(|f| f.name == name)
    }

    /// The type's own default instance (`P::deserialize({})`, or all field defaults).
    pub fn type_default(&self) -> Option<ParamsValue> {
        self.data
            .default_value
            .get_or_init(|| {
                self.data
                    .type_default
                    .as_ref()
                    .and_then(|v| self.value_from_json(v.clone()).ok())
            })
            .clone()
    }

    /// Build a params value from JSON: for Rust types the JSON is deserialized (and
    /// re-serialized, so every field is present); for named types fields are type-checked,
    /// defaults filled in and unknown or missing fields rejected.
    pub fn value_from_json(&self, value: Value) -> Result<ParamsValue, PromptError> {
        let Value::Object(object) = value else {
            return Err(PromptError::validation(format!(
                "Params for '{}' must be a JSON object.",
                self.data.identity.1
            ))
            .with_params_type(&self.data.identity.1));
        };
        match &self.data.decoder {
            Some(decode) => {
                let (typed, fields) = decode(&Value::Object(object)).map_err(|e| {
                    PromptError::validation(format!(
                        "Invalid params for '{}': {e}",
                        self.data.identity.1
                    ))
                    .with_params_type(&self.data.identity.1)
                })?;
                Ok(ParamsValue {
                    identity: Arc::clone(&self.data.identity),
                    fields: Arc::new(fields),
                    typed: Some(typed),
                })
            }
            None => {
                let mut filled = Map::new();
                for key in object.keys() {
                    if !self.has_field(key) {
                        return Err(PromptError::validation(format!(
                            "Extra keys not permitted: ['{key}']"
                        ))
                        .with_params_type(&self.data.identity.1)
                        .with_placeholder(key.clone()));
                    }
                }
                for field in &self.data.fields {
                    match object.get(&field.name).or(field.default.as_ref()) {
                        Some(v) => {
                            if !field.field_type.accepts(v) && !v.is_null() {
                                return Err(PromptError::validation(format!(
                                    "Field '{}' must be of type {}.",
                                    field.name,
                                    field.field_type.name()
                                ))
                                .with_params_type(&self.data.identity.1)
                                .with_placeholder(field.name.clone()));
                            }
                            filled.insert(field.name.clone(), v.clone());
                        }
                        None => {
                            return Err(PromptError::validation(format!(
                                "Missing required field: '{}'",
                                field.name
                            ))
                            .with_params_type(&self.data.identity.1)
                            .with_placeholder(field.name.clone()));
                        }
                    }
                }
                Ok(ParamsValue {
                    identity: Arc::clone(&self.data.identity),
                    fields: Arc::new(filled),
                    typed: None,
                })
            }
        }
    }
}

fn schema_field_type(spec: &Value) -> FieldType {
    match spec.get("type") {
        Some(Value::String(name)) => FieldType::from_name(name).unwrap_or(FieldType::Any),
        _ => FieldType::Any,
    }
}

/// A bound params instance: its JSON fields (what templates read) and, for Rust types, the
/// typed value (what typed selectors read).
#[derive(Clone)]
pub struct ParamsValue {
    /// The type's identity and display name (shared with its [`ParamsType`]).
    identity: Arc<(ParamsTypeId, String)>,
    fields: Arc<Map<String, Value>>,
    typed: Option<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for ParamsValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParamsValue")
            .field("type", &self.identity.1)
            .field("fields", &self.fields)
            .finish_non_exhaustive()
    }
}

impl ParamsValue {
    /// Wrap a Rust params instance.
    pub fn from_typed<P: SectionParams>(params: P) -> Result<Self, PromptError> {
        let name = ParamsType::of::<P>().name().to_owned();
        let fields = match serde_json::to_value(&params) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(
                    PromptError::validation("Prompt expects dataclass instances.")
                        .with_params_type(name),
                );
            }
            Err(e) => {
                return Err(PromptError::validation(format!(
                    "Params could not be serialized: {e}"
                ))
                .with_params_type(name));
            }
        };
        Ok(Self {
            identity: Arc::new((ParamsTypeId::Rust(TypeId::of::<P>()), name)),
            fields: Arc::new(fields),
            typed: Some(Arc::new(params)),
        })
    }

    /// The type identity.
    pub fn type_id(&self) -> &ParamsTypeId {
        &self.identity.0
    }

    /// The type's display name.
    pub fn type_name(&self) -> &str {
        &self.identity.1
    }

    /// The fields as JSON.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// One field.
    pub fn field(&self, name: &str) -> Option<&Value> {
        // Params have a few fields: a scan is cheaper than hashing the name (issue 22: every
        // placeholder of every rendered section is looked up here).
        if self.fields.len() <= 8 {
            self.fields
                .iter()
                .find(|(field, _)| *field == name)
                .map(|(_, value)| value)
        } else {
            self.fields.get(name)
        }
    }

    /// The typed value, when this instance is of Rust type `P`.
    pub fn typed<P: SectionParams + Clone>(&self) -> Option<Cow<'_, P>> {
        if let Some(p) = self.typed.as_ref().and_then(|t| t.downcast_ref::<P>()) {
            return Some(Cow::Borrowed(p));
        }
        serde_json::from_value::<P>(Value::Object((*self.fields).clone()))
            .ok()
            .map(Cow::Owned)
    }

    /// Borrow the typed value without cloning when it is stored typed; otherwise decode.
    pub(crate) fn with_typed<P: SectionParams, R>(&self, f: impl FnOnce(&P) -> R) -> Option<R> {
        if let Some(p) = self.typed.as_ref().and_then(|t| t.downcast_ref::<P>()) {
            return Some(f(p));
        }
        serde_json::from_value::<P>(Value::Object((*self.fields).clone()))
            .ok()
            .map(|p| f(&p))
    }

    /// The text a placeholder for `name` substitutes: strings verbatim, numbers as JSON,
    /// booleans `true`/`false`, null as the empty string, arrays and objects as compact JSON.
    pub fn placeholder_text(&self, name: &str) -> Option<Cow<'_, str>> {
        self.field(name).map(value_text)
    }
}

/// How a JSON value reads when substituted into a template.
pub fn value_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        Value::Null => Cow::Borrowed(""),
        Value::Bool(true) => Cow::Borrowed("true"),
        Value::Bool(false) => Cow::Borrowed("false"),
        other => Cow::Owned(other.to_string()),
    }
}
