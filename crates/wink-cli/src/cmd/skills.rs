//! `wink skills list DIR…` (each skill's name, description, path and token counts) and
//! `wink skills validate DIR…` (the reference validator's rules; exit 0 when every skill is
//! valid, 1 when any is not, 2 on bad usage).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use wink_skills::report::{ListedSkill, Validation, listing_text};
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
    let listed: Vec<ListedSkill> = skills
        .iter()
        .map(|s| ListedSkill::new(s, &counter))
        .collect();
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&listed)?,
        Format::Text => listing_text(&listed),
    };
    crate::output::println(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn run_validate(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    check_exists(&args.dirs)?;
    let mut targets = Vec::new();
    for dir in &args.dirs {
        targets.extend(wink_skills::validation_targets(dir).map_err(|e| usage(e.to_string()))?);
    }
    let validations: Vec<Validation> = targets.iter().map(|t| Validation::of(t)).collect();
    if args.format == Format::Json {
        let report: Vec<_> = validations.iter().map(Validation::to_json).collect();
        crate::output::println(&serde_json::to_string_pretty(&report)?)?;
    }
    for validation in validations.iter().filter(|_| args.format == Format::Text) {
        let target = validation.path.display();
        match &validation.outcome {
            Ok(skill) => crate::output::println(&format!("valid: {target} ({})", skill.name))?,
            Err(issues) => {
                note!("invalid: {target}");
                for issue in issues {
                    note!("  {issue}");
                }
            }
        }
    }
    Ok(if validations.iter().all(|v| v.outcome.is_ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::exit::FAILURE)
    })
}
