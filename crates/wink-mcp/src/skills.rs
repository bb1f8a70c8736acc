//! The MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): the prompt's skills
//! as `skill://<name>/<path>` resources, listed by `skills/list` and `skills/get` with their
//! verbatim front matter and a complete manifest (SHA-256 digest and size of every file).

use std::fs::File;
use std::io::Read;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    Resource, ResourceContents, Skill as McpSkill, SkillFrontmatter, SkillResource, SkillResources,
};
use sha2::{Digest, Sha256};
use wink_skills::{Skill, open_skill_file};

/// Scheme of skill resources.
pub const SKILL_URI_SCHEME: &str = "skill://";

/// The largest skill file `resources/read` returns (4 MiB). A larger file is refused with an
/// error naming its size; `skills/list` and `skills/get` still list it (their digests are
/// computed reading it in pieces, never whole).
pub const MAX_RESOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// The URI of `path` (relative, `/`-separated) in skill `name`.
pub fn skill_uri(name: &str, path: &str) -> String {
    format!("{SKILL_URI_SCHEME}{name}/{path}")
}

/// A file of the skill, opened, and its size: `SKILL.md` is the skill's own file (whatever its
/// case on disk).
fn open_file(skill: &Skill, path: &str) -> Result<(File, u64), String> {
    if path == "SKILL.md" {
        let cannot = |e: std::io::Error| format!("Cannot read SKILL.md: {e}");
        let file = File::open(&skill.skill_md).map_err(cannot)?;
        let size = file.metadata().map_err(cannot)?.len();
        Ok((file, size))
    } else {
        open_skill_file(skill, path)
    }
}

/// The `sha256:` digest (the form the extension requires) and the size of what `file` holds,
/// read in pieces.
fn digest(mut file: File, path: &str) -> Result<(String, u64), String> {
    use std::fmt::Write as _;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|e| format!("Cannot read '{path}': {e}"))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        size += read as u64;
    }
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hasher.finalize() {
        let _ = write!(text, "{byte:02x}");
    }
    Ok((text, size))
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
        let (digest, size) = open_file(skill, path)
            .and_then(|(file, _)| digest(file, path))
            .map_err(|e| ErrorData::internal_error(e, None))?;
        files.push(SkillResource::new(
            skill_uri(&skill.name, path),
            digest,
            size,
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

/// Read `skill://<name>/<path>`: text for UTF-8 files without control characters (other than
/// tabs and line breaks, so that JSON escaping at most doubles the size), a base64 blob
/// otherwise; a file over [`MAX_RESOURCE_BYTES`] is refused.
pub fn read_skill_resource(
    skills: &[Arc<Skill>],
    uri: &str,
) -> Result<ResourceContents, ErrorData> {
    let unknown = |why: String| {
        ErrorData::resource_not_found(
            format!("{why} (resource '{uri}')."),
            Some(serde_json::json!({"uri": uri})),
        )
    };
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
    let (file, size) = open_file(skill, path).map_err(unknown)?;
    let too_large = |size: u64| {
        ErrorData::invalid_params(
            format!(
                "'{uri}' is {size} bytes, over the limit of {MAX_RESOURCE_BYTES} bytes for resources/read."
            ),
            None,
        )
    };
    if size > MAX_RESOURCE_BYTES {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(MAX_RESOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unknown(format!("Cannot read '{path}': {e}")))?;
    // The file may have grown since it was opened.
    if bytes.len() as u64 > MAX_RESOURCE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let mime = mime_type(path);
    Ok(match String::from_utf8(bytes) {
        Ok(text)
            if !text
                .chars()
                .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) =>
        {
            ResourceContents::text(text, uri).with_mime_type(mime)
        }
        Ok(text) => blob(text.as_bytes(), uri, mime),
        Err(e) => blob(e.as_bytes(), uri, mime),
    })
}

fn blob(bytes: &[u8], uri: &str, mime: &str) -> ResourceContents {
    use base64::Engine as _;
    let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
    ResourceContents::blob(blob, uri).with_mime_type(mime)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A skill folder holding `files` (path → bytes), loaded.
    fn skill(name: &str, files: &[(&str, &[u8])]) -> (std::path::PathBuf, Arc<Skill>) {
        let root =
            std::env::temp_dir().join(format!("wink-mcp-skill-{name}-{}", std::process::id()));
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Test files.\n---\nRead them.\n"),
        )
        .unwrap();
        for (path, bytes) in files {
            std::fs::write(dir.join(path), bytes).unwrap();
        }
        (root, Arc::new(wink_skills::load_skill(&dir).unwrap()))
    }

    fn sha256_of_zeros(len: usize) -> String {
        rmcp::model::sha256_digest(&vec![0u8; len])
    }

    #[test]
    fn large_files_are_refused_and_control_characters_travel_as_blobs() {
        let big = vec![0u8; 5 * 1024 * 1024];
        let (root, skill) = skill(
            "files",
            &[
                ("nul.txt", &[0u8; 1024]),
                ("ok.md", b"# Hi\n\tthere\r\n"),
                ("big.bin", &big),
            ],
        );
        let skills = [skill];
        // A file over the limit: refused, naming its size.
        let error = read_skill_resource(&skills, "skill://files/big.bin").unwrap_err();
        assert_eq!(
            error.message,
            "'skill://files/big.bin' is 5242880 bytes, over the limit of 4194304 bytes for resources/read."
        );
        // NUL bytes would be six times larger as JSON text: a blob instead.
        let nul =
            serde_json::to_value(read_skill_resource(&skills, "skill://files/nul.txt").unwrap())
                .unwrap();
        assert_eq!(nul["blob"].as_str().map(str::len), Some(1368));
        assert_eq!(nul.get("text"), None);
        let text =
            serde_json::to_value(read_skill_resource(&skills, "skill://files/ok.md").unwrap())
                .unwrap();
        assert_eq!(text["text"], "# Hi\n\tthere\r\n");
        // The manifest lists the large file with its size and digest (hashed in pieces).
        let entry = serde_json::to_value(skill_entry(&skills[0]).unwrap())
            .unwrap()
            .to_string();
        assert!(
            entry.contains("\"size\":5242880") && entry.contains(&sha256_of_zeros(5 * 1024 * 1024)),
            "{entry}"
        );
        std::fs::remove_dir_all(root).unwrap();
    }
}
