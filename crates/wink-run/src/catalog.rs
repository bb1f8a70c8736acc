//! Tool catalogs opened from where users keep them — a JSON tool list or an MCP server started
//! over stdio — and the static embedding model that re-ranks their search (`wink tools`,
//! `wink catalog eval`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wink_catalog::{Catalog, CatalogBuilder, load_catalog_file};
use wink_embed::StaticModel;
use wink_mcp::{CatalogBuilderMcp, McpServer};

use crate::error::{Result, RunError};

/// Where a catalog's tools come from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolSource {
    /// A JSON tool list (OpenAI, MCP or LiveMCP layout; JSON or JSON lines).
    File(PathBuf),
    /// An MCP server started with this command line; its `tools/list` is the catalog.
    Mcp(String),
}

/// A catalog and the MCP server that serves its tools (kept alive as long as the catalog).
#[derive(Debug)]
pub struct OpenCatalog {
    /// The catalog.
    pub catalog: Catalog,
    _server: Option<Arc<McpServer>>,
}

impl ToolSource {
    /// The catalog these tools make, its search re-ranked by `model` when one is given. A file
    /// that cannot be read or parsed, or a server that does not start, is a usage error naming
    /// the file or the command.
    pub fn open(&self, model: Option<Arc<StaticModel>>) -> Result<OpenCatalog> {
        let builder = match model {
            Some(model) => Catalog::builder().rerank_with(model),
            None => Catalog::builder(),
        };
        match self {
            Self::File(path) => Ok(OpenCatalog {
                catalog: build_from_file(builder, path)?,
                _server: None,
            }),
            Self::Mcp(command) => {
                let server = Arc::new(
                    McpServer::spawn(command).map_err(|e| RunError::usage(e.to_string()))?,
                );
                let catalog = builder
                    .mcp_server(Arc::clone(&server))
                    .build()
                    .map_err(|e| RunError::usage(format!("{command}: {e}")))?;
                Ok(OpenCatalog {
                    catalog,
                    _server: Some(server),
                })
            }
        }
    }
}

/// `builder` with the tools of the file at `path`, built.
fn build_from_file(builder: CatalogBuilder, path: &Path) -> Result<Catalog> {
    let file = load_catalog_file(path).map_err(|e| RunError::usage(e.to_string()))?;
    builder
        .file(file)
        .build()
        .map_err(|e| RunError::usage(format!("{}: {e}", path.display())))
}

/// The static embedding model from `dir`, else from where it is configured
/// ([`StaticModel::configured_dir`]): `$WINK_EMBED_MODEL`, `$WINK_HOME/models/wordllama-l2-256`
/// or the cache directory. A missing model is a usage error saying how to fetch it.
pub fn load_embedding_model(dir: Option<&Path>) -> Result<Arc<StaticModel>> {
    let dir = match dir {
        Some(dir) => dir.to_path_buf(),
        None => StaticModel::configured_dir().ok_or_else(|| {
            RunError::usage(
                "no cache directory for the embedding model: set WINK_HOME or --embedding-model",
            )
        })?,
    };
    let model = StaticModel::load(&dir).map_err(|e| {
        RunError::usage(format!(
            "{e}\nfetch the embedding model with `bash scripts/fetch-embeddings.sh`, or pass --embedding-model DIR"
        ))
    })?;
    Ok(Arc::new(model))
}
