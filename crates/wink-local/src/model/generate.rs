//! One generation: the prompt evaluated against the KV cache (reusing the cached prefix), then
//! tokens generated until an end token or the budget.

use std::fmt;
use std::time::Instant;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use super::sampler::{CallOpenings, TokenPicker};
use super::stream::TextStreamer;
use super::{GenerationControl, to_i32};
use crate::completion::{LocalTimings, LocalUsage};
use crate::error::LocalError;

#[derive(Debug, Clone, Copy)]
pub(super) struct GenerationSettings {
    pub(super) max_tokens: u32,
    pub(super) temperature: f32,
    pub(super) seed: u32,
    pub(super) reuse_prefix: bool,
    /// Keep the tokens the model generated where their text continues the prompt, even when tokenizing
    /// that text afresh splits it differently (verbatim write-back); otherwise the prompt is tokenized
    /// afresh and only the common token prefix is reused.
    pub(super) keep_generated_tokens: bool,
    pub(super) batch_size: u32,
}

/// What constrains the generated tokens: the turn's grammar, and the steering of its first token.
#[derive(Debug, Clone, Copy)]
pub(super) struct Decoding<'a> {
    pub(super) grammar: Option<&'a str>,
    pub(super) steer: Option<&'a CallOpenings>,
}

#[derive(Debug)]
pub(super) struct Generation {
    pub(super) text: String,
    pub(super) usage: LocalUsage,
    pub(super) timings: LocalTimings,
}

pub(super) fn decode_error(stage: &'static str, error: impl fmt::Display) -> LocalError {
    LocalError::Decode {
        stage,
        reason: error.to_string(),
    }
}

/// Evaluates the prompt (reusing the cached prefix) and generates until an end-of-generation token or the
/// budget. Keeps `cached` equal to what the KV cache holds, also when it fails.
pub(super) fn generate(
    model: &LlamaModel,
    context: &mut LlamaContext<'_>,
    cached: &mut Vec<LlamaToken>,
    prompt: &str,
    decoding: Decoding<'_>,
    settings: &GenerationSettings,
    control: &mut GenerationControl<'_>,
) -> Result<Generation, LocalError> {
    let prompt_tokens = if settings.reuse_prefix && settings.keep_generated_tokens {
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

    let mut picker = TokenPicker::new(model, decoding.grammar, decoding.steer, settings)?;

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
        &prompt_tokens[reused..],
        budget,
        &mut picker,
        settings,
        control,
    );
    // A cancelled generation leaves `cached` equal to the KV cache; other failures may not.
    if result
        .as_ref()
        .is_err_and(|error| !matches!(error, LocalError::Cancelled { .. }))
    {
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
    pending: &[LlamaToken],
    budget: usize,
    picker: &mut TokenPicker,
    settings: &GenerationSettings,
    control: &mut GenerationControl<'_>,
) -> Result<(Vec<u8>, usize, f64, f64), LocalError> {
    let cancelled = |completion_tokens| LocalError::Cancelled { completion_tokens };
    let batch_size = usize::try_from(settings.batch_size).unwrap_or(512);
    let mut batch = LlamaBatch::new(batch_size, 1);
    let prefill_started = Instant::now();
    let chunk_count = pending.len().div_ceil(batch_size);
    for (chunk_index, chunk) in pending.chunks(batch_size).enumerate() {
        if control.cancelled() {
            return Err(cancelled(0));
        }
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
    let mut streamer = TextStreamer::default();
    while generated < budget {
        if control.cancelled() {
            return Err(cancelled(generated));
        }
        let token = picker.pick(context, logits_index)?;
        if picker.is_end(token) {
            break;
        }
        let piece = picker.piece(token);
        if let Some(on_text) = control.on_text.as_deref_mut() {
            streamer.push(&piece, on_text);
        }
        bytes.extend(piece);
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
