//! Streamable HTTP on loopback.
//!
//! Hostile or broken clients cannot hold the server: a connection must send a request's headers
//! within [`HttpLimits::header_timeout`] of opening or of its previous response (so an idle
//! keep-alive connection is closed after that long too), a POST body must arrive within
//! [`HttpLimits::body_timeout`], at most [`HttpLimits::max_connections`] connections are served
//! at once (more wait in the listen queue), and when accepting fails (out of file descriptors)
//! the accept loop backs off and warns at most every ten seconds.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Bytes};
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::McpServeError;
use crate::lines::{INVALID_PARAMS, Line, MAX_LINE_BYTES, PARSE_ERROR, Screened, screen_line};

type Reply = Response<BoxBody<Bytes, Infallible>>;

/// The HTTP server's bounds on its clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// How long a connection may take to send a request's headers, from when it opened or its
    /// previous response ended: a client that sends nothing or half a header, or a keep-alive
    /// connection left idle, is closed after this long (default 30 s).
    pub header_timeout: Duration,
    /// How long a POST body may take to arrive once its headers have (default 30 s): a body
    /// promised by `Content-Length` that never comes is answered with HTTP 408.
    pub body_timeout: Duration,
    /// Connections served at once (default 256); further clients wait to be accepted.
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            max_connections: 256,
        }
    }
}

/// A running streamable-HTTP MCP server. Dropping the handle does not stop it; call
/// [`HttpServer::shutdown`].
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    cancel: CancellationToken,
    task: JoinHandle<()>,
}

impl HttpServer {
    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint clients connect to: `http://<addr>/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.local_addr)
    }

    /// Ask the server to stop without waiting for it.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Stop accepting connections and end open sessions.
    pub async fn shutdown(self) {
        self.cancel.cancel();
        let _ = self.task.await;
    }

    /// Serve until the process ends (or the task fails).
    pub async fn wait(self) {
        let _ = self.task.await;
    }
}

/// Refuse anything but a loopback address.
///
/// ```
/// assert!(wink_mcp::check_loopback("127.0.0.1:0".parse().unwrap()).is_ok());
/// assert!(wink_mcp::check_loopback("[::1]:8080".parse().unwrap()).is_ok());
/// let refused = wink_mcp::check_loopback("0.0.0.0:8080".parse().unwrap()).unwrap_err();
/// assert!(refused.to_string().starts_with("refusing to serve MCP over HTTP on 0.0.0.0:8080"));
/// ```
pub fn check_loopback(addr: SocketAddr) -> Result<(), McpServeError> {
    if addr.ip().is_loopback() {
        Ok(())
    } else {
        Err(McpServeError::NotLoopback { addr })
    }
}

/// Serve `handler` (cloned per MCP session) over streamable HTTP at `addr`, which must be
/// loopback, within the default [`HttpLimits`]. Any path answers; clients conventionally use
/// `/mcp`.
pub async fn serve_http<H>(handler: H, addr: SocketAddr) -> Result<HttpServer, McpServeError>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    serve_http_with(handler, addr, HttpLimits::default()).await
}

/// [`serve_http`] within `limits`.
pub async fn serve_http_with<H>(
    handler: H,
    addr: SocketAddr,
    limits: HttpLimits,
) -> Result<HttpServer, McpServeError>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    check_loopback(addr)?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| McpServeError::Bind { addr, source })?;
    let local_addr = listener
        .local_addr()
        .map_err(|source| McpServeError::Bind { addr, source })?;
    let endpoint = HttpEndpoint::new(handler, limits);
    let cancel = endpoint.cancel.clone();
    let task = tokio::spawn(accept_loop(listener, endpoint));
    Ok(HttpServer {
        local_addr,
        cancel,
        task,
    })
}

/// Accepts connections until the endpoint is cancelled, at most `max_connections` served at
/// once.
async fn accept_loop<H>(listener: TcpListener, endpoint: HttpEndpoint<H>)
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let slots = Arc::new(Semaphore::new(endpoint.limits.max_connections.max(1)));
    let mut failures = AcceptFailures::default();
    let stop = endpoint.cancel.clone();
    loop {
        let slot = tokio::select! {
            () = stop.cancelled() => break,
            slot = Arc::clone(&slots).acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
        };
        let stream = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    failures.succeeded();
                    stream
                }
                Err(error) => {
                    let pause = failures.failed(&error);
                    tokio::time::sleep(pause).await;
                    continue;
                }
            },
        };
        let endpoint = endpoint.clone();
        tokio::spawn(async move {
            endpoint.serve_connection(stream).await;
            drop(slot);
        });
    }
}

/// Failed accepts in a row: how long to pause before the next (10 ms, doubling up to 1 s), and
/// a warning at most every [`REPORT_EVERY`] saying how many failed since the last one.
#[derive(Debug, Default)]
struct AcceptFailures {
    in_a_row: u32,
    unreported: u64,
    reported_at: Option<Instant>,
}

/// The least time between two warnings about failed accepts.
const REPORT_EVERY: Duration = Duration::from_secs(10);

impl AcceptFailures {
    fn succeeded(&mut self) {
        self.in_a_row = 0;
    }

    /// Notes a failure; returns the pause before the next accept.
    fn failed(&mut self, error: &std::io::Error) -> Duration {
        self.in_a_row = self.in_a_row.saturating_add(1);
        self.unreported += 1;
        if self
            .reported_at
            .is_none_or(|at| at.elapsed() >= REPORT_EVERY)
        {
            tracing::warn!(
                %error,
                failures = self.unreported,
                "MCP HTTP accept failed; backing off (reported at most every 10 s)"
            );
            self.unreported = 0;
            self.reported_at = Some(Instant::now());
        }
        let doublings = self.in_a_row.min(8) - 1;
        Duration::from_millis(10 << doublings).min(Duration::from_secs(1))
    }
}

/// The MCP endpoint of a server: serves the connections handed to it (TCP streams from
/// [`serve_http`]'s accept loop, or any byte stream) within its [`HttpLimits`], every POST body
/// screened first.
pub struct HttpEndpoint<H: ServerHandler + Clone + Send + Sync + 'static> {
    mcp: Arc<StreamableHttpService<H, LocalSessionManager>>,
    limits: HttpLimits,
    cancel: CancellationToken,
}

impl<H: ServerHandler + Clone + Send + Sync + 'static> std::fmt::Debug for HttpEndpoint<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEndpoint")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl<H: ServerHandler + Clone + Send + Sync + 'static> Clone for HttpEndpoint<H> {
    fn clone(&self) -> Self {
        Self {
            mcp: Arc::clone(&self.mcp),
            limits: self.limits,
            cancel: self.cancel.clone(),
        }
    }
}

impl<H: ServerHandler + Clone + Send + Sync + 'static> HttpEndpoint<H> {
    /// An endpoint serving `handler` (cloned per MCP session) within `limits`.
    pub fn new(handler: H, limits: HttpLimits) -> Self {
        let cancel = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(cancel.child_token())
            .with_max_request_body_bytes(MAX_LINE_BYTES);
        let mcp = Arc::new(StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        ));
        Self {
            mcp,
            limits,
            cancel,
        }
    }

    /// Serves one connection until it closes, times out or the endpoint is cancelled.
    pub async fn serve_connection<IO>(&self, io: IO)
    where
        IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let endpoint = self.clone();
        let service = hyper::service::service_fn(move |request| {
            let endpoint = endpoint.clone();
            async move { Ok::<_, Infallible>(endpoint.screened(request).await) }
        });
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(self.limits.header_timeout)
            // A client that shuts its sending side after a request still gets the answer.
            .half_close(true)
            .serve_connection(TokioIo::new(io), service);
        tokio::select! {
            () = self.cancel.cancelled() => {}
            _ = connection => {}
        }
    }

    /// Ends the open MCP sessions and every connection being served.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// A POST body is screened as a stdio line is ([`screen_line`]) before the MCP SDK sees it:
    /// a body that is not UTF-8, not JSON, nested too deep, over [`MAX_LINE_BYTES`] or not one
    /// JSON-RPC message gets a JSON-RPC error (HTTP 400, 413 when too long, 408 when it does not
    /// arrive in time), and a `tools/call` whose arguments are not an object, hold a key twice or
    /// an integer beyond 64 bits gets `-32602` (HTTP 200).
    async fn screened<B>(&self, request: Request<B>) -> Reply
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        if request.method() != Method::POST {
            return self.mcp.handle(request).await;
        }
        let (parts, body) = request.into_parts();
        let too_long = || {
            error_reply(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "Parse error: the request body is longer than the limit of {MAX_LINE_BYTES} bytes"
                ),
            )
        };
        // A declared length over the limit is refused at once, not after waiting for the body.
        if usize::try_from(body.size_hint().lower()).map_or(true, |n| n > MAX_LINE_BYTES) {
            return too_long();
        }
        let limited = Limited::new(body, MAX_LINE_BYTES).collect();
        let bytes = match tokio::time::timeout(self.limits.body_timeout, limited).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(error)) if error.is::<LengthLimitError>() => return too_long(),
            Ok(Err(error)) => {
                return error_reply(
                    StatusCode::BAD_REQUEST,
                    &format!("Parse error: cannot read the request body: {error}"),
                );
            }
            Err(_) => {
                return error_reply(
                    StatusCode::REQUEST_TIMEOUT,
                    &format!(
                        "Parse error: the request body did not arrive within {} s",
                        self.limits.body_timeout.as_secs_f64()
                    ),
                );
            }
        };
        match screen_line(&Line::Complete(bytes.to_vec())) {
            Screened::Forward => {
                self.mcp
                    .handle(Request::from_parts(parts, Full::new(bytes)))
                    .await
            }
            Screened::Skip => error_reply(
                StatusCode::BAD_REQUEST,
                "Parse error: the request body is empty",
            ),
            Screened::Answer(answer) => {
                let code = serde_json::from_str::<Value>(&answer)
                    .ok()
                    .and_then(|v| v["error"]["code"].as_i64());
                let status = if code == Some(INVALID_PARAMS) {
                    StatusCode::OK
                } else {
                    StatusCode::BAD_REQUEST
                };
                json_reply(status, answer)
            }
        }
    }
}

/// A JSON-RPC parse error (`id: null`) with `message`.
fn error_reply(status: StatusCode, message: &str) -> Reply {
    let body =
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": PARSE_ERROR, "message": message}});
    json_reply(status, body.to_string())
}

fn json_reply(status: StatusCode, body: String) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(body)).boxed());
    *reply.status_mut() = status;
    reply.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_accepts_back_off_and_are_reported_at_most_every_ten_seconds() {
        let mut failures = AcceptFailures::default();
        let error = std::io::Error::from_raw_os_error(24);
        let pauses: Vec<u128> = (0..9)
            .map(|_| failures.failed(&error).as_millis())
            .collect();
        assert_eq!(pauses, [10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        // The first failure was reported; the eight after it wait for the next report.
        assert_eq!(failures.unreported, 8);
        failures.succeeded();
        assert_eq!(failures.failed(&error).as_millis(), 10);
    }
}
