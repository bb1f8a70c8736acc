//! Server-level routing: which namespaces (MCP servers) a query is about.
//!
//! Each namespace of a tool index becomes one document: its name, its description (the server's
//! summary), its tools' names and summaries, and their tags (a LiveMCP server's category). A query
//! ranks these with BM25; the best [`RoutingConfig::servers`] namespaces give their tools a boost
//! proportional to the namespace's score (`weight · score / best score`), added to each tool's
//! normalised BM25 score ([`crate::WeightedQuery::namespace_boosts`]). That is MCP-Zero's two
//! stages (servers first, then tools within them) fused with the flat ranking, so a tool from an
//! unrouted server can still win on its own words.

use serde::{Deserialize, Serialize};

use crate::document::{ToolDocument, first_sentence};
use crate::index::{IndexConfig, SearchIndex, WeightedQuery};
use crate::tokenize::for_each_piece;

/// How much the server ranking weighs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoutingConfig {
    /// How many of the best namespaces boost their tools (0 turns routing off).
    pub servers: usize,
    /// The boost of the best namespace, added to tool scores normalised to the best tool's
    /// (which is 1).
    pub weight: f32,
}

impl Default for RoutingConfig {
    /// The values chosen on the development half of the task set (see the crate README).
    fn default() -> Self {
        Self {
            servers: 5,
            weight: 0.8,
        }
    }
}

impl RoutingConfig {
    /// No routing: tools rank on their own words only.
    pub fn off() -> Self {
        Self {
            servers: 0,
            weight: 0.0,
        }
    }
}

/// The namespaces of a tool index as searchable documents, in the index's namespace order.
#[derive(Debug, Clone)]
pub struct ServerRouter {
    servers: SearchIndex,
}

impl ServerRouter {
    /// Builds one document per namespace of `tools` (see the module docs).
    pub fn build(tools: &SearchIndex) -> Self {
        let namespaces = tools.namespaces();
        let mut members: Vec<Vec<&ToolDocument>> = vec![Vec::new(); namespaces.len()];
        for (position, document) in tools.documents().iter().enumerate() {
            if let Some(namespace) = tools.namespace_id(position) {
                members[namespace].push(document);
            }
        }
        let documents = namespaces
            .iter()
            .zip(&members)
            .map(|(namespace, tools)| {
                let mut description = namespace.description.clone();
                let mut tags: Vec<String> = Vec::new();
                for tool in tools {
                    description.push('\n');
                    description.push_str(&short_name_words(&tool.name, &namespace.name));
                    description.push_str(": ");
                    description.push_str(&tool.summary);
                    for tag in &tool.tags {
                        if !tags.contains(tag) {
                            tags.push(tag.clone());
                        }
                    }
                }
                let mut document = ToolDocument::new(namespace.name.clone(), description);
                document.summary = first_sentence(&namespace.description);
                document.namespace = None;
                document.with_tags(tags)
            })
            .collect();
        let config = IndexConfig {
            exact_names: crate::ExactNameRule::Off,
            ..IndexConfig::default()
        };
        Self {
            servers: SearchIndex::build(documents, config),
        }
    }

    /// Number of namespaces.
    pub fn len(&self) -> usize {
        self.servers.len()
    }

    /// True when the index had no namespaces.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// The best `limit` namespaces for `query`, as (namespace position, BM25 score), best first.
    pub fn route(&self, query: &WeightedQuery<'_>, limit: usize) -> Vec<(usize, f32)> {
        let unboosted = WeightedQuery {
            parts: query.parts.clone(),
            namespace_boosts: None,
        };
        self.servers
            .search_weighted(&unboosted, limit, |_| true)
            .into_iter()
            .map(|hit| (hit.index, hit.score))
            .collect()
    }

    /// The boost of every namespace for `query` under `config` (0 for those not routed to).
    pub fn boosts(&self, query: &WeightedQuery<'_>, config: &RoutingConfig) -> Vec<f32> {
        let mut boosts = vec![0.0; self.servers.len()];
        let routed = self.route(query, config.servers);
        let best = routed.first().map_or(0.0, |&(_, score)| score);
        if best > 0.0 {
            for (namespace, score) in routed {
                boosts[namespace] = config.weight * score / best;
            }
        }
        boosts
    }
}

/// A tool's name without its namespace prefix, as words (`trends-hub.get-weibo-trending` →
/// `get weibo trending`).
fn short_name_words(name: &str, namespace: &str) -> String {
    let short = name
        .strip_prefix(namespace)
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(name);
    let mut words = Vec::new();
    for_each_piece(short, false, |piece| words.push(piece.to_owned()));
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> SearchIndex {
        let tool = |name: &str, description: &str, namespace: &str| {
            let mut document = ToolDocument::new(name, description);
            document.namespace = Some(namespace.to_owned());
            document
        };
        SearchIndex::build_with_namespaces(
            vec![
                tool("charts.bar", "Draws a bar chart.", "charts"),
                tool("charts.pie", "Draws a pie chart.", "charts"),
                tool("news.weibo", "Hot topics right now.", "news"),
                ToolDocument::new("loose", "No namespace."),
            ],
            &[(
                "news".to_owned(),
                "Trending lists of Chinese social media.".to_owned(),
            )],
            IndexConfig::default(),
        )
    }

    #[test]
    fn namespaces_are_ranked_by_description_and_tools() {
        let router = ServerRouter::build(&tools());
        assert_eq!(router.len(), 2);
        // "social media" is only in the news server's description, "pie" only in a tool.
        let routed = router.route(&WeightedQuery::text("social media buzz"), 3);
        assert_eq!(routed.iter().map(|r| r.0).collect::<Vec<_>>(), [1]);
        let routed = router.route(&WeightedQuery::text("pie"), 3);
        assert_eq!(routed.iter().map(|r| r.0).collect::<Vec<_>>(), [0]);
        let config = RoutingConfig {
            servers: 1,
            weight: 0.5,
        };
        assert_eq!(
            router.boosts(&WeightedQuery::text("chart media"), &config),
            [0.5, 0.0]
        );
        assert_eq!(
            router.boosts(&WeightedQuery::text("zzz"), &config),
            [0.0, 0.0]
        );
        assert_eq!(
            short_name_words("news.getWeibo-rank", "news"),
            "get Weibo rank"
        );
    }

    #[test]
    fn boosts_lift_the_tools_of_routed_namespaces() {
        let tools = tools();
        // Without a boost "hot" finds only the news tool; "chart" ties the two chart tools.
        let plain = tools.search("hot chart", 3);
        let boosts = [0.0, 2.0];
        let boosted = tools.search_weighted(
            &WeightedQuery {
                parts: vec![("hot chart", 1.0)],
                namespace_boosts: Some(&boosts),
            },
            3,
            |_| true,
        );
        assert_eq!(boosted[0].name, "news.weibo");
        assert_eq!(plain.len(), boosted.len());
        let best = plain.iter().map(|hit| hit.score).fold(0.0, f32::max);
        for hit in &boosted {
            let raw = plain.iter().find(|p| p.index == hit.index).unwrap().score;
            let boost = if hit.name == "news.weibo" { 2.0 } else { 0.0 };
            assert!((hit.score - (raw / best + boost)).abs() < 1e-6, "{hit:?}");
        }
    }
}
