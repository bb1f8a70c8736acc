//! A prepared prompt served to MCP clients (`wink mcp serve`).

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
