//! The builtin tools wink adds to a conversation, by name, with what each is for: one registry
//! that the renderer, the loop, the turn policies and the adapters all read.

/// The builtin tool that reads a summarized section.
pub const READ_SECTION: &str = "read_section";
/// The builtin tool that asks the caller to expand sections.
pub const OPEN_SECTIONS: &str = "open_sections";
/// The builtin tool that searches the hidden sections of a large tree.
pub const SEARCH_SECTIONS: &str = "search_sections";
/// A tool catalog's one-line listing of its tools.
pub const TOOL_LIST: &str = "tool.list";
/// A tool catalog's full specifications of named tools.
pub const TOOL_DESCRIBE: &str = "tool.describe";
/// A tool catalog's search by capability.
pub const FIND_TOOL: &str = "find_tool";
/// A skill's files, read by path.
pub const READ_SKILL_FILE: &str = "read_skill_file";
/// A run of a sub-agent.
pub const DISPATCH_SUBAGENT: &str = "dispatch_subagent";
/// The answer tool: its call is the turn's answer.
pub const FINAL_ANSWER: &str = "final_answer";

/// What a builtin tool is for.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinKind {
    /// Discloses a summarized section's content (`read_section`, `open_sections`,
    /// `search_sections`).
    Section,
    /// Discloses a tool catalog's tools (`tool.list`, `tool.describe`, `find_tool`).
    Catalog,
    /// Reads a skill's files.
    Skill,
    /// Runs a sub-agent.
    Subagent,
    /// Gives the answer.
    Answer,
}

/// A builtin tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinTool {
    /// Its name.
    pub name: &'static str,
    /// What it is for.
    pub kind: BuiltinKind,
}

/// Every builtin tool.
pub const BUILTIN_TOOLS: [BuiltinTool; 9] = [
    BuiltinTool {
        name: READ_SECTION,
        kind: BuiltinKind::Section,
    },
    BuiltinTool {
        name: OPEN_SECTIONS,
        kind: BuiltinKind::Section,
    },
    BuiltinTool {
        name: SEARCH_SECTIONS,
        kind: BuiltinKind::Section,
    },
    BuiltinTool {
        name: TOOL_LIST,
        kind: BuiltinKind::Catalog,
    },
    BuiltinTool {
        name: TOOL_DESCRIBE,
        kind: BuiltinKind::Catalog,
    },
    BuiltinTool {
        name: FIND_TOOL,
        kind: BuiltinKind::Catalog,
    },
    BuiltinTool {
        name: READ_SKILL_FILE,
        kind: BuiltinKind::Skill,
    },
    BuiltinTool {
        name: DISPATCH_SUBAGENT,
        kind: BuiltinKind::Subagent,
    },
    BuiltinTool {
        name: FINAL_ANSWER,
        kind: BuiltinKind::Answer,
    },
];

/// What the builtin tool `name` is for, `None` for any other tool.
#[must_use]
pub fn builtin_kind(name: &str) -> Option<BuiltinKind> {
    BUILTIN_TOOLS
        .iter()
        .find(|tool| tool.name == name)
        .map(|tool| tool.kind)
}

/// Whether `name` is a builtin that discloses summarized sections (`read_section`,
/// `open_sections`, `search_sections`): it shows prompt content and changes no state of the task.
#[must_use]
pub fn is_disclosure_tool(name: &str) -> bool {
    builtin_kind(name) == Some(BuiltinKind::Section)
}

/// Whether `name` is a builtin that discloses prompt content rather than doing the user's work:
/// a section ([`is_disclosure_tool`]) or a tool catalog's tools.
#[must_use]
pub fn discloses_content(name: &str) -> bool {
    matches!(
        builtin_kind(name),
        Some(BuiltinKind::Section | BuiltinKind::Catalog)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_has_one_kind() {
        for tool in BUILTIN_TOOLS {
            assert_eq!(builtin_kind(tool.name), Some(tool.kind));
            assert_eq!(
                BUILTIN_TOOLS.iter().filter(|t| t.name == tool.name).count(),
                1,
                "{}",
                tool.name
            );
        }
        assert_eq!(builtin_kind("add"), None);
    }

    #[test]
    fn sections_and_catalogs_disclose_content() {
        assert!(is_disclosure_tool(READ_SECTION) && is_disclosure_tool(OPEN_SECTIONS));
        assert!(is_disclosure_tool(SEARCH_SECTIONS));
        assert!(!is_disclosure_tool(FIND_TOOL));
        for name in [
            READ_SECTION,
            OPEN_SECTIONS,
            TOOL_LIST,
            TOOL_DESCRIBE,
            FIND_TOOL,
        ] {
            assert!(discloses_content(name), "{name}");
        }
        for name in [READ_SKILL_FILE, DISPATCH_SUBAGENT, FINAL_ANSWER, "add"] {
            assert!(!discloses_content(name), "{name}");
        }
    }
}
