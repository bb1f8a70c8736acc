//! Streamable HTTP on loopback.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::McpServeError;

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
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token());
    let service = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    ));
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
