//! A prompt file's `mcp` block: the resources, resource templates and prompts `wink mcp serve`
//! publishes beside the prompt (`wink_mcp::Published`).

use std::sync::Arc;

use wink_mcp::{
    Published, PublishedContent, PublishedPrompt, PublishedResource, PublishedTemplate, TaskInput,
    TaskTool,
};

use crate::model::{McpSpec, SectionSpec};
use crate::{Converter, PromptFileError};

impl Converter<'_> {
    /// The tools declared with `task`, in file order.
    pub(super) fn task_tools(
        &self,
        sections: &[SectionSpec<'_>],
        at: &str,
        found: &mut Vec<TaskTool>,
    ) -> Result<(), PromptFileError> {
        for (index, section) in sections.iter().enumerate() {
            for (tool_index, tool) in section.tools.iter().enumerate() {
                let at_tool = format!("{at}[{index}].tools[{tool_index}]");
                let required = match tool.task.as_deref() {
                    None if tool.task_input.is_some() => {
                        return Err(self.invalid(
                            format!("{at_tool}.task_input"),
                            "task_input is for tools declared with `task`",
                        ));
                    }
                    None => continue,
                    Some("optional") => false,
                    Some("required") => true,
                    Some(other) => {
                        return Err(self.invalid(
                            format!("{at_tool}.task"),
                            format!("task is `optional` or `required`, not `{other}`"),
                        ));
                    }
                };
                let input = match tool.task_input.as_deref() {
                    None | Some("during") => TaskInput::During,
                    Some("before") => TaskInput::Before,
                    Some(other) => {
                        return Err(self.invalid(
                            format!("{at_tool}.task_input"),
                            format!("task_input is `during` or `before`, not `{other}`"),
                        ));
                    }
                };
                found.push(TaskTool::new(tool.name.clone(), required).with_input(input));
            }
            self.task_tools(&section.children, &format!("{at}[{index}].children"), found)?;
        }
        Ok(())
    }
    /// The `mcp` block, checked: each resource gives exactly one of `text`, `file`, `handler`,
    /// each prompt one of `text`, `handler`; URIs and names are unique.
    pub(super) fn published(&self, spec: &McpSpec) -> Result<Published, PromptFileError> {
        let mut published = Published {
            ask_user: spec.ask_user,
            ..Published::default()
        };
        for (index, resource) in spec.resources.iter().enumerate() {
            let at = format!("mcp.resources[{index}]");
            if published.resources.iter().any(|r| r.uri == resource.uri) {
                return Err(self.invalid(
                    format!("{at}.uri"),
                    format!("the URI '{}' is published twice", resource.uri),
                ));
            }
            let content = match (&resource.text, &resource.file, &resource.handler) {
                (Some(text), None, None) => PublishedContent::Text(text.clone()),
                (None, Some(file), None) => {
                    let path = self.base_dir.join(file);
                    let bytes = std::fs::read(&path).map_err(|e| {
                        self.invalid(
                            format!("{at}.file"),
                            format!("cannot read {}: {e}", path.display()),
                        )
                    })?;
                    PublishedContent::Blob(bytes)
                }
                (None, None, Some(handler)) => PublishedContent::Handler(Arc::new(
                    self.command(handler, &format!("{at}.handler"))?,
                )),
                _ => {
                    return Err(self.invalid(
                        at,
                        "a resource takes exactly one of `text`, `file` or `handler`",
                    ));
                }
            };
            published.resources.push(PublishedResource {
                uri: resource.uri.clone(),
                name: resource
                    .name
                    .clone()
                    .unwrap_or_else(|| resource.uri.clone()),
                description: resource.description.clone(),
                mime_type: resource.mime_type.clone(),
                content,
            });
        }
        for (index, template) in spec.resource_templates.iter().enumerate() {
            let at = format!("mcp.resource_templates[{index}]");
            let handler = self.command(&template.handler, &format!("{at}.handler"))?;
            published.templates.push(PublishedTemplate {
                uri_template: template.uri_template.clone(),
                name: template.name.clone(),
                description: template.description.clone(),
                mime_type: template.mime_type.clone(),
                handler: Arc::new(handler),
            });
        }
        for (index, prompt) in spec.prompts.iter().enumerate() {
            let at = format!("mcp.prompts[{index}]");
            if published.prompts.iter().any(|p| p.name == prompt.name) {
                return Err(self.invalid(
                    format!("{at}.name"),
                    format!("the prompt '{}' is published twice", prompt.name),
                ));
            }
            let content = match (&prompt.text, &prompt.handler) {
                (Some(text), None) => PublishedContent::Text(text.clone()),
                (None, Some(handler)) => PublishedContent::Handler(Arc::new(
                    self.command(handler, &format!("{at}.handler"))?,
                )),
                _ => {
                    return Err(
                        self.invalid(at, "a prompt takes exactly one of `text` or `handler`")
                    );
                }
            };
            published.prompts.push(PublishedPrompt {
                name: prompt.name.clone(),
                description: prompt.description.clone(),
                arguments: prompt
                    .arguments
                    .iter()
                    .map(|a| (a.name.clone(), a.description.clone(), a.required))
                    .collect(),
                content,
            });
        }
        Ok(published)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{TaskInput, TaskTool};
    use crate::{FileFormat, load_str};

    fn load(mcp: &str) -> Result<wink_mcp::Published, String> {
        let text = format!(r#"{{"ns": "t", "key": "p", "sections": [], "mcp": {mcp}}}"#);
        load_str(&text, FileFormat::Json, Path::new("."), "p.json")
            .map(|loaded| loaded.published)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn ask_user_is_off_unless_asked_for() {
        assert!(load(r#"{"ask_user": true}"#).unwrap().ask_user);
        assert!(!load("{}").unwrap().ask_user);
        assert!(
            load(r#"{"ask_user": "yes"}"#)
                .unwrap_err()
                .contains("invalid type: string \"yes\", expected a boolean")
        );
    }

    #[test]
    fn the_mcp_block_is_checked_and_loaded() {
        let published = load(
            r#"{"resources": [{"uri": "x://a", "text": "A"}],
                "resource_templates": [{"uri_template": "x://t/{id}", "name": "t", "handler": {"command": ["cat"]}}],
                "prompts": [{"name": "p", "arguments": [{"name": "who", "required": true}], "text": "Hi ${who}"}]}"#,
        )
        .unwrap();
        assert_eq!(
            (
                published.resources.len(),
                published.templates.len(),
                published.prompts.len()
            ),
            (1, 1, 1)
        );
        assert_eq!(published.resources[0].name, "x://a");
        assert_eq!(
            load(r#"{"resources": [{"uri": "x://a", "text": "A", "file": "a.txt"}]}"#).unwrap_err(),
            "p.json: mcp.resources[0]: a resource takes exactly one of `text`, `file` or `handler`"
        );
        assert_eq!(
            load(
                r#"{"resources": [{"uri": "x://a", "text": "A"}, {"uri": "x://a", "text": "B"}]}"#
            )
            .unwrap_err(),
            "p.json: mcp.resources[1].uri: the URI 'x://a' is published twice"
        );
        assert_eq!(
            load(r#"{"prompts": [{"name": "p"}]}"#).unwrap_err(),
            "p.json: mcp.prompts[0]: a prompt takes exactly one of `text` or `handler`"
        );
        assert!(
            load(r#"{"resources": [{"uri": "x://a", "file": "/nonexistent/wink"}]}"#)
                .unwrap_err()
                .starts_with("p.json: mcp.resources[0].file: cannot read /nonexistent/wink: ")
        );
        assert!(
            load(r#"{"tools": []}"#)
                .unwrap_err()
                .contains("unknown field `tools`")
        );
    }

    #[test]
    fn task_tools_are_listed_and_checked() {
        let file = |task: &str| {
            format!(
                r#"{{"ns": "t", "key": "p", "sections": [{{"key": "a", "title": "A", "template": "x",
                    "tools": [{{"name": "quick", "description": "Quick."}}],
                    "children": [{{"key": "b", "title": "B", "template": "y",
                        "tools": [{{"name": "slow", "description": "Slow.", "task": {task}}}]}}]}}]}}"#
            )
        };
        let loaded = load_str(
            &file(r#""required""#),
            FileFormat::Json,
            Path::new("."),
            "p.json",
        )
        .unwrap();
        assert_eq!(loaded.task_tools, [TaskTool::new("slow", true)]);
        let error = load_str(
            &file(r#""sometimes""#),
            FileFormat::Json,
            Path::new("."),
            "p.json",
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "p.json: sections[0].children[0].tools[0].task: task is `optional` or `required`, not `sometimes`"
        );
        let load = |task: &str| {
            load_str(&file(task), FileFormat::Json, Path::new("."), "p.json")
                .map(|loaded| loaded.task_tools)
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            load(r#""optional", "task_input": "before""#).unwrap(),
            [TaskTool::new("slow", false).with_input(TaskInput::Before)]
        );
        assert_eq!(
            load(r#""optional", "task_input": "during""#).unwrap(),
            [TaskTool::new("slow", false)]
        );
        assert_eq!(
            load(r#""optional", "task_input": "first""#).unwrap_err(),
            "p.json: sections[0].children[0].tools[0].task_input: task_input is `during` or `before`, not `first`"
        );
        assert_eq!(
            load(r#"null, "task_input": "before""#).unwrap_err(),
            "p.json: sections[0].children[0].tools[0].task_input: task_input is for tools declared with `task`"
        );
    }
}
