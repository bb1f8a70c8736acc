//! # wink-skills
//!
//! [Agent Skills](https://agentskills.io/specification): folders holding a `SKILL.md` (YAML
//! front matter, then Markdown instructions) and optional bundled files. This crate reads them
//! and validates them exactly as the reference validator (`skills-ref validate`) does, and
//! offers them to a prompt as a [`SkillsSection`]: each skill a summarized child section whose
//! summary is its description, read in full on demand, with its bundled files readable through
//! the `read_skill_file` tool, and its `allowed-tools` enforced as a tool policy while it is
//! active. See `docs/skills.md`.

mod frontmatter;
pub mod report;
mod section;
mod skill;
mod strict;

use std::path::{Path, PathBuf};

pub use frontmatter::{FrontMatterError, Node, Parsed as FrontMatter, parse as parse_front_matter};
pub use section::{
    MAX_FILE_BYTES, MAX_SUMMARY_TOKENS, READ_SKILL_FILE, SkillsSection, active_skill,
    open_skill_file, read_skill_file, skill_file_head, summary_text,
};
pub use skill::{
    ALLOWED_FIELDS, MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, Skill,
    SkillIssue, find_skill_md, load_skill,
};

/// Why skills could not be loaded.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum SkillsError {
    /// A skills folder could not be read.
    #[error("{path}: cannot read the skills folder: {source}")]
    Io {
        /// The folder.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// A folder holds no skill.
    #[error("{path}: no skills found (a skill is a folder holding a SKILL.md)")]
    Empty {
        /// The folder.
        path: String,
    },
    /// Some skills are invalid (each problem on its own line).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<SkillIssue>),
    /// Two skills share a name.
    #[error("{second}: skill name '{name}' is already used by {first}")]
    Duplicate {
        /// The name.
        name: String,
        /// The first folder.
        first: String,
        /// The second folder.
        second: String,
    },
    /// A valid skill name that is not a valid section key (non-ASCII letters).
    #[error(
        "skill '{name}' cannot be a section: section keys are lowercase ASCII letters, digits, '.', '_' and '-'"
    )]
    KeyUnusable {
        /// The name.
        name: String,
    },
    /// The o200k tokenizer could not be loaded.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// The `read_skill_file` tool could not be built.
    #[error("read_skill_file: {0}")]
    Tool(String),
}

/// The skill folders of a skills folder: its child folders holding a `SKILL.md` (or
/// `skill.md`), sorted by name. Other children are ignored.
pub fn skill_dirs(root: &Path) -> Result<Vec<PathBuf>, SkillsError> {
    let io = |source| SkillsError::Io {
        path: root.display().to_string(),
        source,
    };
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(root).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() && find_skill_md(&path).is_some() {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// What `wink skills validate PATH` checks: `PATH` itself when it is a skill (it holds a
/// `SKILL.md`, or is one) or holds no skill folder (then it is reported as a skill without its
/// `SKILL.md`, as the reference does); otherwise every child folder of `PATH` (hidden ones
/// aside), so that a child without a `SKILL.md` is reported too.
pub fn validation_targets(path: &Path) -> Result<Vec<PathBuf>, SkillsError> {
    if path.is_file() || !path.is_dir() || find_skill_md(path).is_some() {
        return Ok(vec![path.to_path_buf()]);
    }
    if skill_dirs(path)?.is_empty() {
        return Ok(vec![path.to_path_buf()]);
    }
    let io = |source| SkillsError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(path).map_err(io)? {
        let child = entry.map_err(io)?.path();
        let hidden = child
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if child.is_dir() && !hidden {
            dirs.push(child);
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// Load every skill of the skills folders `roots` (each a folder of skill folders, or one
/// skill folder). Fails on any invalid skill, a folder without skills, or a repeated name.
pub fn load_skills(roots: &[PathBuf]) -> Result<Vec<Skill>, SkillsError> {
    let mut skills: Vec<Skill> = Vec::new();
    let mut issues = Vec::new();
    for root in roots {
        let dirs = if find_skill_md(root).is_some() {
            vec![root.clone()]
        } else {
            skill_dirs(root)?
        };
        if dirs.is_empty() {
            return Err(SkillsError::Empty {
                path: root.display().to_string(),
            });
        }
        for dir in dirs {
            match load_skill(&dir) {
                Ok(skill) => {
                    if let Some(first) = skills.iter().find(|s| s.name == skill.name) {
                        return Err(SkillsError::Duplicate {
                            name: skill.name.clone(),
                            first: first.dir.display().to_string(),
                            second: skill.dir.display().to_string(),
                        });
                    }
                    skills.push(skill);
                }
                Err(found) => issues.extend(found),
            }
        }
    }
    if issues.is_empty() {
        Ok(skills)
    } else {
        Err(SkillsError::Invalid(issues))
    }
}
