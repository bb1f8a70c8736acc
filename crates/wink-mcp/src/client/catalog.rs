//! MCP servers in catalogs: each server runs its tools ([`ToolInvoker`]), a [`ServerCatalog`] is
//! a [`CatalogSource`], and [`CatalogBuilderMcp`] adds a server's tools to a builder.

use std::sync::Arc;

use serde_json::Value;
use wink_catalog::{
    Catalog, CatalogBuilder, CatalogError, CatalogSource, SourceStatus, ToolInvoker, ToolRecord,
};
use wink_core::{
    Deadline, ToolContext, ToolError, ToolFuture, ToolPayload, ToolResponse, ToolResult,
};

use super::answers::{ClientAnswers, McpInputAnswered};
use super::call::Answered;
use super::connection::McpServer;
use super::servers::{LazyServer, ServerCatalog};

/// A server that catalog tools forward their calls to.
trait Forwards: Sync {
    /// How the server is named in session events.
    fn label(&self) -> String;

    /// Calls the server's tool `tool`.
    fn forward<'a>(
        &'a self,
        tool: &'a str,
        args: Value,
        deadline: Option<Deadline>,
        answers: &'a ClientAnswers,
        traceparent: Option<String>,
    ) -> impl Future<Output = Result<(ToolResult<ToolPayload>, Vec<Answered>), ToolError>> + Send + 'a;
}

impl Forwards for McpServer {
    fn label(&self) -> String {
        self.command().to_owned()
    }

    fn forward<'a>(
        &'a self,
        tool: &'a str,
        args: Value,
        deadline: Option<Deadline>,
        answers: &'a ClientAnswers,
        traceparent: Option<String>,
    ) -> impl Future<Output = Result<(ToolResult<ToolPayload>, Vec<Answered>), ToolError>> + Send + 'a
    {
        self.call_answering(tool, args, deadline, answers, traceparent)
    }
}

impl Forwards for LazyServer {
    fn label(&self) -> String {
        self.name().to_owned()
    }

    fn forward<'a>(
        &'a self,
        tool: &'a str,
        args: Value,
        deadline: Option<Deadline>,
        answers: &'a ClientAnswers,
        traceparent: Option<String>,
    ) -> impl Future<Output = Result<(ToolResult<ToolPayload>, Vec<Answered>), ToolError>> + Send + 'a
    {
        self.call_answering(tool, args, deadline, answers, traceparent)
    }
}

/// Forwards a call to `server` with the run's answers to its requests for input (the tool
/// resources' [`ClientAnswers`], else the defaults) and the W3C `traceparent` of the call's
/// `execute_tool` span when the run is traced; what was answered on the way is recorded in the
/// call's session ([`McpInputAnswered`]).
fn invoke_on<'a, S: Forwards>(
    server: &'a S,
    tool: &'a str,
    args: Value,
    context: &'a mut ToolContext,
) -> ToolFuture<'a> {
    let mut answers = context
        .resource::<ClientAnswers>()
        .cloned()
        .unwrap_or_default();
    // Sampling answered for the server is a model call of the run: it spends from the run's
    // budget (the loop puts its tracker in every tool's resources).
    if let Some(budget) = context.resource::<wink_agent::BudgetTracker>() {
        answers.sampler = answers.sampler.map(|sampler| {
            Arc::new(wink_agent::BudgetedAdapter::new(sampler, budget.clone()))
                as Arc<dyn wink_model::ProviderAdapter>
        });
    }
    let deadline = context.deadline;
    let traceparent = traceparent_of(context);
    let session = context.session.clone();
    Box::pin(async move {
        let (result, answered) = server
            .forward(tool, args, deadline, &answers, traceparent)
            .await?;
        let label = server.label();
        for answer in answered {
            session.dispatch(McpInputAnswered {
                server: label.clone(),
                tool: tool.to_owned(),
                method: answer.method,
                message: answer.message,
                action: answer.action,
            });
        }
        Ok(ToolResponse::from(result))
    })
}

/// The W3C `traceparent` of the call's span (its `execute_tool` span), when the run is traced.
fn traceparent_of(context: &ToolContext) -> Option<String> {
    let call_id = context.call_id.as_deref()?;
    context
        .telemetry
        .traceparent(wink_session::TraceScope::ToolCall { call_id })
        .map(|t| t.header())
}

impl ToolInvoker for McpServer {
    fn invoke<'a>(
        &'a self,
        remote_name: &'a str,
        args: Value,
        context: &'a mut ToolContext,
    ) -> ToolFuture<'a> {
        invoke_on(self, remote_name, args, context)
    }

    fn kind(&self) -> &'static str {
        "mcp"
    }
}

impl ToolInvoker for LazyServer {
    fn invoke<'a>(
        &'a self,
        remote_name: &'a str,
        args: Value,
        context: &'a mut ToolContext,
    ) -> ToolFuture<'a> {
        invoke_on(self, remote_name, args, context)
    }

    fn kind(&self) -> &'static str {
        "mcp (lazy)"
    }
}

/// Adds MCP servers' tools to a [`CatalogBuilder`]; calls are forwarded to the servers.
pub trait CatalogBuilderMcp: Sized {
    /// Adds an MCP server's tools under their own names.
    #[must_use]
    fn mcp_server(self, server: Arc<McpServer>) -> Self;

    /// Adds an MCP server's tools as `namespace.<tool>`; calls are forwarded under the server's
    /// own names.
    #[must_use]
    fn mcp_server_in(self, server: Arc<McpServer>, namespace: &str) -> Self;

    /// Adds the tools of an MCP server started on first use, as `<server name>.<tool>` (the
    /// tools it has listed so far: call [`LazyServer::load_tools`] first).
    #[must_use]
    fn lazy_server(self, server: &Arc<LazyServer>) -> Self;
}

impl CatalogBuilderMcp for CatalogBuilder {
    fn mcp_server(self, server: Arc<McpServer>) -> Self {
        let records = server.tools().to_vec();
        self.records_invoked_by(records, server)
    }

    fn mcp_server_in(self, server: Arc<McpServer>, namespace: &str) -> Self {
        let records: Vec<ToolRecord> = server
            .tools()
            .iter()
            .map(|record| {
                let mut record = record.clone();
                record.name = format!("{namespace}.{}", record.remote_name);
                record.namespace = Some(namespace.to_owned());
                record
            })
            .collect();
        self.records_invoked_by(records, server)
    }

    fn lazy_server(self, server: &Arc<LazyServer>) -> Self {
        let namespace = server.name().to_owned();
        let records: Vec<ToolRecord> = server
            .tools()
            .into_iter()
            .map(|mut record| {
                record.name = format!("{namespace}.{}", record.remote_name);
                record.namespace = Some(namespace.clone());
                record.origin = format!("MCP server `{namespace}`: tool `{}`", record.remote_name);
                record
            })
            .collect();
        self.records_invoked_by(records, Arc::clone(server) as Arc<dyn ToolInvoker>)
    }
}

impl CatalogSource for ServerCatalog {
    fn load(&self) -> Result<(), CatalogError> {
        ServerCatalog::load(self)
    }

    fn build(&self) -> Result<Catalog, CatalogError> {
        ServerCatalog::build(self)
    }

    fn generation(&self) -> u64 {
        ServerCatalog::generation(self)
    }

    fn refresh(&self) -> bool {
        ServerCatalog::refresh(self)
    }

    fn warm(&self, names: &[&str]) {
        ServerCatalog::warm(self, names.iter().copied());
    }

    fn statuses(&self) -> Vec<SourceStatus> {
        self.servers()
            .iter()
            .map(|server| {
                SourceStatus::new(
                    server.name(),
                    server.tools().len(),
                    server.list_source().map(|s| s.as_str()),
                    server.is_running(),
                )
            })
            .collect()
    }
}
