//! `wink mcp serve`, `wink mcp login`, `wink mcp logout`.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use wink_run::model::ModelOptions;
use wink_run::{McpListen, serve_mcp};

use super::common::{PromptArgs, run_error};
use crate::exit::usage;

/// `wink mcp <command>`
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(subcommand)]
    pub command: McpCommand,
}

/// MCP subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Serve a prompt file's sections and tools to MCP clients (stdio by default).
    Serve(Box<ServeArgs>),
    /// Log in to an MCP server of a prompt file (OAuth), ahead of a run: opens the authorization
    /// page with $BROWSER (else prints it) and stores the tokens; prints who is logged in.
    Login(ServerArgs),
    /// Forget the stored tokens of an MCP server of a prompt file.
    Logout(ServerArgs),
}

/// `wink mcp login|logout FILE SERVER`
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// The prompt file (.json, .toml, .yaml).
    pub file: std::path::PathBuf,
    /// The server: its name in a catalog section's `servers`.
    pub server: String,
}

/// `wink mcp serve FILE [--params JSON] [--expand KEY]... [--disclosure MODE] [--http ADDR]`
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub prompt: PromptArgs,
    /// Serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8765) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// The model that runs sub-agents, for a prompt file that declares `subagents` (the MCP
    /// client stays the parent's model; without it, sub-agents run on the client's model
    /// through sampling): local, local:0.5b, local:PATH, scripted:PATH, or an HTTP provider as
    /// in `wink run --model`.
    #[arg(long, value_name = "SPEC")]
    pub model: Option<String>,
    /// Fetch the local sub-agent model without asking when it is missing.
    #[arg(long)]
    pub yes: bool,
    /// The client model's context window in tokens, for tool catalogs with `defer: auto`.
    #[arg(long, value_name = "TOKENS", default_value_t = super::common::DEFAULT_CONTEXT_WINDOW)]
    pub context_size: u64,
}

pub fn run(args: &McpArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        McpCommand::Serve(serve) => run_serve(serve),
        McpCommand::Login(server) => run_login(server),
        McpCommand::Logout(server) => run_logout(server),
    }
}

fn server_url(args: &ServerArgs) -> anyhow::Result<(wink_mcp::ServerSpec, String)> {
    let spec =
        wink_promptfile::server_spec(&args.file, &args.server).map_err(|e| usage(e.to_string()))?;
    let url = match &spec.transport {
        wink_mcp::ServerTransport::Http { url, .. } => url.clone(),
        _ => {
            return Err(usage(format!(
                "MCP server `{}` is a `command` server; only `url` servers log in",
                args.server
            )));
        }
    };
    Ok((spec, url))
}

fn run_login(args: &ServerArgs) -> anyhow::Result<ExitCode> {
    let (spec, url) = server_url(args)?;
    match wink_mcp::log_in_to(&spec) {
        Ok(Some(report)) => {
            crate::output::println(&report.describe(&args.server, &url))?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(None) => {
            crate::output::println(&format!(
                "`{}` ({url}) asks for no authorization: nothing to log in to",
                args.server
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Err(anyhow::anyhow!("MCP server `{}`: {e}", args.server)),
    }
}

fn run_logout(args: &ServerArgs) -> anyhow::Result<ExitCode> {
    let (_, url) = server_url(args)?;
    let removed = wink_mcp::logout(&url).map_err(|e| anyhow::anyhow!(e))?;
    crate::output::println(&if removed {
        format!(
            "Logged out of `{}` ({url}): its tokens are removed",
            args.server
        )
    } else {
        format!("`{}` ({url}) had no stored tokens", args.server)
    })?;
    Ok(ExitCode::SUCCESS)
}

fn run_serve(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let listen = McpListen::from_flag(args.http.as_deref()).map_err(run_error)?;
    let mut prepared = args.prompt.prepare()?;
    if args.context_size != super::common::DEFAULT_CONTEXT_WINDOW {
        prepared
            .decide_catalogs(args.context_size)
            .map_err(run_error)?;
    }
    prepared
        .check_subagent_model(args.model.is_some())
        .map_err(run_error)?;
    let subagent_model = match &args.model {
        Some(spec) => Some(super::local_model::with_model_fetch(args.yes, || {
            wink_run::model::adapter(spec, &ModelOptions::default())
        })?),
        None => None,
    };
    let server = prepared
        .into_mcp_server(subagent_model)
        .map_err(run_error)?;
    serve_mcp(server, listen, &mut |url| {
        note!("wink mcp: serving on {url}")
    })
    .map_err(run_error)?;
    Ok(ExitCode::SUCCESS)
}
