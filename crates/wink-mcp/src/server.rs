//! The MCP server: one prompt, one session, its visible tools, its sections as resources.

use std::fmt;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, GetSkillRequestParams, GetSkillResult, Implementation,
    JsonObject, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, Prompt as McpPrompt, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, Role,
    ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::{Mutex, broadcast};
use wink_core::{
    CallOutcome, Prompt, RenderedPrompt, Resources, SectionPath, ToolArguments, ToolCall,
    ToolExecutor, ToolRef,
};
use wink_session::Session;

pub(crate) use opened::rendered_subtree;

use crate::error::McpServeError;

mod opened;

/// An alias URI of the rendered prompt resource (its URI is `wink://NS/KEY`,
/// [`crate::prompt_resource_uri`]).
pub const PROMPT_URI: &str = "wink://prompt";
/// The prefix of the alias URIs of section resources, `wink://section/<dot.key>` (their URIs
/// are `wink://NS/KEY/<dot.key>`, [`crate::section_resource_uri`]).
pub const SECTION_URI_PREFIX: &str = "wink://section/";

/// The text appended to a tool result when the call made new tools visible — the restart signal
/// for MCP clients that ignore `notifications/tools/list_changed`.
///
/// ```
/// assert_eq!(
///     wink_mcp::new_tools_notice(&["add", "math.mul"]),
///     "New tools are now available: add, math.mul. If you cannot see them, list the tools again (tools/list) before calling them."
/// );
/// ```
pub fn new_tools_notice<S: AsRef<str>>(names: &[S]) -> String {
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    format!(
        "New tools are now available: {}. If you cannot see them, list the tools again (tools/list) before calling them.",
        names.join(", ")
    )
}

/// The alias URI of a section's resource (`wink://section/<dot.key>`; its URI is
/// [`crate::section_resource_uri`]).
pub fn section_uri(path: &SectionPath) -> String {
    format!("{SECTION_URI_PREFIX}{}", path.dotted())
}

struct ServerState {
    prompt: Prompt,
    session: Session,
    resources: Resources,
    prompt_name: String,
    /// Fires whenever the set of offered tools changes.
    tools_changed: broadcast::Sender<()>,
    /// Calls run one at a time: each renders, executes and may expand sections.
    calls: Mutex<()>,
    /// Skills offered through the MCP Skills extension (none: the extension is not declared).
    skills: Vec<Arc<wink_skills::Skill>>,
    /// Seals the request states of tools that ask the client for input.
    state_codec: Arc<rmcp::model::RequestStateCodec>,
    /// Resources, templates and prompts the prompt file publishes beside its sections.
    published: Arc<crate::published::Published>,
    /// The builtin `ask_user` tool, when the prompt file asks for it.
    ask_user: Option<ToolRef>,
    /// The tools whose calls run as MCP tasks, and the tasks.
    task_tools: Vec<crate::server_tasks::TaskTool>,
    tasks: rmcp::task_manager::TaskManager,
    /// Whether sub-agents run on the calling client's model (`crate::server_sampling`).
    client_model_subagents: bool,
}

impl ServerState {
    /// The same state, for a builder method to change one part of (calls in flight are not
    /// shared: a server is configured before it serves).
    fn copy(&self) -> Self {
        Self {
            prompt: self.prompt.clone(),
            session: self.session.clone(),
            resources: self.resources.clone(),
            prompt_name: self.prompt_name.clone(),
            tools_changed: self.tools_changed.clone(),
            calls: Mutex::new(()),
            skills: self.skills.clone(),
            state_codec: self.state_codec.clone(),
            published: self.published.clone(),
            ask_user: self.ask_user.clone(),
            task_tools: self.task_tools.clone(),
            tasks: self.tasks.clone(),
            client_model_subagents: self.client_model_subagents,
        }
    }
}

/// Serves one prompt over MCP: `tools/list` offers the tools the rendered prompt offers
/// (`read_section` plus the tools of every visible section, canonical names, dots kept),
/// `tools/call` runs them with WINK's semantics ([`ToolExecutor`]), `prompts/get` returns the
/// rendered prompt (its arguments are the prompt's params) and `resources/read` the prompt
/// (`wink://NS/KEY`) or one section's full content (`wink://NS/KEY/SECTION`, with a resource
/// template for each section with params).
///
/// When `read_section` discloses a tool-bearing section, the section is marked expanded in the
/// session (`SetVisibilityOverride`), the tool list grows, `notifications/tools/list_changed` is
/// sent (to handshake-era clients directly, to 2026-07-28 clients through
/// `subscriptions/listen`) and the tool result ends with [`new_tools_notice`].
///
/// The server holds one session: every client of one server process (one over stdio, any number
/// over HTTP) sees the same expansions. Clones share it.
#[derive(Clone)]
pub struct PromptServer {
    state: Arc<ServerState>,
}

impl fmt::Debug for PromptServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptServer")
            .field("prompt", &self.state.prompt_name)
            .finish_non_exhaustive()
    }
}

impl PromptServer {
    /// A server for `prompt`, keeping visibility in `session` (overrides already dispatched to
    /// it, e.g. from `--expand`, apply from the start).
    pub fn new(prompt: Prompt, session: Session) -> Self {
        let prompt_name = prompt.template().display_name();
        let (tools_changed, _) = broadcast::channel(16);
        Self {
            state: Arc::new(ServerState {
                prompt,
                session,
                resources: Resources::new(),
                prompt_name,
                tools_changed,
                calls: Mutex::new(()),
                skills: Vec::new(),
                state_codec: Arc::new(crate::server_call::state_codec()),
                published: Arc::default(),
                ask_user: None,
                task_tools: Vec::new(),
                tasks: rmcp::task_manager::TaskManager::new(),
                client_model_subagents: false,
            }),
        }
    }

    /// Resources handed to tools (e.g. an `Arc<dyn wink_fs::Filesystem>`).
    #[must_use]
    pub fn with_resources(self, resources: Resources) -> Self {
        let mut state = self.state.copy();
        state.resources = resources;
        Self {
            state: Arc::new(state),
        }
    }

    /// Offer `skills` through the MCP Skills extension (`io.modelcontextprotocol/skills`):
    /// `skills/list`, `skills/get` and `skill://<name>/<path>` resources. A prompt file's
    /// `builtin: skills` sections give them (`LoadedPrompt::skills`).
    #[must_use]
    pub fn with_skills(self, skills: Vec<Arc<wink_skills::Skill>>) -> Self {
        let mut state = self.state.copy();
        state.skills = skills;
        Self {
            state: Arc::new(state),
        }
    }

    /// Serve the resources, resource templates and prompts a prompt file publishes (its `mcp`
    /// block: `LoadedPrompt::published`) beside the prompt's own, and the builtin `ask_user`
    /// tool when it asks for it.
    #[must_use]
    pub fn with_published(self, published: crate::published::Published) -> Self {
        let mut state = self.state.copy();
        state.ask_user = published
            .ask_user
            .then(crate::ask_user::ask_user_tool)
            .and_then(Result::ok);
        state.published = Arc::new(published);
        Self {
            state: Arc::new(state),
        }
    }

    /// Run the calls of the tools `tools` as MCP tasks (the Tasks extension: a prompt file's
    /// tools declared with `task`, `LoadedPrompt::task_tools`). Clients without the extension
    /// get a synchronous result, or `-32021` when a task is required.
    #[must_use]
    pub fn with_task_tools(self, tools: Vec<crate::server_tasks::TaskTool>) -> Self {
        let mut state = self.state.copy();
        state.task_tools = tools;
        if state.client_model_subagents {
            crate::server_sampling::add_dispatch_task(&mut state.task_tools);
        }
        Self {
            state: Arc::new(state),
        }
    }

    /// Runs the sub-agents `dispatch_subagent` starts on the calling client's model, through
    /// sampling (`sampling/createMessage`), for a server with no model of its own. A
    /// handshake-era client gets the requests on its connection; a 2026-07-28 client gets
    /// `dispatch_subagent` as a task (it needs the Tasks extension) and the requests through it.
    #[must_use]
    pub fn with_client_model_subagents(self) -> Self {
        let mut state = self.state.copy();
        state.client_model_subagents = true;
        crate::server_sampling::add_dispatch_task(&mut state.task_tools);
        Self {
            state: Arc::new(state),
        }
    }

    /// Whether sub-agents run on the calling client's model.
    pub(crate) fn client_model_subagents(&self) -> bool {
        self.state.client_model_subagents
    }

    /// How `name` runs as a task, when it does.
    pub(crate) fn task_tool(&self, name: &str) -> Option<&crate::server_tasks::TaskTool> {
        self.state.task_tools.iter().find(|tool| tool.name == name)
    }

    pub(crate) fn tasks(&self) -> &rmcp::task_manager::TaskManager {
        &self.state.tasks
    }

    pub(crate) fn skills(&self) -> &[Arc<wink_skills::Skill>] {
        &self.state.skills
    }

    pub(crate) fn published(&self) -> &Arc<crate::published::Published> {
        &self.state.published
    }

    /// The prompt as served (its `--params` bound).
    pub(crate) fn prompt(&self) -> &Prompt {
        &self.state.prompt
    }

    /// The session holding the server's visibility state.
    pub fn session(&self) -> &Session {
        &self.state.session
    }

    /// `ns:key` (or the template's name).
    pub fn prompt_name(&self) -> &str {
        &self.state.prompt_name
    }

    /// Render the prompt as the client currently sees it.
    pub fn render(&self) -> Result<RenderedPrompt, McpServeError> {
        self.state
            .prompt
            .render_with(&self.state.session)
            .map_err(|source| McpServeError::Render {
                prompt: self.state.prompt_name.clone(),
                source: Box::new(source),
            })
    }

    /// The MCP tools currently offered, in the rendered prompt's order, then the builtin
    /// `ask_user` when it is on.
    pub fn tools(&self) -> Result<Vec<rmcp::model::Tool>, McpServeError> {
        let rendered = self.render()?;
        let builtin = self.builtin_tool(&rendered, crate::ASK_USER);
        Ok(rendered.tools.iter().chain(builtin).map(mcp_tool).collect())
    }

    /// The server's own tool `name` (`ask_user`), unless the prompt has a tool of that name.
    fn builtin_tool<'a>(&'a self, rendered: &RenderedPrompt, name: &str) -> Option<&'a ToolRef> {
        self.state
            .ask_user
            .as_ref()
            .filter(|tool| tool.name() == name && rendered.tool(name).is_none())
    }

    /// Run one tool call as an MCP client would: the text result, `is_error`, expansion handling
    /// and the restart notice. Unknown tools are a protocol error (`invalid_params`).
    pub async fn call_tool_text(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call_with(name, arguments, self.tool_resources(), true, None)
            .await
            .map(|done| done.result)
    }

    /// The resources every tool call gets.
    pub(crate) fn tool_resources(&self) -> Resources {
        self.state.resources.clone()
    }

    pub(crate) fn state_codec(&self) -> &rmcp::model::RequestStateCodec {
        &self.state.state_codec
    }

    /// Runs one call with `resources`: the result as text, and the tool's value (for MCP's
    /// result forms, see `server_call`). An `exclusive` call waits for the calls before it
    /// (calls may open sections); a task runs beside them. With the client's span
    /// (`traceparent`), the call's span continues the client's trace when the session is traced.
    pub(crate) async fn call_with(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        resources: Resources,
        exclusive: bool,
        traceparent: Option<wink_session::TraceParent>,
    ) -> Result<CallDone, ErrorData> {
        let state = &self.state;
        let _turn = match exclusive {
            true => Some(state.calls.lock().await),
            false => None,
        };
        let rendered = self.render().map_err(internal)?;
        let builtin = self.builtin_tool(&rendered, name);
        if rendered.tool(name).is_none() && builtin.is_none() {
            return opened::not_offered(&rendered, name);
        }
        let tools: Vec<ToolRef> = rendered.tools.iter().chain(builtin).cloned().collect();
        let executor = ToolExecutor {
            adapter: "mcp".into(),
            resources,
            ..ToolExecutor::new(state.session.clone(), state.prompt_name.clone())
        };
        let call = ToolCall {
            id: format!("mcp_{}", uuid_like()),
            name: name.to_owned(),
            arguments: ToolArguments::Json(Value::Object(arguments.unwrap_or_default())),
        };
        if let Some(parent) = traceparent {
            state.session.continue_trace(&call.id, parent);
        }
        let before: Vec<String> = rendered
            .tool_names()
            .iter()
            .map(|s| s.to_string())
            .collect();
        let outcome = match executor.execute(&call, &tools, Some(&rendered)).await {
            Ok(outcome) => outcome,
            Err(error) => {
                return Ok(CallDone {
                    result: CallToolResult::error(vec![ContentBlock::text(error.message.clone())]),
                    value: None,
                    broke: Some(error.message),
                });
            }
        };
        let mut value = None;
        let (text, success, expanded) = match outcome {
            CallOutcome::Completed(result) => {
                let expanded = match (&result.expansion, result.result.success) {
                    (Some(expansion), true) => vec![expansion.path.clone()],
                    _ => Vec::new(),
                };
                value = result
                    .result
                    .value
                    .as_ref()
                    .map(|payload| payload.json.clone());
                (result.model_text(), result.result.success, expanded)
            }
            CallOutcome::ExpansionRequired(request) => {
                let paths: Vec<SectionPath> = request.requested_overrides.keys().cloned().collect();
                let keys: Vec<String> = paths.iter().map(SectionPath::dotted).collect();
                (
                    format!("Opened sections: {}.", keys.join(", ")),
                    true,
                    paths,
                )
            }
        };
        let text = if expanded.is_empty() {
            text
        } else {
            self.opened(&expanded, &before, text)?
        };
        Ok(CallDone::ran(tool_result(text, success), value))
    }

    fn prompt_description(&self) -> String {
        format!(
            "The wink prompt '{}', rendered with the current visibility (summarized sections expand with read_section).",
            self.state.prompt_name
        )
    }
}

/// What running one call gave.
pub(crate) struct CallDone {
    /// The result as MCP text content.
    pub(crate) result: CallToolResult,
    /// The tool's value (it may be in one of MCP's result forms).
    pub(crate) value: Option<Value>,
    /// Why the call could not run at all (the executor's error), as opposed to a tool that ran
    /// and failed.
    pub(crate) broke: Option<String>,
}

impl CallDone {
    fn ran(result: CallToolResult, value: Option<Value>) -> Self {
        Self {
            result,
            value,
            broke: None,
        }
    }
}

/// A tool result of one text block, an error result unless `success`.
pub(crate) fn tool_result(text: String, success: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(text)];
    if success {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    }
}

pub(crate) fn internal(error: McpServeError) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}

/// A process-unique call id suffix (MCP calls carry no id of their own).
fn uuid_like() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// An MCP tool for a wink tool: canonical name (dots kept), description, parameter schema.
pub fn mcp_tool(tool: &ToolRef) -> rmcp::model::Tool {
    mcp_tool_from_parts(tool.name(), tool.description(), tool.parameters())
}

pub(crate) fn mcp_tool_from_parts(
    name: &str,
    description: &str,
    parameters: &Value,
) -> rmcp::model::Tool {
    let schema = match parameters {
        Value::Object(map) => map.clone(),
        _ => {
            let mut map = JsonObject::new();
            map.insert("type".into(), Value::String("object".into()));
            map
        }
    };
    rmcp::model::Tool::new(name.to_owned(), description.to_owned(), Arc::new(schema))
}

pub(crate) fn server_capabilities(skills: bool, tasks: bool) -> ServerCapabilities {
    let builder = ServerCapabilities::builder()
        .enable_prompts()
        .enable_resources()
        .enable_tools()
        .enable_tool_list_changed();
    let mut capabilities = if skills {
        builder.enable_skills().build()
    } else {
        builder.build()
    };
    if tasks {
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                JsonObject::new(),
            );
    }
    capabilities
}

impl ServerHandler for PromptServer {
    fn get_info(&self) -> ServerConfig {
        let instructions = self.render().map(|r| r.text).unwrap_or_default();
        ServerConfig::new(server_capabilities(
            !self.state.skills.is_empty(),
            !self.state.task_tools.is_empty(),
        ))
        .with_server_info(Implementation::new("wink", env!("CARGO_PKG_VERSION")))
        .with_instructions(instructions)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = self.tools().map_err(internal)?;
        // `ask_user` is for clients that can show a form.
        let elicits = context
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some());
        if !elicits && self.state.ask_user.is_some() {
            let rendered = self.render().map_err(internal)?;
            if self.builtin_tool(&rendered, crate::ASK_USER).is_some() {
                tools.retain(|tool| tool.name != crate::ASK_USER);
            }
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    /// The offered tool `name`: the HTTP transport checks a `tools/call`'s `Mcp-Param-*` headers
    /// against its schema's `x-mcp-header` annotations (SEP-2243).
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let rendered = self.render().ok()?;
        rendered
            .tool(name)
            .or_else(|| self.builtin_tool(&rendered, name))
            .map(mcp_tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(task) = self.call_as_task(&request, &context) {
            return task;
        }
        self.call_tool_response(request, &context).await
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        Ok(rmcp::model::GetTaskResult::new(
            self.state.tasks.get_task(&request.task_id)?,
        ))
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.state
            .tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.state.tasks.cancel_task(&request.task_id)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let arguments = self.prompt_arguments();
        let prompt = McpPrompt::new(
            self.state.prompt_name.clone(),
            Some(self.prompt_description()),
            (!arguments.is_empty()).then_some(arguments),
        );
        let mut prompts = vec![prompt];
        prompts.extend(self.state.published.prompt_list()?);
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if let Some(published) = self.get_published(&request, &context).await {
            return published;
        }
        if request.name != self.state.prompt_name {
            return Err(ErrorData::invalid_params(
                format!(
                    "Unknown prompt '{}'. Offered: {}.",
                    request.name, self.state.prompt_name
                ),
                None,
            ));
        }
        let text = self
            .prompt_with_arguments(request.arguments.as_ref())?
            .render_with(&self.state.session)
            .map_err(|e| ErrorData::invalid_params(format!("{e}"), None))?
            .text;
        Ok(GetPromptResponse::from(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description(self.prompt_description()),
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut resources = self.resource_list().map_err(internal)?;
        resources.extend(self.state.published.resource_list()?);
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut templates = self.section_templates();
        templates.extend(self.state.published.template_list()?);
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if let Some(published) = self.read_published(&request, &context).await {
            return published;
        }
        if request.uri.starts_with(crate::skills::SKILL_URI_SCHEME) {
            let contents = crate::skills::read_skill_resource(&self.state.skills, &request.uri)?;
            return Ok(ReadResourceResponse::from(ReadResourceResult::new(vec![
                contents,
            ])));
        }
        let text = self.read_resource_text(&request.uri).await?;
        Ok(ReadResourceResponse::from(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type("text/markdown"),
        ])))
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let skills = self
            .state
            .skills
            .iter()
            .map(|s| crate::skills::skill_entry(s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ListSkillsResult::with_all_items(skills))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let skill =
            crate::skills::skill_for_uri(&self.state.skills, &request.uri).ok_or_else(|| {
                ErrorData::invalid_params(
                    format!(
                        "No skill at '{}': a skill is skill://<name>/SKILL.md.",
                        request.uri
                    ),
                    None,
                )
            })?;
        Ok(GetSkillResult::new(crate::skills::skill_entry(skill)?))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed;
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changes = self.state.tools_changed.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                change = changes.recv() => match change {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        if context.sink().notify_tool_list_changed().await.is_err() {
                            return Ok(());
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
            }
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Handshake-era clients get list_changed as a plain notification on their connection.
        let mut changes = self.state.tools_changed.subscribe();
        let peer = context.peer;
        tokio::spawn(async move {
            loop {
                match changes.recv().await {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        if peer.notify_tool_list_changed().await.is_err() {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }
}
