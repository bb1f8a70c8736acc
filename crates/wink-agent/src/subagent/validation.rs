//! Checking and normalising a dispatch request.

use wink_session::SNAPSHOT_VERSION;

use super::section::Shared;
use super::{
    DispatchSubagent, DispatchSubagentError, MAX_ARTIFACT_CHARS, MAX_INSTRUCTIONS_CHARS,
    SubagentMode,
};

fn ascii_problem(field: &str, text: &str) -> Option<String> {
    text.chars()
        .position(|c| !c.is_ascii())
        .map(|at| format!("{field} must be ASCII text (non-ASCII character at position {at})."))
}

impl Shared {
    /// Check and normalise (trim) a request.
    pub(super) fn validate(
        &self,
        mut request: DispatchSubagent,
        depth: u32,
    ) -> Result<DispatchSubagent, DispatchSubagentError> {
        let mut problems: Vec<String> = Vec::new();
        request.instructions = request.instructions.trim().to_owned();
        let length = request.instructions.chars().count();
        if length == 0 {
            problems.push("instructions must not be empty.".to_owned());
        } else if let Some(p) = ascii_problem("instructions", &request.instructions) {
            problems.push(p);
        } else if length > MAX_INSTRUCTIONS_CHARS {
            problems.push(format!(
                "instructions must be at most {MAX_INSTRUCTIONS_CHARS} characters after trimming (got {length})."
            ));
        }
        for (index, artifact) in request.expected_artifacts.iter_mut().enumerate() {
            *artifact = artifact.trim().to_owned();
            let field = format!("expected_artifacts[{index}]");
            let length = artifact.chars().count();
            if length == 0 {
                problems.push(format!("{field} must not be empty."));
            } else if let Some(p) = ascii_problem(&field, artifact) {
                problems.push(p);
            } else if length > MAX_ARTIFACT_CHARS {
                problems.push(format!(
                    "{field} must be at most {MAX_ARTIFACT_CHARS} characters (got {length})."
                ));
            }
        }
        request.plan_step_id = request
            .plan_step_id
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        if request.mode == SubagentMode::PlanStep && request.plan_step_id.is_none() {
            problems.push("plan_step_id is required when mode is \"plan_step\".".to_owned());
        }
        request.snapshot_version = request
            .snapshot_version
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        if let Some(version) = &request.snapshot_version
            && version != SNAPSHOT_VERSION
        {
            problems.push(format!(
                "snapshot_version \"{version}\" is not compatible with this session (snapshot version \"{SNAPSHOT_VERSION}\")."
            ));
        }
        request.prompt_ns = request.prompt_ns.trim().to_owned();
        request.prompt_key = request.prompt_key.trim().to_owned();
        let (ns, key) = (&request.prompt_ns, &request.prompt_key);
        if self.registry.get(ns, key).is_none() {
            problems.push(format!(
                "Unknown subagent prompt '{ns}:{key}'. Enabled prompts: {}.",
                self.registry.enabled_names()
            ));
        } else if !self.registry.is_enabled(ns, key) {
            problems.push(format!(
                "Subagent prompt '{ns}:{key}' is disabled. Enabled prompts: {}.",
                self.registry.enabled_names()
            ));
        }
        if depth >= self.max_depth {
            problems.push(format!(
                "Subagents cannot dispatch further subagents (nesting limit {} reached).",
                self.max_depth
            ));
        }
        if problems.is_empty() {
            Ok(request)
        } else {
            Err(DispatchSubagentError::Invalid(problems.join(" ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subagent::{PromptRegistry, PromptSubagentToolsSection};
    use std::sync::Arc;
    use wink_core::{MarkdownSection, PromptTemplate};

    fn template(ns: &str, key: &str) -> Arc<PromptTemplate> {
        Arc::new(
            PromptTemplate::builder(ns, key)
                .section(MarkdownSection::new("Role", "role", "Investigate."))
                .build()
                .unwrap(),
        )
    }

    fn shared(registry: PromptRegistry) -> Shared {
        PromptSubagentToolsSection::builder(registry).shared
    }

    #[test]
    fn validation_trims_and_reports_every_problem() {
        let registry = PromptRegistry::new();
        registry
            .register(template("research", "investigate"))
            .unwrap();
        let shared = shared(registry);
        let ok = shared
            .validate(
                DispatchSubagent::plan_step(" research ", "investigate", " s1 ", "  do it  ")
                    .expecting([" a.md "]),
                0,
            )
            .unwrap();
        assert_eq!(ok.instructions, "do it");
        assert_eq!(ok.expected_artifacts, ["a.md"]);
        assert_eq!(ok.plan_step_id.as_deref(), Some("s1"));
        assert_eq!(ok.prompt_ns, "research");

        let mut bad = DispatchSubagent::ad_hoc("research", "nope", "   ").expecting([
            "",
            "caf\u{e9}",
            &"x".repeat(161),
        ]);
        bad.mode = SubagentMode::PlanStep;
        bad.snapshot_version = Some("0".into());
        let error = shared.validate(bad, 1).unwrap_err();
        assert_eq!(
            error,
            DispatchSubagentError::Invalid(
                "instructions must not be empty. \
                 expected_artifacts[0] must not be empty. \
                 expected_artifacts[1] must be ASCII text (non-ASCII character at position 3). \
                 expected_artifacts[2] must be at most 160 characters (got 161). \
                 plan_step_id is required when mode is \"plan_step\". \
                 snapshot_version \"0\" is not compatible with this session (snapshot version \"1\"). \
                 Unknown subagent prompt 'research:nope'. Enabled prompts: 'research:investigate'. \
                 Subagents cannot dispatch further subagents (nesting limit 1 reached)."
                    .into()
            )
        );
    }
}
