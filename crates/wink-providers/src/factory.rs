//! Building adapters from `PROVIDER:MODEL` specs (what `wink run --model` takes).

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use wink_model::{ProviderAdapter, ProviderError, ProviderErrorKind};

use crate::adapter::HttpAdapter;
use crate::config::{AdapterConfig, ApiKey, DeferredTools, Timeouts, WireFormat};
use crate::transport::HttpTransport;

/// The providers [`adapter_from_spec`] knows, as written before the `:`.
pub const PROVIDERS: [&str; 5] = [
    "openai",
    "openai-responses",
    "anthropic",
    "litellm",
    "openai-compat",
];

/// The providers with a native tool-catalog fast path ([`DeferredTools`]): Anthropic Messages
/// (`defer_loading` + `tool_reference`) and OpenAI Responses (`defer_loading` + `tool_search`).
/// `litellm` is not among them even in Anthropic format: a proxy may not pass the fields on.
pub const NATIVE_TOOL_SEARCH_PROVIDERS: [&str; 2] = ["anthropic", "openai-responses"];

/// Whether the provider of `spec` (`PROVIDER:MODEL`, or just `PROVIDER`) maps
/// [`AdapterOptions::deferred_tools`] onto the wire; the others ignore it.
pub fn supports_native_tool_search(spec: &str) -> bool {
    let provider = spec.split_once(':').map_or(spec, |(provider, _)| provider);
    NATIVE_TOOL_SEARCH_PROVIDERS.contains(&provider)
}

/// Settings that apply on top of a spec's defaults (CLI flags).
#[derive(Debug, Clone, Default)]
pub struct AdapterOptions {
    /// Base URL (`--base-url`); required for `openai-compat`.
    pub base_url: Option<String>,
    /// API key, instead of the provider's environment variable.
    pub api_key: Option<ApiKey>,
    /// Read the API key from this environment variable instead of the provider's own
    /// (`OPENAI_API_KEY`, ...); it must be set. Ignored when [`AdapterOptions::api_key`] is given.
    pub api_key_env: Option<String>,
    /// Stream responses (SSE).
    pub stream: bool,
    /// Answer `false` to `supports_dynamic_tools` (the loop then restarts on expansions).
    pub no_dynamic_tools: bool,
    /// Timeouts (default: [`Timeouts::default`]).
    pub timeouts: Option<Timeouts>,
    /// Retries after the first attempt (default 2).
    pub max_retries: Option<u32>,
    /// Wire format of a `litellm` proxy: Chat Completions (default) or Anthropic Messages.
    pub litellm_format: Option<WireFormat>,
    /// Native tool-catalog fast path ([`NATIVE_TOOL_SEARCH_PROVIDERS`]; ignored by the others).
    pub deferred_tools: Option<DeferredTools>,
    /// Section tools through native deferral ([`AdapterConfig::section_deferral`];
    /// [`NATIVE_TOOL_SEARCH_PROVIDERS`] only). `None`: on when [`AdapterOptions::deferred_tools`]
    /// is set (the model was declared to support native deferral), off otherwise.
    pub section_deferral: Option<bool>,
    /// The model's context window in tokens (`--context-size`); overrides what the server says.
    pub context_window: Option<u64>,
    /// A client to share (one connection pool for several adapters).
    pub client: Option<reqwest::Client>,
    /// Cancels calls in flight when cancelled.
    pub cancel: Option<CancellationToken>,
}

/// An adapter for `spec` (`openai:MODEL`, `openai-responses:MODEL`, `anthropic:MODEL`,
/// `litellm:MODEL`, `openai-compat:MODEL`), reading keys and base URLs from the environment.
///
/// # Errors
/// [`ProviderErrorKind::Config`] for an unknown provider, an empty model, a missing key
/// (`openai`, `openai-responses`, `anthropic`) or a missing base URL (`openai-compat`).
pub fn adapter_from_spec(
    spec: &str,
    options: &AdapterOptions,
) -> Result<Arc<dyn ProviderAdapter>, ProviderError> {
    adapter_from_spec_with_env(spec, options, &|name| std::env::var(name).ok())
}

/// [`adapter_from_spec`] with the environment given as a lookup function.
///
/// # Errors
/// As [`adapter_from_spec`].
pub fn adapter_from_spec_with_env(
    spec: &str,
    options: &AdapterOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Arc<dyn ProviderAdapter>, ProviderError> {
    let config = config_from_spec(spec, options, env)?;
    let transport = match &options.client {
        Some(client) => HttpTransport::with_client(client.clone()),
        None => HttpTransport::new(&config.timeouts)?,
    };
    let mut adapter = HttpAdapter::with_transport(config, transport);
    if let Some(token) = &options.cancel {
        adapter = adapter.with_cancellation(token.clone());
    }
    Ok(Arc::new(adapter))
}

/// The configuration [`adapter_from_spec_with_env`] would use.
///
/// Precedence: `options` first (`api_key`, then the variable `api_key_env` names), then the
/// environment (`OPENAI_API_KEY` / `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL`,
/// `LITELLM_API_KEY` / `LITELLM_BASE_URL`, `OPENAI_COMPAT_API_KEY`), then the provider's public
/// endpoint. `openai-compat` never reads `OPENAI_API_KEY` or `OPENAI_BASE_URL`, so a real OpenAI
/// key never reaches another server: its base URL comes from `options` only and its optional key
/// from `options` or `OPENAI_COMPAT_API_KEY`.
///
/// # Errors
/// As [`adapter_from_spec`], and [`ProviderErrorKind::Config`] when the variable `api_key_env`
/// names is unset or empty.
pub fn config_from_spec(
    spec: &str,
    options: &AdapterOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<AdapterConfig, ProviderError> {
    let (provider, model) = split_spec(spec)?;
    let sources = Sources::new(provider, model, options, env)?;
    let mut config = provider_config(spec, &sources, options)?;
    apply_options(&mut config, provider, options);
    Ok(config)
}

fn config_error(provider: &str, model: &str, message: String) -> ProviderError {
    ProviderError::new(ProviderErrorKind::Config, provider, model, message)
}

/// `PROVIDER:MODEL` split at its first `:`, with a model.
fn split_spec(spec: &str) -> Result<(&str, &str), ProviderError> {
    let Some((provider, model)) = spec.split_once(':') else {
        return Err(config_error(
            "unknown",
            spec,
            format!(
                "Model spec '{spec}' must be PROVIDER:MODEL with PROVIDER one of {}.",
                PROVIDERS.join(", ")
            ),
        ));
    };
    if model.trim().is_empty() {
        return Err(config_error(
            provider,
            model,
            format!("Model spec '{spec}' names no model."),
        ));
    }
    Ok((provider, model))
}

/// Where the API key and the base URL of one spec come from: the options' key (given, or read
/// from the variable they name), else the environment (blank values count as unset).
struct Sources<'a> {
    provider: &'a str,
    model: &'a str,
    explicit_key: Option<ApiKey>,
    env: &'a dyn Fn(&str) -> Option<String>,
}

impl<'a> Sources<'a> {
    fn new(
        provider: &'a str,
        model: &'a str,
        options: &AdapterOptions,
        env: &'a dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ProviderError> {
        let mut sources = Self {
            provider,
            model,
            explicit_key: None,
            env,
        };
        sources.explicit_key = match (&options.api_key, &options.api_key_env) {
            (Some(key), _) => Some(key.clone()),
            (None, Some(variable)) => Some(
                sources
                    .env_value(variable)
                    .map(ApiKey::new)
                    .ok_or_else(|| {
                        config_error(
                            provider,
                            model,
                            format!("The API key variable {variable} is not set."),
                        )
                    })?,
            ),
            (None, None) => None,
        };
        Ok(sources)
    }

    fn env_value(&self, name: &str) -> Option<String> {
        (self.env)(name).filter(|value| !value.trim().is_empty())
    }

    /// The explicit key, else the one in `variable`.
    fn key_from(&self, variable: &str) -> Option<ApiKey> {
        self.explicit_key
            .clone()
            .or_else(|| self.env_value(variable).map(ApiKey::new))
    }

    /// [`Sources::key_from`], required.
    fn require_key(&self, variable: &str) -> Result<ApiKey, ProviderError> {
        self.key_from(variable).ok_or_else(|| {
            config_error(
                self.provider,
                self.model,
                format!(
                    "No API key for '{}': set {variable} or pass an API key.",
                    self.provider
                ),
            )
        })
    }

    /// The options' base URL, else the one in `variable`.
    fn base_url(&self, options: &AdapterOptions, variable: &str) -> Option<String> {
        options
            .base_url
            .clone()
            .or_else(|| self.env_value(variable))
    }
}

/// The provider's own configuration of the model, with its key and base URL.
fn provider_config(
    spec: &str,
    sources: &Sources<'_>,
    options: &AdapterOptions,
) -> Result<AdapterConfig, ProviderError> {
    let (provider, model) = (sources.provider, sources.model);
    let config = match provider {
        "openai" | "openai-responses" => {
            let mut config = if provider == "openai" {
                AdapterConfig::openai(model)
            } else {
                AdapterConfig::openai_responses(model)
            };
            config.api_key = Some(sources.require_key("OPENAI_API_KEY")?);
            if let Some(base) = sources.base_url(options, "OPENAI_BASE_URL") {
                config.base_url = base;
            }
            config
        }
        "anthropic" => {
            let mut config = AdapterConfig::anthropic(model);
            config.api_key = Some(sources.require_key("ANTHROPIC_API_KEY")?);
            if let Some(base) = sources.base_url(options, "ANTHROPIC_BASE_URL") {
                config.base_url = base;
            }
            config
        }
        "litellm" => {
            let mut config = AdapterConfig::litellm(
                model,
                options.litellm_format.unwrap_or(WireFormat::OpenAiChat),
            );
            config.api_key = sources.key_from("LITELLM_API_KEY");
            if let Some(base) = sources.base_url(options, "LITELLM_BASE_URL") {
                config.base_url = base;
            }
            config
        }
        "openai-compat" => {
            let Some(base) = options.base_url.clone() else {
                return Err(config_error(
                    provider,
                    model,
                    "'openai-compat' needs a base URL (--base-url http://HOST:PORT/v1).".to_owned(),
                ));
            };
            let mut config = AdapterConfig::openai_compat(model, base);
            config.api_key = sources.key_from("OPENAI_COMPAT_API_KEY");
            config
        }
        other => {
            return Err(config_error(
                other,
                model,
                format!(
                    "Unknown provider '{other}' in '{spec}': expected one of {}.",
                    PROVIDERS.join(", ")
                ),
            ));
        }
    };
    Ok(config)
}

/// The settings of `options` that apply to every provider (deferral only to those with native
/// tool search).
fn apply_options(config: &mut AdapterConfig, provider: &str, options: &AdapterOptions) {
    config.stream = options.stream;
    config.dynamic_tools = !options.no_dynamic_tools;
    if let Some(timeouts) = options.timeouts {
        config.timeouts = timeouts;
    }
    if let Some(retries) = options.max_retries {
        config.retry.max_attempts = retries.saturating_add(1);
    }
    if supports_native_tool_search(provider) {
        config.deferred_tools.clone_from(&options.deferred_tools);
        config.section_deferral = options
            .section_deferral
            .unwrap_or(options.deferred_tools.is_some());
    }
    if options.context_window.is_some() {
        config.context_window = options.context_window;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn openai_reads_key_and_base_url_from_the_environment() {
        let env = env_of(&[
            ("OPENAI_API_KEY", "sk-env"),
            ("OPENAI_BASE_URL", "http://proxy/v1"),
        ]);
        let config = config_from_spec("openai:gpt-4.1", &AdapterOptions::default(), &env).unwrap();
        assert_eq!(config.api_key, Some(ApiKey::new("sk-env")));
        assert_eq!(config.endpoint(), "http://proxy/v1/chat/completions");
        assert!(config.dynamic_tools);
        let options = AdapterOptions {
            base_url: Some("http://flag/v1".into()),
            api_key: Some(ApiKey::new("sk-flag")),
            ..AdapterOptions::default()
        };
        let config = config_from_spec("openai-responses:gpt-5", &options, &env).unwrap();
        assert_eq!(config.api_key, Some(ApiKey::new("sk-flag")));
        assert_eq!(config.endpoint(), "http://flag/v1/responses");
    }

    #[test]
    fn anthropic_reads_key_and_base_url_from_the_environment() {
        let env = env_of(&[
            ("ANTHROPIC_API_KEY", "sk-ant-env"),
            ("ANTHROPIC_BASE_URL", "http://gateway:8080/"),
            ("OPENAI_BASE_URL", "http://not-this/v1"),
        ]);
        let config = config_from_spec(
            "anthropic:claude-sonnet-4-5",
            &AdapterOptions::default(),
            &env,
        )
        .unwrap();
        assert_eq!(config.api_key, Some(ApiKey::new("sk-ant-env")));
        assert_eq!(config.endpoint(), "http://gateway:8080/v1/messages");
        let options = AdapterOptions {
            base_url: Some("http://flag".into()),
            ..AdapterOptions::default()
        };
        let config = config_from_spec("anthropic:claude-sonnet-4-5", &options, &env).unwrap();
        assert_eq!(config.endpoint(), "http://flag/v1/messages");
        let blank = env_of(&[("ANTHROPIC_API_KEY", "k"), ("ANTHROPIC_BASE_URL", "  ")]);
        let config =
            config_from_spec("anthropic:claude", &AdapterOptions::default(), &blank).unwrap();
        assert_eq!(config.endpoint(), "https://api.anthropic.com/v1/messages");
    }

    #[test]
    fn api_key_env_names_the_variable_to_read() {
        let env = env_of(&[
            ("OPENAI_API_KEY", "sk-default"),
            ("TEAM_KEY", "sk-team"),
            ("OPENAI_COMPAT_API_KEY", "sk-compat"),
        ]);
        let options = AdapterOptions {
            api_key_env: Some("TEAM_KEY".into()),
            base_url: Some("http://127.0.0.1:8080/v1".into()),
            ..AdapterOptions::default()
        };
        for spec in ["openai:gpt-4.1", "openai-compat:qwen", "litellm:m"] {
            let config = config_from_spec(spec, &options, &env).unwrap();
            assert_eq!(config.api_key, Some(ApiKey::new("sk-team")), "{spec}");
        }
        let explicit = AdapterOptions {
            api_key: Some(ApiKey::new("sk-explicit")),
            ..options.clone()
        };
        let config = config_from_spec("openai:gpt-4.1", &explicit, &env).unwrap();
        assert_eq!(config.api_key, Some(ApiKey::new("sk-explicit")));
        let missing = AdapterOptions {
            api_key_env: Some("NOT_SET".into()),
            ..options
        };
        let error = config_from_spec("openai:gpt-4.1", &missing, &env).unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Config);
        assert_eq!(
            error.to_string(),
            "openai (gpt-4.1): The API key variable NOT_SET is not set."
        );
    }

    #[test]
    fn compat_key_comes_from_its_own_variable() {
        let options = AdapterOptions {
            base_url: Some("http://127.0.0.1:8080/v1".into()),
            ..AdapterOptions::default()
        };
        let env = env_of(&[
            ("OPENAI_API_KEY", "sk-real"),
            ("OPENAI_COMPAT_API_KEY", "sk-local"),
        ]);
        let config = config_from_spec("openai-compat:qwen", &options, &env).unwrap();
        assert_eq!(config.api_key, Some(ApiKey::new("sk-local")));
    }

    #[test]
    fn deferred_tools_reach_only_native_providers() {
        let deferred = DeferredTools::new(["a.b".to_owned()], "find_tool");
        let options = AdapterOptions {
            deferred_tools: Some(deferred.clone()),
            base_url: Some("http://127.0.0.1:1/v1".into()),
            ..AdapterOptions::default()
        };
        let env = env_of(&[("OPENAI_API_KEY", "k"), ("ANTHROPIC_API_KEY", "k")]);
        for spec in PROVIDERS.map(|p| format!("{p}:m")) {
            let config = config_from_spec(&spec, &options, &env).unwrap();
            let native = supports_native_tool_search(&spec);
            assert_eq!(
                config.deferred_tools.is_some(),
                native,
                "{spec}: native={native}"
            );
        }
        assert!(supports_native_tool_search("anthropic"));
        assert!(supports_native_tool_search("openai-responses:gpt-5"));
        assert!(!supports_native_tool_search("litellm:claude"));
        assert!(!supports_native_tool_search("openai"));
    }

    #[test]
    fn section_deferral_is_opt_in_and_follows_native_tool_search() {
        let env = env_of(&[("OPENAI_API_KEY", "k"), ("ANTHROPIC_API_KEY", "k")]);
        let base = AdapterOptions {
            base_url: Some("http://127.0.0.1:1/v1".into()),
            ..AdapterOptions::default()
        };
        let with_catalog = AdapterOptions {
            deferred_tools: Some(DeferredTools::new(["a".to_owned()], "find_tool")),
            ..base.clone()
        };
        let explicit = AdapterOptions {
            section_deferral: Some(true),
            context_window: Some(32_768),
            ..base.clone()
        };
        for spec in PROVIDERS.map(|p| format!("{p}:m")) {
            let native = supports_native_tool_search(&spec);
            let off = config_from_spec(&spec, &base, &env).unwrap();
            assert!(!off.section_deferral, "{spec}");
            assert_eq!(off.context_window, None, "{spec}");
            let catalog = config_from_spec(&spec, &with_catalog, &env).unwrap();
            assert_eq!(catalog.section_deferral, native, "{spec}");
            let on = config_from_spec(&spec, &explicit, &env).unwrap();
            assert_eq!(on.section_deferral, native, "{spec}");
            assert_eq!(on.context_window, Some(32_768), "{spec}");
        }
    }

    #[test]
    fn missing_key_is_a_config_error_naming_the_variable() {
        let error = config_from_spec(
            "anthropic:claude-sonnet-4-5",
            &AdapterOptions::default(),
            &env_of(&[]),
        )
        .unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Config);
        assert_eq!(
            error.to_string(),
            "anthropic (claude-sonnet-4-5): No API key for 'anthropic': set ANTHROPIC_API_KEY or pass an API key."
        );
    }

    #[test]
    fn compat_needs_a_base_url_and_ignores_openai_variables() {
        let env = env_of(&[
            ("OPENAI_API_KEY", "sk-real"),
            ("OPENAI_BASE_URL", "http://elsewhere"),
        ]);
        let error =
            config_from_spec("openai-compat:qwen", &AdapterOptions::default(), &env).unwrap_err();
        assert_eq!(
            error.message,
            "'openai-compat' needs a base URL (--base-url http://HOST:PORT/v1)."
        );
        let options = AdapterOptions {
            base_url: Some("http://127.0.0.1:8080/v1".into()),
            ..AdapterOptions::default()
        };
        let config = config_from_spec("openai-compat:qwen", &options, &env).unwrap();
        assert_eq!(config.api_key, None);
        assert_eq!(config.dialect, wink_schema::SchemaDialect::Conservative);
        assert!(!config.strict_tools);
    }

    #[test]
    fn litellm_key_is_optional_and_format_selectable() {
        let options = AdapterOptions {
            litellm_format: Some(WireFormat::AnthropicMessages),
            max_retries: Some(0),
            no_dynamic_tools: true,
            ..AdapterOptions::default()
        };
        let config = config_from_spec(
            "litellm:claude",
            &options,
            &env_of(&[("LITELLM_API_KEY", "lk")]),
        )
        .unwrap();
        assert_eq!(config.endpoint(), "http://localhost:4000/v1/messages");
        assert_eq!(config.api_key, Some(ApiKey::new("lk")));
        assert_eq!(config.retry.max_attempts, 1);
        assert!(!config.dynamic_tools);
    }

    #[test]
    fn bad_specs() {
        let none = env_of(&[]);
        assert_eq!(
            config_from_spec("gpt-4.1", &AdapterOptions::default(), &none)
                .unwrap_err()
                .message,
            "Model spec 'gpt-4.1' must be PROVIDER:MODEL with PROVIDER one of openai, openai-responses, anthropic, litellm, openai-compat."
        );
        assert_eq!(
            config_from_spec("openai:", &AdapterOptions::default(), &none)
                .unwrap_err()
                .message,
            "Model spec 'openai:' names no model."
        );
        assert_eq!(
            config_from_spec("gemini:pro", &AdapterOptions::default(), &none)
                .unwrap_err()
                .message,
            "Unknown provider 'gemini' in 'gemini:pro': expected one of openai, openai-responses, anthropic, litellm, openai-compat."
        );
    }
}
