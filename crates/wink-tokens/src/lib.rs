//! # wink-tokens
//!
//! Offline token counting with OpenAI's `o200k_base` encoding (the BPE ranks ship inside the
//! `tiktoken-rs` crate, so nothing is downloaded). Used by `wink render --format json`,
//! `wink catalog tokens` and the benchmarks.
//!
//! ```
//! let counter = wink_tokens::TokenCounter::o200k().unwrap();
//! assert_eq!(counter.count("hello world"), 2);
//! ```

use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

/// The tokenizer could not be initialised (the embedded BPE data is unreadable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenizerError(String);

impl std::fmt::Display for TokenizerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot load the o200k_base tokenizer: {}", self.0)
    }
}

impl std::error::Error for TokenizerError {}

/// Counts `o200k_base` tokens. Cheap to copy; the encoder is built once per process.
#[derive(Clone, Copy)]
pub struct TokenCounter {
    bpe: &'static CoreBPE,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenCounter(o200k_base)")
    }
}

static O200K: OnceLock<Result<CoreBPE, String>> = OnceLock::new();

impl TokenCounter {
    /// The `o200k_base` counter (GPT-4o / GPT-4.1 / o-series encoding).
    pub fn o200k() -> Result<Self, TokenizerError> {
        match O200K.get_or_init(|| tiktoken_rs::o200k_base().map_err(|e| e.to_string())) {
            Ok(bpe) => Ok(Self { bpe }),
            Err(e) => Err(TokenizerError(e.clone())),
        }
    }

    /// Tokens in `text` (special-token text is counted as ordinary text).
    pub fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
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
        assert_eq!(
            c.count("## 1. Task (task)\n\nDo: fix bug"),
            c.count("## 1. Task (task)\n\nDo: fix bug")
        );
        assert!(c.count("<|endoftext|>") > 1);
    }
}
