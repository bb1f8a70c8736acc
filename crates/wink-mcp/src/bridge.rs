//! The tool bridge: an MCP server whose tools are one model request's tools and whose calls are
//! handed to the wink agent loop instead of being run here. The claude CLI adapter
//! (`wink_providers::ClaudeCliAdapter`, feature `claude-cli`) attaches it so that wink — not the
//! CLI — executes tools, with its transactions, events and budgets.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use wink_model::ToolSpec;

use crate::server::{mcp_tool_from_parts, tool_result};

/// One call the client made, waiting for the loop's result.
#[derive(Debug)]
#[non_exhaustive]
pub struct BridgedCall {
    /// Canonical wink tool name.
    pub name: String,
    /// Arguments as sent.
    pub arguments: Value,
    /// Where the result goes.
    pub reply: BridgeReply,
}

/// Where a bridged call's result goes.
#[derive(Debug)]
pub struct BridgeReply(oneshot::Sender<CallToolResult>);

impl BridgeReply {
    /// Answers the call with `text`, as an error result when `is_error` (a client that went away
    /// is not an error here).
    pub fn answer(self, text: String, is_error: bool) {
        let _ = self.0.send(tool_result(text, !is_error));
    }
}

/// The bridge server (cloned per MCP session; clones share the call channel).
#[derive(Clone)]
pub struct ToolBridge {
    tools: Arc<Vec<rmcp::model::Tool>>,
    canonical: Arc<HashMap<String, String>>,
    calls: mpsc::UnboundedSender<BridgedCall>,
}

impl fmt::Debug for ToolBridge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolBridge")
            .field("tools", &self.canonical.len())
            .finish_non_exhaustive()
    }
}

/// The name a tool gets on the bridge: the Anthropic API (behind the claude CLI) accepts only
/// `[a-zA-Z0-9_-]` in tool names, so dots become underscores; a clash gets `_2`, `_3`, ...
///
/// ```
/// # use std::collections::HashSet;
/// let mut taken = HashSet::new();
/// assert_eq!(wink_mcp::bridge_tool_name("file.read", &mut taken), "file_read");
/// assert_eq!(wink_mcp::bridge_tool_name("file_read", &mut taken), "file_read_2");
/// ```
pub fn bridge_tool_name(canonical: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let base: String = canonical
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut candidate = base.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

impl ToolBridge {
    /// A bridge offering `specs` under their bridge names ([`bridge_tool_name`]): the server, the
    /// calls clients make (each waiting for its reply), and the bridge names in `specs`' order.
    pub fn new(specs: &[ToolSpec]) -> (Self, mpsc::UnboundedReceiver<BridgedCall>, Vec<String>) {
        let mut taken = std::collections::HashSet::new();
        let mut canonical = HashMap::new();
        let mut tools = Vec::new();
        let mut wire_names = Vec::new();
        for spec in specs {
            let wire = bridge_tool_name(&spec.name, &mut taken);
            tools.push(mcp_tool_from_parts(
                &wire,
                &spec.description,
                &spec.parameters,
            ));
            canonical.insert(wire.clone(), spec.name.clone());
            wire_names.push(wire);
        }
        let (sender, receiver) = mpsc::unbounded_channel();
        (
            Self {
                tools: Arc::new(tools),
                canonical: Arc::new(canonical),
                calls: sender,
            },
            receiver,
            wire_names,
        )
    }
}

impl ServerHandler for ToolBridge {
    fn get_info(&self) -> ServerConfig {
        // The tool set is fixed for the life of the bridge: no listChanged (restart path).
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("wink-bridge", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(name) = self.canonical.get(request.name.as_ref()) else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool '{}'.", request.name),
                None,
            ));
        };
        let (sender, result) = oneshot::channel();
        let reply = BridgeReply(sender);
        let call = BridgedCall {
            name: name.clone(),
            arguments: Value::Object(request.arguments.unwrap_or_default()),
            reply,
        };
        let ended = || {
            CallToolResponse::from(CallToolResult::error(vec![ContentBlock::text(
                "The wink evaluation ended before this call completed.",
            )]))
        };
        if self.calls.send(call).is_err() {
            return Ok(ended());
        }
        Ok(result
            .await
            .map(CallToolResponse::from)
            .unwrap_or_else(|_| ended()))
    }
}
