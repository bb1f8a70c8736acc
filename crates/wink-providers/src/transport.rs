//! The one HTTP transport every adapter uses: a shared `reqwest::Client`, timeouts, retries with
//! jittered exponential back-off honouring `Retry-After`, and streaming without retry once the
//! first byte of a streamed body was handed on.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::time::{Instant, sleep, timeout_at};
use wink_model::{ProviderError, ProviderErrorKind};

use crate::config::{AdapterConfig, RetryPolicy, Timeouts};
use crate::failure::{failure, is_context_overflow, provider_message};

/// Receives the chunks of a streamed body; answers `true` once the turn is complete (reading
/// stops there).
pub type ChunkConsumer<'a> = dyn FnMut(&[u8]) -> Result<bool, ProviderError> + Send + 'a;

/// What a call produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A whole body (non-streamed call, or a server that answered a streamed call with JSON).
    Body(Vec<u8>),
    /// The body was streamed into the consumer.
    Streamed,
}

/// POSTs JSON to providers. Cheap to clone: clones share the connection pool.
#[derive(Debug, Clone)]
pub struct HttpTransport {
    client: reqwest::Client,
}

impl HttpTransport {
    /// A transport with its own client (rustls, HTTP/1.1, `connect` timeout).
    ///
    /// # Errors
    /// [`ProviderErrorKind::Config`] when the TLS stack cannot be set up.
    pub fn new(timeouts: &Timeouts) -> Result<Self, ProviderError> {
        install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .user_agent(concat!("wink/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| {
                ProviderError::new(
                    ProviderErrorKind::Config,
                    "http",
                    "-",
                    format!("Cannot build the HTTP client: {error}"),
                )
            })?;
        Ok(Self { client })
    }

    /// A transport over an existing client (to share one pool between adapters). Call
    /// [`install_crypto_provider`] before building that client: this crate's reqwest brings no
    /// crypto provider of its own.
    pub fn with_client(client: reqwest::Client) -> Self {
        Self { client }
    }

    /// POSTs `body` to `config.endpoint()` with `config.headers()` (and the W3C `traceparent`
    /// header when the call is traced).
    ///
    /// Without `consumer` the whole body is returned. With one, a `text/event-stream` body is
    /// handed over chunk by chunk; any other successful body is returned whole.
    ///
    /// Retried (up to `config.retry.max_attempts`, within `config.timeouts.total`): 429, 408, 409,
    /// 5xx, connection errors and timeouts, waiting `Retry-After` / `retry-after-ms` when the
    /// provider gives it and a jittered exponential back-off otherwise. Never retried: other
    /// statuses, and a stream once a chunk was handed on.
    ///
    /// # Errors
    /// The last failure, with the status, the provider's message and the raw body (the key
    /// redacted).
    pub async fn post(
        &self,
        config: &AdapterConfig,
        body: Vec<u8>,
        mut consumer: Option<&mut ChunkConsumer<'_>>,
        traceparent: Option<&str>,
    ) -> Result<Reply, ProviderError> {
        let timeouts = config.timeouts;
        let deadline = Instant::now() + timeouts.total;
        let mut headers = header_map(config)?;
        if let Some(value) = traceparent.and_then(|t| HeaderValue::from_str(t).ok()) {
            headers.insert("traceparent", value);
        }
        let url = config.endpoint();
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            tracing::debug!(provider = %config.provider, model = %config.model, %url, attempt, "model call");
            let result = match self.open(config, &url, &headers, &body, deadline).await {
                Ok(response) => {
                    let is_stream = response
                        .headers()
                        .get(reqwest::header::CONTENT_TYPE)
                        .and_then(|value| value.to_str().ok())
                        .is_some_and(|value| value.starts_with("text/event-stream"));
                    match consumer.as_deref_mut() {
                        Some(consumer) if is_stream => {
                            return stream_body(config, response, consumer, deadline)
                                .await
                                .map(|()| Reply::Streamed);
                        }
                        _ => read_body(config, response, deadline)
                            .await
                            .map(Reply::Body)
                            .map_err(|error| (error, None)),
                    }
                }
                Err(failed) => Err(failed),
            };
            let (error, retry_after) = match result {
                Ok(reply) => return Ok(reply),
                Err(failed) => failed,
            };
            if !error.is_retryable() || attempt >= config.retry.max_attempts.max(1) {
                return Err(error);
            }
            let wait = match retry_after {
                Some(wait) if wait > config.retry.max_retry_after => return Err(error),
                Some(wait) => wait,
                None => backoff(&config.retry, attempt),
            };
            if Instant::now() + wait >= deadline {
                return Err(error);
            }
            tracing::debug!(provider = %config.provider, model = %config.model, attempt, wait_ms = wait.as_millis() as u64, "retrying model call");
            sleep(wait).await;
        }
    }

    /// One attempt up to the response headers. A failure comes with the provider's `Retry-After`.
    async fn open(
        &self,
        config: &AdapterConfig,
        url: &str,
        headers: &HeaderMap,
        body: &[u8],
        deadline: Instant,
    ) -> Result<reqwest::Response, (ProviderError, Option<Duration>)> {
        let request = self
            .client
            .post(url)
            .headers(headers.clone())
            .body(body.to_vec())
            .send();
        let first_byte = (Instant::now() + config.timeouts.first_byte).min(deadline);
        let response = match timeout_at(first_byte, request).await {
            Err(_) => {
                let message = format!(
                    "No response within {:?}.",
                    config.timeouts.first_byte.min(config.timeouts.total)
                );
                return Err((failure(config, ProviderErrorKind::Timeout, message), None));
            }
            Ok(Err(error)) => {
                return Err((transport_failure(config, &error, "Request failed"), None));
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers(), SystemTime::now());
        let raw = read_body(config, response, deadline)
            .await
            .unwrap_or_default();
        let raw = config.redact(&String::from_utf8_lossy(&raw));
        let detail = serde_json::from_str(&raw)
            .ok()
            .and_then(|body| provider_message(&body));
        let reason = status.canonical_reason().unwrap_or("");
        let message = match detail {
            Some(detail) => format!("HTTP {} {reason}: {detail}", status.as_u16()),
            None => format!("HTTP {} {reason}", status.as_u16()),
        };
        let kind = if status.as_u16() == 429 {
            ProviderErrorKind::RateLimited(retry_after)
        } else if status.is_client_error() && is_context_overflow(&raw) {
            ProviderErrorKind::ContextOverflow
        } else {
            ProviderErrorKind::Status(status.as_u16())
        };
        tracing::debug!(provider = %config.provider, model = %config.model, status = status.as_u16(), "model call failed");
        Err((failure(config, kind, message).with_body(raw), retry_after))
    }
}

/// Makes `ring` the process's rustls crypto provider unless one is installed already (then that
/// one is used: any provider speaks the same TLS).
pub fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race with another installer is fine: a provider is installed either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

fn header_map(config: &AdapterConfig) -> Result<HeaderMap, ProviderError> {
    let mut map = HeaderMap::new();
    for (name, value, sensitive) in config.headers() {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            failure(
                config,
                ProviderErrorKind::Config,
                format!("Invalid header name '{name}'."),
            )
        })?;
        let mut header_value = HeaderValue::from_str(&value).map_err(|_| {
            let shown = if sensitive {
                "[REDACTED]".to_owned()
            } else {
                value.clone()
            };
            failure(
                config,
                ProviderErrorKind::Config,
                format!("Invalid value for header '{name}': {shown}"),
            )
        })?;
        header_value.set_sensitive(sensitive);
        map.insert(header, header_value);
    }
    Ok(map)
}

/// Next chunk, within the idle timeout and the deadline.
async fn next_chunk(
    config: &AdapterConfig,
    response: &mut reqwest::Response,
    deadline: Instant,
) -> Result<Option<Vec<u8>>, ProviderError> {
    let idle = (Instant::now() + config.timeouts.first_byte).min(deadline);
    match timeout_at(idle, response.chunk()).await {
        Err(_) => Err(failure(
            config,
            ProviderErrorKind::Timeout,
            "The response body stalled.",
        )),
        Ok(Err(error)) => Err(transport_failure(
            config,
            &error,
            "Reading the response failed",
        )),
        Ok(Ok(chunk)) => Ok(chunk.map(|bytes| bytes.to_vec())),
    }
}

async fn read_body(
    config: &AdapterConfig,
    mut response: reqwest::Response,
    deadline: Instant,
) -> Result<Vec<u8>, ProviderError> {
    let mut body = Vec::new();
    while let Some(chunk) = next_chunk(config, &mut response, deadline).await? {
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Hands a streamed body to `consumer`. The caller never retries what fails here: a broken
/// connection becomes [`ProviderErrorKind::TruncatedStream`], a stall stays a timeout.
async fn stream_body(
    config: &AdapterConfig,
    mut response: reqwest::Response,
    consumer: &mut ChunkConsumer<'_>,
    deadline: Instant,
) -> Result<(), ProviderError> {
    loop {
        match next_chunk(config, &mut response, deadline).await {
            Ok(Some(chunk)) => {
                if consumer(&chunk)? {
                    return Ok(());
                }
            }
            Ok(None) => return Ok(()),
            Err(error) if error.kind == ProviderErrorKind::Connection => {
                return Err(ProviderError {
                    kind: ProviderErrorKind::TruncatedStream,
                    ..error
                });
            }
            Err(error) => return Err(error),
        }
    }
}

fn transport_failure(
    config: &AdapterConfig,
    error: &reqwest::Error,
    context: &str,
) -> ProviderError {
    let mut detail = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    let kind = if error.is_timeout() {
        ProviderErrorKind::Timeout
    } else {
        ProviderErrorKind::Connection
    };
    failure(config, kind, format!("{context}: {detail}"))
}

/// Back-off before retry number `attempt` (1-based): `base · 2^(attempt-1)` capped at `max_delay`,
/// of which the upper half is random ("equal jitter").
pub fn backoff(policy: &RetryPolicy, attempt: u32) -> Duration {
    let exponential = policy
        .base_delay
        .saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
    let capped = exponential.min(policy.max_delay);
    let half = capped / 2;
    half + half.mul_f64(random_fraction())
}

fn random_fraction() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The longest wait a `Retry-After` / `retry-after-ms` value is read as: larger values (up to
/// `1e30`, `18446744073709551616`, ...) become this cap. It is far above
/// `RetryPolicy::max_retry_after`, so such an answer fails the call instead of waiting.
pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(86_400);

/// `seconds` as a wait, capped at [`RETRY_AFTER_CAP`]; `None` when negative or not a number.
fn capped_wait(seconds: f64) -> Option<Duration> {
    if seconds.is_nan() || seconds < 0.0 {
        return None;
    }
    Some(if seconds >= RETRY_AFTER_CAP.as_secs_f64() {
        RETRY_AFTER_CAP
    } else {
        Duration::from_secs_f64(seconds)
    })
}

/// The wait a response asks for: `retry-after-ms` (milliseconds, OpenAI) or `Retry-After`
/// (seconds, or an HTTP date relative to `now`), capped at [`RETRY_AFTER_CAP`].
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    if let Some(wait) = headers
        .get("retry-after-ms")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<f64>().ok())
        .and_then(|millis| capped_wait(millis / 1000.0))
    {
        return Some(wait);
    }
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, now)
}

/// Parses a `Retry-After` value: delay-seconds or an HTTP date (a date in the past is zero),
/// capped at [`RETRY_AFTER_CAP`].
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds).min(RETRY_AFTER_CAP));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        return capped_wait(seconds);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(now)
            .unwrap_or(Duration::ZERO)
            .min(RETRY_AFTER_CAP),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after(" 1.5 ", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:27 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn huge_retry_after_values_are_capped_not_panicking() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        for value in [
            "1e20",
            "18446744073709551616",
            "1e308",
            "inf",
            "99999999999999999999",
        ] {
            assert_eq!(
                parse_retry_after(value, now),
                Some(RETRY_AFTER_CAP),
                "{value}"
            );
        }
        assert_eq!(parse_retry_after("-1", now), None);
        assert_eq!(parse_retry_after("NaN", now), None);
        let mut headers = HeaderMap::new();
        headers.insert("retry-after-ms", HeaderValue::from_static("1e30"));
        assert_eq!(retry_after(&headers, now), Some(RETRY_AFTER_CAP));
        headers.insert("retry-after-ms", HeaderValue::from_static("inf"));
        assert_eq!(retry_after(&headers, now), Some(RETRY_AFTER_CAP));
    }

    #[test]
    fn retry_after_ms_wins() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(
            retry_after(&headers, SystemTime::now()),
            Some(Duration::from_secs(7))
        );
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(
            retry_after(&headers, SystemTime::now()),
            Some(Duration::from_millis(250))
        );
    }

    #[test]
    fn backoff_doubles_with_equal_jitter_and_caps() {
        let policy = RetryPolicy {
            base_delay: Duration::from_millis(400),
            max_delay: Duration::from_secs(1),
            ..RetryPolicy::default()
        };
        for _ in 0..50 {
            let first = backoff(&policy, 1);
            assert!(
                first >= Duration::from_millis(200) && first <= Duration::from_millis(400),
                "{first:?}"
            );
            let second = backoff(&policy, 2);
            assert!(
                second >= Duration::from_millis(400) && second <= Duration::from_millis(800),
                "{second:?}"
            );
            let capped = backoff(&policy, 30);
            assert!(
                capped >= Duration::from_millis(500) && capped <= Duration::from_secs(1),
                "{capped:?}"
            );
        }
    }
}
