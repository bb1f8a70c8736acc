//! The MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): the prompt's skills
//! as `skill://<name>/<path>` resources, listed by `skills/list` and `skills/get` with their
//! verbatim front matter and a complete manifest (SHA-256 digest and size of every file).

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    Resource, ResourceContents, Skill as McpSkill, SkillFrontmatter, SkillResource, SkillResources,
    sha256_digest,
};
use wink_skills::{Skill, skill_file_bytes};

/// Scheme of skill resources.
pub const SKILL_URI_SCHEME: &str = "skill://";

/// The URI of `path` (relative, `/`-separated) in skill `name`.
pub fn skill_uri(name: &str, path: &str) -> String {
    format!("{SKILL_URI_SCHEME}{name}/{path}")
}

/// The raw bytes of a file: `SKILL.md` is the skill's own file (whatever its case on disk).
fn file_bytes(skill: &Skill, path: &str) -> Result<Vec<u8>, String> {
    if path == "SKILL.md" {
        std::fs::read(&skill.skill_md).map_err(|e| format!("Cannot read SKILL.md: {e}"))
    } else {
        skill_file_bytes(skill, path)
    }
}

/// The extension's entry for `skill`: its front matter as written (scalars as strings), and
/// every file, `SKILL.md` first.
pub fn skill_entry(skill: &Skill) -> Result<McpSkill, ErrorData> {
    let text = |key: &str| {
        skill
            .frontmatter
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let mut frontmatter = SkillFrontmatter::new(text("name"), text("description"));
    for (key, value) in &skill.frontmatter {
        if key != "name" && key != "description" {
            frontmatter = frontmatter.with_field(key.clone(), value.clone());
        }
    }
    let mut files = Vec::with_capacity(skill.files.len() + 1);
    for path in std::iter::once("SKILL.md").chain(skill.files.iter().map(String::as_str)) {
        let bytes = file_bytes(skill, path).map_err(|e| ErrorData::internal_error(e, None))?;
        files.push(SkillResource::new(
            skill_uri(&skill.name, path),
            sha256_digest(&bytes),
            bytes.len() as u64,
        ));
    }
    Ok(McpSkill::new(
        skill_uri(&skill.name, "SKILL.md"),
        frontmatter,
        SkillResources::Files(files),
    ))
}

/// The listed resource of each skill: its `SKILL.md` (supporting files are read by URI; the
/// `skills/list` manifest names them all).
pub fn skill_resources(skills: &[Arc<Skill>]) -> Vec<Resource> {
    skills
        .iter()
        .map(|skill| {
            Resource::new(skill_uri(&skill.name, "SKILL.md"), skill.name.clone())
                .with_description(skill.description.clone())
                .with_mime_type("text/markdown")
        })
        .collect()
}

/// The skill whose `SKILL.md` is `uri`.
pub fn skill_for_uri<'a>(skills: &'a [Arc<Skill>], uri: &str) -> Option<&'a Arc<Skill>> {
    let name = uri
        .strip_prefix(SKILL_URI_SCHEME)?
        .strip_suffix("/SKILL.md")?;
    skills.iter().find(|s| s.name == name)
}

/// Read `skill://<name>/<path>`: text for UTF-8 files, a base64 blob otherwise.
pub fn read_skill_resource(
    skills: &[Arc<Skill>],
    uri: &str,
) -> Result<ResourceContents, ErrorData> {
    let unknown =
        |why: String| ErrorData::resource_not_found(format!("{why} (resource '{uri}')."), None);
    let rest = uri
        .strip_prefix(SKILL_URI_SCHEME)
        .ok_or_else(|| unknown("Not a skill resource".into()))?;
    let (name, path) = rest
        .split_once('/')
        .ok_or_else(|| unknown("A skill resource is skill://<name>/<path>".into()))?;
    let skill = skills
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| unknown(format!("Unknown skill '{name}'")))?;
    let bytes = file_bytes(skill, path).map_err(unknown)?;
    let mime = mime_type(path);
    Ok(match String::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(text, uri).with_mime_type(mime),
        Err(e) => {
            use base64::Engine as _;
            let blob = base64::engine::general_purpose::STANDARD.encode(e.as_bytes());
            ResourceContents::blob(blob, uri).with_mime_type(mime)
        }
    })
}

fn mime_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "md" => "text/markdown",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "pdf" => "application/pdf",
        "gz" => "application/gzip",
        "png" => "image/png",
        "txt" | "" => "text/plain",
        _ => "application/octet-stream",
    }
}
