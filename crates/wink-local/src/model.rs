//! [`LocalModel`]: a GGUF model and its llama.cpp context, with KV cache reuse between calls.

use crate::chat::{
    ChatMessage, ChatRequest, ChatTurn, LocalTimings, LocalUsage, ToolCall, ToolSpec,
    TurnConstraint,
};
use crate::error::LocalError;
use crate::grammar::turn_grammar;
use crate::parse::parse_tool_calls;
use crate::template::{ChatTemplate, PromptTurn, TemplateFamily, prompt_turns};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::{LogOptions, send_logs_to_tracing};
use serde_json::Value;
use std::fmt;
use std::io::Read as _;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

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
    /// Enforce [`TurnConstraint`]s with a grammar (default true). When off, the model writes freely and tool
    /// calls are recovered by the lenient parser; useful for comparisons.
    pub constrained_decoding: bool,
    /// Tokens evaluated per llama.cpp batch during prompt evaluation (default 512).
    pub batch_size: u32,
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
        }
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
        owner: LlamaModel,
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

fn backend() -> Result<&'static LlamaBackend, LocalError> {
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

/// Checks that `path` exists and starts with the GGUF magic before llama.cpp sees it.
fn check_gguf(path: &Path) -> Result<(), LocalError> {
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

fn to_i32(value: usize) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

impl LocalModel {
    /// Loads a GGUF chat model and creates its context.
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
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|error| LocalError::ModelLoad {
                path: path.to_path_buf(),
                reason: error.to_string(),
            })?;

        let template_source = model.meta_val_str("tokenizer.chat_template").map_err(|_| {
            LocalError::MissingChatTemplate {
                path: path.to_path_buf(),
            }
        })?;
        let format = match ChatTemplate::detect(&template_source) {
            Some(template) => PromptFormat::Native(template),
            None => {
                let probe = ChatRequest::new(vec![
                    ChatMessage::system("You are helpful."),
                    ChatMessage::user("Hello"),
                ]);
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
        })
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
    pub fn render_prompt(&self, request: &ChatRequest) -> Result<String, LocalError> {
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
        request: &ChatRequest,
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

    /// Generates the next assistant turn of `request`.
    ///
    /// # Errors
    /// [`LocalError::NoToolsOffered`], [`LocalError::Schema`] and [`LocalError::Grammar`] for requests that
    /// cannot be constrained, [`LocalError::PromptTooLong`], [`LocalError::Decode`] when llama.cpp fails,
    /// [`LocalError::MissingToolCall`] / [`LocalError::InvalidStructuredOutput`] when the token budget ran out
    /// before the required call or document was complete.
    pub fn complete(&mut self, request: &ChatRequest) -> Result<ChatTurn, LocalError> {
        let callable = request.callable_tools();
        match &request.constraint {
            TurnConstraint::RequireTool if callable.is_empty() => {
                return Err(LocalError::NoToolsOffered);
            }
            TurnConstraint::RequireNamedTool(name) if !callable.iter().any(|t| t.name == *name) => {
                return Err(LocalError::RequiredToolMissing { name: name.clone() });
            }
            _ => {}
        }
        let grammar = if self.config.constrained_decoding {
            turn_grammar(&request.constraint, &callable)?
        } else {
            None
        };
        let prompt = self.render_prompt(request)?;
        let max_tokens = request.max_tokens.unwrap_or(self.config.max_tokens);
        let settings = GenerationSettings {
            max_tokens,
            temperature: self.config.temperature,
            seed: self.config.seed,
            reuse_prefix: self.config.reuse_prefix,
            batch_size: self.config.batch_size.max(1),
        };
        let cached = &mut self.cached;
        let generation = self.engine.with_dependent_mut(|model, context| {
            generate(
                model,
                context,
                cached,
                &prompt,
                grammar.as_deref(),
                &settings,
            )
        })?;
        tracing::debug!(
            prompt_tokens = generation.usage.prompt_tokens,
            cached = generation.usage.cached_prompt_tokens,
            completion_tokens = generation.usage.completion_tokens,
            prefill_tps = generation.timings.prefill_tokens_per_s,
            decode_tps = generation.timings.decode_tokens_per_s,
            "local completion"
        );
        self.turn_from(
            request,
            &callable,
            generation,
            grammar.is_some(),
            max_tokens,
        )
    }

    fn turn_from(
        &mut self,
        request: &ChatRequest,
        callable: &[ToolSpec],
        generation: Generation,
        constrained: bool,
        max_tokens: u32,
    ) -> Result<ChatTurn, LocalError> {
        let Generation {
            text,
            usage,
            timings,
        } = generation;
        let mut turn = ChatTurn {
            text: None,
            tool_calls: Vec::new(),
            usage,
            timings,
        };
        match &request.constraint {
            TurnConstraint::JsonSchema(_) => {
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
            TurnConstraint::FinalAnswer => {
                let trimmed = text.trim();
                turn.text = (!trimmed.is_empty()).then(|| trimmed.to_owned());
            }
            constraint => {
                let names: Vec<&str> = callable.iter().map(|tool| tool.name.as_str()).collect();
                let parsed = parse_tool_calls(&text, &names);
                let opened_a_call = constrained && text.trim_start().starts_with(['<', '`', '{']);
                let needs_call = matches!(
                    constraint,
                    TurnConstraint::RequireTool | TurnConstraint::RequireNamedTool(_)
                ) || opened_a_call;
                if parsed.calls.is_empty() && needs_call {
                    return Err(LocalError::MissingToolCall { text, max_tokens });
                }
                turn.text = parsed.text;
                for (name, arguments) in parsed.calls {
                    turn.tool_calls.push(ToolCall {
                        id: format!("call_{}", self.next_call_id),
                        name,
                        arguments,
                    });
                    self.next_call_id += 1;
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

#[derive(Debug, Clone, Copy)]
struct GenerationSettings {
    max_tokens: u32,
    temperature: f32,
    seed: u32,
    reuse_prefix: bool,
    batch_size: u32,
}

#[derive(Debug)]
struct Generation {
    text: String,
    usage: LocalUsage,
    timings: LocalTimings,
}

fn decode_error(stage: &'static str, error: impl fmt::Display) -> LocalError {
    LocalError::Decode {
        stage,
        reason: error.to_string(),
    }
}

/// Evaluates the prompt (reusing the cached prefix) and generates until an end-of-generation token or the
/// budget. Keeps `cached` equal to what the KV cache holds, also when it fails.
fn generate(
    model: &LlamaModel,
    context: &mut LlamaContext<'_>,
    cached: &mut Vec<LlamaToken>,
    prompt: &str,
    grammar: Option<&str>,
    settings: &GenerationSettings,
) -> Result<Generation, LocalError> {
    let prompt_tokens = if settings.reuse_prefix {
        tokens_continuing_cache(model, cached, prompt)
    } else {
        model.vocab().tokenize(prompt.as_bytes(), true, true)
    };
    let context_size = context.n_ctx();
    let context_len = usize::try_from(context_size).unwrap_or(usize::MAX);
    if prompt_tokens.is_empty() || prompt_tokens.len() >= context_len {
        return Err(LocalError::PromptTooLong {
            prompt_tokens: prompt_tokens.len(),
            context_size,
        });
    }
    let budget = usize::try_from(settings.max_tokens)
        .unwrap_or(usize::MAX)
        .min(context_len - prompt_tokens.len());

    let mut picker = TokenPicker::new(model, grammar, settings)?;

    // Keep the longest common prefix (always re-evaluating at least the last prompt token, whose logits
    // start the generation) and drop the rest of the cache.
    let mut reused = if settings.reuse_prefix {
        cached
            .iter()
            .zip(&prompt_tokens)
            .take_while(|(cached_token, prompt_token)| cached_token == prompt_token)
            .count()
            .min(prompt_tokens.len() - 1)
    } else {
        0
    };
    let position = u32::try_from(reused).unwrap_or(u32::MAX);
    let trimmed = reused > 0
        && matches!(
            context.clear_kv_cache_seq(Some(0), Some(position), None),
            Ok(true)
        );
    if !trimmed {
        context.clear_kv_cache();
        reused = 0;
    }
    cached.truncate(reused);

    let result = evaluate_and_generate(
        context,
        cached,
        &prompt_tokens,
        reused,
        budget,
        &mut picker,
        settings,
    );
    if result.is_err() {
        context.clear_kv_cache();
        cached.clear();
    }
    let (bytes, completion_tokens, prefill_seconds, decode_seconds) = result?;

    let evaluated = prompt_tokens.len() - reused;
    let per_second = |count: usize, seconds: f64| {
        if count == 0 || seconds <= 0.0 {
            0.0
        } else {
            count as f64 / seconds
        }
    };
    Ok(Generation {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        usage: LocalUsage {
            prompt_tokens: prompt_tokens.len() as u64,
            cached_prompt_tokens: reused as u64,
            completion_tokens: completion_tokens as u64,
        },
        timings: LocalTimings {
            prefill_ms: prefill_seconds * 1000.0,
            decode_ms: decode_seconds * 1000.0,
            prefill_tokens_per_s: per_second(evaluated, prefill_seconds),
            decode_tokens_per_s: per_second(completion_tokens, decode_seconds),
        },
    })
}

/// The tokens of `prompt`. When the prompt starts with the text of cached tokens, those tokens are kept as
/// they are and only the rest of the text is tokenized: the tokens the model generated stay valid even where
/// tokenizing their text afresh would split it differently (decoded tokens need not be the canonical
/// tokenization), so a growing conversation takes everything from the KV cache. Falls back to tokenizing
/// the whole prompt when that reuses as much (or the split does not reproduce the text exactly).
fn tokens_continuing_cache(
    model: &LlamaModel,
    cached: &[LlamaToken],
    prompt: &str,
) -> Vec<LlamaToken> {
    let vocab = model.vocab();
    let fresh = vocab.tokenize(prompt.as_bytes(), true, true);
    let common = |tokens: &[LlamaToken]| {
        cached
            .iter()
            .zip(tokens)
            .take_while(|(a, b)| a == b)
            .count()
    };
    // Tokens the tokenizer adds in front of the text (BOS).
    let leading = usize::from(vocab.should_add_bos() && fresh.first() == Some(&vocab.bos()));
    if cached.len() <= leading || cached[..leading] != fresh[..leading] {
        return fresh;
    }
    let text = prompt.as_bytes();
    let mut offset = 0;
    let mut ends = Vec::with_capacity(cached.len());
    for token in &cached[leading..] {
        let piece = vocab.token_to_piece(*token, true, None);
        if piece.is_empty() || !text[offset..].starts_with(&piece) {
            break;
        }
        offset += piece.len();
        ends.push(offset);
    }
    // Split the text on a character boundary.
    while !prompt.is_char_boundary(offset) {
        ends.pop();
        offset = ends.last().copied().unwrap_or(0);
    }
    let kept = leading + ends.len();
    if kept <= common(&fresh) {
        return fresh;
    }
    let rest = vocab.tokenize(&text[offset..], false, true);
    let rest_text: Vec<u8> = rest
        .iter()
        .flat_map(|token| vocab.token_to_piece(*token, true, None))
        .collect();
    if rest_text != text[offset..] {
        return fresh;
    }
    let mut tokens = cached[..kept].to_vec();
    tokens.extend(rest);
    tokens
}

/// Returns the generated bytes, the number of generated tokens and the prefill / decode seconds.
fn evaluate_and_generate(
    context: &mut LlamaContext<'_>,
    cached: &mut Vec<LlamaToken>,
    prompt_tokens: &[LlamaToken],
    reused: usize,
    budget: usize,
    picker: &mut TokenPicker,
    settings: &GenerationSettings,
) -> Result<(Vec<u8>, usize, f64, f64), LocalError> {
    let batch_size = usize::try_from(settings.batch_size).unwrap_or(512);
    let mut batch = LlamaBatch::new(batch_size, 1);
    let prefill_started = Instant::now();
    let pending = &prompt_tokens[reused..];
    let chunk_count = pending.len().div_ceil(batch_size);
    for (chunk_index, chunk) in pending.chunks(batch_size).enumerate() {
        batch.clear();
        let is_last_chunk = chunk_index + 1 == chunk_count;
        for (offset, token) in chunk.iter().enumerate() {
            let position = to_i32(cached.len() + offset);
            let wants_logits = is_last_chunk && offset + 1 == chunk.len();
            batch
                .add(*token, position, &[0], wants_logits)
                .map_err(|error| decode_error("evaluating the prompt", error))?;
        }
        context
            .decode(&mut batch)
            .map_err(|error| decode_error("evaluating the prompt", error))?;
        cached.extend_from_slice(chunk);
    }
    let prefill_seconds = prefill_started.elapsed().as_secs_f64();

    let decode_started = Instant::now();
    let mut bytes = Vec::new();
    let mut generated = 0_usize;
    let mut logits_index = batch.n_tokens() - 1;
    while generated < budget {
        let token = picker.pick(context, logits_index)?;
        if picker.is_end(token) {
            break;
        }
        bytes.extend(picker.piece(token));
        generated += 1;
        if generated == budget {
            break;
        }
        batch.clear();
        batch
            .add(token, to_i32(cached.len()), &[0], true)
            .map_err(|error| decode_error("generating", error))?;
        context
            .decode(&mut batch)
            .map_err(|error| decode_error("generating", error))?;
        cached.push(token);
        logits_index = 0;
    }
    Ok((
        bytes,
        generated,
        prefill_seconds,
        decode_started.elapsed().as_secs_f64(),
    ))
}

/// Chooses each next token: greedy or sampled, filtered by the grammar when there is one.
///
/// The grammar is checked against the proposed token first and applied to the whole vocabulary only when
/// that token is rejected (as llama.cpp's own sampler does), which keeps constrained decoding cheap.
struct TokenPicker<'model> {
    model: &'model LlamaModel,
    grammar: Option<LlamaSampler>,
    random: Option<LlamaSampler>,
}

impl<'model> TokenPicker<'model> {
    fn new(
        model: &'model LlamaModel,
        grammar: Option<&str>,
        settings: &GenerationSettings,
    ) -> Result<Self, LocalError> {
        let grammar = grammar
            .map(|text| {
                LlamaSampler::grammar(model, text, "root").map_err(|error| LocalError::Grammar {
                    reason: error.to_string(),
                    grammar: text.to_owned(),
                })
            })
            .transpose()?;
        let random = (settings.temperature > 0.0).then(|| {
            LlamaSampler::chain_simple([
                LlamaSampler::temp(settings.temperature),
                LlamaSampler::dist(settings.seed),
            ])
        });
        Ok(Self {
            model,
            grammar,
            random,
        })
    }

    fn is_end(&self, token: LlamaToken) -> bool {
        self.model.vocab().is_eog(token)
    }

    fn piece(&self, token: LlamaToken) -> Vec<u8> {
        self.model.vocab().token_to_piece(token, true, None)
    }

    /// The best candidate: sampled through the random chain, or the highest finite logit.
    fn choose(&mut self, candidates: &mut LlamaTokenDataArray) -> Option<LlamaTokenData> {
        if let Some(random) = self.random.as_mut() {
            candidates.selected = None;
            candidates.apply_sampler(random);
            let index = candidates.selected?;
            return candidates.data.get(index).copied();
        }
        candidates
            .data
            .iter()
            .filter(|candidate| candidate.logit().is_finite())
            .max_by(|a, b| a.logit().total_cmp(&b.logit()))
            .copied()
    }

    /// The proposal before any grammar check. Greedy decoding reads the logits directly instead of building
    /// the full candidate array.
    fn propose(&mut self, context: &LlamaContext<'_>, logits_index: i32) -> Option<LlamaTokenData> {
        if self.random.is_some() {
            return self.choose(&mut context.token_data_array_ith(logits_index));
        }
        let logits = context.get_logits_ith(logits_index);
        let (index, logit) = logits
            .iter()
            .enumerate()
            .filter(|(_, logit)| logit.is_finite())
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        Some(LlamaTokenData::new(
            LlamaToken(i32::try_from(index).ok()?),
            *logit,
            0.0,
        ))
    }

    fn pick(
        &mut self,
        context: &LlamaContext<'_>,
        logits_index: i32,
    ) -> Result<LlamaToken, LocalError> {
        let proposal = self
            .propose(context, logits_index)
            .ok_or_else(|| decode_error("generating", "the model produced no finite logits"))?;
        let Some(grammar) = self.grammar.as_mut() else {
            return Ok(proposal.id());
        };
        let mut single = LlamaTokenDataArray::new(vec![proposal], false);
        grammar.apply(&mut single);
        let accepted = single
            .data
            .first()
            .is_some_and(|candidate| candidate.logit().is_finite());
        let token = if accepted {
            proposal.id()
        } else {
            let mut allowed = context.token_data_array_ith(logits_index);
            grammar.apply(&mut allowed);
            self.choose(&mut allowed)
                .ok_or_else(|| decode_error("generating", "the grammar allows no next token"))?
                .id()
        };
        // End-of-generation tokens are never accepted: generation stops there, and llama.cpp's grammar
        // aborts the process if an end token is accepted while the grammar is incomplete.
        if let Some(grammar) = self
            .grammar
            .as_mut()
            .filter(|_| !self.model.vocab().is_eog(token))
        {
            grammar.accept(token);
        }
        Ok(token)
    }
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
