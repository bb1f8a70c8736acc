//! [`ToolFilter`]: which of an MCP server's tools join a catalog.
//!
//! A prompt file's server entry may keep only some tools (`enabled_tools`) or leave some out
//! (`disabled_tools`), as Codex's MCP configuration does: an agent that answers questions from a
//! folder has no use for the filesystem server's `write_file` or `move_file`, and every schema it
//! is offered costs prompt tokens. The server's whole list is still what the cache keeps; the
//! filter applies when the catalog is built and when a call arrives.

use crate::error::CatalogError;
use crate::record::ToolRecord;

/// Which tools of one server are offered: those `enabled` names (all when `None`), minus those
/// `disabled` names. Names are the server's own (`read_text_file`, not `fs.read_text_file`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolFilter {
    enabled: Option<Vec<String>>,
    disabled: Vec<String>,
}

impl ToolFilter {
    /// Offers every tool.
    #[must_use]
    pub fn all() -> Self {
        Self::default()
    }

    /// Offers only these tools (in the server's order, not this one's).
    #[must_use]
    pub fn enabled(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.enabled = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Leaves these tools out.
    #[must_use]
    pub fn disabled(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.disabled = names.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the tool the server names `remote_name` is offered.
    #[must_use]
    pub fn admits(&self, remote_name: &str) -> bool {
        self.enabled
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == remote_name))
            && !self.disabled.iter().any(|n| n == remote_name)
    }

    /// The tools of `tools` the filter admits.
    #[must_use]
    pub fn apply(&self, tools: &[ToolRecord]) -> Vec<ToolRecord> {
        tools
            .iter()
            .filter(|tool| self.admits(&tool.remote_name))
            .cloned()
            .collect()
    }

    /// Checks that every name the filter gives is one of `tools` (a misspelt `disabled_tools`
    /// entry would otherwise offer the very tool it meant to hide).
    pub fn check(&self, server: &str, tools: &[ToolRecord]) -> Result<(), CatalogError> {
        let listed = |name: &String| tools.iter().any(|t| &t.remote_name == name);
        let lists = [
            ("enabled_tools", self.enabled.as_deref().unwrap_or_default()),
            ("disabled_tools", self.disabled.as_slice()),
        ];
        for (key, names) in lists {
            let unknown: Vec<String> = names.iter().filter(|n| !listed(n)).cloned().collect();
            if !unknown.is_empty() {
                return Err(CatalogError::UnknownServerTools {
                    server: server.to_owned(),
                    key,
                    names: unknown,
                    available: tools.iter().map(|t| t.remote_name.clone()).collect(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(names: &[&str]) -> Vec<ToolRecord> {
        names
            .iter()
            .map(|name| ToolRecord::new(*name, "d"))
            .collect()
    }

    fn names(records: &[ToolRecord]) -> Vec<&str> {
        records.iter().map(|r| r.remote_name.as_str()).collect()
    }

    #[test]
    fn enabled_keeps_the_servers_order_and_disabled_comes_after_it() {
        let list = tools(&["read", "write", "list", "move"]);
        assert_eq!(
            names(&ToolFilter::all().apply(&list)),
            ["read", "write", "list", "move"]
        );
        let filter = ToolFilter::all()
            .enabled(["list", "read", "move"])
            .disabled(["move"]);
        assert_eq!(names(&filter.apply(&list)), ["read", "list"]);
        assert!(!filter.admits("write"));
        let filter = ToolFilter::all().disabled(["write"]);
        assert_eq!(names(&filter.apply(&list)), ["read", "list", "move"]);
        assert!(filter.check("fs", &list).is_ok());
    }

    #[test]
    fn a_name_the_server_does_not_list_is_an_error_naming_it() {
        let list = tools(&["read", "write"]);
        let error = ToolFilter::all()
            .enabled(["read", "raed"])
            .check("fs", &list)
            .map_err(|e| e.to_string());
        assert_eq!(
            error,
            Err("MCP server `fs`: enabled_tools names `raed`, which the server does not list (its tools: read, write)".to_owned())
        );
        let error = ToolFilter::all()
            .disabled(["wirte", "delete"])
            .check("fs", &list)
            .map_err(|e| e.to_string());
        assert_eq!(
            error,
            Err("MCP server `fs`: disabled_tools names `wirte`, `delete`, which the server does not list (its tools: read, write)".to_owned())
        );
    }
}
