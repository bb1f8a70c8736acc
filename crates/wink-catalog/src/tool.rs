//! Catalog tools built from [`ToolRecord`]s: unbound (a catalog file), bound to a handler, or
//! forwarded to an MCP server.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use wink_core::{Tool, ToolContext, ToolError, ToolFuture, ToolMetadata, ToolResponse, ToolResult};

use crate::mcp::McpServer;
use crate::record::ToolRecord;
use crate::servers::LazyServer;

/// A synchronous handler for record-based tools: gets the tool's remote name and the arguments.
pub type RecordHandler =
    dyn Fn(&str, Value, &mut ToolContext) -> Result<ToolResult<Value>, ToolError> + Send + Sync;

#[derive(Clone)]
pub(crate) enum Invoker {
    /// From a catalog file: describable, but calling it reports that nothing runs it.
    Unbound,
    /// A caller-supplied handler.
    Handler(Arc<RecordHandler>),
    /// Forwarded to an MCP server.
    Mcp(Arc<McpServer>),
    /// Forwarded to an MCP server started on first use.
    Lazy(Arc<LazyServer>),
}

/// A tool the catalog made from a [`ToolRecord`].
#[derive(Clone)]
pub struct CatalogTool {
    record: ToolRecord,
    invoker: Invoker,
}

impl fmt::Debug for CatalogTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let invoker = match &self.invoker {
            Invoker::Unbound => "unbound",
            Invoker::Handler(_) => "handler",
            Invoker::Mcp(_) => "mcp",
            Invoker::Lazy(_) => "mcp (lazy)",
        };
        f.debug_struct("CatalogTool")
            .field("name", &self.record.name)
            .field("invoker", &invoker)
            .finish()
    }
}

impl CatalogTool {
    pub(crate) fn new(record: ToolRecord, invoker: Invoker) -> Self {
        Self { record, invoker }
    }

    /// The record the tool was made from.
    pub fn record(&self) -> &ToolRecord {
        &self.record
    }
}

impl Tool for CatalogTool {
    fn name(&self) -> &str {
        &self.record.name
    }

    fn description(&self) -> &str {
        &self.record.description
    }

    fn parameters(&self) -> &Value {
        &self.record.parameters
    }

    fn metadata(&self) -> ToolMetadata {
        ToolMetadata {
            name: self.record.name.clone(),
            summary: wink_search::first_sentence(&self.record.description),
            namespace: self
                .record
                .namespace
                .clone()
                .or_else(|| wink_search::namespace_of(&self.record.name).map(str::to_owned)),
            tags: self.record.tags.clone(),
            capabilities: Vec::new(),
            constraints: Vec::new(),
        }
    }

    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a> {
        match &self.invoker {
            Invoker::Unbound => {
                let name = self.record.name.clone();
                Box::pin(async move {
                    Err(ToolError::Failed(format!(
                        "`{name}` comes from a tool list without an implementation here; nothing was run."
                    )))
                })
            }
            Invoker::Handler(handler) => {
                let handler = handler.clone();
                Box::pin(async move {
                    let result = handler(&self.record.remote_name, args, context)?;
                    Ok(ToolResponse::from(result.erase()))
                })
            }
            Invoker::Mcp(server) => {
                let server = server.clone();
                let deadline = context.deadline;
                let traceparent = traceparent_of(context);
                Box::pin(async move {
                    let result = server
                        .call_traced(&self.record.remote_name, args, deadline, traceparent)
                        .await?;
                    Ok(ToolResponse::from(result))
                })
            }
            Invoker::Lazy(server) => {
                let server = server.clone();
                let deadline = context.deadline;
                let traceparent = traceparent_of(context);
                Box::pin(async move {
                    let result = server
                        .call_traced(&self.record.remote_name, args, deadline, traceparent)
                        .await?;
                    Ok(ToolResponse::from(result))
                })
            }
        }
    }
}

/// The W3C `traceparent` of the call's span (its `execute_tool` span), when the run is traced.
fn traceparent_of(context: &ToolContext) -> Option<String> {
    let call_id = context.call_id.as_deref()?;
    context
        .telemetry
        .traceparent(wink_session::TraceScope::ToolCall { call_id })
        .map(|t| t.header())
}
