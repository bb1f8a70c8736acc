//! One skill folder: its `SKILL.md` read and validated exactly as the reference validator
//! (`skills-ref validate`, PyPI `skills-ref` 0.1.1) does, with each problem located by file,
//! line and field.

use std::fmt;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::frontmatter::{self, Node};

/// Longest skill name, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest `compatibility`, in characters.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// The front-matter keys the specification allows (sorted, as the reference prints them).
pub const ALLOWED_FIELDS: [&str; 6] = [
    "allowed-tools",
    "compatibility",
    "description",
    "license",
    "metadata",
    "name",
];

/// One problem with a skill. `Display`: `file:line: field: message` (line and field when known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillIssue {
    /// The `SKILL.md` (or the folder, when it has none).
    pub file: PathBuf,
    /// 1-based line in `file`.
    pub line: Option<usize>,
    /// The front-matter field concerned.
    pub field: Option<String>,
    /// The reference validator's message, word for word.
    pub message: String,
}

impl fmt::Display for SkillIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A valid skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    /// `name` (stripped), equal to the folder name.
    pub name: String,
    /// `description` (stripped).
    pub description: String,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `metadata`, values as text.
    pub metadata: IndexMap<String, String>,
    /// `allowed-tools` (space-separated in the file, or a block list); `None` when absent.
    pub allowed_tools: Option<Vec<String>>,
    /// The whole front matter as JSON (scalars as strings), as the MCP Skills extension
    /// publishes it.
    pub frontmatter: serde_json::Map<String, serde_json::Value>,
    /// The Markdown after the front matter, stripped.
    pub body: String,
    /// The skill folder.
    pub dir: PathBuf,
    /// Its `SKILL.md` (or `skill.md`).
    pub skill_md: PathBuf,
    /// Every other regular file of the folder, relative, `/`-separated, sorted. Symbolic links
    /// are left out.
    pub files: Vec<String>,
}

impl Skill {
    /// Whether `tool` may be called while this skill is active: always when the skill has no
    /// `allowed-tools`; otherwise when an entry is the tool's name or `name(…)` (argument
    /// patterns such as `Bash(git:*)` allow the tool; its arguments are not checked).
    pub fn allows(&self, tool: &str) -> bool {
        let Some(allowed) = &self.allowed_tools else {
            return true;
        };
        allowed.iter().any(|entry| {
            entry == tool
                || entry
                    .strip_prefix(tool)
                    .is_some_and(|rest| rest.starts_with('(') && rest.ends_with(')'))
        })
    }
}

/// Find the skill file of `dir` the way the reference does: `SKILL.md`, else `skill.md`.
pub fn find_skill_md(dir: &Path) -> Option<PathBuf> {
    ["SKILL.md", "skill.md"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.exists())
}

/// Read and validate one skill folder (or a `SKILL.md` path: its folder is used). The problems
/// are the reference's, in its order.
pub fn load_skill(path: &Path) -> Result<Skill, Vec<SkillIssue>> {
    let dir = if path.is_file()
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.eq_ignore_ascii_case("skill.md"))
    {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        path.to_path_buf()
    };
    let at_dir = |message: String| {
        vec![SkillIssue {
            file: dir.clone(),
            line: None,
            field: None,
            message,
        }]
    };
    if !dir.exists() {
        return Err(at_dir(format!("Path does not exist: {}", dir.display())));
    }
    if !dir.is_dir() {
        return Err(at_dir(format!("Not a directory: {}", dir.display())));
    }
    let Some(skill_md) = find_skill_md(&dir) else {
        return Err(at_dir("Missing required file: SKILL.md".into()));
    };
    let at_file = |line: usize, field: Option<&str>, message: String| SkillIssue {
        file: skill_md.clone(),
        line: Some(line),
        field: field.map(str::to_owned),
        message,
    };
    let bytes = std::fs::read(&skill_md)
        .map_err(|e| vec![at_file(1, None, format!("Cannot read SKILL.md: {e}"))])?;
    let text = String::from_utf8(bytes)
        .map_err(|_| vec![at_file(1, None, "SKILL.md is not valid UTF-8".into())])?;
    // Python's `read_text` reads with universal newlines.
    let content = text.replace("\r\n", "\n").replace('\r', "\n");
    let parsed =
        frontmatter::parse(&content).map_err(|e| vec![at_file(e.line, None, e.message)])?;
    let lines = FieldLines::new(&parsed.raw);
    let issues = validate_fields(&parsed.entries, &dir, |field, message| {
        at_file(lines.line_of(field), Some(field), message)
    });
    if !issues.is_empty() {
        return Err(issues);
    }
    let get = |key: &str| {
        parsed
            .entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    };
    let text_of = |key: &str| get(key).map(Node::python_text);
    let metadata = match get("metadata") {
        Some(Node::Map(entries)) => entries
            .iter()
            .map(|(k, v)| (k.clone(), v.python_text()))
            .collect(),
        _ => IndexMap::new(),
    };
    let allowed_tools = get("allowed-tools").map(|node| match node {
        Node::Seq(items) => items.iter().map(Node::python_text).collect(),
        other => other
            .python_text()
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
    });
    let files = bundled_files(&dir, &skill_md).map_err(|e| {
        vec![at_file(
            1,
            None,
            format!("Cannot list the skill folder: {e}"),
        )]
    })?;
    Ok(Skill {
        name: text_of("name").unwrap_or_default().trim().to_owned(),
        description: text_of("description").unwrap_or_default().trim().to_owned(),
        license: text_of("license"),
        compatibility: text_of("compatibility"),
        metadata,
        allowed_tools,
        frontmatter: parsed
            .entries
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect(),
        body: parsed.body,
        dir,
        skill_md,
        files,
    })
}

/// The reference's `validate_metadata`: unknown fields, then `name`, `description` and
/// `compatibility`, with its messages.
fn validate_fields<F>(entries: &[(String, Node)], dir: &Path, issue: F) -> Vec<SkillIssue>
where
    F: Fn(&str, String) -> SkillIssue,
{
    let mut issues = Vec::new();
    let mut extra: Vec<&str> = entries
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !ALLOWED_FIELDS.contains(k))
        .collect();
    extra.sort_unstable();
    extra.dedup();
    if let Some(first) = extra.first() {
        let allowed: Vec<String> = ALLOWED_FIELDS.iter().map(|f| format!("'{f}'")).collect();
        issues.push(issue(
            first,
            format!(
                "Unexpected fields in frontmatter: {}. Only [{}] are allowed.",
                extra.join(", "),
                allowed.join(", ")
            ),
        ));
    }
    let get = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    match get("name") {
        None => issues.push(issue(
            "name",
            "Missing required field in frontmatter: name".into(),
        )),
        Some(node) => {
            for message in name_problems(node.as_str(), dir) {
                issues.push(issue("name", message));
            }
        }
    }
    match get("description") {
        None => issues.push(issue(
            "description",
            "Missing required field in frontmatter: description".into(),
        )),
        Some(node) => match node.as_str() {
            Some(d) if !d.trim().is_empty() => {
                let chars = d.chars().count();
                if chars > MAX_DESCRIPTION_CHARS {
                    issues.push(issue(
                        "description",
                        format!(
                            "Description exceeds {MAX_DESCRIPTION_CHARS} character limit ({chars} chars)"
                        ),
                    ));
                }
            }
            _ => issues.push(issue(
                "description",
                "Field 'description' must be a non-empty string".into(),
            )),
        },
    }
    if let Some(node) = get("compatibility") {
        match node.as_str() {
            None => issues.push(issue(
                "compatibility",
                "Field 'compatibility' must be a string".into(),
            )),
            Some(c) => {
                let chars = c.chars().count();
                if chars > MAX_COMPATIBILITY_CHARS {
                    issues.push(issue(
                        "compatibility",
                        format!(
                            "Compatibility exceeds {MAX_COMPATIBILITY_CHARS} character limit ({chars} chars)"
                        ),
                    ));
                }
            }
        }
    }
    issues
}

/// The reference's `_validate_name` (without its NFKC normalisation: see docs/skills.md).
fn name_problems(name: Option<&str>, dir: &Path) -> Vec<String> {
    let Some(name) = name.filter(|n| !n.trim().is_empty()) else {
        return vec!["Field 'name' must be a non-empty string".into()];
    };
    let name = name.trim();
    let mut problems = Vec::new();
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        problems.push(format!(
            "Skill name '{name}' exceeds {MAX_NAME_CHARS} character limit ({chars} chars)"
        ));
    }
    if name != name.to_lowercase() {
        problems.push(format!("Skill name '{name}' must be lowercase"));
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push("Skill name cannot start or end with a hyphen".into());
    }
    if name.contains("--") {
        problems.push("Skill name cannot contain consecutive hyphens".into());
    }
    if !name.chars().all(|c| c.is_alphanumeric() || c == '-') {
        problems.push(format!(
            "Skill name '{name}' contains invalid characters. Only letters, digits, and hyphens are allowed."
        ));
    }
    let dir_name = dir_name(dir);
    if dir_name != name {
        problems.push(format!(
            "Directory name '{dir_name}' must match skill name '{name}'"
        ));
    }
    problems
}

/// The folder's name as Python's `Path(...).name` gives it (`.` and `..` resolved first).
fn dir_name(dir: &Path) -> String {
    let named = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty());
    match named {
        Some(name) => name,
        None => std::path::absolute(dir)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default(),
    }
}

/// Lines of top-level keys in the front matter (the line of its first appearance).
struct FieldLines {
    lines: Vec<(String, usize)>,
}

impl FieldLines {
    fn new(raw: &str) -> Self {
        let lines = raw
            .split('\n')
            .enumerate()
            .filter(|(_, line)| !line.starts_with([' ', '\t', '#', '-']))
            .filter_map(|(index, line)| {
                let (key, _) = line.split_once(':')?;
                let key = key.trim().trim_matches(['"', '\'']);
                (!key.is_empty()).then(|| (key.to_owned(), index + 1))
            })
            .collect();
        Self { lines }
    }

    /// The line of `field`, or line 1 (the front matter's start) when it is absent.
    fn line_of(&self, field: &str) -> usize {
        self.lines
            .iter()
            .find(|(k, _)| k == field)
            .map_or(1, |(_, line)| *line)
    }
}

/// Every regular file under `dir` except the skill file, relative and sorted.
fn bundled_files(dir: &Path, skill_md: &Path) -> std::io::Result<Vec<String>> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        for entry in std::fs::read_dir(dir.join(&relative))? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = relative.join(entry.file_name());
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() && dir.join(&path) != skill_md {
                let parts: Vec<String> = path
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                files.push(parts.join("/"));
            }
        }
    }
    files.sort();
    Ok(files)
}
