//! [`ToolCatalogSection`]: a prompt section that lists a catalog (level-1 metadata only) and
//! offers the meta-tools; tools described with `tool.describe` become callable.

use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wink_core::{
    ParamsValue, PromptError, PromptTemplate, Section, SectionExpansion, SectionPath,
    SectionVisibility, Tool, ToolConcurrency, ToolContext, ToolError, ToolFuture, ToolPayload,
    ToolRef, ToolResponse, ToolResult,
};
use wink_session::{Event, Session};

use crate::catalog::{
    Catalog, DEFAULT_FIND_LIMIT, DEFAULT_FIND_PER_STEP, DEFAULT_LIST_LIMIT, FIND_TOOL, ListQuery,
    MAX_FIND_LIMIT, MAX_LIST_LIMIT, TOOL_DESCRIBE, TOOL_LIST,
};
use crate::defer::{DeferDecision, DeferPolicy, full_listing_body};
use crate::error::CatalogError;
use crate::servers::{LazyServer, ServerCatalog};
use wink_search::TaskInput;

mod meta;
pub use meta::*;

/// Recorded in the session when `tool.describe` makes catalog tools callable. No reducer is
/// needed: the events form their own ledger slice, which [`ToolCatalogSection`] reads to offer
/// the activated tools on every later render (restarts included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogToolsActivated {
    /// The catalog section's dotted path.
    pub catalog: String,
    /// The tools made callable, in the order described.
    pub tools: Vec<String>,
}

impl Event for CatalogToolsActivated {}

/// Switches the catalog's native fast path on or off for a session (the latest event wins).
///
/// While it is on, every [`ToolCatalogSection`] that renders in full offers *all* of its tools
/// (after the meta-tools), so the agent loop can run any of them, and the provider adapter sends
/// them deferred: Anthropic `defer_loading` with `tool_reference` blocks in `find_tool` results,
/// OpenAI Responses `defer_loading` with `find_tool` as the client-executed `tool_search`. The
/// model then sees only the listing and the tools its searches load, as with the meta-tools, but
/// the tool list (and the provider's prompt cache) never changes.
///
/// Turn it on only for an adapter configured with those deferred tools
/// ([`native_search_tools`] names them): any other adapter would receive the whole catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogNativeSearch {
    /// Whether catalog sections offer all of their tools for native deferred loading.
    pub enabled: bool,
}

impl Event for CatalogNativeSearch {}

/// Whether the session's latest [`CatalogNativeSearch`] turned the native fast path on.
pub fn native_search_enabled(session: &Session) -> bool {
    session
        .slice::<CatalogNativeSearch>()
        .latest()
        .is_some_and(|event| event.enabled)
}

/// The tools the catalog sections of `template` offer in native mode (see
/// [`CatalogNativeSearch`]): what a provider adapter should send deferred, with
/// [`crate::FIND_TOOL`] as the search that loads them. Empty when the template holds no catalog
/// section (or only empty catalogs).
///
/// A section counts when its session tools grow once native mode is on, so any section that
/// honours [`CatalogNativeSearch`] is covered, nested ones included.
pub fn native_search_tools<O>(template: &PromptTemplate<O>) -> BTreeSet<String> {
    let plain = Session::new();
    let native = Session::new();
    native.dispatch(CatalogNativeSearch { enabled: true });
    let mut names = BTreeSet::new();
    for node in template.nodes() {
        let offered: HashSet<String> = node
            .section
            .session_tools(Some(&plain))
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect();
        names.extend(
            node.section
                .session_tools(Some(&native))
                .iter()
                .map(|tool| tool.name().to_owned())
                .filter(|name| !offered.contains(name)),
        );
    }
    names
}

/// What the catalog section shows of its tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogListing {
    /// One line per tool: `- name: summary`.
    PerTool,
    /// One line per tool under a `[namespace]` heading, names without the repeated
    /// `namespace.` prefix (the default: the leanest per-tool listing; tools without a namespace
    /// are listed as with `PerTool`).
    #[default]
    Grouped,
    /// One line per namespace: `- name (N tools): description`; tools without a namespace get
    /// their own line.
    PerNamespace,
    /// One line naming the namespaces and their sizes.
    NamespacesOnly,
}

/// After the best match, [`ToolCatalogSection::best_matches`] keeps only tools scoring at least
/// this share of its score.
pub const RELATIVE_MATCH_SCORE: f32 = 0.6;

/// A prompt section holding a tool catalog.
///
/// It renders level-1 metadata only and offers just the meta-tools — `tool.list`,
/// `tool.describe`, `find_tool` — plus the tools the session has activated with
/// `tool.describe`. Describing a tool returns its full specification and a
/// [`SectionExpansion`] listing it, so the agent loop injects it into the running conversation
/// (or restarts with it offered, for adapters without dynamic tools).
///
/// With the native fast path on ([`CatalogNativeSearch`] in the session) it offers every catalog
/// tool after the meta-tools, for an adapter that sends them deferred.
///
/// The section must sit at the path given by [`ToolCatalogSection::at_path`] (default: its key
/// at the top level), and a prompt holds one catalog section (the meta-tool names are fixed).
pub struct ToolCatalogSection {
    title: String,
    key: String,
    summary: Option<String>,
    shared: Arc<Shared>,
    meta_tools: Vec<ToolRef>,
}

pub(crate) struct Shared {
    view: RwLock<View>,
    pub(crate) path: SectionPath,
    pub(crate) listing: CatalogListing,
    servers: Option<Arc<ServerCatalog>>,
    /// Every tool offered in full instead of the listing and the meta-tools.
    full: AtomicBool,
    pub(crate) policy: Mutex<DeferPolicy>,
    pub(crate) decision: Mutex<Option<DeferDecision>>,
}

struct View {
    catalog: Arc<Catalog>,
    body: String,
    generation: u64,
}

impl Shared {
    fn new(
        catalog: Arc<Catalog>,
        path: SectionPath,
        listing: CatalogListing,
        servers: Option<Arc<ServerCatalog>>,
        policy: DeferPolicy,
    ) -> Self {
        let generation = servers.as_ref().map_or(0, |s| s.generation());
        Self {
            view: RwLock::new(View {
                body: listing_body(&catalog, listing),
                catalog,
                generation,
            }),
            path,
            listing,
            servers,
            full: AtomicBool::new(policy == DeferPolicy::Never),
            policy: Mutex::new(policy),
            decision: Mutex::new(None),
        }
    }

    fn id(&self) -> String {
        self.path.dotted()
    }

    /// The catalog now: rebuilt first when a server's tool list changed (a live list differing
    /// from the cached one, or `tools/list_changed`).
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        if let Some(servers) = &self.servers {
            servers.refresh();
            let generation = servers.generation();
            let stale = self
                .view
                .read()
                .map_or(true, |view| view.generation != generation);
            if stale {
                match servers.build() {
                    Ok(catalog) => {
                        let catalog = Arc::new(catalog);
                        if let Ok(mut view) = self.view.write() {
                            *view = View {
                                body: listing_body(&catalog, self.listing),
                                catalog: catalog.clone(),
                                generation,
                            };
                        }
                        return catalog;
                    }
                    Err(e) => tracing::warn!("cannot re-index the tool catalog: {e}"),
                }
            }
        }
        match self.view.read() {
            Ok(view) => view.catalog.clone(),
            Err(poisoned) => poisoned.into_inner().catalog.clone(),
        }
    }

    fn body(&self) -> String {
        let catalog = self.catalog();
        if self.is_full() {
            return full_listing_body(&catalog);
        }
        match self.view.read() {
            Ok(view) => view.body.clone(),
            Err(poisoned) => poisoned.into_inner().body.clone(),
        }
    }

    pub(crate) fn is_full(&self) -> bool {
        self.full.load(Ordering::SeqCst)
    }

    pub(crate) fn set_full(&self, full: bool) {
        self.full.store(full, Ordering::SeqCst);
    }

    /// Starts, in the background, the servers behind `names`.
    fn warm<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        if let Some(servers) = &self.servers {
            servers.warm(names);
        }
    }

    fn activated(&self, session: &Session) -> Vec<String> {
        let id = self.id();
        let mut seen = HashSet::new();
        let mut names = Vec::new();
        for event in session.slice::<CatalogToolsActivated>().iter() {
            if event.catalog != id {
                continue;
            }
            for name in &event.tools {
                if seen.insert(name.clone()) {
                    names.push(name.clone());
                }
            }
        }
        names
    }
}

impl fmt::Debug for ToolCatalogSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCatalogSection")
            .field("key", &self.key)
            .field("listing", &self.shared.listing)
            .finish_non_exhaustive()
    }
}

impl ToolCatalogSection {
    /// A section titled `title` with key `key` over `catalog`, listing one line per tool.
    pub fn new(title: impl Into<String>, key: impl Into<String>, catalog: Catalog) -> Self {
        Self::shared(title, key, Arc::new(catalog))
    }

    /// As [`ToolCatalogSection::new`], over a shared catalog.
    pub fn shared(title: impl Into<String>, key: impl Into<String>, catalog: Arc<Catalog>) -> Self {
        let key = key.into();
        let shared = Shared::new(
            catalog,
            SectionPath::new(vec![key.clone()]),
            CatalogListing::PerTool,
            None,
            DeferPolicy::Always,
        );
        let mut section = Self {
            title: title.into(),
            key,
            summary: None,
            meta_tools: Vec::new(),
            shared: Arc::new(shared),
        };
        section.rebuild();
        section
    }

    /// A section over MCP servers (and whatever tools `servers` adds to each catalog it builds):
    /// loads their tool lists (from the cache when fresh, else by starting them) and builds the
    /// catalog. Servers start when one of their tools is described, found or called.
    pub fn with_servers(
        title: impl Into<String>,
        key: impl Into<String>,
        servers: Arc<ServerCatalog>,
    ) -> Result<Self, CatalogError> {
        servers.load()?;
        let catalog = Arc::new(servers.build()?);
        let mut section = Self::shared(title, key, catalog);
        section = section.with_parts(|parts| parts.servers = Some(servers));
        Ok(section)
    }

    fn with_parts(mut self, change: impl FnOnce(&mut Parts)) -> Self {
        let mut parts = Parts {
            catalog: self.shared.catalog(),
            path: self.shared.path.clone(),
            listing: self.shared.listing,
            servers: self.shared.servers.clone(),
            policy: self.defer_policy(),
        };
        change(&mut parts);
        self.shared = Arc::new(Shared::new(
            parts.catalog,
            parts.path,
            parts.listing,
            parts.servers,
            parts.policy,
        ));
        self.rebuild();
        self
    }

    /// Chooses what the listing shows.
    #[must_use]
    pub fn listing(self, listing: CatalogListing) -> Self {
        self.with_parts(|parts| parts.listing = listing)
    }

    /// Places the section at `path` (its parents' keys and its own), for nested sections.
    #[must_use]
    pub fn at_path(self, path: SectionPath) -> Self {
        self.with_parts(|parts| parts.path = path)
    }

    /// Chooses when the catalog is deferred (listed in one line per tool, with the meta-tools)
    /// rather than offered in full: [`DeferPolicy::Always`] by default. An `auto` policy takes
    /// effect with [`ToolCatalogSection::decide`]; until then the catalog is deferred.
    #[must_use]
    pub fn defer(self, policy: DeferPolicy) -> Self {
        self.with_parts(|parts| parts.policy = policy)
    }

    /// The deferral policy.
    pub fn defer_policy(&self) -> DeferPolicy {
        self.shared
            .policy
            .lock()
            .map_or(DeferPolicy::Always, |policy| *policy)
    }

    /// Applies the deferral policy for a model with `context_window` tokens (see
    /// [`DeferPolicy`]) and returns the decision with the token figures behind it. Takes effect
    /// for the next render.
    pub fn decide(&self, context_window: u64) -> Result<DeferDecision, CatalogError> {
        crate::defer::decide(&self.shared, &self.title, context_window)
    }

    /// Replaces the deferral policy (a command-line override) and applies it as
    /// [`ToolCatalogSection::decide`] does.
    pub fn redecide(
        &self,
        policy: DeferPolicy,
        context_window: u64,
    ) -> Result<DeferDecision, CatalogError> {
        if let Ok(mut current) = self.shared.policy.lock() {
            *current = policy;
        }
        self.decide(context_window)
    }

    /// The last decision of [`ToolCatalogSection::decide`].
    pub fn decision(&self) -> Option<DeferDecision> {
        self.shared.decision.lock().ok().and_then(|d| d.clone())
    }

    /// The MCP servers behind the catalog (empty for a static catalog).
    pub fn servers(&self) -> &[Arc<LazyServer>] {
        self.shared.servers.as_ref().map_or(&[], |s| s.servers())
    }

    /// A summary shown while the section is summarized.
    #[must_use]
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// The catalog (re-indexed first when an MCP server's tool list changed).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.shared.catalog()
    }

    /// The section's path (what activation events and expansions name).
    pub fn path(&self) -> &SectionPath {
        &self.shared.path
    }

    /// Names of the tools `session` has activated in this catalog, in activation order.
    pub fn activated(&self, session: &Session) -> Vec<String> {
        self.shared.activated(session)
    }

    /// The catalog tools most relevant to `query` (its `find_tool` search, no model call), best
    /// first: the best one, then at most `k - 1` more scoring at least
    /// [`RELATIVE_MATCH_SCORE`] of it; none when `k` is 0 or nothing matches. What pre-opening
    /// describes before the first model call (`wink run --preopen`).
    pub fn best_matches(&self, query: &str, k: usize) -> Vec<String> {
        let catalog = self.catalog();
        let found = catalog.find(query, k);
        let best = found.first().map_or(0.0, |f| f.score);
        found
            .iter()
            .enumerate()
            .filter(|(position, f)| *position == 0 || f.score >= RELATIVE_MATCH_SCORE * best)
            .filter_map(|(_, f)| catalog.entries().get(f.entry))
            .map(|entry| entry.name().to_owned())
            .collect()
    }

    /// The meta-tools: `tool.list`, `tool.describe`, `find_tool`.
    pub fn meta_tools(&self) -> &[ToolRef] {
        &self.meta_tools
    }

    /// The rendered body (the listing and its usage note, or, when the catalog is offered in
    /// full, a note naming the tools).
    pub fn body(&self) -> String {
        self.shared.body()
    }

    fn rebuild(&mut self) {
        self.meta_tools = vec![
            Arc::new(MetaTool::list(self.shared.clone())),
            Arc::new(MetaTool::describe(self.shared.clone())),
            Arc::new(MetaTool::find(self.shared.clone())),
        ];
    }
}

/// What [`ToolCatalogSection`]'s builder methods rebuild the shared state from.
struct Parts {
    catalog: Arc<Catalog>,
    path: SectionPath,
    listing: CatalogListing,
    servers: Option<Arc<ServerCatalog>>,
    policy: DeferPolicy,
}

/// The section body for `listing`: a usage note, a blank line, the lines.
pub fn listing_body(catalog: &Catalog, listing: CatalogListing) -> String {
    let count = catalog.len();
    let tools = if count == 1 {
        "1 tool".to_owned()
    } else {
        format!("{count} tools")
    };
    if count == 0 {
        return "The tool catalog is empty.".to_owned();
    }
    let namespaces = catalog.namespaces();
    let mut out = match listing {
        CatalogListing::PerTool => format!(
            "{tools} are available here but not yet callable. Call `tool.describe` with the names you need: it shows their full specifications and makes them callable. `find_tool` searches by capability; `tool.list` pages by namespace or tag.\n"
        ),
        CatalogListing::Grouped => format!(
            "{tools} are available here but not yet callable. Under a `[namespace]` heading, names omit the namespace: `[github]` `- create_issue` is `github.create_issue`. Call `tool.describe` with the names you need: it shows their full specifications and makes them callable. `find_tool` searches by capability; `tool.list` pages by namespace or tag.\n"
        ),
        CatalogListing::PerNamespace | CatalogListing::NamespacesOnly => format!(
            "{tools} in {} namespaces are available here but not yet callable. `tool.list` with a namespace lists its tools; `find_tool` searches by capability; `tool.describe` shows full specifications and makes tools callable.\n",
            namespaces.len()
        ),
    };
    match listing {
        CatalogListing::PerTool => {
            for entry in catalog.entries() {
                out.push('\n');
                out.push_str(entry.line());
            }
        }
        CatalogListing::Grouped => {
            for entry in catalog.unnamespaced() {
                out.push('\n');
                out.push_str(entry.line());
            }
            for namespace in namespaces {
                out.push_str("\n[");
                out.push_str(&namespace.name);
                out.push(']');
                for &position in &namespace.tools {
                    out.push('\n');
                    out.push_str(catalog.entries()[position].grouped_line());
                }
            }
        }
        CatalogListing::PerNamespace => {
            for namespace in namespaces {
                out.push('\n');
                out.push_str(&namespace.line);
            }
            for entry in catalog.unnamespaced() {
                out.push('\n');
                out.push_str(entry.line());
            }
        }
        CatalogListing::NamespacesOnly => {
            let names: Vec<String> = namespaces
                .iter()
                .map(|n| format!("{} ({})", n.name, n.tools.len()))
                .collect();
            out.push_str("\nNamespaces (tools): ");
            out.push_str(&names.join(", "));
            out.push('.');
            let loose = catalog.unnamespaced().count();
            if loose > 0 {
                out.push_str(&format!(
                    " And {loose} tool{} without a namespace.",
                    if loose == 1 { "" } else { "s" }
                ));
            }
        }
    }
    out
}

impl Section for ToolCatalogSection {
    fn title(&self) -> &str {
        &self.title
    }

    fn key(&self) -> &str {
        &self.key
    }

    fn tools(&self) -> &[ToolRef] {
        if self.shared.is_full() {
            return &[];
        }
        &self.meta_tools
    }

    fn session_tools(&self, session: Option<&Session>) -> Vec<ToolRef> {
        let all = || -> Vec<ToolRef> {
            self.shared
                .catalog()
                .entries()
                .iter()
                .map(|entry| entry.tool().clone())
                .collect()
        };
        if self.shared.is_full() {
            return all();
        }
        let Some(session) = session else {
            return Vec::new();
        };
        if native_search_enabled(session) {
            return self
                .shared
                .catalog()
                .entries()
                .iter()
                .map(|entry| entry.tool().clone())
                .collect();
        }
        let catalog = self.shared.catalog();
        self.shared
            .activated(session)
            .iter()
            .filter_map(|name| catalog.get(name))
            .map(|entry| entry.tool().clone())
            .collect()
    }

    fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    fn render_body(
        &self,
        _params: Option<&ParamsValue>,
        visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        match (visibility, &self.summary) {
            (SectionVisibility::Summary, Some(summary)) => Ok(summary.clone()),
            _ => Ok(self.shared.body()),
        }
    }

    fn accepts_overrides(&self) -> bool {
        false
    }
}
