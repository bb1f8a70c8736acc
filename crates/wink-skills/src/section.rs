//! Skills as sections: a [`SkillsSection`] holds one summarized child per skill (summary: the
//! description under a heading naming the skill; full content: the `SKILL.md` body and the list
//! of its bundled files), the `read_skill_file` tool, and the `allowed-tools` policy.

use std::fmt;
use std::path::{Component, Path};
use std::sync::Arc;

use serde_json::{Value, json};
use wink_core::{
    OPEN_SECTIONS, ParamsValue, PolicyRequest, PromptError, READ_SECTION, Section, SectionPath,
    SectionRef, SectionVisibility, SelectorInput, ToolBuilder, ToolContext, ToolError, ToolPolicy,
    ToolPolicyRef, ToolRef, ToolResult,
};
use wink_session::{Session, ToolInvoked};

use crate::{Skill, SkillsError};

pub use wink_core::builtin::READ_SKILL_FILE;
/// Most tokens (o200k) of one skill's summary.
pub const MAX_SUMMARY_TOKENS: usize = 100;
/// Most bytes `read_skill_file` returns of one file.
pub const MAX_FILE_BYTES: usize = 64 * 1024;

const INTRO: &str = "Skills: instructions for particular tasks, one subsection each, summarized by what it is for. Before doing a task that a skill covers, read its section and follow its instructions. Its bundled files are listed there; read one with `read_skill_file` when the instructions call for it.";

/// The skills of one or more folders as a prompt section.
///
/// ```
/// # let root = tempfile::tempdir().unwrap();
/// # let dir = root.path().join("greet");
/// # std::fs::create_dir(&dir).unwrap();
/// # std::fs::write(dir.join("SKILL.md"), "---\nname: greet\ndescription: Greet people warmly.\n---\nSay hello by name.\n").unwrap();
/// use wink_core::{Prompt, PromptTemplate};
/// let skills = wink_skills::load_skills(&[root.path().to_path_buf()]).unwrap();
/// let section = wink_skills::SkillsSection::new("Skills", "skills", skills).unwrap();
/// let template = PromptTemplate::builder("demo", "skills").section(section).build().unwrap();
/// let text = Prompt::new(template).render().unwrap().text;
/// assert!(text.contains("### 1.1. greet (skills.greet)\n\nGreet people warmly."));
/// ```
pub struct SkillsSection {
    title: String,
    key: String,
    skills: Arc<[Arc<Skill>]>,
    children: Vec<SectionRef>,
    tools: Vec<ToolRef>,
    policy: ToolPolicyRef,
}

impl fmt::Debug for SkillsSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillsSection")
            .field("key", &self.key)
            .field("skills", &self.skills.len())
            .finish_non_exhaustive()
    }
}

impl SkillsSection {
    /// A section titled `title` with key `key` (a root section; see [`Self::at_path`]).
    pub fn new(
        title: impl Into<String>,
        key: impl Into<String>,
        skills: Vec<Skill>,
    ) -> Result<Self, SkillsError> {
        let key = key.into();
        let counter = wink_tokens::TokenCounter::o200k()
            .map_err(|e| SkillsError::Tokenizer(e.to_string()))?;
        let mut children: Vec<SectionRef> = Vec::with_capacity(skills.len());
        for skill in &skills {
            wink_core::normalize_section_key(&skill.name).map_err(|_| {
                SkillsError::KeyUnusable {
                    name: skill.name.clone(),
                }
            })?;
        }
        let skills: Arc<[Arc<Skill>]> = skills.into_iter().map(Arc::new).collect();
        for skill in skills.iter() {
            children.push(Arc::new(SkillSection {
                summary: capped_summary(&skill.name, &skill.description, &counter),
                body: full_body(skill),
                skill: skill.clone(),
            }));
        }
        let tool =
            read_skill_file_tool(skills.clone()).map_err(|e| SkillsError::Tool(e.to_string()))?;
        let path = SectionPath::root(wink_core::normalize_section_key(&key).unwrap_or(key.clone()));
        Ok(Self {
            title: title.into(),
            policy: Arc::new(AllowedToolsPolicy {
                path,
                skills: skills.clone(),
            }),
            key,
            skills,
            children,
            tools: vec![tool],
        })
    }

    /// Place the section at `path` (its dotted key in the prompt) when it is not a root
    /// section: the `allowed-tools` policy recognises the skills' keys by it.
    #[must_use]
    pub fn at_path(mut self, path: SectionPath) -> Self {
        self.policy = Arc::new(AllowedToolsPolicy {
            path,
            skills: self.skills.clone(),
        });
        self
    }

    /// The skills, in order.
    pub fn skills(&self) -> &[Arc<Skill>] {
        &self.skills
    }
}

impl Section for SkillsSection {
    fn title(&self) -> &str {
        &self.title
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn children(&self) -> &[SectionRef] {
        &self.children
    }
    fn tools(&self) -> &[ToolRef] {
        &self.tools
    }
    fn render_body(
        &self,
        _params: Option<&ParamsValue>,
        _visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        Ok(INTRO.to_owned())
    }
    fn accepts_overrides(&self) -> bool {
        false
    }
    fn tool_policies(&self) -> Vec<ToolPolicyRef> {
        vec![self.policy.clone()]
    }
}

/// One skill: summarized by default.
#[derive(Debug)]
struct SkillSection {
    skill: Arc<Skill>,
    summary: String,
    body: String,
}

impl Section for SkillSection {
    fn title(&self) -> &str {
        &self.skill.name
    }
    fn key(&self) -> &str {
        &self.skill.name
    }
    fn summary(&self) -> Option<&str> {
        Some(&self.summary)
    }
    fn visibility(&self, _input: SelectorInput<'_>) -> Result<SectionVisibility, PromptError> {
        Ok(SectionVisibility::Summary)
    }
    fn render_body(
        &self,
        _params: Option<&ParamsValue>,
        visibility: SectionVisibility,
    ) -> Result<String, PromptError> {
        Ok(match visibility {
            SectionVisibility::Summary => self.summary.clone(),
            _ => self.body.clone(),
        })
    }
    fn accepts_overrides(&self) -> bool {
        false
    }
}

/// The summary the skills section shows for `skill`: its description, capped (see
/// [`MAX_SUMMARY_TOKENS`]).
pub fn summary_text(skill: &Skill, counter: &wink_tokens::TokenCounter) -> String {
    capped_summary(&skill.name, &skill.description, counter)
}

/// The description, cut at a word boundary (with `…`) so that `name: description` stays within
/// [`MAX_SUMMARY_TOKENS`].
fn capped_summary(name: &str, description: &str, counter: &wink_tokens::TokenCounter) -> String {
    let fits = |text: &str| counter.count(&format!("{name}: {text}")) <= MAX_SUMMARY_TOKENS;
    if fits(description) {
        return description.to_owned();
    }
    let words: Vec<&str> = description.split_whitespace().collect();
    let (mut low, mut high) = (0, words.len());
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(&format!("{} …", words[..mid].join(" "))) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    format!("{} …", words[..low].join(" "))
}

/// The skill's full content: its body, then its bundled files.
fn full_body(skill: &Skill) -> String {
    let mut body = skill.body.clone();
    if !skill.files.is_empty() {
        if !body.is_empty() {
            body.push_str("\n\n");
        }
        body.push_str(&format!(
            "Bundled files of skill \"{}\" (read one with `{READ_SKILL_FILE}`):",
            skill.name
        ));
        for file in &skill.files {
            body.push_str("\n- ");
            body.push_str(file);
        }
    }
    body
}

fn read_skill_file_tool(skills: Arc<[Arc<Skill>]>) -> Result<ToolRef, PromptError> {
    ToolBuilder::dynamic(
        READ_SKILL_FILE,
        "Read a file bundled with a skill, by the skill's name and the file's path as its section lists it.",
        json!({
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": "The skill's name."},
                "path": {"type": "string", "description": "The file's path relative to the skill folder, e.g. references/guide.md."}
            },
            "required": ["skill", "path"],
            "additionalProperties": false
        }),
        move |args: Value, _ctx: &mut ToolContext| {
            let name = args["skill"].as_str().unwrap_or_default();
            let path = args["path"].as_str().unwrap_or_default();
            let skill = skills.iter().find(|s| s.name == name).ok_or_else(|| {
                let known: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
                ToolError::failed(format!(
                    "Unknown skill '{name}'. Skills: {}.",
                    known.join(", ")
                ))
            })?;
            read_skill_file(skill, path)
                .map(ToolResult::message)
                .map_err(ToolError::failed)
        },
    )
    .build()
}

/// The bytes of `path` in `skill`'s folder: a relative path without `..` that (symbolic links
/// resolved) stays inside the folder and names a regular file. `SKILL.md` itself included.
pub fn skill_file_bytes(skill: &Skill, path: &str) -> Result<Vec<u8>, String> {
    let relative = Path::new(path);
    let escapes = path.is_empty()
        || relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if escapes {
        return Err(format!(
            "'{path}' is not a path inside skill '{}' (use a relative path without '..').",
            skill.name
        ));
    }
    let not_found = || {
        format!(
            "Skill '{}' has no file '{path}'. Its files: {}.",
            skill.name,
            if skill.files.is_empty() {
                "none".to_owned()
            } else {
                skill.files.join(", ")
            }
        )
    };
    let root = skill.dir.canonicalize().map_err(|e| e.to_string())?;
    let target = root
        .join(relative)
        .canonicalize()
        .map_err(|_| not_found())?;
    if !target.starts_with(&root) {
        return Err(format!(
            "'{path}' leads outside skill '{}'; it cannot be read.",
            skill.name
        ));
    }
    if !target.is_file() {
        return Err(not_found());
    }
    std::fs::read(&target).map_err(|e| format!("Cannot read '{path}': {e}"))
}

/// The text of `path` in `skill`'s folder (see [`skill_file_bytes`]): at most
/// [`MAX_FILE_BYTES`] of it, and an error for a binary file.
pub fn read_skill_file(skill: &Skill, path: &str) -> Result<String, String> {
    let bytes = skill_file_bytes(skill, path)?;
    let total = bytes.len();
    let shown = &bytes[..total.min(MAX_FILE_BYTES)];
    let text = match std::str::from_utf8(shown) {
        Ok(text) => text,
        // A cut inside a multi-byte character: drop the partial character.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&shown[..e.valid_up_to()]).map_err(|e| e.to_string())?
        }
        Err(_) => {
            return Err(format!(
                "'{path}' is a binary file ({total} bytes); it cannot be shown as text."
            ));
        }
    };
    if total > MAX_FILE_BYTES {
        Ok(format!(
            "{text}\n\n[Cut: the first {} of {total} bytes are shown.]",
            text.len()
        ))
    } else {
        Ok(text.to_owned())
    }
}

/// `allowed-tools`: while a skill is active, only its tools (and the disclosure tools and
/// `read_skill_file`) may run. A skill is active from the successful `read_section` /
/// `open_sections` call that requested its section until such a call requests another
/// skill's section; before any such call, the one skill the session expanded otherwise
/// (pre-opening, `--expand`) is active, if there is exactly one.
#[derive(Debug)]
struct AllowedToolsPolicy {
    path: SectionPath,
    skills: Arc<[Arc<Skill>]>,
}

impl ToolPolicy for AllowedToolsPolicy {
    fn check(&self, request: PolicyRequest<'_>) -> Option<String> {
        if request.tool == READ_SKILL_FILE {
            return None;
        }
        let skill = active_skill(&self.path, &self.skills, request.session)?;
        if skill.allows(request.tool) {
            return None;
        }
        let allowed = skill.allowed_tools.as_deref().unwrap_or_default().join(" ");
        Some(format!(
            "Tool '{}' is not allowed while skill '{}' is active: its allowed-tools are {allowed}. Read another skill's section to switch skills.",
            request.tool, skill.name
        ))
    }
}

/// The skill whose section was requested last (see [`AllowedToolsPolicy`]), if any.
pub fn active_skill<'a>(
    section: &SectionPath,
    skills: &'a [Arc<Skill>],
    session: &Session,
) -> Option<&'a Arc<Skill>> {
    let prefix = format!("{}.", section.dotted());
    let invoked: Vec<ToolInvoked> = session.slice::<ToolInvoked>().all();
    let read = invoked
        .iter()
        .rev()
        .filter(|event| event.success)
        .flat_map(|event| requested_keys(event).into_iter().rev())
        .find_map(|key| {
            let name = key.strip_prefix(&prefix)?;
            skills.iter().find(|s| s.name == name)
        });
    if read.is_some() {
        return read;
    }
    // No call read a skill: a single skill expanded by the session (pre-opened, `--expand`).
    let overrides = session.visibility_overrides();
    let mut expanded = skills.iter().filter(|s| {
        let path = SectionPath::new(
            section
                .segments()
                .iter()
                .cloned()
                .chain(std::iter::once(s.name.clone()))
                .collect(),
        );
        overrides.get(&path) == Some(SectionVisibility::Full)
    });
    match (expanded.next(), expanded.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

fn requested_keys(event: &ToolInvoked) -> Vec<String> {
    let normalize = |v: &Value| v.as_str().map(|s| s.trim().to_lowercase());
    match event.name.as_str() {
        READ_SECTION => event
            .params
            .get("section_key")
            .and_then(normalize)
            .into_iter()
            .collect(),
        OPEN_SECTIONS => event
            .params
            .get("section_keys")
            .and_then(Value::as_array)
            .map(|keys| keys.iter().filter_map(normalize).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
