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
        let queries: Vec<&String> = query
            .queries
            .iter()
            .filter(|q| !q.trim().is_empty())
            .collect();
        // With queries: the search's tools in search order; else the catalog in its order.
        let candidates: Vec<&CatalogEntry> = match queries.as_slice() {
            [] => self.entries.iter().collect(),
            [one] => self.searched(TaskInput::Text(one)),
            _ => self.searched(TaskInput::Queries(&query.queries)),
        };
        let matching: Vec<&CatalogEntry> = candidates
            .into_iter()
            .filter(|e| namespace.is_none_or(|n| Self::in_namespace(e, n)))
            .filter(|e| tag.is_none_or(|t| Self::has_tag(e, t)))
            .collect();
        let mut scope = match (namespace, tag) {
            (None, None) => "Catalog".to_owned(),
            (Some(n), None) => format!("Namespace `{n}`"),
            (None, Some(t)) => format!("Tag `{t}`"),
            (Some(n), Some(t)) => format!("Namespace `{n}`, tag `{t}`"),
        };
        if !queries.is_empty() {
            let quoted: Vec<String> = queries
                .iter()
                .map(|q| format!("\"{}\"", q.trim()))
                .collect();
            scope = format!("{scope}, tools found for {}", quoted.join(", "));
        }
        let total = matching.len();
        if total == 0 {
            return if queries.is_empty() {
                format!("{scope}: no tools match both filters.")
            } else {
                format!(
                    "{scope}: none. The search only matches words of tool names and descriptions: try other words, or list without a query."
                )
            };
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
    /// purpose contains come first; ties by name). A purpose with several steps ("find X, then
    /// chart it") gets a list covering each step, see [`Catalog::find_task`].
    pub fn find(&self, purpose: &str, limit: usize) -> Vec<Found> {
        self.find_task(TaskInput::Text(purpose), limit).hits
    }

    /// Up to `limit` entries covering a task: a text split into steps, or capabilities named one
    /// by one; each hit says which step it serves.
    pub fn find_task(&self, input: TaskInput<'_>, limit: usize) -> FoundTask {
        let result = self.search.search_task(input, limit);
        FoundTask {
            hits: result
                .hits
                .into_iter()
                .map(|hit| Found {
                    entry: hit.hit.index,
                    score: hit.hit.score,
                    exact_name: hit.hit.exact_name,
                    step: hit.step,
                })
                .collect(),
            steps: result.steps,
        }
    }

    /// The `find_tool` text. An empty result says the search found nothing — never that no
    /// such tool exists — and points at `tool.list`.
    pub fn find_text(&self, purpose: &str, limit: usize) -> String {
        self.task_text(
            TaskInput::Text(purpose),
            Some(limit),
            crate::section::FIND_NOTE,
        )
    }

    /// The `find_tool` text for a task or named capabilities, `note` in the heading's
    /// parentheses (what to do with the tools: describe them, or, in native mode, call them
    /// directly). `limit` defaults to
    /// [`DEFAULT_FIND_LIMIT`] for one step and [`DEFAULT_FIND_PER_STEP`] per step for more;
    /// it is at most [`MAX_FIND_LIMIT`]. One step reads as a plain search; several are listed
    /// step by step, each tool under the step it serves.
    pub fn task_text(&self, input: TaskInput<'_>, limit: Option<usize>, note: &str) -> String {
        let limit = limit
            .unwrap_or_else(|| default_find_limit(step_count(input)))
            .clamp(1, MAX_FIND_LIMIT);
        let found = self.find_task(input, limit);
        let quoted = match input {
            TaskInput::Text(text) => format!("\"{}\"", text.trim()),
            _ => found
                .steps
                .iter()
                .map(|step| format!("\"{step}\""))
                .collect::<Vec<_>>()
                .join(", "),
        };
        if found.hits.is_empty() {
            return self.found_nothing(&quoted);
        }
        if found.steps.len() <= 1 {
            let mut out = format!("Tools for {quoted}, best first ({note}):");
            for hit in &found.hits {
                out.push('\n');
                out.push_str(&self.entries[hit.entry].line);
            }
            return out;
        }
        let mut out = format!(
            "Tools for {quoted}, by step ({} steps; {note}):",
            found.steps.len()
        );
        for (position, step) in found.steps.iter().enumerate() {
            out.push_str(&format!("\nStep {}, \"{step}\":", position + 1));
            let mut any = false;
            for hit in found.hits.iter().filter(|hit| hit.step == position) {
                out.push('\n');
                out.push_str(&self.entries[hit.entry].line);
                any = true;
            }
            if !any {
                out.push_str(" no tool found; search for it in other words.");
            }
        }
        out
    }

    /// The entries the search finds for `input`, at most [`MAX_LIST_LIMIT`], in search order.
    fn searched(&self, input: TaskInput<'_>) -> Vec<&CatalogEntry> {
        self.find_task(input, MAX_LIST_LIMIT)
            .hits
            .iter()
            .map(|hit| &self.entries[hit.entry])
            .collect()
    }

    /// The text of a search that found nothing: never a claim that no tool exists.
    fn found_nothing(&self, quoted: &str) -> String {
        let browse = if self.namespaces.is_empty() {
            "browse the catalog with `tool.list`".to_owned()
        } else {
            let names: Vec<&str> = self.namespaces.iter().map(|n| n.name.as_str()).collect();
            format!(
                "browse the catalog with `tool.list` (namespaces: {})",
                hint(&names)
            )
        };
        format!(
            "The search found no tool for {quoted}. That does not mean the catalog lacks one: the search only matches words of tool names and descriptions. Describe the capability in other words, or {browse}."
        )
    }
}

/// How many steps `input` has.
pub fn step_count(input: TaskInput<'_>) -> usize {
    match input {
        TaskInput::Text(text) => wink_search::split_task(text).len(),
        TaskInput::Queries(queries) | TaskInput::Steps { steps: queries, .. } => queries
            .iter()
            .filter(|q| !q.trim().is_empty())
            .count()
            .max(1),
        _ => 1,
    }
}

/// The default number of `find_tool` results for a task of `steps` steps.
pub fn default_find_limit(steps: usize) -> usize {
    if steps <= 1 {
        DEFAULT_FIND_LIMIT
    } else {
        (steps * DEFAULT_FIND_PER_STEP).clamp(DEFAULT_FIND_LIMIT, MAX_FIND_LIMIT)
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
