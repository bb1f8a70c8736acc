//! Turning names, descriptions and queries into index terms.
//!
//! Text is split into runs of alphanumeric characters; each run is split further at case changes
//! (`getWeather` → `get`, `weather`; `HTTPServer` → `http`, `server`; a plural acronym stays
//! whole: `DVDs` → `dvds`) and, optionally, at
//! letter/digit boundaries (`base64` → `base`, `64`). Pieces are lowercased, pieces shorter than
//! [`Tokenizer::min_len`] are dropped, stopwords are optionally dropped and the rest are optionally
//! reduced by a small suffix stripper ([`Stemming`]).

use serde::{Deserialize, Serialize};

/// How far terms are reduced before indexing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Stemming {
    /// Terms are kept as written (after lowercasing).
    None,
    /// Plural endings only (`files` → `file`, `queries` → `query`, `addresses` → `address`).
    Plural,
    /// Plural endings plus `-ing` and `-ed` (`running` → `run`, `created` → `creat`).
    Light,
}

/// Splits text into index terms. [`Tokenizer::default`] is the configuration the index uses unless
/// told otherwise; it was chosen on the BFCL evaluation (see the crate README).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokenizer {
    /// Terms with fewer characters than this are dropped.
    pub min_len: usize,
    /// Split `abc123` into `abc` and `123`.
    pub split_digits: bool,
    /// Drop common English function words (`the`, `of`, `to`, …).
    pub stopwords: bool,
    /// Suffix stripping applied to every term.
    pub stemming: Stemming,
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self {
            min_len: 2,
            split_digits: false,
            stopwords: true,
            stemming: Stemming::Light,
        }
    }
}

/// Splits `text` with the default [`Tokenizer`].
///
/// ```
/// assert_eq!(
///     wink_search::tokenize("github.createIssue uses HTTPServer_v2"),
///     ["github", "create", "issue", "use", "http", "server", "v2"],
/// );
/// ```
pub fn tokenize(text: &str) -> Vec<String> {
    Tokenizer::default().tokenize(text)
}

impl Tokenizer {
    /// Splits `text` into terms.
    pub fn tokenize(&self, text: &str) -> Vec<String> {
        let mut terms = Vec::new();
        self.for_each_term(text, |term| terms.push(term.to_owned()));
        terms
    }

    /// Calls `emit` with every term of `text`, in order, without allocating a vector.
    pub fn for_each_term(&self, text: &str, mut emit: impl FnMut(&str)) {
        let mut piece = String::new();
        for_each_piece(text, self.split_digits, |raw| {
            piece.clear();
            piece.extend(raw.chars().flat_map(char::to_lowercase));
            if piece.chars().count() < self.min_len {
                return;
            }
            if self.stopwords && is_stopword(&piece) {
                return;
            }
            let stemmed = stem(&piece, self.stemming);
            emit(stemmed);
        });
    }
}

/// Character class used to find case and digit boundaries inside an alphanumeric run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Lower,
    Upper,
    Digit,
    Other,
}

fn class_of(c: char) -> Class {
    if c.is_uppercase() {
        Class::Upper
    } else if c.is_lowercase() {
        Class::Lower
    } else if c.is_numeric() {
        Class::Digit
    } else {
        Class::Other
    }
}

/// Calls `emit` with every raw piece (original case) of `text`.
pub(crate) fn for_each_piece(text: &str, split_digits: bool, mut emit: impl FnMut(&str)) {
    let mut start: Option<usize> = None;
    let mut previous = Class::Other;
    for (at, c) in text.char_indices() {
        if !c.is_alphanumeric() {
            if let Some(from) = start.take() {
                emit(&text[from..at]);
            }
            previous = Class::Other;
            continue;
        }
        let class = class_of(c);
        let Some(from) = start else {
            start = Some(at);
            previous = class;
            continue;
        };
        let boundary = match (previous, class) {
            // getWeather, v2Api
            (Class::Lower | Class::Digit, Class::Upper) => true,
            // HTTPServer: the last capital of a run starts the next word, unless all that
            // follows it is a plural `s` (DVDs, URLsToFetch).
            (Class::Upper, Class::Upper) => starts_word(&text[at + c.len_utf8()..]),
            (Class::Lower | Class::Upper | Class::Other, Class::Digit)
            | (Class::Digit, Class::Lower | Class::Other) => split_digits,
            _ => false,
        };
        if boundary {
            emit(&text[from..at]);
            start = Some(at);
        }
        previous = class;
    }
    if let Some(from) = start {
        emit(&text[from..]);
    }
}

/// Whether a capital followed by `rest` starts a word after a run of capitals: `rest` begins
/// with a lower-case letter and is not a lone plural `s` (`HTTPServer` splits before `S`; `DVDs`
/// and `IDs` stay whole).
fn starts_word(rest: &str) -> bool {
    let mut following = rest.chars();
    match following.next() {
        Some('s') => following
            .next()
            .is_some_and(|after| class_of(after) == Class::Lower),
        Some(next) => class_of(next) == Class::Lower,
        None => false,
    }
}

/// English function words that carry no signal about what a tool does.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "him",
    "his", "how", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
    "please", "she", "should", "so", "some", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "to", "us", "was", "we", "were", "what", "when",
    "which", "who", "whom", "will", "with", "would", "you", "your",
];

fn is_stopword(term: &str) -> bool {
    STOPWORDS.binary_search(&term).is_ok()
}

/// Reduces a lowercase term according to `stemming`. Always returns a prefix of `term`, so no
/// allocation is needed; a consonant + `y` ending is dropped together with `-ies` so that singular
/// and plural meet (`query`, `queries` → `quer`).
pub fn stem(term: &str, stemming: Stemming) -> &str {
    if stemming == Stemming::None || !term.is_ascii() {
        return term;
    }
    let plural_free = strip_plural(term);
    if stemming == Stemming::Plural {
        return plural_free;
    }
    strip_verb_ending(plural_free)
}

fn strip_plural(term: &str) -> &str {
    let len = term.len();
    if len <= 3 {
        return term;
    }
    if let Some(base) = term.strip_suffix("ies") {
        // queries → quer, matching query → quer below.
        return base;
    }
    if term.ends_with('y') && !is_vowel(term.as_bytes()[len - 2]) {
        return &term[..len - 1];
    }
    for keep in ["ss", "us", "is", "os", "as"] {
        if term.ends_with(keep) {
            return term;
        }
    }
    if let Some(base) = term.strip_suffix("sses") {
        return &term[..base.len() + 2];
    }
    for ending in ["ches", "shes", "xes", "zes"] {
        if term.ends_with(ending) {
            return &term[..len - 2];
        }
    }
    if let Some(base) = term.strip_suffix('s') {
        return base;
    }
    term
}

fn strip_verb_ending(term: &str) -> &str {
    for ending in ["ing", "ed"] {
        if let Some(base) = term.strip_suffix(ending)
            && base.len() >= 3
            && base.bytes().any(is_vowel)
        {
            let bytes = base.as_bytes();
            let n = bytes.len();
            // running → run, stopped → stop
            if n >= 2 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b'l' | b's' | b'z')
            {
                return &base[..n - 1];
            }
            return base;
        }
    }
    term
}

fn is_vowel(byte: u8) -> bool {
    matches!(byte, b'a' | b'e' | b'i' | b'o' | b'u')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(tokenizer: Tokenizer, text: &str) -> Vec<String> {
        tokenizer.tokenize(text)
    }

    const PLAIN: Tokenizer = Tokenizer {
        min_len: 2,
        split_digits: false,
        stopwords: false,
        stemming: Stemming::None,
    };

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn camel_case_is_split() {
        assert_eq!(
            raw(PLAIN, "getCurrentWeather"),
            ["get", "current", "weather"]
        );
        assert_eq!(raw(PLAIN, "HTTPServerError"), ["http", "server", "error"]);
        assert_eq!(raw(PLAIN, "ChaFod"), ["cha", "fod"]);
        assert_eq!(raw(PLAIN, "parseJSON"), ["parse", "json"]);
        assert_eq!(raw(PLAIN, "HTTPSession"), ["http", "session"]);
    }

    #[test]
    fn a_plural_acronym_stays_whole() {
        assert_eq!(
            raw(PLAIN, "DVDs for 7 days, IDs, URLsToFetch"),
            ["dvds", "for", "days", "ids", "urls", "to", "fetch"]
        );
        let plural = Tokenizer {
            stemming: Stemming::Plural,
            ..PLAIN
        };
        assert_eq!(raw(plural, "DVDs"), raw(plural, "DVD"));
    }

    #[test]
    fn dotted_snake_kebab_and_slashed_names_are_split() {
        assert_eq!(
            raw(PLAIN, "version_api.VersionApi.get_version"),
            ["version", "api", "version", "api", "get", "version"]
        );
        assert_eq!(
            raw(PLAIN, "mcp__github__create-issue"),
            ["mcp", "github", "create", "issue"]
        );
        assert_eq!(raw(PLAIN, "fs/read_file"), ["fs", "read", "file"]);
    }

    #[test]
    fn digits_split_only_when_asked() {
        assert_eq!(
            raw(PLAIN, "base64 s3Bucket v1.2"),
            ["base64", "s3", "bucket", "v1"]
        );
        let digits = Tokenizer {
            split_digits: true,
            ..PLAIN
        };
        assert_eq!(
            raw(digits, "base64 s3Bucket v1.2 o200kBase"),
            ["base", "64", "bucket", "200", "base"]
        );
    }

    #[test]
    fn short_pieces_are_dropped_and_unicode_is_lowercased() {
        assert_eq!(raw(PLAIN, "a b cd É"), ["cd"]);
        assert_eq!(raw(PLAIN, "ÉTÉ Straße"), ["été", "straße"]);
        let one = Tokenizer {
            min_len: 1,
            ..PLAIN
        };
        assert_eq!(raw(one, "a b cd"), ["a", "b", "cd"]);
    }

    #[test]
    fn default_tokenizer_drops_stopwords_and_stems() {
        assert_eq!(
            tokenize("What is the weather in the cities of Paris? Booked 2 rooms"),
            ["weather", "cit", "paris", "book", "room"]
        );
    }

    #[test]
    fn plural_stemming_conflates_singular_and_plural() {
        for (a, b) in [
            ("files", "file"),
            ("queries", "query"),
            ("addresses", "address"),
            ("boxes", "box"),
            ("matches", "match"),
            ("users", "user"),
        ] {
            assert_eq!(
                stem(a, Stemming::Plural),
                stem(b, Stemming::Plural),
                "{a} vs {b}"
            );
        }
        assert_eq!(stem("status", Stemming::Plural), "status");
        assert_eq!(stem("analysis", Stemming::Plural), "analysis");
        assert_eq!(stem("key", Stemming::Plural), "key");
        assert_eq!(stem("day", Stemming::Plural), "day");
    }

    #[test]
    fn light_stemming_strips_verb_endings() {
        assert_eq!(stem("running", Stemming::Light), "run");
        assert_eq!(stem("stopped", Stemming::Light), "stop");
        assert_eq!(stem("installed", Stemming::Light), "install");
        assert_eq!(stem("bring", Stemming::Light), "bring");
        assert_eq!(stem("red", Stemming::Light), "red");
    }
}
