//! The crate's error type.

use std::net::SocketAddr;

/// Why serving a prompt over MCP failed.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum McpServeError {
    /// `--http` was given an address other than loopback.
    #[error(
        "refusing to serve MCP over HTTP on {addr}: only loopback addresses (127.0.0.1, ::1) are allowed, \
         because the server runs the prompt's tools without authentication"
    )]
    NotLoopback {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// The HTTP listener could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Cause.
        source: std::io::Error,
    },
    /// The prompt could not be rendered.
    #[error("cannot render prompt '{prompt}': {source}")]
    Render {
        /// Prompt name.
        prompt: String,
        /// Cause.
        source: Box<wink_core::PromptError>,
    },
    /// The MCP session over stdio failed to start or ended with an error.
    #[error("MCP stdio transport failed: {0}")]
    Stdio(String),
}
