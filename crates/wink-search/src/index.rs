//! The inverted index and its ranking.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::mem::size_of;

use serde::{Deserialize, Serialize};

use crate::document::ToolDocument;
use crate::tokenize::Tokenizer;

/// How much one occurrence of a term counts in each field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FieldWeights {
    /// The tool name, split into words.
    pub name: f32,
    /// The first sentence of the description (it is also part of `description`).
    pub summary: f32,
    /// The full description.
    pub description: f32,
    /// Parameter names, split into words.
    pub param_names: f32,
    /// Parameter descriptions.
    pub param_descriptions: f32,
    /// Tags.
    pub tags: f32,
}

impl Default for FieldWeights {
    /// The weights tuned on the even-numbered BFCL queries (see the crate README and
    /// `examples/tune.rs`).
    fn default() -> Self {
        Self {
            name: 2.0,
            summary: 0.5,
            description: 1.0,
            param_names: 2.0,
            param_descriptions: 1.0,
            // Not tuned: BFCL has no tags. Tags are curated labels, so they count like the
            // description.
            tags: 1.0,
        }
    }
}

impl FieldWeights {
    /// Equal weights on name, description and parameters, nothing on summary and tags: the
    /// setup of the published BFCL baseline.
    pub fn baseline() -> Self {
        Self {
            name: 1.0,
            summary: 0.0,
            description: 1.0,
            param_names: 1.0,
            param_descriptions: 1.0,
            tags: 0.0,
        }
    }

    /// Weights by field index; negative and NaN weights count as 0.
    fn by_field(&self) -> [f32; FIELD_COUNT] {
        [
            self.name,
            self.summary,
            self.description,
            self.param_names,
            self.param_descriptions,
            self.tags,
        ]
        .map(|weight| if weight > 0.0 { weight } else { 0.0 })
    }
}

/// Okapi BM25 saturation (`k1`) and length normalisation (`b`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bm25Params {
    /// Term-frequency saturation; 0 makes repeated terms count once.
    pub k1: f32,
    /// Length normalisation between 0 (none) and 1 (full).
    pub b: f32,
}

impl Default for Bm25Params {
    /// The values tuned on BFCL (k1 = 1.5, b = 0.7); Okapi's textbook values are 1.2 and 0.75.
    fn default() -> Self {
        Self { k1: 1.5, b: 0.7 }
    }
}

/// How per-field term counts are combined into one score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FieldScoring {
    /// BM25F: each field's count is normalised by that field's length relative to its average,
    /// weighted, summed, then saturated once.
    Bm25f,
    /// Weighted concatenation: weighted counts and weighted lengths are summed first, then
    /// ordinary BM25 applies (with equal weights this is BM25 over the concatenated text).
    Concatenated,
}

/// Which tool names the exact-name rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExactNameRule {
    /// No rule: ranking is by score alone.
    Off,
    /// Every tool whose name occurs in the query (case-insensitively, as a whole identifier or
    /// as a `.`/`/`/`:`-separated part of one) ranks above all others.
    AnyName,
    /// As `AnyName` for compound names — names of two or more words (`get_weather`, `file.read`,
    /// `createIssue`, `s3_upload`); a one-word name (`add`, `news`) counts only when the query
    /// marks it as a name: in backticks or quotes (`` `add` ``, `"add"`, `'add'`) or followed by
    /// `(`. A one-word tool name used as an ordinary word ("add a server", "latest news") thus
    /// does not take the first place — on BFCL that costs 3.6 points of recall@1 with `AnyName`.
    CompoundOrQuoted,
}

/// Everything that shapes the index. [`IndexConfig::default`] is the tuned configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IndexConfig {
    /// Per-field weights.
    pub weights: FieldWeights,
    /// BM25 parameters.
    pub bm25: Bm25Params,
    /// How field counts are combined.
    pub scoring: FieldScoring,
    /// How text becomes terms (documents and queries alike).
    pub tokenizer: Tokenizer,
    /// The exact-name guarantee.
    pub exact_names: ExactNameRule,
    /// Count a term repeated in the query once per occurrence (`false`: once).
    pub query_term_frequency: bool,
}

impl Default for IndexConfig {
    fn default() -> Self {
        Self {
            weights: FieldWeights::default(),
            bm25: Bm25Params::default(),
            scoring: FieldScoring::Concatenated,
            tokenizer: Tokenizer::default(),
            exact_names: ExactNameRule::CompoundOrQuoted,
            query_term_frequency: false,
        }
    }
}

impl IndexConfig {
    /// The published baseline: Okapi BM25 (k1 = 1.2, b = 0.75) over the concatenation of name,
    /// description and parameter names and descriptions; lowercase alphanumeric runs split at
    /// camelCase, terms of two or more characters; no stemming, stopwords or exact-name rule.
    pub fn baseline() -> Self {
        Self {
            weights: FieldWeights::baseline(),
            bm25: Bm25Params { k1: 1.2, b: 0.75 },
            scoring: FieldScoring::Concatenated,
            tokenizer: Tokenizer {
                min_len: 2,
                split_digits: false,
                stopwords: false,
                stemming: crate::Stemming::None,
            },
            exact_names: ExactNameRule::Off,
            query_term_frequency: false,
        }
    }
}

/// One ranked result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    /// Position of the document in the index ([`SearchIndex::document`]).
    pub index: usize,
    /// The tool name.
    pub name: String,
    /// The BM25 score (higher is better; exact-name hits rank first whatever their score).
    pub score: f32,
    /// The query contains this tool's exact name.
    pub exact_name: bool,
}

const FIELD_COUNT: usize = 6;
const NAME: usize = 0;
const SUMMARY: usize = 1;
const DESCRIPTION: usize = 2;
const PARAM_NAMES: usize = 3;
const PARAM_DESCRIPTIONS: usize = 4;
const TAGS: usize = 5;

/// Longest run of `.`/`/`/`:`-separated segments considered when looking for names in a query.
const MAX_NAME_SEGMENTS: usize = 16;

/// A fast, non-cryptographic hasher (the `FxHash` multiply-rotate scheme) for the term
/// dictionary: the keys come from the catalog, and queries only look up, so flooding is not a
/// concern.
#[derive(Debug, Default, Clone, Copy)]
struct TermHasher(u64);

impl Hasher for TermHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(SEED);
        }
        for &byte in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(SEED);
        }
    }
}

type TermMap<V> = HashMap<String, V, BuildHasherDefault<TermHasher>>;

/// An immutable inverted index over tool documents.
///
/// Postings hold, per term, the documents containing it with the term's precomputed BM25(F)
/// contribution, so a query costs one pass over the postings of its terms.
#[derive(Debug, Clone)]
pub struct SearchIndex {
    documents: Vec<ToolDocument>,
    config: IndexConfig,
    term_ids: TermMap<u32>,
    /// `postings_start[t]..postings_start[t + 1]` indexes `posting_documents` and
    /// `posting_impacts` for term `t`.
    postings_start: Vec<u32>,
    posting_documents: Vec<u32>,
    posting_impacts: Vec<f32>,
    /// Rank of each document in name order (ties by position), for deterministic tie breaks.
    name_rank: Vec<u32>,
    /// Names → first document, for [`SearchIndex::get`].
    by_name: HashMap<String, u32>,
    /// Lowercased names the exact-name rule applies to → documents, each flagged when the
    /// query must mark the name (quotes, backticks, call parenthesis) for the rule to apply.
    by_lowercase_name: HashMap<String, Vec<(u32, bool)>>,
}

/// One `(term, field)` occurrence count of one document during the build.
#[derive(Debug, Clone, Copy)]
struct FieldCount {
    term: u32,
    field: u8,
    count: u16,
}

impl SearchIndex {
    /// Indexes `documents` (their order is kept: hit `index` refers to it).
    ///
    /// Documents may share a name; [`SearchIndex::get`] then returns the first.
    ///
    /// # Panics
    ///
    /// Never in practice: more than `u32::MAX` documents or postings would not fit in memory
    /// anyway, and they are the only limit.
    pub fn build(documents: Vec<ToolDocument>, config: IndexConfig) -> SearchIndex {
        let document_count = documents.len();
        let weights = config.weights.by_field();
        let mut term_ids: TermMap<u32> = TermMap::default();
        let mut counts: Vec<FieldCount> = Vec::new();
        let mut counts_start: Vec<usize> = Vec::with_capacity(document_count + 1);
        let mut field_lengths: Vec<[u32; FIELD_COUNT]> = Vec::with_capacity(document_count);
        let mut occurrences: Vec<(u32, u8)> = Vec::new();
        let mut document_frequency: Vec<u32> = Vec::new();

        for document in &documents {
            occurrences.clear();
            let mut add = |text: &str, field: usize| {
                // Terms of a field that counts for nothing are not indexed at all.
                if weights[field] <= 0.0 {
                    return;
                }
                config.tokenizer.for_each_term(text, |term| {
                    let id = match term_ids.get(term) {
                        Some(&id) => id,
                        None => {
                            let id = to_u32(term_ids.len());
                            term_ids.insert(term.to_owned(), id);
                            document_frequency.push(0);
                            id
                        }
                    };
                    occurrences.push((id, field as u8));
                });
            };
            add(&document.name, NAME);
            add(&document.summary, SUMMARY);
            add(&document.description, DESCRIPTION);
            for parameter in &document.parameters {
                add(&parameter.name, PARAM_NAMES);
                add(&parameter.description, PARAM_DESCRIPTIONS);
            }
            for tag in &document.tags {
                add(tag, TAGS);
            }
            occurrences.sort_unstable();
            let mut lengths = [0u32; FIELD_COUNT];
            counts_start.push(counts.len());
            let mut previous_term = None;
            for group in occurrences.chunk_by(|a, b| a == b) {
                let (term, field) = group[0];
                lengths[usize::from(field)] += to_u32(group.len());
                counts.push(FieldCount {
                    term,
                    field,
                    count: u16::try_from(group.len()).unwrap_or(u16::MAX),
                });
                if previous_term != Some(term) {
                    document_frequency[term as usize] += 1;
                    previous_term = Some(term);
                }
            }
            field_lengths.push(lengths);
        }
        counts_start.push(counts.len());

        let scorer = Scorer::new(&config, &field_lengths, document_count);
        let mut postings_start = Vec::with_capacity(document_frequency.len() + 1);
        let mut total = 0u32;
        for &frequency in &document_frequency {
            postings_start.push(total);
            total += frequency;
        }
        postings_start.push(total);
        let mut cursor: Vec<u32> = postings_start[..document_frequency.len()].to_vec();
        let mut posting_documents = vec![0u32; total as usize];
        let mut posting_impacts = vec![0f32; total as usize];
        for (document, lengths) in field_lengths.iter().enumerate() {
            let own = &counts[counts_start[document]..counts_start[document + 1]];
            for group in own.chunk_by(|a, b| a.term == b.term) {
                let term = group[0].term as usize;
                let mut by_field = [0u16; FIELD_COUNT];
                for count in group {
                    by_field[usize::from(count.field)] = count.count;
                }
                let idf = scorer.idf(document_frequency[term]);
                let slot = cursor[term] as usize;
                cursor[term] += 1;
                posting_documents[slot] = to_u32(document);
                // Kept strictly positive: a zero score marks an untouched document at query time.
                posting_impacts[slot] =
                    (idf * scorer.saturated(&by_field, lengths)).max(f32::MIN_POSITIVE);
            }
        }

        let mut by_name: Vec<u32> = (0..to_u32(document_count)).collect();
        by_name.sort_by(|&a, &b| documents[a as usize].name.cmp(&documents[b as usize].name));
        let mut name_rank = vec![0u32; document_count];
        for (rank, &document) in by_name.iter().enumerate() {
            name_rank[document as usize] = to_u32(rank);
        }
        let mut by_name: HashMap<String, u32> = HashMap::with_capacity(document_count);
        for (position, document) in documents.iter().enumerate().rev() {
            by_name.insert(document.name.clone(), to_u32(position));
        }
        let mut by_lowercase_name: HashMap<String, Vec<(u32, bool)>> = HashMap::new();
        for (position, document) in documents.iter().enumerate() {
            let needs_marking = match config.exact_names {
                ExactNameRule::Off => continue,
                ExactNameRule::AnyName => false,
                ExactNameRule::CompoundOrQuoted => !is_compound(&document.name),
            };
            by_lowercase_name
                .entry(document.name.to_lowercase())
                .or_default()
                .push((to_u32(position), needs_marking));
        }

        SearchIndex {
            documents,
            config,
            term_ids,
            postings_start,
            posting_documents,
            posting_impacts,
            name_rank,
            by_name,
            by_lowercase_name,
        }
    }

    /// The `limit` best tools for `query`, best first; ties broken by name ascending.
    ///
    /// Tools whose exact name occurs in the query come first (longest name first, then those
    /// written in the same case), see [`ExactNameRule`]. A query without any indexed term and without a tool name returns
    /// nothing.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search_filtered(query, limit, |_| true)
    }

    /// Like [`SearchIndex::search`], keeping only documents for which `keep` is true (e.g. one
    /// namespace).
    pub fn search_filtered(
        &self,
        query: &str,
        limit: usize,
        keep: impl Fn(&ToolDocument) -> bool,
    ) -> Vec<SearchHit> {
        if limit == 0 || self.documents.is_empty() {
            return Vec::new();
        }
        let terms = self.query_terms(query);
        let exact = self.exact_name_matches(query);
        if terms.is_empty() && exact.is_empty() {
            return Vec::new();
        }

        let mut scores = vec![0f32; self.documents.len()];
        let mut touched: Vec<u32> = Vec::new();
        for (term, repeat) in terms {
            let start = self.postings_start[term as usize] as usize;
            let end = self.postings_start[term as usize + 1] as usize;
            let factor = repeat as f32;
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

        let room = limit - exact_hits.len();
        let mut best: BinaryHeap<WorstFirst> =
            BinaryHeap::with_capacity(room.min(touched.len()) + 1);
        if room > 0 {
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
        }
        let mut rest: Vec<Candidate> = best.into_iter().map(|ranked| ranked.0).collect();
        rest.sort_unstable_by(Candidate::ranking);

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

    /// Distinct known query terms with their repeat count (1 unless
    /// [`IndexConfig::query_term_frequency`]), in term-id order for a deterministic sum.
    fn query_terms(&self, query: &str) -> Vec<(u32, u32)> {
        let mut ids = Vec::new();
        self.config.tokenizer.for_each_term(query, |term| {
            if let Some(&id) = self.term_ids.get(term) {
                ids.push(id);
            }
        });
        ids.sort_unstable();
        let mut terms: Vec<(u32, u32)> = Vec::with_capacity(ids.len());
        for group in ids.chunk_by(|a, b| a == b) {
            let repeat = if self.config.query_term_frequency {
                to_u32(group.len())
            } else {
                1
            };
            terms.push((group[0], repeat));
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

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// True when the index holds no documents.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// The document at `index` (as in [`SearchHit::index`]).
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`, like slice indexing.
    pub fn document(&self, index: usize) -> &ToolDocument {
        &self.documents[index]
    }

    /// All documents in index order.
    pub fn documents(&self) -> &[ToolDocument] {
        &self.documents
    }

    /// The first document named exactly `name`.
    pub fn get(&self, name: &str) -> Option<&ToolDocument> {
        let &document = self.by_name.get(name)?;
        Some(&self.documents[document as usize])
    }

    /// The configuration the index was built with.
    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.term_ids.len()
    }

    /// Number of `(term, document)` postings.
    pub fn posting_count(&self) -> usize {
        self.posting_documents.len()
    }

    /// Approximate heap bytes held by the index, documents included; see
    /// [`SearchIndex::heap_usage`].
    pub fn heap_bytes(&self) -> usize {
        self.heap_usage().total()
    }

    /// Approximate heap bytes by part, counted from the capacities of the index's vectors,
    /// strings and hash tables (hash-table control bytes are estimated as one per slot;
    /// allocator overhead is not counted).
    pub fn heap_usage(&self) -> HeapUsage {
        let documents = self.documents.capacity() * size_of::<ToolDocument>()
            + self
                .documents
                .iter()
                .map(document_heap_bytes)
                .sum::<usize>();
        let terms = hash_table_bytes::<String, u32>(self.term_ids.capacity())
            + self.term_ids.keys().map(String::capacity).sum::<usize>();
        let postings = self.postings_start.capacity() * size_of::<u32>()
            + self.posting_documents.capacity() * size_of::<u32>()
            + self.posting_impacts.capacity() * size_of::<f32>();
        let names = self.name_rank.capacity() * size_of::<u32>()
            + hash_table_bytes::<String, u32>(self.by_name.capacity())
            + self.by_name.keys().map(String::capacity).sum::<usize>()
            + hash_table_bytes::<String, Vec<(u32, bool)>>(self.by_lowercase_name.capacity())
            + self
                .by_lowercase_name
                .iter()
                .map(|(name, documents)| {
                    name.capacity() + documents.capacity() * size_of::<(u32, bool)>()
                })
                .sum::<usize>();
        HeapUsage {
            documents,
            terms,
            postings,
            names,
        }
    }
}

/// Heap bytes held by a [`SearchIndex`], by part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HeapUsage {
    /// The documents themselves (names, descriptions, parameters, tags).
    pub documents: usize,
    /// The term dictionary.
    pub terms: usize,
    /// Postings: document ids and precomputed impacts.
    pub postings: usize,
    /// Name lookups and the name order used for tie breaks.
    pub names: usize,
}

impl HeapUsage {
    /// The sum of all parts.
    pub fn total(&self) -> usize {
        self.documents + self.terms + self.postings + self.names
    }
}

fn document_heap_bytes(document: &ToolDocument) -> usize {
    document.name.capacity()
        + document.summary.capacity()
        + document.description.capacity()
        + document.namespace.as_ref().map_or(0, String::capacity)
        + document.parameters.capacity() * size_of::<crate::ParamDoc>()
        + document
            .parameters
            .iter()
            .map(|parameter| parameter.name.capacity() + parameter.description.capacity())
            .sum::<usize>()
        + document.tags.capacity() * size_of::<String>()
        + document.tags.iter().map(String::capacity).sum::<usize>()
}

/// Slots plus one control byte per slot, as in hashbrown.
fn hash_table_bytes<K, V>(capacity: usize) -> usize {
    capacity * (size_of::<(K, V)>() + 1)
}

/// A name of two or more words: split at separators, case changes or digits.
fn is_compound(name: &str) -> bool {
    let mut pieces = 0;
    crate::tokenize::for_each_piece(name, true, |_| pieces += 1);
    pieces >= 2
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[derive(Debug, Clone, Copy)]
struct Candidate {
    document: u32,
    /// 0 without an exact-name match.
    exact_priority: u32,
    score: f32,
    name_rank: u32,
}

/// Orders candidates so that a max-heap's top is the worst one kept.
#[derive(Debug, Clone, Copy)]
struct WorstFirst(Candidate);

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
    fn ranking(a: &Candidate, b: &Candidate) -> Ordering {
        b.exact_priority
            .cmp(&a.exact_priority)
            .then_with(|| b.score.total_cmp(&a.score))
            .then_with(|| a.name_rank.cmp(&b.name_rank))
    }
}

/// Precomputed statistics that turn per-field counts into a term's contribution.
#[derive(Debug)]
struct Scorer {
    scoring: FieldScoring,
    weights: [f32; FIELD_COUNT],
    k1: f32,
    b: f32,
    document_count: f32,
    average_lengths: [f32; FIELD_COUNT],
    average_weighted_length: f32,
}

impl Scorer {
    fn new(config: &IndexConfig, lengths: &[[u32; FIELD_COUNT]], document_count: usize) -> Self {
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
    fn idf(&self, document_frequency: u32) -> f32 {
        let n = document_frequency as f32;
        (1.0 + (self.document_count - n + 0.5) / (n + 0.5)).ln()
    }

    /// The saturated, length-normalised term frequency times `k1 + 1`.
    fn saturated(&self, counts: &[u16; FIELD_COUNT], lengths: &[u32; FIELD_COUNT]) -> f32 {
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
struct NameCandidate<'q> {
    text: &'q str,
    /// The query marks it as a name: it is a whole run in backticks or quotes, or followed by
    /// `(`.
    marked: bool,
}

/// Substrings of `query` that could be a tool name: maximal runs of identifier characters
/// (alphanumerics and `_-.:/$@`), and their sub-runs that start and end at `.`, `/` or `:`
/// boundaries.
fn name_candidates(query: &str) -> Vec<NameCandidate<'_>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(query: &str) -> Vec<(&str, bool)> {
        name_candidates(query)
            .into_iter()
            .map(|candidate| (candidate.text, candidate.marked))
            .collect()
    }

    #[test]
    fn name_candidates_cover_whole_runs_and_dotted_parts() {
        assert_eq!(
            texts("use get_weather, now"),
            [("use", false), ("get_weather", false), ("now", false)]
        );
        let dotted: Vec<&str> = texts("call os.file.read.")
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert_eq!(
            dotted,
            [
                "call",
                "os",
                "os.file",
                "os.file.read",
                "os.file.read.",
                "file",
                "file.read",
                "file.read.",
                "read",
                "read."
            ]
        );
        assert!(texts("  ,; ").is_empty());
    }

    #[test]
    fn quoted_backticked_and_called_names_are_marked() {
        assert_eq!(texts("`add`"), [("add", true)]);
        assert_eq!(
            texts("run 'news' now"),
            [("run", false), ("news", true), ("now", false)]
        );
        assert_eq!(texts("\"add\""), [("add", true)]);
        assert_eq!(
            texts("add(1, 2)"),
            [("add", true), ("1", false), ("2", false)]
        );
        assert_eq!(
            texts("`a.b.`"),
            [
                ("a", false),
                ("a.b", true),
                ("a.b.", true),
                ("b", false),
                ("b.", false)
            ]
        );
        assert_eq!(texts("'add\""), [("add", false)]);
        assert_eq!(texts("add."), [("add", false), ("add.", false)]);
    }

    #[test]
    fn idf_is_positive_even_for_terms_in_every_document() {
        let config = IndexConfig::default();
        let scorer = Scorer::new(&config, &[[1; FIELD_COUNT]; 4], 4);
        assert!(scorer.idf(4) > 0.0);
        assert!(scorer.idf(1) > scorer.idf(2));
    }

    #[test]
    fn concatenated_scoring_with_unit_weights_is_plain_bm25() {
        let config = IndexConfig::baseline();
        // Two documents: lengths 4 and 2 in the description field only.
        let lengths = [[0, 0, 4, 0, 0, 0], [0, 0, 2, 0, 0, 0]];
        let scorer = Scorer::new(&config, &lengths, 2);
        let saturated = scorer.saturated(&[0, 0, 2, 0, 0, 0], &lengths[0]);
        // avgdl = 3; tf = 2; norm = 0.25 + 0.75 * 4 / 3 = 1.25; tf' = 1.6
        let expected = 1.6 * 2.2 / (1.6 + 1.2);
        assert!(
            (saturated - expected).abs() < 1e-6,
            "{saturated} vs {expected}"
        );
    }
}
