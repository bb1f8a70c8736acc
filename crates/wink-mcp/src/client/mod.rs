//! The MCP client: servers behind a catalog, reached over stdio or streamable HTTP.
//!
//! - [`McpServer`]: one connection (handshake, `tools/list`, `tools/call`);
//! - [`ServerSpec`] and [`LazyServer`]: how to reach a server, started on first use, restarted
//!   once after a crash, its tool list kept in the on-disk [`ToolCache`];
//! - [`ServerCatalog`]: the servers of one catalog section, a [`wink_catalog::CatalogSource`];
//! - [`CatalogBuilderMcp`]: adds a server's tools to a [`wink_catalog::CatalogBuilder`], calls
//!   forwarded to the server (each server is a [`wink_catalog::ToolInvoker`]).

mod answers;
mod cache;
mod catalog;
mod connection;
mod servers;
mod stdio;

pub use answers::{ClientAnswers, ElicitationPolicy, McpInputAnswered};
pub use cache::{CachedTools, DEFAULT_TTL, MAX_TTL, ToolCache};
pub use catalog::CatalogBuilderMcp;
pub use connection::{Answered, McpServer, ToolList, split_command_line};
pub use servers::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_START_TIMEOUT, LazyServer, ListSource, ServerCatalog, ServerSpec,
    ServerTransport, check_header_name, check_server_url,
};
pub use stdio::{
    INHERITED_VARIABLES, MAX_MESSAGE_BYTES, killed_with_this_process, resolve_program,
};
