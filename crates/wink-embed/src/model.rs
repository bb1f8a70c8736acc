//! The static embedding model: a token table, mean pooling and L2 normalisation.

use std::path::{Path, PathBuf};

use crate::error::EmbedError;
use crate::safetensors::SafeTensors;
use crate::tokenizer::BpeTokenizer;

/// The weights file inside a model directory.
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// The tokenizer file inside a model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// The directory name of the default model (WordLlama `l2_supercat`, 256 dimensions) in the
/// wink model cache, as written by `scripts/fetch-embeddings.sh`.
pub const DEFAULT_MODEL_NAME: &str = "wordllama-l2-256";
/// Tensor names tried, in order, when a weights file holds more than one tensor (WordLlama,
/// model2vec).
pub const TABLE_TENSOR_NAMES: [&str; 2] = ["embedding.weight", "embeddings"];

/// A `rows × dim` table of token vectors, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddingTable {
    rows: usize,
    dim: usize,
    values: Vec<f32>,
}

impl EmbeddingTable {
    /// A table from row-major values; `None` unless `values.len() == rows * dim` and `dim > 0`.
    pub fn new(rows: usize, dim: usize, values: Vec<f32>) -> Option<Self> {
        (dim > 0 && rows.checked_mul(dim) == Some(values.len())).then_some(Self {
            rows,
            dim,
            values,
        })
    }

    /// Reads the table from a safetensors file: its only two-dimensional tensor, or the first
    /// of [`TABLE_TENSOR_NAMES`] present. `F16`, `BF16`, `F32` and `F64` are accepted.
    pub fn from_safetensors_file(path: &Path) -> Result<Self, EmbedError> {
        let bytes = std::fs::read(path).map_err(|source| EmbedError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_safetensors_bytes(&bytes, &path.display().to_string())
    }

    /// As [`EmbeddingTable::from_safetensors_file`], from bytes; `origin` names them in errors.
    pub fn from_safetensors_bytes(bytes: &[u8], origin: &str) -> Result<Self, EmbedError> {
        let fail = |reason: String| EmbedError::Safetensors {
            origin: origin.to_owned(),
            reason,
        };
        let file = SafeTensors::parse(bytes, origin)?;
        let matrices: Vec<_> = file
            .tensors()
            .iter()
            .filter(|tensor| tensor.shape.len() == 2)
            .collect();
        let tensor = TABLE_TENSOR_NAMES
            .iter()
            .find_map(|name| file.get(name))
            .or(match matrices.as_slice() {
                [only] => Some(*only),
                _ => None,
            })
            .ok_or_else(|| {
                let names: Vec<&str> = file.tensors().iter().map(|t| t.name.as_str()).collect();
                fail(format!(
                    "no embedding table: expected a tensor named {} or a single 2-D tensor, found {names:?}",
                    TABLE_TENSOR_NAMES.join(" or ")
                ))
            })?;
        let [rows, dim] = tensor.shape[..] else {
            return Err(fail(format!(
                "tensor `{}` has shape {:?}, not [rows, dim]",
                tensor.name, tensor.shape
            )));
        };
        let values = file.to_f32(tensor).map_err(fail)?;
        Self::new(rows, dim, values)
            .ok_or_else(|| fail(format!("tensor `{}` has zero columns", tensor.name)))
    }

    /// Number of rows (token ids).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Row `id`, if it exists.
    pub fn row(&self, id: u32) -> Option<&[f32]> {
        let start = (id as usize).checked_mul(self.dim)?;
        self.values.get(start..start + self.dim)
    }
}

/// A static embedding model: text → tokens → mean of the tokens' rows → unit length.
///
/// This is how WordLlama (`embed(norm=True)`) and model2vec (`normalize: true`) embed text:
/// no special tokens, every token counted (unknown tokens too, as WordLlama does), no
/// truncation. Text without any token embeds as the zero vector, whose cosine with anything is 0.
#[derive(Debug, Clone)]
pub struct StaticModel {
    tokenizer: BpeTokenizer,
    table: EmbeddingTable,
    normalize: bool,
}

impl StaticModel {
    /// Pairs a tokenizer with a table; every id the tokenizer can produce must have a row.
    /// Embeddings are L2-normalised.
    pub fn new(tokenizer: BpeTokenizer, table: EmbeddingTable) -> Result<Self, EmbedError> {
        if tokenizer.id_count() > table.rows() {
            return Err(EmbedError::Mismatch {
                reason: format!(
                    "the tokenizer has ids up to {} but the table has {} rows",
                    tokenizer.id_count() - 1,
                    table.rows()
                ),
            });
        }
        Ok(Self {
            tokenizer,
            table,
            normalize: true,
        })
    }

    /// Loads `dir/model.safetensors` and `dir/tokenizer.json`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let table = EmbeddingTable::from_safetensors_file(&dir.join(WEIGHTS_FILE))?;
        let tokenizer = BpeTokenizer::from_file(&dir.join(TOKENIZER_FILE))?;
        Self::new(tokenizer, table)
    }

    /// The default model's directory in the wink model cache ([`crate::models_dir`]: `$WINK_HOME/models/…`,
    /// else `$XDG_CACHE_HOME/wink/models/…`, else the platform's cache directory, `~/.cache/wink/models/…`
    /// on Linux), the rule `wink-local` and `scripts/fetch-model.sh` follow too.
    pub fn default_dir() -> Option<PathBuf> {
        Some(crate::models_dir().join(DEFAULT_MODEL_NAME))
    }

    /// Where wink looks for the model: `$WINK_EMBED_MODEL` when set and non-empty, else
    /// [`StaticModel::default_dir`].
    pub fn configured_dir() -> Option<PathBuf> {
        std::env::var_os("WINK_EMBED_MODEL")
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
            .or_else(Self::default_dir)
    }

    /// Keeps pooled vectors as they are (no L2 normalisation); cosine similarity is unchanged,
    /// dot products are not.
    #[must_use]
    pub fn without_normalization(mut self) -> Self {
        self.normalize = false;
        self
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &BpeTokenizer {
        &self.tokenizer
    }

    /// The token table.
    pub fn table(&self) -> &EmbeddingTable {
        &self.table
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.table.dim()
    }

    /// The embedding of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut out = vec![0.0; self.dim()];
        self.embed_into(text, &mut out);
        out
    }

    /// Embeddings of many texts, in order.
    pub fn embed_batch<S: AsRef<str>>(&self, texts: &[S]) -> Vec<Vec<f32>> {
        texts.iter().map(|text| self.embed(text.as_ref())).collect()
    }

    /// Embeddings of many texts into one row-major `texts.len() × dim` buffer.
    pub fn embed_matrix<S: AsRef<str>>(&self, texts: &[S]) -> Vec<f32> {
        let dim = self.dim();
        let mut out = vec![0.0; texts.len() * dim];
        for (text, row) in texts.iter().zip(out.chunks_exact_mut(dim)) {
            self.embed_into(text.as_ref(), row);
        }
        out
    }

    fn embed_into(&self, text: &str, out: &mut [f32]) {
        out.fill(0.0);
        let ids = self.tokenizer.encode(text);
        let mut counted = 0usize;
        for id in ids {
            // `new` checked that every tokenizer id has a row.
            if let Some(row) = self.table.row(id) {
                for (sum, value) in out.iter_mut().zip(row) {
                    *sum += value;
                }
                counted += 1;
            }
        }
        if counted == 0 {
            return;
        }
        let count = counted as f32;
        for value in out.iter_mut() {
            *value /= count;
        }
        if self.normalize {
            normalize(out);
        }
    }
}

/// Scales `vector` to unit length (a zero vector stays zero).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        for value in vector.iter_mut() {
            *value /= norm;
        }
    }
}

/// The dot product (the cosine of unit vectors).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Cosine similarity; 0 when either vector is zero.
///
/// ```
/// assert_eq!(wink_embed::cosine(&[1.0, 0.0], &[2.0, 0.0]), 1.0);
/// assert_eq!(wink_embed::cosine(&[1.0, 0.0], &[0.0, 0.0]), 0.0);
/// ```
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let norms = dot(a, a).sqrt() * dot(b, b).sqrt();
    if norms > 0.0 { dot(a, b) / norms } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::safetensors::{TensorBytes, serialize};

    fn tokenizer() -> BpeTokenizer {
        BpeTokenizer::from_json_str(
            r#"{"normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
                "model": {"type": "BPE", "unk_token": "?", "vocab": {"?": 0, "a": 1, "b": 2, "▁": 3}, "merges": []}}"#,
            "t",
        )
        .unwrap()
    }

    fn f16(values: &[u16]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn mean_pooling_then_unit_length() {
        // Rows: ? = (0, 0), a = (1, 0), b = (0, 1), ▁ = (1, 1) in F16.
        let bytes = f16(&[0, 0, 0x3C00, 0, 0, 0x3C00, 0x3C00, 0x3C00]);
        let table = EmbeddingTable::from_safetensors_bytes(
            &serialize(&[TensorBytes {
                name: "embedding.weight",
                dtype: "F16",
                shape: &[4, 2],
                bytes: &bytes,
            }]),
            "m",
        )
        .unwrap();
        assert_eq!((table.rows(), table.dim()), (4, 2));
        let model = StaticModel::new(tokenizer(), table).unwrap();
        let s = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(model.embed("a"), [1.0, 0.0]);
        assert_eq!(model.embed("ab"), [s, s]);
        // "aab": mean (2/3, 1/3) → (2, 1)/√5.
        let v = model.embed("aab");
        assert!(
            (v[0] - 2.0 / 5f32.sqrt()).abs() < 1e-6 && (v[1] - 1.0 / 5f32.sqrt()).abs() < 1e-6,
            "{v:?}"
        );
        // Unknown tokens count (as zero rows here): "a?" = mean((1,0),(0,0)) → (1, 0).
        assert_eq!(model.embed("az"), [1.0, 0.0]);
        assert_eq!(model.embed(""), [0.0, 0.0]);
        assert_eq!(
            model.clone().without_normalization().embed("a?"),
            [0.5, 0.0]
        );
        assert_eq!(
            model.embed_batch(&["a", "b"]),
            [vec![1.0, 0.0], vec![0.0, 1.0]]
        );
        assert_eq!(model.embed_matrix(&["a", "b"]), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(cosine(&model.embed("a"), &model.embed("b")), 0.0);
        assert!((cosine(&model.embed("a b"), &model.embed("ab▁")) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn table_is_found_by_name_or_as_the_only_matrix() {
        let one = 1.0f32.to_le_bytes();
        let table: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let two = serialize(&[
            TensorBytes {
                name: "scale",
                dtype: "F32",
                shape: &[1],
                bytes: &one,
            },
            TensorBytes {
                name: "whatever",
                dtype: "F32",
                shape: &[4, 2],
                bytes: &table,
            },
        ]);
        let found = EmbeddingTable::from_safetensors_bytes(&two, "m").unwrap();
        assert_eq!(found.row(3), Some(&[6.0, 7.0][..]));
        assert_eq!(found.row(4), None);

        let ambiguous = serialize(&[
            TensorBytes {
                name: "x",
                dtype: "F32",
                shape: &[2, 2],
                bytes: &table[..16],
            },
            TensorBytes {
                name: "y",
                dtype: "F32",
                shape: &[2, 2],
                bytes: &table[16..],
            },
        ]);
        assert_eq!(
            EmbeddingTable::from_safetensors_bytes(&ambiguous, "m.safetensors")
                .unwrap_err()
                .to_string(),
            "m.safetensors: invalid safetensors file: no embedding table: expected a tensor named embedding.weight or embeddings or a single 2-D tensor, found [\"x\", \"y\"]"
        );
        let named = serialize(&[
            TensorBytes {
                name: "x",
                dtype: "F32",
                shape: &[2, 2],
                bytes: &table[..16],
            },
            TensorBytes {
                name: "embeddings",
                dtype: "F32",
                shape: &[2, 2],
                bytes: &table[16..],
            },
        ]);
        assert_eq!(
            EmbeddingTable::from_safetensors_bytes(&named, "m")
                .unwrap()
                .row(0),
            Some(&[4.0, 5.0][..])
        );
        let vector = serialize(&[TensorBytes {
            name: "embeddings",
            dtype: "F32",
            shape: &[8],
            bytes: &table,
        }]);
        assert_eq!(
            EmbeddingTable::from_safetensors_bytes(&vector, "m")
                .unwrap_err()
                .to_string(),
            "m: invalid safetensors file: tensor `embeddings` has shape [8], not [rows, dim]"
        );
        let ints = serialize(&[TensorBytes {
            name: "embeddings",
            dtype: "I32",
            shape: &[4, 2],
            bytes: &table,
        }]);
        assert_eq!(
            EmbeddingTable::from_safetensors_bytes(&ints, "m")
                .unwrap_err()
                .to_string(),
            "m: invalid safetensors file: tensor `embeddings` has dtype I32; only F16, BF16, F32 and F64 convert to floats"
        );
    }

    #[test]
    fn a_table_too_small_for_the_tokenizer_is_a_mismatch() {
        let table = EmbeddingTable::new(3, 1, vec![0.0; 3]).unwrap();
        assert_eq!(
            StaticModel::new(tokenizer(), table)
                .unwrap_err()
                .to_string(),
            "tokenizer and embedding table do not match: the tokenizer has ids up to 3 but the table has 3 rows"
        );
        assert!(EmbeddingTable::new(2, 0, vec![]).is_none());
        assert!(EmbeddingTable::new(2, 2, vec![0.0; 3]).is_none());
    }

    #[test]
    fn load_reads_a_model_directory_and_names_missing_files() {
        let dir = std::env::temp_dir().join(format!("wink-embed-load-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let error = StaticModel::load(&dir).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "cannot read {}: ",
                dir.join(WEIGHTS_FILE).display()
            )),
            "{error}"
        );
        let table: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
        std::fs::write(
            dir.join(WEIGHTS_FILE),
            serialize(&[TensorBytes {
                name: "embedding.weight",
                dtype: "F32",
                shape: &[4, 2],
                bytes: &table,
            }]),
        )
        .unwrap();
        let error = StaticModel::load(&dir).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "cannot read {}: ",
                dir.join(TOKENIZER_FILE).display()
            )),
            "{error}"
        );
        std::fs::write(dir.join(TOKENIZER_FILE), "{\"model\": {}}").unwrap();
        assert_eq!(
            StaticModel::load(&dir).unwrap_err().to_string(),
            format!(
                "{}: unusable tokenizer: not a tokenizer.json: missing field `vocab` at line 1 column 12",
                dir.join(TOKENIZER_FILE).display()
            )
        );
        std::fs::write(
            dir.join(TOKENIZER_FILE),
            r#"{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "d": 3}, "merges": []}}"#,
        )
        .unwrap();
        let model = StaticModel::load(&dir).unwrap();
        assert_eq!(model.dim(), 2);
        assert_eq!(model.tokenizer().token_id("c"), Some(2));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
