//! `subagents`: a registry of sub-agent prompt files, offered to the model through
//! `dispatch_subagent` (seed 002).

use std::path::Path;

use indexmap::IndexMap;
use wink_agent::{PromptRegistry, PromptSubagentToolsSection};
use wink_core::SectionRef;

use crate::{Converter, FileFormat, PromptFileError, convert_file, parse_file};

/// Whether a section or one of its descendants holds tools.
fn has_tools(section: &SectionRef) -> bool {
    !section.tools().is_empty() || section.children().iter().any(has_tools)
}

impl Converter<'_> {
    /// The `subagents` section for `entries` (name → file relative to the prompt file). Every
    /// child is offered the tools of `roots` (the parent's root sections that hold tools).
    pub(crate) fn subagents(
        &self,
        entries: &IndexMap<String, String>,
        roots: &[SectionRef],
    ) -> Result<PromptSubagentToolsSection, PromptFileError> {
        let registry = PromptRegistry::new();
        for (name, file) in entries {
            let at = format!("subagents.{name}");
            let child = self.subagent_template(name, file, &at)?;
            registry.register(child).map_err(|e| self.invalid(&at, e))?;
        }
        let suite: Vec<SectionRef> = roots.iter().filter(|s| has_tools(s)).cloned().collect();
        PromptSubagentToolsSection::builder(registry)
            .tool_suite(suite)
            .build()
            .map_err(|e| self.invalid("subagents", e))
    }

    /// Load the sub-agent prompt file `file` registered as `name`.
    fn subagent_template(
        &self,
        name: &str,
        file: &str,
        at: &str,
    ) -> Result<std::sync::Arc<wink_core::PromptTemplate>, PromptFileError> {
        let path = self.base_dir.join(file);
        let shown = path.display().to_string();
        let format = FileFormat::from_path(&path).ok_or_else(|| {
            self.invalid(
                at,
                format!("'{file}' is not a prompt file (use .json, .toml, .yaml or .yml)"),
            )
        })?;
        let text = std::fs::read_to_string(&path)
            .map_err(|e| self.invalid(at, format!("cannot read {shown}: {e}")))?;
        let parsed = parse_file(&text, format, &shown).map_err(|e| self.invalid(at, e))?;
        if !parsed.subagents.is_empty() {
            return Err(self.invalid(
                at,
                format!("{shown}: a sub-agent prompt cannot declare subagents of its own"),
            ));
        }
        if parsed.key.trim() != name {
            return Err(self.invalid(
                at,
                format!(
                    "{shown} declares key '{}': the entry's name must be the prompt's key (the model dispatches it as prompt_key)",
                    parsed.key.trim()
                ),
            ));
        }
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| Path::new("."));
        let loaded = convert_file(parsed, base, &shown).map_err(|e| self.invalid(at, e))?;
        Ok(loaded.template)
    }
}
