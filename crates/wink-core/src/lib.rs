//! # wink-core
//!
//! The heart of wink: prompts as trees of typed sections that carry instructions and tools,
//! rendered exactly as WINK v0.17 renders them, with progressive disclosure — sections can
//! render as summaries that the model expands with `read_section` (or `open_sections`).
//!
//! This crate does no I/O and needs no async runtime. Session state lives in
//! [`wink_session`]; filesystems are reached through [`wink_fs::Filesystem`].
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use wink_core::{MarkdownSection, Prompt, PromptTemplate};
//!
//! #[derive(Serialize, Deserialize, JsonSchema, Clone)]
//! struct Task { objective: String }
//!
//! let template = PromptTemplate::builder("demo", "pd")
//!     .section(MarkdownSection::new("Task", "task", "Do: ${objective}").params::<Task>())
//!     .section(
//!         MarkdownSection::new("Reference", "reference", "Full reference.")
//!             .summary("Reference available.")
//!             .summarized(),
//!     )
//!     .build()
//!     .unwrap();
//! let rendered = Prompt::new(template).bind(Task { objective: "fix bug".into() }).render().unwrap();
//! assert_eq!(
//!     rendered.text,
//!     "## 1. Task (task)\n\nDo: fix bug\n\n## 2. Reference (reference)\n\nReference available.\n\n---\n\
//!      [This section is summarized. To view full content, call `read_section` with key \"reference\".]"
//! );
//! assert_eq!(rendered.tool_names(), ["read_section"]);
//! ```
//!
//! ## Typed structured output
//!
//! `.output::<T>()` (or `.output_vec::<T>()` for a `Vec<T>`) turns the template into a
//! `PromptTemplate<T>`: the schema is derived from `T`, sent to providers as WINK's
//! `response_format`, and answers decode into `T` after WINK's parsing and validation.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use wink_core::{MarkdownSection, Prompt, PromptTemplate};
//!
//! #[derive(Deserialize, JsonSchema, Debug, PartialEq)]
//! struct Verdict { approve: bool, reason: String }
//!
//! let template: PromptTemplate<Verdict> = PromptTemplate::builder("review", "verdict")
//!     .section(MarkdownSection::new("Task", "task", "Review the change."))
//!     .output::<Verdict>()
//!     .build()
//!     .unwrap();
//! let prompt: Prompt<Verdict> = Prompt::new(template);
//! let answer = "Done.\n```json\n{\"approve\": true, \"reason\": \"tests pass\"}\n```";
//! assert_eq!(
//!     prompt.parse_output(answer).unwrap(),
//!     Verdict { approve: true, reason: "tests pass".into() }
//! );
//! assert_eq!(
//!     prompt.parse_output("{\"approve\": true}").unwrap_err().to_string(),
//!     "Missing required field: 'reason'"
//! );
//! ```
//!
//! `MainLoop::execute` (in `wink-agent`) keeps the type: a `Prompt<T>` run gives a
//! `RunResult<T>` whose `output()` is a `T`.

pub mod builtin;
mod disclosure;
mod error;
mod executor;
mod key;
mod params;
mod policy;
mod prompt;
mod pyjson;
mod quick_hash;
mod render;
mod search;
mod section;
mod template;
mod text;
mod tool;
mod valid_keys;

pub use disclosure::{
    CONTEXT_FOLDER, DisclosureMode, OPEN_SECTIONS, OpenSectionsResult, READ_SECTION,
    build_custom_suffix, build_summary_suffix, build_summary_suffix_naming_tools,
    expansion_overrides, is_disclosure_tool, with_valid_keys,
};
pub use error::{OutputError, PromptError, PromptErrorKind, VisibilityExpansionRequired};
pub use executor::{
    CallOutcome, Checkpoint, EvaluationPhase, PromptEvaluationError, ToolArguments, ToolCall,
    ToolCallResult, ToolExecutor, block_on,
};
pub use key::{SECTION_KEY_PATTERN, normalize_section_key};
pub use params::{
    FieldType, ParamField, ParamsType, ParamsTypeId, ParamsValue, SectionParams, value_text,
};
pub use policy::{PolicyRequest, ToolPolicy, ToolPolicyRef};
pub use prompt::{
    OutputSpec, ParamLookup, Prompt, PromptTemplate, PromptTemplateBuilder, SectionNode,
    decode_output,
};
pub use pyjson::{exclude_none, python_json};
pub use render::{ContextRoom, READ_PART_BYTES, RenderedPrompt, RenderedSection};
/// Re-exported so `#[derive(JsonSchema)]` users and wink agree on one version.
pub use schemars;
pub use search::{
    SEARCH_SECTIONS, SEARCH_SECTIONS_AUTO_MIN, SEARCH_SECTIONS_DEFAULT_LIMIT,
    SEARCH_SECTIONS_MAX_LIMIT, SearchSections, SectionHit,
};
pub use section::{
    EnabledSelector, MarkdownSection, Section, SectionRef, SelectorInput, VisibilitySelector,
    format_heading, render_section,
};
pub use template::{Template, dedent};
pub use text::python_splitlines;
pub use tool::{
    Deadline, DynamicToolBuilder, Resources, SectionExpansion, Tool, ToolBuilder, ToolConcurrency,
    ToolContext, ToolError, ToolExample, ToolFullSpec, ToolFuture, ToolMetadata, ToolOutput,
    ToolPayload, ToolRef, ToolResponse, ToolResult, empty_params_schema, first_sentence,
    namespace_of, params_schema, render_json_payload, render_tool_examples_block,
    validate_tool_description, validate_tool_name,
};
pub use wink_session::{SectionPath, SectionVisibility};
