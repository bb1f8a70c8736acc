//! The `Tools:` block: each tool's examples rendered for the prompt.

use super::*;

/// WINK's `Tools:` block for the tools that have examples (empty when none do).
pub fn render_tool_examples_block(tools: &[ToolRef]) -> String {
    let mut rendered = Vec::new();
    for tool in tools {
        if tool.examples().is_empty() {
            continue;
        }
        let block = render_examples_for_tool(tool.as_ref());
        rendered.push(format!(
            "- {}: {}\n{}",
            tool.name(),
            tool.description(),
            python_indent(&block, "  ")
        ));
    }
    if rendered.is_empty() {
        return String::new();
    }
    let mut out = String::from("Tools:");
    for r in rendered {
        out.push('\n');
        out.push_str(&r);
    }
    out
}

pub(super) fn render_examples_for_tool(tool: &dyn Tool) -> String {
    let mut lines = vec![format!("- {} examples:", tool.name())];
    for example in tool.examples() {
        lines.push(format!("  - description: {}", example.description));
        lines.push("    input:".to_owned());
        fenced(
            &mut lines,
            &python_json(&example.input),
            "      ",
            "```json",
        );
        lines.push("    output:".to_owned());
        fenced(&mut lines, &example.output, "      ", "```");
    }
    lines.join("\n")
}

pub(super) fn fenced(lines: &mut Vec<String>, content: &str, indent: &str, fence: &str) {
    lines.push(format!("{indent}{fence}"));
    let split = crate::text::python_splitlines(content);
    if split.is_empty() {
        lines.push(indent.to_owned());
    } else {
        lines.extend(split.iter().map(|l| format!("{indent}{l}")));
    }
    lines.push(format!("{indent}```"));
}

/// Python's `textwrap.indent(text, prefix)`: prefix every line that is not whitespace-only.
pub(super) fn python_indent(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            out.push_str(line);
        } else {
            out.push_str(prefix);
            out.push_str(line);
        }
    }
    out
}
