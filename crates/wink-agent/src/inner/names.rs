//! Calls of a tool by a near name: the model wrote `multiply` for `math.multiply` (a catalog
//! lists tools by their short names), or `math_multiply` for it (the name an OpenAI-style wire
//! gives a dotted tool). Outside `wink` mode such a call runs the one tool it can only mean;
//! each rename is a `resolved_tool_name` intervention.

use wink_core::{DisclosureMode, ToolCall};

use super::InnerLoop;
use crate::guard::{Intervention, InterventionKind};

/// Separators that part a namespace from a tool's own name (`math.multiply`, `fs/read`,
/// `server:tool`, `github__create_issue`). A single `_` or `-` does not: `get_product` has no
/// namespace `get`.
const NAMESPACE_SEPARATORS: [&str; 4] = [".", "/", ":", "__"];

/// `name` lower-cased with every character other than a letter or digit written as `_`.
fn folded(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The trailing parts of `name` after each namespace separator, longest first
/// (`a.b.c` → `b.c`, `c`).
fn unqualified_parts(name: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = NAMESPACE_SEPARATORS
        .iter()
        .flat_map(|sep| name.match_indices(sep).map(move |(at, _)| at + sep.len()))
        .filter_map(|start| name.get(start..))
        .filter(|rest| !rest.is_empty())
        .collect();
    parts.sort_by_key(|rest| std::cmp::Reverse(rest.len()));
    parts.dedup();
    parts
}

/// The one tool of `tools` (a name may come twice: an injected tool is both offered and in its
/// section) that `name` (not itself among them) means: the only one equal to it but for case
/// and separators, else the only one whose name after a namespace separator is. `None` when no
/// tool or more than one fits.
pub(crate) fn resolve_tool_name<'a>(
    name: &str,
    tools: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let wanted = folded(name);
    if wanted.trim_matches('_').is_empty() {
        return None;
    }
    let mut tools: Vec<&str> = tools.into_iter().collect();
    tools.sort_unstable();
    tools.dedup();
    if tools.contains(&name) {
        return None;
    }
    let only = |found: Vec<&'a str>| match found.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let same: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|tool| folded(tool) == wanted)
        .collect();
    if !same.is_empty() {
        return only(same);
    }
    let qualified: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|tool| {
            unqualified_parts(tool)
                .iter()
                .any(|part| folded(part) == wanted)
        })
        .collect();
    only(qualified)
}

impl InnerLoop {
    /// Rename each call of `calls` whose tool is neither offered nor hidden to the one offered
    /// or hidden tool its name can only mean (not in `wink` mode, which keeps WINK's unknown
    /// tools); one `resolved_tool_name` intervention per rename.
    pub(super) fn resolve_call_names(&self, calls: &mut [ToolCall]) -> Vec<Intervention> {
        if self.disclosure == DisclosureMode::Wink {
            return Vec::new();
        }
        let known: Vec<String> = self
            .offered_tools()
            .into_iter()
            .map(|t| t.name)
            .chain(self.hidden.iter().map(|h| h.spec.name.clone()))
            .collect();
        let mut interventions = Vec::new();
        for call in calls.iter_mut() {
            let Some(tool) = resolve_tool_name(&call.name, known.iter().map(String::as_str)) else {
                continue;
            };
            let detail = format!("ran `{tool}` for the call of `{}`", call.name);
            interventions.push(Intervention::for_call(
                InterventionKind::ResolvedToolName,
                call,
                detail,
            ));
            call.name = tool.to_owned();
        }
        interventions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: [&str; 6] = [
        "tool.describe",
        "math.multiply",
        "get_product",
        "github__create_issue",
        "fs/read_file",
        "read_section",
    ];

    fn resolve(name: &str) -> Option<&'static str> {
        resolve_tool_name(name, TOOLS)
    }

    #[test]
    fn a_short_or_rewritten_name_resolves_to_its_one_tool() {
        assert_eq!(resolve("multiply"), Some("math.multiply"));
        assert_eq!(resolve("math_multiply"), Some("math.multiply"));
        assert_eq!(resolve("Math-Multiply"), Some("math.multiply"));
        assert_eq!(resolve("create_issue"), Some("github__create_issue"));
        assert_eq!(resolve("read_file"), Some("fs/read_file"));
        assert_eq!(resolve("fs.read_file"), Some("fs/read_file"));
        assert_eq!(resolve("read-section"), Some("read_section"));
        assert_eq!(resolve("describe"), Some("tool.describe"));
    }

    #[test]
    fn a_known_unrelated_or_ambiguous_name_is_left_alone() {
        assert_eq!(resolve("math.multiply"), None);
        assert_eq!(resolve("product"), None, "`get` is no namespace");
        assert_eq!(resolve("divide"), None);
        assert_eq!(resolve("..."), None);
        assert_eq!(resolve(""), None);
        let both = ["math.add", "vector.add", "vector_add_all"];
        assert_eq!(resolve_tool_name("add", both), None);
        assert_eq!(resolve_tool_name("vector_add", both), Some("vector.add"));
        // A tool listed twice (offered once injected, and still in its section) is one tool.
        let injected = ["lookup_order", "math.multiply", "lookup_order"];
        assert_eq!(
            resolve_tool_name("lookup-order", injected),
            Some("lookup_order")
        );
        let same_folded = ["a.b", "a_b"];
        assert_eq!(resolve_tool_name("a-b", same_folded), None);
    }

    #[test]
    fn the_longest_qualified_tail_comes_first() {
        assert_eq!(unqualified_parts("a.b.c"), vec!["b.c", "c"]);
        assert_eq!(
            unqualified_parts("github__create_issue"),
            vec!["create_issue"]
        );
        assert_eq!(unqualified_parts("plain_name"), Vec::<&str>::new());
        assert_eq!(unqualified_parts("trailing."), Vec::<&str>::new());
    }
}
