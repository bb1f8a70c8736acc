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
                        wink_mcp::check_header_name(header).map_err(|why| {
                            self.invalid(format!("{key}.headers_env.{header}"), why)
                        })?;
                    }
                    entry.headers_env.iter().fold(
                        wink_mcp::ServerSpec::http(name.clone(), url.clone()),
                        |spec, (h, v)| spec.header_env(h.clone(), v.clone()),
                    )
                }
                _ => {
                    return Err(self.invalid(
                        key,
                        "a server takes exactly one of `command` (stdio) or `url` (streamable HTTP)",
                    ));
                }
            };
            let mut server = wink_mcp::LazyServer::new(server, cache.clone())
                .tool_filter(self.tool_filter(entry, &key)?);
            if let Some(seconds) = entry.timeout_s {
                server = server.call_timeout(self.server_timeout(seconds, &key)?);
            }
            servers.push(Arc::new(server));
        }
        Ok(servers)
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
