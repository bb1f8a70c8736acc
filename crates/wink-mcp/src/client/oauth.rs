//! OAuth 2.1 for streamable HTTP servers (the MCP authorization spec), through `rmcp`'s `auth`
//! support: protected-resource and authorization-server discovery (with the `iss` checks),
//! client registration (pre-registered client, Client ID Metadata Document, or dynamic
//! registration), PKCE, the `resource` parameter, scopes from `WWW-Authenticate` or
//! `scopes_supported`, refresh tokens.
//!
//! [`login`] runs the flow ahead of a run (`wink mcp login`): the authorization code grant opens
//! the authorization URL with `$BROWSER` (else prints it) and waits on a loopback redirect; the
//! client credentials grant needs no person; its client authenticates with a secret, or with a
//! JWT signed by its private key (`private_key_jwt`, [`super::client_assertion`]). Tokens are
//! stored per server URL in [`token_dir`], one file each, mode 0600, and are never printed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, CredentialStore, OAuthTokenResponse,
    StoredCredentials,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::client_assertion::{self, JWT_BEARER, PrivateKeySource, SigningKey};
use super::servers::{ServerSpec, ServerTransport};

/// How long [`login`] waits for the browser to come back to the loopback redirect.
pub const LOGIN_WAIT: Duration = Duration::from_secs(300);

/// The OAuth grant a server's client uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OAuthGrant {
    /// A person logs in with a browser (`wink mcp login`).
    #[default]
    AuthorizationCode,
    /// The client's own credentials: no person, no browser.
    ClientCredentials,
}

/// A prompt file's `oauth` block for a `url` server; every key is optional (absent: discover
/// the authorization server and register a client).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OAuthSpec {
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// The environment variable holding the client secret; read only when a token is requested.
    pub client_secret_env: Option<String>,
    /// The private key of a `private_key_jwt` client (PEM, in a variable or a file); read only
    /// when a token is requested.
    pub private_key: Option<PrivateKeySource>,
    /// The scopes to ask for (default: those the server's challenge or metadata names).
    pub scopes: Vec<String>,
    /// The grant.
    pub grant: OAuthGrant,
    /// How the client authenticates at the token endpoint (`client_secret_basic`,
    /// `client_secret_post`, `none`, `private_key_jwt`); default: what the server advertises.
    pub token_endpoint_auth: Option<String>,
    /// A Client ID Metadata Document URL (an `https` URL) used as the client id where the
    /// authorization server supports them.
    pub client_metadata_url: Option<String>,
}

/// Where tokens are kept: `$WINK_HOME/mcp-auth`, else `$XDG_CONFIG_HOME/wink/mcp-auth`, else
/// `~/.config/wink/mcp-auth`.
pub fn token_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let base = if let Some(home) = var("WINK_HOME") {
        PathBuf::from(home)
    } else if let Some(config) = var("XDG_CONFIG_HOME") {
        PathBuf::from(config).join("wink")
    } else {
        PathBuf::from(var("HOME")?).join(".config").join("wink")
    };
    Some(base.join("mcp-auth"))
}

/// The token file of the server at `url`.
pub fn token_path(url: &str) -> Option<PathBuf> {
    let safe: String = url
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(40)
        .collect();
    let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    token_dir().map(|dir| dir.join(format!("{safe}-{hash:016x}.json")))
}

/// A server's credentials in one file, mode 0600 (written to a temporary file, then renamed).
#[derive(Debug, Clone)]
pub(crate) struct TokenFile {
    path: PathBuf,
}

impl TokenFile {
    pub(crate) fn at(path: PathBuf) -> Self {
        Self { path }
    }

    fn write(&self, text: &str) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &self.path)
    }
}

fn store_error(path: &Path, e: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(format!("{}: {e}", path.display()))
}

#[async_trait::async_trait]
impl CredentialStore for TokenFile {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| store_error(&self.path, e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(store_error(&self.path, e)),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text = serde_json::to_string(&credentials).map_err(|e| store_error(&self.path, e))?;
        self.write(&text).map_err(|e| store_error(&self.path, e))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(store_error(&self.path, e)),
        }
    }
}

/// The scopes stored tokens of the server at `url` were granted (none without tokens).
pub(crate) fn granted_scopes(url: &str) -> Vec<String> {
    token_path(url)
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str::<StoredCredentials>(&text).ok())
        .map(|stored| stored.granted_scopes)
        .unwrap_or_default()
}

/// An authorization manager for the server at `url`, its tokens in their file.
pub(crate) async fn manager(url: &str) -> Result<AuthorizationManager, String> {
    let path = token_path(url).ok_or("no directory for tokens: set HOME or WINK_HOME")?;
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| format!("OAuth: {e}"))?;
    manager.set_credential_store(TokenFile::at(path));
    Ok(manager)
}

/// Who is logged in to a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginReport {
    /// The client id the tokens were issued to.
    pub client_id: String,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// The authorization server.
    pub issuer: Option<String>,
    /// Where the tokens are kept.
    pub token_file: PathBuf,
}

impl LoginReport {
    /// One line for a person: which server (`server`, at `url`) was logged in to, as which
    /// client of which issuer, the scopes granted and where the tokens are kept.
    pub fn describe(&self, server: &str, url: &str) -> String {
        let scopes = if self.scopes.is_empty() {
            "none".to_owned()
        } else {
            self.scopes.join(" ")
        };
        let issuer = self
            .issuer
            .as_ref()
            .map(|issuer| format!(" of {issuer}"))
            .unwrap_or_default();
        format!(
            "Logged in to `{server}` ({url}) as client {}{issuer}; scopes: {scopes}; tokens in {}",
            self.client_id,
            self.token_file.display()
        )
    }
}

/// Asks the server for its authorization challenge: the `WWW-Authenticate` of its 401, or
/// `None` when it answers without one (it needs no login).
pub(crate) async fn challenge(url: &str) -> Result<Option<String>, String> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": "wink-login", "method": "server/discover",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    });
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| format!("cannot reach {url}: {e}"))?;
    if response.status() == reqwest::StatusCode::UNAUTHORIZED {
        let header = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("Bearer")
            .to_owned();
        return Ok(Some(header));
    }
    Ok(None)
}

/// Logs in to the server at `url` as `spec` says (see the module docs), storing its tokens;
/// `challenge` is the server's `WWW-Authenticate` (a 401's, or a 403's for more scope).
pub async fn login(
    url: &str,
    spec: &OAuthSpec,
    challenge: Option<String>,
) -> Result<LoginReport, String> {
    let mut manager = manager(url).await?;
    let resolution = manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
        .map_err(|e| format!("OAuth discovery failed: {e}"))?;
    let issuer = resolution.metadata.issuer.clone();
    if spec.token_endpoint_auth.as_deref() == Some("private_key_jwt") {
        return client_credentials_jwt(url, spec, &resolution.metadata).await;
    }
    manager.set_metadata(resolution.metadata);
    let secret = match &spec.client_secret_env {
        Some(var) => Some(
            std::env::var(var)
                .map_err(|_| format!("oauth.client_secret_env names ${var}, which is not set"))?,
        ),
        None => None,
    };
    let manager = match spec.grant {
        OAuthGrant::ClientCredentials => client_credentials(manager, url, spec, secret).await?,
        OAuthGrant::AuthorizationCode => {
            authorization_code(manager, spec, secret, challenge.as_deref()).await?
        }
    };
    let credentials = manager
        .get_credentials()
        .await
        .map_err(|e| format!("OAuth: {e}"))?;
    Ok(LoginReport {
        client_id: credentials.0,
        scopes: manager.get_current_scopes().await,
        issuer,
        token_file: token_path(url).unwrap_or_default(),
    })
}

async fn client_credentials(
    mut manager: AuthorizationManager,
    url: &str,
    spec: &OAuthSpec,
    secret: Option<String>,
) -> Result<AuthorizationManager, String> {
    let client_id = spec
        .client_id
        .clone()
        .ok_or("the client_credentials grant needs oauth.client_id")?;
    let secret = secret.ok_or("the client_credentials grant needs oauth.client_secret_env")?;
    let config = ClientCredentialsConfig::ClientSecret {
        client_id,
        client_secret: secret,
        scopes: spec.scopes.clone(),
        resource: Some(url.to_owned()),
    };
    manager
        .validate_client_credentials_metadata(&config)
        .map_err(|e| format!("OAuth: {e}"))?;
    manager
        .configure_client_credentials(&config)
        .map_err(|e| format!("OAuth: {e}"))?;
    manager
        .exchange_client_credentials(&config)
        .await
        .map_err(|e| format!("OAuth: {e}"))?;
    Ok(manager)
}

/// The client credentials grant with `private_key_jwt` (RFC 7523): a signed assertion instead
/// of a secret, sent with the token request `rmcp` would send (grant, assertion, scopes, the
/// `resource`); no `client_id` in the body, the assertion names the client.
async fn client_credentials_jwt(
    url: &str,
    spec: &OAuthSpec,
    metadata: &AuthorizationMetadata,
) -> Result<LoginReport, String> {
    if spec.grant != OAuthGrant::ClientCredentials {
        return Err(
            "token_endpoint_auth private_key_jwt goes with grant client_credentials".to_owned(),
        );
    }
    let client_id = spec
        .client_id
        .clone()
        .ok_or("private_key_jwt needs oauth.client_id")?;
    let source = spec
        .private_key
        .as_ref()
        .ok_or("private_key_jwt needs oauth.private_key_env or oauth.private_key_file")?;
    let advertised = |field: &str| -> Option<Vec<String>> {
        metadata.additional_fields.get(field)?.as_array().map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
    };
    if let Some(methods) = advertised("token_endpoint_auth_methods_supported")
        && !methods.iter().any(|m| m == "private_key_jwt")
    {
        return Err(format!(
            "the authorization server does not accept private_key_jwt (it accepts {})",
            methods.join(", ")
        ));
    }
    let audience = metadata
        .issuer
        .clone()
        .ok_or("the authorization server's metadata names no issuer to address the assertion to")?;
    let endpoint = assertion_endpoint(metadata)?;
    let key = SigningKey::from_pem(&source.read()?)?;
    let algorithm =
        key.algorithm(advertised("token_endpoint_auth_signing_alg_values_supported").as_deref())?;
    let assertion = client_assertion::assertion(&key, algorithm, &client_id, &audience)?;
    let body = {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.append_pair("grant_type", "client_credentials")
            .append_pair("client_assertion_type", JWT_BEARER)
            .append_pair("client_assertion", &assertion);
        if !spec.scopes.is_empty() {
            form.append_pair("scope", &spec.scopes.join(" "));
        }
        form.append_pair("resource", url).finish()
    };
    let body = request_token(&endpoint, body).await?;
    let scopes: Vec<String> = match body.get("scope").and_then(|s| s.as_str()) {
        Some(granted) => granted.split_whitespace().map(str::to_owned).collect(),
        None => spec.scopes.clone(),
    };
    let token: OAuthTokenResponse = serde_json::from_value(body)
        .map_err(|e| format!("the token endpoint's answer is no token response: {e}"))?;
    let received = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let path = token_path(url).ok_or("no directory for tokens: set HOME or WINK_HOME")?;
    let stored = StoredCredentials::new(
        client_id.clone(),
        Some(token),
        scopes.clone(),
        Some(received),
    )
    .with_issuer(Some(audience.clone()));
    TokenFile::at(path.clone())
        .save(stored)
        .await
        .map_err(|e| format!("OAuth: {e}"))?;
    Ok(LoginReport {
        client_id,
        scopes,
        issuer: Some(audience),
        token_file: path,
    })
}

/// The token endpoint a client assertion may go to: https, or http on loopback.
fn assertion_endpoint(metadata: &AuthorizationMetadata) -> Result<reqwest::Url, String> {
    let endpoint = reqwest::Url::parse(&metadata.token_endpoint).map_err(|e| {
        format!(
            "the token endpoint `{}` is no URL: {e}",
            metadata.token_endpoint
        )
    })?;
    let loopback = matches!(
        endpoint.host_str(),
        Some("localhost" | "127.0.0.1" | "[::1]")
    );
    if endpoint.scheme() != "https" && !(endpoint.scheme() == "http" && loopback) {
        return Err(format!(
            "the token endpoint {endpoint} is not https: wink sends no client assertion over plain HTTP"
        ));
    }
    Ok(endpoint)
}

/// Posts the form `body` to the token endpoint (no redirects) and returns its JSON answer; a
/// refusal is an error naming the endpoint's `error` and `error_description`.
async fn request_token(endpoint: &reqwest::Url, body: String) -> Result<serde_json::Value, String> {
    let response = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("OAuth: {e}"))?
        .post(endpoint.clone())
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| format!("cannot reach the token endpoint {endpoint}: {e}"))?;
    let status = response.status();
    let bytes = response
        .bytes()
        .await
        .map_err(|e| format!("the token endpoint's answer ({status}) broke off: {e}"))?;
    let body: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("the token endpoint answered {status} without JSON: {e}"))?;
    if !status.is_success() {
        let field = |name: &str| body.get(name).and_then(|v| v.as_str()).unwrap_or("");
        return Err(format!(
            "the token endpoint refused the assertion ({status}): {} {}",
            field("error"),
            field("error_description")
        )
        .trim_end()
        .to_owned());
    }
    Ok(body)
}

async fn authorization_code(
    manager: AuthorizationManager,
    spec: &OAuthSpec,
    secret: Option<String>,
    challenge: Option<&str>,
) -> Result<AuthorizationManager, String> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| format!("cannot listen for the OAuth redirect: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("cannot listen for the OAuth redirect: {e}"))?
        .port();
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");
    let mut request = AuthorizationRequest::new(redirect_uri.clone()).with_client_name("wink");
    request = if spec.scopes.is_empty() {
        request.with_initial_scope_selection()
    } else {
        request.with_scopes(spec.scopes.iter().cloned())
    };
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    if let Some(client_id) = &spec.client_id {
        request = request.with_preregistered_client(client_id.clone());
        if let Some(secret) = secret {
            request = request.with_client_secret(secret);
        }
    }
    if let Some(url) = &spec.client_metadata_url {
        request = request.with_client_metadata_url(url.clone());
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| format!("OAuth: {e}"))?;
    open_in_browser(session.get_authorization_url())?;
    let callback = tokio::time::timeout(LOGIN_WAIT, wait_for_redirect(&listener, port))
        .await
        .map_err(|_| {
            format!(
                "no authorization came back to {redirect_uri} within {} s",
                LOGIN_WAIT.as_secs()
            )
        })??;
    session
        .handle_callback_url(&callback)
        .await
        .map_err(|e| format!("OAuth: {e}"))?;
    Ok(session.auth_manager)
}

/// Opens `url` with `$BROWSER`, else prints it on stderr for the person to open.
fn open_in_browser(url: &str) -> Result<(), String> {
    match std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
    {
        Some(browser) => {
            let words =
                super::split_command_line(&browser).map_err(|e| format!("$BROWSER: {e}"))?;
            let Some((program, args)) = words.split_first() else {
                return Err("$BROWSER is empty".to_owned());
            };
            std::process::Command::new(program)
                .args(args)
                .arg(url)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot run $BROWSER ({program}): {e}"))?;
            eprintln!("Opened the authorization page with $BROWSER; waiting for it to finish.");
        }
        None => eprintln!("Open this page to log in (wink waits for it to finish):\n{url}"),
    }
    Ok(())
}

/// Serves the loopback redirect once: the request's full URL.
async fn wait_for_redirect(
    listener: &tokio::net::TcpListener,
    port: u16,
) -> Result<String, String> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|e| format!("the OAuth redirect failed: {e}"))?;
        let mut buffer = vec![0u8; 8192];
        let read = stream.read(&mut buffer).await.unwrap_or(0);
        let head = String::from_utf8_lossy(&buffer[..read]).into_owned();
        let target = head
            .lines()
            .next()
            .and_then(|line| line.split_whitespace().nth(1))
            .unwrap_or("/")
            .to_owned();
        if !target.starts_with("/callback") {
            let _ = stream
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
            continue;
        }
        let page = "wink: logged in. You can close this page.";
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
        return Ok(format!("http://127.0.0.1:{port}{target}"));
    }
}

/// Logs in to `spec`'s server ahead of a run (`wink mcp login`; blocks until done): asks the
/// server for its challenge, then runs [`login`]. `Ok(None)` when the server asks for no
/// authorization.
pub fn log_in_to(spec: &ServerSpec) -> Result<Option<LoginReport>, String> {
    let ServerTransport::Http { url, .. } = &spec.transport else {
        return Err(
            "only `url` servers log in (OAuth); a `command` server gets its secrets through env"
                .to_owned(),
        );
    };
    super::connection::install_crypto_provider();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let oauth = spec.oauth.clone().unwrap_or_default();
    runtime.block_on(async {
        let Some(challenge) = challenge(url).await? else {
            return Ok(None);
        };
        login(url, &oauth, Some(challenge)).await.map(Some)
    })
}

/// Removes the stored tokens of the server at `url`; true when there were some.
pub fn logout(url: &str) -> Result<bool, String> {
    let Some(path) = token_path(url) else {
        return Ok(false);
    };
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_files_are_private_and_named_per_url() {
        let dir = std::env::temp_dir().join(format!("wink-oauth-test-{}", std::process::id()));
        let path = dir.join("t.json");
        let store = TokenFile::at(path.clone());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            assert!(store.load().await.unwrap().is_none());
            store
                .save(StoredCredentials::new(
                    "client-1".into(),
                    None,
                    vec!["read".into()],
                    Some(1),
                ))
                .await
                .unwrap();
            assert_eq!(store.load().await.unwrap().unwrap().client_id, "client-1");
        });
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        runtime.block_on(store.clear()).unwrap();
        assert!(!path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
        let a = token_path("https://a.example/mcp").unwrap();
        let b = token_path("https://b.example/mcp").unwrap();
        assert_ne!(a, b);
        assert!(
            a.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("httpsaexamplemcp-")
        );
    }
}
