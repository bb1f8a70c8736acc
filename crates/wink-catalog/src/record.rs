//! Tool lists as data: the JSON formats a catalog can be loaded from.
//!
//! Accepted, anywhere a tool is expected:
//!
//! * OpenAI: `{"type": "function", "function": {"name", "description", "parameters"}}`;
//! * bare / MCP: `{"name", "description"?, "parameters" | "inputSchema"?, "tags"?}`;
//! * a LiveMCP server: `{"name", "description", "category", "tools": {"<server>": {"tools": [MCP
//!   tools]}}}` — its tools are named `<server>.<tool>`, get the server as namespace and the
//!   category as tag.
//!
//! A document is a JSON array of those, an object with a `tools` array (an MCP `tools/list`
//! result), a single tool or server, or JSON lines with one of those per line. Errors name the
//! origin and the JSON pointer (or line) of the offending entry.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::CatalogError;

/// One tool described by a catalog file or an MCP server: data only, no handler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRecord {
    /// The name the model calls (for LiveMCP servers, `<server>.<tool>`).
    pub name: String,
    /// The name the tool has at its source (an MCP server's own name for it).
    pub remote_name: String,
    /// The full description.
    pub description: String,
    /// JSON Schema of the arguments (an empty object schema when the source gives none).
    pub parameters: Value,
    /// An explicit namespace (an MCP server); `None` derives it from a dotted name.
    pub namespace: Option<String>,
    /// Labels for `tool.list(tag)` filtering.
    pub tags: Vec<String>,
    /// Where the record came from, for error messages (`tools.json:/3/function`).
    pub origin: String,
}

impl ToolRecord {
    /// A record with no parameters, namespace or tags.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        let name = name.into();
        Self {
            remote_name: name.clone(),
            origin: name.clone(),
            name,
            description: description.into(),
            parameters: empty_object_schema(),
            namespace: None,
            tags: Vec::new(),
        }
    }

    /// Replaces the parameters schema.
    #[must_use]
    pub fn with_parameters(mut self, parameters: Value) -> Self {
        self.parameters = parameters;
        self
    }

    /// Sets an explicit namespace.
    #[must_use]
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Replaces the tags.
    #[must_use]
    pub fn with_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }
}

/// What a catalog document holds: tools, and descriptions of the namespaces it defines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogFile {
    /// The tools, in document order.
    pub tools: Vec<ToolRecord>,
    /// `(namespace, description)` for namespaces the document describes (LiveMCP servers).
    pub namespaces: Vec<(String, String)>,
}

/// The schema of a tool without parameters.
pub fn empty_object_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// Turns a server or group name into a namespace usable in tool names: every run of characters
/// outside `[A-Za-z0-9_-]` becomes one `-`, leading and trailing `-` are dropped.
///
/// ```
/// assert_eq!(wink_catalog::namespace_key("Ant Design Components"), "Ant-Design-Components");
/// assert_eq!(wink_catalog::namespace_key("OP.GG (MCP)"), "OP-GG-MCP");
/// ```
pub fn namespace_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut pending_dash = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            if pending_dash && !out.is_empty() {
                out.push('-');
            }
            pending_dash = false;
            out.push(c);
        } else {
            pending_dash = true;
        }
    }
    out.trim_matches('-').to_owned()
}

/// Reads a catalog document from `path` (see the module docs for the formats).
pub fn load_catalog_file(path: &Path) -> Result<CatalogFile, CatalogError> {
    let text = std::fs::read_to_string(path).map_err(|source| CatalogError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_catalog(&text, &path.display().to_string())
}

/// Parses a catalog document; `origin` labels error messages.
///
/// ```
/// let file = wink_catalog::parse_catalog(
///     r#"[{"type": "function", "function": {"name": "get_weather", "description": "Weather now.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
///        {"name": "fs.read", "description": "Read a file.", "inputSchema": {"type": "object"}}]"#,
///     "inline",
/// ).unwrap();
/// assert_eq!(file.tools[0].name, "get_weather");
/// assert_eq!(file.tools[1].parameters["type"], "object");
///
/// let error = wink_catalog::parse_catalog(r#"[{"name": "a"}, {"description": "no name"}]"#, "tools.json").unwrap_err();
/// assert_eq!(error.to_string(), "tools.json: /1: not a tool: expected `name`, an OpenAI `{\"type\": \"function\", \"function\": …}` or a LiveMCP server with `tools`");
/// ```
pub fn parse_catalog(text: &str, origin: &str) -> Result<CatalogFile, CatalogError> {
    let mut file = CatalogFile::default();
    match serde_json::from_str::<Value>(text) {
        Ok(document) => {
            read_document(&document, origin, "", &mut file)?;
        }
        Err(whole) => {
            let first_line = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty());
            let is_lines = first_line.is_some_and(|(_, l)| {
                serde_json::from_str::<Value>(l).is_ok_and(|v| v.is_object())
            });
            if !is_lines {
                return Err(syntax(origin, &whole));
            }
            for (index, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let number = index + 1;
                let value: Value =
                    serde_json::from_str(line).map_err(|e| CatalogError::Syntax {
                        origin: origin.to_owned(),
                        line: number,
                        column: e.column(),
                        message: parser_message(&e),
                    })?;
                read_item(&value, origin, &format!("line {number}"), &mut file)?;
            }
        }
    }
    Ok(file)
}

fn syntax(origin: &str, error: &serde_json::Error) -> CatalogError {
    CatalogError::Syntax {
        origin: origin.to_owned(),
        line: error.line(),
        column: error.column(),
        message: parser_message(error),
    }
}

/// serde_json's message without its trailing ` at line L column C` (the error has its own).
fn parser_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

fn invalid(origin: &str, location: &str, message: impl Into<String>) -> CatalogError {
    CatalogError::Invalid {
        origin: origin.to_owned(),
        location: if location.is_empty() {
            "/".to_owned()
        } else {
            location.to_owned()
        },
        message: message.into(),
    }
}

fn read_document(
    document: &Value,
    origin: &str,
    pointer: &str,
    file: &mut CatalogFile,
) -> Result<(), CatalogError> {
    match document {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                read_item(item, origin, &format!("{pointer}/{index}"), file)?;
            }
            Ok(())
        }
        Value::Object(map) if map.get("tools").is_some_and(Value::is_array) => {
            read_document(&map["tools"], origin, &format!("{pointer}/tools"), file)
        }
        Value::Object(_) => read_item(document, origin, pointer, file),
        _ => Err(invalid(
            origin,
            pointer,
            "expected a JSON array of tools, an object with a `tools` array, or one tool",
        )),
    }
}

fn read_item(
    item: &Value,
    origin: &str,
    location: &str,
    file: &mut CatalogFile,
) -> Result<(), CatalogError> {
    let Some(map) = item.as_object() else {
        return Err(invalid(
            origin,
            location,
            format!("expected a tool object, found {}", kind(item)),
        ));
    };
    if map.get("type").and_then(Value::as_str) == Some("function")
        && let Some(function) = map.get("function")
    {
        let Some(function) = function.as_object() else {
            return Err(invalid(
                origin,
                &format!("{location}/function"),
                "`function` must be an object",
            ));
        };
        let record = read_tool(function, origin, &format!("{location}/function"))?;
        file.tools.push(record);
        return Ok(());
    }
    if let Some(servers) = map.get("tools").and_then(Value::as_object) {
        return read_livemcp_server(map, servers, origin, location, file);
    }
    if map.contains_key("name") {
        let record = read_tool(map, origin, location)?;
        file.tools.push(record);
        return Ok(());
    }
    Err(invalid(
        origin,
        location,
        "not a tool: expected `name`, an OpenAI `{\"type\": \"function\", \"function\": …}` or a LiveMCP server with `tools`",
    ))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn read_tool(
    map: &Map<String, Value>,
    origin: &str,
    location: &str,
) -> Result<ToolRecord, CatalogError> {
    let name = match map.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.clone(),
        Some(Value::String(_)) => {
            return Err(invalid(
                origin,
                &format!("{location}/name"),
                "`name` is empty",
            ));
        }
        Some(other) => {
            return Err(invalid(
                origin,
                &format!("{location}/name"),
                format!("`name` must be a string, found {}", kind(other)),
            ));
        }
        None => return Err(invalid(origin, location, "missing `name`")),
    };
    let description = match map.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => {
            return Err(invalid(
                origin,
                &format!("{location}/description"),
                format!("`description` must be a string, found {}", kind(other)),
            ));
        }
    };
    let mut parameters = empty_object_schema();
    for key in ["parameters", "inputSchema", "input_schema"] {
        match map.get(key) {
            None | Some(Value::Null) => {}
            Some(schema @ Value::Object(_)) => {
                parameters = schema.clone();
                break;
            }
            Some(other) => {
                return Err(invalid(
                    origin,
                    &format!("{location}/{key}"),
                    format!(
                        "`{key}` must be a JSON Schema object, found {}",
                        kind(other)
                    ),
                ));
            }
        }
    }
    let tags = match map.get("tags") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut tags = Vec::with_capacity(items.len());
            for (index, tag) in items.iter().enumerate() {
                let Some(tag) = tag.as_str() else {
                    return Err(invalid(
                        origin,
                        &format!("{location}/tags/{index}"),
                        format!("a tag must be a string, found {}", kind(tag)),
                    ));
                };
                tags.push(tag.to_owned());
            }
            tags
        }
        Some(other) => {
            return Err(invalid(
                origin,
                &format!("{location}/tags"),
                format!("`tags` must be an array of strings, found {}", kind(other)),
            ));
        }
    };
    Ok(ToolRecord {
        remote_name: name.clone(),
        name,
        description,
        parameters,
        namespace: None,
        tags,
        origin: format!(
            "{origin}:{}",
            if location.is_empty() { "/" } else { location }
        ),
    })
}

fn read_livemcp_server(
    server: &Map<String, Value>,
    servers: &Map<String, Value>,
    origin: &str,
    location: &str,
    file: &mut CatalogFile,
) -> Result<(), CatalogError> {
    let description = server
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let tag = server
        .get("category")
        .and_then(Value::as_str)
        .map(|category| namespace_key(&category.to_lowercase()));
    for (key, entry) in servers {
        let pointer = format!("{location}/tools/{}", escape_pointer(key));
        let Some(tools) = entry.get("tools").and_then(Value::as_array) else {
            return Err(invalid(
                origin,
                &pointer,
                "a LiveMCP server entry needs a `tools` array",
            ));
        };
        let namespace = namespace_key(key);
        if namespace.is_empty() {
            return Err(invalid(
                origin,
                &pointer,
                format!("server name `{key}` has no letters or digits to make a namespace of"),
            ));
        }
        if !description.is_empty() {
            file.namespaces
                .push((namespace.clone(), description.to_owned()));
        }
        for (index, tool) in tools.iter().enumerate() {
            let tool_pointer = format!("{pointer}/tools/{index}");
            let Some(map) = tool.as_object() else {
                return Err(invalid(
                    origin,
                    &tool_pointer,
                    format!("expected a tool object, found {}", kind(tool)),
                ));
            };
            let mut record = read_tool(map, origin, &tool_pointer)?;
            record.name = format!("{namespace}.{}", record.remote_name);
            record.namespace = Some(namespace.clone());
            if let Some(tag) = &tag
                && !record.tags.contains(tag)
            {
                record.tags.push(tag.clone());
            }
            file.tools.push(record);
        }
    }
    Ok(())
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_format() {
        let text = r#"{"tools": [
            {"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
            {"name": "fs.read", "inputSchema": {"type": "object"}, "tags": ["io"]},
            {"name": "Server X", "description": "Does x. More.", "category": "File Access",
             "tools": {"x server": {"server_name": "x", "tools": [{"name": "list", "description": "Lists.", "inputSchema": {"type": "object"}}]}}}
        ]}"#;
        let file = parse_catalog(text, "t.json").unwrap();
        let names: Vec<&str> = file.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["get_weather", "fs.read", "x-server.list"]);
        assert_eq!(file.tools[1].tags, ["io"]);
        assert_eq!(file.tools[1].description, "");
        assert_eq!(file.tools[2].remote_name, "list");
        assert_eq!(file.tools[2].namespace.as_deref(), Some("x-server"));
        assert_eq!(file.tools[2].tags, ["file-access"]);
        assert_eq!(
            file.tools[2].origin,
            "t.json:/tools/2/tools/x server/tools/0"
        );
        assert_eq!(
            file.namespaces,
            [("x-server".to_owned(), "Does x. More.".to_owned())]
        );
        assert_eq!(file.tools[0].origin, "t.json:/tools/0/function");
    }

    #[test]
    fn reads_json_lines_with_line_locations() {
        let text =
            "{\"name\": \"a\"}\n\n{\"name\": \"b\", \"parameters\": {\"type\": \"object\"}}\n";
        let file = parse_catalog(text, "t.jsonl").unwrap();
        assert_eq!(file.tools.len(), 2);
        assert_eq!(file.tools[1].origin, "t.jsonl:line 3");
        let error = parse_catalog("{\"name\": \"a\"}\n{\"name\": 3}\n", "t.jsonl").unwrap_err();
        assert_eq!(
            error.to_string(),
            "t.jsonl: line 2/name: `name` must be a string, found a number"
        );
        let error = parse_catalog("{\"name\": \"a\"}\n{\"name\": \n", "t.jsonl").unwrap_err();
        assert_eq!(
            error.to_string(),
            "t.jsonl:2:9: not valid JSON: EOF while parsing a value"
        );
    }

    #[test]
    fn errors_are_located() {
        let cases = [
            ("[1]", "x: /0: expected a tool object, found a number"),
            (
                "3",
                "x: /: expected a JSON array of tools, an object with a `tools` array, or one tool",
            ),
            (r#"[{"name": ""}]"#, "x: /0/name: `name` is empty"),
            (
                r#"[{"name": "a", "description": 1}]"#,
                "x: /0/description: `description` must be a string, found a number",
            ),
            (
                r#"[{"name": "a", "inputSchema": []}]"#,
                "x: /0/inputSchema: `inputSchema` must be a JSON Schema object, found an array",
            ),
            (
                r#"[{"name": "a", "tags": ["t", 2]}]"#,
                "x: /0/tags/1: a tag must be a string, found a number",
            ),
            (
                r#"[{"type": "function", "function": "f"}]"#,
                "x: /0/function: `function` must be an object",
            ),
            (
                r#"[{"name": "s", "tools": {"srv": {}}}]"#,
                "x: /0/tools/srv: a LiveMCP server entry needs a `tools` array",
            ),
            (
                r#"[{"name": "s", "tools": {"a/b": {"tools": [{"x": 1}]}}}]"#,
                "x: /0/tools/a~1b/tools/0: missing `name`",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                parse_catalog(text, "x").unwrap_err().to_string(),
                expected,
                "{text}"
            );
        }
        let error = parse_catalog("[{\"name\": \"a\",}]", "x").unwrap_err();
        assert_eq!(error.to_string(), "x:1:15: not valid JSON: trailing comma");
    }

    #[test]
    fn namespace_keys_are_provider_safe() {
        assert_eq!(namespace_key("bing-cn-mcp"), "bing-cn-mcp");
        assert_eq!(namespace_key("  a  b "), "a-b");
        assert_eq!(namespace_key("八字"), "");
        assert_eq!(namespace_key("Bazi (八字) v2"), "Bazi-v2");
    }
}
