//! [`LocalModel`]: a GGUF model and its llama.cpp context, with KV cache reuse between calls.
//!
//! - this file: the configuration, [`GenerationControl`] and [`LocalModel`] (loading, prompt
//!   formatting, one call from request to [`LocalCompletion`]);
//! - `weights`: the llama.cpp backend and GGUF weights shared within the process;
//! - `generate`: evaluating the prompt against the KV cache and generating a turn;
//! - `sampler`: choosing each next token (greedy or sampled, grammar-filtered);
//! - `stream`: passing the answer's text on as it is generated.

mod generate;
mod sampler;
mod stream;
mod weights;
mod written;

use crate::completion::{DecodingConstraint, LocalCompletion};
use crate::error::LocalError;
use crate::grammar::{CallForm, turn_grammar_in};
use crate::template::{ChatTemplate, PromptTurn, TemplateFamily, prompt_turns};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::token::LlamaToken;
use serde_json::Value;
use std::fmt;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use wink_core::ToolCall;
use wink_model::text_calls::{distinct_calls, parse_tool_calls};
use wink_model::{Message, ModelRequest, ToolSpec};

use generate::{Decoding, Generation, GenerationSettings, generate};
use sampler::CallOpenings;
use weights::{backend, check_gguf, shared_weights};
use written::WrittenTurns;

/// How a [`LocalModel`] runs.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalModelConfig {
    /// CPU threads for prompt evaluation and generation (default: all available cores).
    pub threads: usize,
    /// Context window in tokens (default 8192).
    pub context_size: u32,
    /// Seed of the random sampler; only used when `temperature > 0`.
    pub seed: u32,
    /// Token budget of a call whose request does not set one (default 512).
    pub max_tokens: u32,
    /// Sampling temperature; `0` (the default) means greedy decoding, which is deterministic.
    pub temperature: f32,
    /// Keep the KV cache between calls and evaluate only the tokens after the longest common prefix
    /// (default true). Turn off to measure what the reuse saves.
    pub reuse_prefix: bool,
    /// Enforce [`DecodingConstraint`]s with a grammar (default true). When off, the model writes freely and tool
    /// calls are recovered by the lenient parser; useful for comparisons.
    pub constrained_decoding: bool,
    /// Tokens evaluated per llama.cpp batch during prompt evaluation (default 512).
    pub batch_size: u32,
    /// How the model's own tool-call turns are written into later prompts (default
    /// [`CallWriteBack::Canonical`]).
    pub call_write_back: CallWriteBack,
    /// How constrained decoding lets the model write a tool call (default `None`: as the model's
    /// profile says — [`CallForm::Template`], in the chat template's own form so the call needs no
    /// evaluating again when it is written back, for the families measured with it, else
    /// [`CallForm::Any`]).
    pub call_form: Option<CallForm>,
}

/// How a tool-call turn the model generated is written into the prompts of later calls.
///
/// Under the default [`CallForm::Template`] the model generates exactly the canonical text, and
/// the two differ only in the cache: canonical tokenizes the prompt afresh (a few tokens at the turn
/// boundary are evaluated again), verbatim keeps the generated tokens. With [`CallForm::Any`],
/// measured on Qwen2.5-Coder-1.5B (`bench/eval` calc and shop files, greedy): the model writes
/// most calls as a pretty-printed object in a ```json fence. Written back canonically, every call
/// after a tool call evaluates that call's tokens again (12–50); written back verbatim, none, but
/// the model, seeing its fenced calls above the results, repeats calls more often and passes fewer
/// tasks (calc 16/16 → 14/16, shop 7/7 → 6/7). Canonical is the default for that reason.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CallWriteBack {
    /// The chat template's own form: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`.
    #[default]
    Canonical,
    /// Exactly the text the model generated, so the next prompt continues the KV cache (only the
    /// turn's end token is new at the boundary).
    Verbatim,
}

impl Default for LocalModelConfig {
    fn default() -> Self {
        Self {
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            context_size: 8192,
            seed: 0,
            max_tokens: 512,
            temperature: 0.0,
            reuse_prefix: true,
            constrained_decoding: true,
            batch_size: 512,
            call_write_back: CallWriteBack::Canonical,
            call_form: None,
        }
    }
}

/// How a caller steers one generation from outside: a cancellation flag checked between tokens (and
/// between prompt batches), and a receiver of the answer's text as it is generated.
#[derive(Default)]
pub struct GenerationControl<'a> {
    /// Set (from any thread) to stop the generation before its next token: [`LocalModel::complete_with`]
    /// then fails with [`LocalError::Cancelled`]. The KV cache keeps what was evaluated.
    pub cancel: Option<&'a AtomicBool>,
    /// Receives the text of a [`DecodingConstraint::FinalAnswer`] turn as it is generated, in pieces whose
    /// concatenation is the turn's text (leading and trailing whitespace left out, as
    /// [`LocalCompletion::text`] trims it; pieces always end on a character boundary). Turns under other
    /// constraints are not streamed: their text may be a call, or be taken back by repair.
    pub on_text: Option<&'a mut dyn FnMut(&str)>,
}

impl fmt::Debug for GenerationControl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenerationControl")
            .field("cancel", &self.cancel)
            .field("on_text", &self.on_text.is_some())
            .finish()
    }
}

impl GenerationControl<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

/// How prompts are written for the loaded model.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PromptFormat {
    /// A family this crate formats itself.
    Native(ChatTemplate),
    /// llama.cpp's built-in template support, given the GGUF's template source.
    LlamaCpp(String),
}

type BoundContext<'model> = LlamaContext<'model>;

self_cell::self_cell!(
    /// The model and the context that borrows it, owned together.
    struct Engine {
        owner: Arc<LlamaModel>,
        #[covariant]
        dependent: BoundContext,
    }
);

/// A GGUF chat model loaded in-process, ready to complete conversations.
///
/// Holds the llama.cpp model, one context (its KV cache) and the tokens the cache currently holds, so a
/// call whose prompt starts like the previous one only evaluates the new tokens.
pub struct LocalModel {
    path: PathBuf,
    name: String,
    format: PromptFormat,
    config: LocalModelConfig,
    engine: Engine,
    /// Tokens whose keys and values are in the KV cache, position by position.
    cached: Vec<LlamaToken>,
    next_call_id: u64,
    /// Recent tool-call turns as generated, written back so the next prompt continues the cache.
    written: WrittenTurns,
    /// What steers a call into the template's form ([`CallForm::Template`]): the first token of
    /// `<tool_call>` and the tokens that open a call otherwise, found on first use.
    call_openings: Option<CallOpenings>,
    /// How the model may write a call: the config's, else its profile's.
    call_form: CallForm,
}

impl fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalModel")
            .field("path", &self.path)
            .field("name", &self.name)
            .field("format", &self.format)
            .field("config", &self.config)
            .field("cached_tokens", &self.cached.len())
            .finish_non_exhaustive()
    }
}

fn to_i32(value: usize) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

impl LocalModel {
    /// Loads a GGUF chat model and creates its context. The weights are shared with every other
    /// [`LocalModel`] of this process loaded from the same file while one lives
    /// ([`LocalModel::shares_weights_with`]); the context (KV cache) is this model's own.
    ///
    /// # Errors
    /// [`LocalError::ModelNotFound`], [`LocalError::NotGguf`], [`LocalError::ModelLoad`] (all naming the
    /// file), [`LocalError::MissingChatTemplate`] / [`LocalError::UnsupportedChatTemplate`] when the model has
    /// no chat template or one of a family neither [`ChatTemplate::detect`] nor llama.cpp's built-in template
    /// support recognises, [`LocalError::Backend`] when llama.cpp cannot create the context.
    ///
    /// Templates [`ChatTemplate::detect`] recognises are formatted natively; any other template llama.cpp
    /// recognises is applied by llama.cpp to the same [`PromptTurn`]s (tools written out as text).
    pub fn load(path: &Path, config: LocalModelConfig) -> Result<LocalModel, LocalError> {
        check_gguf(path)?;
        let backend = backend()?;
        let model = shared_weights(backend, path)?;

        let template_source = model.meta_val_str("tokenizer.chat_template").map_err(|_| {
            LocalError::MissingChatTemplate {
                path: path.to_path_buf(),
            }
        })?;
        let format = match ChatTemplate::detect(&template_source) {
            Some(template) => PromptFormat::Native(template),
            None => {
                let probe = ModelRequest {
                    messages: vec![Message::system("You are helpful."), Message::user("Hello")],
                    ..ModelRequest::default()
                };
                apply_llama_cpp_template(&model, &template_source, &prompt_turns(&probe, None))
                    .map_err(|_| LocalError::UnsupportedChatTemplate {
                        path: path.to_path_buf(),
                        excerpt: template_source.chars().take(120).collect(),
                    })?;
                PromptFormat::LlamaCpp(template_source)
            }
        };
        let name = model.meta_val_str("general.name").unwrap_or_else(|_| {
            path.file_stem().map_or_else(
                || path.display().to_string(),
                |stem| stem.to_string_lossy().into_owned(),
            )
        });

        let call_form = config.call_form.unwrap_or_else(|| {
            if crate::adapter::model_profile(&name, path).template_calls {
                CallForm::Template
            } else {
                CallForm::Any
            }
        });
        let threads = if config.threads == 0 {
            LocalModelConfig::default().threads
        } else {
            config.threads
        };
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(config.context_size))
            .with_n_batch(config.batch_size.max(1))
            .with_n_ubatch(config.batch_size.max(1))
            .with_n_threads(to_i32(threads))
            .with_n_threads_batch(to_i32(threads));
        let engine = Engine::try_new(model, |model| model.new_context(backend, params)).map_err(
            |error| LocalError::Backend {
                reason: format!(
                    "cannot create a context of {} tokens: {error}",
                    config.context_size
                ),
            },
        )?;
        tracing::debug!(path = %path.display(), %name, threads, context = config.context_size, "local model loaded");
        Ok(LocalModel {
            path: path.to_path_buf(),
            name,
            format,
            config,
            engine,
            cached: Vec::new(),
            next_call_id: 0,
            written: WrittenTurns::default(),
            call_openings: None,
            call_form,
        })
    }

    /// How the model may write a tool call.
    #[must_use]
    pub fn call_form(&self) -> CallForm {
        self.call_form
    }

    /// Whether `self` and `other` run on the same weights in memory: [`LocalModel::load`] shares the
    /// weights of a file among every model of this process loaded from it (each has its own context
    /// and KV cache), for as long as one of them lives.
    #[must_use]
    pub fn shares_weights_with(&self, other: &LocalModel) -> bool {
        Arc::ptr_eq(self.engine.borrow_owner(), other.engine.borrow_owner())
    }

    /// The model's name from its GGUF metadata (`general.name`), or the file stem when it has none.
    #[must_use]
    pub fn model_name(&self) -> String {
        self.name.clone()
    }

    /// The file the model was loaded from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The configuration the model runs with.
    #[must_use]
    pub fn config(&self) -> &LocalModelConfig {
        &self.config
    }

    /// The context window in tokens (llama.cpp's `n_ctx`).
    #[must_use]
    pub fn context_size(&self) -> u32 {
        self.engine.borrow_dependent().n_ctx()
    }

    /// The template family the prompt is formatted with, or `None` when llama.cpp's built-in template
    /// support formats it.
    #[must_use]
    pub fn template_family(&self) -> Option<TemplateFamily> {
        match &self.format {
            PromptFormat::Native(template) => Some(template.family()),
            PromptFormat::LlamaCpp(_) => None,
        }
    }

    /// The prompt text `request` renders to (what [`LocalModel::complete`] tokenizes).
    ///
    /// # Errors
    /// [`LocalError::ChatTemplate`] when llama.cpp's template support fails on the conversation (only for
    /// templates not formatted natively).
    pub fn render_prompt(&self, request: &ModelRequest) -> Result<String, LocalError> {
        match &self.format {
            PromptFormat::Native(template) => Ok(template.render(request)),
            PromptFormat::LlamaCpp(source) => self.render_with_llama_cpp(source, request),
        }
    }

    /// Renders `request` with llama.cpp's built-in template support: `template` is one of its template
    /// names (`chatml`, `llama3`, `gemma`, `phi3`, `mistral-v3`, …) or a Jinja source it recognises. The
    /// conversation is given as [`prompt_turns`] (tools written out as text), ending with the opening of the
    /// assistant turn.
    ///
    /// # Errors
    /// [`LocalError::ChatTemplate`] when llama.cpp does not recognise the template.
    pub fn render_with_llama_cpp(
        &self,
        template: &str,
        request: &ModelRequest,
    ) -> Result<String, LocalError> {
        apply_llama_cpp_template(
            self.engine.borrow_owner(),
            template,
            &prompt_turns(request, None),
        )
    }

    /// Forgets the KV cache, so the next call evaluates its whole prompt.
    pub fn clear_cache(&mut self) {
        self.engine
            .with_dependent_mut(|_, context| context.clear_kv_cache());
        self.cached.clear();
    }

    /// Generates the next assistant turn of `request` in the shape `constraint` asks for, with at
    /// most [`ModelRequest::max_output_tokens`] tokens ([`LocalModelConfig::max_tokens`] when unset).
    ///
    /// # Errors
    /// [`LocalError::NoToolsOffered`], [`LocalError::Schema`] and [`LocalError::Grammar`] for requests that
    /// cannot be constrained, [`LocalError::PromptTooLong`], [`LocalError::Decode`] when llama.cpp fails,
    /// [`LocalError::MissingToolCall`] / [`LocalError::InvalidStructuredOutput`] when the token budget ran out
    /// before the required call or document was complete.
    pub fn complete(
        &mut self,
        request: &ModelRequest,
        constraint: &DecodingConstraint,
    ) -> Result<LocalCompletion, LocalError> {
        self.complete_with(request, constraint, GenerationControl::default())
    }

    /// [`LocalModel::complete`], cancellable between tokens and streaming the text of a final answer
    /// (see [`GenerationControl`]).
    ///
    /// # Errors
    /// Those of [`LocalModel::complete`], and [`LocalError::Cancelled`] when `control.cancel` was set.
    pub fn complete_with(
        &mut self,
        request: &ModelRequest,
        constraint: &DecodingConstraint,
        mut control: GenerationControl<'_>,
    ) -> Result<LocalCompletion, LocalError> {
        if *constraint != DecodingConstraint::FinalAnswer {
            control.on_text = None;
        }
        let callable = tools_for(request, constraint);
        match constraint {
            DecodingConstraint::RequireTool if callable.is_empty() => {
                return Err(LocalError::NoToolsOffered);
            }
            DecodingConstraint::RequireNamedTool(name)
                if !callable.iter().any(|t| t.name == *name) =>
            {
                return Err(LocalError::RequiredToolMissing { name: name.clone() });
            }
            _ => {}
        }
        let grammar = if self.config.constrained_decoding {
            turn_grammar_in(constraint, &callable, self.call_form)?
        } else {
            None
        };
        let may_call = grammar.is_some()
            && self.call_form == CallForm::Template
            && !matches!(
                constraint,
                DecodingConstraint::FinalAnswer | DecodingConstraint::JsonSchema(_)
            );
        if may_call && self.call_openings.is_none() {
            self.call_openings = CallOpenings::of(self.engine.borrow_owner());
        }
        let steer = self.call_openings.as_ref().filter(|_| may_call);
        let prompt = match self.written_back(request) {
            Some(as_written) => self.render_prompt(&as_written)?,
            None => self.render_prompt(request)?,
        };
        let max_tokens = request.max_output_tokens.unwrap_or(self.config.max_tokens);
        let settings = GenerationSettings {
            max_tokens,
            temperature: self.config.temperature,
            seed: self.config.seed,
            reuse_prefix: self.config.reuse_prefix,
            keep_generated_tokens: self.config.call_write_back == CallWriteBack::Verbatim,
            batch_size: self.config.batch_size.max(1),
        };
        let cached = &mut self.cached;
        let generation = self.engine.with_dependent_mut(|model, context| {
            generate(
                model,
                context,
                cached,
                &prompt,
                Decoding {
                    grammar: grammar.as_deref(),
                    steer,
                },
                &settings,
                &mut control,
            )
        })?;
        tracing::debug!(
            prompt_tokens = generation.usage.prompt_tokens,
            cached = generation.usage.cached_prompt_tokens,
            completion_tokens = generation.usage.completion_tokens,
            prefill_tps = generation.timings.prefill_tokens_per_s,
            decode_tps = generation.timings.decode_tokens_per_s,
            text = %generation.text,
            "local completion"
        );
        self.turn_from(
            constraint,
            &callable,
            generation,
            grammar.is_some(),
            max_tokens,
        )
    }

    /// `request` with this model's tool-call turns as it generated them, under
    /// [`CallWriteBack::Verbatim`]; `None` when the request is rendered as it is.
    fn written_back(&self, request: &ModelRequest) -> Option<ModelRequest> {
        match self.config.call_write_back {
            CallWriteBack::Verbatim => self.written.apply(request),
            CallWriteBack::Canonical => None,
        }
    }

    fn turn_from(
        &mut self,
        constraint: &DecodingConstraint,
        callable: &[ToolSpec],
        generation: Generation,
        constrained: bool,
        max_tokens: u32,
    ) -> Result<LocalCompletion, LocalError> {
        let Generation {
            text,
            usage,
            timings,
        } = generation;
        let mut turn = LocalCompletion {
            text: None,
            tool_calls: Vec::new(),
            usage,
            timings,
        };
        match constraint {
            DecodingConstraint::JsonSchema(_) => {
                let document = strip_json_fence(text.trim());
                if let Err(error) = serde_json::from_str::<Value>(document) {
                    return Err(LocalError::InvalidStructuredOutput {
                        reason: error.to_string(),
                        completion_tokens: usage.completion_tokens,
                        text,
                    });
                }
                turn.text = Some(document.to_owned());
            }
            DecodingConstraint::FinalAnswer => {
                let trimmed = text.trim();
                turn.text = (!trimmed.is_empty()).then(|| trimmed.to_owned());
            }
            constraint => {
                let names: Vec<&str> = callable.iter().map(|tool| tool.name.as_str()).collect();
                let parsed = parse_tool_calls(&text, &names);
                let opened_a_call = constrained && text.trim_start().starts_with(['<', '`', '{']);
                let needs_call = matches!(
                    constraint,
                    DecodingConstraint::RequireTool | DecodingConstraint::RequireNamedTool(_)
                ) || opened_a_call;
                if parsed.calls.is_empty() && needs_call {
                    return Err(LocalError::MissingToolCall { text, max_tokens });
                }
                turn.text = parsed.text;
                for (name, arguments) in distinct_calls(parsed.calls) {
                    turn.tool_calls.push(ToolCall {
                        id: format!("call_{}", self.next_call_id),
                        name,
                        arguments,
                    });
                    self.next_call_id += 1;
                }
                if self.config.call_write_back == CallWriteBack::Verbatim {
                    self.written.remember(
                        turn.text.as_deref().unwrap_or_default(),
                        &turn.tool_calls,
                        &text,
                    );
                }
            }
        }
        Ok(turn)
    }
}

/// Formats `turns` with llama.cpp's template support, ending with the opening of the assistant turn.
fn apply_llama_cpp_template(
    model: &LlamaModel,
    template: &str,
    turns: &[PromptTurn],
) -> Result<String, LocalError> {
    let failure = |reason: String| LocalError::ChatTemplate {
        template: template.chars().take(60).collect(),
        reason,
    };
    let template_c =
        LlamaChatTemplate::new(template).map_err(|error| failure(error.to_string()))?;
    let messages = turns
        .iter()
        .map(|turn| LlamaChatMessage::new(turn.role.as_str().to_owned(), turn.content.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| failure(error.to_string()))?;
    model
        .apply_chat_template(&template_c, &messages, true)
        .map_err(|error| failure(error.to_string()))
}

fn strip_json_fence(text: &str) -> &str {
    let Some(body) = text.strip_prefix("```") else {
        return text;
    };
    let body = body.find('\n').map_or(body, |i| &body[i + 1..]);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

/// The tools a turn under `constraint` may call: the request's callable tools (the prompt lists
/// only the offered ones), without the answer tool when any call is required (a turn asked for a
/// call is asked for the work). A turn asked for the answer tool by name may call it.
fn tools_for(request: &ModelRequest, constraint: &DecodingConstraint) -> Vec<ToolSpec> {
    let mut callable = request.callable_tools();
    if *constraint == DecodingConstraint::RequireTool {
        callable.retain(|tool| tool.name != wink_core::builtin::FINAL_ANSWER);
    }
    callable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_model_is_send() {
        fn assert_send<T: Send>() {}
        assert_send::<LocalModel>();
    }

    #[test]
    fn missing_and_non_gguf_files_are_named() {
        let missing = Path::new("/nonexistent/model.gguf");
        let error = LocalModel::load(missing, LocalModelConfig::default()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "model file /nonexistent/model.gguf does not exist (fetch it with `wink model fetch` or scripts/fetch-model.sh)"
        );
        let not_gguf =
            std::env::temp_dir().join(format!("wink-local-not-gguf-{}.gguf", std::process::id()));
        std::fs::write(&not_gguf, b"<html>not a model</html>").unwrap();
        let error = LocalModel::load(&not_gguf, LocalModelConfig::default()).unwrap_err();
        std::fs::remove_file(&not_gguf).unwrap();
        assert_eq!(
            error.to_string(),
            format!(
                "{} is not a GGUF model file (it does not start with the bytes \"GGUF\")",
                not_gguf.display()
            )
        );
    }

    #[test]
    fn the_answer_tool_is_callable_unless_any_call_is_required() {
        let tool =
            |name: &str| ToolSpec::new(name, "A tool.", serde_json::json!({"type": "object"}));
        let request = ModelRequest {
            tools: vec![tool("add"), tool(wink_core::builtin::FINAL_ANSWER)],
            ..ModelRequest::default()
        };
        let names = |constraint: DecodingConstraint| -> Vec<String> {
            tools_for(&request, &constraint)
                .into_iter()
                .map(|t| t.name)
                .collect()
        };
        assert_eq!(names(DecodingConstraint::RequireTool), ["add"]);
        for constraint in [
            DecodingConstraint::Auto,
            DecodingConstraint::RequireNamedTool("final_answer".into()),
            DecodingConstraint::RequireNamedTool("add".into()),
        ] {
            assert_eq!(names(constraint), ["add", "final_answer"]);
        }
    }

    #[test]
    fn strips_json_fences() {
        assert_eq!(strip_json_fence("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(strip_json_fence("{\"a\": 1}"), "{\"a\": 1}");
    }

    #[test]
    fn default_config() {
        let config = LocalModelConfig::default();
        assert!(config.threads >= 1);
        assert_eq!(
            (config.context_size, config.max_tokens, config.temperature),
            (8192, 512, 0.0)
        );
        assert!(config.reuse_prefix && config.constrained_decoding);
    }
}
