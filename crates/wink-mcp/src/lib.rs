//! # wink-mcp
//!
//! wink and the Model Context Protocol (with the official Rust SDK, `rmcp`): serving prompts to
//! MCP clients, and using MCP servers' tools in catalogs.
//!
//! **Serving** — [`PromptServer`] exposes one prompt to any MCP client (`wink mcp serve FILE`
//! over stdio, or streamable HTTP on loopback with [`serve_http`]):
//! - `tools/list`: `read_section` plus the tools of every visible section, canonical names
//!   (dots are legal in MCP);
//! - `tools/call`: WINK's execution semantics ([`wink_core::ToolExecutor`]);
//! - `prompts/get`: the rendered prompt (also the server's `instructions`), its params as the
//!   prompt's arguments; resources `wink://NS/KEY` (the prompt) and `wink://NS/KEY/<dot.key>` (a
//!   summarized section's resource returns its full content, like `read_section`, without
//!   expanding it), a resource template per section with params; `wink://prompt` and
//!   `wink://section/<dot.key>` are aliases.
//!
//! When `read_section` discloses a tool-bearing section the server marks it expanded in its
//! session, offers the new tools and sends `notifications/tools/list_changed` (capability
//! `tools.listChanged`; handshake-era clients get it directly, 2026-07-28 clients through
//! `subscriptions/listen`). For clients that ignore it, the tool result ends with
//! [`new_tools_notice`] — seed 003's restart signal expressed as a tool result.
//!
//! **Using MCP servers** — the client side: [`McpServer`] (one connection over stdio or
//! streamable HTTP), [`LazyServer`] (started on first use, its tool list cached on disk by
//! [`ToolCache`]) and [`ServerCatalog`] (the servers of a catalog section: a
//! [`wink_catalog::CatalogSource`]). Catalog tools made from a server's tools forward their calls
//! to it ([`CatalogBuilderMcp`]).
//!
//! **Bridging tools** — [`ToolBridge`] is an MCP server whose tools are one model request's tools
//! and whose calls are handed back to the wink loop ([`BridgedCall`]); the claude CLI adapter
//! (`wink_providers::ClaudeCliAdapter`, feature `claude-cli`) attaches it to the CLI.
//!
//! ```
//! use wink_core::{MarkdownSection, Prompt, PromptTemplate};
//! use wink_mcp::PromptServer;
//! use wink_session::Session;
//!
//! let template = PromptTemplate::builder("demo", "docs")
//!     .section(MarkdownSection::new("Guide", "guide", "Step one. Step two.").summary("How to start.").summarized())
//!     .build()
//!     .unwrap();
//! let server = PromptServer::new(Prompt::new(template), Session::new());
//! let names: Vec<String> = server.tools().unwrap().into_iter().map(|t| t.name.to_string()).collect();
//! assert_eq!(names, ["read_section"]);
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let full = runtime.block_on(server.read_resource_text("wink://demo/docs/guide")).unwrap();
//! assert_eq!(full, "## 1. Guide (guide)\n\nStep one. Step two.");
//! assert_eq!(runtime.block_on(server.read_resource_text("wink://section/guide")).unwrap(), full);
//! let result = runtime
//!     .block_on(server.call_tool_text("read_section", serde_json::json!({"section_key": "guide"}).as_object().cloned()))
//!     .unwrap();
//! assert_eq!(result.is_error, Some(false));
//! ```

mod ask_user;
mod bridge;
mod call_input;
mod client;
mod content;
mod error;
mod http;
pub mod lines;
mod published;
mod server;
mod server_call;
mod server_params;
mod server_published;
mod server_resources;
mod server_sampling;
mod server_tasks;
mod skills;
mod stdio;

pub use ask_user::ASK_USER;
pub use bridge::{BridgeReply, BridgedCall, ToolBridge, bridge_tool_name};
pub use call_input::{CancelSignal, ClientInput, ProgressReporter, ProgressUpdate};
pub use client::{
    Answered, CachedTools, CatalogBuilderMcp, ClientAnswers, DEFAULT_CALL_TIMEOUT,
    DEFAULT_START_TIMEOUT, DEFAULT_TTL, ElicitationPolicy, INHERITED_VARIABLES, LazyServer,
    ListSource, MAX_MESSAGE_BYTES, MAX_TTL, McpInputAnswered, McpServer, ServerCatalog, ServerSpec,
    ServerTransport, ToolCache, ToolList, check_header_name, check_server_url,
    killed_with_this_process, resolve_program, split_command_line,
};
pub use client::{
    LOGIN_WAIT, LoginReport, OAuthGrant, OAuthSpec, PrivateKeySource, log_in_to, login, logout,
    token_dir, token_path,
};
pub use content::{ToolResultForm, content_text, result_form};
pub use error::McpServeError;
pub use http::{HttpEndpoint, HttpLimits, HttpServer, check_loopback, serve_http, serve_http_with};
pub use published::{
    ContentHandler, Published, PublishedContent, PublishedPrompt, PublishedResource,
    PublishedTemplate, match_template,
};
pub use server::{
    PROMPT_URI, PromptServer, SECTION_URI_PREFIX, mcp_tool, new_tools_notice, section_uri,
};
pub use server_resources::{prompt_resource_uri, section_resource_uri};
pub use server_tasks::{TaskInput, TaskTool};
pub use skills::{MAX_RESOURCE_BYTES, SKILL_URI_SCHEME, skill_entry, skill_uri};
