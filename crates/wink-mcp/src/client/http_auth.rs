//! Connecting to a streamable HTTP server that may ask for authorization: requests carry the
//! stored token ([`super::oauth`]); when the server answers 401, or 403 `insufficient_scope`,
//! wink logs in once where it can do so here — the client credentials grant always, the
//! authorization code grant when a browser can be opened (`$BROWSER` is set, or a person is at
//! the terminal) — and tries again; otherwise the error names the command that logs in.

use std::io::IsTerminal;

use rmcp::RoleClient;
use rmcp::service::{ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, StreamableHttpClientTransportConfig,
};

use super::connection::{Watcher, lifecycle, plain};
use super::oauth::{self, OAuthGrant};
use super::servers::ServerSpec;

/// The server's authorization challenge in an error's chain: its `WWW-Authenticate`.
pub(crate) fn auth_challenge(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut next = Some(error);
    while let Some(current) = next {
        if let Some(required) = current.downcast_ref::<AuthRequiredError>() {
            return Some(required.www_authenticate_header.clone());
        }
        if let Some(scope) = current.downcast_ref::<InsufficientScopeError>() {
            return Some(scope.www_authenticate_header.clone());
        }
        next = current.source();
    }
    None
}

/// Whether wink can log in to `spec`'s server during a run.
pub(crate) fn may_log_in(spec: &ServerSpec) -> bool {
    let grant = spec.oauth.as_ref().map(|o| o.grant).unwrap_or_default();
    grant == OAuthGrant::ClientCredentials
        || std::env::var_os("BROWSER").is_some_and(|b| !b.is_empty())
        || (std::io::stdin().is_terminal() && std::io::stderr().is_terminal())
}

/// Why a run stops for want of a login, and how to log in.
pub(crate) fn login_needed(spec: &ServerSpec) -> String {
    let command = spec
        .login_command
        .clone()
        .unwrap_or_else(|| format!("wink mcp login FILE {}", spec.name));
    format!("the server requires authorization; log in first with `{command}`")
}

/// Logs in to `url` with the server's `challenge` (see the module docs).
pub(crate) async fn log_in(spec: &ServerSpec, url: &str, challenge: String) -> Result<(), String> {
    let oauth = spec.oauth.clone().unwrap_or_default();
    oauth::login(url, &oauth, Some(challenge))
        .await
        .map(|_| ())
        .map_err(|e| format!("logging in failed: {e}"))
}

/// Connects to the server at `url` (see the module docs).
pub(crate) async fn serve(
    spec: &ServerSpec,
    url: &str,
    watcher: &Watcher,
    client: reqwest::Client,
    config: StreamableHttpClientTransportConfig,
) -> Result<RunningService<RoleClient, Watcher>, String> {
    let mut logged_in = false;
    loop {
        let mut manager = oauth::manager(url).await?;
        // Stored tokens are used when they are there; a store that cannot be read is the
        // server's 401 to come.
        if let Err(e) = manager.initialize_from_store().await {
            tracing::debug!(target: "wink_mcp::client", "stored OAuth tokens not used: {e}");
        }
        let transport = StreamableHttpClientTransport::with_client(
            AuthClient::new(client.clone(), manager),
            config.clone(),
        );
        let error = match watcher
            .clone()
            .serve_with_lifecycle(transport, lifecycle())
            .await
        {
            Ok(service) => return Ok(service),
            Err(error) => error,
        };
        let Some(challenge) = auth_challenge(&error) else {
            return Err(format!("MCP initialisation failed: {}", plain(&error)));
        };
        if logged_in || !may_log_in(spec) {
            return Err(login_needed(spec));
        }
        log_in(spec, url, challenge).await?;
        logged_in = true;
    }
}
