//! [`ToolSearch`]: what `find_tool` runs — server routing fused with the flat BM25 ranking
//! (optionally re-ranked with static embeddings), and multi-intent search over a task's steps.

use serde::{Deserialize, Serialize};

use crate::index::{SearchHit, SearchIndex, WeightedQuery};
use crate::multi::{TaskConfig, TaskInput, TaskResult, search_task};
use crate::route::{RoutingConfig, ServerRouter};

/// The share of a catalog's tools that must belong to a namespace for routing to apply.
pub const ROUTED_SHARE: f64 = 0.9;

/// Everything that shapes [`ToolSearch`] beyond the index itself.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchConfig {
    /// Server-level routing.
    pub routing: RoutingConfig,
    /// How a task's steps are ranked and merged.
    pub task: TaskConfig,
}

impl SearchConfig {
    /// No routing and no context weighting: each query ranked by the index alone (what
    /// `SearchIndex::search` does), steps merged as usual.
    pub fn flat() -> Self {
        Self {
            routing: RoutingConfig::off(),
            task: TaskConfig::default(),
        }
    }
}

/// How the flat ranking is computed.
#[derive(Debug, Clone)]
enum Engine {
    Lexical(SearchIndex),
    #[cfg(feature = "embeddings")]
    Hybrid(crate::hybrid::HybridIndex),
}

/// A catalog search: a BM25 index (optionally re-ranked with embeddings), the router over its
/// namespaces, and the multi-intent merge.
///
/// ```
/// use wink_search::{IndexConfig, SearchIndex, ToolDocument, ToolSearch, TaskInput};
/// let tool = |name: &str, description: &str| {
///     let mut document = ToolDocument::new(name, description);
///     document.namespace = name.split('.').next().map(str::to_owned);
///     document
/// };
/// let index = SearchIndex::build(
///     vec![
///         tool("stocks.price", "Current stock price for a ticker symbol."),
///         tool("stocks.news", "Latest news about a company."),
///         tool("charts.line", "Draw a line chart of a series."),
///         tool("files.write", "Write text to a file."),
///     ],
///     IndexConfig::default(),
/// );
/// let search = ToolSearch::new(index);
/// let result = search.search_task(TaskInput::Text("Get Apple's stock price, then draw a line chart and write it to a file."), 3);
/// assert_eq!(result.steps, ["Get Apple's stock price", "draw a line chart", "write it to a file"]);
/// // The whole task's best tool first, then each step's; each hit names the step it serves.
/// assert_eq!(result.names(), ["charts.line", "stocks.price", "files.write"]);
/// assert_eq!(result.hits.iter().map(|hit| hit.step).collect::<Vec<_>>(), [1, 0, 2]);
/// ```
#[derive(Debug, Clone)]
pub struct ToolSearch {
    engine: Engine,
    router: Option<ServerRouter>,
    config: SearchConfig,
}

impl ToolSearch {
    /// The default search over `index`.
    pub fn new(index: SearchIndex) -> Self {
        Self::with_config(index, SearchConfig::default())
    }

    /// A search over `index` shaped by `config`.
    ///
    /// Routing applies when the catalog is organised in namespaces: two or more, holding at
    /// least [`ROUTED_SHARE`] of the tools (an MCP catalog, where every tool belongs to a
    /// server). In a mostly flat catalog (BFCL: a few dotted names among plain ones) a boost for
    /// the namespaced tools would only push the others down.
    pub fn with_config(index: SearchIndex, config: SearchConfig) -> Self {
        let namespaced = (0..index.len())
            .filter(|&position| index.namespace_id(position).is_some())
            .count();
        let organised =
            index.namespaces().len() >= 2 && namespaced as f64 >= ROUTED_SHARE * index.len() as f64;
        let router = (config.routing.servers > 0 && organised).then(|| ServerRouter::build(&index));
        Self {
            engine: Engine::Lexical(index),
            router,
            config,
        }
    }

    /// Re-ranks the BM25 shortlist with static embeddings (see [`crate::hybrid`]).
    #[cfg(feature = "embeddings")]
    #[must_use]
    pub fn rerank_with(
        self,
        model: std::sync::Arc<wink_embed::StaticModel>,
        config: crate::hybrid::HybridConfig,
    ) -> Self {
        let index = match self.engine {
            Engine::Lexical(index) => index,
            Engine::Hybrid(hybrid) => hybrid.lexical().clone(),
        };
        Self {
            engine: Engine::Hybrid(crate::hybrid::HybridIndex::from_index(index, model, config)),
            ..self
        }
    }

    /// The BM25 index.
    pub fn index(&self) -> &SearchIndex {
        match &self.engine {
            Engine::Lexical(index) => index,
            #[cfg(feature = "embeddings")]
            Engine::Hybrid(hybrid) => hybrid.lexical(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// True when queries are routed to servers (see [`ToolSearch::with_config`]).
    pub fn is_routed(&self) -> bool {
        self.router.is_some()
    }

    /// True when the flat ranking is re-ranked with embeddings.
    pub fn is_hybrid(&self) -> bool {
        !matches!(self.engine, Engine::Lexical(_))
    }

    /// The `limit` best tools for one capability, best first: routed, then ranked by the
    /// engine. Exact-name hits come first and a query without a known word finds nothing, as
    /// with [`SearchIndex::search`].
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.rank(&WeightedQuery::text(query), limit)
    }

    /// Ranks a weighted query (its boosts are replaced by the router's).
    pub fn rank(&self, query: &WeightedQuery<'_>, limit: usize) -> Vec<SearchHit> {
        let boosts = self
            .router
            .as_ref()
            .map(|router| router.boosts(query, &self.config.routing));
        let query = WeightedQuery {
            parts: query.parts.clone(),
            namespace_boosts: boosts.as_deref(),
        };
        match &self.engine {
            Engine::Lexical(index) => index.search_weighted(&query, limit, |_| true),
            #[cfg(feature = "embeddings")]
            Engine::Hybrid(hybrid) => hybrid.search_weighted(&query, limit),
        }
    }

    /// At most `limit` tools covering every step of a task (see [`crate::multi`]).
    pub fn search_task(&self, input: TaskInput<'_>, limit: usize) -> TaskResult {
        search_task(input, limit, &self.config.task, |query, limit| {
            self.rank(query, limit)
        })
    }
}
