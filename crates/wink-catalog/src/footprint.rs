//! The token footprint of a catalog in the first model request: every full schema offered as a
//! tool versus the level-1 listings plus the meta-tools.

use serde::Serialize;
use serde_json::{Value, json};
use wink_core::{SectionPath, Tool, format_heading};
use wink_tokens::TokenCounter;

use crate::catalog::Catalog;
use crate::section::{CatalogListing, ToolCatalogSection, listing_body};

/// Tokens of the first request in each mode, and statistics of the per-tool lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Footprint {
    /// Tools in the catalog.
    pub tools: usize,
    /// Namespaces in the catalog.
    pub namespaces: usize,
    /// (a) Every tool offered with its full schema: the tools array as an OpenAI request sends it.
    pub full_schemas: usize,
    /// (b) The one-line-per-tool section (full names) plus the three meta-tools.
    pub per_tool: usize,
    /// (b') One line per tool grouped under namespace headings, plus the meta-tools.
    pub grouped: usize,
    /// The one-line-per-namespace section plus the meta-tools.
    pub per_namespace: usize,
    /// (c) The namespaces-only section plus the meta-tools.
    pub namespaces_only: usize,
    /// The three meta-tools' specs alone (included in b and c).
    pub meta_tools: usize,
    /// Per-tool listing lines.
    pub lines: LineStats,
}

/// Token statistics of listing lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineStats {
    /// Lines measured.
    pub count: usize,
    /// Mean tokens per line.
    pub mean: f64,
    /// Median.
    pub p50: usize,
    /// 95th percentile.
    pub p95: usize,
    /// Longest line.
    pub max: usize,
    /// Lines over 25 tokens.
    pub over_25: usize,
}

impl Footprint {
    /// The footprint as a table (what `wink catalog tokens` prints), headed by `label` (the
    /// catalog file).
    pub fn report(&self, label: &str) -> String {
        let row = |name: &str, tokens: usize| {
            format!("{name:<44}{tokens:>7}  ({:+.1}%)", -self.reduction(tokens))
        };
        let lines = &self.lines;
        [
            format!(
                "{label}: {} tools, {} namespaces; o200k_base tokens of the first request",
                self.tools, self.namespaces
            ),
            format!(
                "{:<44}{:>7}",
                "(a) all full schemas as tool specs", self.full_schemas
            ),
            row("(b) one line per tool + meta-tools", self.per_tool),
            row("(b) one line per tool, grouped + meta-tools", self.grouped),
            row(
                "    one line per namespace + meta-tools",
                self.per_namespace,
            ),
            row("(c) namespaces only + meta-tools", self.namespaces_only),
            format!(
                "{:<44}{:>7}",
                "    the three meta-tools alone", self.meta_tools
            ),
            format!(
                "tool lines: {} lines, mean {:.1}, p50 {}, p95 {}, max {} tokens; {} over 25",
                lines.count, lines.mean, lines.p50, lines.p95, lines.max, lines.over_25
            ),
        ]
        .join("\n")
    }

    /// The footprint as JSON, with the reduction of each mode against full schemas in percent
    /// (`reduction_percent`, one decimal).
    pub fn to_json(&self) -> Value {
        let percent = |tokens: usize| (self.reduction(tokens) * 10.0).round() / 10.0;
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(map) = value.as_object_mut() {
            map.insert(
                "reduction_percent".into(),
                json!({
                    "per_tool": percent(self.per_tool),
                    "grouped": percent(self.grouped),
                    "per_namespace": percent(self.per_namespace),
                    "namespaces_only": percent(self.namespaces_only),
                }),
            );
        }
        value
    }

    /// Measures `catalog` with `counter`.
    pub fn measure(catalog: &Catalog, counter: TokenCounter) -> Self {
        let all: Vec<&dyn Tool> = catalog
            .entries()
            .iter()
            .map(|e| e.tool().as_ref())
            .collect();
        let full_schemas = counter.count(&tool_specs_json(&all));
        let section = ToolCatalogSection::new("Tools", "tools", Catalog::empty());
        let meta: Vec<&dyn Tool> = section.meta_tools().iter().map(|t| t.as_ref()).collect();
        let meta_tools = counter.count(&tool_specs_json(&meta));
        let heading = format_heading(
            "Tools",
            0,
            "1",
            Some(&SectionPath::new(vec!["tools".into()])),
        );
        let mode = |listing: CatalogListing| {
            let text = format!("{heading}\n\n{}", listing_body(catalog, listing));
            counter.count(&text) + meta_tools
        };
        let mut line_tokens: Vec<usize> = catalog
            .entries()
            .iter()
            .map(|e| counter.count(e.line()))
            .collect();
        line_tokens.sort_unstable();
        let count = line_tokens.len();
        let percentile = |p: f64| -> usize {
            if count == 0 {
                return 0;
            }
            let rank = ((p * count as f64).ceil() as usize).clamp(1, count);
            line_tokens[rank - 1]
        };
        let lines = LineStats {
            count,
            mean: if count == 0 {
                0.0
            } else {
                line_tokens.iter().sum::<usize>() as f64 / count as f64
            },
            p50: percentile(0.5),
            p95: percentile(0.95),
            max: line_tokens.last().copied().unwrap_or(0),
            over_25: line_tokens.iter().filter(|&&t| t > 25).count(),
        };
        Self {
            tools: catalog.len(),
            namespaces: catalog.namespaces().len(),
            full_schemas,
            per_tool: mode(CatalogListing::PerTool),
            grouped: mode(CatalogListing::Grouped),
            per_namespace: mode(CatalogListing::PerNamespace),
            namespaces_only: mode(CatalogListing::NamespacesOnly),
            meta_tools,
            lines,
        }
    }

    /// `1 - tokens / full_schemas`, as a percentage.
    pub fn reduction(&self, tokens: usize) -> f64 {
        if self.full_schemas == 0 {
            return 0.0;
        }
        100.0 * (1.0 - tokens as f64 / self.full_schemas as f64)
    }
}

/// The `tools` array of an OpenAI Chat Completions request for `tools`, as compact JSON:
/// `[{"type": "function", "function": {"name", "description", "parameters"}}]`.
pub fn tool_specs_json(tools: &[&dyn Tool]) -> String {
    let specs: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({"type": "function", "function": {
                "name": tool.name(),
                "description": tool.description(),
                "parameters": tool.parameters(),
            }})
        })
        .collect();
    Value::Array(specs).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_is_the_table_the_cli_prints() {
        let footprint = Footprint {
            tools: 40,
            namespaces: 4,
            full_schemas: 10_000,
            per_tool: 1_500,
            grouped: 1_400,
            per_namespace: 600,
            namespaces_only: 450,
            meta_tools: 300,
            lines: LineStats {
                count: 40,
                mean: 12.34,
                p50: 12,
                p95: 20,
                max: 27,
                over_25: 1,
            },
        };
        assert_eq!(
            footprint.report("tools.json"),
            "tools.json: 40 tools, 4 namespaces; o200k_base tokens of the first request
(a) all full schemas as tool specs            10000
(b) one line per tool + meta-tools             1500  (-85.0%)
(b) one line per tool, grouped + meta-tools    1400  (-86.0%)
    one line per namespace + meta-tools         600  (-94.0%)
(c) namespaces only + meta-tools                450  (-95.5%)
    the three meta-tools alone                  300
tool lines: 40 lines, mean 12.3, p50 12, p95 20, max 27 tokens; 1 over 25"
        );
        assert_eq!(
            footprint.to_json()["reduction_percent"],
            json!({"per_tool": 85.0, "grouped": 86.0, "per_namespace": 94.0, "namespaces_only": 95.5})
        );
    }
}
