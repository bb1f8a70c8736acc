//! `wink` — render, call and run progressively disclosed prompts from the command line.

mod cmd;
mod exit;
mod output;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Build, inspect and run LLM agents whose prompts disclose themselves progressively.
#[derive(Debug, Parser)]
#[command(name = "wink", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render a prompt file to its prompt text (or JSON with tools and token counts).
    Render(cmd::render::RenderArgs),
    /// Run one tool of a rendered prompt file and print its result as JSON.
    Call(cmd::call::CallArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Render(args) => cmd::render::run(&args),
        Command::Call(args) => cmd::call::run(&args),
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            exit::code_for(&error)
        }
    }
}
