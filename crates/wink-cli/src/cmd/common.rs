//! Options shared by the subcommands that take a prompt file.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use serde_json::{Map, Value};
use wink_core::{DisclosureMode, Prompt, PromptTemplate, SectionPath, SectionVisibility};
use wink_promptfile::LoadedPrompt;
use wink_session::{Session, SetVisibilityOverride};

use crate::exit::usage;

/// A prompt file plus params, visibility overrides and disclosure mode.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// The prompt file (.json, .toml, .yaml).
    pub file: PathBuf,
    /// Params as JSON: params type name → field values, e.g. '{"TaskParams": {"objective": "fix bug"}}'.
    #[arg(long, value_name = "JSON")]
    pub params: Option<String>,
    /// Render this section in full (dot path); repeatable.
    #[arg(long = "expand", value_name = "KEY")]
    pub expand: Vec<String>,
    /// Render this section as its summary (dot path); repeatable.
    #[arg(long = "summarize", value_name = "KEY")]
    pub summarize: Vec<String>,
    /// Disclosure mode: unified, wink, open-sections or context-files (default: the file's).
    #[arg(long, value_name = "MODE")]
    pub disclosure: Option<String>,
}

/// A prompt ready to render, with the session holding the requested overrides.
#[derive(Debug)]
pub struct PreparedPrompt {
    pub loaded: LoadedPrompt,
    pub prompt: Prompt,
    pub session: Session,
    pub resources: wink_core::Resources,
}

impl PromptArgs {
    /// Load the file, bind params and apply overrides. Every problem is a usage error.
    pub fn prepare(&self) -> anyhow::Result<PreparedPrompt> {
        self.prepare_in(Session::new())
    }

    /// As [`PromptArgs::prepare`], applying the overrides to an existing session.
    pub fn prepare_in(&self, session: Session) -> anyhow::Result<PreparedPrompt> {
        let mut loaded = wink_promptfile::load(&self.file).map_err(|e| usage(e.to_string()))?;
        if let Some(mode) = &self.disclosure {
            let mode: DisclosureMode = mode
                .parse()
                .map_err(|e: String| usage(format!("--disclosure: {e}")))?;
            loaded.template = Arc::new(loaded.template.with_disclosure(mode));
        }
        let params = match &self.params {
            None => Map::new(),
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => {
                    return Err(usage(
                        "--params: expected a JSON object mapping params type names to field values",
                    ));
                }
                Err(e) => return Err(usage(format!("--params: invalid JSON: {e}"))),
            },
        };
        for (name, value) in &params {
            if loaded.template.params_type_named(name).is_none() {
                return Err(usage(format!(
                    "--params: unknown params type '{name}' (declared: {})",
                    declared_types(&loaded.template)
                )));
            }
            if !value.is_object() {
                return Err(usage(format!(
                    "--params: the value for '{name}' must be a JSON object of fields"
                )));
            }
        }
        for (keys, visibility, flag) in [
            (&self.expand, SectionVisibility::Full, "--expand"),
            (&self.summarize, SectionVisibility::Summary, "--summarize"),
        ] {
            for key in keys {
                let node = loaded.template.find_section(key).ok_or_else(|| {
                    usage(format!(
                        "{flag}: unknown section key '{key}' (known: {})",
                        known_keys(&loaded.template)
                    ))
                })?;
                if visibility == SectionVisibility::Summary && node.section.summary().is_none() {
                    return Err(usage(format!("{flag}: section '{key}' has no summary")));
                }
                let path: SectionPath = node.path.clone();
                session.dispatch(SetVisibilityOverride { path, visibility });
            }
        }
        let prompt = Prompt::new(loaded.template.clone()).bind_all_json(&params);
        let mut resources = wink_core::Resources::new();
        if let Some(fs) = &loaded.filesystem {
            resources = resources.with::<Arc<dyn wink_fs::Filesystem>>(fs.clone());
        }
        Ok(PreparedPrompt {
            loaded,
            prompt,
            session,
            resources,
        })
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
