//! Catalog tools built from [`ToolRecord`]s, and what runs them: nothing (a catalog file), a
//! handler, or any [`ToolInvoker`] (the MCP client of `wink-mcp` forwards calls to a server).

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use wink_core::{Tool, ToolContext, ToolError, ToolFuture, ToolMetadata, ToolResponse, ToolResult};

use crate::record::ToolRecord;

/// A synchronous handler for record-based tools: gets the tool's remote name and the arguments.
pub type RecordHandler =
    dyn Fn(&str, Value, &mut ToolContext) -> Result<ToolResult<Value>, ToolError> + Send + Sync;

/// What runs the tools of a group of records: gets each call's remote name (the name the
/// record's source knows it by), the arguments and the call's context (its deadline, session).
///
/// ```
/// use std::sync::Arc;
/// use serde_json::{Value, json};
/// use wink_catalog::{Catalog, ToolInvoker, ToolRecord};
/// use wink_core::{ToolContext, ToolFuture, ToolResponse, ToolResult, block_on};
///
/// #[derive(Debug)]
/// struct Echo;
/// impl ToolInvoker for Echo {
///     fn invoke<'a>(&'a self, remote_name: &'a str, args: Value, _: &'a mut ToolContext) -> ToolFuture<'a> {
///         Box::pin(async move { Ok(ToolResponse::from(ToolResult::ok(format!("{remote_name} {args}"), ()).erase())) })
///     }
///     fn kind(&self) -> &'static str { "echo" }
/// }
///
/// let catalog = Catalog::builder()
///     .records_invoked_by([ToolRecord::new("echo", "Echo.")], Arc::new(Echo))
///     .build()
///     .unwrap();
/// let tool = catalog.get("echo").unwrap().tool().clone();
/// let mut context = ToolContext::new(wink_session::Session::new());
/// let response = block_on(tool.invoke(json!({"a": 1}), &mut context)).unwrap();
/// assert_eq!(response.result.model_text(), r#"echo {"a":1}"#);
/// ```
pub trait ToolInvoker: Send + Sync + fmt::Debug {
    /// Runs the tool known to its source as `remote_name`.
    fn invoke<'a>(
        &'a self,
        remote_name: &'a str,
        args: Value,
        context: &'a mut ToolContext,
    ) -> ToolFuture<'a>;

    /// A word for debug output: `handler`, `mcp`, …
    fn kind(&self) -> &'static str;
}

/// A caller-supplied handler.
pub(crate) struct Handler(pub(crate) Arc<RecordHandler>);

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Handler")
    }
}

impl ToolInvoker for Handler {
    fn invoke<'a>(
        &'a self,
        remote_name: &'a str,
        args: Value,
        context: &'a mut ToolContext,
    ) -> ToolFuture<'a> {
        Box::pin(async move {
            let result = (self.0)(remote_name, args, context)?;
            Ok(ToolResponse::from(result.erase()))
        })
    }

    fn kind(&self) -> &'static str {
        "handler"
    }
}

/// A tool the catalog made from a [`ToolRecord`].
#[derive(Clone)]
pub struct CatalogTool {
    record: ToolRecord,
    /// `None` for a tool from a catalog file: describable, but calling it reports that nothing
    /// runs it.
    invoker: Option<Arc<dyn ToolInvoker>>,
}

impl fmt::Debug for CatalogTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CatalogTool")
            .field("name", &self.record.name)
            .field(
                "invoker",
                &self.invoker.as_ref().map_or("unbound", |i| i.kind()),
            )
            .finish()
    }
}

impl CatalogTool {
    pub(crate) fn new(record: ToolRecord, invoker: Option<Arc<dyn ToolInvoker>>) -> Self {
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
        let Some(invoker) = &self.invoker else {
            let name = &self.record.name;
            return Box::pin(async move {
                Err(ToolError::Failed(format!(
                    "`{name}` comes from a tool list without an implementation here; nothing was run."
                )))
            });
        };
        invoker.invoke(&self.record.remote_name, args, context)
    }
}
