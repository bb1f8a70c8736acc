//! # wink-catalog
//!
//! Large tool catalogs with two-level disclosure (seed 004). A [`ToolCatalogSection`] holds any
//! number of tools — typed and dynamic [`wink_core::Tool`]s, tools from JSON tool lists (OpenAI,
//! MCP, LiveMCP layouts; see [`parse_catalog`]) and tools of MCP servers started over stdio
//! ([`McpServer`]) — and shows the model only level-1 metadata: one line per tool
//! (`- name: summary`, at most 20 `o200k` tokens by default), grouped under namespace headings,
//! per namespace, or just the namespaces
//! ([`CatalogListing`]). It offers three meta-tools instead of the catalog:
//!
//! * `tool.list(namespace?, tag?, query?, queries?, offset?, limit?)` — metadata, paged; with a
//!   query, the tools the search finds for it;
//! * `tool.describe(names)` — level-2 full specifications; the described tools become callable
//!   (recorded in the session as [`CatalogToolsActivated`], injected into the running
//!   conversation through a [`wink_core::SectionExpansion`], offered again on every re-render);
//! * `find_tool(purpose?, queries?, limit?)` — BM25 search ([`wink_search::ToolSearch`]) routed
//!   to the best servers; a purpose with several steps ("find X, then chart it") or several
//!   `queries` get one list covering every step, each tool under the step it serves; an empty
//!   result never claims that a tool does not exist.
//!
//! For providers that load tools natively (Anthropic `defer_loading` + `tool_reference`, OpenAI
//! Responses `tool_search`), [`CatalogNativeSearch`] in the session makes the section offer every
//! catalog tool, for the adapter to send deferred ([`native_search_tools`] names them); `find_tool`
//! is then the search that loads them.
//!
//! ```
//! use serde_json::json;
//! use wink_catalog::{Catalog, ToolCatalogSection, ToolRecord};
//! use wink_core::{MarkdownSection, Prompt, PromptTemplate, Section};
//!
//! let catalog = Catalog::builder()
//!     .records([
//!         ToolRecord::new("file.read", "Read a file from disk. Returns its text.")
//!             .with_parameters(json!({"type": "object", "properties": {"path": {"type": "string"}}})),
//!         ToolRecord::new("web.search", "Search the web for pages."),
//!     ])
//!     .build()
//!     .unwrap();
//! let section = ToolCatalogSection::new("Tools", "tools", catalog);
//! assert!(section.body().ends_with("\n\n- file.read: Read a file from disk.\n- web.search: Search the web for pages."));
//! assert_eq!(
//!     section.catalog().find_text("open a file", 1),
//!     "Tools for \"open a file\", best first (call `tool.describe` with a name to make it callable):\n- file.read: Read a file from disk."
//! );
//!
//! let template = PromptTemplate::builder("demo", "catalog")
//!     .section(MarkdownSection::new("Task", "task", "Help the user."))
//!     .section(section)
//!     .build()
//!     .unwrap();
//! let rendered = Prompt::new(template).render().unwrap();
//! // Only the meta-tools are offered up front.
//! assert_eq!(rendered.tool_names(), ["tool.list", "tool.describe", "find_tool"]);
//! ```

mod cache;
mod catalog;
mod defer;
mod error;
mod filter;
mod footprint;
mod mcp;
mod record;
mod section;
mod servers;
mod task_report;
mod tool;

pub use cache::{CachedTools, DEFAULT_TTL, ToolCache};
pub use catalog::{
    Catalog, CatalogBuilder, CatalogEntry, DEFAULT_FIND_LIMIT, DEFAULT_FIND_PER_STEP,
    DEFAULT_LIST_LIMIT, Description, FIND_TOOL, Found, FoundTask, LineBudget, ListQuery,
    MAX_FIND_LIMIT, MAX_LIST_LIMIT, META_TOOL_NAMES, Namespace, TOOL_DESCRIBE, TOOL_LIST,
    default_find_limit, full_spec_text, step_count,
};
pub use defer::{DEFAULT_DEFER_PERCENT, DeferDecision, DeferPolicy};
pub use error::CatalogError;
pub use filter::ToolFilter;
pub use footprint::{Footprint, LineStats, tool_specs_json};
pub use mcp::{McpServer, ToolList, killed_with_this_process, resolve_program, split_command_line};
pub use record::{
    CatalogFile, ToolRecord, empty_object_schema, load_catalog_file, namespace_key, parse_catalog,
};
pub use section::{
    CatalogListing, CatalogNativeSearch, CatalogToolsActivated, FIND_NOTE, FIND_TOOL_DESCRIPTION,
    NATIVE_FIND_NOTE, RELATIVE_MATCH_SCORE, TOOL_DESCRIBE_DESCRIPTION, TOOL_LIST_DESCRIPTION,
    ToolCatalogSection, listing_body, native_search_enabled, native_search_tools,
};
pub use servers::{
    DEFAULT_CALL_TIMEOUT, LazyServer, ListSource, ServerCatalog, ServerSpec, ServerTransport,
};
pub use task_report::{SplitMetrics, TASK_EVAL_LIMIT, TaskReport, TaskRow};
pub use tool::{CatalogTool, RecordHandler};
