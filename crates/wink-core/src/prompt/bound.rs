//! [`Prompt`]: a template with parameters bound, resolved and rendered.

use super::*;

#[derive(Debug, Clone)]
pub(super) enum Binding {
    Value(ParamsValue),
    Json { type_name: String, value: Value },
    Invalid(PromptError),
}

/// A template with bound params, ready to render; `O` is the template's output type.
pub struct Prompt<O = ()> {
    pub(super) template: PromptTemplate<O>,
    /// One group per `bind*` call, in call order (WINK's `bind(*params)`).
    pub(super) bindings: Vec<Vec<Binding>>,
}

impl<O> Clone for Prompt<O> {
    fn clone(&self) -> Self {
        Self {
            template: self.template.clone(),
            bindings: self.bindings.clone(),
        }
    }
}

impl<O> fmt::Debug for Prompt<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("template", &self.template.display_name())
            .field("bindings", &self.bindings.len())
            .finish()
    }
}

/// The params bound to a prompt, resolved by type.
#[derive(Debug, Clone, Default)]
pub struct ParamLookup {
    pub(super) by_type: HashMap<ParamsTypeId, ParamsValue>,
}

impl ParamLookup {
    /// The instance bound for `id`.
    pub fn get(&self, id: &ParamsTypeId) -> Option<&ParamsValue> {
        self.by_type.get(id)
    }
}

impl<O> Prompt<O> {
    /// A prompt over `template` with nothing bound.
    pub fn new(template: impl Into<PromptTemplate<O>>) -> Self {
        Self {
            template: template.into(),
            bindings: Vec::new(),
        }
    }

    /// The template.
    pub fn template(&self) -> &PromptTemplate<O> {
        &self.template
    }

    /// The same prompt without its output type (bindings and output spec kept).
    pub fn erase(&self) -> Prompt {
        Prompt {
            template: self.template.erase(),
            bindings: self.bindings.clone(),
        }
    }

    /// Bind a typed params instance. As WINK's `bind`, a later binding of the same params type
    /// replaces the earlier one.
    #[must_use]
    pub fn bind<P: SectionParams>(self, params: P) -> Self {
        let binding = match ParamsValue::from_typed(params) {
            Ok(v) => Binding::Value(v),
            Err(e) => Binding::Invalid(e),
        };
        self.bind_group(vec![binding])
    }

    /// Bind several params instances in one call (WINK's `bind(a, b, ...)`): they replace earlier
    /// bindings of their types, and two of the same type in this one call are an error at render
    /// (`Duplicate params type supplied to prompt.`).
    #[must_use]
    pub fn bind_values(self, values: impl IntoIterator<Item = ParamsValue>) -> Self {
        self.bind_group(values.into_iter().map(Binding::Value).collect())
    }

    /// Bind params given as JSON for the params type named `type_name` (replaces an earlier
    /// binding of that type).
    #[must_use]
    pub fn bind_json(self, type_name: impl Into<String>, value: Value) -> Self {
        self.bind_group(vec![Binding::Json {
            type_name: type_name.into(),
            value,
        }])
    }

    /// Bind a map of params type name → field values (`{"TaskParams": {"objective": "…"}}`) in
    /// one call.
    #[must_use]
    pub fn bind_all_json(self, params: &serde_json::Map<String, Value>) -> Self {
        self.bind_group(
            params
                .iter()
                .map(|(name, value)| Binding::Json {
                    type_name: name.clone(),
                    value: value.clone(),
                })
                .collect(),
        )
    }

    pub(super) fn bind_group(mut self, group: Vec<Binding>) -> Self {
        self.bindings.push(group);
        self
    }

    /// Resolve the bindings into a lookup, reporting WINK's binding errors.
    pub fn param_lookup(&self) -> Result<ParamLookup, PromptError> {
        let mut lookup = ParamLookup::default();
        for group in &self.bindings {
            let mut resolved: Vec<ParamsValue> = Vec::with_capacity(group.len());
            for binding in group {
                let value = self.resolve(binding)?;
                if resolved.iter().any(|v| v.type_id() == value.type_id()) {
                    return Err(PromptError::validation(
                        "Duplicate params type supplied to prompt.",
                    )
                    .with_params_type(value.type_name()));
                }
                resolved.push(value);
            }
            for value in resolved {
                lookup.by_type.insert(value.type_id().clone(), value);
            }
        }
        Ok(lookup)
    }

    pub(super) fn resolve(&self, binding: &Binding) -> Result<ParamsValue, PromptError> {
        let value = match binding {
            Binding::Invalid(e) => return Err(e.clone()),
            Binding::Value(v) => v.clone(),
            Binding::Json { type_name, value } => {
                let Some(ty) = self.template.params_type_named(type_name) else {
                    return Err(PromptError::validation(
                        "Unexpected params type supplied to prompt.",
                    )
                    .with_params_type(type_name.clone()));
                };
                ty.value_from_json(value.clone())?
            }
        };
        if !self
            .template
            .params_types()
            .iter()
            .any(|t| t.id() == value.type_id())
        {
            return Err(
                PromptError::validation("Unexpected params type supplied to prompt.")
                    .with_params_type(value.type_name()),
            );
        }
        Ok(value)
    }

    /// Render without a session (no visibility overrides, no session-based selectors).
    pub fn render(&self) -> Result<RenderedPrompt, PromptError> {
        render_prompt(&self.template.erase(), self.param_lookup()?, None)
    }

    /// Render with `session`: its `VisibilityOverrides` take precedence over section selectors.
    pub fn render_with(&self, session: &Session) -> Result<RenderedPrompt, PromptError> {
        render_prompt(&self.template.erase(), self.param_lookup()?, Some(session))
    }
}

impl<O: DeserializeOwned> Prompt<O> {
    /// [`PromptTemplate::parse_output`] for this prompt's template.
    ///
    /// # Errors
    /// As [`PromptTemplate::parse_output`].
    pub fn parse_output(&self, text: &str) -> Result<O, OutputError> {
        self.template.parse_output(text)
    }
}
