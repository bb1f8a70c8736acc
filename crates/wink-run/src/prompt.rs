//! A prompt file loaded with its params bound and its visibility overrides applied:
//! [`PromptSpec`] → [`PreparedPrompt`].

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};
use wink_core::{DisclosureMode, Prompt, PromptTemplate, SectionPath, SectionVisibility};
use wink_promptfile::LoadedPrompt;
use wink_session::{Session, SetVisibilityOverride};

use crate::error::{Result, RunError};

/// The context window deferral decisions assume when the model's is unknown: the embedded
/// model's default window.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 8192;

/// Which prompt to run and how to show it: a prompt file, its params, section overrides and
/// disclosure settings. Every field but `file` is optional.
#[derive(Debug, Clone, Default)]
pub struct PromptSpec {
    /// The prompt file (.json, .toml, .yaml).
    pub file: PathBuf,
    /// Params: a JSON object mapping params type names to field values.
    pub params: Option<Value>,
    /// Sections to render in full (dot paths).
    pub expand: Vec<String>,
    /// Sections to render as their summaries (dot paths).
    pub summarize: Vec<String>,
    /// The disclosure mode (`unified`, `wink`, `open-sections`, `context-files`), or `expanded`:
    /// every summarized section rendered in full (no disclosure). `None`: the file's.
    pub disclosure: Option<String>,
    /// Summaries name the tools they hide (`None`: the file's `name_hidden_tools`).
    pub name_hidden_tools: Option<bool>,
    /// When the builtin `search_sections` tool is offered (`auto`, `on`, `off`; `None`: the
    /// file's `search_sections`).
    pub search_sections: Option<String>,
    /// Tool catalogs' deferral policy for every catalog section (`auto`, `auto:N`, `always`,
    /// `never`; `None`: each section's own `defer`).
    pub defer: Option<String>,
    /// How MCP servers' requests for the user's input are answered (`ask` or `decline`;
    /// `None`: ask on a terminal, decline otherwise).
    pub elicitation: Option<String>,
}

impl PromptSpec {
    /// The spec of `file` with nothing overridden.
    pub fn file(file: impl Into<PathBuf>) -> Self {
        Self {
            file: file.into(),
            ..Self::default()
        }
    }

    /// `params` given as JSON text (`--params`).
    ///
    /// # Errors
    /// [`RunError::Usage`] naming `--params` when the text is not a JSON object.
    pub fn params_json(text: &str) -> Result<Value> {
        match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => Ok(value),
            Ok(_) => Err(RunError::usage(
                "--params: expected a JSON object mapping params type names to field values",
            )),
            Err(e) => Err(RunError::usage(format!("--params: invalid JSON: {e}"))),
        }
    }

    /// Whether every summarized section is to be rendered in full (`disclosure: expanded`).
    #[must_use]
    pub fn expanded(&self) -> bool {
        self.disclosure.as_deref() == Some("expanded")
    }

    /// Load the file in a new session, bind params and apply overrides.
    ///
    /// # Errors
    /// [`RunError::Usage`] for every problem, naming the flag or file.
    pub fn load(&self) -> Result<PreparedPrompt> {
        self.load_in(Session::new())
    }

    /// As [`PromptSpec::load`], applying the overrides to an existing session.
    ///
    /// # Errors
    /// As [`PromptSpec::load`].
    pub fn load_in(&self, session: Session) -> Result<PreparedPrompt> {
        register_run_events(&session);
        crate::trace::attach(&session);
        let defer = match &self.defer {
            None => None,
            Some(text) => Some(
                text.parse::<wink_catalog::DeferPolicy>()
                    .map_err(|e| RunError::usage(format!("--defer: {e}")))?,
            ),
        };
        let mut loaded =
            wink_promptfile::load(&self.file).map_err(|e| RunError::usage(e.to_string()))?;
        if let Some(mode) = self.disclosure.as_deref().filter(|m| *m != "expanded") {
            let mode: DisclosureMode = mode
                .parse()
                .map_err(|e: String| RunError::usage(format!("--disclosure: {e}")))?;
            loaded.template = Arc::new(loaded.template.with_disclosure(mode));
        }
        if let Some(on) = self.name_hidden_tools {
            loaded.template = Arc::new(loaded.template.with_hidden_tool_names(on));
        }
        if let Some(when) = &self.search_sections {
            let setting: wink_core::SearchSections = when
                .parse()
                .map_err(|e: String| RunError::usage(format!("--search-sections: {e}")))?;
            loaded.template = Arc::new(loaded.template.with_search_sections(setting));
        }
        let params = self.checked_params(&loaded.template)?;
        let mut expand = self.expand.clone();
        if self.expanded() {
            expand.extend(summarized_keys(&loaded.template));
        }
        for (keys, visibility, flag) in [
            (&expand, SectionVisibility::Full, "--expand"),
            (&self.summarize, SectionVisibility::Summary, "--summarize"),
        ] {
            for key in keys {
                let path = override_path(&loaded.template, key, visibility, flag)?;
                session.dispatch(SetVisibilityOverride { path, visibility });
            }
        }
        let prompt = Prompt::new(loaded.template.clone()).bind_all_json(&params);
        let mut resources = wink_core::Resources::new();
        if let Some(fs) = &loaded.filesystem {
            resources = resources.with::<Arc<dyn wink_fs::Filesystem>>(fs.clone());
        }
        resources = resources.with(self.client_answers(&loaded)?);
        let mut prepared = PreparedPrompt {
            file: self.file.clone(),
            expanded: self.expanded(),
            loaded,
            prompt,
            session,
            resources,
            defer,
            decisions: Vec::new(),
        };
        prepared.decide_catalogs(DEFAULT_CONTEXT_WINDOW)?;
        Ok(prepared)
    }

    /// How the run's MCP client answers servers' requests for input: the elicitation policy,
    /// and the workspace folder as the one root.
    fn client_answers(&self, loaded: &LoadedPrompt) -> Result<wink_mcp::ClientAnswers> {
        let elicitation = match &self.elicitation {
            Some(policy) => policy
                .parse()
                .map_err(|e: String| RunError::usage(format!("--elicitation: {e}")))?,
            None => wink_mcp::ElicitationPolicy::for_this_terminal(),
        };
        let roots = loaded
            .workspace_root
            .iter()
            .filter_map(|root| std::fs::canonicalize(root).ok())
            .map(|root| format!("file://{}", root.display()))
            .collect();
        Ok(wink_mcp::ClientAnswers {
            elicitation,
            roots,
            // A run sets its model (`PreparedRun`).
            sampler: None,
        })
    }

    fn checked_params(&self, template: &PromptTemplate) -> Result<Map<String, Value>> {
        let params = match &self.params {
            None => Map::new(),
            Some(Value::Object(map)) => map.clone(),
            Some(_) => {
                return Err(RunError::usage(
                    "--params: expected a JSON object mapping params type names to field values",
                ));
            }
        };
        for (name, value) in &params {
            if template.params_type_named(name).is_none() {
                return Err(RunError::usage(format!(
                    "--params: unknown params type '{name}' (declared: {})",
                    declared_types(template)
                )));
            }
            if !value.is_object() {
                return Err(RunError::usage(format!(
                    "--params: the value for '{name}' must be a JSON object of fields"
                )));
            }
        }
        Ok(params)
    }
}

/// The path of the section `key` names for a `flag` override to `visibility`.
fn override_path(
    template: &PromptTemplate,
    key: &str,
    visibility: SectionVisibility,
    flag: &str,
) -> Result<SectionPath> {
    let node = template.find_section(key).ok_or_else(|| {
        RunError::usage(format!(
            "{flag}: unknown section key '{key}' (known: {})",
            known_keys(template)
        ))
    })?;
    if visibility == SectionVisibility::Summary && node.section.summary().is_none() {
        return Err(RunError::usage(format!(
            "{flag}: section '{key}' has no summary"
        )));
    }
    Ok(node.path.clone())
}

/// The dotted keys of the sections that have a summary.
fn summarized_keys(template: &PromptTemplate) -> Vec<String> {
    template
        .nodes()
        .iter()
        .filter(|n| n.section.summary().is_some())
        .map(|n| n.path.dotted())
        .collect()
}

/// A prompt ready to render, with the session holding the requested overrides.
#[derive(Debug)]
pub struct PreparedPrompt {
    /// The prompt file, as given.
    pub file: PathBuf,
    /// Every summarized section is shown in full (`disclosure: expanded`).
    pub expanded: bool,
    /// The loaded file.
    pub loaded: LoadedPrompt,
    /// The prompt, params bound.
    pub prompt: Prompt,
    /// The session the overrides are in.
    pub session: Session,
    /// Tool resources (the workspace filesystem, when the file has one).
    pub resources: wink_core::Resources,
    /// The deferral policy that overrides each catalog section's.
    pub defer: Option<wink_catalog::DeferPolicy>,
    /// Each catalog section's deferral decision: (section path, decision).
    pub decisions: Vec<(String, wink_catalog::DeferDecision)>,
}

impl PreparedPrompt {
    /// The prompt file, for messages.
    #[must_use]
    pub fn loaded_file(&self) -> std::path::Display<'_> {
        self.file.display()
    }

    /// Decides, for a model with `context_window` tokens, which catalog sections are deferred
    /// (the spec's `defer` overrides each section's policy).
    ///
    /// # Errors
    /// [`RunError::Usage`] naming the catalog section.
    pub fn decide_catalogs(&mut self, context_window: u64) -> Result<()> {
        self.decisions.clear();
        for section in &self.loaded.catalogs {
            let decision = match self.defer {
                Some(policy) => section.redecide(policy, context_window),
                None => section.decide(context_window),
            }
            .map_err(|e| RunError::usage(format!("{}: {e}", section.path().dotted())))?;
            self.decisions.push((section.path().dotted(), decision));
        }
        Ok(())
    }

    /// Leaves the prompt's section tree (and `rendered`) allocated when a one-shot command
    /// ends: the process exits right after, and freeing a tree of thousands of sections one
    /// allocation at a time costs about as much as building it. Everything else `self` holds
    /// (MCP servers, the session) is dropped as usual.
    pub fn keep_until_exit<T>(&self, rendered: T) {
        std::mem::forget(Arc::clone(&self.loaded.template));
        std::mem::forget(rendered);
    }
}

fn declared_types(template: &PromptTemplate) -> String {
    let names: Vec<&str> = template.params_types().iter().map(|t| t.name()).collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

fn known_keys(template: &PromptTemplate) -> String {
    template
        .nodes()
        .iter()
        .map(|n| n.path.dotted())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Registers the event types a run dispatches only once something happens (a catalog tool
/// activated, a sub-agent run, a repaired turn), so that a session log or a durable run's
/// stream holding them replays into a fresh session.
pub fn register_run_events(session: &Session) {
    session.register_event::<wink_catalog::CatalogToolsActivated>();
    session.register_event::<wink_catalog::CatalogNativeSearch>();
    session.register_event::<wink_agent::SubagentRun>();
    session.register_event::<wink_agent::SubagentEvent>();
}
