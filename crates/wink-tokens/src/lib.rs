//! # wink-tokens
//!
//! Offline token counting with OpenAI's `o200k_base` encoding, identical to `tiktoken`'s
//! (`tests/tiktoken.rs` compares the two on the project's docs, tool schemas and varied text).
//!
//! Start-up is cheap: the vocabulary (`data/o200k_base.tiktoken`, MIT, vendored from
//! `tiktoken`) is laid out at build time as static tables (`build.rs`), so the first counter
//! only compiles the pre-tokenizing regex (a few milliseconds), and a process that never
//! asks for a [`TokenCounter`] does no tokenizer work at all.
//!
//! ```
//! let counter = wink_tokens::TokenCounter::o200k().unwrap();
//! assert_eq!(counter.count("hello world"), 2);
//! ```

mod bpe;
mod split;
mod vocab;

use std::sync::OnceLock;

/// The tokenizer could not be initialised (its pre-tokenizing pattern did not compile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenizerError(String);

impl std::fmt::Display for TokenizerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot load the o200k_base tokenizer: {}", self.0)
    }
}

impl std::error::Error for TokenizerError {}

/// Counts `o200k_base` tokens. Cheap to copy; the pre-tokenizer is compiled once per process,
/// when the first counter is asked for.
#[derive(Clone, Copy)]
pub struct TokenCounter {
    splitter: &'static split::Splitter,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenCounter(o200k_base)")
    }
}

static SPLITTER: OnceLock<Result<split::Splitter, String>> = OnceLock::new();

impl TokenCounter {
    /// The `o200k_base` counter (GPT-4o / GPT-4.1 / o-series encoding).
    pub fn o200k() -> Result<Self, TokenizerError> {
        match SPLITTER.get_or_init(split::Splitter::new) {
            Ok(splitter) => Ok(Self { splitter }),
            Err(e) => Err(TokenizerError(e.clone())),
        }
    }

    /// Tokens in `text` (special-token text is counted as ordinary text).
    pub fn count(&self, text: &str) -> usize {
        let mut scratch = Vec::new();
        self.splitter
            .pieces(text)
            .map(|piece| bpe::count(piece.as_bytes(), &mut scratch))
            .sum()
    }

    /// The token ids of `text`, as `tiktoken`'s `encode_ordinary` returns them.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        let mut scratch = Vec::new();
        for piece in self.splitter.pieces(text) {
            bpe::encode(piece.as_bytes(), &mut scratch, &mut ids);
        }
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_known_strings() {
        let c = TokenCounter::o200k().unwrap();
        assert_eq!(c.count(""), 0);
        assert_eq!(c.count("hello world"), 2);
        assert_eq!(c.encode("hello world"), vec![24912, 2375]);
        assert_eq!(c.count("<|endoftext|>"), 7);
    }
}
