#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::json;
use wink_search::{
    ExactNameRule, IndexConfig, ParamDoc, Query, SearchIndex, ToolDocument, evaluate, synthetic,
};

fn catalog() -> Vec<ToolDocument> {
    vec![
        ToolDocument::from_json_schema(
            "file.read",
            "Reads a file from the local disk. Returns its text.",
            &json!({"type": "object", "properties": {"path": {"type": "string", "description": "Path of the file."}}}),
        ),
        ToolDocument::from_json_schema(
            "file.write",
            "Writes text to a file on the local disk, replacing it.",
            &json!({"type": "object", "properties": {"path": {"description": "Path of the file."}, "text": {"description": "New content."}}}),
        ),
        ToolDocument::new("web.search", "Searches the web for pages matching a query."),
        ToolDocument::new("get_weather", "Current weather and forecast for a city.")
            .with_tags(["weather", "forecast"]),
        ToolDocument::new("news", "Latest headlines about a topic."),
        ToolDocument::new("add", "Adds two numbers."),
    ]
}

fn names(hits: &[wink_search::SearchHit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.name.as_str()).collect()
}

#[test]
fn search_results_snapshot() {
    let index = SearchIndex::build(catalog(), IndexConfig::default());
    let hits = index.search("read the text of a file on disk", 3);
    let rounded: Vec<serde_json::Value> = hits
        .iter()
        .map(|hit| json!({"index": hit.index, "name": hit.name, "score": format!("{:.3}", hit.score), "exact_name": hit.exact_name}))
        .collect();
    insta::assert_json_snapshot!(rounded);
}

#[test]
fn relevant_tool_ranks_first() {
    let index = SearchIndex::build(catalog(), IndexConfig::default());
    assert_eq!(
        names(&index.search("what is the weather forecast in Paris", 1)),
        ["get_weather"]
    );
    assert_eq!(
        names(&index.search("write new content into a file", 1)),
        ["file.write"]
    );
    assert_eq!(
        names(&index.search("find pages on the web", 1)),
        ["web.search"]
    );
}

#[test]
fn exact_names_rank_first_even_against_stronger_matches() {
    let index = SearchIndex::build(catalog(), IndexConfig::default());
    // Every word but the name points to file.write.
    let hits = index.search("write text to a file on the local disk with file.read", 3);
    assert_eq!(hits[0].name, "file.read");
    assert!(hits[0].exact_name);
    assert!(!hits[1].exact_name);
    assert_eq!(
        index.search("use get_weather for Paris", 1)[0].name,
        "get_weather"
    );
    assert_eq!(index.search("file.read", 1)[0].name, "file.read");
    assert_eq!(index.search("call file.read.", 1)[0].name, "file.read");
    assert_eq!(index.search("GET_WEATHER please", 1)[0].name, "get_weather");
}

#[test]
fn one_word_names_count_as_exact_only_when_marked() {
    let index = SearchIndex::build(catalog(), IndexConfig::default());
    // "add" as an ordinary word gets no special treatment ...
    let plain = index.search("add weather forecast for Paris", 6);
    assert_eq!(plain[0].name, "get_weather");
    assert!(plain.iter().all(|hit| !hit.exact_name));
    // ... but quoted, backticked or called it is a name.
    for query in [
        "use `add` for Paris weather",
        "call 'add' for weather",
        "add(2, 3) weather forecast",
    ] {
        let hits = index.search(query, 1);
        assert_eq!(hits[0].name, "add", "{query}");
        assert!(hits[0].exact_name, "{query}");
    }
    let any = IndexConfig {
        exact_names: ExactNameRule::AnyName,
        ..IndexConfig::default()
    };
    let index = SearchIndex::build(catalog(), any);
    assert_eq!(
        index.search("add weather forecast for Paris", 1)[0].name,
        "add"
    );
}

#[test]
fn longer_and_same_case_names_win_among_exact_matches() {
    let documents = vec![
        ToolDocument::new("file.read", "Reads."),
        ToolDocument::new("os.file.read", "Reads through the OS."),
        ToolDocument::new("File.Read", "Reads, capitalised."),
    ];
    let index = SearchIndex::build(documents, IndexConfig::default());
    assert_eq!(
        names(&index.search("os.file.read", 3)),
        ["os.file.read", "file.read", "File.Read"]
    );
    assert_eq!(
        names(&index.search("File.Read", 2)),
        ["File.Read", "file.read"]
    );
}

#[test]
fn an_exact_name_is_found_even_without_indexed_terms() {
    // `x.y` has no term of two or more characters.
    let documents = vec![
        ToolDocument::new("x.y", ""),
        ToolDocument::new("other", "Other tool."),
    ];
    let index = SearchIndex::build(documents, IndexConfig::default());
    let hits = index.search("x.y", 5);
    assert_eq!(names(&hits), ["x.y"]);
    assert_eq!(hits[0].score, 0.0);
}

#[test]
fn empty_and_unknown_queries_find_nothing() {
    let index = SearchIndex::build(catalog(), IndexConfig::default());
    for query in ["", "   ", "?!", "zzzz qqqq", "the of and", "a b c"] {
        assert!(index.search(query, 10).is_empty(), "{query:?}");
    }
    assert!(index.search("weather", 0).is_empty());
    let empty = SearchIndex::build(Vec::new(), IndexConfig::default());
    assert!(empty.is_empty());
    assert!(empty.search("weather", 5).is_empty());
}

#[test]
fn ties_are_broken_by_name() {
    let documents: Vec<ToolDocument> = ["delta", "alpha", "charlie", "bravo"]
        .into_iter()
        .map(|name| ToolDocument::new(format!("{name}_tool"), "Sends a message."))
        .collect();
    let index = SearchIndex::build(documents, IndexConfig::default());
    let hits = index.search("send message", 10);
    assert_eq!(
        names(&hits),
        ["alpha_tool", "bravo_tool", "charlie_tool", "delta_tool"]
    );
    assert!(hits.windows(2).all(|pair| pair[0].score == pair[1].score));
    assert_eq!(
        names(&index.search("send message", 2)),
        ["alpha_tool", "bravo_tool"]
    );
}

#[test]
fn search_is_deterministic() {
    let documents = synthetic::catalog(2_000, 3);
    let first = SearchIndex::build(documents.clone(), IndexConfig::default());
    let second = SearchIndex::build(documents, IndexConfig::default());
    for query in synthetic::queries(first.documents(), 200, 5) {
        let a = first.search(&query, 10);
        assert_eq!(a, second.search(&query, 10), "{query}");
        assert_eq!(a, first.search(&query, 10), "{query}");
        // Top-k is a prefix of the full ranking.
        let all = first.search(&query, first.len());
        assert_eq!(a[..], all[..a.len()], "{query}");
        assert!(
            all.windows(2)
                .all(|pair| pair[0].exact_name >= pair[1].exact_name)
        );
    }
}

#[test]
fn filtered_search_keeps_only_matching_documents() {
    let index = SearchIndex::build(catalog(), IndexConfig::default());
    let hits = index.search_filtered("file text web pages", 10, |document| {
        document.namespace.as_deref() == Some("file")
    });
    assert_eq!(names(&hits), ["file.write", "file.read"]);
}

#[test]
fn documents_are_reachable_by_position_and_name() {
    let index = SearchIndex::build(catalog(), IndexConfig::default());
    assert_eq!(index.len(), 6);
    assert_eq!(index.document(2).name, "web.search");
    assert_eq!(
        index.get("get_weather").unwrap().tags,
        ["weather", "forecast"]
    );
    assert!(index.get("GET_WEATHER").is_none());
    assert!(index.get("missing").is_none());
    let hit = &index.search("headlines", 1)[0];
    assert_eq!(index.document(hit.index).name, hit.name);
    assert!(index.heap_bytes() > 0);
    assert!(index.term_count() > 10);
}

#[test]
fn index_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<SearchIndex>();
}

#[test]
fn tags_and_parameters_are_searchable() {
    let documents = vec![
        ToolDocument {
            parameters: vec![ParamDoc {
                name: "isbnNumber".into(),
                description: "Identifier printed on the back cover.".into(),
            }],
            ..ToolDocument::new("lookup", "Looks something up.")
        },
        ToolDocument::new("other", "Looks something else up.").with_tags(["library"]),
    ];
    let index = SearchIndex::build(documents, IndexConfig::default());
    assert_eq!(index.search("isbn", 1)[0].name, "lookup");
    assert_eq!(index.search("back cover", 1)[0].name, "lookup");
    assert_eq!(index.search("library", 1)[0].name, "other");
}

#[test]
fn evaluate_matches_hand_computed_metrics() {
    let index = SearchIndex::build(catalog(), IndexConfig::default());
    let queries = [
        // file.read is first.
        Query::new("file.read", ["file.read"]),
        // Both file tools match; web.search is never retrieved.
        Query::new("file.write", ["file.write", "web.search"]),
        // Nothing is retrieved.
        Query::new("zzzz", ["news"]),
        // No relevant tool: skipped.
        Query::new("weather", Vec::<String>::new()),
    ];
    let metrics = evaluate(&index, &queries);
    assert_eq!(metrics.queries, 3);
    // Per query recall@1: 1, 1/2, 0.
    assert!((metrics.recall_at_1 - 0.5).abs() < 1e-12);
    assert!((metrics.recall_at_10 - 0.5).abs() < 1e-12);
    assert!((metrics.mrr - 2.0 / 3.0).abs() < 1e-12);
    // nDCG@10: 1; (1) / (1 + 1/log2 3); 0.
    let second = 1.0 / (1.0 + 1.0 / 3f64.log2());
    assert!((metrics.ndcg_at_10 - (1.0 + second) / 3.0).abs() < 1e-12);
    let json = serde_json::to_value(metrics).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "recall@1",
            "recall@5",
            "recall@10",
            "ndcg@10",
            "mrr",
            "queries"
        ]
    );
}

static SYNTHETIC: std::sync::LazyLock<SearchIndex> = std::sync::LazyLock::new(|| {
    SearchIndex::build(synthetic::catalog(300, 11), IndexConfig::default())
});

/// Tool names of two to four words joined by `.`, `_`, `-` or camelCase.
fn compound_name() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "get", "list", "file", "read", "write", "user", "issue", "create", "search", "web",
        "weather", "send", "mail", "repo", "db", "query", "log", "http", "json", "v2",
    ]);
    (
        prop::collection::vec(word, 2..=4),
        prop::sample::select(vec!['.', '_', '-', 'C']),
    )
        .prop_map(|(words, separator)| {
            let mut name = String::new();
            for (position, word) in words.iter().enumerate() {
                if position > 0 && separator == 'C' {
                    let mut chars = word.chars();
                    name.extend(chars.next().map(|c| c.to_ascii_uppercase()));
                    name.push_str(chars.as_str());
                    continue;
                }
                if position > 0 {
                    name.push(separator);
                }
                name.push_str(word);
            }
            name
        })
}

fn description() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "reads", "writes", "files", "users", "issues", "weather", "web", "pages", "mail",
        "queries", "database", "logs", "the", "a", "for", "json", "http", "list", "get",
    ]);
    prop::collection::vec(word, 0..12).prop_map(|words| words.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_query_containing_a_tool_name_ranks_it_first(
        tools in prop::collection::btree_map(compound_name(), description(), 1..40),
        pick in any::<prop::sample::Index>(),
        before in description(),
        after in description(),
    ) {
        let documents: Vec<ToolDocument> = tools
            .iter()
            .map(|(name, description)| ToolDocument::new(name.clone(), description.clone()))
            .collect();
        let chosen = documents[pick.index(documents.len())].name.clone();
        let index = SearchIndex::build(documents, IndexConfig::default());
        let query = format!("{before} {chosen} {after}");
        let hits = index.search(&query, 3);
        prop_assert!(!hits.is_empty());
        prop_assert_eq!(&hits[0].name, &chosen, "query {:?}", query);
        prop_assert!(hits[0].exact_name);
    }

    #[test]
    fn a_query_quoting_a_one_word_name_ranks_it_first(
        tools in prop::collection::btree_map("[a-z]{2,8}", description(), 1..30),
        pick in any::<prop::sample::Index>(),
        before in description(),
        quote in prop::sample::select(vec!["`", "'", "\""]),
    ) {
        let documents: Vec<ToolDocument> = tools
            .iter()
            .map(|(name, description)| ToolDocument::new(name.clone(), description.clone()))
            .collect();
        let chosen = documents[pick.index(documents.len())].name.clone();
        let index = SearchIndex::build(documents, IndexConfig::default());
        let query = format!("{before} {quote}{chosen}{quote} {before}");
        let hits = index.search(&query, 1);
        prop_assert_eq!(&hits[0].name, &chosen, "query {:?}", query);
    }

    #[test]
    fn hits_are_ordered_and_bounded(query in "[a-z ._]{0,40}", limit in 0usize..20) {
        let hits = SYNTHETIC.search(&query, limit);
        prop_assert!(hits.len() <= limit);
        for pair in hits.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            prop_assert!(a.exact_name >= b.exact_name, "{:?} before {:?}", a, b);
            if !a.exact_name && !b.exact_name {
                prop_assert!(
                    a.score > b.score || (a.score == b.score && a.name < b.name),
                    "{:?} before {:?}", a, b
                );
            }
        }
    }
}

proptest! {
    /// The splitter never panics, returns byte ranges on character boundaries in order, at
    /// most `MAX_STEPS` steps, each with text, and one step for a text without separators.
    #[test]
    fn split_task_is_total_and_ordered(text in "[ a-zA-Z0-9,.;:?!'\\n()é中-]{0,200}") {
        let steps = wink_search::split_task(&text);
        prop_assert!(steps.len() <= wink_search::MAX_STEPS);
        let mut previous_end = 0;
        for step in &steps {
            prop_assert!(step.start <= step.end && step.end <= text.len());
            prop_assert!(text.is_char_boundary(step.start) && text.is_char_boundary(step.end));
            prop_assert!(step.start >= previous_end);
            prop_assert!(!step.text.is_empty());
            previous_end = step.end;
        }
        if text.trim().is_empty() {
            prop_assert!(steps.len() <= 1);
        }
    }

    /// A single request through `ToolSearch` without routing ranks exactly as the index does.
    #[test]
    fn one_step_ranks_as_the_index(seed in 0u64..20) {
        let documents = synthetic::catalog(200, seed);
        let index = SearchIndex::build(documents, IndexConfig::default());
        let queries = synthetic::queries(index.documents(), 20, seed + 1);
        let search = wink_search::ToolSearch::with_config(index.clone(), wink_search::SearchConfig::flat());
        for query in &queries {
            if wink_search::split_task(query).len() > 1 {
                continue;
            }
            let plain = index.search(query, 10);
            let task = search.search_task(wink_search::TaskInput::Text(query), 10);
            let hits: Vec<_> = task.hits.into_iter().map(|hit| hit.hit).collect();
            prop_assert_eq!(plain, hits);
        }
    }
}
