//! Prompt errors carrying WINK's messages plus structured context.

use indexmap::IndexMap;
use std::fmt;

use wink_session::{SectionPath, SectionVisibility};

/// What kind of prompt failure happened.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptErrorKind {
    /// The prompt, a section or a tool was declared wrongly (construction or binding time).
    Validation,
    /// Rendering failed (missing parameters, a placeholder without a value, ...).
    Render,
}

/// A prompt construction, binding or rendering failure.
///
/// [`PromptError::message`] is WINK's exact message (tests compare it byte for byte);
/// [`Display`](fmt::Display) adds the context needed to find the problem: the section path, the
/// params type and the offending placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptError {
    kind: PromptErrorKind,
    message: String,
    section_path: Option<SectionPath>,
    params_type: Option<String>,
    placeholder: Option<String>,
}

impl PromptError {
    /// A validation error with `message`.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(PromptErrorKind::Validation, message)
    }

    /// A render error with `message`.
    pub fn render(message: impl Into<String>) -> Self {
        Self::new(PromptErrorKind::Render, message)
    }

    /// WINK's error for a section asked to render as a summary it does not have.
    pub fn missing_summary(key: &str, path: &SectionPath) -> Self {
        Self::validation(format!(
            "SUMMARY visibility requested for section '{key}' but no summary template is defined."
        ))
        .with_section_path(path)
    }

    fn new(kind: PromptErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            section_path: None,
            params_type: None,
            placeholder: None,
        }
    }

    /// Attach the path of the section the error is about (kept if already set).
    #[must_use]
    pub fn with_section_path(mut self, path: &SectionPath) -> Self {
        if self.section_path.is_none() {
            self.section_path = Some(path.clone());
        }
        self
    }

    /// Attach the name of the params type involved.
    #[must_use]
    pub fn with_params_type(mut self, name: impl Into<String>) -> Self {
        if self.params_type.is_none() {
            self.params_type = Some(name.into());
        }
        self
    }

    /// Attach the placeholder (or other offending token) involved.
    #[must_use]
    pub fn with_placeholder(mut self, placeholder: impl Into<String>) -> Self {
        if self.placeholder.is_none() {
            self.placeholder = Some(placeholder.into());
        }
        self
    }

    /// The error kind.
    pub fn kind(&self) -> PromptErrorKind {
        self.kind
    }

    /// WINK's message, without context.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The section the error is about, when known.
    pub fn section_path(&self) -> Option<&SectionPath> {
        self.section_path.as_ref()
    }

    /// The params type involved, when known.
    pub fn params_type(&self) -> Option<&str> {
        self.params_type.as_deref()
    }

    /// The placeholder involved, when known.
    pub fn placeholder(&self) -> Option<&str> {
        self.placeholder.as_deref()
    }
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        let mut context = Vec::new();
        if let Some(path) = &self.section_path {
            context.push(format!("section '{}'", path.dotted()));
        }
        if let Some(ty) = &self.params_type {
            context.push(format!("params type '{ty}'"));
        }
        if let Some(placeholder) = &self.placeholder {
            context.push(format!("placeholder '{placeholder}'"));
        }
        if !context.is_empty() {
            write!(f, " ({})", context.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for PromptError {}

/// The signal that the caller must re-render the prompt with some sections expanded and
/// evaluate again (WINK's `VisibilityExpansionRequired`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisibilityExpansionRequired {
    /// `"Model requested expansion of sections: a, b"` (or the restart reason).
    pub message: String,
    /// The overrides to dispatch into the session before retrying.
    pub requested_overrides: IndexMap<SectionPath, SectionVisibility>,
    /// The model's stated reason.
    pub reason: String,
    /// The keys as the model sent them.
    pub section_keys: Vec<String>,
}

impl VisibilityExpansionRequired {
    /// Build the signal for `section_keys` (WINK's message format).
    pub fn new(
        section_keys: Vec<String>,
        requested_overrides: IndexMap<SectionPath, SectionVisibility>,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            message: format!(
                "Model requested expansion of sections: {}",
                section_keys.join(", ")
            ),
            requested_overrides,
            reason: reason.into(),
            section_keys,
        }
    }
}

impl fmt::Display for VisibilityExpansionRequired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<String> = self
            .requested_overrides
            .keys()
            .map(SectionPath::dotted)
            .collect();
        write!(
            f,
            "Visibility expansion required for sections: {}. Reason: {}",
            keys.join(", "),
            self.reason
        )
    }
}

impl std::error::Error for VisibilityExpansionRequired {}

/// Why a typed prompt's structured output could not be produced.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The answer text did not yield a valid output (WINK's messages, including
    /// `Prompt does not declare structured output.`).
    #[error(transparent)]
    Parse(#[from] wink_schema::OutputParseError),
    /// The output passed the schema but does not deserialize into the Rust type.
    #[error("Structured output does not decode into {type_name}: {source}")]
    Decode {
        /// The Rust type asked for.
        type_name: &'static str,
        /// The output as parsed.
        value: serde_json::Value,
        /// The decoder's complaint.
        #[source]
        source: serde_json::Error,
    },
}
