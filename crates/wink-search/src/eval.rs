//! Retrieval quality: recall@k, nDCG@10 and MRR over a set of labelled queries.
//!
//! Definitions (per query, then averaged over the queries that have at least one relevant tool):
//!
//! * **recall@k** = |relevant ∩ top-k| / |relevant|. With one relevant tool this is the hit rate
//!   (1 if it is in the top k, else 0); with several, partial credit. This is also how the BFCL
//!   baseline in `data/README.md` is computed.
//! * **nDCG@10** with binary gains: DCG = Σ 1/log2(rank + 1) over relevant results in the top 10,
//!   divided by the DCG of an ideal ranking (all relevant tools first, at most 10).
//! * **MRR** = 1 / rank of the first relevant result in the full ranking (0 if none is retrieved).
//!
//! Relevance is judged by name ([`Query::relevant`]), a name counting once even if several
//! documents share it, unless [`Query::relevant_documents`] is given: then by document position,
//! which is what BFCL needs (its pooled corpus has different functions with the same name, and
//! only the one offered with the question counts — the README baseline judges it that way).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::index::{SearchHit, SearchIndex};

/// A labelled query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// The search text.
    pub query: String,
    /// Names of the tools that answer it.
    pub relevant: Vec<String>,
    /// Positions of the relevant documents in the evaluated catalog, when names are ambiguous.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevant_documents: Option<Vec<usize>>,
}

impl Query {
    /// A query judged by tool names.
    pub fn new<I, S>(query: impl Into<String>, relevant: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            query: query.into(),
            relevant: relevant.into_iter().map(Into::into).collect(),
            relevant_documents: None,
        }
    }
}

/// Averaged retrieval metrics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Mean recall in the top 1.
    #[serde(rename = "recall@1")]
    pub recall_at_1: f64,
    /// Mean recall in the top 5.
    #[serde(rename = "recall@5")]
    pub recall_at_5: f64,
    /// Mean recall in the top 10.
    #[serde(rename = "recall@10")]
    pub recall_at_10: f64,
    /// Mean nDCG in the top 10.
    #[serde(rename = "ndcg@10")]
    pub ndcg_at_10: f64,
    /// Mean reciprocal rank of the first relevant result.
    pub mrr: f64,
    /// Number of queries averaged (queries without any relevant tool are skipped).
    pub queries: usize,
}

/// Ranks of the relevant results of one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// Number of relevant tools.
    pub relevant: usize,
    /// 1-based ranks at which relevant tools were retrieved, ascending.
    pub ranks: Vec<usize>,
}

impl Judgement {
    /// |relevant ∩ top-k| / |relevant|.
    pub fn recall_at(&self, k: usize) -> f64 {
        if self.relevant == 0 {
            return 0.0;
        }
        self.ranks.iter().filter(|&&rank| rank <= k).count() as f64 / self.relevant as f64
    }

    /// Binary-gain nDCG over the top `k`.
    pub fn ndcg_at(&self, k: usize) -> f64 {
        let gain = |rank: usize| 1.0 / ((rank + 1) as f64).log2();
        let dcg: f64 = self
            .ranks
            .iter()
            .filter(|&&rank| rank <= k)
            .map(|&rank| gain(rank))
            .sum();
        let ideal: f64 = (1..=self.relevant.min(k)).map(gain).sum();
        if ideal == 0.0 { 0.0 } else { dcg / ideal }
    }

    /// 1 / rank of the first relevant result, 0 when none was retrieved.
    pub fn reciprocal_rank(&self) -> f64 {
        self.ranks.first().map_or(0.0, |&rank| 1.0 / rank as f64)
    }
}

/// Ranks every query against `index` and judges the full ranking.
pub fn judge(index: &SearchIndex, query: &Query) -> Judgement {
    judge_hits(query, &index.search(&query.query, index.len()))
}

/// Judges a ranking (best first) of `query` produced by any ranker.
pub fn judge_hits(query: &Query, hits: &[SearchHit]) -> Judgement {
    match &query.relevant_documents {
        Some(documents) => {
            let relevant: HashSet<usize> = documents.iter().copied().collect();
            let ranks = hits
                .iter()
                .enumerate()
                .filter(|(_, hit)| relevant.contains(&hit.index))
                .map(|(position, _)| position + 1)
                .collect();
            Judgement {
                relevant: relevant.len(),
                ranks,
            }
        }
        None => {
            let mut unfound: HashSet<&str> = query.relevant.iter().map(String::as_str).collect();
            let relevant = unfound.len();
            let ranks = hits
                .iter()
                .enumerate()
                .filter(|(_, hit)| unfound.remove(hit.name.as_str()))
                .map(|(position, _)| position + 1)
                .collect();
            Judgement { relevant, ranks }
        }
    }
}

/// Evaluates `queries` against `index`.
pub fn evaluate(index: &SearchIndex, queries: &[Query]) -> Metrics {
    evaluate_ranking(queries, |text| index.search(text, index.len()))
}

/// Evaluates any ranker: `rank` returns the full ranking (best first) for a query text.
///
/// ```
/// use wink_search::{IndexConfig, Query, SearchIndex, ToolDocument, eval::evaluate_ranking};
/// let index = SearchIndex::build(vec![ToolDocument::new("a", "alpha"), ToolDocument::new("b", "beta")], IndexConfig::default());
/// let queries = [Query::new("beta", ["b"])];
/// let reversed = evaluate_ranking(&queries, |text| {
///     let mut hits = index.search(text, 2);
///     hits.reverse();
///     hits
/// });
/// assert_eq!(reversed.recall_at_1, 1.0); // only "b" matches "beta"
/// ```
pub fn evaluate_ranking(queries: &[Query], rank: impl Fn(&str) -> Vec<SearchHit>) -> Metrics {
    let judgements: Vec<Judgement> = queries
        .iter()
        .map(|query| judge_hits(query, &rank(&query.query)))
        .collect();
    Metrics::from_judgements(&judgements)
}

impl Metrics {
    /// The metrics as lines of text (what `wink catalog eval` prints), for `tools` tools
    /// ranked by `ranker`.
    pub fn text(&self, tools: usize, ranker: &str) -> String {
        format!(
            "{} queries over {tools} tools ({ranker})\nrecall@1   {:.3}\nrecall@5   {:.3}\nrecall@10  {:.3}\nndcg@10    {:.3}\nmrr        {:.3}",
            self.queries,
            self.recall_at_1,
            self.recall_at_5,
            self.recall_at_10,
            self.ndcg_at_10,
            self.mrr
        )
    }

    /// The metrics as one JSON object (their serialized fields), with the number of tools and
    /// the ranker.
    pub fn to_json(&self, tools: usize, ranker: &str) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("tools".into(), tools.into());
            map.insert("ranker".into(), ranker.into());
        }
        value
    }

    /// Averages judgements, skipping those with no relevant tool.
    pub fn from_judgements(judgements: &[Judgement]) -> Metrics {
        let counted: Vec<&Judgement> = judgements.iter().filter(|j| j.relevant > 0).collect();
        let count = counted.len();
        let mean = |metric: &dyn Fn(&Judgement) -> f64| {
            if count == 0 {
                0.0
            } else {
                counted
                    .iter()
                    .map(|judgement| metric(judgement))
                    .sum::<f64>()
                    / count as f64
            }
        };
        Metrics {
            recall_at_1: mean(&|j| j.recall_at(1)),
            recall_at_5: mean(&|j| j.recall_at(5)),
            recall_at_10: mean(&|j| j.recall_at(10)),
            ndcg_at_10: mean(&|j| j.ndcg_at(10)),
            mrr: mean(&|j| j.reciprocal_rank()),
            queries: count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_print_as_the_cli_shows_them() {
        let metrics = Metrics {
            recall_at_1: 0.5,
            recall_at_5: 0.75,
            recall_at_10: 1.0,
            ndcg_at_10: 0.8125,
            mrr: 0.6666,
            queries: 4,
        };
        assert_eq!(
            metrics.text(12, "bm25"),
            "4 queries over 12 tools (bm25)\nrecall@1   0.500\nrecall@5   0.750\nrecall@10  1.000\nndcg@10    0.812\nmrr        0.667"
        );
        assert_eq!(
            metrics.to_json(12, "bm25").to_string(),
            r#"{"recall@1":0.5,"recall@5":0.75,"recall@10":1.0,"ndcg@10":0.8125,"mrr":0.6666,"queries":4,"tools":12,"ranker":"bm25"}"#
        );
    }

    #[test]
    fn judgement_math_matches_hand_computation() {
        // Two relevant tools found at ranks 2 and 7.
        let judgement = Judgement {
            relevant: 2,
            ranks: vec![2, 7],
        };
        assert_eq!(judgement.recall_at(1), 0.0);
        assert_eq!(judgement.recall_at(5), 0.5);
        assert_eq!(judgement.recall_at(10), 1.0);
        assert_eq!(judgement.reciprocal_rank(), 0.5);
        // DCG = 1/log2(3) + 1/log2(8) = 0.630930 + 0.333333; IDCG = 1 + 1/log2(3) = 1.630930.
        let expected = (1.0 / 3f64.log2() + 1.0 / 3.0) / (1.0 + 1.0 / 3f64.log2());
        assert!((judgement.ndcg_at(10) - expected).abs() < 1e-12);
        assert!((judgement.ndcg_at(10) - 0.591_235_2).abs() < 1e-6);
    }

    #[test]
    fn averages_skip_queries_without_relevant_tools() {
        let judgements = [
            Judgement {
                relevant: 1,
                ranks: vec![1],
            },
            Judgement {
                relevant: 1,
                ranks: vec![],
            },
            Judgement {
                relevant: 0,
                ranks: vec![],
            },
        ];
        let metrics = Metrics::from_judgements(&judgements);
        assert_eq!(metrics.queries, 2);
        assert_eq!(metrics.recall_at_1, 0.5);
        assert_eq!(metrics.mrr, 0.5);
        assert_eq!(metrics.ndcg_at_10, 0.5);
        assert_eq!(Metrics::from_judgements(&[]).queries, 0);
    }
}
