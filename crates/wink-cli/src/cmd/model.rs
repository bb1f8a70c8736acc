//! `--model SPEC`: which provider adapter a run uses.

use std::path::PathBuf;
use std::sync::Arc;

use wink_agent::{ProviderAdapter, ScriptedProvider};
use wink_core::PromptTemplate;
use wink_providers::{DeferredTools, WireFormat};
use wink_session::Session;

use crate::exit::usage;

/// Options that shape the adapter.
#[derive(Debug, Clone, Default)]
pub struct ModelOptions {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--no-dynamic-tools`.
    pub no_dynamic_tools: bool,
    /// Stream responses (`--stream`, or printing to a terminal).
    pub stream: bool,
    /// `--max-retries`.
    pub max_retries: Option<u32>,
    /// `--api-key-env VAR`: the environment variable holding the key.
    pub api_key_env: Option<String>,
    /// `--litellm-format`.
    pub litellm_format: Option<WireFormat>,
    /// The catalog's tools to send deferred (`--native-tool-search`).
    pub deferred_tools: Option<DeferredTools>,
    /// Local-model options.
    pub local: super::local_model::LocalOptions,
}

impl ModelOptions {
    /// The first flag given that only HTTP providers take.
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

/// `--litellm-format` (clap allows only `openai` and `anthropic`).
pub fn litellm_format(name: &str) -> WireFormat {
    if name == "anthropic" {
        WireFormat::AnthropicMessages
    } else {
        WireFormat::OpenAiChat
    }
}

/// Refuses `--native-tool-search` for a model without a native deferred-tool mode.
pub fn check_native_tool_search(spec: &str, requested: bool) -> anyhow::Result<()> {
    if requested && !wink_providers::supports_native_tool_search(spec) {
        return Err(usage(format!(
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
pub fn native_tool_search(
    requested: bool,
    template: &PromptTemplate,
    session: &Session,
) -> anyhow::Result<Option<DeferredTools>> {
    let deferred = if requested {
        let tools = wink_catalog::native_search_tools(template);
        if tools.is_empty() {
            return Err(usage(
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

/// Build the adapter named by `spec`.
pub fn adapter(spec: &str, options: &ModelOptions) -> anyhow::Result<Arc<dyn ProviderAdapter>> {
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    match kind {
        "local" => {
            if let Some(flag) = options.http_only_flag() {
                return Err(usage(format!(
                    "{flag} applies to HTTP providers, not to the local model"
                )));
            }
            super::local_model::adapter(rest, options.local)
        }
        "claude-cli" => {
            if let Some(flag) = options.http_only_flag() {
                return Err(usage(format!(
                    "{flag} applies to HTTP providers, not to claude-cli"
                )));
            }
            let config = wink_mcp::ClaudeCliConfig {
                model: (!rest.is_empty()).then(|| rest.to_owned()),
                ..wink_mcp::ClaudeCliConfig::default()
            };
            let adapter = wink_mcp::ClaudeCliAdapter::new(config)
                .map_err(|e| usage(format!("--model {spec}: {}", e.message)))?;
            Ok(Arc::new(adapter))
        }
        "scripted" => {
            if rest.is_empty() {
                return Err(usage(
                    "--model scripted:PATH needs the path of a script file",
                ));
            }
            if let Some(flag) = options.http_only_flag() {
                return Err(usage(format!(
                    "{flag} applies to HTTP providers, not to scripted:PATH"
                )));
            }
            let provider = ScriptedProvider::from_file(&PathBuf::from(rest))
                .map_err(|e| usage(e.to_string()))?;
            Ok(Arc::new(
                provider.with_dynamic_tools(!options.no_dynamic_tools),
            ))
        }
        "openai" | "openai-responses" | "anthropic" | "litellm" | "openai-compat" => {
            if options.litellm_format.is_some() && kind != "litellm" {
                return Err(usage(format!(
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
                context_window: options.local.context_size.map(u64::from),
                ..wink_providers::AdapterOptions::default()
            };
            wink_providers::adapter_from_spec(spec, &adapter_options)
                .map_err(|e| usage(format!("--model {spec}: {}", e.message)))
        }
        other => Err(usage(format!(
            "--model: unknown provider '{other}' in '{spec}' (known: local[:PATH], scripted:PATH, claude-cli[:MODEL], openai:MODEL, openai-responses:MODEL, anthropic:MODEL, litellm:MODEL, openai-compat:MODEL)"
        ))),
    }
}
