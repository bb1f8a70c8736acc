//! Embedding re-ranking (feature `embeddings`): a dense index of tool embeddings from a static
//! model ([`wink_embed::StaticModel`]) and a hybrid ranker that re-scores the BM25 shortlist
//! with a fusion of BM25 and cosine similarity.
//!
//! Hybrid ranking of a query:
//! 1. BM25 ranks the catalog ([`SearchIndex::search`]). **An empty BM25 result stays empty**:
//!    dense similarity always finds a "nearest" tool, so falling back to it would turn "the
//!    search found nothing" into confident noise.
//! 2. Exact-name hits keep the first places, in BM25 order (the exact-name guarantee holds).
//! 3. The next [`HybridConfig::shortlist`] BM25 hits are re-scored by [`Fusion`] of their BM25
//!    score and the cosine between query and tool embeddings, and re-sorted (ties by name).
//! 4. Hits beyond the shortlist follow in BM25 order.
//!
//! Measured on BFCL, see the crate README: the default search stays BM25 unless the hybrid
//! wins there on recall@5 and nDCG@10.

use std::sync::Arc;

use wink_embed::{StaticModel, dot};

use crate::document::ToolDocument;
use crate::index::{IndexConfig, SearchHit, SearchIndex, WeightedQuery};
use crate::tokenize::for_each_piece;

/// Which parts of a tool are embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DocumentText {
    /// The name split into words (`get_current_weather` → `get current weather`) and the
    /// description.
    NameAndDescription,
    /// Name words, description, and each parameter's name words and description.
    WithParameters,
}

/// How BM25 and cosine scores of the shortlist combine.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Fusion {
    /// Reciprocal-rank fusion: `1 / (k + bm25 rank) + dense_weight / (k + cosine rank)`, ranks
    /// 1-based within the shortlist.
    ReciprocalRank {
        /// The rank offset (60 in the original paper).
        k: f32,
        /// Weight of the cosine ranking relative to BM25's.
        dense_weight: f32,
    },
    /// Score interpolation: `(1 − dense_weight) · bm25 / max bm25 + dense_weight · cosine`,
    /// the BM25 maximum taken over the shortlist.
    Interpolation {
        /// Weight of the cosine, between 0 (BM25 only) and 1 (cosine only).
        dense_weight: f32,
    },
}

/// Shapes the hybrid ranker. The default is the configuration chosen on BFCL (crate README).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HybridConfig {
    /// How many BM25 hits (after exact-name hits) are re-scored.
    pub shortlist: usize,
    /// The fusion rule.
    pub fusion: Fusion,
    /// What is embedded per tool.
    pub document_text: DocumentText,
}

impl Default for HybridConfig {
    fn default() -> Self {
        Self {
            shortlist: 50,
            fusion: Fusion::Interpolation { dense_weight: 0.5 },
            document_text: DocumentText::NameAndDescription,
        }
    }
}

/// Unit-length embeddings of every tool, row-major.
#[derive(Debug, Clone)]
pub struct DenseIndex {
    dim: usize,
    vectors: Vec<f32>,
}

impl DenseIndex {
    /// Embeds `documents` with `model`.
    pub fn build(model: &StaticModel, documents: &[ToolDocument], text: DocumentText) -> Self {
        let texts: Vec<String> = documents
            .iter()
            .map(|document| embedding_text(document, text))
            .collect();
        Self {
            dim: model.dim(),
            vectors: model.embed_matrix(&texts),
        }
    }

    /// Number of embedded documents.
    pub fn len(&self) -> usize {
        self.vectors.len() / self.dim.max(1)
    }

    /// True when no document is embedded.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// The cosine between a unit query vector and document `index` (0 when out of range).
    pub fn similarity(&self, query: &[f32], index: usize) -> f32 {
        let start = index * self.dim;
        self.vectors
            .get(start..start + self.dim)
            .map_or(0.0, |row| dot(query, row))
    }
}

/// The text embedded for `document`.
///
/// ```
/// use wink_search::{ToolDocument, hybrid::{DocumentText, embedding_text}};
/// let tool = ToolDocument::new("weather.getCurrent_forecast", "Forecast for a city.");
/// assert_eq!(embedding_text(&tool, DocumentText::NameAndDescription), "weather get Current forecast: Forecast for a city.");
/// ```
pub fn embedding_text(document: &ToolDocument, text: DocumentText) -> String {
    let mut out = name_words(&document.name);
    out.push_str(": ");
    out.push_str(document.description.trim());
    if text == DocumentText::WithParameters {
        for parameter in &document.parameters {
            out.push('\n');
            out.push_str(&name_words(&parameter.name));
            if !parameter.description.is_empty() {
                out.push_str(": ");
                out.push_str(parameter.description.trim());
            }
        }
    }
    out
}

/// A tool or parameter name as words: split at non-alphanumerics and camelCase, case kept.
fn name_words(name: &str) -> String {
    let mut words = Vec::new();
    for_each_piece(name, false, |piece| words.push(piece.to_owned()));
    words.join(" ")
}

/// BM25 plus embedding re-ranking over one catalog.
#[derive(Debug, Clone)]
pub struct HybridIndex {
    lexical: SearchIndex,
    dense: DenseIndex,
    model: Arc<StaticModel>,
    config: HybridConfig,
}

impl HybridIndex {
    /// Builds the BM25 index and embeds every document.
    pub fn build(
        documents: Vec<ToolDocument>,
        index_config: IndexConfig,
        model: Arc<StaticModel>,
        config: HybridConfig,
    ) -> Self {
        let dense = DenseIndex::build(&model, &documents, config.document_text);
        Self {
            lexical: SearchIndex::build(documents, index_config),
            dense,
            model,
            config,
        }
    }

    /// Adds embeddings to an existing BM25 index.
    pub fn from_index(lexical: SearchIndex, model: Arc<StaticModel>, config: HybridConfig) -> Self {
        let dense = DenseIndex::build(&model, lexical.documents(), config.document_text);
        Self {
            lexical,
            dense,
            model,
            config,
        }
    }

    /// The same index with another configuration; documents are embedded again only when
    /// [`HybridConfig::document_text`] changes.
    #[must_use]
    pub fn with_config(mut self, config: HybridConfig) -> Self {
        if config.document_text != self.config.document_text {
            self.dense =
                DenseIndex::build(&self.model, self.lexical.documents(), config.document_text);
        }
        self.config = config;
        self
    }

    /// The BM25 index.
    pub fn lexical(&self) -> &SearchIndex {
        &self.lexical
    }

    /// The document embeddings.
    pub fn dense(&self) -> &DenseIndex {
        &self.dense
    }

    /// The configuration.
    pub fn config(&self) -> &HybridConfig {
        &self.config
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.lexical.len()
    }

    /// True when the catalog is empty.
    pub fn is_empty(&self) -> bool {
        self.lexical.is_empty()
    }

    /// The `limit` best tools by the hybrid ranking (see the module docs). `score` is the fused
    /// score for re-ranked hits and the BM25 score for the others.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search_weighted(&WeightedQuery::text(query), limit)
    }

    /// As [`HybridIndex::search`] for a [`WeightedQuery`]: BM25 ranks it (boosts included), and
    /// the query embedding is the normalised weighted sum of its texts' embeddings.
    pub fn search_weighted(&self, query: &WeightedQuery<'_>, limit: usize) -> Vec<SearchHit> {
        if limit == 0 {
            return Vec::new();
        }
        let mut hits = self.lexical.search_weighted(
            query,
            limit.saturating_add(self.config.shortlist),
            |_| true,
        );
        let first_ranked = hits.iter().take_while(|hit| hit.exact_name).count();
        let end = hits.len().min(first_ranked + self.config.shortlist);
        if end > first_ranked {
            let query_vector = self.embed_query(query);
            self.rerank(&query_vector, &mut hits[first_ranked..end]);
        }
        hits.truncate(limit);
        hits
    }

    /// One text: its embedding; several: the normalised weighted sum of theirs.
    fn embed_query(&self, query: &WeightedQuery<'_>) -> Vec<f32> {
        match query.parts.as_slice() {
            [(text, _)] => self.model.embed(text),
            parts => {
                let mut sum = vec![0f32; self.model.dim()];
                for (text, weight) in parts {
                    for (total, value) in sum.iter_mut().zip(self.model.embed(text)) {
                        *total += weight * value;
                    }
                }
                let norm = dot(&sum, &sum).sqrt();
                if norm > 0.0 {
                    sum.iter_mut().for_each(|value| *value /= norm);
                }
                sum
            }
        }
    }

    /// The `limit` tools most similar to `query` by cosine alone (no BM25, no exact-name rule),
    /// ties by name; every tool is ranked, so this never returns fewer than `limit` hits when
    /// the catalog has them. For comparison with [`HybridIndex::search`].
    pub fn search_dense(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let query_vector = self.model.embed(query);
        let documents = self.lexical.documents();
        let mut scored: Vec<(usize, f32)> = (0..documents.len())
            .map(|index| (index, self.dense.similarity(&query_vector, index)))
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| {
            b.1.total_cmp(&a.1)
                .then_with(|| documents[a.0].name.cmp(&documents[b.0].name))
                .then(a.0.cmp(&b.0))
        };
        if limit < scored.len() {
            scored.select_nth_unstable_by(limit, by_score);
            scored.truncate(limit);
        }
        scored.sort_unstable_by(by_score);
        scored
            .into_iter()
            .map(|(index, score)| SearchHit {
                index,
                name: documents[index].name.clone(),
                score,
                exact_name: false,
            })
            .collect()
    }

    /// Re-scores `hits` (in BM25 order) by the configured fusion and sorts them.
    fn rerank(&self, query_vector: &[f32], hits: &mut [SearchHit]) {
        let cosines: Vec<f32> = hits
            .iter()
            .map(|hit| self.dense.similarity(query_vector, hit.index))
            .collect();
        let fused: Vec<f32> = match self.config.fusion {
            Fusion::ReciprocalRank { k, dense_weight } => {
                let mut by_cosine: Vec<usize> = (0..hits.len()).collect();
                by_cosine.sort_by(|&a, &b| cosines[b].total_cmp(&cosines[a]).then(a.cmp(&b)));
                let mut dense_rank = vec![0usize; hits.len()];
                for (rank, &position) in by_cosine.iter().enumerate() {
                    dense_rank[position] = rank + 1;
                }
                (0..hits.len())
                    .map(|position| {
                        1.0 / (k + (position + 1) as f32)
                            + dense_weight / (k + dense_rank[position] as f32)
                    })
                    .collect()
            }
            Fusion::Interpolation { dense_weight } => {
                let top = hits
                    .iter()
                    .map(|hit| hit.score)
                    .fold(f32::MIN_POSITIVE, f32::max);
                hits.iter()
                    .zip(&cosines)
                    .map(|(hit, cosine)| {
                        (1.0 - dense_weight) * hit.score / top + dense_weight * cosine
                    })
                    .collect()
            }
        };
        let documents = self.lexical.documents();
        let mut order: Vec<usize> = (0..hits.len()).collect();
        order.sort_by(|&a, &b| {
            fused[b]
                .total_cmp(&fused[a])
                .then_with(|| {
                    documents[hits[a].index]
                        .name
                        .cmp(&documents[hits[b].index].name)
                })
                .then(hits[a].index.cmp(&hits[b].index))
        });
        let reordered: Vec<SearchHit> = order
            .iter()
            .map(|&position| SearchHit {
                score: fused[position],
                ..hits[position].clone()
            })
            .collect();
        for (slot, hit) in hits.iter_mut().zip(reordered) {
            *slot = hit;
        }
    }
}

impl crate::rank::Ranked for HybridIndex {
    fn rank(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search(query, limit)
    }
}

/// The hybrid ranking as a [`crate::Ranking`]: documents are indexed with BM25 and embedded with
/// `model`; queries are ranked by [`HybridIndex::search`].
#[derive(Debug, Clone)]
pub struct HybridRanking {
    /// The static embedding model.
    pub model: Arc<StaticModel>,
    /// The BM25 configuration.
    pub index: IndexConfig,
    /// The re-ranking configuration.
    pub config: HybridConfig,
}

impl HybridRanking {
    /// The default configurations (as chosen on BFCL) with `model`.
    pub fn new(model: Arc<StaticModel>) -> Self {
        Self {
            model,
            index: IndexConfig::default(),
            config: HybridConfig::default(),
        }
    }
}

impl crate::rank::Ranking for HybridRanking {
    fn name(&self) -> &str {
        "hybrid"
    }

    fn index(&self, documents: Vec<ToolDocument>) -> Box<dyn crate::rank::Ranked> {
        Box::new(HybridIndex::build(
            documents,
            self.index,
            Arc::clone(&self.model),
            self.config,
        ))
    }
}
