//! The crate's error type.

use std::path::PathBuf;

/// Why a catalog could not be loaded, built or reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// The text is not JSON (or not JSON lines).
    #[error("{origin}:{line}:{column}: not valid JSON: {message}")]
    Syntax {
        /// Where the text came from (a path or a label).
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A tool entry is not a tool in any supported format.
    #[error("{origin}: {location}: {message}")]
    Invalid {
        /// Where the text came from.
        origin: String,
        /// Where in the document: a JSON pointer (`/tools/3/function`) or `line N`.
        location: String,
        /// What is wrong.
        message: String,
    },
    /// Two tools of one catalog have the same name.
    #[error("duplicate tool name `{name}` ({first} and {second})")]
    DuplicateTool {
        /// The name.
        name: String,
        /// Where the first one came from.
        first: String,
        /// Where the second one came from.
        second: String,
    },
    /// A tool name cannot be offered to a model or clashes with a meta-tool.
    #[error("invalid tool name `{name}` ({origin}): {reason}")]
    InvalidName {
        /// The name.
        name: String,
        /// Where the tool came from.
        origin: String,
        /// Why it is rejected.
        reason: String,
    },
    /// The token counter could not be loaded.
    #[error("{0}")]
    Tokenizer(String),
    /// A server's `enabled_tools` or `disabled_tools` names tools the server does not list.
    #[error("MCP server `{server}`: {key} names {}, which the server does not list (its tools: {})", quoted(names), available.join(", "))]
    UnknownServerTools {
        /// The server's name.
        server: String,
        /// `enabled_tools` or `disabled_tools`.
        key: &'static str,
        /// The names it does not list.
        names: Vec<String>,
        /// The tools it lists.
        available: Vec<String>,
    },
    /// An MCP server could not be started, initialised or listed.
    #[error("MCP server `{command}`: {message}")]
    Mcp {
        /// The command line that starts the server.
        command: String,
        /// What failed.
        message: String,
    },
}

/// `a`, `b` and `c` as a list of code names.
fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
