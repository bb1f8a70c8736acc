//! [`PromptTemplateBuilder`]: name, sections, disclosure and output type, then the
//! validated template.

use super::*;

/// Builder for [`PromptTemplate`]; `O` is the structured output type chosen with
/// [`PromptTemplateBuilder::output_object`] or [`PromptTemplateBuilder::output_list`].
pub struct PromptTemplateBuilder<O = ()> {
    pub(super) ns: String,
    pub(super) key: String,
    pub(super) name: Option<String>,
    pub(super) sections: Vec<SectionRef>,
    pub(super) disclosure: DisclosureMode,
    pub(super) name_hidden_tools: bool,
    pub(super) search_sections: SearchSections,
    pub(super) output: Option<OutputSpec>,
    pub(super) allow_extra_keys: bool,
    pub(super) output_type: PhantomData<fn() -> O>,
}

impl<O> fmt::Debug for PromptTemplateBuilder<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptTemplateBuilder")
            .field("ns", &self.ns)
            .field("key", &self.key)
            .field("name", &self.name)
            .field("sections", &self.sections.len())
            .field("disclosure", &self.disclosure)
            .field("output", &self.output)
            .field("allow_extra_keys", &self.allow_extra_keys)
            .finish()
    }
}

impl<O> PromptTemplateBuilder<O> {
    /// A human-readable name.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Add a root section.
    #[must_use]
    pub fn section<S: Section + 'static>(mut self, section: S) -> Self {
        self.sections.push(Arc::new(section));
        self
    }

    /// Add a shared root section.
    #[must_use]
    pub fn section_ref(mut self, section: SectionRef) -> Self {
        self.sections.push(section);
        self
    }

    /// The disclosure mode (default [`DisclosureMode::Unified`]).
    #[must_use]
    pub fn disclosure(mut self, mode: DisclosureMode) -> Self {
        self.disclosure = mode;
        self
    }

    /// Name the tools a summarized section hides in its summary suffix (default off; ignored in
    /// [`DisclosureMode::Wink`], which keeps WINK v0.17's texts). See
    /// [`crate::build_summary_suffix_naming_tools`].
    #[must_use]
    pub fn name_hidden_tools(mut self, on: bool) -> Self {
        self.name_hidden_tools = on;
        self
    }

    /// When the builtin `search_sections` tool is offered (default [`SearchSections::Auto`]: once
    /// the summaries hide [`crate::SEARCH_SECTIONS_AUTO_MIN`] sections or more; never in
    /// [`DisclosureMode::Wink`]).
    #[must_use]
    pub fn search_sections(mut self, setting: SearchSections) -> Self {
        self.search_sections = setting;
        self
    }

    /// Declare structured output from a JSON-level spec. The output type stays `O`: use this for
    /// specs read from files, and [`PromptTemplateBuilder::output`] /
    /// [`PromptTemplateBuilder::output_vec`] to tie the output to a Rust type.
    #[must_use]
    pub fn output_spec(mut self, output: OutputSpec) -> Self {
        self.output = Some(output);
        self
    }

    /// Declare structured output of type `T`, an object: the template becomes a
    /// `PromptTemplate<T>` and its answers decode into `T`. Keys the schema does not declare
    /// are refused unless [`PromptTemplateBuilder::allow_extra_keys`] is called too.
    #[must_use]
    pub fn output<T>(self) -> PromptTemplateBuilder<T>
    where
        T: schemars::JsonSchema + DeserializeOwned,
    {
        let spec = self.output_spec_of::<T>(wink_schema::OutputContainer::Object);
        self.with_output_type(spec)
    }

    /// Declare structured output as a list of `T` (wrapped under `"items"` on the wire): the
    /// template becomes a `PromptTemplate<Vec<T>>`. Extra keys as for
    /// [`PromptTemplateBuilder::output`].
    #[must_use]
    pub fn output_vec<T>(self) -> PromptTemplateBuilder<Vec<T>>
    where
        T: schemars::JsonSchema + DeserializeOwned,
    {
        let spec = self.output_spec_of::<T>(wink_schema::OutputContainer::Array);
        self.with_output_type(spec)
    }

    /// Accept keys the output schema does not declare (WINK's `allow_extra_keys`; default: they
    /// are refused). Applies to the structured output declared before or after this call.
    #[must_use]
    pub fn allow_extra_keys(mut self) -> Self {
        self.allow_extra_keys = true;
        self
    }

    /// [`PromptTemplateBuilder::output`], with extra keys allowed when `allow_extra_keys` is
    /// true (the positional form; prefer `.output::<T>()` and `.allow_extra_keys()`).
    #[must_use]
    pub fn output_object<T>(self, allow_extra_keys: bool) -> PromptTemplateBuilder<T>
    where
        T: schemars::JsonSchema + DeserializeOwned,
    {
        self.output::<T>().allow_extra_keys_if(allow_extra_keys)
    }

    /// [`PromptTemplateBuilder::output_vec`], with extra keys allowed when `allow_extra_keys` is
    /// true (the positional form; prefer `.output_vec::<T>()` and `.allow_extra_keys()`).
    #[must_use]
    pub fn output_list<T>(self, allow_extra_keys: bool) -> PromptTemplateBuilder<Vec<T>>
    where
        T: schemars::JsonSchema + DeserializeOwned,
    {
        self.output_vec::<T>().allow_extra_keys_if(allow_extra_keys)
    }

    pub(super) fn allow_extra_keys_if(self, allow: bool) -> Self {
        if allow { self.allow_extra_keys() } else { self }
    }

    pub(super) fn output_spec_of<T: schemars::JsonSchema>(
        &self,
        container: wink_schema::OutputContainer,
    ) -> OutputSpec {
        OutputSpec {
            name: self.output_name(),
            schema: crate::tool::params_schema::<T>(),
            container,
            allow_extra_keys: false,
        }
    }

    pub(super) fn output_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.key.clone())
    }

    pub(super) fn with_output_type<T>(self, spec: OutputSpec) -> PromptTemplateBuilder<T> {
        PromptTemplateBuilder {
            ns: self.ns,
            key: self.key,
            name: self.name,
            sections: self.sections,
            disclosure: self.disclosure,
            name_hidden_tools: self.name_hidden_tools,
            search_sections: self.search_sections,
            output: Some(spec),
            allow_extra_keys: self.allow_extra_keys,
            output_type: PhantomData,
        }
    }

    /// Validate the whole tree and build the template. Every error carries WINK's message and
    /// the path of the offending section.
    pub fn build(self) -> Result<PromptTemplate<O>, PromptError> {
        if python_strip(&self.ns).is_empty() {
            return Err(PromptError::validation(
                "Prompt namespace must be a non-empty string.",
            ));
        }
        if python_strip(&self.key).is_empty() {
            return Err(PromptError::validation(
                "Prompt key must be a non-empty string.",
            ));
        }
        let mut registry = Registry::default();
        registry.reserve(self.sections.iter().map(subtree_size).sum());
        for section in &self.sections {
            registry.register(section, None, 0)?;
        }
        Ok(PromptTemplate {
            data: Arc::new(TemplateData {
                ns: python_strip(&self.ns).to_owned(),
                key: python_strip(&self.key).to_owned(),
                name: self.name,
                disclosure: self.disclosure,
                name_hidden_tools: self.name_hidden_tools,
                search_sections: self.search_sections,
                section_ranking: Arc::new(wink_search::Bm25Ranking::default()),
                nodes: registry.nodes,
                params_types: registry.params_types,
                defaults_by_type: registry.defaults_by_type,
                output: self.output.map(|mut spec| {
                    spec.allow_extra_keys |= self.allow_extra_keys;
                    spec
                }),
            }),
            output_type: PhantomData,
        })
    }
}

/// The number of sections in the tree under `section`, itself included.
fn subtree_size(section: &SectionRef) -> usize {
    1 + section.children().iter().map(subtree_size).sum::<usize>()
}
