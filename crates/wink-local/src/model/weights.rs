//! The llama.cpp backend (once per process) and GGUF weights shared by the models loaded from
//! one file.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::{LogOptions, send_logs_to_tracing};

use crate::error::LocalError;

pub(super) fn backend() -> Result<&'static LlamaBackend, LocalError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            send_logs_to_tracing(LogOptions::default());
            LlamaBackend::init().map_err(|error| error.to_string())
        })
        .as_ref()
        .map_err(|reason| LocalError::Backend {
            reason: reason.clone(),
        })
}

/// The weights of `path`: those already loaded in this process when a [`LocalModel`] of the same file
/// is alive, else freshly loaded (and shared with the models loaded from the file while they live).
pub(super) fn shared_weights(
    backend: &LlamaBackend,
    path: &Path,
) -> Result<Arc<LlamaModel>, LocalError> {
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, Weak<LlamaModel>>>> = OnceLock::new();
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    // Held while loading, so two runs starting together load the file once.
    let mut loaded = LOADED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    loaded.retain(|_, weights| weights.strong_count() > 0);
    if let Some(weights) = loaded.get(&key).and_then(Weak::upgrade) {
        return Ok(weights);
    }
    let weights = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default()).map_err(
        |error| LocalError::ModelLoad {
            path: path.to_path_buf(),
            reason: error.to_string(),
        },
    )?;
    let weights = Arc::new(weights);
    loaded.insert(key, Arc::downgrade(&weights));
    Ok(weights)
}

/// Checks that `path` exists and starts with the GGUF magic before llama.cpp sees it.
pub(super) fn check_gguf(path: &Path) -> Result<(), LocalError> {
    let mut file = std::fs::File::open(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            LocalError::ModelNotFound {
                path: path.to_path_buf(),
            }
        } else {
            LocalError::io("cannot open model file", path, source)
        }
    })?;
    let mut magic = [0_u8; 4];
    match file.read_exact(&mut magic) {
        Ok(()) if &magic == b"GGUF" => Ok(()),
        Ok(()) => Err(LocalError::NotGguf {
            path: path.to_path_buf(),
        }),
        Err(source) if source.kind() == std::io::ErrorKind::UnexpectedEof => {
            Err(LocalError::NotGguf {
                path: path.to_path_buf(),
            })
        }
        Err(source) => Err(LocalError::io("cannot read model file", path, source)),
    }
}
