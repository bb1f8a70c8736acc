//! The `servers` of a `builtin: catalog` section: MCP servers, checked and described, not started.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::{Converter, PromptFileError, SectionSpec};

impl Converter<'_> {
    /// The `servers` of a catalog section, not started.
    pub(super) fn servers(
        &self,
        spec: &SectionSpec,
        at: &str,
    ) -> Result<Vec<Arc<wink_mcp::LazyServer>>, PromptFileError> {
        let cache = wink_mcp::ToolCache::default_location();
        let mut servers = Vec::with_capacity(spec.servers.len());
        for (name, entry) in &spec.servers {
            let key = format!("{at}.servers.{name}");
            let server = self.server_spec(name, entry, &key)?;
            let mut server = wink_mcp::LazyServer::new(server, cache.clone())
                .tool_filter(self.tool_filter(entry, &key)?);
            if let Some(seconds) = entry.timeout_s {
                server = server.call_timeout(self.server_timeout(seconds, &key)?);
            }
            servers.push(Arc::new(server));
        }
        Ok(servers)
    }

    /// How to reach server `name` (its entry at `key`), checked.
    pub(super) fn server_spec(
        &self,
        name: &str,
        entry: &crate::model::ServerEntry,
        key: &str,
    ) -> Result<wink_mcp::ServerSpec, PromptFileError> {
        let name = name.to_owned();
        let key = key.to_owned();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(self.invalid(
                key,
                "a server name is its tools' namespace: letters, digits, '_' and '-' only",
            ));
        }
        let server = match (&entry.command, &entry.url) {
            (Some(command), None) => {
                if entry.oauth.is_some() {
                    return Err(self.invalid(format!("{key}.oauth"), "oauth is for `url` servers"));
                }
                if !entry.headers_env.is_empty() {
                    return Err(self.invalid(
                        format!("{key}.headers_env"),
                        "headers_env is for `url` servers",
                    ));
                }
                let Some((program, args)) = command.split_first() else {
                    return Err(
                        self.invalid(format!("{key}.command"), "command must name a program")
                    );
                };
                let program_path = PathBuf::from(program);
                let program = if program.contains('/') && program_path.is_relative() {
                    self.base_dir.join(program_path).display().to_string()
                } else {
                    program.clone()
                };
                let words = std::iter::once(program)
                    .chain(args.iter().cloned())
                    .collect();
                let cwd = match &entry.cwd {
                    Some(dir) => self.base_dir.join(dir),
                    None => self.base_dir.to_path_buf(),
                };
                entry.env.iter().fold(
                    wink_mcp::ServerSpec::stdio(name.clone(), words).cwd(cwd),
                    |spec, (k, v)| spec.env(k.clone(), v.clone()),
                )
            }
            (None, Some(url)) => {
                if !entry.env.is_empty() || entry.cwd.is_some() {
                    return Err(self.invalid(
                        key,
                        "env and cwd are for `command` servers; a `url` server takes headers_env",
                    ));
                }
                wink_mcp::check_server_url(url)
                    .map_err(|why| self.invalid(format!("{key}.url"), why))?;
                for header in entry.headers_env.keys() {
                    wink_mcp::check_header_name(header)
                        .map_err(|why| self.invalid(format!("{key}.headers_env.{header}"), why))?;
                }
                let mut spec = entry.headers_env.iter().fold(
                    wink_mcp::ServerSpec::http(name.clone(), url.clone()),
                    |spec, (h, v)| spec.header_env(h.clone(), v.clone()),
                );
                if let Some(oauth) = &entry.oauth {
                    spec = spec.oauth(self.oauth(oauth, &format!("{key}.oauth"))?);
                }
                spec.login_command(format!("wink mcp login {} {name}", self.origin))
            }
            _ => {
                return Err(self.invalid(
                    key,
                    "a server takes exactly one of `command` (stdio) or `url` (streamable HTTP)",
                ));
            }
        };
        Ok(server)
    }

    /// A server's `oauth` block, checked.
    fn oauth(
        &self,
        entry: &crate::model::OAuthEntry,
        key: &str,
    ) -> Result<wink_mcp::OAuthSpec, PromptFileError> {
        let grant = match entry.grant.as_deref() {
            None | Some("authorization_code") => wink_mcp::OAuthGrant::AuthorizationCode,
            Some("client_credentials") => wink_mcp::OAuthGrant::ClientCredentials,
            Some(other) => {
                return Err(self.invalid(
                    format!("{key}.grant"),
                    format!("grant is `authorization_code` or `client_credentials`, not `{other}`"),
                ));
            }
        };
        if let Some(method) = &entry.token_endpoint_auth
            && !matches!(
                method.as_str(),
                "client_secret_basic" | "client_secret_post" | "none" | "private_key_jwt"
            )
        {
            return Err(self.invalid(
                format!("{key}.token_endpoint_auth"),
                format!(
                    "token_endpoint_auth is client_secret_basic, client_secret_post, none or private_key_jwt, not `{method}`"
                ),
            ));
        }
        let private_key = match (&entry.private_key_env, &entry.private_key_file) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    key,
                    "give the private key in one of private_key_env or private_key_file",
                ));
            }
            (Some(var), None) => Some(wink_mcp::PrivateKeySource::Env(var.clone())),
            (None, Some(file)) => Some(wink_mcp::PrivateKeySource::File(self.base_dir.join(file))),
            (None, None) => None,
        };
        let jwt = entry.token_endpoint_auth.as_deref() == Some("private_key_jwt");
        if jwt != private_key.is_some() {
            let why = if jwt {
                "token_endpoint_auth private_key_jwt needs private_key_env or private_key_file"
            } else {
                "private_key_env and private_key_file are for token_endpoint_auth private_key_jwt"
            };
            return Err(self.invalid(key, why));
        }
        if jwt && grant != wink_mcp::OAuthGrant::ClientCredentials {
            return Err(self.invalid(
                format!("{key}.token_endpoint_auth"),
                "token_endpoint_auth private_key_jwt goes with grant client_credentials",
            ));
        }
        if grant == wink_mcp::OAuthGrant::ClientCredentials
            && (entry.client_id.is_none() || (entry.client_secret_env.is_none() && !jwt))
        {
            return Err(self.invalid(
                key,
                "the client_credentials grant needs client_id and client_secret_env (or, with private_key_jwt, a private key)",
            ));
        }
        if let Some(url) = &entry.client_metadata_url
            && !url.starts_with("https://")
        {
            return Err(self.invalid(
                format!("{key}.client_metadata_url"),
                "a Client ID Metadata Document URL is an https:// URL",
            ));
        }
        Ok(wink_mcp::OAuthSpec {
            client_id: entry.client_id.clone(),
            client_secret_env: entry.client_secret_env.clone(),
            private_key,
            scopes: entry.scopes.clone().unwrap_or_default(),
            grant,
            token_endpoint_auth: entry.token_endpoint_auth.clone(),
            client_metadata_url: entry.client_metadata_url.clone(),
        })
    }

    /// A server's `enabled_tools` and `disabled_tools` (checked against its tool list when the
    /// list is loaded).
    fn tool_filter(
        &self,
        entry: &crate::model::ServerEntry,
        key: &str,
    ) -> Result<wink_catalog::ToolFilter, PromptFileError> {
        let mut filter = wink_catalog::ToolFilter::all();
        if let Some(enabled) = &entry.enabled_tools {
            if enabled.is_empty() {
                return Err(self.invalid(
                    format!("{key}.enabled_tools"),
                    "enabled_tools names no tool; leave the server out instead",
                ));
            }
            filter = filter.enabled(enabled.iter().cloned());
        }
        Ok(filter.disabled(entry.disabled_tools.iter().cloned()))
    }

    /// A server's `timeout_s`: more than 0, at most a day (as for command tools).
    fn server_timeout(&self, seconds: f64, key: &str) -> Result<Duration, PromptFileError> {
        if seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 {
            Ok(Duration::from_secs_f64(seconds))
        } else {
            Err(self.invalid(
                format!("{key}.timeout_s"),
                format!("timeout_s must be between 0 and 86400 seconds, not {seconds}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::{FileFormat, load_str};

    /// Loads a prompt whose catalog names one `url` server with `oauth`: the error, or `Ok`
    /// when the block was accepted (loading then fails on the closed port it names).
    fn load(oauth: &str) -> Result<(), String> {
        let file = format!(
            r#"{{"ns": "t", "key": "p", "sections": [{{"key": "tools", "title": "Tools",
                "builtin": "catalog", "defer": "never",
                "servers": {{"s": {{"url": "http://127.0.0.1:9/mcp", "oauth": {oauth}}}}}}}]}}"#
        );
        match load_str(&file, FileFormat::Json, Path::new("."), "p.json") {
            Ok(_) => Ok(()),
            Err(e) if e.to_string().contains(": MCP initialisation failed: ") => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn a_private_key_jwt_client_names_its_key_once() {
        let jwt = r#""client_id": "c", "grant": "client_credentials", "token_endpoint_auth": "private_key_jwt""#;
        load(&format!(r#"{{{jwt}, "private_key_env": "KEY"}}"#)).unwrap();
        load(&format!(r#"{{{jwt}, "private_key_file": "key.pem"}}"#)).unwrap();
        let at = "p.json: sections[0].servers.s.oauth";
        assert_eq!(
            load(&format!("{{{jwt}}}")).unwrap_err(),
            format!(
                "{at}: token_endpoint_auth private_key_jwt needs private_key_env or private_key_file"
            )
        );
        assert_eq!(
            load(&format!(
                r#"{{{jwt}, "private_key_env": "KEY", "private_key_file": "key.pem"}}"#
            ))
            .unwrap_err(),
            format!("{at}: give the private key in one of private_key_env or private_key_file")
        );
        assert_eq!(
            load(r#"{"client_id": "c", "client_secret_env": "S", "private_key_env": "KEY"}"#)
                .unwrap_err(),
            format!(
                "{at}: private_key_env and private_key_file are for token_endpoint_auth private_key_jwt"
            )
        );
        assert_eq!(
            load(r#"{"client_id": "c", "token_endpoint_auth": "private_key_jwt", "private_key_env": "KEY"}"#)
                .unwrap_err(),
            format!(
                "{at}.token_endpoint_auth: token_endpoint_auth private_key_jwt goes with grant client_credentials"
            )
        );
        assert_eq!(
            load(r#"{"grant": "client_credentials", "client_id": "c"}"#).unwrap_err(),
            format!(
                "{at}: the client_credentials grant needs client_id and client_secret_env (or, with private_key_jwt, a private key)"
            )
        );
    }
}
