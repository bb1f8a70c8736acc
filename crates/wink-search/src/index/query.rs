//! Query time: one pass over the postings of the query's terms, the exact-name rule, optional
//! per-namespace boosts, and a bounded heap of the best candidates.

use super::*;

/// A query made of weighted texts, with optional per-namespace boosts.
///
/// Each known term counts with the sum of the weights of the texts containing it (once per
/// text). The exact-name rule applies to the first text only. With boosts, a document's score is
/// its BM25 score divided by the best BM25 score of the query, plus the boost of its namespace
/// (see [`SearchIndex::namespaces`] for the order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WeightedQuery<'a> {
    /// The texts and their weights.
    pub parts: Vec<(&'a str, f32)>,
    /// Added to the normalised score of each namespace's documents, by namespace position.
    pub namespace_boosts: Option<&'a [f32]>,
}

impl<'a> WeightedQuery<'a> {
    /// A single text with weight 1 and no boosts: what [`SearchIndex::search`] runs.
    pub fn text(text: &'a str) -> Self {
        Self {
            parts: vec![(text, 1.0)],
            namespace_boosts: None,
        }
    }
}

impl SearchIndex {
    /// The `limit` best tools for `query`, best first; ties broken by name ascending.
    ///
    /// Tools whose exact name occurs in the query come first (longest name first, then those
    /// written in the same case), see [`ExactNameRule`]. A query without any indexed term and
    /// without a tool name returns nothing.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search_weighted(&WeightedQuery::text(query), limit, |_| true)
    }

    /// Like [`SearchIndex::search`], keeping only documents for which `keep` is true (e.g. one
    /// namespace).
    pub fn search_filtered(
        &self,
        query: &str,
        limit: usize,
        keep: impl Fn(&ToolDocument) -> bool,
    ) -> Vec<SearchHit> {
        self.search_weighted(&WeightedQuery::text(query), limit, keep)
    }

    /// The `limit` best tools for a [`WeightedQuery`], keeping only documents for which `keep`
    /// is true; ordered as [`SearchIndex::search`].
    pub fn search_weighted(
        &self,
        query: &WeightedQuery<'_>,
        limit: usize,
        keep: impl Fn(&ToolDocument) -> bool,
    ) -> Vec<SearchHit> {
        if limit == 0 || self.documents.is_empty() {
            return Vec::new();
        }
        let terms = self.weighted_terms(&query.parts);
        let exact = query
            .parts
            .first()
            .map_or_else(Vec::new, |(text, _)| self.exact_name_matches(text));
        if terms.is_empty() && exact.is_empty() {
            return Vec::new();
        }

        let mut scores = vec![0f32; self.documents.len()];
        let mut touched: Vec<u32> = Vec::new();
        for (term, factor) in terms {
            let start = self.postings_start[term as usize] as usize;
            let end = self.postings_start[term as usize + 1] as usize;
            for (&document, &impact) in self.posting_documents[start..end]
                .iter()
                .zip(&self.posting_impacts[start..end])
            {
                let score = &mut scores[document as usize];
                if *score == 0.0 {
                    touched.push(document);
                }
                *score += impact * factor;
            }
        }

        // Exact-name documents rank first whatever their score; take them out of the rest.
        let mut exact_hits: Vec<Candidate> = Vec::with_capacity(exact.len());
        for &(document, priority) in &exact {
            let score = &mut scores[document as usize];
            if keep(&self.documents[document as usize]) {
                exact_hits.push(Candidate {
                    document,
                    exact_priority: priority,
                    score: *score,
                    name_rank: self.name_rank[document as usize],
                });
            }
            *score = f32::NEG_INFINITY;
        }
        exact_hits.sort_unstable_by(Candidate::ranking);
        exact_hits.truncate(limit);

        if let Some(boosts) = query.namespace_boosts {
            self.apply_boosts(&mut scores, &touched, boosts);
        }
        let rest = self.best_touched(&scores, touched, limit - exact_hits.len(), &keep);

        exact_hits
            .into_iter()
            .chain(rest)
            .map(|candidate| SearchHit {
                index: candidate.document as usize,
                name: self.documents[candidate.document as usize].name.clone(),
                score: candidate.score,
                exact_name: candidate.exact_priority > 0,
            })
            .collect()
    }

    /// Turns the BM25 scores of `touched` documents into `score / best + boost(namespace)`.
    fn apply_boosts(&self, scores: &mut [f32], touched: &[u32], boosts: &[f32]) {
        let best = touched
            .iter()
            .map(|&document| scores[document as usize])
            .fold(f32::MIN_POSITIVE, f32::max);
        for &document in touched {
            let score = &mut scores[document as usize];
            if *score == f32::NEG_INFINITY {
                continue;
            }
            let boost = boosts
                .get(self.namespace_ids[document as usize] as usize)
                .copied()
                .unwrap_or(0.0);
            // Kept strictly positive like the BM25 scores.
            *score = (*score / best + boost).max(f32::MIN_POSITIVE);
        }
    }

    /// The `room` best of the `touched` documents `keep` accepts, best first.
    fn best_touched(
        &self,
        scores: &[f32],
        touched: Vec<u32>,
        room: usize,
        keep: &impl Fn(&ToolDocument) -> bool,
    ) -> Vec<Candidate> {
        if room == 0 {
            return Vec::new();
        }
        let mut best: BinaryHeap<WorstFirst> =
            BinaryHeap::with_capacity(room.min(touched.len()) + 1);
        for document in touched {
            let score = scores[document as usize];
            if score == f32::NEG_INFINITY {
                continue;
            }
            let candidate = Candidate {
                document,
                exact_priority: 0,
                score,
                name_rank: self.name_rank[document as usize],
            };
            if best.len() == room {
                let Some(mut worst) = best.peek_mut() else {
                    break;
                };
                if Candidate::ranking(&candidate, &worst.0) == Ordering::Less
                    && keep(&self.documents[document as usize])
                {
                    *worst = WorstFirst(candidate);
                }
            } else if keep(&self.documents[document as usize]) {
                best.push(WorstFirst(candidate));
            }
        }
        let mut rest: Vec<Candidate> = best.into_iter().map(|ranked| ranked.0).collect();
        rest.sort_unstable_by(Candidate::ranking);
        rest
    }

    /// Distinct known terms of the weighted texts with their factor, in term-id order for a
    /// deterministic sum. Within one text a term counts once, or once per occurrence with
    /// [`IndexConfig::query_term_frequency`]; across texts the weights add up.
    fn weighted_terms(&self, parts: &[(&str, f32)]) -> Vec<(u32, f32)> {
        let mut weighted: Vec<(u32, f32)> = Vec::new();
        let mut ids = Vec::new();
        for &(text, weight) in parts {
            if weight <= 0.0 || weight.is_nan() {
                continue;
            }
            ids.clear();
            self.config.tokenizer.for_each_term(text, |term| {
                if let Some(&id) = self.term_ids.get(term) {
                    ids.push(id);
                }
            });
            ids.sort_unstable();
            for group in ids.chunk_by(|a, b| a == b) {
                let repeat = if self.config.query_term_frequency {
                    group.len() as f32
                } else {
                    1.0
                };
                weighted.push((group[0], weight * repeat));
            }
        }
        weighted.sort_unstable_by_key(|&(id, _)| id);
        let mut terms: Vec<(u32, f32)> = Vec::with_capacity(weighted.len());
        for group in weighted.chunk_by(|a, b| a.0 == b.0) {
            terms.push((group[0].0, group.iter().map(|(_, weight)| weight).sum()));
        }
        terms
    }

    /// Documents whose name occurs in `query`, with a positive priority (longer names first,
    /// exact case before other case).
    fn exact_name_matches(&self, query: &str) -> Vec<(u32, u32)> {
        if self.config.exact_names == ExactNameRule::Off {
            return Vec::new();
        }
        let mut found = Vec::new();
        for candidate in name_candidates(query) {
            let lowercase = candidate.text.to_lowercase();
            if let Some(documents) = self.by_lowercase_name.get(&lowercase) {
                for &(document, needs_marking) in documents {
                    if candidate.marked || !needs_marking {
                        // Longer names are more specific; an exact-case match beats a
                        // case-insensitive one of the same length.
                        let same_case = self.documents[document as usize].name == candidate.text;
                        let priority =
                            2 * to_u32(candidate.text.chars().count()) + u32::from(same_case);
                        found.push((document, priority));
                    }
                }
            }
        }
        // Longest matched name first per document, then one entry per document.
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        found.dedup_by_key(|(document, _)| *document);
        found
    }
}
