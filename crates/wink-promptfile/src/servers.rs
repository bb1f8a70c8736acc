//! The `servers` of a `builtin: catalog` section: MCP servers, checked and described, not started.

use std::path::PathBuf;
use std::sync::Arc;

use crate::{Converter, PromptFileError, SectionSpec};

impl Converter<'_> {
    /// The `servers` of a catalog section, not started.
    pub(super) fn servers(
        &self,
        spec: &SectionSpec,
        at: &str,
    ) -> Result<Vec<Arc<wink_catalog::LazyServer>>, PromptFileError> {
        let cache = wink_catalog::ToolCache::default_location();
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
                        wink_catalog::ServerSpec::stdio(name.clone(), words).cwd(cwd),
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
                    entry.headers_env.iter().fold(
                        wink_catalog::ServerSpec::http(name.clone(), url.clone()),
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
            servers.push(Arc::new(wink_catalog::LazyServer::new(
                server,
                cache.clone(),
            )));
        }
        Ok(servers)
    }
}
