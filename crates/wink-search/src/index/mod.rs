//! The inverted index and its ranking.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::mem::size_of;

use serde::{Deserialize, Serialize};

use crate::document::ToolDocument;
use crate::tokenize::Tokenizer;

mod config;
mod heap;
mod query;
mod rank;
pub use config::*;
pub use heap::*;
pub use query::*;
use rank::*;

const FIELD_COUNT: usize = 8;
const NAME: usize = 0;
const SUMMARY: usize = 1;
const DESCRIPTION: usize = 2;
const PARAM_NAMES: usize = 3;
const PARAM_DESCRIPTIONS: usize = 4;
const TAGS: usize = 5;
const ENUM_VALUES: usize = 6;
const SERVER: usize = 7;

/// The namespace id of a document without a namespace.
const NO_NAMESPACE: u32 = u32::MAX;

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
    /// Each document's position in `namespaces` ([`NO_NAMESPACE`] without one).
    namespace_ids: Vec<u32>,
    /// The documents' namespaces in order of first appearance.
    namespaces: Vec<NamespaceInfo>,
}

/// A namespace of the index: its name and the description it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceInfo {
    /// The namespace (`github`, `trends-hub`).
    pub name: String,
    /// Its description (an MCP server's summary); empty when none was given.
    pub description: String,
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
        Self::build_with_namespaces(documents, &[], config)
    }

    /// Like [`SearchIndex::build`], with descriptions of the documents' namespaces (an MCP
    /// server's summary, as `(namespace, description)`): each document's namespace description
    /// is indexed as its `server` field ([`FieldWeights::server`]). Descriptions of namespaces no
    /// document has are ignored; the last description of a namespace wins.
    pub fn build_with_namespaces(
        documents: Vec<ToolDocument>,
        descriptions: &[(String, String)],
        config: IndexConfig,
    ) -> SearchIndex {
        let (namespace_ids, namespaces) = namespace_table(&documents, descriptions);
        let terms = TermCounts::count(&documents, &namespace_ids, &namespaces, &config);
        let (postings_start, posting_documents, posting_impacts) = terms.postings(&config);
        let (name_rank, by_name, by_lowercase_name) = name_lookups(&documents, &config);
        SearchIndex {
            documents,
            config,
            term_ids: terms.term_ids,
            postings_start,
            posting_documents,
            posting_impacts,
            name_rank,
            by_name,
            by_lowercase_name,
            namespace_ids,
            namespaces,
        }
    }

    /// The documents' namespaces in order of first appearance (the positions
    /// [`WeightedQuery::namespace_boosts`] refers to).
    pub fn namespaces(&self) -> &[NamespaceInfo] {
        &self.namespaces
    }

    /// The position in [`SearchIndex::namespaces`] of document `index`'s namespace.
    pub fn namespace_id(&self, index: usize) -> Option<usize> {
        self.namespace_ids
            .get(index)
            .filter(|&&id| id != NO_NAMESPACE)
            .map(|&id| id as usize)
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
                .sum::<usize>()
            + self.namespace_ids.capacity() * size_of::<u32>()
            + self.namespaces.capacity() * size_of::<NamespaceInfo>()
            + self
                .namespaces
                .iter()
                .map(|namespace| namespace.name.capacity() + namespace.description.capacity())
                .sum::<usize>();
        HeapUsage {
            documents,
            terms,
            postings,
            names,
        }
    }
}

/// Every document's term counts by field, in one pass over the documents.
struct TermCounts {
    term_ids: TermMap<u32>,
    /// `(term, field, count)` of every document, documents one after the other.
    counts: Vec<FieldCount>,
    /// Where each document's counts start in `counts` (and one past the last).
    counts_start: Vec<usize>,
    field_lengths: Vec<[u32; FIELD_COUNT]>,
    document_frequency: Vec<u32>,
}

impl TermCounts {
    fn count(
        documents: &[ToolDocument],
        namespace_ids: &[u32],
        namespaces: &[NamespaceInfo],
        config: &IndexConfig,
    ) -> Self {
        let document_count = documents.len();
        let weights = config.weights.by_field();
        let mut term_ids: TermMap<u32> = TermMap::default();
        let mut counts: Vec<FieldCount> = Vec::new();
        let mut counts_start: Vec<usize> = Vec::with_capacity(document_count + 1);
        let mut field_lengths: Vec<[u32; FIELD_COUNT]> = Vec::with_capacity(document_count);
        let mut occurrences: Vec<(u32, u8)> = Vec::new();
        let mut document_frequency: Vec<u32> = Vec::new();

        for (document, &namespace) in documents.iter().zip(namespace_ids) {
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
            for value in &document.enum_values {
                add(value, ENUM_VALUES);
            }
            if let Some(namespace) = namespaces.get(namespace as usize) {
                add(&namespace.description, SERVER);
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

        TermCounts {
            term_ids,
            counts,
            counts_start,
            field_lengths,
            document_frequency,
        }
    }

    /// The postings: for each term its documents and their BM25 impacts, laid out term after
    /// term (`postings_start` holds where each term's run starts, and one past the last).
    fn postings(&self, config: &IndexConfig) -> (Vec<u32>, Vec<u32>, Vec<f32>) {
        let TermCounts {
            counts,
            counts_start,
            field_lengths,
            document_frequency,
            ..
        } = self;
        let document_count = field_lengths.len();
        let scorer = Scorer::new(config, field_lengths, document_count);
        let mut postings_start = Vec::with_capacity(document_frequency.len() + 1);
        let mut total = 0u32;
        for &frequency in document_frequency {
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

        (postings_start, posting_documents, posting_impacts)
    }
}

/// Each document's namespace position and the namespaces in order of first appearance, with
/// their descriptions.
fn namespace_table(
    documents: &[ToolDocument],
    descriptions: &[(String, String)],
) -> (Vec<u32>, Vec<NamespaceInfo>) {
    let mut positions: HashMap<&str, u32> = HashMap::new();
    let mut namespaces: Vec<NamespaceInfo> = Vec::new();
    let ids = documents
        .iter()
        .map(|document| match document.namespace.as_deref() {
            None => NO_NAMESPACE,
            Some(name) => *positions.entry(name).or_insert_with(|| {
                namespaces.push(NamespaceInfo {
                    name: name.to_owned(),
                    description: String::new(),
                });
                to_u32(namespaces.len() - 1)
            }),
        })
        .collect();
    for (name, description) in descriptions {
        if let Some(&position) = positions.get(name.as_str()) {
            namespaces[position as usize].description = description.clone();
        }
    }
    (ids, namespaces)
}

/// Each document's rank by name, the first document of each name, and the documents by
/// lowercase name for the exact-name rule.
#[allow(clippy::type_complexity)]
fn name_lookups(
    documents: &[ToolDocument],
    config: &IndexConfig,
) -> (
    Vec<u32>,
    HashMap<String, u32>,
    HashMap<String, Vec<(u32, bool)>>,
) {
    let document_count = documents.len();
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

    (name_rank, by_name, by_lowercase_name)
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
        let lengths = [[0, 0, 4, 0, 0, 0, 0, 0], [0, 0, 2, 0, 0, 0, 0, 0]];
        let scorer = Scorer::new(&config, &lengths, 2);
        let saturated = scorer.saturated(&[0, 0, 2, 0, 0, 0, 0, 0], &lengths[0]);
        // avgdl = 3; tf = 2; norm = 0.25 + 0.75 * 4 / 3 = 1.25; tf' = 1.6
        let expected = 1.6 * 2.2 / (1.6 + 1.2);
        assert!(
            (saturated - expected).abs() < 1e-6,
            "{saturated} vs {expected}"
        );
    }
}
