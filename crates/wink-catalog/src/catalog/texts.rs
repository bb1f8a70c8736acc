//! The three operations behind the meta-tools (`tool.list`, `tool.describe`,
//! `find_tool`) and the exact texts the model reads.

use super::*;

impl Catalog {
    /// The `tool.list` text: a header with the range shown, one line per tool, and how to get
    /// the next page. Filters that match nothing say what exists instead.
    pub fn list_text(&self, query: &ListQuery) -> String {
        let namespace = query.namespace.as_deref().filter(|n| !n.is_empty());
        let tag = query.tag.as_deref().filter(|t| !t.is_empty());
        if self.entries.is_empty() {
            return "The catalog holds no tools.".to_owned();
        }
        if let Some(namespace) = namespace
            && !self
                .entries
                .iter()
                .any(|e| Self::in_namespace(e, namespace))
        {
            let names: Vec<&str> = self.namespaces.iter().map(|n| n.name.as_str()).collect();
            return if names.is_empty() {
                format!("No namespace `{namespace}`: the catalog's tools have no namespaces.")
            } else {
                format!("No namespace `{namespace}`. Namespaces: {}.", hint(&names))
            };
        }
        if let Some(tag) = tag
            && !self.entries.iter().any(|e| Self::has_tag(e, tag))
        {
            let names: Vec<&str> = self.tags.iter().map(String::as_str).collect();
            return if names.is_empty() {
                format!("No tag `{tag}`: the catalog's tools have no tags.")
            } else {
                format!("No tag `{tag}`. Tags: {}.", hint(&names))
            };
        }
        let matching: Vec<&CatalogEntry> = self
            .entries
            .iter()
            .filter(|e| namespace.is_none_or(|n| Self::in_namespace(e, n)))
            .filter(|e| tag.is_none_or(|t| Self::has_tag(e, t)))
            .collect();
        let scope = match (namespace, tag) {
            (None, None) => "Catalog".to_owned(),
            (Some(n), None) => format!("Namespace `{n}`"),
            (None, Some(t)) => format!("Tag `{t}`"),
            (Some(n), Some(t)) => format!("Namespace `{n}`, tag `{t}`"),
        };
        let total = matching.len();
        if total == 0 {
            return format!("{scope}: no tools match both filters.");
        }
        if query.offset >= total {
            return format!(
                "{scope}: {total} tools; offset {} is past the end. Call `tool.list` with a smaller offset.",
                query.offset
            );
        }
        let limit = query.limit.clamp(1, MAX_LIST_LIMIT);
        let end = (query.offset + limit).min(total);
        let mut out = format!("{scope}: tools {}-{end} of {total}.", query.offset + 1);
        for entry in &matching[query.offset..end] {
            out.push('\n');
            out.push_str(&entry.line);
        }
        if end < total {
            out.push_str(&format!("\nMore: call `tool.list` with offset {end}."));
        }
        out
    }

    /// `tool.describe`: the full specification of each named tool. A name may omit its
    /// `namespace.` prefix when that leaves it unambiguous (grouped listings show such names).
    /// Unknown names are reported with the closest matches, ambiguous ones with their
    /// candidates; meta-tool names are noted as always callable.
    pub fn describe(&self, names: &[String]) -> Description {
        let mut found: Vec<usize> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        let mut meta: Vec<&str> = Vec::new();
        let mut ambiguous: Vec<(String, Vec<usize>)> = Vec::new();
        for name in names {
            let name = name.trim();
            let resolved = match self.by_name.get(name) {
                Some(&position) => Some(position),
                None => {
                    let matches = self.by_short_name(name);
                    match matches.as_slice() {
                        [only] => Some(*only),
                        [] => None,
                        _ => {
                            if !ambiguous.iter().any(|(n, _)| n == name) {
                                ambiguous.push((name.to_owned(), matches));
                            }
                            continue;
                        }
                    }
                }
            };
            if let Some(position) = resolved {
                if !found.contains(&position) {
                    found.push(position);
                }
            } else if let Some(m) = META_TOOL_NAMES.iter().find(|m| **m == name) {
                if !meta.contains(m) {
                    meta.push(m);
                }
            } else if !unknown.iter().any(|u| u == name) {
                unknown.push(name.to_owned());
            }
        }
        let mut parts: Vec<String> = Vec::new();
        if !found.is_empty() {
            let listed: Vec<String> = found
                .iter()
                .map(|&i| format!("`{}`", self.entries[i].name()))
                .collect();
            let verb = if found.len() == 1 { "is" } else { "are" };
            parts.push(format!(
                "{} {verb} now callable. Full specification{}:",
                listed.join(", "),
                if found.len() == 1 { "" } else { "s" }
            ));
        }
        for name in &meta {
            parts.push(format!(
                "`{name}` is a catalog meta-tool; it is always callable."
            ));
        }
        for (name, matches) in &ambiguous {
            let listed: Vec<String> = matches
                .iter()
                .map(|&i| format!("`{}`", self.entries[i].name()))
                .collect();
            parts.push(format!(
                "`{name}` is ambiguous: {}. Pass the full name.",
                listed.join(", ")
            ));
        }
        for name in &unknown {
            let closest: Vec<String> = self
                .index()
                .search(name, 3)
                .into_iter()
                .map(|hit| format!("`{}`", hit.name))
                .collect();
            parts.push(if closest.is_empty() {
                format!("No catalog tool is named `{name}`; `find_tool` searches by capability.")
            } else {
                format!(
                    "No catalog tool is named `{name}`. Closest names: {}.",
                    closest.join(", ")
                )
            });
        }
        for &position in &found {
            parts.push(full_spec_text(self.entries[position].tool.as_ref()));
        }
        unknown.extend(ambiguous.into_iter().map(|(name, _)| name));
        Description {
            text: parts.join("\n\n"),
            tools: found
                .iter()
                .map(|&i| self.entries[i].tool.clone())
                .collect(),
            unknown,
        }
    }

    /// Entries whose name without its namespace prefix is `short`.
    pub(super) fn by_short_name(&self, short: &str) -> Vec<usize> {
        if short.is_empty() {
            return Vec::new();
        }
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.name().len() > short.len() && e.short_name() == short)
            .map(|(i, _)| i)
            .collect()
    }

    /// `find_tool`: up to `limit` entries for `purpose`, best first (tools whose exact name the
    /// purpose contains come first; ties by name).
    pub fn find(&self, purpose: &str, limit: usize) -> Vec<Found> {
        self.search
            .search(purpose, limit)
            .into_iter()
            .map(|hit| Found {
                entry: hit.index,
                score: hit.score,
                exact_name: hit.exact_name,
            })
            .collect()
    }

    /// The `find_tool` text. An empty result says the search found nothing — never that no
    /// such tool exists — and points at `tool.list`.
    pub fn find_text(&self, purpose: &str, limit: usize) -> String {
        self.find_text_noted(
            purpose,
            limit,
            "call `tool.describe` with a name to make it callable",
        )
    }

    /// [`Catalog::find_text`] with `note` in the heading's parentheses (native mode: the provider
    /// has loaded the tools found).
    pub(crate) fn find_text_noted(&self, purpose: &str, limit: usize, note: &str) -> String {
        let limit = limit.clamp(1, MAX_FIND_LIMIT);
        let found = self.find(purpose, limit);
        let quoted = purpose.trim();
        if found.is_empty() {
            let browse = if self.namespaces.is_empty() {
                "browse the catalog with `tool.list`".to_owned()
            } else {
                let names: Vec<&str> = self.namespaces.iter().map(|n| n.name.as_str()).collect();
                format!(
                    "browse the catalog with `tool.list` (namespaces: {})",
                    hint(&names)
                )
            };
            return format!(
                "The search found no tool for \"{quoted}\". That does not mean the catalog lacks one: the search only matches words of tool names and descriptions. Describe the capability in other words, or {browse}."
            );
        }
        let mut out = format!("Tools for \"{quoted}\", best first ({note}):");
        for hit in found {
            out.push('\n');
            out.push_str(&self.entries[hit.entry].line);
        }
        out
    }
}

/// `a, b, c` — or the first [`HINT_NAMES`] and how many more.
pub(super) fn hint(names: &[&str]) -> String {
    if names.len() <= HINT_NAMES {
        names.join(", ")
    } else {
        format!(
            "{}, and {} more",
            names[..HINT_NAMES].join(", "),
            names.len() - HINT_NAMES
        )
    }
}

/// Seed 004's level 2 as text: name, description, parameters (compact JSON Schema), returns,
/// usage, examples, errors and notes.
pub fn full_spec_text(tool: &dyn Tool) -> String {
    let spec = tool.full_spec();
    let mut out = format!("### {}\n", spec.name);
    if !spec.description.trim().is_empty() {
        out.push_str(spec.description.trim());
        out.push('\n');
    }
    out.push_str("Parameters (JSON Schema): ");
    out.push_str(&spec.parameters.to_string());
    out.push_str("\nReturns: ");
    out.push_str(&spec.returns);
    if let Some(usage) = &spec.usage {
        out.push_str("\nUsage: ");
        out.push_str(usage);
    }
    if !spec.examples.is_empty() {
        out.push_str("\nExamples:");
        for example in &spec.examples {
            out.push_str(&format!(
                "\n- {}: {} → {}",
                example.description, example.input, example.output
            ));
        }
    }
    if !spec.errors.is_empty() {
        out.push_str("\nErrors: ");
        out.push_str(&spec.errors.join("; "));
    }
    if !spec.notes.is_empty() {
        out.push_str("\nNotes: ");
        out.push_str(&spec.notes.join("; "));
    }
    out
}
