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
mod call;
mod catalog;
mod client_assertion;
mod connection;
mod http_auth;
mod oauth;
mod servers;
mod stdio;

pub use answers::{ClientAnswers, ElicitationPolicy, McpInputAnswered};
pub use cache::{CachedTools, DEFAULT_TTL, MAX_TTL, ToolCache};
pub use call::Answered;
pub use catalog::CatalogBuilderMcp;
pub use client_assertion::PrivateKeySource;
pub use connection::{McpServer, ToolList, split_command_line};
pub use oauth::{
    LOGIN_WAIT, LoginReport, OAuthGrant, OAuthSpec, log_in_to, login, logout, token_dir, token_path,
};
pub use servers::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_START_TIMEOUT, LazyServer, ListSource, ServerCatalog, ServerSpec,
    ServerTransport, check_header_name, check_server_url,
};
pub use stdio::{
    INHERITED_VARIABLES, MAX_MESSAGE_BYTES, killed_with_this_process, resolve_program,
};
