//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong while fetching, loading or running a local model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// The model file does not exist.
    #[error(
        "model file {path} does not exist (fetch it with `wink model fetch` or scripts/fetch-model.sh)"
    )]
    ModelNotFound {
        /// The missing file.
        path: PathBuf,
    },
    /// The file exists but does not start with the GGUF magic bytes.
    #[error("{path} is not a GGUF model file (it does not start with the bytes \"GGUF\")")]
    NotGguf {
        /// The offending file.
        path: PathBuf,
    },
    /// llama.cpp refused to load the file.
    #[error("llama.cpp could not load the model {path}: {reason}")]
    ModelLoad {
        /// The model file.
        path: PathBuf,
        /// What llama.cpp reported.
        reason: String,
    },
    /// The model file has no `tokenizer.chat_template` metadata.
    #[error(
        "model {path} has no chat template (GGUF key tokenizer.chat_template), so it cannot be used as a chat model"
    )]
    MissingChatTemplate {
        /// The model file.
        path: PathBuf,
    },
    /// The model's chat template is of a family neither this crate nor llama.cpp can format.
    #[error(
        "model {path} uses a chat template neither this crate (ChatML, Llama 3, Gemma, Phi-3, Mistral) \
         nor llama.cpp's built-in template support recognises; template starts with: {excerpt}"
    )]
    UnsupportedChatTemplate {
        /// The model file.
        path: PathBuf,
        /// The first characters of the template.
        excerpt: String,
    },
    /// The llama.cpp backend or a context could not be created.
    #[error("llama.cpp backend error: {reason}")]
    Backend {
        /// What went wrong.
        reason: String,
    },
    /// A JSON Schema (of a tool's parameters or of a structured-output request) cannot be turned into a grammar.
    #[error("cannot build a grammar for the JSON Schema at {location}: {reason}")]
    Schema {
        /// Where the schema came from and the JSON pointer inside it, e.g. `tool add: /properties/a`.
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// llama.cpp's built-in template support failed to format a conversation.
    #[error("llama.cpp could not apply the chat template {template}: {reason}")]
    ChatTemplate {
        /// The template name or the first characters of its source.
        template: String,
        /// What llama.cpp reported.
        reason: String,
    },
    /// llama.cpp rejected a generated grammar (a bug in this crate if it ever happens).
    #[error("llama.cpp rejected the generated grammar: {reason}\n{grammar}")]
    Grammar {
        /// What llama.cpp reported.
        reason: String,
        /// The grammar text.
        grammar: String,
    },
    /// [`crate::DecodingConstraint::RequireTool`] was requested but no tools were offered.
    #[error("a tool call is required but the request offers no tools")]
    NoToolsOffered,
    /// [`crate::DecodingConstraint::RequireNamedTool`] names a tool the request neither offers nor defers.
    #[error("a call of tool '{name}' is required but the request offers no tool of that name")]
    RequiredToolMissing {
        /// The required tool's name.
        name: String,
    },
    /// The rendered prompt does not fit the context window.
    #[error(
        "the prompt has {prompt_tokens} tokens but the context window holds {context_size} \
         (raise LocalModelConfig::context_size or shorten the conversation)"
    )]
    PromptTooLong {
        /// Tokens in the prompt.
        prompt_tokens: usize,
        /// Context window size.
        context_size: u32,
    },
    /// Evaluating tokens failed inside llama.cpp.
    #[error("llama.cpp failed while {stage}: {reason}")]
    Decode {
        /// What was being done (`evaluating the prompt`, `generating`).
        stage: &'static str,
        /// What llama.cpp reported.
        reason: String,
    },
    /// The caller cancelled the generation (its run's deadline passed, or the call was dropped); it stopped
    /// between two tokens.
    #[error("the generation was cancelled after {completion_tokens} tokens")]
    Cancelled {
        /// Tokens generated before it stopped.
        completion_tokens: usize,
    },
    /// The turn had to be a tool call but the generated text holds none (usually cut off by the token budget).
    #[error(
        "expected a tool call but the model produced none within {max_tokens} tokens: {text:?}"
    )]
    MissingToolCall {
        /// The generated text.
        text: String,
        /// The token budget of the call.
        max_tokens: u32,
    },
    /// Structured output is not valid JSON (usually cut off by the token budget).
    #[error(
        "structured output is not valid JSON ({reason}) after {completion_tokens} tokens: {text:?}"
    )]
    InvalidStructuredOutput {
        /// The generated text.
        text: String,
        /// The JSON parser's message.
        reason: String,
        /// Tokens generated.
        completion_tokens: u64,
    },
    /// A file operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done, e.g. `cannot read`.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A helper program (python3, pip) could not be run or failed.
    #[error("`{command}` failed: {reason}")]
    Command {
        /// The command line.
        command: String,
        /// Exit status and stderr, or why it could not start.
        reason: String,
    },
    /// The assembled model does not have the pinned sha256.
    #[error(
        "sha256 of {path} is {actual}, expected {expected}; the download is corrupt or was tampered with"
    )]
    HashMismatch {
        /// The assembled file (already deleted).
        path: PathBuf,
        /// Pinned hash.
        expected: String,
        /// Hash of what was assembled.
        actual: String,
    },
}

impl LocalError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        LocalError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
