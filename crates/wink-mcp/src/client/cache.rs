//! The on-disk cache of MCP servers' tool lists, so that rendering a prompt over MCP servers
//! starts nothing while the lists are fresh.
//!
//! One JSON file per server identity: the transport, the command (or URL), the working
//! directory, the names of the environment variables and headers (never their values) and the
//! modification times of the program and of the files its arguments name — so upgrading an
//! installed server gives a new entry. An entry is fresh for the `ttlMs` the server's
//! `tools/list` gave (at most [`MAX_TTL`]), else for [`DEFAULT_TTL`]; each live listing rewrites
//! it.
//!
//! An entry is checked before it is used: one that is not a cache entry, is dated in the future
//! or lists tools no catalog could take (a name that is empty, too long or holds whitespace, a
//! name twice, parameters that are not a JSON object) is ignored with a warning naming its file,
//! and the server lists its tools again.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::json;

use wink_catalog::ToolRecord;

use super::connection::ToolList;
use super::servers::{ServerSpec, ServerTransport};

/// How long a tool list stays fresh when the server gave no `ttlMs`.
pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// The longest a tool list stays fresh, whatever `ttlMs` the server gave.
pub const MAX_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// A directory of cached tool lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCache {
    dir: PathBuf,
}

/// A cache entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedTools {
    /// The identity the entry was made for (see the module documentation).
    pub identity: serde_json::Value,
    /// The server's version from its handshake.
    pub server_version: String,
    /// When the list was fetched, in milliseconds since the Unix epoch.
    pub fetched_at_ms: u64,
    /// The server's `ttlMs`, when it gave one.
    pub ttl_ms: Option<u64>,
    /// The tools, named as the server names them.
    pub tools: Vec<ToolRecord>,
}

impl ToolCache {
    /// A cache in `dir` (created on the first store).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The default cache: `$WINK_HOME/mcp-tools`, else `$XDG_CACHE_HOME/wink/mcp-tools`, else
    /// `~/.cache/wink/mcp-tools`; `None` when none of these variables is set.
    pub fn default_location() -> Option<Self> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let base = if let Some(home) = var("WINK_HOME") {
            PathBuf::from(home)
        } else if let Some(cache) = var("XDG_CACHE_HOME") {
            PathBuf::from(cache).join("wink")
        } else {
            PathBuf::from(var("HOME")?).join(".cache").join("wink")
        };
        Some(Self::at(base.join("mcp-tools")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file holding `spec`'s entry.
    pub fn path_for(&self, spec: &ServerSpec) -> PathBuf {
        let identity = identity(spec).to_string();
        let safe: String = spec
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        self.dir
            .join(format!("{safe}-{:016x}.json", fnv1a(identity.as_bytes())))
    }

    /// The entry for `spec` when it exists, was made for the same identity, is fresh and
    /// passes the checks of the module documentation (a failing one is ignored with a warning).
    pub fn load(&self, spec: &ServerSpec) -> Option<CachedTools> {
        let path = self.path_for(spec);
        let text = std::fs::read_to_string(&path).ok()?;
        let ignored = |why: String| {
            tracing::warn!(
                "ignoring the MCP tool cache entry {}: {why}; listing the server's tools again",
                path.display()
            );
        };
        let entry: CachedTools = match serde_json::from_str(&text) {
            Ok(entry) => entry,
            Err(e) => {
                ignored(format!("not a cache entry ({e})"));
                return None;
            }
        };
        if entry.identity != identity(spec) {
            return None;
        }
        let now = now_ms();
        if entry.fetched_at_ms > now {
            ignored("it is dated in the future".to_owned());
            return None;
        }
        let ttl = entry
            .ttl_ms
            .map_or(DEFAULT_TTL, Duration::from_millis)
            .min(MAX_TTL);
        if u128::from(now - entry.fetched_at_ms) >= ttl.as_millis() {
            return None;
        }
        if let Err(why) = check_tools(&spec.name, &entry.tools) {
            ignored(why);
            return None;
        }
        Some(entry)
    }

    /// Writes `list` as `spec`'s entry (atomically: a temporary file renamed over it).
    pub fn store(
        &self,
        spec: &ServerSpec,
        server_version: &str,
        list: &ToolList,
    ) -> std::io::Result<()> {
        let entry = CachedTools {
            identity: identity(spec),
            server_version: server_version.to_owned(),
            fetched_at_ms: now_ms(),
            ttl_ms: list.ttl_ms,
            tools: list.tools.clone(),
        };
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path_for(spec);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let text = serde_json::to_string_pretty(&entry).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)
    }
}

/// Whether a catalog can take `tools` as server `server`'s list (see the module docs).
fn check_tools(server: &str, tools: &[ToolRecord]) -> Result<(), String> {
    let mut seen = std::collections::HashSet::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        let at = format!("tools[{index}]");
        wink_catalog::check_tool_name(&format!("{server}.{}", tool.remote_name), &at)
            .map_err(|e| e.to_string())?;
        if tool.remote_name.is_empty() {
            return Err(format!("{at} has an empty name"));
        }
        if !seen.insert(tool.remote_name.as_str()) {
            return Err(format!(
                "{at}: the name `{}` is listed twice",
                tool.remote_name
            ));
        }
        if !tool.parameters.is_object() {
            return Err(format!("{at}: parameters are not a JSON object"));
        }
    }
    Ok(())
}

/// What a cache entry is for: no secret goes in (environment values and headers are named only).
fn identity(spec: &ServerSpec) -> serde_json::Value {
    match &spec.transport {
        ServerTransport::Stdio { command, env, cwd } => {
            let env_names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
            let stamps: Vec<serde_json::Value> = command
                .iter()
                .enumerate()
                .filter_map(|(i, word)| {
                    let path = if i == 0 && !word.contains('/') {
                        find_program(word)?
                    } else {
                        let path = PathBuf::from(word);
                        match cwd {
                            Some(cwd) if path.is_relative() => cwd.join(path),
                            _ => path,
                        }
                    };
                    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
                    let ms = modified.duration_since(UNIX_EPOCH).ok()?.as_millis();
                    Some(json!([i, u64::try_from(ms).unwrap_or(u64::MAX)]))
                })
                .collect();
            json!({"stdio": command, "cwd": cwd, "env": env_names, "modified": stamps})
        }
        ServerTransport::Http { url, headers_env } => {
            let headers: Vec<&str> = headers_env.iter().map(|(h, _)| h.as_str()).collect();
            json!({"http": url, "headers": headers})
        }
    }
}

fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// 64-bit FNV-1a: a file name stable across Rust versions.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(ttl_ms: Option<u64>) -> ToolList {
        ToolList {
            tools: vec![ToolRecord::new("echo", "Echo the input.")],
            ttl_ms,
        }
    }

    #[test]
    fn stores_and_loads_fresh_entries_without_secrets() {
        let dir = std::env::temp_dir().join(format!("wink-cache-test-{}", std::process::id()));
        let cache = ToolCache::at(&dir);
        let spec =
            ServerSpec::stdio("kb", vec!["sh".into(), "-c".into()]).env("TOKEN", "${MY_SECRET}");
        assert!(cache.load(&spec).is_none());
        cache.store(&spec, "1.2.3", &list(None)).unwrap();
        let entry = cache.load(&spec).unwrap();
        assert_eq!(entry.server_version, "1.2.3");
        assert_eq!(entry.tools, list(None).tools);
        let text = std::fs::read_to_string(cache.path_for(&spec)).unwrap();
        assert!(text.contains("\"TOKEN\""), "{text}");
        assert!(!text.contains("MY_SECRET"), "{text}");
        // A ttlMs of 0 makes the entry stale at once; another command is another entry.
        cache.store(&spec, "1.2.3", &list(Some(0))).unwrap();
        assert!(cache.load(&spec).is_none());
        // A tampered entry is ignored: dated in the future, or listing a tool no catalog takes.
        cache.store(&spec, "1.2.3", &list(None)).unwrap();
        let path = cache.path_for(&spec);
        let tamper = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut entry: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            edit(&mut entry);
            std::fs::write(&path, entry.to_string()).unwrap();
        };
        tamper(&|e| e["fetched_at_ms"] = json!(now_ms() + 365 * 86_400_000));
        assert!(cache.load(&spec).is_none());
        tamper(&|e| e["fetched_at_ms"] = json!(now_ms()));
        assert!(cache.load(&spec).is_some());
        tamper(&|e| e["tools"][0]["remote_name"] = json!("two words"));
        assert!(cache.load(&spec).is_none());
        tamper(&|e| e["tools"] = json!([e["tools"][0], e["tools"][0]]));
        assert!(cache.load(&spec).is_none());
        std::fs::write(&path, "{not json").unwrap();
        assert!(cache.load(&spec).is_none());
        assert_eq!(
            check_tools(
                "kb",
                &[ToolRecord::new("find", "Find.").with_parameters(json!("x"))]
            ),
            Err("tools[0]: parameters are not a JSON object".to_owned())
        );
        let other = ServerSpec::stdio("kb", vec!["sh".into()]);
        assert_ne!(cache.path_for(&spec), cache.path_for(&other));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
