//! Errors of prompt files name the file, the key path and the problem — including errors about
//! the template's own fields (`ns`, `key`, `disclosure`, `output`, ...), which belong to no section.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use wink_promptfile::{FileFormat, load, load_str};

fn json_error(text: &str) -> String {
    load_str(text, FileFormat::Json, Path::new("."), "prompt.json")
        .unwrap_err()
        .to_string()
}

#[test]
fn a_blank_namespace_names_ns() {
    assert_eq!(
        json_error(r#"{"ns": " ", "key": "k", "sections": []}"#),
        "prompt.json: ns: Prompt namespace must be a non-empty string."
    );
    assert_eq!(
        json_error(r#"{"ns": "", "key": "k"}"#),
        "prompt.json: ns: Prompt namespace must be a non-empty string."
    );
}

#[test]
fn a_blank_key_names_key() {
    assert_eq!(
        json_error(r#"{"ns": "demo", "key": "\t\n", "sections": []}"#),
        "prompt.json: key: Prompt key must be a non-empty string."
    );
}

#[test]
fn namespace_and_key_are_checked_before_params_and_sections() {
    // WINK checks the namespace, then the key, then the sections.
    assert_eq!(
        json_error(r#"{"ns": " ", "key": " "}"#),
        "prompt.json: ns: Prompt namespace must be a non-empty string."
    );
    assert_eq!(
        json_error(
            r#"{"ns": "demo", "key": "", "sections": [{"key": "Bad Key", "title": "T"}],
                "params": {"P": {"x": {"type": "nope"}}}}"#
        ),
        "prompt.json: key: Prompt key must be a non-empty string."
    );
}

#[test]
fn toml_and_yaml_files_name_the_field_too() {
    let toml = load_str(
        "ns = \"  \"\nkey = \"k\"\n",
        FileFormat::Toml,
        Path::new("."),
        "prompt.toml",
    )
    .unwrap_err();
    assert_eq!(
        toml.to_string(),
        "prompt.toml: ns: Prompt namespace must be a non-empty string."
    );
    let yaml = load_str(
        "ns: demo\nkey: ' '\n",
        FileFormat::Yaml,
        Path::new("."),
        "prompt.yaml",
    )
    .unwrap_err();
    assert_eq!(
        yaml.to_string(),
        "prompt.yaml: key: Prompt key must be a non-empty string."
    );
}

#[test]
fn a_file_on_disk_is_named_by_its_path() {
    let dir = std::env::temp_dir().join(format!("wink-promptfile-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("blank-ns.json");
    std::fs::write(&path, r#"{"ns": " ", "key": "k"}"#).unwrap();
    assert_eq!(
        load(&path).unwrap_err().to_string(),
        format!(
            "{}: ns: Prompt namespace must be a non-empty string.",
            path.display()
        )
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn other_top_level_fields_are_named() {
    assert_eq!(
        json_error(r#"{"ns": "demo", "key": "k", "disclosure": "bogus"}"#),
        "prompt.json: disclosure: unknown disclosure mode 'bogus' (expected one of: unified, wink, open-sections, context-files)"
    );
    assert_eq!(
        json_error(r#"{"ns": "demo", "key": "k", "output": "text"}"#),
        "prompt.json: output: output must be a JSON Schema object"
    );
    assert_eq!(
        json_error(r#"{"ns": "demo", "key": "k", "output": {"type": "array"}}"#),
        "prompt.json: output.items: an array output needs an `items` schema"
    );
    assert_eq!(
        json_error(r#"{"ns": "demo", "key": "k", "name": 3}"#),
        "prompt.json: name: invalid type: integer `3`, expected a string"
    );
    assert_eq!(
        json_error(r#"{"ns": "demo", "key": "k", "allow_extra_keys": "yes"}"#),
        "prompt.json: allow_extra_keys: invalid type: string \"yes\", expected a boolean"
    );
    assert_eq!(
        json_error(r#"{"key": "k"}"#),
        "prompt.json: (document): missing field `ns`"
    );
    assert_eq!(
        json_error(r#"{"ns": 1, "key": "k"}"#),
        "prompt.json: ns: invalid type: integer `1`, expected a string"
    );
}

#[test]
fn section_errors_keep_their_section_key_path() {
    assert_eq!(
        json_error(
            r#"{"ns": "demo", "key": "k", "sections": [
                {"key": "a", "title": "A"},
                {"key": "b", "title": "B", "children": [{"key": "Bad Key", "title": "C"}]}]}"#
        ),
        "prompt.json: sections[1].children[0]: Section key must match ^[a-z0-9][a-z0-9._-]{0,63}$. (section 'b.bad key', placeholder 'bad key')"
    );
}

#[test]
fn a_summarized_section_without_summary_is_refused_at_its_visibility() {
    assert_eq!(
        json_error(
            r#"{"ns": "demo", "key": "k", "sections": [
                {"key": "guide", "title": "Guide", "summary": "Short.", "visibility": "summary",
                 "children": [{"key": " No-Summary ", "title": "NoSummary", "template": "Full.", "visibility": "summary"}]}]}"#
        ),
        "prompt.json: sections[0].children[0].visibility: SUMMARY visibility requested for section 'no-summary' but no summary template is defined. (section 'guide.no-summary')"
    );
}

#[test]
fn a_skills_section_names_dirs_and_each_invalid_skill_by_file_line_and_field() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/skills");
    let load_at = |text: &str| {
        load_str(text, FileFormat::Json, &data, "prompt.json")
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        load_at(
            r#"{"ns": "t", "key": "k", "sections": [{"key": "skills", "title": "Skills", "builtin": "skills"}]}"#
        ),
        "prompt.json: sections[0].dirs: a skills section needs `dirs`, folders of skills relative to the prompt file"
    );
    assert_eq!(
        load_at(
            r#"{"ns": "t", "key": "k", "sections": [{"key": "skills", "title": "Skills", "builtin": "skills", "dirs": ["valid"], "template": "x"}]}"#
        ),
        "prompt.json: sections[0].template: a builtin skills section takes only key, title and dirs"
    );
    let error = load_at(
        r#"{"ns": "t", "key": "k", "sections": [{"key": "skills", "title": "Skills", "builtin": "skills", "dirs": ["invalid/uppercase-name"]}]}"#,
    );
    let file = data.join("invalid/uppercase-name/SKILL.md");
    assert_eq!(
        error,
        format!(
            "prompt.json: sections[0].dirs: {file}:2: name: Skill name 'Uppercase-Name' must be lowercase\n{file}:2: name: Directory name 'uppercase-name' must match skill name 'Uppercase-Name'",
            file = file.display()
        )
    );
    // Folders resolve against the prompt file's folder; the loaded skills are listed.
    let loaded = load_str(
        r#"{"ns": "t", "key": "k", "sections": [{"key": "skills", "title": "Skills", "builtin": "skills", "dirs": ["valid", "edge"]}]}"#,
        FileFormat::Json,
        &data,
        "prompt.json",
    )
    .unwrap();
    assert_eq!(loaded.skills.len(), 15);
}

#[test]
fn a_server_timeout_is_more_than_zero_and_at_most_a_day() {
    let with_timeout = |timeout: &str| {
        json_error(&format!(
            r#"{{"ns": "demo", "key": "k", "sections": [{{"key": "tools", "title": "Tools", "builtin": "catalog",
                "servers": {{"fs": {{"command": ["/nonexistent/mcp-server"], "timeout_s": {timeout}}}}}}}]}}"#
        ))
    };
    assert_eq!(
        with_timeout("0"),
        "prompt.json: sections[0].servers.fs.timeout_s: timeout_s must be between 0 and 86400 seconds, not 0"
    );
    assert_eq!(
        with_timeout("86401"),
        "prompt.json: sections[0].servers.fs.timeout_s: timeout_s must be between 0 and 86400 seconds, not 86401"
    );
    assert_eq!(
        with_timeout("\"30\""),
        "prompt.json: sections[0].servers.fs.timeout_s: invalid type: string \"30\", expected f64"
    );
    // A valid timeout passes the check; the missing program is the next error.
    assert_eq!(
        with_timeout("1.5"),
        "prompt.json: sections[0].servers: MCP server `fs`: cannot start: `/nonexistent/mcp-server` is not an executable file or on PATH"
    );
}

#[test]
fn server_tool_filters_are_checked_before_anything_starts() {
    let with_filter = |filter: &str| {
        json_error(&format!(
            r#"{{"ns": "demo", "key": "k", "sections": [{{"key": "tools", "title": "Tools", "builtin": "catalog",
                "servers": {{"fs": {{"command": ["/nonexistent/mcp-server"], {filter}}}}}}}]}}"#
        ))
    };
    assert_eq!(
        with_filter(r#""enabled_tools": []"#),
        "prompt.json: sections[0].servers.fs.enabled_tools: enabled_tools names no tool; leave the server out instead"
    );
    assert_eq!(
        with_filter(r#""enabled_tools": "read_file""#),
        "prompt.json: sections[0].servers.fs.enabled_tools: invalid type: string \"read_file\", expected a sequence"
    );
    assert_eq!(
        with_filter(r#""disabled_tools": [1]"#),
        "prompt.json: sections[0].servers.fs.disabled_tools[0]: invalid type: integer `1`, expected a string"
    );
    // Well-formed filters pass; the names are checked against the server's list once it is known.
    assert_eq!(
        with_filter(r#""enabled_tools": ["read_file"], "disabled_tools": ["write_file"]"#),
        "prompt.json: sections[0].servers: MCP server `fs`: cannot start: `/nonexistent/mcp-server` is not an executable file or on PATH"
    );
}

#[test]
fn a_server_url_and_its_header_names_are_checked_at_load() {
    let with_server = |server: &str| {
        json_error(&format!(
            r#"{{"ns": "demo", "key": "k", "sections": [{{"key": "tools", "title": "Tools", "builtin": "catalog",
                "servers": {{"api": {server}}}}}]}}"#
        ))
    };
    assert_eq!(
        with_server(r#"{"url": "localhost:3001/mcp"}"#),
        "prompt.json: sections[0].servers.api.url: `localhost:3001/mcp` is not an http:// or https:// URL"
    );
    assert_eq!(
        with_server(r#"{"url": "http://[::1/mcp"}"#),
        "prompt.json: sections[0].servers.api.url: `http://[::1/mcp` is not a URL (invalid IPv6 address)"
    );
    assert_eq!(
        with_server(r#"{"url": " http://127.0.0.1:3001/mcp"}"#),
        "prompt.json: sections[0].servers.api.url: ` http://127.0.0.1:3001/mcp` has spaces or control characters around or in it"
    );
    assert_eq!(
        with_server(r#"{"url": "file:///tmp/mcp.sock"}"#),
        "prompt.json: sections[0].servers.api.url: `file:///tmp/mcp.sock` is not an http:// or https:// URL"
    );
    assert_eq!(
        with_server(r#"{"url": "http://127.0.0.1:9/mcp", "headers_env": {"Bad Header": "TOKEN"}}"#),
        "prompt.json: sections[0].servers.api.headers_env.Bad Header: `Bad Header` is not an HTTP header name"
    );
}
