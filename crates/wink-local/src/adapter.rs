//! [`LocalAdapter`]: the embedded model as a [`wink_model::ProviderAdapter`].
//!
//! The adapter renders the [`ModelRequest`] itself (with a user turn, see
//! [`ModelRequest::with_user_turn`]), under the [`DecodingConstraint`] its tool choice asks for
//! ([`decoding_constraint`]), so that each call's prompt extends the previous one (the KV cache
//! then holds everything but the new tail):
//!
//! * **Append-only tools.** The system message lists the tools offered from the start; tools injected
//!   mid-run ([`ModelRequest::tool_additions`]) are announced right after the message that disclosed them
//!   and the grammar admits them from then on. The system message is never rewritten.
//! * **Hidden tools are callable.** The grammar also admits calls of [`ModelRequest::deferred_tools`]
//!   (tools of summarized sections), which the prompt does not list: a model that names one writes a
//!   well-formed call and the loop opens the section that hides it.
//! * **A user turn.** Chat models answer a user turn, and wink prompts carry the request in the
//!   rendered prompt (as WINK's do). When the conversation has no user message, the rendered prompt is
//!   sent as the user turn and the system message is the model's default one (Qwen2.5: "You are Qwen,
//!   created by Alibaba Cloud. You are a helpful assistant.") with the tools block. Measured on
//!   Qwen2.5-Coder-1.5B: with the prompt as the system message and a generic user turn ("Carry out
//!   the task described in the system prompt.") the model answers "I'm sorry, but I can't assist with
//!   that."; repeating the prompt's first section as the user turn gets the call of a visible tool but
//!   not the `read_section` call of a hidden one; the prompt as the user turn gets both (and the call
//!   on Qwen2.5-Coder-0.5B, where the generic turn gets a Python snippet instead).
//! * **Tool choice.** [`ToolChoice::None`] forces a final answer, [`ToolChoice::Required`] a call,
//!   [`ToolChoice::Tool`] a call of that tool (grammar-enforced).
//! * **Repairs are the loop's**: a turn a turn policy takes back comes again as a request with
//!   `tool_choice` required or naming a tool, decoded under the call grammar (the answer tool, when
//!   the loop offers it, is not callable there), from the same prompt (the KV cache keeps it).
//! * **Profile**: the model's profile (`wink_model::profile`) is read from its GGUF `general.name`,
//!   else its file name.
//! * **Structured output.** When the prompt declares structured output and the model gives a final
//!   answer, the answer is regenerated under the output's JSON-Schema grammar (appended to the same
//!   prompt, so the cache keeps it).

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::io::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context as TaskContext, Poll, Waker};

use wink_model::{
    FinishReason, ModelRequest, ModelTurn, ProviderAdapter, ProviderError, ProviderErrorKind,
    ProviderFuture, StreamDelta, StreamSink, ToolChoice,
};
use wink_session::TokenUsage;

use crate::{DecodingConstraint, GenerationControl, LocalCompletion, LocalModel, LocalModelConfig};

/// The embedded model as a provider adapter (`supports_dynamic_tools() == true`).
///
/// Inference runs on a thread of its own, never inside the future's `poll`: the future waits for
/// it, and dropping the future (the run's deadline passed, or the caller gave up) stops the
/// generation before its next token. The text of a final answer streams to the call's
/// [`StreamSink`] token by token (see [`LocalAdapter::complete`](ProviderAdapter::complete)).
pub struct LocalAdapter {
    runner: Runner,
    path: PathBuf,
    context_window: u64,
}

/// What a model call needs on its inference thread.
#[derive(Clone)]
struct Runner {
    model: Arc<Mutex<LocalModel>>,
    name: String,
    verbose: bool,
}

impl fmt::Debug for LocalAdapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalAdapter")
            .field("model", &self.runner.name)
            .field("path", &self.path)
            .finish()
    }
}

impl LocalAdapter {
    /// Load the GGUF file at `path`.
    pub fn load(path: &Path, config: LocalModelConfig) -> Result<Self, crate::LocalError> {
        let model = LocalModel::load(path, config)?;
        let name = model.model_name();
        let context_window = u64::from(model.context_size());
        Ok(Self {
            runner: Runner {
                model: Arc::new(Mutex::new(model)),
                name,
                verbose: false,
            },
            path: path.to_path_buf(),
            context_window,
        })
    }

    /// Whether `self` and `other` run on the same weights in memory (see
    /// [`LocalModel::shares_weights_with`]: adapters loaded from one file share them).
    #[must_use]
    pub fn shares_weights_with(&self, other: &LocalAdapter) -> bool {
        if Arc::ptr_eq(&self.runner.model, &other.runner.model) {
            return true;
        }
        let mine = self
            .runner
            .model
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let theirs = other
            .runner
            .model
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        mine.shares_weights_with(&theirs)
    }

    /// Print prefill/decode speed of every call to stderr.
    #[must_use]
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.runner.verbose = verbose;
        self
    }
}

/// The generation an adapter call is in, for [`Runner::complete`].
struct Step<'a> {
    what: &'a str,
    /// Pass the text of a final answer on as it is generated.
    stream: bool,
}

impl Runner {
    fn error(&self, message: impl Into<String>) -> ProviderError {
        ProviderError::new(
            ProviderErrorKind::Other,
            "local",
            self.name.clone(),
            message,
        )
    }

    /// The error of a call whose inference panicked. The panic may have left the KV cache and
    /// the tokens recorded for it apart, so the cache is dropped.
    fn panicked(&self, payload: &(dyn Any + Send)) -> ProviderError {
        self.model
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear_cache();
        self.error(format!(
            "the inference thread panicked: {}",
            wink_session::panic_payload_text(payload).unwrap_or("non-text payload")
        ))
    }

    fn report(&self, what: &str, turn: &LocalCompletion) {
        if self.verbose {
            let u = &turn.usage;
            let t = &turn.timings;
            let _ = writeln!(
                std::io::stderr(),
                "           [local {what}] prompt {} tok ({} cached), prefill {:.0} ms at {:.1} tok/s; decode {} tok in {:.0} ms at {:.1} tok/s",
                u.prompt_tokens,
                u.cached_prompt_tokens,
                t.prefill_ms,
                t.prefill_tokens_per_s,
                u.completion_tokens,
                t.decode_ms,
                t.decode_tokens_per_s
            );
        }
    }

    /// One model call. The text of a final answer goes to `call` as it is generated when the
    /// answer cannot be taken back: a turn constrained to a final answer (no tool callable, or
    /// `ToolChoice::None`) without structured output, and the answer of an answer repair. A free
    /// turn ([`DecodingConstraint::Auto`]) is not streamed: it may open a call; its answer reaches
    /// the sink whole once known (see [`ProviderAdapter::complete`]).
    fn run(&self, request: &ModelRequest, call: &CallState) -> Result<RunTurn, ProviderError> {
        let mut model = self.model.lock().unwrap_or_else(PoisonError::into_inner);
        let local = request.with_user_turn();
        let constraint = decoding_constraint(request);
        let mut usage = TokenUsage::default();
        let answers_only =
            constraint == DecodingConstraint::FinalAnswer && request.output.is_none();
        let first = Step {
            what: "turn",
            stream: answers_only,
        };
        let turn = self.complete(&mut model, &local, &constraint, &mut usage, &first, call)?;
        let answered_freely = !matches!(constraint, DecodingConstraint::JsonSchema(_));
        if turn.tool_calls.is_empty()
            && answered_freely
            && let Some(output) = &request.output
        {
            let schema = wink_schema::output::response_schema(output);
            let document = DecodingConstraint::JsonSchema(schema);
            let step = Step {
                what: "structured output",
                stream: false,
            };
            let document = self.complete(&mut model, &local, &document, &mut usage, &step, call)?;
            return Ok(RunTurn {
                turn: finished(document, usage),
                streamed: false,
            });
        }
        Ok(RunTurn {
            turn: finished(turn, usage),
            streamed: answers_only,
        })
    }

    fn complete(
        &self,
        model: &mut LocalModel,
        request: &ModelRequest,
        constraint: &DecodingConstraint,
        usage: &mut TokenUsage,
        step: &Step<'_>,
        call: &CallState,
    ) -> Result<LocalCompletion, ProviderError> {
        let mut on_text = |text: &str| call.push_text(text);
        let control = GenerationControl {
            cancel: Some(&call.cancel),
            on_text: if step.stream {
                Some(&mut on_text)
            } else {
                None
            },
        };
        let turn = model
            .complete_with(request, constraint, control)
            .map_err(|e| self.error(e.to_string()))?;
        usage.input_tokens += turn.usage.prompt_tokens;
        usage.cached_tokens += turn.usage.cached_prompt_tokens;
        usage.output_tokens += turn.usage.completion_tokens;
        self.report(step.what, &turn);
        Ok(turn)
    }
}

/// The profile of the model named `name` in its GGUF, loaded from `path`: by its name, else
/// by its file name.
#[must_use]
pub fn model_profile(name: &str, path: &Path) -> &'static wink_model::profile::ModelProfile {
    use wink_model::profile::{DEFAULT_PROFILE, profile_for_model};
    let by_name = profile_for_model(name);
    if by_name.name != DEFAULT_PROFILE.name {
        return by_name;
    }
    path.file_stem()
        .map_or(by_name, |stem| profile_for_model(&stem.to_string_lossy()))
}

/// The model turn of a local completion that spent `usage` over the call.
fn finished(turn: LocalCompletion, usage: TokenUsage) -> ModelTurn {
    let finish_reason = if turn.tool_calls.is_empty() {
        FinishReason::Stop
    } else {
        FinishReason::ToolCalls
    };
    ModelTurn {
        text: turn.text,
        tool_calls: turn.tool_calls,
        usage: Some(usage),
        finish_reason,
        output: None,
    }
}

/// A model call's result, and whether its text already went to the sink.
struct RunTurn {
    turn: ModelTurn,
    streamed: bool,
}

/// What the inference thread and the waiting future share.
#[derive(Default)]
struct CallState {
    /// Set when the future is dropped: the generation stops before its next token.
    cancel: AtomicBool,
    progress: Mutex<Progress>,
}

#[derive(Default)]
struct Progress {
    /// Streamed text not yet passed to the sink.
    text: String,
    result: Option<Result<RunTurn, ProviderError>>,
    waker: Option<Waker>,
}

impl CallState {
    fn progress(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push_text(&self, text: &str) {
        let mut progress = self.progress();
        progress.text.push_str(text);
        if let Some(waker) = progress.waker.take() {
            waker.wake();
        }
    }

    fn finish(&self, result: Result<RunTurn, ProviderError>) {
        let mut progress = self.progress();
        progress.result = Some(result);
        if let Some(waker) = progress.waker.take() {
            waker.wake();
        }
    }
}

/// The future of one model call: waits for the inference thread, passing streamed text to the
/// sink; dropping it cancels the generation.
struct PendingCall<'a> {
    call: Arc<CallState>,
    sink: Option<&'a dyn StreamSink>,
}

impl Future for PendingCall<'_> {
    type Output = Result<ModelTurn, ProviderError>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let (text, result) = {
            let mut progress = self.call.progress();
            let text = std::mem::take(&mut progress.text);
            let result = progress.result.take();
            if result.is_none() {
                progress.waker = Some(cx.waker().clone());
            }
            (text, result)
        };
        if let Some(sink) = self.sink
            && !text.is_empty()
        {
            sink.on_delta(&StreamDelta::Text { text });
        }
        let Some(result) = result else {
            return Poll::Pending;
        };
        let RunTurn { turn, streamed } = result?;
        if let (Some(sink), Some(text), false) = (self.sink, &turn.text, streamed) {
            sink.on_delta(&StreamDelta::Text { text: text.clone() });
        }
        Poll::Ready(Ok(turn))
    }
}

impl Drop for PendingCall<'_> {
    fn drop(&mut self) {
        self.call.cancel.store(true, Ordering::Relaxed);
    }
}

impl ProviderAdapter for LocalAdapter {
    fn name(&self) -> &str {
        "local"
    }
    fn model(&self) -> &str {
        &self.runner.name
    }
    fn supports_dynamic_tools(&self) -> bool {
        true
    }
    fn context_window(&self) -> Option<u64> {
        Some(self.context_window)
    }
    fn profile(&self) -> &'static wink_model::profile::ModelProfile {
        model_profile(&self.runner.name, &self.path)
    }
    fn forget_cached_prefix(&self) {
        self.runner
            .model
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear_cache();
    }
    /// Runs the call on a thread of its own. The text of a final answer reaches `stream` token by
    /// token when the turn can only be an answer (see `Runner::run`); any other answer reaches it
    /// whole when the call ends. Tool calls are never passed to `stream`.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        let call = Arc::new(CallState::default());
        let runner = self.runner.clone();
        let owned = request.clone();
        let worker_call = Arc::clone(&call);
        let spawned = std::thread::Builder::new()
            .name("wink-local-inference".into())
            .stack_size(INFERENCE_STACK_BYTES)
            .spawn(move || {
                let result = catch_unwind(AssertUnwindSafe(|| runner.run(&owned, &worker_call)))
                    .unwrap_or_else(|payload| Err(runner.panicked(payload.as_ref())));
                worker_call.finish(result);
            });
        if let Err(error) = spawned {
            let error = self
                .runner
                .error(format!("cannot start the inference thread: {error}"));
            return Box::pin(std::future::ready(Err(error)));
        }
        Box::pin(PendingCall { call, sink: stream })
    }
}

/// Stack of an inference thread (llama.cpp's grammar parser recurses).
const INFERENCE_STACK_BYTES: usize = 8 * 1024 * 1024;

/// The shape the turn must take, following [`ModelRequest::tool_choice`]: `None` is a final
/// answer (the output's JSON document when the prompt declares structured output), `Required` one
/// call of a callable tool, `Tool(name)` one call of that tool, `Auto` a call or an answer (a
/// final answer, or the output's document, when no tool is callable).
#[must_use]
pub fn decoding_constraint(request: &ModelRequest) -> DecodingConstraint {
    let answer = || match &request.output {
        Some(output) => {
            DecodingConstraint::JsonSchema(wink_schema::output::response_schema(output))
        }
        None => DecodingConstraint::FinalAnswer,
    };
    match &request.tool_choice {
        ToolChoice::None => answer(),
        ToolChoice::Required => DecodingConstraint::RequireTool,
        ToolChoice::Tool(name) => DecodingConstraint::RequireNamedTool(name.clone()),
        _ if request.tools.is_empty() && request.deferred_tools.is_empty() => answer(),
        _ => DecodingConstraint::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChatTemplate;
    use serde_json::json;
    use wink_core::{ToolArguments, ToolCall};
    use wink_model::{DeferredTool, IMPLICIT_USER_TURN, Message, ToolAddition, ToolSpec};

    fn request() -> ModelRequest {
        ModelRequest {
            messages: vec![
                Message::system("sys"),
                Message::Assistant {
                    content: None,
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "add".into(),
                        arguments: ToolArguments::Text("{\"a\": 1}".into()),
                    }],
                },
                Message::Tool {
                    tool_call_id: "c1".into(),
                    name: "add".into(),
                    content: "2".into(),
                    is_error: false,
                    images: Vec::new(),
                },
            ],
            tools: vec![ToolSpec {
                name: "add".into(),
                description: "Add.".into(),
                parameters: json!({"type": "object"}),
            }],
            ..ModelRequest::default()
        }
    }

    #[test]
    fn maps_the_conversation_onto_chat_messages() {
        let original = request();
        let local = original.with_user_turn();
        assert_eq!(local.messages.len(), 3);
        assert_eq!(local.messages[0], Message::user("sys"));
        assert_eq!(local.messages[1..], original.messages[1..]);
        assert_eq!(local.tools[0].name, "add");
        assert_eq!(decoding_constraint(&original), DecodingConstraint::Auto);
        // Text arguments are written as their JSON.
        let prompt = ChatTemplate::chatml(None).render(&local);
        assert!(
            prompt.contains(
                "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n</tool_call>"
            ),
            "{prompt}"
        );
    }

    #[test]
    fn tool_additions_and_deferred_tools_map_onto_the_chat_request() {
        let mut r = request();
        r.tools.push(ToolSpec {
            name: "sub".into(),
            description: "Subtract.".into(),
            parameters: json!({"type": "object"}),
        });
        r.tool_additions = vec![ToolAddition {
            after_message: 2,
            section: "math".into(),
            tools: vec!["sub".into()],
        }];
        r.deferred_tools = vec![DeferredTool {
            spec: ToolSpec {
                name: "mul".into(),
                description: "Multiply.".into(),
                parameters: json!({"type": "object"}),
            },
            section: "more".into(),
        }];
        let local = r.with_user_turn();
        // The prompt (as the user turn), the call, the result.
        assert!(matches!(local.messages[2], Message::Tool { .. }));
        assert_eq!(local.tool_additions, r.tool_additions);
        assert_eq!(local.deferred_tools[0].spec.name, "mul");
        let names: Vec<String> = local.callable_tools().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["add", "sub", "mul"]);
        // A user turn put first moves the additions one message on.
        r.messages.remove(0);
        let local = r.with_user_turn();
        assert_eq!(local.messages[0], Message::user(IMPLICIT_USER_TURN));
        assert_eq!(local.tool_additions[0].after_message, 3);
    }

    #[test]
    fn without_a_user_message_the_prompt_is_the_user_turn() {
        let mut r = request();
        r.messages[0] = Message::system("## 1. Task\n\nAdd 1 and 2.");
        let local = r.with_user_turn();
        assert_eq!(
            local.messages[0],
            Message::user("## 1. Task\n\nAdd 1 and 2.")
        );
        assert_eq!(local.messages.len(), 3);
        // With a user message, the prompt stays the system message.
        r.messages.insert(1, Message::user("Go."));
        let local = r.with_user_turn();
        assert_eq!(
            local.messages[0],
            Message::system("## 1. Task\n\nAdd 1 and 2.")
        );
        assert_eq!(local.messages[1], Message::user("Go."));
        // No message at all: the generic request.
        let empty = ModelRequest::default().with_user_turn();
        assert_eq!(empty.messages, [Message::user(IMPLICIT_USER_TURN)]);
    }

    #[test]
    fn tool_choice_sets_the_constraint() {
        let mut r = request();
        let constraint = decoding_constraint;
        r.tool_choice = ToolChoice::None;
        assert_eq!(constraint(&r), DecodingConstraint::FinalAnswer);
        r.tool_choice = ToolChoice::Required;
        assert_eq!(constraint(&r), DecodingConstraint::RequireTool);
        r.tool_choice = ToolChoice::Tool("add".into());
        assert_eq!(
            constraint(&r),
            DecodingConstraint::RequireNamedTool("add".into())
        );
        r.tool_choice = ToolChoice::Auto;
        assert_eq!(constraint(&r), DecodingConstraint::Auto);
        // Only deferred tools: still a call or an answer.
        r.deferred_tools = vec![DeferredTool {
            spec: r.tools.remove(0),
            section: "math".into(),
        }];
        assert_eq!(constraint(&r), DecodingConstraint::Auto);
    }

    #[test]
    fn without_tools_the_turn_is_a_final_answer() {
        let mut r = request();
        r.tools.clear();
        assert_eq!(decoding_constraint(&r), DecodingConstraint::FinalAnswer);
    }
}
