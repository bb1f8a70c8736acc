//! The tools the builders build: [`FunctionTool`] (typed handlers) and
//! [`DynamicTool`] (a schema and a closure).

use super::*;

pub(super) struct FunctionTool<P, R> {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) parameters: Value,
    pub(super) examples: Vec<ToolExample>,
    pub(super) handler: Option<Handler<P, R>>,
    pub(super) metadata: Option<ToolMetadata>,
    pub(super) spec_extra: SpecExtra,
    pub(super) concurrency: ToolConcurrency,
    pub(super) terminal: bool,
}

impl<P, R> fmt::Debug for FunctionTool<P, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FunctionTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

pub(super) fn decode_args<P: DeserializeOwned + 'static>(args: Value) -> Result<P, ToolError> {
    if TypeId::of::<P>() == TypeId::of::<()>() {
        let empty = matches!(&args, Value::Object(m) if m.is_empty()) || args.is_null();
        if !empty {
            return Err(ToolError::Fatal(
                "Tool does not accept any arguments.".to_owned(),
            ));
        }
        return serde_json::from_value::<P>(Value::Null).map_err(ToolError::validation);
    }
    serde_json::from_value::<P>(args).map_err(ToolError::validation)
}

impl<P, R> Tool for FunctionTool<P, R>
where
    P: DeserializeOwned + Serialize + JsonSchema + Send + 'static,
    R: ToolOutput,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn examples(&self) -> &[ToolExample] {
        &self.examples
    }
    fn metadata(&self) -> ToolMetadata {
        self.metadata
            .clone()
            .unwrap_or_else(|| ToolMetadata::derive(&self.name, &self.description))
    }
    fn full_spec(&self) -> ToolFullSpec {
        ToolFullSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.parameters.clone(),
            returns: self
                .spec_extra
                .returns
                .clone()
                .unwrap_or_else(|| wink_session::short_type_name::<R>().to_owned()),
            usage: self.spec_extra.usage.clone(),
            examples: self.examples.clone(),
            errors: self.spec_extra.errors.clone(),
            notes: self.spec_extra.notes.clone(),
        }
    }
    fn is_terminal(&self) -> bool {
        self.terminal
    }
    fn concurrency(&self) -> ToolConcurrency {
        self.concurrency
    }
    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a> {
        let Some(handler) = self.handler.clone() else {
            let name = self.name.clone();
            return Box::pin(async move {
                Err(ToolError::Fatal(format!(
                    "Tool '{name}' does not have a registered handler."
                )))
            });
        };
        Box::pin(async move {
            let params = decode_args::<P>(args)?;
            let result = match handler {
                Handler::Sync(h) => h(params, context)?,
                Handler::Async(h) => h(params, context.clone()).await?,
            };
            Ok(ToolResponse::from(result.erase()))
        })
    }
}

pub(super) struct DynamicTool {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) parameters: Value,
    pub(super) examples: Vec<ToolExample>,
    pub(super) handler: Arc<DynamicHandler>,
    pub(super) concurrency: ToolConcurrency,
    pub(super) terminal: bool,
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Tool for DynamicTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn examples(&self) -> &[ToolExample] {
        &self.examples
    }
    fn is_terminal(&self) -> bool {
        self.terminal
    }
    fn concurrency(&self) -> ToolConcurrency {
        self.concurrency
    }
    fn invoke<'a>(&'a self, args: Value, context: &'a mut ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let result = (self.handler)(args, context)?;
            Ok(ToolResponse::from(result.erase()))
        })
    }
}
