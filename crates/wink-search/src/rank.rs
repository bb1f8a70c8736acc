//! One interface over the rankings this crate builds, for callers that index documents of their
//! own and let their user pick the ranking: BM25 ([`Bm25Ranking`]) or, with the `embeddings`
//! feature, BM25 re-ranked with a static embedding model (`hybrid::HybridRanking`).
//!
//! ```
//! use wink_search::{Bm25Ranking, Ranking, ToolDocument};
//!
//! let ranking = Bm25Ranking::default();
//! let index = ranking.index(vec![
//!     ToolDocument::new("guide.install", "Installing the toolchain with rustup."),
//!     ToolDocument::new("guide.hello", "Writing and running a first program."),
//! ]);
//! assert_eq!(index.rank("how do I install rustup?", 1)[0].name, "guide.install");
//! assert_eq!(ranking.name(), "bm25");
//! ```

use std::fmt;

use crate::document::ToolDocument;
use crate::index::{IndexConfig, SearchHit, SearchIndex};

/// A built index that ranks its documents for a query.
pub trait Ranked: Send + Sync {
    /// The `limit` best documents for `query`, best first (an empty result when no term of the
    /// query is indexed).
    fn rank(&self, query: &str, limit: usize) -> Vec<SearchHit>;
}

/// How documents are ranked: builds a [`Ranked`] index over a set of documents.
pub trait Ranking: Send + Sync + fmt::Debug {
    /// The ranking's name (`bm25`, `hybrid`).
    fn name(&self) -> &str;
    /// Indexes `documents` (hit `index` refers to their order).
    fn index(&self, documents: Vec<ToolDocument>) -> Box<dyn Ranked>;
}

impl Ranked for SearchIndex {
    fn rank(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search(query, limit)
    }
}

/// BM25(F) with an [`IndexConfig`] (the default one unless given).
#[derive(Debug, Clone, Default)]
pub struct Bm25Ranking {
    /// The index configuration.
    pub config: IndexConfig,
}

impl Ranking for Bm25Ranking {
    fn name(&self) -> &str {
        "bm25"
    }

    fn index(&self, documents: Vec<ToolDocument>) -> Box<dyn Ranked> {
        Box::new(SearchIndex::build(documents, self.config))
    }
}
