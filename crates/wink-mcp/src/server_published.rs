//! Serving what the prompt file publishes ([`Published`]): `resources/read` and `prompts/get`
//! of published resources and prompts, with the same `input_required` rounds as tools.

use std::sync::Arc;

use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, InputRequiredResult, ReadResourceRequestParams,
    ReadResourceResponse,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use crate::call_input::ClientInput;
use crate::published::{Produced, Published};
use crate::server::PromptServer;
use crate::server_call::binding;

/// What a published item gave, before it goes to the client.
type Outcome<T> = Result<Produced<T>, ErrorData>;

impl PromptServer {
    /// Runs `produce` (a command, on a blocking thread) for a request bound to `bound`, with the
    /// client's answers when it is a retry; an `input_required` answer goes to the client as
    /// tools' do. `None` when `produce` finds nothing published.
    async fn produce_published<T: Send + 'static>(
        &self,
        bound: &[u8],
        responses: Option<&rmcp::model::InputResponses>,
        sealed: Option<&str>,
        context: &RequestContext<RoleServer>,
        produce: impl FnOnce(Option<ClientInput>) -> Option<Outcome<T>> + Send + 'static,
    ) -> Option<Result<Result<T, InputRequiredResult>, ErrorData>> {
        let input = match self.client_input(responses, sealed, bound) {
            Ok(input) => input,
            Err(e) => return Some(Err(e)),
        };
        let produced = tokio::task::spawn_blocking(move || produce(input))
            .await
            .ok()
            .flatten()?;
        Some(produced.and_then(|produced| match produced {
            Produced::Complete(result) => Ok(Ok(result)),
            Produced::InputRequired(asked) => {
                let declared = context.client_capabilities().unwrap_or_default();
                self.ask_client(asked, &declared, bound).map(Err)
            }
        }))
    }

    /// Reads a published resource; `None` when `request.uri` is not published.
    pub(crate) async fn read_published(
        &self,
        request: &ReadResourceRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<ReadResourceResponse, ErrorData>> {
        let published = Arc::clone(self.published());
        if !published.publishes_uri(&request.uri) {
            return None;
        }
        let uri = request.uri.clone();
        let bound = binding("resources/read", &request.uri, None);
        let produced = self
            .produce_published(
                &bound,
                request.input_responses.as_ref(),
                request.request_state.as_deref(),
                context,
                move |input| published.read(&uri, input.as_ref()),
            )
            .await?;
        Some(produced.map(|done| match done {
            Ok(result) => ReadResourceResponse::Complete(result),
            Err(asked) => ReadResourceResponse::InputRequired(asked),
        }))
    }

    /// Gets a published prompt; `None` when `request.name` is not published.
    pub(crate) async fn get_published(
        &self,
        request: &GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<GetPromptResponse, ErrorData>> {
        let published = Arc::clone(self.published());
        if !published.prompts.iter().any(|p| p.name == request.name) {
            return None;
        }
        let name = request.name.clone();
        let arguments = request.arguments.clone().unwrap_or_default();
        let bound = binding("prompts/get", &request.name, request.arguments.as_ref());
        let produced = self
            .produce_published(
                &bound,
                request.input_responses.as_ref(),
                request.request_state.as_deref(),
                context,
                move |input| published.get_prompt(&name, &arguments, input.as_ref()),
            )
            .await?;
        Some(produced.map(|done| match done {
            Ok(result) => GetPromptResponse::Complete(result),
            Err(asked) => GetPromptResponse::InputRequired(asked),
        }))
    }
}

impl Published {
    /// Whether `uri` is a published resource or matches a published template.
    pub(crate) fn publishes_uri(&self, uri: &str) -> bool {
        self.resources.iter().any(|r| r.uri == uri)
            || self
                .templates
                .iter()
                .any(|t| crate::published::match_template(&t.uri_template, uri).is_some())
    }
}
