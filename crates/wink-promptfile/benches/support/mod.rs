//! The issue-22 benchmark prompt file, shared by `benches/load.rs` and
//! `examples/bench_prompt.rs` (which writes it for the whole-process benchmark in
//! `bench/faststart/`).
//!
//! `sections` sections as `sections / 10` root sections with nine children each, every other
//! root summarized, one params type with defaults, `${}` placeholders in every template and one
//! tool per root: about 240 bytes of JSON per section.

use serde_json::{Value, json};

/// The prompt file as JSON.
pub fn prompt_file(sections: usize) -> Value {
    let roots: Vec<Value> = (0..(sections / 10).max(1)).map(root_section).collect();
    json!({
        "ns": "bench",
        "key": "faststart",
        "params": {"Doc": {
            "project": {"type": "string", "default": "wink"},
            "owner": {"type": "string", "default": "the team"},
        }},
        "sections": roots,
    })
}

/// The prompt file as pretty-printed JSON text (what `bench/faststart/` loads).
pub fn prompt_file_text(sections: usize) -> String {
    let mut text = serde_json::to_string_pretty(&prompt_file(sections)).unwrap_or_default();
    text.push('\n');
    text
}

fn root_section(r: usize) -> Value {
    let children: Vec<Value> = (0..9)
        .map(|c| {
            json!({
                "key": format!("c{c}"),
                "title": format!("Part {c}"),
                "params": "Doc",
                "template": format!("Details of ${{project}}, part {c}: build, test and release steps, kept short for ${{owner}}."),
            })
        })
        .collect();
    let mut root = json!({
        "key": format!("s{r}"),
        "title": format!("Section {r}"),
        "params": "Doc",
        "template": format!("Guidance {r} for ${{project}}, maintained by ${{owner}}.\nFollow the conventions below and keep answers short."),
        "summary": format!("Summary of section {r} for ${{project}}."),
        "tools": [{
            "name": format!("lookup_{r}"),
            "description": format!("Look up entry {r} of the project notes."),
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        }],
        "children": children,
    });
    if r % 2 == 1 {
        root["visibility"] = json!("summary");
    }
    root
}
