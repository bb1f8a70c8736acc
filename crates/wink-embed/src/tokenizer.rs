//! A byte-pair-encoding tokenizer driven by a Hugging Face `tokenizer.json`, covering the
//! Llama / SentencePiece style: normalisers that prepend `▁` and turn spaces into `▁`, no
//! pre-tokenizer (or `Metaspace`), merges applied by rank across the whole text, and byte
//! fallback to `<0xXX>` tokens for characters missing from the vocabulary.
//!
//! Encoding follows the `tokenizers` library step by step:
//! 1. added tokens (`<s>`, `<unk>`, …) are cut out of the raw text first (leftmost, longest;
//!    honouring `single_word`, `lstrip`, `rstrip`); each remaining piece is handled alone;
//! 2. the normaliser runs on each piece (`Prepend` only prepends to a non-empty piece);
//! 3. the pre-tokenizer, if any, splits pieces into words;
//! 4. each word becomes one symbol per character (a vocabulary token, else its UTF-8 bytes as
//!    `<0xXX>` tokens when `byte_fallback` is on, else `unk_token`, consecutive unknowns fused
//!    when `fuse_unk`), then the lowest-ranked adjacent pair is merged (leftmost first) until no
//!    listed merge applies.
//!
//! [`BpeTokenizer::encode`] never adds special tokens (no post-processor) and never truncates,
//! which is how WordLlama and model2vec embed text. Parts of the format this tokenizer cannot
//! run exactly (Unicode normal forms, regex patterns, byte-level pre-tokenizers, WordPiece and
//! Unigram models, BPE dropout, subword prefixes) are load errors naming the part, never a
//! silent approximation.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::error::EmbedError;

/// `(left, right)` token ids → `(rank, merged id)`.
type MergeTable = HashMap<(u32, u32), (u32, u32), BuildHasherDefault<PairHasher>>;

/// The tokenizer: vocabulary, ranked merges, normaliser and added tokens.
#[derive(Debug, Clone)]
pub struct BpeTokenizer {
    vocab: HashMap<String, u32>,
    /// Token text by id.
    tokens: HashMap<u32, String>,
    /// One more than the largest id.
    id_count: usize,
    /// `(left, right)` → `(rank, merged id)`.
    merges: MergeTable,
    /// `<0xXX>` ids by byte, when `byte_fallback` is on.
    byte_tokens: Option<Box<[Option<u32>; 256]>>,
    unknown: Option<u32>,
    fuse_unknown: bool,
    ignore_merges: bool,
    normalizers: Vec<Normalizer>,
    metaspace: Option<Metaspace>,
    /// Added tokens matched in the raw text.
    raw_added: Vec<AddedToken>,
    /// Added tokens matched in the normalised text.
    normalized_added: Vec<AddedToken>,
}

#[derive(Debug, Clone, PartialEq)]
enum Normalizer {
    Prepend(String),
    Replace { pattern: String, content: String },
    Lowercase,
    Strip { left: bool, right: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PrependScheme {
    Always,
    First,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Metaspace {
    replacement: char,
    prepend: PrependScheme,
    split: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
struct AddedToken {
    id: u32,
    content: String,
    #[serde(default)]
    single_word: bool,
    #[serde(default)]
    lstrip: bool,
    #[serde(default)]
    rstrip: bool,
    #[serde(default)]
    normalized: bool,
}

#[derive(Debug, Deserialize)]
struct TokenizerFile {
    #[serde(default)]
    added_tokens: Vec<AddedToken>,
    #[serde(default)]
    normalizer: Value,
    #[serde(default)]
    pre_tokenizer: Value,
    model: ModelSection,
}

#[derive(Debug, Deserialize)]
struct ModelSection {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    vocab: HashMap<String, u32>,
    #[serde(default)]
    merges: Vec<Value>,
    #[serde(default)]
    unk_token: Option<String>,
    #[serde(default)]
    byte_fallback: bool,
    #[serde(default)]
    fuse_unk: bool,
    #[serde(default)]
    ignore_merges: bool,
    #[serde(default)]
    dropout: Option<f64>,
    #[serde(default)]
    continuing_subword_prefix: Option<String>,
    #[serde(default)]
    end_of_word_suffix: Option<String>,
}

/// A piece of input after the added tokens are cut out.
enum Piece<'t> {
    Text { text: &'t str, at_start: bool },
    Added(u32),
}

impl BpeTokenizer {
    /// Reads a `tokenizer.json` file.
    pub fn from_file(path: &Path) -> Result<Self, EmbedError> {
        let text = std::fs::read_to_string(path).map_err(|source| EmbedError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json_str(&text, &path.display().to_string())
    }

    /// Parses the text of a `tokenizer.json`; `origin` names it in errors.
    pub fn from_json_str(json: &str, origin: &str) -> Result<Self, EmbedError> {
        Self::parse(json).map_err(|reason| EmbedError::Tokenizer {
            origin: origin.to_owned(),
            reason,
        })
    }

    fn parse(json: &str) -> Result<Self, String> {
        let file: TokenizerFile =
            serde_json::from_str(json).map_err(|error| format!("not a tokenizer.json: {error}"))?;
        let model = file.model;
        check_supported(&model)?;

        let vocab = model.vocab;
        let mut tokens: HashMap<u32, String> = vocab
            .iter()
            .map(|(token, &id)| (id, token.clone()))
            .collect();
        for added in &file.added_tokens {
            tokens.insert(added.id, added.content.clone());
        }
        let id_count = tokens.keys().map(|&id| id as usize + 1).max().unwrap_or(0);
        let merges = merge_table(&model.merges, &vocab)?;
        let byte_tokens = model.byte_fallback.then(|| byte_token_ids(&vocab));
        let unknown = match &model.unk_token {
            Some(token) => Some(
                vocab
                    .get(token)
                    .copied()
                    .ok_or_else(|| format!("unk_token `{token}` is not in the vocabulary"))?,
            ),
            None => None,
        };

        let mut normalizers = Vec::new();
        parse_normalizer(&file.normalizer, &mut normalizers)?;
        let metaspace = parse_pre_tokenizer(&file.pre_tokenizer)?;
        let (raw_added, normalized_added) = split_added_tokens(file.added_tokens, &normalizers)?;

        Ok(BpeTokenizer {
            vocab,
            tokens,
            id_count,
            merges,
            byte_tokens,
            unknown,
            fuse_unknown: model.fuse_unk,
            ignore_merges: model.ignore_merges,
            normalizers,
            metaspace,
            raw_added,
            normalized_added,
        })
    }

    /// Number of ids (one more than the largest id in the vocabulary or added tokens).
    pub fn id_count(&self) -> usize {
        self.id_count
    }

    /// The id of a token, if it is in the vocabulary.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.vocab.get(token).copied()
    }

    /// The text of token `id` (empty for ids the file does not define).
    pub fn token(&self, id: u32) -> &str {
        self.tokens.get(&id).map_or("", String::as_str)
    }

    /// The token ids of `text`, without special tokens and without truncation.
    ///
    /// ```
    /// let json = r#"{"normalizer": {"type": "Sequence", "normalizers": [
    ///         {"type": "Prepend", "prepend": "▁"},
    ///         {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
    ///     "model": {"type": "BPE", "vocab": {"▁": 0, "a": 1, "b": 2, "▁a": 3, "▁ab": 4},
    ///               "merges": ["▁ a", "▁a b"]}}"#;
    /// let tokenizer = wink_embed::BpeTokenizer::from_json_str(json, "example").unwrap();
    /// assert_eq!(tokenizer.encode("ab a"), [4, 3]);
    /// ```
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        for piece in split_added(text, &self.raw_added, true) {
            match piece {
                Piece::Added(id) => ids.push(id),
                Piece::Text { text, at_start } => {
                    let normalized = normalize(&self.normalizers, text);
                    for inner in split_added(&normalized, &self.normalized_added, at_start) {
                        match inner {
                            Piece::Added(id) => ids.push(id),
                            Piece::Text { text, at_start } => {
                                self.encode_piece(text, at_start, &mut ids)
                            }
                        }
                    }
                }
            }
        }
        ids
    }

    /// The token strings of `text` (for inspection and tests).
    pub fn tokenize(&self, text: &str) -> Vec<&str> {
        self.encode(text)
            .into_iter()
            .map(|id| self.token(id))
            .collect()
    }

    fn encode_piece(&self, text: &str, at_start: bool, ids: &mut Vec<u32>) {
        let Some(metaspace) = self.metaspace else {
            self.encode_word(text, ids);
            return;
        };
        let mut replaced: String = text
            .chars()
            .map(|c| if c == ' ' { metaspace.replacement } else { c })
            .collect();
        let prepend = match metaspace.prepend {
            PrependScheme::Always => true,
            PrependScheme::First => at_start,
            PrependScheme::Never => false,
        };
        if prepend && !replaced.starts_with(metaspace.replacement) {
            replaced.insert(0, metaspace.replacement);
        }
        if !metaspace.split {
            self.encode_word(&replaced, ids);
            return;
        }
        // Split before every replacement character (it starts the next word).
        let mut start = 0;
        for (at, c) in replaced.char_indices() {
            if c == metaspace.replacement && at > start {
                self.encode_word(&replaced[start..at], ids);
                start = at;
            }
        }
        self.encode_word(&replaced[start..], ids);
    }

    /// Byte-pair encodes one word.
    fn encode_word(&self, word: &str, ids: &mut Vec<u32>) {
        if word.is_empty() {
            return;
        }
        if self.ignore_merges
            && let Some(&id) = self.vocab.get(word)
        {
            ids.push(id);
            return;
        }
        let mut symbols: Vec<Symbol> = Vec::with_capacity(word.len());
        let mut previous_unknown = false;
        let mut buffer = [0u8; 4];
        for c in word.chars() {
            let text: &str = c.encode_utf8(&mut buffer);
            if let Some(&id) = self.vocab.get(text) {
                symbols.push(Symbol::new(id));
                previous_unknown = false;
                continue;
            }
            if let Some(byte_tokens) = &self.byte_tokens {
                let bytes: Option<Vec<u32>> =
                    text.bytes().map(|b| byte_tokens[usize::from(b)]).collect();
                if let Some(bytes) = bytes {
                    symbols.extend(bytes.into_iter().map(Symbol::new));
                    previous_unknown = false;
                    continue;
                }
            }
            if let Some(unknown) = self.unknown {
                if !(self.fuse_unknown && previous_unknown) {
                    symbols.push(Symbol::new(unknown));
                }
                previous_unknown = true;
            }
        }
        let count = symbols.len();
        for (position, symbol) in symbols.iter_mut().enumerate() {
            symbol.previous = position.checked_sub(1);
            symbol.next = (position + 1 < count).then_some(position + 1);
        }

        let mut queue: BinaryHeap<Reverse<(u32, usize, u32)>> = BinaryHeap::new();
        for position in 1..count {
            if let Some(&(rank, merged)) = self
                .merges
                .get(&(symbols[position - 1].id, symbols[position].id))
            {
                queue.push(Reverse((rank, position - 1, merged)));
            }
        }
        while let Some(Reverse((_, position, merged))) = queue.pop() {
            let left = symbols[position];
            let Some(right_position) = left.next.filter(|_| left.alive) else {
                continue;
            };
            let right = symbols[right_position];
            // Skip stale entries: the pair at this position changed since it was queued.
            if self
                .merges
                .get(&(left.id, right.id))
                .is_none_or(|&(_, id)| id != merged)
            {
                continue;
            }
            symbols[position].id = merged;
            symbols[position].next = right.next;
            symbols[right_position].alive = false;
            if let Some(after) = right.next {
                symbols[after].previous = Some(position);
            }
            if let Some(before) = left.previous
                && let Some(&(rank, id)) = self.merges.get(&(symbols[before].id, merged))
            {
                queue.push(Reverse((rank, before, id)));
            }
            if let Some(after) = right.next
                && let Some(&(rank, id)) = self.merges.get(&(merged, symbols[after].id))
            {
                queue.push(Reverse((rank, position, id)));
            }
        }
        ids.extend(symbols.iter().filter(|s| s.alive).map(|s| s.id));
    }
}

#[derive(Debug, Clone, Copy)]
struct Symbol {
    id: u32,
    previous: Option<usize>,
    next: Option<usize>,
    alive: bool,
}

impl Symbol {
    fn new(id: u32) -> Self {
        Symbol {
            id,
            previous: None,
            next: None,
            alive: true,
        }
    }
}

/// Refuses the BPE options this tokenizer does not implement: other model types, dropout,
/// subword prefixes and suffixes.
fn check_supported(model: &ModelSection) -> Result<(), String> {
    match model.kind.as_deref() {
        Some("BPE") | None => {}
        Some(other) => {
            return Err(format!("model type `{other}` is not supported (only BPE)"));
        }
    }
    if model.dropout.is_some_and(|p| p > 0.0) {
        return Err("BPE dropout is not supported (it makes encoding random)".to_owned());
    }
    for (field, value) in [
        (
            "continuing_subword_prefix",
            &model.continuing_subword_prefix,
        ),
        ("end_of_word_suffix", &model.end_of_word_suffix),
    ] {
        if value.as_deref().is_some_and(|v| !v.is_empty()) {
            return Err(format!("model.{field} is not supported"));
        }
    }
    Ok(())
}

/// The merges by token-id pair: each pair's rank and the id of the merged token.
fn merge_table(merges: &[Value], vocab: &HashMap<String, u32>) -> Result<MergeTable, String> {
    let mut table = MergeTable::default();
    table.reserve(merges.len());
    for (rank, merge) in merges.iter().enumerate() {
        let (left, right) = merge_pair(merge).ok_or_else(|| {
            format!("merge {rank} is neither \"a b\" nor [\"a\", \"b\"]: {merge}")
        })?;
        let id_of = |token: &str| {
            vocab.get(token).copied().ok_or_else(|| {
                format!(
                    "merge {rank} ({left} {right}) uses `{token}`, which is not in the vocabulary"
                )
            })
        };
        let pair = (id_of(left)?, id_of(right)?);
        let merged = id_of(&format!("{left}{right}"))?;
        let rank = u32::try_from(rank).map_err(|_| "too many merges".to_owned())?;
        // The first (lowest-ranked) listing of a pair wins, as in `tokenizers`.
        table.entry(pair).or_insert((rank, merged));
    }
    Ok(table)
}

/// `<0xXX>` ids by byte; a byte without its token makes characters containing it fall back to
/// `unk_token` instead.
fn byte_token_ids(vocab: &HashMap<String, u32>) -> Box<[Option<u32>; 256]> {
    let mut ids = Box::new([None; 256]);
    for (byte, slot) in ids.iter_mut().enumerate() {
        *slot = vocab.get(&format!("<0x{byte:02X}>")).copied();
    }
    ids
}

/// The added tokens matched on the raw input, and those matched on the normalised input (their
/// content normalised).
fn split_added_tokens(
    added_tokens: Vec<AddedToken>,
    normalizers: &[Normalizer],
) -> Result<(Vec<AddedToken>, Vec<AddedToken>), String> {
    let mut raw_added = Vec::new();
    let mut normalized_added = Vec::new();
    for mut added in added_tokens {
        if added.content.is_empty() {
            return Err(format!("added token {} has empty content", added.id));
        }
        if added.normalized {
            added.content = normalize(normalizers, &added.content);
            normalized_added.push(added);
        } else {
            raw_added.push(added);
        }
    }
    Ok((raw_added, normalized_added))
}

fn merge_pair(merge: &Value) -> Option<(&str, &str)> {
    match merge {
        Value::String(text) => text.split_once(' '),
        Value::Array(parts) if parts.len() == 2 => Some((parts[0].as_str()?, parts[1].as_str()?)),
        _ => None,
    }
}

fn type_of(value: &Value) -> Result<&str, String> {
    value
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("component without a `type`: {value}"))
}

fn parse_normalizer(value: &Value, out: &mut Vec<Normalizer>) -> Result<(), String> {
    if value.is_null() {
        return Ok(());
    }
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("normalizer {value} has no string `{key}`"))
    };
    let flag = |key: &str| value.get(key).and_then(Value::as_bool).unwrap_or(false);
    match type_of(value)? {
        "Sequence" => {
            let list = value
                .get("normalizers")
                .and_then(Value::as_array)
                .ok_or_else(|| "Sequence normalizer without `normalizers`".to_owned())?;
            for inner in list {
                parse_normalizer(inner, out)?;
            }
        }
        "Prepend" => out.push(Normalizer::Prepend(text("prepend")?)),
        "Replace" => {
            let pattern = value
                .get("pattern")
                .and_then(|p| p.get("String"))
                .and_then(Value::as_str)
                .filter(|p| !p.is_empty())
                .ok_or_else(|| {
                    format!("Replace normalizer needs a non-empty {{\"String\": …}} pattern (regex patterns are not supported): {value}")
                })?;
            out.push(Normalizer::Replace {
                pattern: pattern.to_owned(),
                content: text("content")?,
            });
        }
        "Lowercase" => out.push(Normalizer::Lowercase),
        "Strip" => out.push(Normalizer::Strip {
            left: flag("strip_left"),
            right: flag("strip_right"),
        }),
        other => {
            return Err(format!(
                "normalizer `{other}` is not supported (supported: Sequence, Prepend, Replace with a string pattern, Lowercase, Strip)"
            ));
        }
    }
    Ok(())
}

fn parse_pre_tokenizer(value: &Value) -> Result<Option<Metaspace>, String> {
    if value.is_null() {
        return Ok(None);
    }
    match type_of(value)? {
        "Metaspace" => {
            let mut replacement = value
                .get("replacement")
                .and_then(Value::as_str)
                .unwrap_or("▁")
                .chars();
            let (Some(replacement), None) = (replacement.next(), replacement.next()) else {
                return Err("Metaspace `replacement` must be one character".to_owned());
            };
            let prepend = match value.get("prepend_scheme").and_then(Value::as_str) {
                Some("always") => PrependScheme::Always,
                Some("first") => PrependScheme::First,
                Some("never") => PrependScheme::Never,
                Some(other) => {
                    return Err(format!("Metaspace prepend_scheme `{other}` is unknown"));
                }
                None => match value.get("add_prefix_space").and_then(Value::as_bool) {
                    Some(false) => PrependScheme::Never,
                    _ => PrependScheme::Always,
                },
            };
            let split = value.get("split").and_then(Value::as_bool).unwrap_or(true);
            Ok(Some(Metaspace {
                replacement,
                prepend,
                split,
            }))
        }
        other => Err(format!(
            "pre_tokenizer `{other}` is not supported (supported: none, Metaspace)"
        )),
    }
}

fn normalize(normalizers: &[Normalizer], text: &str) -> String {
    let mut text = text.to_owned();
    for normalizer in normalizers {
        text = match normalizer {
            Normalizer::Prepend(prefix) if !text.is_empty() => format!("{prefix}{text}"),
            Normalizer::Prepend(_) => text,
            Normalizer::Replace { pattern, content } => text.replace(pattern.as_str(), content),
            // Character by character, as `tokenizers` does (no final-sigma rule).
            Normalizer::Lowercase => text.chars().flat_map(char::to_lowercase).collect(),
            Normalizer::Strip { left, right } => {
                let mut slice = text.as_str();
                if *left {
                    slice = slice.trim_start();
                }
                if *right {
                    slice = slice.trim_end();
                }
                slice.to_owned()
            }
        };
    }
    text
}

/// Cuts `added` tokens out of `text` (leftmost match, longest at a position).
fn split_added<'t>(text: &'t str, added: &[AddedToken], at_start: bool) -> Vec<Piece<'t>> {
    let mut pieces = Vec::new();
    let mut pending_start = 0;
    let mut search_from = 0;
    if !added.is_empty() {
        while search_from < text.len() {
            let Some((start, token)) = next_match(text, search_from, added) else {
                break;
            };
            let mut cut_start = start;
            if token.lstrip {
                cut_start = pending_start + text[pending_start..start].trim_end().len();
            }
            let mut end = start + token.content.len();
            if token.rstrip {
                end = text.len() - text[end..].trim_start().len();
            }
            if cut_start > pending_start {
                pieces.push(Piece::Text {
                    text: &text[pending_start..cut_start],
                    at_start: at_start && pending_start == 0,
                });
            }
            pieces.push(Piece::Added(token.id));
            pending_start = end;
            search_from = end;
        }
    }
    if pending_start < text.len() {
        pieces.push(Piece::Text {
            text: &text[pending_start..],
            at_start: at_start && pending_start == 0,
        });
    }
    pieces
}

/// The leftmost (then longest) acceptable match of an added token at or after `from`.
fn next_match<'a>(
    text: &str,
    from: usize,
    added: &'a [AddedToken],
) -> Option<(usize, &'a AddedToken)> {
    for (offset, _) in text[from..].char_indices() {
        let start = from + offset;
        let rest = &text[start..];
        let best = added
            .iter()
            .filter(|token| rest.starts_with(token.content.as_str()))
            .filter(|token| {
                !token.single_word || {
                    let before = text[..start].chars().next_back();
                    let after = text[start + token.content.len()..].chars().next();
                    !before.is_some_and(char::is_alphanumeric)
                        && !after.is_some_and(char::is_alphanumeric)
                }
            })
            .max_by_key(|token| token.content.len());
        if let Some(token) = best {
            return Some((start, token));
        }
    }
    None
}

/// `FxHash`-style hasher for merge pairs (keys come from the tokenizer file, not from input).
#[derive(Debug, Default, Clone, Copy)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_u64(&mut self, value: u64) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(SEED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// A miniature Llama-style tokenizer: `▁`-prepending normaliser, byte fallback for the bytes
    /// of `é` only, `<unk>`, `<s>` as an added token, and merges building `▁hello` and `▁he`.
    fn llama_like() -> BpeTokenizer {
        let mut vocab = serde_json::Map::new();
        let tokens = [
            "<unk>", "<s>", "<0xC3>", "<0xA9>", "▁", "h", "e", "l", "o", "w", "r", "d", "▁h",
            "▁he", "ll", "▁hell", "▁hello", "or", "▁w", "▁wor", "ld", "▁world", "▁▁",
        ];
        for (id, token) in tokens.iter().enumerate() {
            vocab.insert((*token).to_owned(), json!(id));
        }
        let file = json!({
            "added_tokens": [{"id": 1, "content": "<s>", "special": true}],
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": "▁"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}
            ]},
            "pre_tokenizer": null,
            "model": {
                "type": "BPE", "unk_token": "<unk>", "byte_fallback": true, "fuse_unk": true,
                "vocab": vocab,
                "merges": ["▁ h", "▁h e", "l l", "▁he ll", "▁hell o", "o r", ["▁", "w"], "▁w or", "l d", "▁wor ld", "▁ ▁"]
            }
        });
        BpeTokenizer::from_json_str(&file.to_string(), "fixture").unwrap()
    }

    #[test]
    fn merges_apply_by_rank_across_the_whole_text() {
        let tokenizer = llama_like();
        assert_eq!(tokenizer.tokenize("hello world"), ["▁hello", "▁world"]);
        assert_eq!(tokenizer.encode("hello world"), [16, 21]);
        // Two spaces: "▁▁▁world" → "▁▁" (rank 10) loses to "▁w" (rank 6) on the right.
        assert_eq!(tokenizer.tokenize("  world"), ["▁▁", "▁world"]);
        assert_eq!(tokenizer.tokenize("held"), ["▁he", "ld"]);
        assert_eq!(tokenizer.tokenize("hell"), ["▁hell"]);
        assert_eq!(tokenizer.tokenize(""), Vec::<&str>::new());
    }

    #[test]
    fn missing_characters_fall_back_to_bytes_then_to_fused_unknowns() {
        let tokenizer = llama_like();
        assert_eq!(tokenizer.tokenize("hé"), ["▁h", "<0xC3>", "<0xA9>"]);
        // `ü` is C3 BC: <0xBC> is missing, so the whole character is unknown; `xy` fuse into one.
        assert_eq!(tokenizer.tokenize("hüxy"), ["▁h", "<unk>"]);
        assert_eq!(tokenizer.tokenize("hü e"), ["▁h", "<unk>", "▁", "e"]);
    }

    #[test]
    fn added_tokens_are_cut_out_before_normalisation() {
        let tokenizer = llama_like();
        assert_eq!(tokenizer.tokenize("he<s>he"), ["▁he", "<s>", "▁he"]);
        assert_eq!(tokenizer.tokenize("<s>"), ["<s>"]);
        assert_eq!(tokenizer.tokenize("<s> world"), ["<s>", "▁", "▁world"]);
    }

    #[test]
    fn added_token_flags_follow_the_library() {
        let tokens = vec![
            AddedToken {
                id: 7,
                content: "[M]".into(),
                single_word: false,
                lstrip: true,
                rstrip: true,
                normalized: false,
            },
            AddedToken {
                id: 8,
                content: "cat".into(),
                single_word: true,
                lstrip: false,
                rstrip: false,
                normalized: false,
            },
        ];
        let render = |text: &str| -> Vec<String> {
            split_added(text, &tokens, true)
                .into_iter()
                .map(|piece| match piece {
                    Piece::Added(id) => format!("#{id}"),
                    Piece::Text { text, at_start } => {
                        format!("{text}{}", if at_start { "^" } else { "" })
                    }
                })
                .collect()
        };
        assert_eq!(render("a  [M]  b"), ["a^", "#7", "b"]);
        assert_eq!(render("cat concat cat."), ["#8", " concat ", "#8", "."]);
        assert_eq!(render("no tokens"), ["no tokens^"]);
    }

    #[test]
    fn metaspace_pre_tokenizer_splits_words() {
        let file = json!({
            "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
            "model": {"type": "BPE", "vocab": {"▁": 0, "a": 1, "b": 2, "▁a": 3, "▁b": 4, "ab": 5}, "merges": ["▁ a", "▁ b", "a b"]}
        });
        let tokenizer = BpeTokenizer::from_json_str(&file.to_string(), "t").unwrap();
        // Words "▁ab", "▁b": inside a word `▁ a` (rank 0) wins over `a b`.
        assert_eq!(tokenizer.tokenize("ab b"), ["▁a", "b", "▁b"]);
        let never = json!({
            "pre_tokenizer": {"type": "Metaspace", "add_prefix_space": false},
            "model": {"type": "BPE", "vocab": {"▁": 0, "a": 1, "b": 2, "ab": 3}, "merges": ["a b"]}
        });
        let tokenizer = BpeTokenizer::from_json_str(&never.to_string(), "t").unwrap();
        assert_eq!(tokenizer.tokenize("ab ab"), ["ab", "▁", "ab"]);
    }

    #[test]
    fn lowercase_strip_and_ignore_merges() {
        let file = json!({
            "normalizer": {"type": "Sequence", "normalizers": [{"type": "Strip", "strip_left": true, "strip_right": true}, {"type": "Lowercase"}]},
            "model": {"type": "BPE", "ignore_merges": true, "vocab": {"a": 0, "b": 1, "c": 2, "abc": 3, "bc": 4}, "merges": ["b c"]}
        });
        let tokenizer = BpeTokenizer::from_json_str(&file.to_string(), "t").unwrap();
        assert_eq!(tokenizer.tokenize("  ABC "), ["abc"]);
        assert_eq!(tokenizer.tokenize("CAB"), ["c", "a", "b"]);
        // No unk_token: unknown characters are dropped, as in `tokenizers`.
        assert_eq!(tokenizer.tokenize("xbc"), ["bc"]);
    }

    #[test]
    fn unsupported_parts_are_named_errors() {
        let base =
            |normalizer: serde_json::Value, pre: serde_json::Value, model: serde_json::Value| {
                json!({"normalizer": normalizer, "pre_tokenizer": pre, "model": model}).to_string()
            };
        let bpe = json!({"type": "BPE", "vocab": {"a": 0}, "merges": []});
        let error = |json: String| {
            BpeTokenizer::from_json_str(&json, "tok.json")
                .unwrap_err()
                .to_string()
        };
        let prefix = "tok.json: unusable tokenizer: ";
        let cases = [
            (
                base(json!({"type": "NFKC"}), json!(null), bpe.clone()),
                "normalizer `NFKC` is not supported (supported: Sequence, Prepend, Replace with a string pattern, Lowercase, Strip)",
            ),
            (
                base(
                    json!({"type": "Replace", "pattern": {"Regex": " +"}, "content": "▁"}),
                    json!(null),
                    bpe.clone(),
                ),
                "Replace normalizer needs a non-empty {\"String\": …} pattern (regex patterns are not supported): {\"type\":\"Replace\",\"pattern\":{\"Regex\":\" +\"},\"content\":\"▁\"}",
            ),
            (
                base(json!(null), json!({"type": "ByteLevel"}), bpe.clone()),
                "pre_tokenizer `ByteLevel` is not supported (supported: none, Metaspace)",
            ),
            (
                base(
                    json!(null),
                    json!(null),
                    json!({"type": "WordPiece", "vocab": {}}),
                ),
                "model type `WordPiece` is not supported (only BPE)",
            ),
            (
                base(
                    json!(null),
                    json!(null),
                    json!({"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}),
                ),
                "merge 0 (a b) uses `b`, which is not in the vocabulary",
            ),
            (
                base(
                    json!(null),
                    json!(null),
                    json!({"type": "BPE", "vocab": {"a": 0}, "merges": [3]}),
                ),
                "merge 0 is neither \"a b\" nor [\"a\", \"b\"]: 3",
            ),
            (
                base(
                    json!(null),
                    json!(null),
                    json!({"type": "BPE", "vocab": {"a": 0}, "unk_token": "<unk>"}),
                ),
                "unk_token `<unk>` is not in the vocabulary",
            ),
            (
                base(
                    json!(null),
                    json!(null),
                    json!({"type": "BPE", "vocab": {"a": 0}, "dropout": 0.1}),
                ),
                "BPE dropout is not supported (it makes encoding random)",
            ),
            (
                base(
                    json!(null),
                    json!(null),
                    json!({"type": "BPE", "vocab": {"a": 0}, "continuing_subword_prefix": "##"}),
                ),
                "model.continuing_subword_prefix is not supported",
            ),
        ];
        for (json, reason) in cases {
            assert_eq!(error(json), format!("{prefix}{reason}"));
        }
        assert!(error("{".to_owned()).starts_with(&format!("{prefix}not a tokenizer.json: EOF")));
        let missing =
            BpeTokenizer::from_file(Path::new("/nonexistent/tokenizer.json")).unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("cannot read /nonexistent/tokenizer.json: "),
            "{missing}"
        );
    }

    proptest! {
        /// With byte fallback and every byte token, no character is lost: the bytes of the
        /// decoded tokens (`▁` read as a space) are the normalised input.
        #[test]
        fn byte_fallback_preserves_every_byte(text in "\\PC{0,24}") {
            let mut vocab = serde_json::Map::new();
            vocab.insert("▁".into(), json!(0));
            for byte in 0..=255u8 {
                vocab.insert(format!("<0x{byte:02X}>"), json!(u32::from(byte) + 1));
            }
            let file = json!({
                "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
                "model": {"type": "BPE", "byte_fallback": true, "vocab": vocab, "merges": []}
            });
            let tokenizer = BpeTokenizer::from_json_str(&file.to_string(), "t").unwrap();
            let mut bytes = Vec::new();
            for id in tokenizer.encode(&text) {
                if id == 0 { bytes.push(b' ') } else { bytes.push(u8::try_from(id - 1).unwrap()) }
            }
            prop_assert_eq!(String::from_utf8(bytes).unwrap(), text);
        }

        #[test]
        fn encoding_arbitrary_text_never_panics(text in "\\PC{0,40}") {
            let tokenizer = llama_like();
            let ids = tokenizer.encode(&text);
            prop_assert!(ids.iter().all(|&id| (id as usize) < tokenizer.id_count()));
        }
    }
}
