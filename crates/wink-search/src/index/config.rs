//! How the index weighs and ranks: field weights, BM25 parameters, field scoring,
//! the exact-name rule, and the hits a search returns.

use super::*;

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
    /// The values of the parameters' `enum`s.
    #[serde(default)]
    pub enum_values: f32,
    /// The description of the tool's namespace (its MCP server's summary), when the index was
    /// given one ([`SearchIndex::build_with_namespaces`]).
    #[serde(default)]
    pub server: f32,
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
            enum_values: 1.0,
            server: 0.5,
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
            enum_values: 0.0,
            server: 0.0,
        }
    }

    /// Weights by field index; negative and NaN weights count as 0.
    pub(super) fn by_field(&self) -> [f32; FIELD_COUNT] {
        [
            self.name,
            self.summary,
            self.description,
            self.param_names,
            self.param_descriptions,
            self.tags,
            self.enum_values,
            self.server,
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
