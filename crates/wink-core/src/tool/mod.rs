//! Tools: typed and dynamic tool definitions, results, examples and the context handlers get.
//!
//! A tool is anything implementing the object-safe [`Tool`] trait. Most are built with
//! [`ToolBuilder`] from a typed handler (`params -> ToolResult<R>`, sync or async) or from a
//! JSON schema plus a closure ([`ToolBuilder::dynamic`]).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use wink_session::{SectionPath, Session};

use crate::error::{PromptError, VisibilityExpansionRequired};
use crate::pyjson::{exclude_none, python_json};

mod builder;
mod context;
mod examples;
mod function;
mod result;
mod validate;
pub use builder::*;
pub use context::*;
pub use examples::*;
use function::*;
pub use result::*;
pub use validate::*;

/// A shared, type-erased tool.
pub type ToolRef = Arc<dyn Tool>;

/// The future a tool invocation returns.
pub type ToolFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ToolResponse, ToolError>> + Send + 'a>>;

/// Seed 004's level 1: what a tool catalog lists (≈10–30 tokens).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolMetadata {
    /// Canonical name (dots allowed).
    pub name: String,
    /// First sentence of the description.
    pub summary: String,
    /// Part of the name before the last dot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Tags for filtering.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Capabilities for search.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// Constraints (e.g. `read-only`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
}

impl ToolMetadata {
    /// Derive metadata from a name and description (seed 004 defaults).
    pub fn derive(name: &str, description: &str) -> Self {
        Self {
            name: name.to_owned(),
            summary: first_sentence(description),
            namespace: namespace_of(name),
            tags: Vec::new(),
            capabilities: Vec::new(),
            constraints: Vec::new(),
        }
    }
}

/// Seed 004's level 2: the full specification of a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolFullSpec {
    /// Canonical name.
    pub name: String,
    /// Full description.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
    /// What the tool returns.
    pub returns: String,
    /// A usage line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<String>,
    /// Examples (description, input, output).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<ToolExample>,
    /// Errors the tool may report.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Further notes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The namespace of a dotted tool name (`file.read` → `file`; `a.b.c` → `a.b`); `None` when the
/// name has no dot. The same rule as the catalog search's documents ([`wink_schema::namespace_of`],
/// borrowed).
pub fn namespace_of(name: &str) -> Option<String> {
    wink_schema::namespace_of(name).map(str::to_owned)
}

/// The first sentence of a description: a tool's level-1 summary (seed 004). One definition with
/// the catalog search ([`wink_schema::first_sentence`]), so listings and search agree.
pub use wink_schema::first_sentence;

/// An example call shown to the model (WINK's `ToolExample`), type-erased.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolExample {
    /// What the example shows.
    pub description: String,
    /// The arguments.
    pub input: Value,
    /// The rendered output.
    pub output: String,
}

/// Whether a tool may run at the same time as other calls of the same model turn.
///
/// Every call is transactional. A call that runs alone snapshots session and filesystem and
/// restores them when it fails. Consecutive [`ToolConcurrency::Parallel`] calls overlap, so each
/// works in its own session transaction (committed in call order once the batch is done, dropped
/// if the call fails) and writes the filesystem through an [`wink_fs::FsBatch`] member (a failed
/// call's file changes are undone alone, the others' replayed): one call's failure never undoes a
/// sibling's work, and siblings do not see each other's session changes while they run. Tools are
/// sequential by default.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolConcurrency {
    /// May run concurrently with other calls.
    Parallel,
    /// Runs alone, in call order.
    Sequential,
}

/// A tool the model can call. Object-safe; see [`ToolBuilder`] for the usual way to make one.
pub trait Tool: Send + Sync + fmt::Debug {
    /// The canonical name (may contain dots for namespaces).
    fn name(&self) -> &str;
    /// The description sent to the provider.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments.
    fn parameters(&self) -> &Value;
    /// Examples shown in the prompt's `Tools:` block.
    fn examples(&self) -> &[ToolExample] {
        &[]
    }
    /// Level-1 metadata (seed 004).
    fn metadata(&self) -> ToolMetadata {
        ToolMetadata::derive(self.name(), self.description())
    }
    /// Level-2 full specification (seed 004).
    fn full_spec(&self) -> ToolFullSpec {
        ToolFullSpec {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            parameters: self.parameters().clone(),
            returns: "text".to_owned(),
            usage: None,
            examples: self.examples().to_vec(),
            errors: Vec::new(),
            notes: Vec::new(),
        }
    }
    /// Whether prompt overrides may patch this tool (builtin tools say no).
    fn accepts_overrides(&self) -> bool {
        true
    }
    /// Terminal tools end the model turn when they take effect (a successful call, or for
    /// `open_sections` a restart request): later calls in the same turn are not run.
    fn is_terminal(&self) -> bool {
        false
    }
    /// Whether the tool may run concurrently with other calls of one turn.
    fn concurrency(&self) -> ToolConcurrency {
        ToolConcurrency::Sequential
    }
    /// Run the tool with already schema-checked `args`.
    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a>;
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_context_filesystem_is_the_filesystem_resource() {
        let mut ctx = ToolContext::new(Session::new());
        assert!(ctx.filesystem().is_none());
        let fs: Arc<dyn wink_fs::Filesystem> = Arc::new(wink_fs::InMemoryFilesystem::new());
        ctx.resources = Resources::new().with(Arc::clone(&fs));
        let found = ctx.filesystem().map(Arc::clone);
        assert!(found.is_some_and(|f| Arc::ptr_eq(&f, &fs)));
    }

    use super::*;
    use serde_json::json;

    fn payload(value: Value) -> ToolResult<ToolPayload> {
        ToolResult::ok("ok", ToolPayload::from_output(&value))
    }

    #[test]
    fn serializes_tool_messages_like_wink() {
        assert_eq!(
            payload(json!({"group": {"value": 1}})).model_text(),
            "ok\n\n{\"group\": {\"value\": 1}}"
        );
        assert_eq!(
            payload(json!({"group": 1})).excluding_value().model_text(),
            "ok"
        );
        let mut r = payload(json!({"answer": "value"}));
        r.message.clear();
        assert_eq!(r.model_text(), "{\"answer\": \"value\"}");
        assert_eq!(
            ToolResult::<ToolPayload>::message("fallback").model_text(),
            "fallback"
        );
        assert_eq!(
            payload(json!([{"answer": "first"}, {"answer": "second"}])).model_text(),
            "ok\n\n[{\"answer\": \"first\"}, {\"answer\": \"second\"}]"
        );
    }

    #[test]
    fn validates_names_and_descriptions_with_wink_messages() {
        assert_eq!(
            validate_tool_name("Lookup").unwrap_err().message(),
            "Tool name must match the OpenAI function name constraints (pattern: ^[a-z0-9_-]{1,64}$)."
        );
        assert_eq!(
            validate_tool_name("Lookup").unwrap_err().placeholder(),
            Some("Lookup")
        );
        assert_eq!(
            validate_tool_name(" lookup").unwrap_err().message(),
            "Tool name must not contain surrounding whitespace."
        );
        assert!(validate_tool_name("file.read").is_ok());
        assert!(validate_tool_name("file..read").is_err());
        assert!(validate_tool_name(&"a".repeat(65)).is_err());
        assert_eq!(
            validate_tool_description(&"x".repeat(201))
                .unwrap_err()
                .message(),
            "Tool description must be 1-200 ASCII characters."
        );
        assert_eq!(
            validate_tool_description("   ").unwrap_err().message(),
            "Tool description must be 1-200 ASCII characters."
        );
        assert_eq!(validate_tool_description(" ok ").unwrap(), "ok");
    }

    #[test]
    fn metadata_summary_and_namespace() {
        assert_eq!(
            first_sentence("Reads a file from the filesystem. Supports line ranges."),
            "Reads a file from the filesystem."
        );
        assert_eq!(
            first_sentence("Use e.g. this. Then that."),
            "Use e.g. this."
        );
        assert_eq!(namespace_of("file.read").as_deref(), Some("file"));
        assert_eq!(namespace_of("a.b.c").as_deref(), Some("a.b"));
        assert_eq!(namespace_of("read"), None);
    }

    #[test]
    fn python_indent_skips_blank_lines() {
        assert_eq!(python_indent("a\n\n  \nb", "  "), "  a\n\n  \n  b");
    }
}
