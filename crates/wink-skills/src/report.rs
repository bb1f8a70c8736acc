//! What `wink skills list` and `wink skills validate` report: each skill's cost in tokens, and
//! each folder's verdict with the validator's issues, as text and as JSON.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};
use wink_tokens::TokenCounter;

use crate::{Skill, SkillIssue, load_skill, summary_text};

/// One skill as `wink skills list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedSkill {
    /// The skill's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its folder.
    pub path: String,
    /// Tokens of the line a prompt shows while the skill is summarized (`name: summary`).
    pub metadata_tokens: usize,
    /// Tokens of the instructions read when it is opened.
    pub body_tokens: usize,
    /// Its bundled files.
    pub files: Vec<String>,
}

impl ListedSkill {
    /// `skill` with its token counts by `counter`.
    pub fn new(skill: &Skill, counter: &TokenCounter) -> Self {
        let summary = summary_text(skill, counter);
        Self {
            name: skill.name.clone(),
            description: skill.description.clone(),
            path: skill.dir.display().to_string(),
            metadata_tokens: counter.count(&format!("{}: {summary}", skill.name)),
            body_tokens: counter.count(&skill.body),
            files: skill.files.clone(),
        }
    }
}

/// The listing as text: two lines per skill (name, tokens, files and folder; the description),
/// then the totals.
pub fn listing_text(skills: &[ListedSkill]) -> String {
    let mut lines: Vec<String> = skills
        .iter()
        .map(|skill| {
            format!(
                "{}  metadata {} tokens, body {} tokens, {} files  {}\n  {}",
                skill.name,
                skill.metadata_tokens,
                skill.body_tokens,
                skill.files.len(),
                skill.path,
                skill.description,
            )
        })
        .collect();
    let metadata: usize = skills.iter().map(|s| s.metadata_tokens).sum();
    let body: usize = skills.iter().map(|s| s.body_tokens).sum();
    lines.push(format!(
        "{} skills: metadata {metadata} tokens, bodies {body} tokens (o200k)",
        skills.len()
    ));
    lines.join("\n")
}

/// One folder's verdict from the validator.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    /// The folder (or `SKILL.md`) validated.
    pub path: PathBuf,
    /// The skill, or every problem found.
    pub outcome: Result<Skill, Vec<SkillIssue>>,
}

impl Validation {
    /// Validates the skill at `path`.
    pub fn of(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            outcome: load_skill(path),
        }
    }

    /// `{"path", "valid", "name"?, "errors": [{"file", "line", "field", "message"}]}`.
    pub fn to_json(&self) -> Value {
        let path = self.path.display().to_string();
        match &self.outcome {
            Ok(skill) => json!({"path": path, "valid": true, "name": skill.name, "errors": []}),
            Err(issues) => json!({
                "path": path,
                "valid": false,
                "errors": issues.iter().map(issue_json).collect::<Vec<_>>(),
            }),
        }
    }
}

fn issue_json(issue: &SkillIssue) -> Value {
    json!({
        "file": issue.file.display().to_string(),
        "line": issue.line,
        "field": issue.field,
        "message": issue.message,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn listed(name: &str, metadata: usize, body: usize, files: &[&str]) -> ListedSkill {
        ListedSkill {
            name: name.to_owned(),
            description: format!("What {name} does."),
            path: format!("skills/{name}"),
            metadata_tokens: metadata,
            body_tokens: body,
            files: files.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    #[test]
    fn a_listing_shows_each_skill_then_the_totals() {
        let skills = [
            listed("pdf", 12, 300, &["forms.md"]),
            listed("csv", 9, 120, &[]),
        ];
        assert_eq!(
            listing_text(&skills),
            "pdf  metadata 12 tokens, body 300 tokens, 1 files  skills/pdf\n  What pdf does.\n\
             csv  metadata 9 tokens, body 120 tokens, 0 files  skills/csv\n  What csv does.\n\
             2 skills: metadata 21 tokens, bodies 420 tokens (o200k)"
        );
        assert_eq!(
            listing_text(&[]),
            "0 skills: metadata 0 tokens, bodies 0 tokens (o200k)"
        );
    }

    #[test]
    fn a_failed_validation_lists_each_issue_with_its_place() {
        let validation = Validation {
            path: "skills/bad".into(),
            outcome: Err(vec![SkillIssue {
                file: "skills/bad/SKILL.md".into(),
                line: Some(2),
                field: Some("name".to_owned()),
                message: "Skill name 'Bad' should be lowercase".to_owned(),
            }]),
        };
        assert_eq!(
            validation.to_json(),
            json!({
                "path": "skills/bad",
                "valid": false,
                "errors": [{
                    "file": "skills/bad/SKILL.md",
                    "line": 2,
                    "field": "name",
                    "message": "Skill name 'Bad' should be lowercase",
                }],
            })
        );
    }

    #[test]
    fn a_missing_folder_is_an_invalid_skill_not_an_error() {
        let validation = Validation::of(Path::new("/nonexistent/skill"));
        let json = validation.to_json();
        assert_eq!(json["valid"], false);
        assert_eq!(json["path"], "/nonexistent/skill");
        assert!(!json["errors"].as_array().unwrap().is_empty());
    }
}
