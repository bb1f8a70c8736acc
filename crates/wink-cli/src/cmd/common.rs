//! Options shared by the subcommands that take a prompt file.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use serde_json::{Map, Value};
use wink_core::{DisclosureMode, Prompt, PromptTemplate, SectionPath, SectionVisibility};
use wink_local::{CallForm, CallWriteBack};
use wink_promptfile::LoadedPrompt;
use wink_session::{Session, SetVisibilityOverride};

use super::local_model::LocalOptions;
use super::model::{self, ModelOptions};
use crate::exit::usage;

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
    /// Disclosure mode: unified, wink, open-sections or context-files (default: the file's).
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
}

/// The context window deferral decisions assume when the model's is unknown: the embedded
/// model's default window.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 8192;

/// A prompt ready to render, with the session holding the requested overrides.
#[derive(Debug)]
pub struct PreparedPrompt {
    pub loaded: LoadedPrompt,
    pub prompt: Prompt,
    pub session: Session,
    pub resources: wink_core::Resources,
    /// `--defer`.
    pub defer: Option<wink_catalog::DeferPolicy>,
    /// Each catalog section's deferral decision: (section path, decision).
    pub decisions: Vec<(String, wink_catalog::DeferDecision)>,
}

impl PreparedPrompt {
    /// Decides, for a model with `context_window` tokens, which catalog sections are deferred
    /// (`--defer` overrides each section's policy).
    pub fn decide_catalogs(&mut self, context_window: u64) -> anyhow::Result<()> {
        self.decisions.clear();
        for section in &self.loaded.catalogs {
            let decision = match self.defer {
                Some(policy) => section.redecide(policy, context_window),
                None => section.decide(context_window),
            }
            .map_err(|e| usage(format!("{}: {e}", section.path().dotted())))?;
            self.decisions.push((section.path().dotted(), decision));
        }
        Ok(())
    }
}

impl PromptArgs {
    /// Load the file, bind params and apply overrides. Every problem is a usage error.
    pub fn prepare(&self) -> anyhow::Result<PreparedPrompt> {
        self.prepare_in(Session::new())
    }

    /// As [`PromptArgs::prepare`], applying the overrides to an existing session.
    pub fn prepare_in(&self, session: Session) -> anyhow::Result<PreparedPrompt> {
        register_run_events(&session);
        let defer = match &self.defer {
            None => None,
            Some(text) => Some(
                text.parse::<wink_catalog::DeferPolicy>()
                    .map_err(|e| usage(format!("--defer: {e}")))?,
            ),
        };
        let mut loaded = wink_promptfile::load(&self.file).map_err(|e| usage(e.to_string()))?;
        if let Some(mode) = &self.disclosure {
            let mode: DisclosureMode = mode
                .parse()
                .map_err(|e: String| usage(format!("--disclosure: {e}")))?;
            loaded.template = Arc::new(loaded.template.with_disclosure(mode));
        }
        if let Some(on) = self.name_hidden_tools {
            loaded.template = Arc::new(loaded.template.with_hidden_tool_names(on));
        }
        if let Some(when) = &self.search_sections {
            let setting: wink_core::SearchSections = when
                .parse()
                .map_err(|e: String| usage(format!("--search-sections: {e}")))?;
            loaded.template = Arc::new(loaded.template.with_search_sections(setting));
        }
        let params = match &self.params {
            None => Map::new(),
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => {
                    return Err(usage(
                        "--params: expected a JSON object mapping params type names to field values",
                    ));
                }
                Err(e) => return Err(usage(format!("--params: invalid JSON: {e}"))),
            },
        };
        for (name, value) in &params {
            if loaded.template.params_type_named(name).is_none() {
                return Err(usage(format!(
                    "--params: unknown params type '{name}' (declared: {})",
                    declared_types(&loaded.template)
                )));
            }
            if !value.is_object() {
                return Err(usage(format!(
                    "--params: the value for '{name}' must be a JSON object of fields"
                )));
            }
        }
        for (keys, visibility, flag) in [
            (&self.expand, SectionVisibility::Full, "--expand"),
            (&self.summarize, SectionVisibility::Summary, "--summarize"),
        ] {
            for key in keys {
                let node = loaded.template.find_section(key).ok_or_else(|| {
                    usage(format!(
                        "{flag}: unknown section key '{key}' (known: {})",
                        known_keys(&loaded.template)
                    ))
                })?;
                if visibility == SectionVisibility::Summary && node.section.summary().is_none() {
                    return Err(usage(format!("{flag}: section '{key}' has no summary")));
                }
                let path: SectionPath = node.path.clone();
                session.dispatch(SetVisibilityOverride { path, visibility });
            }
        }
        let prompt = Prompt::new(loaded.template.clone()).bind_all_json(&params);
        let mut resources = wink_core::Resources::new();
        if let Some(fs) = &loaded.filesystem {
            resources = resources.with::<Arc<dyn wink_fs::Filesystem>>(fs.clone());
        }
        let mut prepared = PreparedPrompt {
            loaded,
            prompt,
            session,
            resources,
            defer,
            decisions: Vec::new(),
        };
        prepared.decide_catalogs(DEFAULT_CONTEXT_WINDOW)?;
        Ok(prepared)
    }
}

/// Leaves the prompt's section tree (and `rendered`) allocated when a one-shot command ends: the
/// process exits right after, and freeing a tree of thousands of sections one allocation at a
/// time cost about as much as building it (issue 22). Everything else `prepared` holds (MCP
/// servers, the session) is dropped as usual.
pub fn keep_until_exit<T>(prepared: &PreparedPrompt, rendered: T) {
    std::mem::forget(Arc::clone(&prepared.loaded.template));
    std::mem::forget(rendered);
}

fn declared_types(template: &PromptTemplate) -> String {
    let names: Vec<&str> = template.params_types().iter().map(|t| t.name()).collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

fn known_keys(template: &PromptTemplate) -> String {
    template
        .nodes()
        .iter()
        .map(|n| n.path.dotted())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Flags that choose and shape the model, for the subcommands that run prompts against one
/// (`wink run`, `wink eval`).
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
    /// Local model: keep a free answer that names a tool it has not called yet, instead of
    /// generating that turn again as a call of the tool (call-intent repair, on by default).
    #[arg(long)]
    pub no_call_repair: bool,
    /// Local model: do not list a `final_answer` tool whose call gives the answer (listed after
    /// the prompt's tools by default: small models end a task more often by a call than by text).
    #[arg(long)]
    pub no_answer_tool: bool,
    /// Local model: how its own tool calls are written into later prompts: canonical (the chat
    /// template's form, the prompt tokenized afresh; the default) or verbatim (exactly as
    /// generated, the generated tokens kept in the KV cache). With the default `--call-form
    /// template` the model generates the canonical form, so both continue the cache.
    #[arg(long, value_name = "FORM", default_value = "canonical", value_parser = ["canonical", "verbatim"])]
    pub call_write_back: String,
    /// Local model: how it may write a tool call: template (exactly the chat template's
    /// `<tool_call>` form, a fenced or bare call steered into it; the default, so a call
    /// written back needs no evaluating again) or any (a `<tool_call>` block, a ```json fence
    /// or a bare object, any JSON spacing).
    #[arg(long, value_name = "FORM", default_value = "template", value_parser = ["template", "any"])]
    pub call_form: String,
    /// Threads for the local model (default: all cores).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// The model's context window in tokens (default: what the provider reports; the embedded
    /// model is loaded with this window, default 8192). A request estimated not to fit is not
    /// sent: the run stops with a message.
    #[arg(long, value_name = "TOKENS")]
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

impl ModelFlags {
    /// The adapter options these flags ask for.
    pub fn options(&self, stream: bool, verbose: bool) -> ModelOptions {
        ModelOptions {
            base_url: self.base_url.clone(),
            no_dynamic_tools: self.no_dynamic_tools,
            stream,
            max_retries: self.max_retries,
            api_key_env: self.api_key_env.clone(),
            litellm_format: self.litellm_format.as_deref().map(model::litellm_format),
            deferred_tools: None,
            local: LocalOptions {
                yes: self.yes,
                verbose,
                threads: self.threads,
                no_prefix_cache: self.no_prefix_cache,
                no_call_repair: self.no_call_repair,
                no_answer_tool: self.no_answer_tool,
                call_write_back: match self.call_write_back.as_str() {
                    "verbatim" => CallWriteBack::Verbatim,
                    _ => CallWriteBack::Canonical,
                },
                call_form: match self.call_form.as_str() {
                    "any" => CallForm::Any,
                    _ => CallForm::Template,
                },
                context_size: self.context_size.map(local_context_size),
            },
        }
    }
}

/// Builds the adapter for `spec` the way every prompt-running subcommand does: refuses
/// `--native-tool-search` where the provider has none, records the catalog mode in the session
/// and names the catalog tools to send deferred, then constructs the adapter (loading a local
/// model once: reuse the adapter for every run that should share it).
pub fn build_model(
    spec: &str,
    mut options: ModelOptions,
    native_tool_search: bool,
    template: &PromptTemplate,
    session: &Session,
) -> anyhow::Result<Arc<dyn wink_agent::ProviderAdapter>> {
    model::check_native_tool_search(spec, native_tool_search)?;
    options.deferred_tools = model::native_tool_search(native_tool_search, template, session)?;
    model::adapter(spec, &options)
}

/// Most sections pre-opened for the embedded model when neither `--preopen` nor the prompt file's
/// `preopen` says (after the most relevant one, only those about as relevant: see
/// [`wink_agent::preopen::RELATIVE_SCORE`]). Small models rarely call `read_section` on their own:
/// measured on the 1.5B model over `bench/eval` (33 tasks), pre-opening the one most relevant
/// section raised the pass rate from 27% to 48%; ranking on section bodies with up to three
/// sections is measured in the README. HTTP providers get none by default.
pub const LOCAL_DEFAULT_PREOPEN: usize = 3;

/// How many sections to pre-open: `--preopen`, else the prompt file's `preopen`, else
/// [`LOCAL_DEFAULT_PREOPEN`] for the embedded model (`local`, `local:…`) outside `wink` mode
/// (which keeps WINK v0.17's conversation), else none. `--preopen 0` turns it off.
pub fn effective_preopen(
    flag: Option<usize>,
    file: Option<usize>,
    model_spec: &str,
    mode: wink_core::DisclosureMode,
) -> Option<usize> {
    let local = model_spec == "local" || model_spec.starts_with("local:");
    flag.or(file).or_else(|| {
        (local && mode != wink_core::DisclosureMode::Wink).then_some(LOCAL_DEFAULT_PREOPEN)
    })
}

/// `--preopen K`: opens the `k` summarized sections most relevant to `input` (or, without input,
/// to the prompt's fully rendered sections) before the first model call, in `--preopen-style`
/// `style` (`render` or `call`), keeping the prompt within half the model's context `window`
/// when it is known. Returns the keys opened and, in the `call` style, the calls to run first
/// ([`wink_agent::MainLoopConfig::opening_calls`]).
pub fn preopen(
    prepared: &PreparedPrompt,
    input: Option<&str>,
    k: usize,
    style: &str,
    window: Option<u64>,
) -> anyhow::Result<wink_agent::preopen::Preopened> {
    let style: wink_agent::preopen::PreopenStyle = style
        .parse()
        .map_err(|e| usage(format!("--preopen-style: {e}")))?;
    let mut preopened = wink_agent::preopen::apply_within(
        &prepared.prompt,
        &prepared.session,
        input.unwrap_or_default(),
        k,
        style,
        window.map(|w| w / 2),
    )
    .map_err(|e| usage(format!("--preopen: {e}")))?;
    if let Some(call) = catalog_opening_call(prepared, input.unwrap_or_default(), k)? {
        preopened.calls.push(call);
    }
    Ok(preopened)
}

/// Pre-opening in a deferred tool catalog: a `tool.describe` call, run before the first model
/// call, of the catalog tools that best match `input` ([`wink_catalog::ToolCatalogSection::best_matches`],
/// at most `k`), so they are callable from the first call with their full specifications in the
/// conversation. None without input, without a deferred catalog whose `tool.describe` the
/// render offers, or when nothing matches. Measured on the 1.5B model over `bench/eval`'s
/// catalog: asked to count the vowels in a word, it described and called `text.word_count`
/// itself.
pub fn catalog_opening_call(
    prepared: &PreparedPrompt,
    input: &str,
    k: usize,
) -> anyhow::Result<Option<wink_core::ToolCall>> {
    if input.trim().is_empty() || k == 0 {
        return Ok(None);
    }
    let rendered = prepared
        .prompt
        .render_with(&prepared.session)
        .map_err(|e| usage(format!("--preopen: {e}")))?;
    if !rendered.tool_names().contains(&wink_catalog::TOOL_DESCRIBE) {
        return Ok(None);
    }
    let mut names = Vec::new();
    for section in &prepared.loaded.catalogs {
        let deferred = section
            .decision()
            .is_none_or(|decision| decision.decision == "deferred");
        if !deferred {
            continue;
        }
        let activated = section.activated(&prepared.session);
        names.extend(
            section
                .best_matches(input, k)
                .into_iter()
                .filter(|name| !activated.contains(name)),
        );
    }
    if names.is_empty() {
        return Ok(None);
    }
    Ok(Some(wink_core::ToolCall {
        id: "preopen_describe".to_owned(),
        name: wink_catalog::TOOL_DESCRIBE.to_owned(),
        arguments: wink_core::ToolArguments::Json(serde_json::json!({ "names": names })),
    }))
}

/// `--context-size` for the embedded model, which takes a 32-bit window.
pub fn local_context_size(tokens: u64) -> u32 {
    u32::try_from(tokens).unwrap_or(u32::MAX)
}

/// The longest `--timeout` accepted: one year, in seconds.
pub const MAX_TIMEOUT_SECONDS: f64 = 31_536_000.0;

/// `--timeout` as a duration: a positive number of seconds up to [`MAX_TIMEOUT_SECONDS`].
pub fn timeout_flag(value: Option<f64>) -> anyhow::Result<Option<std::time::Duration>> {
    match value {
        None => Ok(None),
        Some(t) if t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT_SECONDS => {
            Ok(Some(std::time::Duration::from_secs_f64(t)))
        }
        Some(t) => Err(usage(format!(
            "--timeout must be a positive number of seconds up to {MAX_TIMEOUT_SECONDS} (one year), not {t}"
        ))),
    }
}

#[cfg(test)]
mod preopen_default_tests {
    use super::effective_preopen;
    use wink_core::DisclosureMode;

    #[test]
    fn the_embedded_model_pre_opens_one_section_unless_told_otherwise() {
        let unified = DisclosureMode::Unified;
        assert_eq!(effective_preopen(None, None, "local", unified), Some(3));
        assert_eq!(
            effective_preopen(None, None, "local:0.5b", unified),
            Some(3)
        );
        assert_eq!(
            effective_preopen(None, None, "local", DisclosureMode::Wink),
            None
        );
        assert_eq!(
            effective_preopen(None, None, "openai:gpt-4.1", unified),
            None
        );
        assert_eq!(
            effective_preopen(None, None, "scripted:x.json", unified),
            None
        );
        assert_eq!(effective_preopen(Some(0), None, "local", unified), Some(0));
        assert_eq!(effective_preopen(None, Some(2), "local", unified), Some(2));
        assert_eq!(
            effective_preopen(Some(3), Some(2), "openai:m", unified),
            Some(3)
        );
    }
}

/// Registers the event types a run dispatches only once something happens (a catalog tool
/// activated, a sub-agent run), so that a session log or a durable run's stream holding them
/// replays into a fresh session.
pub fn register_run_events(session: &Session) {
    session.register_event::<wink_catalog::CatalogToolsActivated>();
    session.register_event::<wink_catalog::CatalogNativeSearch>();
    session.register_event::<wink_agent::SubagentRun>();
    session.register_event::<wink_agent::SubagentEvent>();
}

#[cfg(test)]
mod tests {
    use super::ModelFlags;
    use clap::Parser;
    use wink_local::{CallForm, CallWriteBack};

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        model: ModelFlags,
    }

    fn local_options(args: &[&str]) -> Result<super::LocalOptions, clap::Error> {
        let flags = Flags::try_parse_from(std::iter::once("wink").chain(args.iter().copied()))?;
        Ok(flags.model.options(false, false).local)
    }

    #[test]
    fn a_prepared_session_replays_the_events_a_run_dispatches_later() {
        // A worker's takeover replays the run's stream into a freshly prepared session: the
        // event types dispatched only once something happens must be known to it.
        let args = super::PromptArgs {
            file: std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/queue/prompt.json"),
            params: Some(r#"{"Task": {"objective": "o"}}"#.into()),
            expand: Vec::new(),
            summarize: Vec::new(),
            disclosure: None,
            name_hidden_tools: None,
            search_sections: None,
            defer: None,
        };
        let prepared = args.prepare_in(wink_session::Session::new()).unwrap();
        use wink_session::Event;
        for name in [
            wink_catalog::CatalogToolsActivated::type_name(),
            wink_catalog::CatalogNativeSearch::type_name(),
            wink_agent::SubagentRun::type_name(),
            wink_agent::SubagentEvent::type_name(),
        ] {
            assert!(prepared.session.is_event_type_registered(name), "{name}");
        }
    }

    #[test]
    fn tool_calls_are_written_back_canonically_unless_asked_for_verbatim() {
        let write_back = |args: &[&str]| local_options(args).unwrap().call_write_back;
        assert_eq!(write_back(&[]), CallWriteBack::Canonical);
        assert_eq!(
            write_back(&["--call-write-back", "canonical"]),
            CallWriteBack::Canonical
        );
        assert_eq!(
            write_back(&["--call-write-back", "verbatim"]),
            CallWriteBack::Verbatim
        );
        let error = local_options(&["--call-write-back", "raw"]).unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("invalid value 'raw' for '--call-write-back <FORM>'")
                && text.contains("[possible values: canonical, verbatim]"),
            "{text}"
        );
    }

    #[test]
    fn tool_calls_take_the_template_form_unless_asked_for_any() {
        let form = |args: &[&str]| local_options(args).unwrap().call_form;
        assert_eq!(form(&[]), CallForm::Template);
        assert_eq!(form(&["--call-form", "template"]), CallForm::Template);
        assert_eq!(form(&["--call-form", "any"]), CallForm::Any);
        let text = local_options(&["--call-form", "fenced"])
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("invalid value 'fenced' for '--call-form <FORM>'")
                && text.contains("[possible values: template, any]"),
            "{text}"
        );
    }

    #[test]
    fn the_answer_tool_is_on_unless_asked_not_to() {
        let off = |args: &[&str]| local_options(args).unwrap().no_answer_tool;
        assert!(!off(&[]));
        assert!(off(&["--no-answer-tool"]));
    }
}
