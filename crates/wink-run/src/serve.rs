//! A prepared prompt served to MCP clients (`wink mcp serve`): over stdio, or over streamable
//! HTTP on a loopback address.

use std::net::SocketAddr;
use std::sync::Arc;

use wink_agent::ProviderAdapter;
use wink_mcp::PromptServer;

use crate::{PreparedPrompt, Result, RunError};

impl PreparedPrompt {
    /// An MCP server of this prompt: its sections, tools, skills, published resources and task
    /// tools. The sub-agents a prompt file declares run on `subagent_model` when one is given,
    /// else on the client's model through sampling. The prompt is rendered once here, so a file
    /// that does not render (bad params, a missing field) fails before anything is served.
    ///
    /// # Errors
    /// [`RunError::Usage`] when `subagent_model` is given for a file that declares no
    /// sub-agents, or when the prompt does not render (naming the file).
    pub fn into_mcp_server(
        self,
        subagent_model: Option<Arc<dyn ProviderAdapter>>,
    ) -> Result<PromptServer> {
        self.check_subagent_model(subagent_model.is_some())?;
        let client_model = self.loaded.subagents.is_some() && subagent_model.is_none();
        let resources = match subagent_model {
            None => self.resources.clone(),
            Some(adapter) => self.resources.clone().with(adapter),
        };
        let mut server = PromptServer::new(self.prompt, self.session)
            .with_resources(resources)
            .with_skills(self.loaded.skills.clone())
            .with_published(self.loaded.published.clone())
            .with_task_tools(self.loaded.task_tools.clone());
        if client_model {
            server = server.with_client_model_subagents();
        }
        server
            .render()
            .map_err(|e| RunError::usage(format!("{}: {e}", self.file.display())))?;
        Ok(server)
    }

    /// Refuses a sub-agent model (`given`) for a file that declares no sub-agents: check it
    /// before building the model.
    ///
    /// # Errors
    /// [`RunError::Usage`] naming the file.
    pub fn check_subagent_model(&self, given: bool) -> Result<()> {
        if given && self.loaded.subagents.is_none() {
            return Err(RunError::usage(format!(
                "--model: {} declares no subagents (the MCP client is the model; --model only runs sub-agents)",
                self.file.display()
            )));
        }
        Ok(())
    }
}

/// Where an MCP server of a prompt listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpListen {
    /// Standard input and output (the client started this process).
    Stdio,
    /// Streamable HTTP at this loopback address.
    Http(SocketAddr),
}

impl McpListen {
    /// `--http ADDR` when given (a loopback socket address such as `127.0.0.1:8765`), else
    /// stdio.
    ///
    /// # Errors
    /// [`RunError::Usage`] when `http` is not a socket address or not a loopback one.
    pub fn from_flag(http: Option<&str>) -> Result<Self> {
        let Some(text) = http else {
            return Ok(Self::Stdio);
        };
        let addr: SocketAddr = text.parse().map_err(|e| {
            RunError::usage(format!(
                "--http: '{text}' is not a socket address like 127.0.0.1:8765 ({e})"
            ))
        })?;
        wink_mcp::check_loopback(addr).map_err(|e| RunError::usage(format!("--http: {e}")))?;
        Ok(Self::Http(addr))
    }
}

/// Serves `server` until the client closes stdin (stdio) or until Ctrl-C (HTTP); `listening`
/// gets the server's URL once HTTP listens.
///
/// # Errors
/// [`RunError::Usage`] when the HTTP address cannot be bound; [`RunError::Failed`] when the
/// async runtime cannot start or stdio serving fails.
pub fn serve_mcp(
    server: PromptServer,
    listen: McpListen,
    listening: &mut dyn FnMut(&str),
) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| RunError::failed(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async move {
        match listen {
            McpListen::Stdio => server
                .serve_stdio()
                .await
                .map_err(|e| RunError::failed(e.to_string())),
            McpListen::Http(addr) => {
                let running = wink_mcp::serve_http(server, addr)
                    .await
                    .map_err(|e| RunError::usage(format!("--http: {e}")))?;
                listening(&running.url());
                tokio::select! {
                    () = running.wait() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
                Ok(())
            }
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn stdio_unless_a_loopback_address_is_given() {
        assert_eq!(McpListen::from_flag(None).unwrap(), McpListen::Stdio);
        assert_eq!(
            McpListen::from_flag(Some("127.0.0.1:8765")).unwrap(),
            McpListen::Http("127.0.0.1:8765".parse().unwrap())
        );
        assert_eq!(
            McpListen::from_flag(Some("localhost"))
                .unwrap_err()
                .to_string(),
            "--http: 'localhost' is not a socket address like 127.0.0.1:8765 (invalid socket address syntax)"
        );
        let open = McpListen::from_flag(Some("0.0.0.0:8765")).unwrap_err();
        assert!(open.is_usage());
        assert!(
            open.to_string()
                .starts_with("--http: refusing to serve MCP over HTTP on 0.0.0.0:8765"),
            "{open}"
        );
    }
}
