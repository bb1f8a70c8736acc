//! The converter from a parsed prompt file to a prompt template: sections (markdown,
//! included files, builtins, catalogs, skills, workspace, sub-agents), tools and
//! parameters, with the key path of every error.

use super::*;

pub(super) struct Converter<'a> {
    pub(super) origin: &'a str,
    pub(super) base_dir: &'a Path,
    pub(super) workspace: Option<(PathBuf, Arc<dyn wink_fs::Filesystem>)>,
    pub(super) skills: Vec<Arc<wink_skills::Skill>>,
    pub(super) catalogs: Vec<Arc<wink_catalog::ToolCatalogSection>>,
    /// The params type the last section named: the next one usually names it too (issue 22:
    /// one hash lookup fewer per section).
    pub(super) last_params_type: Option<ParamsType>,
}

impl Converter<'_> {
    pub(super) fn invalid(
        &self,
        key_path: impl Into<String>,
        message: impl fmt::Display,
    ) -> PromptFileError {
        PromptFileError::Invalid {
            path: self.origin.to_owned(),
            key_path: key_path.into(),
            message: message.to_string(),
        }
    }

    /// A template error at the key path of its section (of the file's `sections`): `sections` for
    /// a section the file does not name directly, the document itself for an error outside every
    /// section.
    pub(super) fn prompt_error(
        &self,
        error: &PromptError,
        sections: &[SectionSpec],
    ) -> PromptFileError {
        let key_path = match error.section_path() {
            Some(path) => {
                let mut found = None;
                find_section(sections, None, None, &path.dotted(), &mut found);
                found.unwrap_or_else(|| "sections".to_owned())
            }
            None => display_key_path(""),
        };
        self.invalid(key_path, error)
    }

    /// Validates `ns` and `key` one at a time (wink-core owns the rules and WINK's messages), so that
    /// an error names the field it is about rather than the whole template.
    pub(super) fn check_identity(&self, file: &PromptFile) -> Result<(), PromptFileError> {
        let alone = [
            ("ns", PromptTemplate::builder(file.ns.clone(), "key")),
            ("key", PromptTemplate::builder("ns", file.key.clone())),
        ];
        for (field, bare) in alone {
            bare.build().map_err(|error| self.invalid(field, error))?;
        }
        Ok(())
    }

    /// The file's params types, each field's type and default checked.
    fn params_types(
        &self,
        file: &PromptFile<'_>,
    ) -> Result<HashMap<String, ParamsType>, PromptFileError> {
        let mut types: HashMap<String, ParamsType> = HashMap::new();
        for (type_name, fields) in &file.params {
            let mut params = Vec::new();
            for (field, spec) in fields {
                let at = format!("params.{type_name}.{field}");
                let field_type = FieldType::from_name(&spec.field_type).ok_or_else(|| {
                    self.invalid(format!("{at}.type"), format!("unknown field type '{}' (expected string, integer, number, boolean, array, object or any)", spec.field_type))
                })?;
                if let Some(default) = &spec.default
                    && !default.is_null()
                    && !field_type.accepts(default)
                {
                    return Err(self.invalid(
                        format!("{at}.default"),
                        format!("default must be of type {}", field_type.name()),
                    ));
                }
                params.push(ParamField {
                    name: field.clone(),
                    field_type,
                    default: spec.default.clone(),
                });
            }
            types.insert(
                type_name.clone(),
                ParamsType::named(type_name.clone(), params),
            );
        }
        Ok(types)
    }

    pub(super) fn convert(
        mut self,
        mut file: PromptFile<'_>,
    ) -> Result<LoadedPrompt, PromptFileError> {
        self.check_identity(&file)?;
        let types = self.params_types(&file)?;
        let disclosure = match &file.disclosure {
            None => DisclosureMode::default(),
            Some(mode) => mode
                .parse::<DisclosureMode>()
                .map_err(|e| self.invalid("disclosure", e))?,
        };
        if let Some(profile) = &file.model_profile {
            wink_agent::profile::profile_named(profile)
                .map_err(|e| self.invalid("model_profile", e))?;
        }
        for name in file.repairs.keys() {
            wink_agent::turn_policy::check_policy_names([name.as_str()])
                .map_err(|e| self.invalid(format!("repairs.{name}"), e))?;
        }
        let search = match &file.search_sections {
            None => SearchSections::Auto,
            Some(SearchSectionsSpec::Flag(true)) => SearchSections::On,
            Some(SearchSectionsSpec::Flag(false)) => SearchSections::Off,
            Some(SearchSectionsSpec::Name(name)) => name
                .parse::<SearchSections>()
                .map_err(|e| self.invalid("search_sections", e))?,
        };
        let mut builder = PromptTemplate::builder(file.ns.clone(), file.key.clone())
            .disclosure(disclosure)
            .name_hidden_tools(file.name_hidden_tools.unwrap_or(false))
            .search_sections(search);
        if let Some(name) = &file.name {
            builder = builder.name(name.clone());
        }
        let mut task_tools = Vec::new();
        self.task_tools(&file.sections, "sections", &mut task_tools)?;
        let mut roots = Vec::new();
        for (index, spec) in file.sections.iter_mut().enumerate() {
            let place = Place {
                index,
                parent: None,
            };
            let section = self.section(spec, &place, &types)?;
            roots.push(Arc::clone(&section));
            builder = builder.section_ref(section);
        }
        let subagents = if file.subagents.is_empty() {
            None
        } else {
            let section = self.subagents(&file.subagents, &roots)?;
            builder = builder.section(section.clone());
            Some(section)
        };
        if let Some(output) = &file.output {
            builder = builder.output_spec(self.output(output, &file)?);
        }
        let mut template = builder
            .build()
            .map_err(|e| self.prompt_error(&e, &file.sections))?;
        match file.search_rerank.as_deref() {
            None | Some("bm25") => {}
            Some("hybrid") => {
                let model = self.embedding_model_for("search_rerank")?;
                template = template
                    .with_section_ranking(Arc::new(wink_search::hybrid::HybridRanking::new(model)));
            }
            Some(other) => {
                return Err(self.invalid(
                    "search_rerank",
                    format!("unknown search_rerank '{other}' (bm25, hybrid)"),
                ));
            }
        }
        let published = match &file.mcp {
            Some(spec) => self.published(spec)?,
            None => wink_mcp::Published::default(),
        };
        let (workspace_root, filesystem) = match self.workspace {
            Some((root, fs)) => (Some(root), Some(fs)),
            None => (None, None),
        };
        Ok(LoadedPrompt {
            template: Arc::new(template),
            base_dir: self.base_dir.to_path_buf(),
            filesystem,
            workspace_root,
            preopen: file.preopen,
            model_profile: file.model_profile.clone(),
            repairs: file
                .repairs
                .iter()
                .map(|(name, on)| (name.clone(), *on))
                .collect(),
            subagents,
            skills: self.skills,
            catalogs: self.catalogs,
            published,
            task_tools,
        })
    }

    pub(super) fn output(
        &self,
        output: &Value,
        file: &PromptFile,
    ) -> Result<OutputSpec, PromptFileError> {
        let Value::Object(obj) = output else {
            return Err(self.invalid("output", "output must be a JSON Schema object"));
        };
        let name = file.name.clone().unwrap_or_else(|| file.key.clone());
        let (container, schema) = if obj.get("type").and_then(Value::as_str) == Some("array") {
            let items = obj.get("items").cloned().ok_or_else(|| {
                self.invalid("output.items", "an array output needs an `items` schema")
            })?;
            (wink_schema::OutputContainer::Array, items)
        } else {
            (wink_schema::OutputContainer::Object, output.clone())
        };
        if !schema.is_object() {
            return Err(self.invalid("output", "output schema must be an object"));
        }
        wink_schema::check_schema(output).map_err(|problem| self.invalid("output", problem))?;
        Ok(OutputSpec {
            name,
            schema,
            container,
            allow_extra_keys: file.allow_extra_keys,
        })
    }

    /// The section `spec` declares. Its title and tools are taken out of it, not copied (a large
    /// file declares many); what stays (key, builtin, children) is what [`find_section`] reads.
    pub(super) fn section(
        &mut self,
        spec: &mut SectionSpec,
        at: &Place<'_>,
        types: &HashMap<String, ParamsType>,
    ) -> Result<SectionRef, PromptFileError> {
        if let Some(builtin) = &spec.builtin {
            let parent = at.parent_dotted();
            return self.builtin(spec, builtin, &at.to_string(), parent.as_deref());
        }
        let mut section = MarkdownSection::from_owned(
            std::mem::take(&mut spec.title).into_owned(),
            spec.key.clone().into_owned(),
            spec.template.take().unwrap_or_default().into_owned(),
        );
        let params_type = match &spec.params {
            Some(name) => {
                let cached = self
                    .last_params_type
                    .as_ref()
                    .filter(|ty| ty.name() == name);
                let ty = cached
                    .or_else(|| types.get(name.as_ref()))
                    .cloned()
                    .ok_or_else(|| {
                        let mut known: Vec<&str> = types.keys().map(String::as_str).collect();
                        known.sort_unstable();
                        self.invalid(
                            format!("{at}.params"),
                            format!(
                                "unknown params type '{name}' (declared: {})",
                                if known.is_empty() {
                                    "none".to_owned()
                                } else {
                                    known.join(", ")
                                }
                            ),
                        )
                    })?;
                section = section.params_type(ty.clone());
                self.last_params_type = Some(ty.clone());
                Some(ty)
            }
            None => None,
        };
        if let Some(defaults) = &spec.defaults {
            if params_type.is_none() {
                return Err(self.invalid(
                    format!("{at}.defaults"),
                    "a section without `params` cannot have defaults",
                ));
            }
            section = section.default_json(defaults.clone());
        }
        if let Some(summary) = &spec.summary {
            section = section.summary(summary);
        }
        match spec.visibility.as_deref() {
            None | Some("full") => {}
            Some("summary") if spec.summary.is_none() => {
                return Err(self.missing_summary(&spec.key, at));
            }
            Some("summary") => section = section.visibility(SectionVisibility::Summary),
            Some(other) => {
                return Err(self.invalid(
                    format!("{at}.visibility"),
                    format!("visibility must be \"full\" or \"summary\", not \"{other}\""),
                ));
            }
        }
        if let Some(suffix) = &spec.summary_suffix {
            section = section.summary_suffix(suffix.clone());
        }
        match &spec.enabled {
            None => {}
            Some(EnabledSpec::Constant(b)) => section = section.enabled(*b),
            Some(EnabledSpec::Field(field)) => {
                let ok = params_type
                    .as_ref()
                    .and_then(|t| t.fields().iter().find(|f| &f.name == field))
                    .is_some_and(|f| f.field_type == FieldType::Boolean);
                if !ok {
                    return Err(self.invalid(format!("{at}.enabled"), format!("`enabled` must be a boolean or the name of a boolean field of the section's params type; '{field}' is not")));
                }
                section = section.enabled_if_field(field.clone());
            }
        }
        for (i, tool) in std::mem::take(&mut spec.tools).into_iter().enumerate() {
            let tool_at = format!("{at}.tools[{i}]");
            section = section.tool(self.tool(tool, &tool_at)?);
        }
        let mut children = Vec::with_capacity(spec.children.len());
        for (index, child) in spec.children.iter_mut().enumerate() {
            let place = Place {
                index,
                parent: Some((at, &spec.key)),
            };
            children.push(self.section(child, &place, types)?);
        }
        Ok(Arc::new(section.child_refs(children)))
    }

    /// `visibility: summary` without a summary. WINK reports this when rendering (wink-core's
    /// `effective_visibility`); a file's visibility is a constant, so the file is wrong whatever
    /// the params: say so now.
    fn missing_summary(&self, key: &str, at: &Place<'_>) -> PromptFileError {
        let normalized = key.trim().to_lowercase();
        let dotted = match at.parent_dotted() {
            Some(p) => format!("{p}.{normalized}"),
            None => normalized.clone(),
        };
        let path = SectionPath::new(dotted.split('.').map(str::to_owned).collect());
        let error = PromptError::missing_summary(&normalized, &path);
        self.invalid(format!("{at}.visibility"), error)
    }

    pub(super) fn catalog_section(
        &mut self,
        spec: &SectionSpec,
        at: &str,
        parent: Option<&str>,
    ) -> Result<SectionRef, PromptFileError> {
        self.reject_fields(
            spec,
            at,
            &["params", "template", "children", "root", "dirs"],
            "a builtin catalog section takes key, title, tools, catalog, servers, defer, listing, rerank and summary",
        )?;
        let mut tools = Vec::with_capacity(spec.tools.len());
        for (i, tool) in spec.tools.iter().enumerate() {
            tools.push(self.tool(tool.clone(), &format!("{at}.tools[{i}]"))?);
        }
        let file = match &spec.catalog {
            Some(file) => {
                let path = self.base_dir.join(file);
                Some(
                    wink_catalog::load_catalog_file(&path)
                        .map_err(|e| self.invalid(format!("{at}.catalog"), e))?,
                )
            }
            None => None,
        };
        let rerank = match spec.rerank.as_deref() {
            None | Some("bm25") => None,
            Some("hybrid") => Some(self.embedding_model(at)?),
            Some(other) => {
                return Err(self.invalid(
                    format!("{at}.rerank"),
                    format!("unknown rerank '{other}' (bm25, hybrid)"),
                ));
            }
        };
        let defer = match &spec.defer {
            None => wink_catalog::DeferPolicy::default(),
            Some(text) => text
                .parse::<wink_catalog::DeferPolicy>()
                .map_err(|e| self.invalid(format!("{at}.defer"), e))?,
        };
        let base = move || {
            let mut builder = wink_catalog::Catalog::builder().tools(tools.clone());
            if let Some(file) = &file {
                builder = builder.file(file.clone());
            }
            if let Some(model) = &rerank {
                builder = builder.rerank_with(Arc::clone(model));
            }
            builder
        };
        let listing = match spec.listing.as_deref() {
            Some("per-tool") => wink_catalog::CatalogListing::PerTool,
            None | Some("grouped") => wink_catalog::CatalogListing::Grouped,
            Some("per-namespace") => wink_catalog::CatalogListing::PerNamespace,
            Some("namespaces-only") => wink_catalog::CatalogListing::NamespacesOnly,
            Some(other) => {
                return Err(self.invalid(format!("{at}.listing"), format!("unknown listing '{other}' (per-tool, grouped, per-namespace, namespaces-only)")));
            }
        };
        let path = builtin_path(&spec.key, parent);
        let mut section = if spec.servers.is_empty() {
            let catalog = base().build().map_err(|e| self.invalid(at, e))?;
            wink_catalog::ToolCatalogSection::new(spec.title.clone(), spec.key.clone(), catalog)
        } else {
            let servers = self.servers(spec, at)?;
            let servers = wink_mcp::ServerCatalog::new(base, servers);
            wink_catalog::ToolCatalogSection::with_servers(
                spec.title.clone(),
                spec.key.clone(),
                Arc::new(servers),
            )
            .map_err(|e| match e {
                wink_catalog::CatalogError::UnknownServerTools {
                    ref server, key, ..
                } => self.invalid(format!("{at}.servers.{server}.{key}"), e),
                other => self.invalid(format!("{at}.servers"), other),
            })?
        }
        .listing(listing)
        .at_path(path)
        .defer(defer);
        if let Some(summary) = &spec.summary {
            section = section.summary(summary.clone());
        }
        let section = Arc::new(section);
        self.catalogs.push(Arc::clone(&section));
        Ok(section)
    }

    pub(super) fn skills_section(
        &mut self,
        spec: &SectionSpec,
        at: &str,
        parent: Option<&str>,
    ) -> Result<SectionRef, PromptFileError> {
        self.reject_fields(
            spec,
            at,
            &[
                "params",
                "template",
                "summary",
                "tools",
                "children",
                "visibility",
                "enabled",
                "defaults",
                "root",
                "catalog",
            ],
            "a builtin skills section takes only key, title and dirs",
        )?;
        let dirs: Vec<PathBuf> = match &spec.dirs {
            Some(dirs) if !dirs.is_empty() => dirs.iter().map(|d| self.base_dir.join(d)).collect(),
            _ => {
                return Err(self.invalid(
                    format!("{at}.dirs"),
                    "a skills section needs `dirs`, folders of skills relative to the prompt file",
                ));
            }
        };
        let skills =
            wink_skills::load_skills(&dirs).map_err(|e| self.invalid(format!("{at}.dirs"), e))?;
        let path = builtin_path(&spec.key, parent);
        let section = wink_skills::SkillsSection::new(spec.title.clone(), spec.key.clone(), skills)
            .map_err(|e| self.invalid(format!("{at}.dirs"), e))?
            .at_path(path);
        self.skills.extend(section.skills().iter().cloned());
        Ok(Arc::new(section))
    }

    /// The first of the `refused` fields that `spec` sets (in the order of [`builtin_fields`]),
    /// as an error at `{at}.{field}` saying what the builtin section takes (`message`).
    pub(super) fn reject_fields(
        &self,
        spec: &SectionSpec,
        at: &str,
        refused: &[&str],
        message: &str,
    ) -> Result<(), PromptFileError> {
        let set = builtin_fields(spec)
            .into_iter()
            .find(|(field, set)| *set && refused.contains(field));
        match set {
            Some((field, _)) => Err(self.invalid(format!("{at}.{field}"), message)),
            None => Ok(()),
        }
    }

    /// The static embedding model for `rerank: hybrid`: `$WINK_EMBED_MODEL`, else the wink cache.
    pub(super) fn embedding_model(
        &self,
        at: &str,
    ) -> Result<Arc<wink_embed::StaticModel>, PromptFileError> {
        self.embedding_model_for(&format!("{at}.rerank"))
    }

    /// [`Self::embedding_model`] for the field `field` (named in errors).
    pub(super) fn embedding_model_for(
        &self,
        field: &str,
    ) -> Result<Arc<wink_embed::StaticModel>, PromptFileError> {
        let dir = wink_embed::StaticModel::configured_dir().ok_or_else(|| {
            self.invalid(
                field.to_owned(),
                "no cache directory for the embedding model: set WINK_HOME or WINK_EMBED_MODEL",
            )
        })?;
        let model = wink_embed::StaticModel::load(&dir).map_err(|e| {
            self.invalid(
                field.to_owned(),
                format!("{e} (fetch it with `bash scripts/fetch-embeddings.sh`)"),
            )
        })?;
        Ok(Arc::new(model))
    }

    pub(super) fn builtin(
        &mut self,
        spec: &SectionSpec,
        builtin: &str,
        at: &str,
        parent: Option<&str>,
    ) -> Result<SectionRef, PromptFileError> {
        match builtin {
            "workspace" => {
                self.reject_fields(
                    spec,
                    at,
                    &[
                        "params",
                        "template",
                        "summary",
                        "tools",
                        "children",
                        "visibility",
                        "enabled",
                        "defaults",
                        "dirs",
                    ],
                    "a builtin workspace section takes only key, title and root",
                )?;
                if self.workspace.is_some() {
                    return Err(self.invalid(
                        format!("{at}.builtin"),
                        "a prompt can hold only one workspace section",
                    ));
                }
                let root = spec.root.as_deref().ok_or_else(|| {
                    self.invalid(
                        format!("{at}.root"),
                        "a workspace section needs `root`, a folder relative to the prompt file",
                    )
                })?;
                let root = self.base_dir.join(root);
                let (section, fs) =
                    wink_workspace::workspace_section_for_root(&root, &spec.key, &spec.title)
                        .map_err(|e| {
                            self.invalid(
                                format!("{at}.root"),
                                format!("cannot open workspace {}: {e}", root.display()),
                            )
                        })?;
                self.workspace = Some((root, fs));
                Ok(Arc::new(section))
            }
            "catalog" => self.catalog_section(spec, at, parent),
            "skills" => self.skills_section(spec, at, parent),
            other => Err(self.invalid(
                format!("{at}.builtin"),
                format!("unknown builtin section '{other}' (known: workspace, catalog, skills)"),
            )),
        }
    }

    /// The tool `spec` declares (taken, not copied: a large file declares many).
    pub(super) fn tool(&self, spec: ToolDecl, at: &str) -> Result<ToolRef, PromptFileError> {
        let ToolDecl {
            name,
            description,
            parameters,
            examples,
            handler,
            terminal,
            task: _,
            task_input: _,
        } = spec;
        let parameters = parameters.unwrap_or_else(wink_core::empty_params_schema);
        if !parameters.is_object() {
            return Err(self.invalid(
                format!("{at}.parameters"),
                "parameters must be a JSON Schema object",
            ));
        }
        wink_schema::check_schema(&parameters)
            .map_err(|problem| self.invalid(format!("{at}.parameters"), problem))?;
        if let Some(builtin) = RESERVED_TOOL_NAMES.iter().find(|n| **n == name) {
            return Err(self.invalid(
                format!("{at}.name"),
                format!("'{builtin}' is the name of a builtin tool; choose another name"),
            ));
        }
        let handler = match &handler {
            Some(h) => Some(self.command(h, &format!("{at}.handler"))?),
            None => None,
        };
        let mut builder = ToolBuilder::dynamic(
            name.clone(),
            description,
            parameters,
            move |args: Value, ctx: &mut ToolContext| match &handler {
                Some(h) => {
                    let mut env = vec![(SESSION_ID_VARIABLE, ctx.telemetry.id().to_string())];
                    if let Some(id) = &ctx.call_id {
                        env.push((CALL_ID_VARIABLE, id.clone()));
                    }
                    if let Some(input) = ctx.resource::<wink_mcp::ClientInput>() {
                        env.push((INPUT_RESPONSES_VARIABLE, input.responses.to_string()));
                        if let Some(state) = &input.state {
                            env.push((REQUEST_STATE_VARIABLE, state.clone()));
                        }
                    }
                    let progress = ctx.resource::<wink_mcp::ProgressReporter>().cloned();
                    let cancel = ctx.resource::<wink_mcp::CancelSignal>().cloned();
                    let deadline = ctx.deadline.map(|d| d.instant());
                    h.run_reporting(&args, &env, deadline, progress, cancel)
                        .map_err(|_| ToolError::DeadlineExceeded)
                }
                None => Err(ToolError::Fatal(format!(
                    "Tool '{name}' does not have a registered handler."
                ))),
            },
        );
        for example in examples {
            let output = match example.output {
                Value::String(s) => s,
                other => render_json_payload(&other),
            };
            builder = builder.example(example.description, example.input, output);
        }
        if terminal {
            builder = builder.terminal();
        }
        builder.build().map_err(|e| self.invalid(at, e))
    }

    pub(super) fn command(
        &self,
        spec: &HandlerSpec,
        at: &str,
    ) -> Result<CommandHandler, PromptFileError> {
        let Some((program, args)) = spec.command.split_first() else {
            return Err(self.invalid(format!("{at}.command"), "command must name a program"));
        };
        let program_path = PathBuf::from(program);
        let program = if program.contains('/') && program_path.is_relative() {
            self.base_dir.join(program_path)
        } else {
            program_path
        };
        let timeout = match spec.timeout_s {
            None => DEFAULT_TIMEOUT,
            Some(t) if t.is_finite() && t > 0.0 && t <= 86_400.0 => Duration::from_secs_f64(t),
            Some(t) => {
                return Err(self.invalid(
                    format!("{at}.timeout_s"),
                    format!("timeout_s must be between 0 and 86400 seconds, not {t}"),
                ));
            }
        };
        let cwd = match &spec.cwd {
            Some(dir) => {
                let cwd = self.base_dir.join(dir);
                if !cwd.is_dir() {
                    return Err(self.invalid(
                        format!("{at}.cwd"),
                        format!("the working directory '{}' does not exist", cwd.display()),
                    ));
                }
                cwd
            }
            None => self.base_dir.to_path_buf(),
        };
        Ok(CommandHandler {
            program,
            args: args.to_vec(),
            cwd,
            env: spec.env.clone(),
            timeout,
            max_output_bytes: spec.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES),
        })
    }
}

/// Where a section is in the document: `sections[3].children[1]` (its `Display`), and the dotted
/// path of its parent. Both are written out only when needed (an error, a builtin section):
/// issue 22, formatting them for every section was a tenth of loading a large file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Place<'a> {
    /// Index among its siblings.
    pub(super) index: usize,
    /// The parent's place and (raw) key; `None` for a root section.
    pub(super) parent: Option<(&'a Place<'a>, &'a str)>,
}

impl Place<'_> {
    /// The parent's dotted path (normalised keys), `None` for a root section.
    pub(super) fn parent_dotted(&self) -> Option<String> {
        let (place, key) = self.parent?;
        let normalized = key.trim().to_lowercase();
        Some(match place.parent_dotted() {
            Some(p) => format!("{p}.{normalized}"),
            None => normalized,
        })
    }
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.parent {
            Some((place, _)) => write!(f, "{place}.children[{}]", self.index),
            None => write!(f, "sections[{}]", self.index),
        }
    }
}

/// Sets `found` to the place of the last section of `sections` (pre-order, not below builtin
/// sections) whose dotted path is `dotted`: the section a template error names.
fn find_section(
    sections: &[SectionSpec],
    at: Option<&str>,
    parent: Option<&str>,
    dotted: &str,
    found: &mut Option<String>,
) {
    for (index, spec) in sections.iter().enumerate() {
        let here = match at {
            Some(at) => format!("{at}.children[{index}]"),
            None => format!("sections[{index}]"),
        };
        let normalized = spec.key.trim().to_lowercase();
        let path = match parent {
            Some(p) => format!("{p}.{normalized}"),
            None => normalized,
        };
        if path == dotted {
            *found = Some(here.clone());
        }
        if spec.builtin.is_none() {
            find_section(&spec.children, Some(&here), Some(&path), dotted, found);
        }
    }
}

/// The path of a builtin section with key `key` under the dotted `parent` path.
pub(super) fn builtin_path(key: &str, parent: Option<&str>) -> SectionPath {
    let key = key.trim().to_lowercase();
    match parent {
        Some(p) => SectionPath::new(
            p.split('.')
                .map(str::to_owned)
                .chain(std::iter::once(key))
                .collect(),
        ),
        None => SectionPath::root(key),
    }
}

/// The fields a builtin section may refuse, in the order they are checked, and whether `spec`
/// sets each.
fn builtin_fields(spec: &SectionSpec) -> [(&'static str, bool); 11] {
    [
        ("params", spec.params.is_some()),
        ("template", spec.template.is_some()),
        ("summary", spec.summary.is_some()),
        ("tools", !spec.tools.is_empty()),
        ("children", !spec.children.is_empty()),
        ("visibility", spec.visibility.is_some()),
        ("enabled", spec.enabled.is_some()),
        ("defaults", spec.defaults.is_some()),
        ("root", spec.root.is_some()),
        ("catalog", spec.catalog.is_some()),
        ("dirs", spec.dirs.is_some()),
    ]
}
