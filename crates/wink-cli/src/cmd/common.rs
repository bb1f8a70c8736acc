//! Flags shared by the subcommands that take a prompt file and a model, turned into
//! `wink_run` specs.

use std::path::PathBuf;

use clap::Args;
use wink_local::{CallForm, CallWriteBack};
use wink_run::model::{LocalOptions, ModelOptions};
use wink_run::{PreparedPrompt, PromptSpec, RunError, RunSettings};
use wink_session::Session;

use crate::exit::usage;

pub use wink_run::DEFAULT_CONTEXT_WINDOW;

/// A prompt file plus params, visibility overrides and disclosure mode.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// The prompt file (.json, .toml, .yaml).
    pub file: PathBuf,
    /// Params as JSON: params type name → field values, e.g. '{"TaskParams": {"objective": "fix bug"}}'.
    #[arg(long, value_name = "JSON")]
    pub params: Option<String>,
    /// Render this section in full (dot path); repeatable.
    #[arg(long = "expand", value_name = "KEY")]
    pub expand: Vec<String>,
    /// Render this section as its summary (dot path); repeatable.
    #[arg(long = "summarize", value_name = "KEY")]
    pub summarize: Vec<String>,
    #[command(flatten)]
    pub view: ViewFlags,
}

/// How a prompt file is shown to the model: the disclosure mode and what summaries and
/// catalogs offer (for every subcommand that renders or runs one).
#[derive(Debug, Args)]
pub struct ViewFlags {
    /// Disclosure mode: unified, wink, open-sections or context-files (default: the file's),
    /// or expanded: every summarized section rendered in full (no disclosure).
    #[arg(long, value_name = "MODE")]
    pub disclosure: Option<String>,
    /// Name the tools each summarized section hides in its summary (true or false; the flag
    /// alone means true; default: the file's `name_hidden_tools`, else false).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub name_hidden_tools: Option<bool>,
    /// When the builtin `search_sections` tool is offered: auto (once summaries hide 12 sections
    /// or more), on (while anything is summarized) or off. Default: the file's `search_sections`.
    #[arg(long, value_name = "WHEN")]
    pub search_sections: Option<String>,
    /// Tool catalogs: when to list the tools one line each with tool.describe/find_tool instead
    /// of offering them in full — auto (full when their schemas fit in 10% of the model's context
    /// window), auto:N (N%), always or never. Default: each catalog section's `defer`.
    #[arg(long, value_name = "POLICY")]
    pub defer: Option<String>,
    /// MCP servers that ask the user for input during a tool call (elicitation): ask (a form on
    /// stderr, answers from stdin) or decline. Default: ask on a terminal, decline otherwise.
    #[arg(long, value_name = "POLICY", value_parser = ["ask", "decline"])]
    pub elicitation: Option<String>,
}

/// Pre-opening, for the subcommands that run a prompt with a model (`wink run`, `wink eval`).
#[derive(Debug, Args)]
pub struct PreopenFlags {
    /// Open the K summarized sections most relevant to the input (BM25 over summaries, bodies and
    /// the tools they hide; no model call) before the first model call. Default: the prompt file's
    /// `preopen`, else the model profile's outside wink mode (small-local: up to 3, those scoring
    /// at least 60% of the best; others: none); 0 turns it off.
    #[arg(long, value_name = "K")]
    pub preopen: Option<usize>,
    /// How pre-opened sections reach the model: `render` (in full in the system prompt, their
    /// tools offered from the first call) or `call` (unified mode: as the model's own first turn,
    /// one read_section call per section run before the first model call, so the system prompt
    /// stays the same for every input and a prefix cache serves it).
    #[arg(long, value_name = "STYLE", default_value = "render", value_parser = ["render", "call"])]
    pub preopen_style: String,
}

impl PreopenFlags {
    /// `--preopen-style` as the loop takes it.
    pub fn style(&self) -> anyhow::Result<wink_agent::preopen::PreopenStyle> {
        self.preopen_style
            .parse()
            .map_err(|e| usage(format!("--preopen-style: {e}")))
    }
}

impl ViewFlags {
    /// `spec` with these flags' choices.
    pub fn apply(&self, spec: PromptSpec) -> PromptSpec {
        PromptSpec {
            disclosure: self.disclosure.clone(),
            name_hidden_tools: self.name_hidden_tools,
            search_sections: self.search_sections.clone(),
            defer: self.defer.clone(),
            elicitation: self.elicitation.clone(),
            ..spec
        }
    }
}

impl PromptArgs {
    /// The prompt spec these flags describe.
    pub fn spec(&self) -> anyhow::Result<PromptSpec> {
        Ok(self.view.apply(PromptSpec {
            params: self
                .params
                .as_deref()
                .map(PromptSpec::params_json)
                .transpose()
                .map_err(run_error)?,
            expand: self.expand.clone(),
            summarize: self.summarize.clone(),
            ..PromptSpec::file(&self.file)
        }))
    }

    /// Load the file, bind params and apply overrides. Every problem is a usage error.
    pub fn prepare(&self) -> anyhow::Result<PreparedPrompt> {
        self.spec()?.load_in(Session::new()).map_err(run_error)
    }
}

/// A `wink_run` error as the CLI reports it: usage errors exit 2, others 1.
pub fn run_error(error: RunError) -> anyhow::Error {
    match error {
        RunError::ModelMissing { path, small } => usage(format!(
            "the local model is missing at {}; run `wink model fetch{}` (or pass --yes to fetch it now)",
            path.display(),
            if small { " --small" } else { "" }
        )),
        e if e.is_usage() => usage(e.to_string()),
        e => anyhow::Error::new(e),
    }
}

/// Flags that choose and shape the model, for the subcommands that run prompts against one
/// (`wink run`, `wink eval`, `wink worker`).
#[derive(Debug, Args)]
pub struct ModelFlags {
    /// The model: local (default: the embedded Qwen2.5-Coder-1.5B), local:0.5b, local:PATH,
    /// openai:MODEL, openai-responses:MODEL, anthropic:MODEL, litellm:MODEL,
    /// openai-compat:MODEL (with --base-url), claude-cli[:MODEL] (the `claude` CLI), scripted:PATH.
    #[arg(long, value_name = "SPEC", default_value = "local")]
    pub model: String,
    /// Fetch the local model without asking when it is missing.
    #[arg(long)]
    pub yes: bool,
    /// Local model: do not reuse the KV cache between calls (for benchmarks).
    #[arg(long)]
    pub no_prefix_cache: bool,
    /// The model profile to run with: small-local, hosted or default (default: the prompt
    /// file's `model_profile`, else the one the model's adapter chooses from its name). It picks
    /// the turn policies, the answer tool, how the embedded model writes calls, and the pre-open
    /// default.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Switch off one turn policy of the profile (repeatable): empty-answer, described-answer,
    /// follow-up, disclosure-echo, named-tool, narration, procedure, ungrounded.
    #[arg(long = "no-repair", value_name = "RULE")]
    pub no_repair: Vec<String>,
    /// Switch off every turn policy (the model's turns are taken as they come).
    #[arg(long)]
    pub no_call_repair: bool,
    /// Do not offer a `final_answer` tool whose call gives the answer (offered once a tool has
    /// returned when the profile says so: small models end a task more often by a call than by
    /// text).
    #[arg(long)]
    pub no_answer_tool: bool,
    /// Local model: how its own tool calls are written into later prompts: canonical (the chat
    /// template's form, the prompt tokenized afresh; the default) or verbatim (exactly as
    /// generated, the generated tokens kept in the KV cache). With the default `--call-form
    /// template` the model generates the canonical form, so both continue the cache.
    #[arg(long, value_name = "FORM", default_value = "canonical", value_parser = ["canonical", "verbatim"])]
    pub call_write_back: String,
    /// Local model: how it may write a tool call: template (exactly the chat template's
    /// `<tool_call>` form, a fenced or bare call steered into it, so a call written back needs no
    /// evaluating again) or any (a `<tool_call>` block, a ```json fence or a bare object, any JSON
    /// spacing). Default: the profile's (template for the models measured with it).
    #[arg(long, value_name = "FORM", value_parser = ["template", "any"])]
    pub call_form: Option<String>,
    /// Threads for the local model (default: all cores).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// The model's context window in tokens (default: what the provider reports; the embedded
    /// model is loaded with this window, default 8192). A request estimated not to fit is not
    /// sent: the run stops with a message.
    #[arg(long, value_name = "TOKENS", value_parser = context_size)]
    pub context_size: Option<u64>,
    /// Base URL for HTTP providers.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// HTTP providers: read the API key from this environment variable instead of the
    /// provider's own (OPENAI_API_KEY, ANTHROPIC_API_KEY, LITELLM_API_KEY,
    /// OPENAI_COMPAT_API_KEY). Keys are never taken on the command line.
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// litellm:MODEL only: the proxy's wire format, openai (Chat Completions, the default) or
    /// anthropic (Messages, /v1/messages).
    #[arg(long, value_name = "FORMAT", value_parser = ["openai", "anthropic"])]
    pub litellm_format: Option<String>,
    /// Retries for HTTP providers (429, 5xx, connection errors).
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// Make the adapter report no dynamic tool support (forces the restart path).
    #[arg(long)]
    pub no_dynamic_tools: bool,
}

/// A budget flag (`--max-model-calls`, ...): a number, or `0` / `none` for unlimited.
pub fn parse_limit(text: &str) -> Result<wink_run::settings::Limit, String> {
    text.parse()
}

/// `--context-size`: a positive number of tokens.
fn context_size(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("the context window must be at least 1 token".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{text}' is not a number of tokens")),
    }
}

impl ModelFlags {
    /// The adapter options these flags ask for.
    pub fn options(&self, stream: bool, verbose: bool) -> ModelOptions {
        ModelOptions {
            base_url: self.base_url.clone(),
            no_dynamic_tools: self.no_dynamic_tools,
            stream,
            max_retries: self.max_retries,
            api_key_env: self.api_key_env.clone(),
            litellm_format: self
                .litellm_format
                .as_deref()
                .map(wink_run::model::litellm_format),
            deferred_tools: None,
            context_window: self.context_size,
            profile: self.profile.clone(),
            local: LocalOptions {
                verbose,
                threads: self.threads,
                no_prefix_cache: self.no_prefix_cache,
                call_write_back: match self.call_write_back.as_str() {
                    "verbatim" => CallWriteBack::Verbatim,
                    _ => CallWriteBack::Canonical,
                },
                call_form: self.call_form.as_deref().map(|form| match form {
                    "any" => CallForm::Any,
                    _ => CallForm::Template,
                }),
            },
        }
    }

    /// `settings` with the profile, turn policies and answer tool these flags ask for.
    pub fn turn_settings(&self, mut settings: RunSettings) -> RunSettings {
        settings.profile.clone_from(&self.profile);
        if self.no_call_repair {
            for name in wink_agent::profile::ALL_TURN_POLICIES {
                settings.repairs.insert(name.to_owned(), false);
            }
        }
        for name in &self.no_repair {
            settings.repairs.insert(name.clone(), false);
        }
        if self.no_answer_tool {
            settings.answer_tool = Some(false);
        }
        settings
    }

    /// Runs `build` (which builds this model); when the embedded model is not downloaded yet,
    /// fetches it first if the user agrees (`--yes`, CI, or a yes on the terminal) and builds
    /// again.
    pub fn with_model_fetch<T>(
        &self,
        build: impl Fn() -> Result<T, RunError>,
    ) -> anyhow::Result<T> {
        super::local_model::with_model_fetch(self.yes, build)
    }
}
