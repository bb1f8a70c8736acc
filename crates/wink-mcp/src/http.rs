//! Streamable HTTP on loopback.

use std::net::SocketAddr;
use std::sync::Arc;

use std::convert::Infallible;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::McpServeError;
use crate::lines::{INVALID_PARAMS, Line, MAX_LINE_BYTES, PARSE_ERROR, Screened, screen_line};

type Reply = Response<BoxBody<Bytes, Infallible>>;

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
    pub(crate) fn cancel(&self) {
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
/// loopback. Any path answers; clients conventionally use `/mcp`.
pub async fn serve_http<H>(handler: H, addr: SocketAddr) -> Result<HttpServer, McpServeError>
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
    let cancel = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel.child_token())
        .with_max_request_body_bytes(MAX_LINE_BYTES);
    let mcp = Arc::new(StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    ));
    let service = hyper::service::service_fn(move |request| {
        let mcp = Arc::clone(&mcp);
        async move { Ok::<_, Infallible>(screened(&mcp, request).await) }
    });
    let stop = cancel.clone();
    let task = tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                () = stop.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(error) => {
                        tracing::warn!(%error, "MCP HTTP accept failed");
                        continue;
                    }
                },
            };
            let service = service.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                let connection =
                    http1::Builder::new().serve_connection(TokioIo::new(stream), service);
                tokio::select! {
                    () = stop.cancelled() => {}
                    _ = connection => {}
                }
            });
        }
    });
    Ok(HttpServer {
        local_addr,
        cancel,
        task,
    })
}

/// A POST body is screened as a stdio line is ([`screen_line`]) before the MCP SDK sees it: a
/// body that is not UTF-8, not JSON, nested too deep, over [`MAX_LINE_BYTES`] or not one
/// JSON-RPC message gets a JSON-RPC error (HTTP 400, or 413 when too long), and a `tools/call`
/// whose arguments are not an object gets `-32602` (HTTP 200).
async fn screened<S, M>(mcp: &StreamableHttpService<S, M>, request: Request<Incoming>) -> Reply
where
    S: ServerHandler + Send + 'static,
    M: rmcp::transport::streamable_http_server::SessionManager,
{
    if request.method() != Method::POST {
        return mcp.handle(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match Limited::new(body, MAX_LINE_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<LengthLimitError>() => {
            return error_reply(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "Parse error: the request body is longer than the limit of {MAX_LINE_BYTES} bytes"
                ),
            );
        }
        Err(error) => {
            return error_reply(
                StatusCode::BAD_REQUEST,
                &format!("Parse error: cannot read the request body: {error}"),
            );
        }
    };
    match screen_line(&Line::Complete(bytes.to_vec())) {
        Screened::Forward => {
            mcp.handle(Request::from_parts(parts, Full::new(bytes)))
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
