//! `wink skills list DIR…` (each skill's name, description, path and token counts) and
//! `wink skills validate DIR…` (the reference validator's rules; exit 0 when every skill is
//! valid, 1 when any is not, 2 on bad usage).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{Value, json};
use wink_skills::{Skill, SkillIssue};
use wink_tokens::TokenCounter;

use crate::exit::usage;
use crate::output::Format;

/// `wink skills list|validate`
#[derive(Debug, Args)]
pub struct SkillsArgs {
    #[command(subcommand)]
    pub command: SkillsCommand,
}

/// Skills subcommands.
#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// List the skills of skills folders: name, description, path, o200k tokens of the
    /// metadata (name and description, as the skills section shows them) and of the body.
    List(ListArgs),
    /// Validate skills as the reference validator (`skills-ref validate`) does.
    Validate(ValidateArgs),
}

/// `wink skills list DIR… [--format json]`
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Skills folders (folders of skill folders) or skill folders.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `wink skills validate DIR… [--format json]`
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Skill folders, `SKILL.md` files, or folders of skill folders (each skill is checked).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Run `wink skills …`.
pub fn run(args: &SkillsArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        SkillsCommand::List(list) => run_list(list),
        SkillsCommand::Validate(validate) => run_validate(validate),
    }
}

fn check_exists(dirs: &[PathBuf]) -> anyhow::Result<()> {
    match dirs.iter().find(|d| !d.exists()) {
        Some(missing) => Err(usage(format!(
            "{}: no such file or folder",
            missing.display()
        ))),
        None => Ok(()),
    }
}

/// One listed skill's JSON (the `--format json` entry).
pub fn skill_entry(skill: &Skill, counter: &TokenCounter) -> Value {
    let summary = wink_skills::summary_text(skill, counter);
    json!({
        "name": skill.name,
        "description": skill.description,
        "path": skill.dir.display().to_string(),
        "metadata_tokens": counter.count(&format!("{}: {summary}", skill.name)),
        "body_tokens": counter.count(&skill.body),
        "files": skill.files,
    })
}

fn run_list(args: &ListArgs) -> anyhow::Result<ExitCode> {
    check_exists(&args.dirs)?;
    let skills = match wink_skills::load_skills(&args.dirs) {
        Ok(skills) => skills,
        Err(wink_skills::SkillsError::Invalid(issues)) => {
            for issue in &issues {
                note!("{issue}");
            }
            return Ok(ExitCode::from(crate::exit::FAILURE));
        }
        Err(e) => return Err(usage(e.to_string())),
    };
    let counter = TokenCounter::o200k()?;
    let entries: Vec<Value> = skills.iter().map(|s| skill_entry(s, &counter)).collect();
    if args.format == Format::Json {
        crate::output::println(&serde_json::to_string_pretty(&entries)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (mut metadata, mut body) = (0, 0);
    for entry in &entries {
        let m = entry["metadata_tokens"].as_u64().unwrap_or_default();
        let b = entry["body_tokens"].as_u64().unwrap_or_default();
        metadata += m;
        body += b;
        crate::output::println(&format!(
            "{}  metadata {m} tokens, body {b} tokens, {} files  {}\n  {}",
            entry["name"].as_str().unwrap_or_default(),
            entry["files"].as_array().map_or(0, Vec::len),
            entry["path"].as_str().unwrap_or_default(),
            entry["description"].as_str().unwrap_or_default(),
        ))?;
    }
    crate::output::println(&format!(
        "{} skills: metadata {metadata} tokens, bodies {body} tokens (o200k)",
        entries.len()
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn issue_json(issue: &SkillIssue) -> Value {
    json!({
        "file": issue.file.display().to_string(),
        "line": issue.line,
        "field": issue.field,
        "message": issue.message,
    })
}

fn run_validate(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    check_exists(&args.dirs)?;
    let mut targets = Vec::new();
    for dir in &args.dirs {
        targets.extend(wink_skills::validation_targets(dir).map_err(|e| usage(e.to_string()))?);
    }
    let mut all_valid = true;
    let mut report = Vec::new();
    for target in &targets {
        let outcome = wink_skills::load_skill(target);
        all_valid &= outcome.is_ok();
        report.push(validation_entry(target, &outcome));
        if args.format == Format::Text {
            match &outcome {
                Ok(skill) => {
                    crate::output::println(&format!(
                        "valid: {} ({})",
                        target.display(),
                        skill.name
                    ))?;
                }
                Err(issues) => {
                    note!("invalid: {}", target.display());
                    for issue in issues {
                        note!("  {issue}");
                    }
                }
            }
        }
    }
    if args.format == Format::Json {
        crate::output::println(&serde_json::to_string_pretty(&report)?)?;
    }
    Ok(if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::exit::FAILURE)
    })
}

fn validation_entry(target: &Path, outcome: &Result<Skill, Vec<SkillIssue>>) -> Value {
    match outcome {
        Ok(skill) => {
            json!({"path": target.display().to_string(), "valid": true, "name": skill.name, "errors": []})
        }
        Err(issues) => json!({
            "path": target.display().to_string(),
            "valid": false,
            "errors": issues.iter().map(issue_json).collect::<Vec<_>>(),
        }),
    }
}
