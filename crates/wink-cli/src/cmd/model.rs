//! `--model SPEC`: which provider adapter a run uses.

use std::path::PathBuf;
use std::sync::Arc;

use wink_agent::{ProviderAdapter, ScriptedProvider};

use crate::exit::usage;

/// Options that shape the adapter.
#[derive(Debug, Clone, Default)]
pub struct ModelOptions {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--no-dynamic-tools`.
    pub no_dynamic_tools: bool,
    /// Stream responses (when printing to a terminal).
    pub stream: bool,
    /// `--max-retries`.
    pub max_retries: Option<u32>,
    /// Local-model options.
    pub local: super::local_model::LocalOptions,
}

/// Build the adapter named by `spec`.
pub fn adapter(spec: &str, options: &ModelOptions) -> anyhow::Result<Arc<dyn ProviderAdapter>> {
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    match kind {
        "local" => {
            if options.base_url.is_some() {
                return Err(usage(
                    "--base-url applies to HTTP providers, not to the local model",
                ));
            }
            super::local_model::adapter(rest, options.local)
        }
        "claude-cli" => {
            if options.base_url.is_some() {
                return Err(usage(
                    "--base-url applies to HTTP providers, not to claude-cli",
                ));
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
            if options.base_url.is_some() {
                return Err(usage(
                    "--base-url applies to HTTP providers, not to scripted:PATH",
                ));
            }
            let provider = ScriptedProvider::from_file(&PathBuf::from(rest))
                .map_err(|e| usage(e.to_string()))?;
            Ok(Arc::new(
                provider.with_dynamic_tools(!options.no_dynamic_tools),
            ))
        }
        "openai" | "openai-responses" | "anthropic" | "litellm" | "openai-compat" => {
            let adapter_options = wink_providers::AdapterOptions {
                base_url: options.base_url.clone(),
                stream: options.stream,
                no_dynamic_tools: options.no_dynamic_tools,
                max_retries: options.max_retries,
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
