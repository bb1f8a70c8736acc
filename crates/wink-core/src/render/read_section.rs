//! The builtin disclosure tools answered from a render: WINK's `read_section`, the
//! unified `read_section`, and the context file of an expanded section.

use super::*;

/// One `read_section` call outside `wink` mode: the key, the part asked for and the room left in
/// the model's context (see [`ContextRoom`]).
pub(crate) struct SectionRead<'a> {
    pub(crate) key: &'a str,
    pub(crate) part: Option<usize>,
    pub(crate) room: Option<u64>,
}

impl RenderState {
    /// WINK v0.17 `read_section` (quirks 3 and 4 kept).
    pub(crate) fn wink_read_section(
        &self,
        key: &str,
    ) -> Result<ToolResult<ToolPayload>, PromptError> {
        let path = SectionPath::new(key.split('.').map(str::to_owned).collect());
        let Some(index) = self.template.node_index(&path) else {
            return Err(PromptError::validation(format!(
                "Section '{key}' does not exist in this prompt."
            )));
        };
        if self.render_visibility[index] == Some(SectionVisibility::Full) {
            return Err(PromptError::validation(format!(
                "Section '{key}' is not summarized."
            )));
        }
        let params = self.resolve_params(index)?;
        let mut content =
            self.render_node(index, params.as_ref(), SectionVisibility::Full, true)?;
        let end = self.nodes()[index].subtree_end;
        let mut skip: Option<usize> = None;
        let mut children = Vec::new();
        for child in index + 1..end {
            let node = &self.nodes()[child];
            if let Some(d) = skip {
                if node.depth > d {
                    continue;
                }
                skip = None;
            }
            let child_params = self.resolve_params(child)?;
            let Some(child_params) = child_params else {
                skip = Some(node.depth); // v0.17 skips sections without params (quirk 3)
                continue;
            };
            if !self.is_enabled(child, Some(&child_params), self.session.as_ref())? {
                skip = Some(node.depth);
                continue;
            }
            let effective = self.render_visibility[child].unwrap_or(SectionVisibility::Full);
            let mut rendered = self.render_node(child, Some(&child_params), effective, true)?;
            if effective == SectionVisibility::Summary && node.section.summary().is_some() {
                rendered.push_str(&self.suffix(node, !node.section.tools().is_empty())?); // quirk 4: own tools only
                skip = Some(node.depth);
            }
            children.push(rendered);
        }
        if !children.is_empty() {
            content.push_str("\n\n");
            content.push_str(&children.join("\n\n"));
        }
        Ok(ToolResult::ok(
            format!("Content of section '{key}':"),
            ToolPayload {
                json: json!({"content": content}),
                rendered: content,
            },
        ))
    }

    /// Seed 003 `read_section`: content at current visibility plus the tools of the section and
    /// its enabled descendants; a section too long for the room left comes in parts
    /// ([`portion`]).
    pub(crate) fn unified_read_section(
        &self,
        read: &SectionRead<'_>,
        session: &Session,
    ) -> Result<ToolResponse, PromptError> {
        let key = read.key;
        let unknown = || {
            let summarized = self.summarized_keys(Some(session));
            let mut message =
                with_valid_keys(&format!("Unknown section key: '{key}'"), key, &summarized);
            if let Some(shown) = self.shown_section_extended_by(key, &summarized, session) {
                message.push_str(&format!(
                    " Section '{shown}' is shown in full already: answer from its text above."
                ));
            }
            ToolResponse::from(ToolResult::<ToolPayload>::failure(message))
        };
        let Some(index) = self.nodes().iter().position(|n| n.path.dotted() == key) else {
            return Ok(unknown());
        };
        let Some(visible) = self.reachable_and_visible(index, session)? else {
            return Ok(unknown());
        };
        let (content, tools) = self.subtree_content(index, session)?;
        let portion = match portion(key, &content, read.part, read.room) {
            Ok(portion) => portion,
            Err(message) => {
                return Ok(ToolResponse::from(ToolResult::<ToolPayload>::failure(
                    message,
                )));
            }
        };
        let mut text = portion.text;
        if let Some((_, last, count)) = portion.parts
            && last < count
        {
            let children = self.child_keys(index, session);
            text.push_str("\n\n");
            text.push_str(&continuation_note(key, last + 1, count, &children));
        }
        let names: Vec<&str> = if visible {
            Vec::new()
        } else {
            tools.iter().map(|(_, t)| t.name()).collect()
        };
        let mut json = json!({"content": text, "expanded_tools": names});
        if let Some((first, last, count)) = portion.parts {
            json["parts"] = json!({"first": first, "last": last, "count": count});
        }
        let message = if visible {
            "Section is already expanded.".to_owned()
        } else {
            read_message(key, portion.parts)
        };
        let result = ToolResult::ok(
            message,
            ToolPayload {
                json,
                rendered: text,
            },
        );
        let expansion = (!visible && !tools.is_empty()).then(|| SectionExpansion {
            path: self.nodes()[index].path.clone(),
            tools,
        });
        Ok(ToolResponse { result, expansion })
    }

    /// Dotted keys of the enabled children of node `index`.
    fn child_keys(&self, index: usize, session: &Session) -> Vec<String> {
        let node = &self.nodes()[index];
        (index + 1..node.subtree_end)
            .filter(|&i| self.nodes()[i].depth == node.depth + 1)
            .filter(|&i| {
                let params = self.resolve_params(i).ok().flatten();
                self.is_enabled(i, params.as_ref(), Some(session))
                    .unwrap_or(false)
            })
            .map(|i| self.nodes()[i].path.dotted())
            .collect()
    }

    /// Whether the section at `index` is reachable (it and its ancestors enabled: `None` when
    /// not) and shown in full (`Some(true)`) rather than under a summarized ancestor or as a
    /// summary itself (`Some(false)`).
    fn reachable_and_visible(
        &self,
        index: usize,
        session: &Session,
    ) -> Result<Option<bool>, PromptError> {
        // The section must be reachable: it and its ancestors enabled.
        let ancestors: Vec<usize> = (0..index)
            .filter(|&i| {
                self.nodes()[index]
                    .path
                    .is_descendant_of(&self.nodes()[i].path)
            })
            .collect();
        let mut visible = true;
        for &i in ancestors.iter().chain(std::iter::once(&index)) {
            let p = self.resolve_params(i)?;
            if !self.is_enabled(i, p.as_ref(), Some(session))? {
                return Ok(None);
            }
            if self.effective_visibility(i, p.as_ref(), Some(session))?
                == SectionVisibility::Summary
            {
                visible = false;
            }
        }
        Ok(Some(visible))
    }

    /// The full text of the section at `index` with its enabled descendants (summarized ones as
    /// their summary), and the tools of that subtree.
    fn subtree_content(
        &self,
        index: usize,
        session: &Session,
    ) -> Result<(String, Vec<(SectionPath, ToolRef)>), PromptError> {
        let params = self.resolve_params(index)?;
        let content = self.render_node(index, params.as_ref(), SectionVisibility::Full, true)?;
        let end = self.nodes()[index].subtree_end;
        let mut tools: Vec<(SectionPath, ToolRef)> = self.nodes()[index]
            .section
            .tools()
            .iter()
            .map(|t| (self.nodes()[index].path.clone(), t.clone()))
            .collect();
        let mut render_skip: Option<usize> = None;
        let mut disabled_skip: Option<usize> = None;
        let mut joined = Joined::starting_with(content);
        for child in index + 1..end {
            let node = &self.nodes()[child];
            if let Some(d) = disabled_skip {
                if node.depth > d {
                    continue;
                }
                disabled_skip = None;
            }
            let child_params = self.resolve_params(child)?;
            if !self.is_enabled(child, child_params.as_ref(), Some(session))? {
                disabled_skip = Some(node.depth);
                continue;
            }
            tools.extend(
                node.section
                    .tools()
                    .iter()
                    .map(|t| (node.path.clone(), t.clone())),
            );
            if let Some(d) = render_skip {
                if node.depth > d {
                    continue;
                }
                render_skip = None;
            }
            let heading = Heading {
                depth: node.depth,
                number: &node.number,
                path: Some(&node.path),
            };
            if self.push_child(&mut joined, child, session, &heading)? {
                render_skip = Some(node.depth);
            }
        }
        Ok((joined.text, tools))
    }

    /// WINK v0.17's `open_sections` validation, against the render-time visibility: keys
    /// non-empty, summarized; returns the sections to open and the keys that name none (a
    /// request naming no section at all is refused as v0.17 refuses it). The other modes use
    /// [`RenderState::lenient_open_request`].
    pub(crate) fn validate_open_request(
        &self,
        keys: &[String],
    ) -> Result<(Vec<SectionPath>, Vec<String>), PromptError> {
        if keys.is_empty() {
            return Err(PromptError::validation(
                "At least one section key must be provided.",
            ));
        }
        let mut paths = Vec::new();
        let mut unknown = Vec::new();
        for key in keys {
            let path = SectionPath::new(key.split('.').map(str::to_owned).collect());
            let Some(index) = self.template.node_index(&path) else {
                unknown.push(key.clone());
                continue;
            };
            if self.render_visibility[index] == Some(SectionVisibility::Full) {
                return Err(PromptError::validation(format!(
                    "Section '{key}' is already expanded."
                )));
            }
            let path = self.nodes()[index].path.clone();
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        // Every key unknown: WINK v0.17's error. Some known: they open, and the expansion's
        // reason names the others (a deliberate difference from v0.17, which refuses the call).
        if let (true, Some(key)) = (paths.is_empty(), unknown.first()) {
            return Err(PromptError::validation(format!(
                "Section '{key}' does not exist in this prompt."
            )));
        }
        Ok((paths, unknown))
    }

    /// Seed 001: render the section standalone (depth 0, no number) in full, followed by its
    /// enabled descendants at their current visibility for `session` (one level deeper each, no
    /// numbers; a summarized descendant shows its summary and suffix and hides its subtree), and
    /// write it to `context/<dot.key>.md`. Returns the file path.
    pub(crate) fn write_context_file(
        &self,
        path: &SectionPath,
        fs: &dyn wink_fs::Filesystem,
        session: &Session,
    ) -> Result<String, String> {
        let index = self
            .template
            .node_index(path)
            .ok_or_else(|| format!("Section '{}' does not exist in this prompt.", path.dotted()))?;
        let node = &self.nodes()[index];
        let params = self.resolve_params(index).map_err(|e| e.to_string())?;
        let top = render_section(
            node.section.as_ref(),
            params.as_ref(),
            0,
            "",
            Some(&node.path),
            SectionVisibility::Full,
            true,
        )
        .map_err(|e| e.to_string())?;
        let mut joined = Joined::starting_with(top);
        let mut skip: Option<usize> = None;
        for child in index + 1..node.subtree_end {
            let descendant = &self.nodes()[child];
            if let Some(d) = skip {
                if descendant.depth > d {
                    continue;
                }
                skip = None;
            }
            let child_params = self.resolve_params(child).map_err(|e| e.to_string())?;
            if !self
                .is_enabled(child, child_params.as_ref(), Some(session))
                .map_err(|e| e.to_string())?
            {
                skip = Some(descendant.depth);
                continue;
            }
            let heading = Heading {
                depth: descendant.depth - node.depth,
                number: "",
                path: Some(&descendant.path),
            };
            if self
                .push_child(&mut joined, child, session, &heading)
                .map_err(|e| e.to_string())?
            {
                skip = Some(descendant.depth);
            }
        }
        let content = joined.text;
        let file = format!("{CONTEXT_FOLDER}/{}.md", path.dotted());
        fs.mkdir(CONTEXT_FOLDER, true, true)
            .map_err(|e| e.to_string())?;
        fs.write(&file, &content, wink_fs::WriteMode::Overwrite)
            .map_err(|e| e.to_string())?;
        Ok(file)
    }
}
