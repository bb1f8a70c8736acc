//! Ranking: candidates kept best-first, the BM25 scorer, and the name candidates
//! a query may spell exactly.

use super::*;

#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate {
    pub(super) document: u32,
    /// 0 without an exact-name match.
    pub(super) exact_priority: u32,
    pub(super) score: f32,
    pub(super) name_rank: u32,
}

/// Orders candidates so that a max-heap's top is the worst one kept.
#[derive(Debug, Clone, Copy)]
pub(super) struct WorstFirst(pub(super) Candidate);

impl PartialEq for WorstFirst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for WorstFirst {}

impl PartialOrd for WorstFirst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for WorstFirst {
    fn cmp(&self, other: &Self) -> Ordering {
        Candidate::ranking(&self.0, &other.0)
    }
}

impl Candidate {
    /// `Less` when `a` ranks before `b`: exact-name priority, then score, then name.
    pub(super) fn ranking(a: &Candidate, b: &Candidate) -> Ordering {
        b.exact_priority
            .cmp(&a.exact_priority)
            .then_with(|| b.score.total_cmp(&a.score))
            .then_with(|| a.name_rank.cmp(&b.name_rank))
    }
}

/// Precomputed statistics that turn per-field counts into a term's contribution.
#[derive(Debug)]
pub(super) struct Scorer {
    pub(super) scoring: FieldScoring,
    pub(super) weights: [f32; FIELD_COUNT],
    pub(super) k1: f32,
    pub(super) b: f32,
    pub(super) document_count: f32,
    pub(super) average_lengths: [f32; FIELD_COUNT],
    pub(super) average_weighted_length: f32,
}

impl Scorer {
    pub(super) fn new(
        config: &IndexConfig,
        lengths: &[[u32; FIELD_COUNT]],
        document_count: usize,
    ) -> Self {
        let weights = config.weights.by_field();
        let mut sums = [0f64; FIELD_COUNT];
        for row in lengths {
            for (sum, &length) in sums.iter_mut().zip(row) {
                *sum += f64::from(length);
            }
        }
        let count = document_count.max(1) as f64;
        let average_lengths = sums.map(|sum| (sum / count) as f32);
        let average_weighted_length = average_lengths
            .iter()
            .zip(&weights)
            .map(|(length, weight)| length * weight)
            .sum();
        Self {
            scoring: config.scoring,
            weights,
            k1: config.bm25.k1.max(0.0),
            // NaN becomes 0 (`max` ignores NaN), then clamp to [0, 1].
            b: config.bm25.b.max(0.0).clamp(0.0, 1.0),
            document_count: document_count as f32,
            average_lengths,
            average_weighted_length,
        }
    }

    /// Lucene's always-positive BM25 idf.
    pub(super) fn idf(&self, document_frequency: u32) -> f32 {
        let n = document_frequency as f32;
        (1.0 + (self.document_count - n + 0.5) / (n + 0.5)).ln()
    }

    /// The saturated, length-normalised term frequency times `k1 + 1`.
    pub(super) fn saturated(
        &self,
        counts: &[u16; FIELD_COUNT],
        lengths: &[u32; FIELD_COUNT],
    ) -> f32 {
        let frequency = match self.scoring {
            FieldScoring::Bm25f => (0..FIELD_COUNT)
                .filter(|&field| counts[field] > 0)
                .map(|field| {
                    let average = self.average_lengths[field].max(f32::MIN_POSITIVE);
                    let norm = 1.0 - self.b + self.b * lengths[field] as f32 / average;
                    self.weights[field] * f32::from(counts[field]) / norm
                })
                .sum::<f32>(),
            FieldScoring::Concatenated => {
                let weighted_count: f32 = (0..FIELD_COUNT)
                    .map(|field| self.weights[field] * f32::from(counts[field]))
                    .sum();
                let weighted_length: f32 = (0..FIELD_COUNT)
                    .map(|field| self.weights[field] * lengths[field] as f32)
                    .sum();
                let average = self.average_weighted_length.max(f32::MIN_POSITIVE);
                weighted_count / (1.0 - self.b + self.b * weighted_length / average)
            }
        };
        if frequency <= 0.0 {
            return 0.0;
        }
        frequency * (self.k1 + 1.0) / (frequency + self.k1)
    }
}

/// A substring of the query that could be a tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NameCandidate<'q> {
    pub(super) text: &'q str,
    /// The query marks it as a name: it is a whole run in backticks or quotes, or followed by
    /// `(`.
    pub(super) marked: bool,
}

/// Substrings of `query` that could be a tool name: maximal runs of identifier characters
/// (alphanumerics and `_-.:/$@`), and their sub-runs that start and end at `.`, `/` or `:`
/// boundaries.
pub(super) fn name_candidates(query: &str) -> Vec<NameCandidate<'_>> {
    let is_name_char =
        |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/' | '$' | '@');
    let is_cut = |c: char| matches!(c, '.' | ':' | '/');
    let mut candidates = Vec::new();
    let mut rest = query;
    let mut offset = 0;
    while let Some(start) = rest.find(is_name_char) {
        let length = rest[start..]
            .find(|c: char| !is_name_char(c))
            .unwrap_or(rest.len() - start);
        let run_start = offset + start;
        let run = &query[run_start..run_start + length];
        let before = query[..run_start].chars().next_back();
        let after = query[run_start + length..].chars().next();
        offset = run_start + length;
        rest = &query[offset..];

        let trimmed = run.trim_end_matches(is_cut);
        let quoted = matches!((before, after), (Some(open), Some(close))
            if open == close && matches!(open, '`' | '"' | '\''));
        let called = after == Some('(') && trimmed.len() == run.len();
        let mut starts = vec![0];
        let mut ends = Vec::new();
        for (at, c) in run.char_indices() {
            if is_cut(c) {
                ends.push(at);
                starts.push(at + c.len_utf8());
            }
            if starts.len() > MAX_NAME_SEGMENTS {
                break;
            }
        }
        ends.push(run.len());
        for &start in &starts {
            for &end in &ends {
                if start < end {
                    let text = &run[start..end];
                    let whole = start == 0 && (end == run.len() || text.len() == trimmed.len());
                    candidates.push(NameCandidate {
                        text,
                        marked: whole && (quoted || called),
                    });
                }
            }
        }
    }
    candidates
}
