//! [`WorkspaceToolsSection`]: its settings, the tools it registers and the
//! guidance it renders.

use super::*;

/// A prompt section exposing the workspace tools, with short guidance on using them well.
///
/// Key `workspace` and title `Workspace` unless changed; paths are
/// workspace-relative unless a mount point is set, in which case results show
/// paths under it and the tools accept paths with or without it.
#[derive(Debug, Clone)]
pub struct WorkspaceToolsSection {
    pub(super) key: String,
    pub(super) title: String,
    pub(super) settings: Arc<ToolSettings>,
    pub(super) body: String,
    pub(super) tools: Vec<ToolRef>,
    pub(super) error: Option<PromptError>,
}

/// What the tool handlers share.
#[derive(Debug)]
pub(super) struct ToolSettings {
    pub(super) mount_point: Option<String>,
    pub(super) limits: FsLimits,
}

impl ToolSettings {
    /// Normalise a path typed by the model.
    pub(super) fn path(&self, raw: &str) -> Result<String, ToolError> {
        normalize_model_path(raw, self.mount_point.as_deref()).map_err(ToolError::failed)
    }

    /// How a normalised path is shown to the model.
    pub(super) fn show(&self, normalized: &str) -> String {
        match (&self.mount_point, normalized.is_empty()) {
            (Some(mount), true) => mount.clone(),
            (Some(mount), false) => format!("{mount}/{normalized}"),
            (None, true) => ".".to_owned(),
            (None, false) => normalized.to_owned(),
        }
    }

    /// How a directory is named in a sentence: `the workspace root` for the
    /// root without a mount point, else as [`show`](Self::show) has it.
    pub(super) fn describe_dir(&self, normalized: &str) -> String {
        if normalized.is_empty() && self.mount_point.is_none() {
            "the workspace root".to_owned()
        } else {
            self.show(normalized)
        }
    }
}

impl Default for WorkspaceToolsSection {
    fn default() -> Self {
        Self::new()
    }
}

impl WorkspaceToolsSection {
    /// The section with key `workspace`, title `Workspace`, workspace-relative
    /// paths and [`FsLimits::DEFAULT`].
    #[must_use]
    pub fn new() -> Self {
        Self::assemble(
            "workspace".to_owned(),
            "Workspace".to_owned(),
            None,
            FsLimits::DEFAULT,
        )
    }

    /// Use another section key.
    #[must_use]
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = key.into();
        self
    }

    /// Use another heading title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Show the workspace to the model under a mount point such as
    /// `/workspace`: results name `/workspace/src/main.rs`, and the tools
    /// accept that path as well as `src/main.rs`. An empty or `/` mount
    /// point means none.
    #[must_use]
    pub fn with_mount_point(self, mount_point: impl AsRef<str>) -> Self {
        let trimmed = mount_point.as_ref().trim().trim_matches('/');
        let mount = (!trimmed.is_empty()).then(|| format!("/{trimmed}"));
        Self::assemble(self.key, self.title, mount, self.settings.limits)
    }

    /// The limits stated in the guidance and enforced by the tools (on top of
    /// the filesystem's own): write and replacement sizes, read page size, and
    /// grep matches.
    #[must_use]
    pub fn with_limits(self, limits: FsLimits) -> Self {
        let mount = self.settings.mount_point.clone();
        Self::assemble(self.key, self.title, mount, limits)
    }

    /// The mount point shown to the model, if any.
    #[must_use]
    pub fn mount_point(&self) -> Option<&str> {
        self.settings.mount_point.as_deref()
    }

    /// The limits the tools enforce.
    #[must_use]
    pub fn limits(&self) -> FsLimits {
        self.settings.limits
    }

    pub(super) fn assemble(
        key: String,
        title: String,
        mount_point: Option<String>,
        limits: FsLimits,
    ) -> Self {
        let settings = Arc::new(ToolSettings {
            mount_point,
            limits,
        });
        let body = guidance(&settings);
        let (tools, error) = match build_tools(&settings) {
            Ok(tools) => (tools, None),
            Err(error) => (Vec::new(), Some(error)),
        };
        Self {
            key,
            title,
            settings,
            body,
            tools,
            error,
        }
    }
}

impl Section for WorkspaceToolsSection {
    fn title(&self) -> &str {
        &self.title
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn tools(&self) -> &[ToolRef] {
        &self.tools
    }
    fn construction_error(&self) -> Option<&PromptError> {
        self.error.as_ref()
    }
    fn render_body(
        &self,
        _params: Option<&ParamsValue>,
        _visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        Ok(self.body.clone())
    }
    fn accepts_overrides(&self) -> bool {
        false
    }
}

/// Open a [`HostFilesystem`] rooted at `root` (with [`FsLimits::DEFAULT`]) and a
/// [`WorkspaceToolsSection`] with `key` and `title` over it. Put the returned
/// filesystem into the tool resources as `Arc<dyn Filesystem>`.
///
/// # Errors
/// [`FsError::RootUnavailable`] (and the other errors of
/// [`HostFilesystem::open`]) when `root` cannot serve as a workspace.
pub fn workspace_section_for_root(
    root: &Path,
    key: &str,
    title: &str,
) -> Result<(WorkspaceToolsSection, Arc<dyn Filesystem>), FsError> {
    let filesystem = HostFilesystem::open(root, FsLimits::DEFAULT)?;
    let section = WorkspaceToolsSection::new()
        .with_key(key)
        .with_title(title)
        .with_limits(filesystem.limits());
    Ok((section, Arc::new(filesystem)))
}

pub(super) fn guidance(settings: &ToolSettings) -> String {
    let limits = settings.limits;
    let paths = match &settings.mount_point {
        Some(mount) => format!(
            "The workspace is mounted at `{mount}`: `{mount}/src/main.rs` and `src/main.rs` name the same file. Nothing outside it can be reached."
        ),
        None => "Paths are relative to the workspace root (`src/main.rs`); a leading `/` also means the root (`/src/main.rs` is `src/main.rs`), and `..` above the root is refused. Nothing outside the root can be reached.".to_owned(),
    };
    let items = [
        paths,
        "Find before you open: `ls` shows one directory, `glob` finds files by name pattern, `grep` finds lines by regular expression.".to_owned(),
        format!(
            "`read_file` numbers its lines and returns up to {} lines per call; continue long files with `offset` and `limit`.",
            thousands(MAX_READ_LINES)
        ),
        "Read a file before changing it. For small changes use `edit_file`, copying `old_string` exactly from the file without the line-number prefix; add surrounding lines if it occurs more than once.".to_owned(),
        "Use `write_file` for new files; pass `mode` \"overwrite\" to replace a file or \"append\" to extend it.".to_owned(),
        "`rm` deletes a file or an empty directory; set `recursive` to delete a directory with its contents.".to_owned(),
        format!(
            "Each write or replacement is limited to {}, and a read returns at most {}: split large content into several appends.",
            byte_size(limits.max_write_bytes),
            byte_size(limits.max_read_bytes)
        ),
    ];
    let mut body =
        String::from("Use these tools to explore and change the files of the workspace.\n");
    for (index, item) in items.iter().enumerate() {
        let _ = write!(body, "\n{}. {item}", index + 1);
    }
    body
}

/// `48000` → `48,000`.
pub(super) fn thousands(value: usize) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `1048576` → `1 MiB`, `48000` → `48,000 bytes`.
pub(super) fn byte_size(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    const KIB: usize = 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", thousands(bytes / MIB))
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", thousands(bytes / KIB))
    } else {
        format!("{} bytes", thousands(bytes))
    }
}

pub(super) fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}
