//! Seed 004's two-level disclosure demo, with real `o200k_base` token counts.
//!
//! Part 1 shows level 1 (metadata) and level 2 (full spec) of the seed's two tools, `file.read`
//! and `task.code_review`. Part 2 redoes the seed's "50 tools … 81% reduction" arithmetic with
//! 50 real MCP tools from LiveMCP: every full schema offered up front versus the one-line
//! listing plus the meta-tools plus three tools described on demand.
//!
//! ```sh
//! cargo run -p wink-catalog --example 04_tool_catalog                # shared LiveMCP data
//! cargo run -p wink-catalog --example 04_tool_catalog -- tools.json  # any tool list
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use wink_catalog::{
    Catalog, ToolCatalogSection, ToolRecord, full_spec_text, load_catalog_file, tool_specs_json,
};
use wink_core::{Tool, ToolBuilder, ToolContext, ToolMetadata, ToolResult};
use wink_tokens::TokenCounter;

#[derive(Serialize, Deserialize, JsonSchema)]
struct ReadParams {
    /// Path of the file.
    file_path: String,
    /// First line to read (0-based).
    offset: Option<u32>,
    /// Lines to read.
    limit: Option<u32>,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct ReviewParams {
    /// Files to review.
    paths: Vec<String>,
    /// What to focus on.
    focus: Option<String>,
}

fn seed_tools() -> Result<Vec<wink_core::ToolRef>, Box<dyn std::error::Error>> {
    let read = ToolBuilder::<ReadParams, String>::new(
        "file.read",
        "Reads a file from the filesystem. Supports line ranges for large files.",
    )
    .handler(|p: ReadParams, _ctx: &mut ToolContext| Ok(ToolResult::ok("Read.", p.file_path)))
    .metadata(ToolMetadata {
        tags: vec!["file".into(), "io".into(), "read".into()],
        constraints: vec!["read-only".into()],
        ..ToolMetadata::derive(
            "file.read",
            "Reads a file from the filesystem. Supports line ranges for large files.",
        )
    })
    .spec(
        Some("text".into()),
        Some("file.read(file_path=\"/config.yaml\")".into()),
        Vec::new(),
        vec!["For files > 10MB, use offset/limit to read in chunks".into()],
    )
    .build()?;
    let review = ToolBuilder::<ReviewParams, String>::new(
        "task.code_review",
        "Reviews code changes and reports issues by severity.",
    )
    .handler(|_p: ReviewParams, _ctx: &mut ToolContext| {
        Ok(ToolResult::ok("Reviewed.", String::new()))
    })
    .build()?;
    Ok(vec![read, review])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let counter = TokenCounter::o200k()?;

    println!("== Part 1: the seed's two tools ==\n");
    let seed = Catalog::builder().tools(seed_tools()?).build()?;
    for entry in seed.entries() {
        let metadata = serde_json::to_string(entry.metadata())?;
        let spec = full_spec_text(entry.tool().as_ref());
        println!("Level 1 ({} tokens): {metadata}", counter.count(&metadata));
        println!(
            "Listing line ({} tokens): {}",
            counter.count(entry.line()),
            entry.line()
        );
        println!("Level 2 ({} tokens):\n{spec}\n", counter.count(&spec));
    }

    println!("== Part 2: 50 real MCP tools ==\n");
    let path = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/livemcp/tools.json")
        });
    let mut records: Vec<ToolRecord> = load_catalog_file(&path)?.tools;
    records.truncate(50);
    let catalog = Arc::new(Catalog::builder().records(records).build()?);
    let count = catalog.len();
    let tools: Vec<&dyn Tool> = catalog
        .entries()
        .iter()
        .map(|e| e.tool().as_ref())
        .collect();
    let eager = counter.count(&tool_specs_json(&tools));

    let section = ToolCatalogSection::shared("Tools", "tools", catalog.clone());
    let meta: Vec<&dyn Tool> = section.meta_tools().iter().map(|t| t.as_ref()).collect();
    let listing = counter.count(&section.body()) + counter.count(&tool_specs_json(&meta));
    let relevant: Vec<String> = catalog
        .find("search the web for news", 3)
        .iter()
        .map(|f| catalog.entries()[f.entry].name().to_owned())
        .collect();
    let described = catalog.describe(&relevant);
    let on_demand = counter.count(&described.text);
    let disclosed = listing + on_demand;

    println!("Without progressive disclosure (every full schema as a tool spec):");
    println!(
        "  {count} tools = {eager} tokens ({:.0} per tool)",
        eager as f64 / count as f64
    );
    println!("With progressive disclosure:");
    println!(
        "  Level 1: one-line listing + 3 meta-tools = {listing} tokens ({:.1} per tool line)",
        catalog
            .entries()
            .iter()
            .map(|e| counter.count(e.line()))
            .sum::<usize>() as f64
            / count as f64
    );
    println!(
        "  Level 2: tool.describe({}) = {on_demand} tokens",
        relevant.join(", ")
    );
    println!("  Total: {disclosed} tokens");
    println!(
        "Savings: {:.0}% reduction (seed 004 estimated 81%: 7,500 → 1,450)",
        100.0 * (1.0 - disclosed as f64 / eager as f64)
    );
    Ok(())
}
