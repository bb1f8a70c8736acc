//! What a handler gets besides its arguments: the [`ToolContext`] with the
//! session, shared [`Resources`] and a [`Deadline`].

use super::*;

/// A wall-clock deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Deadline(Instant);

impl Deadline {
    /// A deadline `after` from now (a duration too large for the clock is a century).
    pub fn after(after: Duration) -> Self {
        const CENTURY: Duration = Duration::from_secs(100 * 365 * 86_400);
        let now = Instant::now();
        Self(now.checked_add(after.min(CENTURY)).unwrap_or(now))
    }

    /// A deadline at `instant`.
    pub fn at(instant: Instant) -> Self {
        Self(instant)
    }

    /// The instant.
    pub fn instant(&self) -> Instant {
        self.0
    }

    /// Time left (zero when passed).
    pub fn remaining(&self) -> Duration {
        self.0.saturating_duration_since(Instant::now())
    }

    /// Whether the deadline has passed.
    pub fn is_expired(&self) -> bool {
        Instant::now() >= self.0
    }
}

/// A typed map of shared resources available to tools (filesystem, clients, ...).
#[derive(Clone, Default)]
pub struct Resources {
    pub(super) entries: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resources")
            .field("count", &self.entries.len())
            .finish()
    }
}

impl Resources {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add (or replace) a resource of type `T`.
    #[must_use]
    pub fn with<T: Any + Send + Sync>(self, value: T) -> Self {
        let mut entries = (*self.entries).clone();
        entries.insert(TypeId::of::<T>(), Arc::new(value));
        Self {
            entries: Arc::new(entries),
        }
    }

    /// The resource of type `T`.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.entries
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }

    /// Whether both registries are the same object (cheap identity check).
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.entries, &other.entries)
    }
}

/// Everything a tool handler may use.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session the call works in: the evaluation's session, or — for calls that run
    /// concurrently — a transaction over it that is committed only if the call succeeds.
    pub session: Session,
    /// The evaluation's session itself, for records that must survive a failed call (telemetry
    /// such as `SubagentRun`, like the `ToolInvoked` the executor publishes). The same session as
    /// [`ToolContext::session`] for calls that run alone.
    pub telemetry: Session,
    /// Shared resources (filesystem, clients, ...).
    pub resources: Resources,
    /// The evaluation deadline.
    pub deadline: Option<Deadline>,
    /// The provider's id for this call, when known.
    pub call_id: Option<String>,
    /// `ns:key` of the prompt being evaluated.
    pub prompt_name: Option<String>,
    /// The text of the rendered prompt the model saw.
    pub rendered_text: Option<Arc<str>>,
}

impl ToolContext {
    /// A context over `session` with no resources.
    pub fn new(session: Session) -> Self {
        Self {
            telemetry: session.clone(),
            session,
            resources: Resources::new(),
            deadline: None,
            call_id: None,
            prompt_name: None,
            rendered_text: None,
        }
    }

    /// A typed resource.
    pub fn resource<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.resources.get::<T>()
    }

    /// The workspace filesystem, when the run has one (resource `Arc<dyn wink_fs::Filesystem>`).
    pub fn filesystem(&self) -> Option<&Arc<dyn wink_fs::Filesystem>> {
        self.resources.get::<Arc<dyn wink_fs::Filesystem>>()
    }
}
