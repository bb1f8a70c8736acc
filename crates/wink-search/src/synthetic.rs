//! Deterministic synthetic catalogs and queries for scale benchmarks.
//!
//! Tools look like real MCP/OpenAPI tools: `namespace.verb_noun` names, 10–40 word descriptions
//! and 1–6 parameters with descriptions. Descriptions mix a shared core vocabulary (verbs, nouns,
//! adjectives: long postings, skewed towards frequent words) with a long tail of pseudo-words
//! standing for product and domain terms (`Kalotek`, `vimsora`), as real catalogs have, so the
//! vocabulary grows with the catalog. The same `(count, seed)` always yields the same catalog.

use std::collections::HashSet;

use crate::document::{ParamDoc, ToolDocument};

/// A small, fast, deterministic pseudo-random generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        let span = (high - low + 1) as u64;
        low + (self.next_u64() % span) as usize
    }

    /// A uniformly chosen element.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.between(0, items.len() - 1)]
    }

    /// An element chosen with a Zipf-like skew towards the front of `items`.
    pub fn pick_skewed<'a>(&mut self, items: &[&'a str]) -> &'a str {
        let a = self.between(0, items.len() - 1);
        let b = self.between(0, items.len() - 1);
        items[a.min(b)]
    }
}

const NAMESPACES: &[&str] = &[
    "github",
    "gitlab",
    "slack",
    "jira",
    "confluence",
    "notion",
    "linear",
    "sentry",
    "grafana",
    "splunk",
    "datadog",
    "pagerduty",
    "stripe",
    "shopify",
    "salesforce",
    "hubspot",
    "zendesk",
    "intercom",
    "gmail",
    "calendar",
    "drive",
    "dropbox",
    "box",
    "s3",
    "ec2",
    "lambda",
    "k8s",
    "docker",
    "postgres",
    "mysql",
    "redis",
    "mongo",
    "elastic",
    "bigquery",
    "snowflake",
    "airflow",
    "fs",
    "shell",
    "browser",
    "maps",
    "weather",
    "finance",
    "crypto",
    "news",
    "translate",
    "ocr",
    "speech",
    "vision",
    "youtube",
    "spotify",
    "twitter",
    "reddit",
    "discord",
    "teams",
    "zoom",
    "figma",
    "trello",
    "asana",
    "airtable",
    "sheets",
];

const VERBS: &[&str] = &[
    "get",
    "list",
    "create",
    "update",
    "delete",
    "search",
    "find",
    "fetch",
    "send",
    "upload",
    "download",
    "archive",
    "restore",
    "move",
    "copy",
    "rename",
    "share",
    "invite",
    "assign",
    "close",
    "open",
    "merge",
    "approve",
    "reject",
    "schedule",
    "cancel",
    "export",
    "import",
    "sync",
    "validate",
    "convert",
    "summarize",
    "translate",
    "analyze",
    "monitor",
    "restart",
    "deploy",
    "rollback",
    "tag",
    "comment",
    "subscribe",
    "publish",
    "query",
    "count",
    "compare",
];

const NOUNS: &[&str] = &[
    "issue",
    "pull_request",
    "commit",
    "branch",
    "repository",
    "file",
    "folder",
    "document",
    "page",
    "message",
    "channel",
    "thread",
    "user",
    "team",
    "project",
    "task",
    "ticket",
    "comment",
    "label",
    "milestone",
    "release",
    "deployment",
    "pipeline",
    "job",
    "build",
    "artifact",
    "container",
    "pod",
    "service",
    "cluster",
    "node",
    "volume",
    "secret",
    "config",
    "table",
    "row",
    "column",
    "record",
    "index",
    "schema",
    "query",
    "report",
    "dashboard",
    "alert",
    "incident",
    "metric",
    "log",
    "trace",
    "event",
    "invoice",
    "payment",
    "customer",
    "order",
    "product",
    "subscription",
    "refund",
    "contact",
    "lead",
    "deal",
    "meeting",
    "invite",
    "email",
    "attachment",
    "calendar_event",
    "reminder",
    "note",
    "spreadsheet",
    "cell",
    "image",
    "video",
    "playlist",
    "track",
    "post",
    "tweet",
    "forecast",
    "location",
    "route",
    "price",
    "quote",
    "stock",
    "wallet",
    "transaction",
    "translation",
    "transcript",
    "snapshot",
    "backup",
    "webhook",
    "token",
    "permission",
    "role",
    "workspace",
    "board",
    "card",
    "sprint",
    "epic",
];

const ADJECTIVES: &[&str] = &[
    "existing",
    "new",
    "current",
    "recent",
    "archived",
    "public",
    "private",
    "shared",
    "active",
    "pending",
    "failed",
    "open",
    "closed",
    "draft",
    "scheduled",
    "latest",
    "specified",
    "selected",
    "remote",
    "local",
    "default",
    "custom",
    "encrypted",
    "temporary",
    "primary",
];

const PREPOSITIONS: &[&str] = &[
    "in", "from", "to", "for", "within", "across", "by", "with", "under", "into",
];

const CONNECTIVES: &[&str] = &[
    "and returns",
    "optionally filtered by",
    "including",
    "together with",
    "sorted by",
    "grouped by",
    "limited to",
    "along with",
    "without changing",
    "and notifies",
];

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ter", "zen", "dor", "vel", "qua", "rix", "sa", "no", "bri", "tek", "ul",
    "fa", "gro", "pi", "yon", "cel", "dra", "mo", "ne", "sul", "vo", "xa", "tri", "ba", "ko",
    "lin", "ser", "ta", "um", "wen", "ze", "har", "pol", "ri", "an", "es", "ot",
];

/// Number of distinct long-tail domain terms.
const DOMAIN_TERMS: u64 = 40_000;

/// The `index`-th long-tail pseudo-word (two or three syllables).
fn domain_term(index: u64) -> String {
    let count = SYLLABLES.len() as u64;
    let mut rest = index;
    let mut word = String::new();
    let syllables = 2 + rest % 2;
    rest /= 2;
    for _ in 0..syllables {
        word.push_str(SYLLABLES[(rest % count) as usize]);
        rest /= count;
    }
    word.push_str(SYLLABLES[(index % 7) as usize]);
    word
}

/// A domain term, skewed so that a few are common and most are rare.
fn pick_domain_term(rng: &mut SplitMix64) -> String {
    let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    domain_term((unit * unit * unit * DOMAIN_TERMS as f64) as u64)
}

const PARAM_NOUNS: &[&str] = &[
    "id",
    "name",
    "query",
    "limit",
    "offset",
    "cursor",
    "owner",
    "status",
    "state",
    "title",
    "body",
    "path",
    "url",
    "email",
    "date",
    "start_time",
    "end_time",
    "timezone",
    "format",
    "language",
    "region",
    "page_size",
    "sort",
    "order",
    "filter",
    "labels",
    "assignee",
    "priority",
    "amount",
    "currency",
    "recursive",
    "force",
    "dry_run",
    "timeout",
    "tags",
];

/// `count` synthetic tools with unique names, the same for the same `seed`.
pub fn catalog(count: usize, seed: u64) -> Vec<ToolDocument> {
    let mut rng = SplitMix64::new(seed);
    let mut names = HashSet::with_capacity(count);
    let mut documents = Vec::with_capacity(count);
    while documents.len() < count {
        let namespace = rng.pick(NAMESPACES);
        let verb = rng.pick(VERBS);
        let noun = rng.pick(NOUNS);
        let mut name = format!("{namespace}.{verb}_{noun}");
        let mut instance = 2;
        while names.contains(&name) {
            name = format!("{namespace}{instance}.{verb}_{noun}");
            instance += 1;
        }
        names.insert(name.clone());
        let description = description(&mut rng, verb, noun);
        let mut document = ToolDocument::new(name, description);
        let parameter_count = rng.between(1, 6);
        let mut used = HashSet::new();
        for _ in 0..parameter_count {
            let parameter = rng.pick_skewed(PARAM_NOUNS);
            if !used.insert(parameter) {
                continue;
            }
            let words = rng.between(4, 12);
            document.parameters.push(ParamDoc {
                name: parameter.to_owned(),
                description: phrase(&mut rng, words),
            });
        }
        documents.push(document);
    }
    documents
}

fn description(rng: &mut SplitMix64, verb: &str, noun: &str) -> String {
    let target = rng.between(10, 40);
    let verb = capitalize(&format!("{verb}s"));
    let mut text = format!(
        "{verb} the {} {}",
        rng.pick(ADJECTIVES),
        noun.replace('_', " ")
    );
    while text.split_whitespace().count() < target {
        let preposition = rng.pick(PREPOSITIONS);
        let adjective = rng.pick_skewed(ADJECTIVES);
        let object = rng.pick_skewed(NOUNS).replace('_', " ");
        text.push_str(&format!(" {preposition} the {adjective} {object}"));
        if rng.between(0, 2) == 0 {
            text.push(' ');
            text.push_str(rng.pick(CONNECTIVES));
        }
        if rng.between(0, 1) == 0 {
            text.push_str(&format!(" using {}", pick_domain_term(rng)));
        }
    }
    let mut words: Vec<&str> = text.split_whitespace().take(target).collect();
    // Do not end on a dangling function word.
    while words.len() > 10
        && matches!(
            *words.last().unwrap_or(&""),
            "the" | "and" | "by" | "to" | "with"
        )
    {
        words.pop();
    }
    format!("{}.", words.join(" "))
}

fn phrase(rng: &mut SplitMix64, words: usize) -> String {
    let mut out: Vec<&str> = vec!["The"];
    while out.len() < words {
        out.push(rng.pick_skewed(ADJECTIVES));
        out.push(rng.pick_skewed(NOUNS));
        out.push(rng.pick(PREPOSITIONS));
    }
    out.push("the");
    out.push(rng.pick(NOUNS));
    let mut text = out.join(" ").replace('_', " ");
    if rng.between(0, 2) == 0 {
        text.push_str(&format!(" in {}", pick_domain_term(rng)));
    }
    text.push('.');
    text
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// `count` free-text queries in the catalog's vocabulary (3–8 words), every tenth one naming a
/// tool of `catalog` exactly.
pub fn queries(catalog: &[ToolDocument], count: usize, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64::new(seed ^ 0x5EED);
    (0..count)
        .map(|i| {
            if i % 10 == 9 && !catalog.is_empty() {
                let tool = &catalog[rng.between(0, catalog.len() - 1)];
                return format!("use {} for this", tool.name);
            }
            let words = rng.between(3, 8);
            let mut out = vec![rng.pick(VERBS).to_owned()];
            while out.len() < words {
                match rng.between(0, 4) {
                    0 => out.push(rng.pick(ADJECTIVES).to_owned()),
                    1 => out.push(rng.pick(PREPOSITIONS).to_owned()),
                    2 => out.push(rng.pick(NAMESPACES).to_owned()),
                    3 => out.push(pick_domain_term(&mut rng)),
                    _ => out.push(rng.pick(NOUNS).replace('_', " ")),
                }
            }
            out.join(" ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogs_are_deterministic_unique_and_sized() {
        let a = catalog(500, 7);
        assert_eq!(a, catalog(500, 7));
        assert_ne!(a, catalog(500, 8));
        let names: HashSet<&str> = a.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names.len(), 500);
        for document in &a {
            let words = document.description.split_whitespace().count();
            assert!(
                (10..=40).contains(&words),
                "{words} words: {}",
                document.description
            );
            assert!((1..=6).contains(&document.parameters.len()));
            assert!(document.namespace.is_some());
        }
        assert_eq!(queries(&a, 20, 1), queries(&a, 20, 1));
    }
}
