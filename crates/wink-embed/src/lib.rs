//! Static text embeddings for wink, without third-party inference code: a safetensors reader,
//! a Llama/SentencePiece-style BPE tokenizer driven by a Hugging Face `tokenizer.json`, and a
//! [`StaticModel`] that embeds text as the L2-normalised mean of its tokens' vectors (the
//! WordLlama and model2vec recipe).
//!
//! The intended model is WordLlama `l2_supercat` at 256 dimensions (MIT), which ships in the
//! PyPI wheel `wordllama==0.4.0.post1`; `scripts/fetch-embeddings.sh` extracts it into the wink
//! model cache ([`StaticModel::default_dir`]). Embedding is a table lookup: thousands of short
//! texts per second on one core.
//!
//! ```
//! use wink_embed::{BpeTokenizer, EmbeddingTable, StaticModel, cosine};
//!
//! // A four-token vocabulary: "▁hot", "▁warm", "▁cold" and "▁".
//! let tokenizer = BpeTokenizer::from_json_str(
//!     r#"{"normalizer": {"type": "Sequence", "normalizers": [
//!            {"type": "Prepend", "prepend": "▁"},
//!            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
//!         "model": {"type": "BPE", "vocab": {"▁": 0, "h": 1, "o": 2, "t": 3, "▁h": 4, "▁ho": 5, "▁hot": 6},
//!                   "merges": ["▁ h", "▁h o", "▁ho t"]}}"#,
//!     "example",
//! )?;
//! assert_eq!(tokenizer.tokenize("hot hot"), ["▁hot", "▁hot"]);
//! let rows = 7;
//! let mut values = vec![0.0; rows * 2];
//! values[6 * 2] = 3.0; // "▁hot" → (3, 4)
//! values[6 * 2 + 1] = 4.0;
//! let model = StaticModel::new(tokenizer, EmbeddingTable::new(rows, 2, values).unwrap())?;
//! assert_eq!(model.embed("hot"), [0.6, 0.8]);
//! assert_eq!(cosine(&model.embed("hot"), &model.embed("hot hot")), 1.0);
//! # Ok::<(), wink_embed::EmbedError>(())
//! ```

mod cache;
mod error;
mod model;
pub mod safetensors;
mod tokenizer;

pub use cache::models_dir;
pub use error::EmbedError;
pub use model::{
    DEFAULT_MODEL_NAME, EmbeddingTable, StaticModel, TABLE_TENSOR_NAMES, TOKENIZER_FILE,
    WEIGHTS_FILE, cosine, dot, normalize,
};
pub use tokenizer::BpeTokenizer;
