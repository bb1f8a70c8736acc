//! [`CatalogBuilder`]: tools, records and servers gathered, names checked,
//! namespaces grouped, the index built.

use super::*;

pub(super) struct PendingTool {
    pub(super) tool: ToolRef,
    pub(super) namespace: Option<String>,
    pub(super) tags: Vec<String>,
    pub(super) origin: String,
}

/// Collects tools and builds a [`Catalog`].
#[derive(Default)]
pub struct CatalogBuilder {
    pub(super) pending: Vec<PendingTool>,
    pub(super) descriptions: Vec<(String, String)>,
    pub(super) line_budget: LineBudget,
    pub(super) index_config: IndexConfig,
    pub(super) search_config: SearchConfig,
    #[cfg(feature = "embeddings")]
    pub(super) embeddings: Option<(
        Arc<wink_embed::StaticModel>,
        wink_search::hybrid::HybridConfig,
    )>,
}

impl std::fmt::Debug for CatalogBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogBuilder")
            .field("tools", &self.pending.len())
            .field("line_budget", &self.line_budget)
            .finish_non_exhaustive()
    }
}

impl CatalogBuilder {
    /// Re-ranks `find_tool`'s BM25 shortlist with static embeddings from `model` (the hybrid
    /// of `wink_search::hybrid`, default settings: BM25 top 50, 0.5·BM25/max + 0.5·cosine).
    /// Exact-name hits stay first and an empty BM25 result stays empty.
    #[cfg(feature = "embeddings")]
    #[must_use]
    pub fn rerank_with(mut self, model: Arc<wink_embed::StaticModel>) -> Self {
        self.embeddings = Some((model, wink_search::hybrid::HybridConfig::default()));
        self
    }

    /// Adds a typed or dynamic tool; its [`Tool::metadata`] gives namespace and tags.
    #[must_use]
    pub fn tool(mut self, tool: ToolRef) -> Self {
        let metadata = tool.metadata();
        let origin = format!("tool `{}`", tool.name());
        self.pending.push(PendingTool {
            namespace: metadata.namespace,
            tags: metadata.tags,
            origin,
            tool,
        });
        self
    }

    /// Adds several tools.
    #[must_use]
    pub fn tools(self, tools: impl IntoIterator<Item = ToolRef>) -> Self {
        tools.into_iter().fold(self, Self::tool)
    }

    /// Adds tools described by records, without an implementation: they can be listed, searched
    /// and described, and calling one reports that nothing runs it.
    #[must_use]
    pub fn records(self, records: impl IntoIterator<Item = ToolRecord>) -> Self {
        self.records_with(records, &Invoker::Unbound)
    }

    /// Adds tools described by records, run by `handler` (which gets each tool's remote name).
    #[must_use]
    pub fn records_with_handler<F>(
        self,
        records: impl IntoIterator<Item = ToolRecord>,
        handler: F,
    ) -> Self
    where
        F: Fn(&str, Value, &mut ToolContext) -> Result<ToolResult<Value>, ToolError>
            + Send
            + Sync
            + 'static,
    {
        self.records_with(records, &Invoker::Handler(Arc::new(handler)))
    }

    /// Adds the tools and namespace descriptions of a catalog document, without implementations.
    #[must_use]
    pub fn file(mut self, file: CatalogFile) -> Self {
        self.descriptions.extend(file.namespaces);
        self.records(file.tools)
    }

    /// Adds an MCP server's tools under their own names; calls are forwarded to the server.
    #[must_use]
    pub fn mcp_server(self, server: Arc<McpServer>) -> Self {
        let records = server.tools().to_vec();
        self.records_with(records, &Invoker::Mcp(server))
    }

    /// Adds an MCP server's tools as `namespace.<tool>`; calls are forwarded under the server's
    /// own names.
    #[must_use]
    pub fn mcp_server_in(self, server: Arc<McpServer>, namespace: &str) -> Self {
        let records: Vec<ToolRecord> = server
            .tools()
            .iter()
            .map(|record| {
                let mut record = record.clone();
                record.name = format!("{namespace}.{}", record.remote_name);
                record.namespace = Some(namespace.to_owned());
                record
            })
            .collect();
        self.records_with(records, &Invoker::Mcp(server))
    }

    /// Adds the tools of an MCP server started on first use, as `<server name>.<tool>` (the
    /// tools it has listed so far: call [`LazyServer::load_tools`] first).
    #[must_use]
    pub fn lazy_server(self, server: &Arc<LazyServer>) -> Self {
        let namespace = server.name().to_owned();
        let records: Vec<ToolRecord> = server
            .tools()
            .into_iter()
            .map(|mut record| {
                record.name = format!("{namespace}.{}", record.remote_name);
                record.namespace = Some(namespace.clone());
                record.origin = format!("MCP server `{namespace}`: tool `{}`", record.remote_name);
                record
            })
            .collect();
        self.records_with(records, &Invoker::Lazy(Arc::clone(server)))
    }

    pub(super) fn records_with(
        mut self,
        records: impl IntoIterator<Item = ToolRecord>,
        invoker: &Invoker,
    ) -> Self {
        for record in records {
            let namespace = record
                .namespace
                .clone()
                .or_else(|| wink_search::namespace_of(&record.name).map(str::to_owned));
            let tags = record.tags.clone();
            let origin = record.origin.clone();
            let tool: ToolRef = Arc::new(CatalogTool::new(record, invoker.clone()));
            self.pending.push(PendingTool {
                tool,
                namespace,
                tags,
                origin,
            });
        }
        self
    }

    /// Describes a namespace (shown in per-namespace listings).
    #[must_use]
    pub fn namespace_description(
        mut self,
        namespace: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.descriptions
            .push((namespace.into(), description.into()));
        self
    }

    /// How long listing lines may be (default 20 tokens).
    #[must_use]
    pub fn line_budget(mut self, budget: LineBudget) -> Self {
        self.line_budget = budget;
        self
    }

    /// The search configuration (default: `wink_search`'s tuned BM25).
    #[must_use]
    pub fn index_config(mut self, config: IndexConfig) -> Self {
        self.index_config = config;
        self
    }

    /// How `find_tool` routes queries to servers and merges a task's steps (default:
    /// `wink_search`'s tuned [`SearchConfig`]).
    #[must_use]
    pub fn search_config(mut self, config: SearchConfig) -> Self {
        self.search_config = config;
        self
    }

    /// Validates the names (non-empty, at most 128 characters, no whitespace or control
    /// characters, not a meta-tool name, unique), computes listing lines and builds the index.
    pub fn build(self) -> Result<Catalog, CatalogError> {
        let counter = match self.line_budget {
            LineBudget::Tokens(_) => {
                Some(TokenCounter::o200k().map_err(|e| CatalogError::Tokenizer(e.to_string()))?)
            }
            LineBudget::Unlimited => None,
        };
        let lines = LineMaker {
            budget: self.line_budget,
            counter,
        };
        let mut by_name: HashMap<String, usize> = HashMap::with_capacity(self.pending.len());
        let mut entries: Vec<CatalogEntry> = Vec::with_capacity(self.pending.len());
        let mut documents = Vec::with_capacity(self.pending.len());
        for pending in self.pending {
            let name = pending.tool.name().to_owned();
            check_name(&name, &pending.origin)?;
            if let Some(&first) = by_name.get(&name) {
                return Err(CatalogError::DuplicateTool {
                    name,
                    first: entries[first].origin.clone(),
                    second: pending.origin,
                });
            }
            let mut metadata = pending.tool.metadata();
            metadata.summary = wink_search::first_sentence(pending.tool.description());
            metadata.namespace = pending.namespace;
            metadata.tags = pending.tags;
            let mut document = ToolDocument::from_json_schema(
                name.clone(),
                pending.tool.description(),
                pending.tool.parameters(),
            )
            .with_tags(metadata.tags.clone());
            document.namespace = metadata.namespace.clone();
            documents.push(document);
            let line = lines.line(&format!("- {name}"), &metadata.summary);
            by_name.insert(name, entries.len());
            entries.push(CatalogEntry {
                tool: pending.tool,
                metadata,
                line,
                grouped_line: OnceLock::new(),
                lines,
                origin: pending.origin,
            });
        }
        let index =
            SearchIndex::build_with_namespaces(documents, &self.descriptions, self.index_config);
        let descriptions: HashMap<String, String> = self.descriptions.into_iter().collect();
        let namespaces = group_namespaces(&entries, &descriptions, &lines);
        let mut tags: Vec<String> = entries
            .iter()
            .flat_map(|e| e.metadata.tags.iter().cloned())
            .collect();
        tags.sort();
        tags.dedup();
        let search = ToolSearch::with_config(index, self.search_config);
        #[cfg(feature = "embeddings")]
        let search = match self.embeddings {
            Some((model, config)) => search.rerank_with(model, config),
            None => search,
        };
        Ok(Catalog {
            entries,
            by_name,
            namespaces,
            tags,
            search,
        })
    }
}

pub(super) fn check_name(name: &str, origin: &str) -> Result<(), CatalogError> {
    let reject = |reason: &str| {
        Err(CatalogError::InvalidName {
            name: name.to_owned(),
            origin: origin.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if name.is_empty() {
        return reject("the name is empty");
    }
    if name.chars().count() > 128 {
        return reject("names are at most 128 characters");
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return reject("names contain no whitespace or control characters");
    }
    if META_TOOL_NAMES.contains(&name) {
        return reject("this is the name of a catalog meta-tool");
    }
    Ok(())
}

/// Groups entries by namespace, in order of first appearance.
pub(super) fn group_namespaces(
    entries: &[CatalogEntry],
    descriptions: &HashMap<String, String>,
    lines: &LineMaker,
) -> Vec<Namespace> {
    let mut order: Vec<String> = Vec::new();
    let mut members: HashMap<&str, Vec<usize>> = HashMap::new();
    for (position, entry) in entries.iter().enumerate() {
        if let Some(namespace) = entry.metadata.namespace.as_deref() {
            let list = members.entry(namespace).or_default();
            if list.is_empty() {
                order.push(namespace.to_owned());
            }
            list.push(position);
        }
    }
    order
        .into_iter()
        .map(|name| {
            let tools = members.remove(name.as_str()).unwrap_or_default();
            let description = descriptions.get(&name).cloned();
            let count = match tools.len() {
                1 => "1 tool".to_owned(),
                n => format!("{n} tools"),
            };
            let head = format!("- {name} ({count})");
            let detail = match &description {
                Some(text) => wink_search::first_sentence(text),
                None => tools
                    .iter()
                    .map(|&t| {
                        let full = entries[t].name();
                        full.strip_prefix(name.as_str())
                            .and_then(|rest| rest.strip_prefix('.'))
                            .unwrap_or(full)
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            let line = lines.line(&head, &detail);
            Namespace {
                name,
                description,
                tools,
                line,
            }
        })
        .collect()
}
