//! `--model SPEC`: the provider adapter a run uses, built from a spec string such as `local`,
//! `local:0.5b`, `openai:gpt-4.1`, `openai-compat:qwen` or `scripted:turns.json`.

use std::path::PathBuf;
use std::sync::Arc;

use wink_agent::{ProviderAdapter, ScriptedProvider};
use wink_core::PromptTemplate;
#[cfg(feature = "local")]
use wink_model::profile::profile_named;
use wink_providers::{DeferredTools, WireFormat};
use wink_session::Session;

use crate::error::{Result, RunError};

/// The specs `--model` takes, for error messages.
pub const KNOWN_SPECS: &str = "local[:PATH], scripted:PATH, claude-cli[:MODEL], openai:MODEL, openai-responses:MODEL, anthropic:MODEL, litellm:MODEL, openai-compat:MODEL";

/// Options that shape the adapter.
#[derive(Debug, Clone, Default)]
pub struct ModelOptions {
    /// Base URL for HTTP providers.
    pub base_url: Option<String>,
    /// Make the adapter report no dynamic tool support (forces the restart path).
    pub no_dynamic_tools: bool,
    /// Stream responses.
    pub stream: bool,
    /// Retries for HTTP providers.
    pub max_retries: Option<u32>,
    /// The environment variable holding the API key (HTTP providers).
    pub api_key_env: Option<String>,
    /// litellm only: the proxy's wire format.
    pub litellm_format: Option<WireFormat>,
    /// The catalog's tools to send deferred (native tool search).
    pub deferred_tools: Option<DeferredTools>,
    /// The model's context window in tokens (`None`: what the provider reports; the embedded
    /// model is loaded with it).
    pub context_window: Option<u64>,
    /// The model profile the run names (`--profile`), which decides how the embedded model
    /// writes calls unless `local.call_form` does.
    pub profile: Option<String>,
    /// Embedded-model options.
    pub local: LocalOptions,
}

/// Options of the embedded model.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalOptions {
    /// Print speed per call to stderr.
    pub verbose: bool,
    /// Threads (0 = all cores).
    pub threads: usize,
    /// Re-evaluate the whole prompt on every call (benchmarks the KV-cache reuse).
    pub no_prefix_cache: bool,
    /// How the model's tool calls are written into later prompts.
    #[cfg(feature = "local")]
    pub call_write_back: wink_local::CallWriteBack,
    /// How the model may write a tool call (`None`: as its profile says).
    #[cfg(feature = "local")]
    pub call_form: Option<wink_local::CallForm>,
}

impl ModelOptions {
    /// The first option set that only HTTP providers take, as its flag.
    fn http_only_flag(&self) -> Option<&'static str> {
        [
            ("--base-url", self.base_url.is_some()),
            ("--api-key-env", self.api_key_env.is_some()),
            ("--litellm-format", self.litellm_format.is_some()),
            ("--native-tool-search", self.deferred_tools.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, set)| set.then_some(flag))
    }
}

/// `litellm-format` by name: `anthropic` (Messages) or anything else (Chat Completions).
#[must_use]
pub fn litellm_format(name: &str) -> WireFormat {
    if name == "anthropic" {
        WireFormat::AnthropicMessages
    } else {
        WireFormat::OpenAiChat
    }
}

/// Refuses native tool search for a model without a native deferred-tool mode.
///
/// # Errors
/// [`RunError::Usage`] naming the providers that have one.
pub fn check_native_tool_search(spec: &str, requested: bool) -> Result<()> {
    if requested && !wink_providers::supports_native_tool_search(spec) {
        return Err(RunError::usage(format!(
            "--native-tool-search needs a provider with native tool search ({}), not '{spec}'",
            wink_providers::NATIVE_TOOL_SEARCH_PROVIDERS
                .map(|provider| format!("{provider}:MODEL"))
                .join(", ")
        )));
    }
    Ok(())
}

/// Sets the session's native catalog mode to `requested` and, when on, names the tools the
/// adapter sends deferred: every tool of the template's catalog sections, loaded by `find_tool`.
///
/// # Errors
/// [`RunError::Usage`] when native search is requested for a prompt without a catalog.
pub fn native_tool_search(
    requested: bool,
    template: &PromptTemplate,
    session: &Session,
) -> Result<Option<DeferredTools>> {
    let deferred = if requested {
        let tools = wink_catalog::native_search_tools(template);
        if tools.is_empty() {
            return Err(RunError::usage(
                "--native-tool-search: the prompt has no tool catalog section (builtin: catalog) with tools",
            ));
        }
        Some(DeferredTools::new(tools, wink_catalog::FIND_TOOL))
    } else {
        None
    };
    // A resumed session keeps the mode it was last run with unless told otherwise.
    if wink_catalog::native_search_enabled(session) != requested {
        session.dispatch(wink_catalog::CatalogNativeSearch { enabled: requested });
    }
    Ok(deferred)
}

/// Builds the adapter for `spec` the way every prompt-running command does: refuses native
/// tool search where the provider has none, records the catalog mode in the session and names
/// the catalog tools to send deferred, then constructs the adapter (loading a local model once:
/// reuse the adapter for every run that should share it).
///
/// # Errors
/// As [`adapter`] and [`native_tool_search`].
pub fn build_model(
    spec: &str,
    mut options: ModelOptions,
    native: bool,
    template: &PromptTemplate,
    session: &Session,
) -> Result<Arc<dyn ProviderAdapter>> {
    check_native_tool_search(spec, native)?;
    options.deferred_tools = native_tool_search(native, template, session)?;
    adapter(spec, &options)
}

/// Build the adapter named by `spec`.
///
/// # Errors
/// [`RunError::Usage`] for an unknown provider, a missing script or model file, or an option
/// the provider does not take; [`RunError::ModelMissing`] when the embedded model is not
/// downloaded yet.
pub fn adapter(spec: &str, options: &ModelOptions) -> Result<Arc<dyn ProviderAdapter>> {
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let refuse_http_flags = |what: &str| match options.http_only_flag() {
        Some(flag) => Err(RunError::usage(format!(
            "{flag} applies to HTTP providers, not to {what}"
        ))),
        None => Ok(()),
    };
    match kind {
        "local" => {
            refuse_http_flags("the local model")?;
            local_adapter(rest, options)
        }
        "claude-cli" => {
            refuse_http_flags("claude-cli")?;
            let config = wink_providers::ClaudeCliConfig {
                model: (!rest.is_empty()).then(|| rest.to_owned()),
                ..wink_providers::ClaudeCliConfig::default()
            };
            let adapter = wink_providers::ClaudeCliAdapter::new(config)
                .map_err(|e| RunError::usage(format!("--model {spec}: {}", e.message)))?;
            Ok(Arc::new(adapter))
        }
        "scripted" => {
            if rest.is_empty() {
                return Err(RunError::usage(
                    "--model scripted:PATH needs the path of a script file",
                ));
            }
            refuse_http_flags("scripted:PATH")?;
            let provider = ScriptedProvider::from_file(&PathBuf::from(rest))
                .map_err(|e| RunError::usage(e.to_string()))?;
            Ok(Arc::new(
                provider.with_dynamic_tools(!options.no_dynamic_tools),
            ))
        }
        "openai" | "openai-responses" | "anthropic" | "litellm" | "openai-compat" => {
            if options.litellm_format.is_some() && kind != "litellm" {
                return Err(RunError::usage(format!(
                    "--litellm-format applies to litellm:MODEL only, not to '{spec}'"
                )));
            }
            let adapter_options = wink_providers::AdapterOptions {
                base_url: options.base_url.clone(),
                api_key_env: options.api_key_env.clone(),
                stream: options.stream,
                no_dynamic_tools: options.no_dynamic_tools,
                max_retries: options.max_retries,
                litellm_format: options.litellm_format,
                deferred_tools: options.deferred_tools.clone(),
                context_window: options.context_window,
                ..wink_providers::AdapterOptions::default()
            };
            wink_providers::adapter_from_spec(spec, &adapter_options)
                .map_err(|e| RunError::usage(format!("--model {spec}: {}", e.message)))
        }
        other => Err(RunError::usage(format!(
            "--model: unknown provider '{other}' in '{spec}' (known: {KNOWN_SPECS})"
        ))),
    }
}

/// `local`, `local:1.5b`, `local:0.5b` or `local:PATH`.
#[cfg(feature = "local")]
fn local_adapter(rest: &str, options: &ModelOptions) -> Result<Arc<dyn ProviderAdapter>> {
    use wink_local::{LocalAdapter, LocalModelConfig, ModelChoice};
    let path = match rest {
        "" | "1.5b" => downloaded(ModelChoice::Qwen15B)?,
        "0.5b" | "small" => downloaded(ModelChoice::Qwen05B)?,
        path => {
            let p = PathBuf::from(path);
            if !p.is_file() {
                return Err(RunError::usage(format!(
                    "--model local:{path}: no such model file"
                )));
            }
            p
        }
    };
    let local = &options.local;
    let mut config = LocalModelConfig::default();
    if local.threads > 0 {
        config.threads = local.threads;
    }
    config.reuse_prefix = !local.no_prefix_cache;
    config.call_write_back = local.call_write_back;
    config.call_form = local.call_form.or_else(|| {
        let profile = options
            .profile
            .as_deref()
            .and_then(|n| profile_named(n).ok())?;
        Some(if profile.template_calls {
            wink_local::CallForm::Template
        } else {
            wink_local::CallForm::Any
        })
    });
    if let Some(size) = options.context_window {
        config.context_size = u32::try_from(size).unwrap_or(u32::MAX);
    }
    let adapter = LocalAdapter::load(&path, config)
        .map_err(|e| RunError::usage(format!("--model local: {e}")))?;
    Ok(Arc::new(adapter.verbose(local.verbose)))
}

#[cfg(not(feature = "local"))]
fn local_adapter(_rest: &str, _options: &ModelOptions) -> Result<Arc<dyn ProviderAdapter>> {
    Err(RunError::usage(
        "--model local: this build has no embedded model (the `local` feature of wink-run)",
    ))
}

/// The path of a default model, or [`RunError::ModelMissing`] when it is not downloaded.
#[cfg(feature = "local")]
fn downloaded(which: wink_local::ModelChoice) -> Result<PathBuf> {
    let path = wink_local::model_path(which, &wink_local::default_cache_dir());
    if path.is_file() {
        Ok(path)
    } else {
        Err(RunError::ModelMissing {
            path,
            small: which == wink_local::ModelChoice::Qwen05B,
        })
    }
}
