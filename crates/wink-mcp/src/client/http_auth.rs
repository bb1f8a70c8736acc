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

use super::connection::{Watcher, lifecycle, list_tools, plain};

/// A server's tools and the `ttlMs` of their listing.
type ListedTools = (Vec<rmcp::model::Tool>, Option<u64>);
use super::oauth::{self, OAuthGrant};
use super::servers::ServerSpec;

/// The server's authorization challenge (its `WWW-Authenticate`) when a request failed on a 401
/// or a 403 `insufficient_scope`.
pub(crate) fn service_challenge(error: &rmcp::ServiceError) -> Option<String> {
    let rmcp::ServiceError::TransportSend(transport) = error else {
        return None;
    };
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(transport.error.as_ref());
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

/// Logs in to `url` with the server's `challenge` (see the module docs). Without scopes of its
/// own, the spec asks for the scopes granted so far and those the challenge names (SEP-2350).
pub(crate) async fn log_in(spec: &ServerSpec, url: &str, challenge: String) -> Result<(), String> {
    let mut oauth = spec.oauth.clone().unwrap_or_default();
    if oauth.scopes.is_empty() {
        let challenged = challenge_scopes(&challenge);
        if !challenged.is_empty() {
            let mut scopes = oauth::granted_scopes(url);
            for scope in challenged {
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
            oauth.scopes = scopes;
        }
    }
    oauth::login(url, &oauth, Some(challenge))
        .await
        .map(|_| ())
        .map_err(|e| format!("logging in failed: {e}"))
}

/// The scopes a `WWW-Authenticate` challenge names (its `scope="a b"` parameter).
fn challenge_scopes(challenge: &str) -> Vec<String> {
    let Some(at) = challenge.find("scope=") else {
        return Vec::new();
    };
    let rest = &challenge[at + "scope=".len()..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next().unwrap_or(""),
        None => rest.split([',', ' ']).next().unwrap_or(""),
    };
    value.split_whitespace().map(str::to_owned).collect()
}

/// Connects to the server at `url` and lists its tools (see the module docs).
pub(crate) async fn serve(
    spec: &ServerSpec,
    url: &str,
    watcher: &Watcher,
    client: reqwest::Client,
    config: StreamableHttpClientTransportConfig,
) -> Result<(RunningService<RoleClient, Watcher>, ListedTools), String> {
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
        let challenge = match watcher
            .clone()
            .serve_with_lifecycle(transport, lifecycle())
            .await
        {
            Ok(service) => match list_tools(service.peer()).await {
                Ok(list) => return Ok((service, list)),
                Err(error) => service_challenge(&error)
                    .ok_or_else(|| format!("tools/list failed: {}", plain(&error)))?,
            },
            Err(error) => error
                .auth_challenge()
                .map(str::to_owned)
                .ok_or_else(|| format!("MCP initialisation failed: {}", plain(&error)))?,
        };
        if logged_in || !may_log_in(spec) {
            return Err(login_needed(spec));
        }
        log_in(spec, url, challenge).await?;
        logged_in = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_name_their_scopes() {
        assert_eq!(
            challenge_scopes(
                r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x/y""#
            ),
            ["files:read", "files:write"]
        );
        assert_eq!(challenge_scopes("Bearer scope=read"), ["read"]);
        assert!(challenge_scopes(r#"Bearer resource_metadata="https://x/y""#).is_empty());
    }
}
