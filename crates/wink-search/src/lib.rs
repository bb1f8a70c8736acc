//! Tool-catalog search for wink: a BM25F inverted index over tool names, summaries,
//! descriptions, parameters and tags, plus the harness that measures its retrieval quality.
//!
//! The index is built once and is immutable (`Send + Sync`); a query touches only the postings
//! of its terms. Ranking is deterministic (ties by name), a query containing a tool's exact name
//! ranks that tool first, and a query with no known term returns nothing.
//!
//! ```
//! use wink_search::{IndexConfig, SearchIndex, ToolDocument};
//! use serde_json::json;
//!
//! let index = SearchIndex::build(
//!     vec![
//!         ToolDocument::from_json_schema(
//!             "file.read",
//!             "Reads a file from disk. Returns its text.",
//!             &json!({"type": "object", "properties": {"path": {"type": "string", "description": "File path."}}}),
//!         ),
//!         ToolDocument::new("web.search", "Searches the web for pages matching a query."),
//!         ToolDocument::new("weather.current", "Current weather for a city."),
//!     ],
//!     IndexConfig::default(),
//! );
//! let hits = index.search("open the file at this path", 2);
//! assert_eq!(hits[0].name, "file.read");
//! assert_eq!(index.search("web.search for cats", 1)[0].name, "web.search");
//! assert!(index.search("zzz qqq", 5).is_empty());
//! ```
//!
//! Quality is measured with [`eval::evaluate`] over labelled queries, e.g. the pooled BFCL set
//! from [`load_bfcl`]; see the crate README for the numbers and how they were tuned.

mod dataset;
mod document;
mod error;
pub mod eval;
#[cfg(feature = "embeddings")]
pub mod hybrid;
mod index;
pub mod model_queries;
mod multi;
mod rank;
mod route;
mod search;
mod split;
pub mod synthetic;
pub mod task_eval;
mod tokenize;

pub use dataset::{TaskSet, load_bfcl, load_queries_jsonl, load_tasks_jsonl, load_tools_jsonl};
pub use document::{ParamDoc, ToolDocument, first_sentence, namespace_of};
pub use error::SearchError;
pub use eval::{Metrics, Query, evaluate};
pub use index::{
    Bm25Params, ExactNameRule, FieldScoring, FieldWeights, HeapUsage, IndexConfig, NamespaceInfo,
    SearchHit, SearchIndex, WeightedQuery,
};
pub use multi::{TaskConfig, TaskHit, TaskInput, TaskResult, search_task};
pub use rank::{Bm25Ranking, Ranked, Ranking};
pub use route::{RoutingConfig, ServerRouter};
pub use search::{ROUTED_SHARE, SearchConfig, ToolSearch};
pub use split::{MAX_STEPS, Step, split_task};
pub use tokenize::{Stemming, Tokenizer, stem, tokenize};
