//! When a catalog is deferred: the `defer` policy (`auto`, `auto:N`, `always`, `never`) and the
//! decision it makes for a model's context window, with the token figures behind it.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use wink_core::{Tool, format_heading};
use wink_tokens::TokenCounter;

use crate::catalog::Catalog;
use crate::error::CatalogError;
use crate::footprint::tool_specs_json;
use crate::section::{Shared, ToolCatalogSection, listing_body};

/// The share of the context window `auto` lets full tool schemas take (as Claude Code's tool
/// search does).
pub const DEFAULT_DEFER_PERCENT: u8 = 10;

/// When a catalog is listed one line per tool with the meta-tools (deferred) instead of every
/// tool being offered with its full schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeferPolicy {
    /// In full when the schemas of all tools fit in `percent`% of the model's context window,
    /// deferred above it (`auto` is `auto:10`, the default).
    Auto {
        /// The share of the context window, 1–100.
        percent: u8,
    },
    /// Always deferred.
    Always,
    /// Never deferred: every tool is offered in full.
    Never,
}

impl Default for DeferPolicy {
    /// `auto`: in full when the schemas fit in [`DEFAULT_DEFER_PERCENT`]% of the window.
    fn default() -> Self {
        Self::Auto {
            percent: DEFAULT_DEFER_PERCENT,
        }
    }
}

impl FromStr for DeferPolicy {
    type Err = String;

    /// `auto`, `auto:N` (N from 1 to 100), `always` or `never`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "auto" => Ok(Self::Auto {
                percent: DEFAULT_DEFER_PERCENT,
            }),
            "always" => Ok(Self::Always),
            "never" => Ok(Self::Never),
            other => match other.strip_prefix("auto:") {
                Some(n) => n
                    .parse::<u8>()
                    .ok()
                    .filter(|n| (1..=100).contains(n))
                    .map(|percent| Self::Auto { percent })
                    .ok_or_else(|| format!("'{other}': auto:N takes a percentage N from 1 to 100")),
                None => Err(format!(
                    "unknown defer policy '{other}' (auto, auto:N, always, never)"
                )),
            },
        }
    }
}

impl fmt::Display for DeferPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Auto { percent } => write!(f, "auto:{percent}"),
            Self::Always => f.write_str("always"),
            Self::Never => f.write_str("never"),
        }
    }
}

/// What [`DeferPolicy`] decided for one catalog, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeferDecision {
    /// The policy, as `auto:N`, `always` or `never`.
    pub policy: String,
    /// `deferred` (one line per tool, the meta-tools) or `full` (every tool offered).
    pub decision: String,
    /// Tools in the catalog.
    pub tools: usize,
    /// The model's context window the decision was made for.
    pub context_window: u64,
    /// `auto`: the most tokens the full schemas may take (N% of the window).
    pub threshold_tokens: Option<u64>,
    /// Tokens of every tool's full schema (the `tools` array of an OpenAI request).
    pub schema_tokens: usize,
    /// Tokens of the deferred form: the section's listing and the three meta-tools.
    pub deferred_tokens: usize,
}

impl DeferDecision {
    /// True when the catalog is listed one line per tool with the meta-tools.
    pub fn is_deferred(&self) -> bool {
        self.decision == "deferred"
    }
}

/// Measures the section's catalog, applies its policy for `context_window` and records the
/// decision in the section.
pub(crate) fn decide(
    shared: &Shared,
    title: &str,
    context_window: u64,
) -> Result<DeferDecision, CatalogError> {
    let policy = shared
        .policy
        .lock()
        .map_or(DeferPolicy::Always, |policy| *policy);
    let catalog = shared.catalog();
    let counter = TokenCounter::o200k().map_err(|e| CatalogError::Tokenizer(e.to_string()))?;
    let all: Vec<&dyn Tool> = catalog
        .entries()
        .iter()
        .map(|e| e.tool().as_ref())
        .collect();
    let schema_tokens = counter.count(&tool_specs_json(&all));
    let probe = ToolCatalogSection::new("Tools", "tools", Catalog::empty());
    let meta: Vec<&dyn Tool> = probe.meta_tools().iter().map(|t| t.as_ref()).collect();
    let heading = format_heading(title, 0, "1", Some(&shared.path));
    let listing = format!("{heading}\n\n{}", listing_body(&catalog, shared.listing));
    let deferred_tokens = counter.count(&listing) + counter.count(&tool_specs_json(&meta));
    let (deferred, threshold_tokens) = match policy {
        DeferPolicy::Always => (true, None),
        DeferPolicy::Never => (false, None),
        DeferPolicy::Auto { percent } => {
            let threshold = context_window.saturating_mul(u64::from(percent)) / 100;
            (schema_tokens as u64 > threshold, Some(threshold))
        }
    };
    shared.set_full(!deferred);
    let decision = DeferDecision {
        policy: policy.to_string(),
        decision: if deferred { "deferred" } else { "full" }.to_owned(),
        tools: catalog.len(),
        context_window,
        threshold_tokens,
        schema_tokens,
        deferred_tokens,
    };
    if let Ok(mut slot) = shared.decision.lock() {
        *slot = Some(decision.clone());
    }
    Ok(decision)
}

/// The section body when every tool is offered in full: how many, and the namespaces.
pub(crate) fn full_listing_body(catalog: &Catalog) -> String {
    let count = catalog.len();
    if count == 0 {
        return "The tool catalog is empty.".to_owned();
    }
    let tools = if count == 1 {
        "1 tool is".to_owned()
    } else {
        format!("{count} tools are")
    };
    let mut out =
        format!("{tools} callable directly: their full specifications come with the tool list.");
    let namespaces: Vec<String> = catalog
        .namespaces()
        .iter()
        .map(|n| format!("{} ({})", n.name, n.tools.len()))
        .collect();
    if !namespaces.is_empty() {
        out.push_str("\nNamespaces (tools): ");
        out.push_str(&namespaces.join(", "));
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_policies() {
        assert_eq!("auto".parse(), Ok(DeferPolicy::Auto { percent: 10 }));
        assert_eq!("auto:25".parse(), Ok(DeferPolicy::Auto { percent: 25 }));
        assert_eq!("always".parse(), Ok(DeferPolicy::Always));
        assert_eq!("never".parse(), Ok(DeferPolicy::Never));
        assert_eq!(
            "auto:0".parse::<DeferPolicy>(),
            Err("'auto:0': auto:N takes a percentage N from 1 to 100".to_owned())
        );
        assert_eq!(
            "lazy".parse::<DeferPolicy>(),
            Err("unknown defer policy 'lazy' (auto, auto:N, always, never)".to_owned())
        );
        assert_eq!(DeferPolicy::Auto { percent: 10 }.to_string(), "auto:10");
    }
}
