//! Sections: the nodes of a prompt tree. Each carries instructions (a template), optional
//! children, tools, an `enabled` predicate and a visibility (full or summary).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use wink_session::{SectionPath, SectionVisibility, Session};

use crate::error::PromptError;
use crate::params::{ParamsType, ParamsValue, SectionParams};
use crate::template::Template;
use crate::tool::ToolRef;

/// A shared, type-erased section.
pub type SectionRef = Arc<dyn Section>;

/// What selectors (enabled / visibility callables) can look at.
#[derive(Debug, Clone, Copy)]
pub struct SelectorInput<'a> {
    /// The section's resolved params (`None` for sections without params).
    pub params: Option<&'a ParamsValue>,
    /// The session, when rendering with one.
    pub session: Option<&'a Session>,
}

type EnabledFn = dyn Fn(SelectorInput<'_>) -> Result<bool, PromptError> + Send + Sync;
type VisibilityFn =
    dyn Fn(SelectorInput<'_>) -> Result<SectionVisibility, PromptError> + Send + Sync;

/// When a section renders.
#[derive(Clone)]
pub enum EnabledSelector {
    /// Always (the default) or never.
    Constant(bool),
    /// Computed from params and/or session state.
    Dynamic(Arc<EnabledFn>),
}

impl fmt::Debug for EnabledSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Constant(b) => write!(f, "Constant({b})"),
            Self::Dynamic(_) => f.write_str("Dynamic"),
        }
    }
}

/// How a section renders: in full or as its summary.
#[derive(Clone)]
pub enum VisibilitySelector {
    /// A fixed visibility.
    Constant(SectionVisibility),
    /// Computed from params and/or session state.
    Dynamic(Arc<VisibilityFn>),
}

impl fmt::Debug for VisibilitySelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Constant(v) => write!(f, "Constant({v})"),
            Self::Dynamic(_) => f.write_str("Dynamic"),
        }
    }
}

/// A node of the prompt tree. Object-safe; [`MarkdownSection`] is the usual implementation, and
/// builtin sections (workspace tools, tool catalogs, sub-agents) implement it too.
pub trait Section: Send + Sync + fmt::Debug {
    /// The heading title.
    fn title(&self) -> &str;
    /// The key as declared (normalised when the template is built).
    fn key(&self) -> &str;
    /// Child sections.
    fn children(&self) -> &[SectionRef] {
        &[]
    }
    /// Tools the section contributes while it is enabled and rendered in full.
    fn tools(&self) -> &[ToolRef] {
        &[]
    }
    /// Tools that depend on session state (e.g. catalog tools activated by `tool.describe`),
    /// offered after [`Section::tools`] while the section renders in full.
    fn session_tools(&self, session: Option<&Session>) -> Vec<ToolRef> {
        let _ = session;
        Vec::new()
    }
    /// The params type the section binds, if any.
    fn params_type(&self) -> Option<&ParamsType> {
        None
    }
    /// The section's default params.
    fn default_params(&self) -> Option<&ParamsValue> {
        None
    }
    /// The summary template text, if the section can be summarized.
    fn summary(&self) -> Option<&str> {
        None
    }
    /// A custom summary suffix (`${section_key}` and `${child_keys}` are substituted).
    fn summary_suffix(&self) -> Option<&str> {
        None
    }
    /// Placeholders used by the body template.
    fn placeholder_names(&self) -> BTreeSet<String> {
        BTreeSet::new()
    }
    /// Placeholders used by the summary template.
    fn summary_placeholder_names(&self) -> BTreeSet<String> {
        BTreeSet::new()
    }
    /// The first placeholder that `known` refuses: of the body template's, in sorted order, else
    /// of the summary template's (what building a template reports). Implementations may
    /// override it to look without building the sets of names.
    fn unknown_placeholder(&self, known: &dyn Fn(&str) -> bool) -> Option<String> {
        let body = self.placeholder_names();
        let summary = self.summary_placeholder_names();
        body.into_iter().chain(summary).find(|name| !known(name))
    }
    /// A construction problem recorded by a builder, reported when the template is built.
    fn construction_error(&self) -> Option<&PromptError> {
        None
    }
    /// Whether the section renders for these params and session.
    fn is_enabled(&self, input: SelectorInput<'_>) -> Result<bool, PromptError> {
        let _ = input;
        Ok(true)
    }
    /// The visibility the section's own selector asks for (session overrides are applied by
    /// the renderer before this is consulted).
    fn visibility(&self, input: SelectorInput<'_>) -> Result<SectionVisibility, PromptError> {
        let _ = input;
        Ok(SectionVisibility::Full)
    }
    /// The body text (without heading) at `visibility`.
    fn render_body(
        &self,
        params: Option<&ParamsValue>,
        visibility: SectionVisibility,
    ) -> Result<String, PromptError>;
    /// [`Section::render_body`], appended to `out` (what a whole prompt's render uses).
    /// Implementations may override it to write without a String of their own.
    fn render_body_into(
        &self,
        out: &mut String,
        params: Option<&ParamsValue>,
        visibility: SectionVisibility,
    ) -> Result<(), PromptError> {
        out.push_str(&self.render_body(params, visibility)?);
        Ok(())
    }
    /// Whether prompt overrides may replace this section's body.
    fn accepts_overrides(&self) -> bool {
        true
    }
    /// Rules over every tool call of the prompt (see [`crate::ToolPolicy`]), whatever this
    /// section's visibility.
    fn tool_policies(&self) -> Vec<crate::ToolPolicyRef> {
        Vec::new()
    }
}

/// WINK's heading: `"#" * (depth + 2)`, the number with a trailing period, the title and, when a
/// path is given, ` (dot.path)`. An empty number (standalone renders) is left out entirely.
///
/// ```
/// use wink_core::format_heading;
/// use wink_session::SectionPath;
/// let path = SectionPath::new(vec!["parent".into(), "nested".into()]);
/// assert_eq!(format_heading("Nested", 1, "1.2", Some(&path)), "### 1.2. Nested (parent.nested)");
/// assert_eq!(format_heading("Minimal", 0, "1", None), "## 1. Minimal");
/// ```
pub fn format_heading(
    title: &str,
    depth: usize,
    number: &str,
    path: Option<&SectionPath>,
) -> String {
    let mut out = String::with_capacity(title.len() + number.len() + 16);
    push_heading(&mut out, title, depth, number, path);
    out
}

/// [`format_heading`], appended to `out`.
fn push_heading(
    out: &mut String,
    title: &str,
    depth: usize,
    number: &str,
    path: Option<&SectionPath>,
) {
    for _ in 0..depth + 2 {
        out.push('#');
    }
    out.push(' ');
    let number = number.trim_end_matches('.');
    if !number.is_empty() {
        // A standalone render (context files) has no number: `## Title (key)`, not `## . Title`.
        out.push_str(number);
        out.push_str(". ");
    }
    out.push_str(crate::key::python_strip(title));
    if let Some(path) = path.filter(|p| !p.segments().is_empty()) {
        out.push_str(" (");
        for (index, segment) in path.segments().iter().enumerate() {
            if index > 0 {
                out.push('.');
            }
            out.push_str(segment);
        }
        out.push(')');
    }
}

/// Render a section the way WINK's `Section.render` does: heading, body, and the `Tools:` block
/// (when `with_tool_examples`), separated by blank lines.
pub fn render_section(
    section: &dyn Section,
    params: Option<&ParamsValue>,
    depth: usize,
    number: &str,
    path: Option<&SectionPath>,
    visibility: SectionVisibility,
    with_tool_examples: bool,
) -> Result<String, PromptError> {
    let mut out = String::new();
    let heading = Heading {
        depth,
        number,
        path,
    };
    render_section_into(
        &mut out,
        section,
        params,
        &heading,
        visibility,
        with_tool_examples,
    )?;
    Ok(out)
}

/// Where a section's heading puts it: depth, number and path (see [`format_heading`]).
pub(crate) struct Heading<'a> {
    pub(crate) depth: usize,
    pub(crate) number: &'a str,
    pub(crate) path: Option<&'a SectionPath>,
}

/// [`render_section`], appended to `out` (issue 22: a whole prompt's render writes every section
/// straight into its text).
pub(crate) fn render_section_into(
    out: &mut String,
    section: &dyn Section,
    params: Option<&ParamsValue>,
    heading: &Heading<'_>,
    visibility: SectionVisibility,
    with_tool_examples: bool,
) -> Result<(), PromptError> {
    push_heading(
        out,
        section.title(),
        heading.depth,
        heading.number,
        heading.path,
    );
    // Body and tools, each after a blank line when present.
    let before_body = out.len();
    out.push_str("\n\n");
    let body_start = out.len();
    section.render_body_into(out, params, visibility)?;
    if out.len() == body_start {
        out.truncate(before_body);
    }
    if with_tool_examples {
        let tools_block = crate::tool::render_tool_examples_block(section.tools());
        if !tools_block.is_empty() {
            out.push_str("\n\n");
            out.push_str(&tools_block);
        }
    }
    Ok(())
}

/// A section whose body is a `string.Template`-style template over its params.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
/// use wink_core::{MarkdownSection, Prompt, PromptTemplate};
///
/// #[derive(Serialize, Deserialize, JsonSchema, Clone)]
/// struct Task { objective: String }
///
/// let template = PromptTemplate::builder("demo", "task")
///     .section(MarkdownSection::new("Task", "task", "Do: ${objective}").params::<Task>())
///     .build()
///     .unwrap();
/// let rendered = Prompt::new(template).bind(Task { objective: "fix bug".into() }).render().unwrap();
/// assert_eq!(rendered.text, "## 1. Task (task)\n\nDo: fix bug");
/// ```
#[derive(Clone)]
pub struct MarkdownSection {
    title: String,
    key: String,
    template: Template,
    /// The summary template, and its text as given when that is not the template's source
    /// (dedented or stripped).
    summary: Option<(Option<String>, Template)>,
    summary_suffix: Option<String>,
    params_type: Option<ParamsType>,
    default_params: Option<ParamsValue>,
    children: Vec<SectionRef>,
    tools: Vec<ToolRef>,
    enabled: EnabledSelector,
    visibility: VisibilitySelector,
    accepts_overrides: bool,
    error: Option<PromptError>,
}

impl fmt::Debug for MarkdownSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MarkdownSection")
            .field("key", &self.key)
            .field("title", &self.title)
            .field("params", &self.params_type.as_ref().map(ParamsType::name))
            .field("children", &self.children.len())
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl MarkdownSection {
    /// A section titled `title` with key `key` and body `template` (dedented and stripped).
    pub fn new(
        title: impl Into<String>,
        key: impl Into<String>,
        template: impl AsRef<str>,
    ) -> Self {
        let template = Template::parse_section(template.as_ref());
        Self::with_template(title.into(), key.into(), template)
    }

    /// [`MarkdownSection::new`] from owned texts: the template is kept rather than copied when
    /// it needs no dedent or strip (prompt files: issue 22).
    pub fn from_owned(title: String, key: String, template: String) -> Self {
        Self::with_template(title, key, Template::parse_section_owned(template))
    }

    fn with_template(title: String, key: String, template: Template) -> Self {
        let error = invalid_placeholder_error(&template);
        Self {
            title,
            key,
            template,
            summary: None,
            summary_suffix: None,
            params_type: None,
            default_params: None,
            children: Vec::new(),
            tools: Vec::new(),
            enabled: EnabledSelector::Constant(true),
            visibility: VisibilitySelector::Constant(SectionVisibility::Full),
            accepts_overrides: true,
            error,
        }
    }

    fn record(&mut self, error: PromptError) {
        if self.error.is_none() {
            self.error = Some(error);
        }
    }

    /// Bind the section to params type `P`.
    #[must_use]
    pub fn params<P: SectionParams>(mut self) -> Self {
        self.params_type = Some(ParamsType::of::<P>());
        self
    }

    /// Bind the section to a runtime params type (prompt files).
    #[must_use]
    pub fn params_type(mut self, params_type: ParamsType) -> Self {
        self.params_type = Some(params_type);
        self
    }

    /// Default params (also sets the params type to `P` when none is set).
    #[must_use]
    pub fn default_params<P: SectionParams>(mut self, params: P) -> Self {
        let ty = ParamsType::of::<P>();
        match &self.params_type {
            None => self.params_type = Some(ty),
            Some(existing) if existing.id() != ty.id() => {
                self.record(
                    PromptError::validation("Section defaults must match section params type.")
                        .with_params_type(existing.name()),
                );
                return self;
            }
            Some(_) => {}
        }
        match ParamsValue::from_typed(params) {
            Ok(v) => self.default_params = Some(v),
            Err(e) => self.record(e),
        }
        self
    }

    /// Default params as JSON for the section's (runtime) params type.
    #[must_use]
    pub fn default_json(mut self, value: Value) -> Self {
        let Some(ty) = self.params_type.clone() else {
            self.record(PromptError::validation(
                "Section without parameters cannot define default_params.",
            ));
            return self;
        };
        match ty.value_from_json(value) {
            Ok(v) => self.default_params = Some(v),
            Err(e) => self.record(e),
        }
        self
    }

    /// The summary shown while the section is summarized (`${}` placeholders allowed).
    #[must_use]
    pub fn summary(mut self, summary: impl AsRef<str>) -> Self {
        let text = summary.as_ref();
        let parsed = Template::parse_section(text);
        let text = (parsed.source() != text).then(|| text.to_owned());
        if let Some(e) = invalid_placeholder_error(&parsed) {
            self.record(e.with_placeholder("summary"));
        }
        self.summary = Some((text, parsed));
        self
    }

    /// Replace the default summary suffix text (`${section_key}`, `${child_keys}` substituted).
    #[must_use]
    pub fn summary_suffix(mut self, suffix: impl Into<String>) -> Self {
        self.summary_suffix = Some(suffix.into());
        self
    }

    /// Render summarized (shorthand for `.visibility(SectionVisibility::Summary)`).
    #[must_use]
    pub fn summarized(self) -> Self {
        self.visibility(SectionVisibility::Summary)
    }

    /// A constant visibility.
    #[must_use]
    pub fn visibility(mut self, visibility: SectionVisibility) -> Self {
        self.visibility = VisibilitySelector::Constant(visibility);
        self
    }

    /// Visibility computed from the typed params.
    #[must_use]
    pub fn visibility_when<P: SectionParams>(
        mut self,
        f: impl Fn(&P) -> SectionVisibility + Send + Sync + 'static,
    ) -> Self {
        self.visibility = VisibilitySelector::Dynamic(Arc::new(move |input: SelectorInput<'_>| {
            typed_call::<P, _>(input, "visibility", &f)
        }));
        self
    }

    /// Visibility computed from params and/or session state.
    #[must_use]
    pub fn visibility_by(
        mut self,
        f: impl Fn(SelectorInput<'_>) -> SectionVisibility + Send + Sync + 'static,
    ) -> Self {
        self.visibility = VisibilitySelector::Dynamic(Arc::new(move |input| Ok(f(input))));
        self
    }

    /// A constant `enabled`.
    #[must_use]
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = EnabledSelector::Constant(enabled);
        self
    }

    /// `enabled` computed from the typed params.
    #[must_use]
    pub fn enabled_when<P: SectionParams>(
        mut self,
        f: impl Fn(&P) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.enabled = EnabledSelector::Dynamic(Arc::new(move |input: SelectorInput<'_>| {
            typed_call::<P, _>(input, "enabled", &f)
        }));
        self
    }

    /// `enabled` computed from params and/or session state.
    #[must_use]
    pub fn enabled_by(
        mut self,
        f: impl Fn(SelectorInput<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.enabled = EnabledSelector::Dynamic(Arc::new(move |input| Ok(f(input))));
        self
    }

    /// `enabled` read from a boolean field of the params (prompt files: `"enabled": "verbose"`).
    #[must_use]
    pub fn enabled_if_field(mut self, field: impl Into<String>) -> Self {
        let field = field.into();
        self.enabled =
            EnabledSelector::Dynamic(Arc::new(move |input: SelectorInput<'_>| {
                match input.params.and_then(|p| p.field(&field)) {
                    Some(Value::Bool(b)) => Ok(*b),
                    Some(Value::Null) | None => Ok(false),
                    Some(_) => Err(PromptError::render(format!(
                        "Enabled field '{field}' must be a boolean."
                    ))),
                }
            }));
        self
    }

    /// Add a child section.
    #[must_use]
    pub fn child<S: Section + 'static>(mut self, child: S) -> Self {
        self.children.push(Arc::new(child));
        self
    }

    /// Add a shared child section.
    #[must_use]
    pub fn child_ref(mut self, child: SectionRef) -> Self {
        self.children.push(child);
        self
    }

    /// Add shared child sections (a prompt file's: one allocation for them all).
    #[must_use]
    pub fn child_refs(mut self, children: Vec<SectionRef>) -> Self {
        if self.children.is_empty() {
            self.children = children;
        } else {
            self.children.extend(children);
        }
        self
    }

    /// Add a tool.
    #[must_use]
    pub fn tool(mut self, tool: ToolRef) -> Self {
        self.tools.push(tool);
        self
    }

    /// Add several tools.
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = ToolRef>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Whether prompt overrides may replace the body.
    #[must_use]
    pub fn accepts_overrides(mut self, accepts: bool) -> Self {
        self.accepts_overrides = accepts;
        self
    }

    /// The body template text after dedent and strip.
    pub fn template_text(&self) -> &str {
        self.template.source()
    }
}

fn invalid_placeholder_error(template: &Template) -> Option<PromptError> {
    template.first_invalid_placeholder().map(|(line, col)| {
        PromptError::validation(format!(
            "Invalid placeholder in string: line {line}, col {col}"
        ))
    })
}

fn typed_call<P: SectionParams, T>(
    input: SelectorInput<'_>,
    what: &str,
    f: &impl Fn(&P) -> T,
) -> Result<T, PromptError> {
    let Some(params) = input.params else {
        return Err(PromptError::render(format!(
            "Section {what} selector needs params but the section has none."
        )));
    };
    params.with_typed::<P, T>(|p| f(p)).ok_or_else(|| {
        PromptError::render(format!(
            "Section {what} selector got params of type '{}'.",
            params.type_name()
        ))
    })
}

impl Section for MarkdownSection {
    fn title(&self) -> &str {
        &self.title
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn children(&self) -> &[SectionRef] {
        &self.children
    }
    fn tools(&self) -> &[ToolRef] {
        &self.tools
    }
    fn params_type(&self) -> Option<&ParamsType> {
        self.params_type.as_ref()
    }
    fn default_params(&self) -> Option<&ParamsValue> {
        self.default_params.as_ref()
    }
    fn summary(&self) -> Option<&str> {
        self.summary
            .as_ref()
            .map(|(text, parsed)| text.as_deref().unwrap_or(parsed.source()))
    }
    fn summary_suffix(&self) -> Option<&str> {
        self.summary_suffix.as_deref()
    }
    fn placeholder_names(&self) -> BTreeSet<String> {
        self.template
            .placeholder_names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }
    fn summary_placeholder_names(&self) -> BTreeSet<String> {
        self.summary
            .as_ref()
            .map(|(_, t)| {
                t.placeholder_names()
                    .into_iter()
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }
    fn unknown_placeholder(&self, known: &dyn Fn(&str) -> bool) -> Option<String> {
        fn first<'t>(template: &'t Template, known: &dyn Fn(&str) -> bool) -> Option<&'t str> {
            template.placeholders().filter(|n| !known(n)).min()
        }
        first(&self.template, known)
            .or_else(|| self.summary.as_ref().and_then(|(_, t)| first(t, known)))
            .map(str::to_owned)
    }
    fn construction_error(&self) -> Option<&PromptError> {
        self.error.as_ref()
    }
    fn is_enabled(&self, input: SelectorInput<'_>) -> Result<bool, PromptError> {
        match &self.enabled {
            EnabledSelector::Constant(b) => Ok(*b),
            EnabledSelector::Dynamic(f) => f(input),
        }
    }
    fn visibility(&self, input: SelectorInput<'_>) -> Result<SectionVisibility, PromptError> {
        match &self.visibility {
            VisibilitySelector::Constant(v) => Ok(*v),
            VisibilitySelector::Dynamic(f) => f(input),
        }
    }
    fn render_body(
        &self,
        params: Option<&ParamsValue>,
        visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        let mut out = String::new();
        self.render_body_into(&mut out, params, visibility)?;
        Ok(out)
    }
    fn render_body_into(
        &self,
        out: &mut String,
        params: Option<&ParamsValue>,
        visibility: SectionVisibility,
    ) -> Result<(), PromptError> {
        let template = match (&self.summary, visibility) {
            (Some((_, summary)), SectionVisibility::Summary) => summary,
            _ => &self.template,
        };
        template.render_into(out, |name| params.and_then(|p| p.placeholder_text(name)))
    }
    fn accepts_overrides(&self) -> bool {
        self.accepts_overrides
    }
}
