//! Serving what the prompt file publishes ([`Published`]): `resources/read` and `prompts/get`
//! of published resources and prompts, with the same `input_required` rounds as tools.

use std::sync::Arc;

use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, ReadResourceRequestParams, ReadResourceResponse,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use crate::published::{Produced, Published};
use crate::server::PromptServer;
use crate::server_call::binding;

impl PromptServer {
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
        let bound = binding("resources/read", &request.uri, None);
        let input = match self.client_input(
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
            &bound,
        ) {
            Ok(input) => input,
            Err(e) => return Some(Err(e)),
        };
        let uri = request.uri.clone();
        let produced = tokio::task::spawn_blocking(move || published.read(&uri, input.as_ref()))
            .await
            .ok()
            .flatten()?;
        Some(produced.and_then(|produced| match produced {
            Produced::Complete(result) => Ok(ReadResourceResponse::Complete(result)),
            Produced::InputRequired(asked) => {
                let declared = context.client_capabilities().unwrap_or_default();
                self.ask_client(asked, &declared, &bound)
                    .map(ReadResourceResponse::InputRequired)
            }
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
        let bound = binding("prompts/get", &request.name, request.arguments.as_ref());
        let input = match self.client_input(
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
            &bound,
        ) {
            Ok(input) => input,
            Err(e) => return Some(Err(e)),
        };
        let name = request.name.clone();
        let arguments = request.arguments.clone().unwrap_or_default();
        let produced = tokio::task::spawn_blocking(move || {
            published.get_prompt(&name, &arguments, input.as_ref())
        })
        .await
        .ok()
        .flatten()?;
        Some(produced.and_then(|produced| match produced {
            Produced::Complete(result) => Ok(GetPromptResponse::Complete(result)),
            Produced::InputRequired(asked) => {
                let declared = context.client_capabilities().unwrap_or_default();
                self.ask_client(asked, &declared, &bound)
                    .map(GetPromptResponse::InputRequired)
            }
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
