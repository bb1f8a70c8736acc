//! [`CatalogSource`]: a catalog whose tools come from live sources (MCP servers: `wink-mcp`'s
//! `ServerCatalog`), re-built when a source's tool list changes.

use crate::catalog::Catalog;
use crate::error::CatalogError;

/// Where a [`ToolCatalogSection`](crate::ToolCatalogSection) over servers gets its catalog.
pub trait CatalogSource: Send + Sync + std::fmt::Debug {
    /// Loads every source's tool list (once; later calls return at once).
    fn load(&self) -> Result<(), CatalogError>;

    /// The catalog as the tool lists stand now.
    fn build(&self) -> Result<Catalog, CatalogError>;

    /// A number that changes whenever a tool list does.
    fn generation(&self) -> u64;

    /// Lists again the sources that announced a change; true when a list changed.
    fn refresh(&self) -> bool;

    /// Starts, in the background, the sources behind the tools `names` (catalog names).
    fn warm(&self, names: &[&str]);

    /// Each source's state, for `wink render --format json`.
    fn statuses(&self) -> Vec<SourceStatus>;
}

/// One source of a [`CatalogSource`]: its name (the namespace of its tools) and state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceStatus {
    /// The source's name.
    pub name: String,
    /// How many tools it offers.
    pub tools: usize,
    /// Where its tool list came from (`cache` or `server`), once loaded.
    pub list: Option<&'static str>,
    /// Whether it is running (a server process or HTTP session is up).
    pub running: bool,
}

impl SourceStatus {
    /// A source's state.
    pub fn new(
        name: impl Into<String>,
        tools: usize,
        list: Option<&'static str>,
        running: bool,
    ) -> Self {
        Self {
            name: name.into(),
            tools,
            list,
            running,
        }
    }
}
