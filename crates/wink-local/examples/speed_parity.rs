//! Speed parity of the embedded model (issue 16): the same model, prompt and thread count through
//! (a) a plain greedy `llama-cpp-2` loop, (b) wink with its grammar and (c) wink without.
//!
//! ```sh
//! cargo run --release -p wink-local --example speed_parity -- MODE [MODEL [THREADS [TOKENS [REPEATS]]]]
//! ```
//!
//! `MODE` is `plain`, `wink-grammar` or `wink-free` (`prompt` prints the prompt text); `MODEL` defaults to the 1.5B model in the
//! cache, `THREADS` to 2, `TOKENS` (generated per run) to 128 and `REPEATS` to 3. Each mode runs
//! in its own process (`bench/local_speed/run.sh` runs all three in one go): the model is loaded,
//! one warm-up run is made, then `REPEATS` runs, each from an empty KV cache. Prints one JSON
//! object with the medians: prompt tokens, generated tokens, prefill and decode tokens per second
//! and the time to the first token.
//!
//! Both sides evaluate the prompt in batches of 512 tokens in a context of 8192 tokens (wink's
//! defaults) and stop at an end-of-generation token or the budget. The plain loop picks the
//! highest logit; wink with its grammar decodes a [`DecodingConstraint::FinalAnswer`] turn (the
//! grammar checks every token); without it, the same turn unconstrained. The prompt is a
//! ChatML conversation that wink renders byte for byte as the plain loop's text (checked).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use wink_local::{
    DecodingConstraint, GenerationControl, LocalModel, LocalModelConfig, ModelChoice,
    default_cache_dir, model_path,
};
use wink_model::{Message, ModelRequest};

const CONTEXT: u32 = 8192;
const BATCH: u32 = 512;

const SYSTEM: &str =
    "You are a careful technical writer. Write plain prose: no lists, no headings, no code.";

/// About 500 tokens of reference text and a request for a long answer, so that every run
/// generates its whole budget.
fn user_message() -> String {
    let reference = "A prompt is a tree of sections. A section carries instructions and tools, \
        and it can render as a short summary that the model expands when it needs the details. \
        Tools hidden in a summarized section become available once the section is opened. "
        .repeat(10);
    format!(
        "Reference:\n{reference}\n\nWrite a long essay of at least eight paragraphs on why \
         progressive disclosure saves tokens in agent prompts."
    )
}

/// The conversation as Qwen's ChatML, as wink renders it for the request below.
fn chatml() -> String {
    format!(
        "<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n",
        user_message()
    )
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    prompt_tokens: usize,
    generated: usize,
    prefill_s: f64,
    decode_s: f64,
    first_token_s: f64,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| {
        eprintln!(
            "usage: speed_parity plain|wink-grammar|wink-free [MODEL [THREADS [TOKENS [REPEATS]]]]"
        );
        std::process::exit(2)
    });
    if mode == "prompt" {
        print!("{}", chatml());
        return;
    }
    let path = args.next().map_or_else(
        || model_path(ModelChoice::Qwen15B, &default_cache_dir()),
        PathBuf::from,
    );
    let threads: usize = args.next().map_or(2, |t| t.parse().unwrap());
    let tokens: u32 = args.next().map_or(128, |t| t.parse().unwrap());
    let repeats: usize = args.next().map_or(3, |t| t.parse().unwrap());

    let samples = match mode.as_str() {
        "plain" => plain(&path, threads, tokens, repeats),
        "wink-grammar" => wink(&path, threads, tokens, repeats, true),
        "wink-free" => wink(&path, threads, tokens, repeats, false),
        other => {
            eprintln!("unknown mode {other:?}: plain, wink-grammar or wink-free");
            std::process::exit(2)
        }
    };
    let median = |f: fn(&Sample) -> f64| {
        let mut values: Vec<f64> = samples.iter().map(f).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let first = samples[0];
    println!(
        "{}",
        serde_json::json!({
            "mode": mode,
            "threads": threads,
            "repeats": repeats,
            "prompt_tokens": first.prompt_tokens,
            "generated_tokens": first.generated,
            "prefill_tok_s": median(|s| s.prompt_tokens as f64 / s.prefill_s),
            "decode_tok_s": median(|s| s.generated as f64 / s.decode_s),
            "first_token_ms": median(|s| s.first_token_s * 1000.0),
        })
    );
}

/// (a): llama-cpp-2 alone, greedy.
fn plain(path: &std::path::Path, threads: usize, tokens: u32, repeats: usize) -> Vec<Sample> {
    let backend = LlamaBackend::init().unwrap();
    let model = LlamaModel::load_from_file(&backend, path, &LlamaModelParams::default()).unwrap();
    let threads = i32::try_from(threads).unwrap();
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(CONTEXT))
        .with_n_batch(BATCH)
        .with_n_ubatch(BATCH)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut context = model.new_context(&backend, params).unwrap();
    let prompt = chatml();
    (0..=repeats)
        .map(|_| {
            context.clear_kv_cache();
            let started = Instant::now();
            let prompt_tokens = model.vocab().tokenize(prompt.as_bytes(), true, true);
            let prefill_started = Instant::now();
            let mut batch = LlamaBatch::new(BATCH as usize, 1);
            let chunks = prompt_tokens.len().div_ceil(BATCH as usize);
            for (index, chunk) in prompt_tokens.chunks(BATCH as usize).enumerate() {
                batch.clear();
                for (offset, token) in chunk.iter().enumerate() {
                    let position = i32::try_from(index * BATCH as usize + offset).unwrap();
                    let last = index + 1 == chunks && offset + 1 == chunk.len();
                    batch.add(*token, position, &[0], last).unwrap();
                }
                context.decode(&mut batch).unwrap();
            }
            let prefill_s = prefill_started.elapsed().as_secs_f64();
            let decode_started = Instant::now();
            let mut first_token_s = 0.0;
            let mut logits_index = batch.n_tokens() - 1;
            let mut generated = 0;
            let mut position = prompt_tokens.len();
            while generated < tokens as usize {
                let logits = context.get_logits_ith(logits_index);
                let best = logits
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .map(|(index, _)| index)
                    .unwrap();
                let token = llama_cpp_2::token::LlamaToken(i32::try_from(best).unwrap());
                if generated == 0 {
                    first_token_s = started.elapsed().as_secs_f64();
                }
                if model.vocab().is_eog(token) {
                    break;
                }
                let _piece = model.vocab().token_to_piece(token, true, None);
                generated += 1;
                if generated == tokens as usize {
                    break;
                }
                batch.clear();
                batch
                    .add(token, i32::try_from(position).unwrap(), &[0], true)
                    .unwrap();
                context.decode(&mut batch).unwrap();
                position += 1;
                logits_index = 0;
            }
            Sample {
                prompt_tokens: prompt_tokens.len(),
                generated,
                prefill_s,
                decode_s: decode_started.elapsed().as_secs_f64(),
                first_token_s,
            }
        })
        .skip(1)
        .collect()
}

/// (b) and (c): [`LocalModel::complete_with`], with or without the grammar.
fn wink(
    path: &std::path::Path,
    threads: usize,
    tokens: u32,
    repeats: usize,
    grammar: bool,
) -> Vec<Sample> {
    let config = LocalModelConfig {
        threads,
        context_size: CONTEXT,
        batch_size: BATCH,
        constrained_decoding: grammar,
        ..LocalModelConfig::default()
    };
    let mut model = LocalModel::load(path, config).unwrap();
    let request = ModelRequest {
        messages: vec![Message::system(SYSTEM), Message::user(user_message())],
        max_output_tokens: Some(tokens),
        ..ModelRequest::default()
    };
    assert_eq!(
        model.render_prompt(&request).unwrap(),
        chatml(),
        "wink must render the plain loop's prompt"
    );
    (0..=repeats)
        .map(|_| {
            model.clear_cache();
            let started = Instant::now();
            let mut first_token_s = None;
            let mut on_text = |_: &str| {
                first_token_s.get_or_insert_with(|| started.elapsed().as_secs_f64());
            };
            let control = GenerationControl {
                cancel: None,
                on_text: Some(&mut on_text),
            };
            let completion = model
                .complete_with(&request, &DecodingConstraint::FinalAnswer, control)
                .unwrap();
            Sample {
                prompt_tokens: completion.usage.prompt_tokens as usize,
                generated: completion.usage.completion_tokens as usize,
                prefill_s: completion.timings.prefill_ms / 1000.0,
                decode_s: completion.timings.decode_ms / 1000.0,
                first_token_s: first_token_s.unwrap_or(0.0),
            }
        })
        .skip(1)
        .collect()
}
