//! The catalog section end to end: listings, meta-tool texts, activation through the agent loop
//! (dynamic injection and restart), MCP over stdio, and the LiveMCP footprint targets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use wink_agent::{LoopOutcome, MainLoop, MainLoopConfig, Message, RunHooks, ScriptedProvider};
use wink_catalog::{
    Catalog, CatalogListing, CatalogNativeSearch, CatalogToolsActivated, Footprint, LineBudget,
    ListQuery, McpServer, ToolCatalogSection, ToolRecord, load_catalog_file, native_search_enabled,
    native_search_tools,
};
use wink_core::{
    MarkdownSection, Prompt, PromptTemplate, Section, ToolContext, ToolResult, block_on,
};
use wink_session::Session;
use wink_tokens::TokenCounter;

fn records() -> Vec<ToolRecord> {
    let object = |properties: Value, required: &[&str]| json!({"type": "object", "properties": properties, "required": required});
    vec![
        ToolRecord::new(
            "github.create_issue",
            "Create a new issue in a GitHub repository. Needs a title and a body.",
        )
        .with_parameters(object(
            json!({"repo": {"type": "string", "description": "owner/name"}, "title": {"type": "string"}}),
            &["repo", "title"],
        ))
        .with_tags(["vcs"]),
        ToolRecord::new("github.list_issues", "List open issues of a repository.")
            .with_parameters(object(json!({"repo": {"type": "string"}}), &["repo"]))
            .with_tags(["vcs"]),
        ToolRecord::new("slack.post_message", "Post a message to a Slack channel.")
            .with_parameters(object(
                json!({"channel": {"type": "string"}, "text": {"type": "string"}}),
                &["channel", "text"],
            ))
            .with_tags(["chat"]),
        ToolRecord::new(
            "weather.current",
            "Current weather conditions (temperature, wind, sky) for a city, from the nearest station with a report in the last hour.",
        )
        .with_parameters(object(
            json!({"city": {"type": "string", "description": "City name."}}),
            &["city"],
        )),
        ToolRecord::new("calculator", "Evaluate an arithmetic expression."),
    ]
}

fn catalog() -> Catalog {
    Catalog::builder()
        .records_with_handler(records(), |name, args, _ctx: &mut ToolContext| {
            Ok(ToolResult::ok(format!("{name} ran"), args))
        })
        .namespace_description("github", "GitHub issues and pull requests. Needs a token.")
        .build()
        .unwrap()
}

fn section() -> ToolCatalogSection {
    ToolCatalogSection::new("Tools", "tools", catalog())
}

#[test]
fn listings_render_level_one_metadata_only() {
    let section = section();
    insta::assert_snapshot!("per_tool", section.body());
    let per_namespace =
        ToolCatalogSection::new("Tools", "tools", catalog()).listing(CatalogListing::PerNamespace);
    insta::assert_snapshot!("per_namespace", per_namespace.body());
    let namespaces = ToolCatalogSection::new("Tools", "tools", catalog())
        .listing(CatalogListing::NamespacesOnly);
    insta::assert_snapshot!("namespaces_only", namespaces.body());
    let grouped =
        ToolCatalogSection::new("Tools", "tools", catalog()).listing(CatalogListing::Grouped);
    insta::assert_snapshot!("grouped", grouped.body());
}

#[test]
fn long_summaries_are_cut_to_the_line_budget() {
    let counter = TokenCounter::o200k().unwrap();
    let catalog = catalog();
    let line = catalog.get("weather.current").unwrap().line();
    assert_eq!(
        line,
        "- weather.current: Current weather conditions (temperature, wind, sky) for a city, from…"
    );
    assert!(counter.count(line) <= 20);
    let unlimited = Catalog::builder()
        .records(records())
        .line_budget(LineBudget::Unlimited)
        .build()
        .unwrap();
    assert_eq!(
        unlimited.get("weather.current").unwrap().line(),
        "- weather.current: Current weather conditions (temperature, wind, sky) for a city, from the nearest station with a report in the last hour."
    );
}

fn call(section: &ToolCatalogSection, name: &str, args: Value, session: &Session) -> String {
    let tool = section
        .tools()
        .iter()
        .find(|t| t.name() == name)
        .unwrap()
        .clone();
    let mut context = ToolContext::new(session.clone());
    let response = block_on(tool.invoke(args, &mut context)).unwrap();
    response.result.model_text()
}

#[test]
fn tool_list_pages_and_filters() {
    let section = section();
    let session = Session::new();
    assert_eq!(
        call(&section, "tool.list", json!({"limit": 2}), &session),
        "Catalog: tools 1-2 of 5.\n- github.create_issue: Create a new issue in a GitHub repository.\n- github.list_issues: List open issues of a repository.\nMore: call `tool.list` with offset 2."
    );
    assert_eq!(
        call(
            &section,
            "tool.list",
            json!({"offset": 4, "limit": 2}),
            &session
        ),
        "Catalog: tools 5-5 of 5.\n- calculator: Evaluate an arithmetic expression."
    );
    assert_eq!(
        call(
            &section,
            "tool.list",
            json!({"namespace": "github"}),
            &session
        ),
        "Namespace `github`: tools 1-2 of 2.\n- github.create_issue: Create a new issue in a GitHub repository.\n- github.list_issues: List open issues of a repository."
    );
    assert_eq!(
        call(&section, "tool.list", json!({"tag": "CHAT"}), &session),
        "Tag `CHAT`: tools 1-1 of 1.\n- slack.post_message: Post a message to a Slack channel."
    );
    assert_eq!(
        call(
            &section,
            "tool.list",
            json!({"namespace": "github", "tag": "chat"}),
            &session
        ),
        "Namespace `github`, tag `chat`: no tools match both filters."
    );
    assert_eq!(
        call(
            &section,
            "tool.list",
            json!({"namespace": "gitlab"}),
            &session
        ),
        "No namespace `gitlab`. Namespaces: github, slack, weather."
    );
    assert_eq!(
        call(&section, "tool.list", json!({"tag": "io"}), &session),
        "No tag `io`. Tags: chat, vcs."
    );
    assert_eq!(
        call(&section, "tool.list", json!({"offset": 9}), &session),
        "Catalog: 5 tools; offset 9 is past the end. Call `tool.list` with a smaller offset."
    );
    let query = ListQuery {
        limit: 0,
        ..ListQuery::new()
    };
    assert_eq!(
        section.catalog().list_text(&query),
        "Catalog: tools 1-1 of 5.\n- github.create_issue: Create a new issue in a GitHub repository.\nMore: call `tool.list` with offset 1."
    );
    assert_eq!(
        Catalog::empty().list_text(&ListQuery::new()),
        "The catalog holds no tools."
    );
}

#[test]
fn find_tool_ranks_exact_names_first_and_never_claims_absence() {
    let section = section();
    let session = Session::new();
    assert_eq!(
        call(
            &section,
            "find_tool",
            json!({"purpose": "create a new issue", "limit": 2}),
            &session
        ),
        "Tools for \"create a new issue\", best first (call `tool.describe` with a name to make it callable):\n- github.create_issue: Create a new issue in a GitHub repository.\n- github.list_issues: List open issues of a repository."
    );
    // A broad query naming a tool among many other words still ranks it first.
    let hits = section.catalog().find(
        "issue repository github list open create new slack.post_message please",
        3,
    );
    assert_eq!(
        section.catalog().entries()[hits[0].entry].name(),
        "slack.post_message"
    );
    assert!(hits[0].exact_name);
    assert_eq!(
        call(
            &section,
            "find_tool",
            json!({"purpose": "zzz qqq"}),
            &session
        ),
        "The search found no tool for \"zzz qqq\". That does not mean the catalog lacks one: the search only matches words of tool names and descriptions. Describe the capability in other words, or browse the catalog with `tool.list` (namespaces: github, slack, weather)."
    );
    let description = section
        .tools()
        .iter()
        .find(|t| t.name() == "find_tool")
        .unwrap()
        .description()
        .to_owned();
    assert!(description.contains("do not paste the user's request"));
}

#[test]
fn describe_returns_full_specs_activates_and_expands() {
    let section = section();
    let session = Session::new();
    let tool = section.tools()[1].clone();
    assert_eq!(tool.name(), "tool.describe");
    let mut context = ToolContext::new(session.clone());
    let response = block_on(tool.invoke(
        json!({"names": ["weather.current", "wether", "find_tool", "weather.current"]}),
        &mut context,
    ))
    .unwrap();
    assert_eq!(
        response.result.model_text(),
        "`weather.current` is now callable. Full specification:\n\n`find_tool` is a catalog meta-tool; it is always callable.\n\nNo catalog tool is named `wether`; `find_tool` searches by capability.\n\n### weather.current\nCurrent weather conditions (temperature, wind, sky) for a city, from the nearest station with a report in the last hour.\nParameters (JSON Schema): {\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\",\"description\":\"City name.\"}},\"required\":[\"city\"]}\nReturns: text"
    );
    assert!(response.result.success);
    let expansion = response.expansion.unwrap();
    assert_eq!(expansion.path.dotted(), "tools");
    let names: Vec<&str> = expansion.tools.iter().map(|(_, t)| t.name()).collect();
    assert_eq!(names, ["weather.current"]);
    assert_eq!(
        session.slice::<CatalogToolsActivated>().all(),
        [CatalogToolsActivated {
            catalog: "tools".into(),
            tools: vec!["weather.current".into()]
        }]
    );
    assert_eq!(section.activated(&session), ["weather.current"]);
    let offered: Vec<String> = section
        .session_tools(Some(&session))
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(offered, ["weather.current"]);

    // Only unknown names: a failed result, nothing activated, no expansion.
    let mut context = ToolContext::new(Session::new());
    let response =
        block_on(tool.invoke(json!({"names": ["github.create"]}), &mut context)).unwrap();
    assert!(!response.result.success);
    assert!(response.expansion.is_none());
    assert_eq!(
        response.result.model_text(),
        "No catalog tool is named `github.create`. Closest names: `github.create_issue`, `github.list_issues`."
    );
}

fn template(section: ToolCatalogSection) -> PromptTemplate {
    PromptTemplate::builder("demo", "catalog")
        .section(MarkdownSection::new(
            "Task",
            "task",
            "Report the weather in Paris.",
        ))
        .section(section)
        .build()
        .unwrap()
}

const SCRIPT: &str = r#"[
    {"tool_calls": [{"id": "c1", "name": "tool.describe", "arguments": {"names": ["weather.current"]}}]},
    {"tool_calls": [{"id": "c2", "name": "weather.current", "arguments": {"city": "Paris"}}]},
    {"text": "Sunny."}
]"#;

fn tool_names(request: &wink_agent::ModelRequest) -> Vec<&str> {
    request.tools.iter().map(|t| t.name.as_str()).collect()
}

fn last_tool_message(request: &wink_agent::ModelRequest) -> &str {
    request
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Tool { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .unwrap()
}

#[test]
fn described_tools_are_injected_into_the_running_conversation() {
    let provider = ScriptedProvider::from_json(SCRIPT, "inline").unwrap();
    let session = Session::new();
    let prompt = Prompt::new(template(section()));
    let main_loop = MainLoop::new(&provider, MainLoopConfig::default());
    let result = block_on(main_loop.execute(&prompt, &session, RunHooks::default())).unwrap();
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("Sunny.".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 0);
    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        tool_names(&requests[0]),
        ["tool.list", "tool.describe", "find_tool"]
    );
    assert_eq!(
        tool_names(&requests[1]),
        ["tool.list", "tool.describe", "find_tool", "weather.current"]
    );
    assert_eq!(
        last_tool_message(&requests[2]),
        "weather.current ran\n\n{\"city\": \"Paris\"}"
    );
}

#[test]
fn described_tools_are_offered_after_a_restart_without_dynamic_tools() {
    let provider = ScriptedProvider::from_json(SCRIPT, "inline")
        .unwrap()
        .with_dynamic_tools(false);
    let session = Session::new();
    let prompt = Prompt::new(template(section()));
    let main_loop = MainLoop::new(&provider, MainLoopConfig::default());
    let result = block_on(main_loop.execute(&prompt, &session, RunHooks::default())).unwrap();
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("Sunny.".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 1);
    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        tool_names(&requests[0]),
        ["tool.list", "tool.describe", "find_tool"]
    );
    // The restart re-renders: the activated tool is offered from the session.
    assert_eq!(
        tool_names(&requests[1]),
        ["tool.list", "tool.describe", "find_tool", "weather.current"]
    );
    assert_eq!(
        last_tool_message(&requests[2]),
        "weather.current ran\n\n{\"city\": \"Paris\"}"
    );
    // A fresh render in the same session still offers it.
    let rendered = prompt.render_with(&session).unwrap();
    assert_eq!(
        rendered.tool_names(),
        ["tool.list", "tool.describe", "find_tool", "weather.current"]
    );
}

#[test]
fn native_search_offers_every_catalog_tool_and_names_them() {
    let template = template(section());
    assert_eq!(
        native_search_tools(&template)
            .into_iter()
            .collect::<Vec<_>>(),
        [
            "calculator",
            "github.create_issue",
            "github.list_issues",
            "slack.post_message",
            "weather.current"
        ]
    );
    let plain = PromptTemplate::builder("demo", "plain")
        .section(MarkdownSection::new("Task", "task", "No catalog here."))
        .build()
        .unwrap();
    assert!(native_search_tools(&plain).is_empty());

    let session = Session::new();
    assert!(!native_search_enabled(&session));
    session.dispatch(CatalogNativeSearch { enabled: true });
    assert!(native_search_enabled(&session));
    let prompt = Prompt::new(template);
    assert_eq!(
        prompt.render_with(&session).unwrap().tool_names(),
        [
            "tool.list",
            "tool.describe",
            "find_tool",
            "github.create_issue",
            "github.list_issues",
            "slack.post_message",
            "weather.current",
            "calculator"
        ]
    );
    // The model searches, then calls a catalog tool directly: no describe, no injection.
    let provider = ScriptedProvider::from_json(
        r#"[
            {"tool_calls": [{"id": "c1", "name": "find_tool", "arguments": {"purpose": "current weather"}}]},
            {"tool_calls": [{"id": "c2", "name": "weather.current", "arguments": {"city": "Paris"}}]},
            {"text": "Sunny."}
        ]"#,
        "inline",
    )
    .unwrap();
    let main_loop = MainLoop::new(&provider, MainLoopConfig::default());
    let result = block_on(main_loop.execute(&prompt, &session, RunHooks::default())).unwrap();
    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("Sunny.".into()),
            output: None
        }
    );
    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests.iter().all(|r| tool_names(r).len() == 8));
    assert_eq!(
        last_tool_message(&requests[1]),
        "Tools for \"current weather\", best first (loaded: call them directly):\n- weather.current: Current weather conditions (temperature, wind, sky) for a city, from…"
    );
    assert_eq!(
        last_tool_message(&requests[2]),
        "weather.current ran\n\n{\"city\": \"Paris\"}"
    );
    // Switched off again, the section is back to the meta-tools.
    session.dispatch(CatalogNativeSearch { enabled: false });
    assert_eq!(
        prompt.render_with(&session).unwrap().tool_names(),
        ["tool.list", "tool.describe", "find_tool"]
    );
}

#[test]
fn catalog_errors_are_clear() {
    let duplicate = Catalog::builder()
        .records([ToolRecord::new("a", "x"), ToolRecord::new("a", "y")])
        .build()
        .unwrap_err();
    assert_eq!(duplicate.to_string(), "duplicate tool name `a` (a and a)");
    let file =
        wink_catalog::parse_catalog(r#"[{"name": "x.y"}, {"name": "x.y"}]"#, "f.json").unwrap();
    let duplicate = Catalog::builder().file(file).build().unwrap_err();
    assert_eq!(
        duplicate.to_string(),
        "duplicate tool name `x.y` (f.json:/0 and f.json:/1)"
    );
    let meta = Catalog::builder()
        .records([ToolRecord::new("find_tool", "x")])
        .build()
        .unwrap_err();
    assert_eq!(
        meta.to_string(),
        "invalid tool name `find_tool` (find_tool): this is the name of a catalog meta-tool"
    );
    let spaced = Catalog::builder()
        .records([ToolRecord::new("my tool", "x")])
        .build()
        .unwrap_err();
    assert_eq!(
        spaced.to_string(),
        "invalid tool name `my tool` (my tool): names contain no whitespace or control characters"
    );
    let missing = PathBuf::from("/nonexistent/tools.json");
    let error = load_catalog_file(&missing).unwrap_err().to_string();
    assert!(
        error.starts_with("cannot read /nonexistent/tools.json: "),
        "{error}"
    );
}

#[test]
fn unbound_catalog_tools_say_nothing_runs_them() {
    let catalog = Catalog::builder()
        .records([ToolRecord::new("file.read", "Read a file.")])
        .build()
        .unwrap();
    let tool = catalog.get("file.read").unwrap().tool().clone();
    let mut context = ToolContext::new(Session::new());
    let error = block_on(tool.invoke(json!({}), &mut context)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`file.read` comes from a tool list without an implementation here; nothing was run."
    );
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn mcp_stdio_round_trip() {
    let command = format!("python3 {}", fixture("mcp_server.py").display());
    let server = Arc::new(McpServer::spawn(&command).unwrap());
    assert_eq!(server.server_name(), "fixture-server");
    let names: Vec<&str> = server.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "echo", "fail"]);

    let catalog = Catalog::builder()
        .mcp_server_in(server.clone(), "math")
        .build()
        .unwrap();
    assert_eq!(
        catalog.list_text(&ListQuery::new()),
        "Catalog: tools 1-3 of 3.\n- math.add: Add two numbers.\n- math.echo: Echo a message back.\n- math.fail: Always fails."
    );
    let add = catalog.get("math.add").unwrap().tool().clone();
    let mut context = ToolContext::new(Session::new());
    let response = block_on(add.invoke(json!({"a": 2, "b": 3.5}), &mut context)).unwrap();
    assert!(response.result.success);
    assert_eq!(response.result.model_text(), "5.5");
    let fail = catalog.get("math.fail").unwrap().tool().clone();
    let response = block_on(fail.invoke(json!({}), &mut context)).unwrap();
    assert!(!response.result.success);
    assert_eq!(response.result.model_text(), "it failed");
    drop(catalog);
    drop(add);
    drop(fail);
    drop(server);
}

#[test]
fn livemcp_footprint_meets_the_targets() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/livemcp/tools.json");
    assert!(
        path.exists(),
        "{} is missing: the vendored data/ folder of the repository is missing",
        path.display()
    );
    let catalog = Catalog::builder()
        .file(load_catalog_file(&path).unwrap())
        .build()
        .unwrap();
    assert_eq!(catalog.len(), 527);
    assert_eq!(catalog.namespaces().len(), 70);
    let footprint = Footprint::measure(&catalog, TokenCounter::o200k().unwrap());
    // The default listing (one line per tool, grouped by namespace) meets the 90% target.
    assert_eq!(CatalogListing::default(), CatalogListing::Grouped);
    assert!(
        footprint.reduction(footprint.grouped) >= 90.0,
        "{footprint:?}"
    );
    assert!(
        footprint.reduction(footprint.per_tool) >= 89.0,
        "{footprint:?}"
    );
    assert!(
        footprint.reduction(footprint.per_namespace) >= 98.0,
        "{footprint:?}"
    );
    assert!(
        footprint.reduction(footprint.namespaces_only) >= 98.0,
        "{footprint:?}"
    );
    assert_eq!(footprint.lines.over_25, 0, "{footprint:?}");
}

#[test]
fn describe_accepts_unambiguous_short_names_from_grouped_listings() {
    let catalog = Catalog::builder()
        .records([
            ToolRecord::new("fs.read", "Read a file."),
            ToolRecord::new("editor.read", "Read a buffer."),
            ToolRecord::new("fs.write", "Write a file."),
        ])
        .build()
        .unwrap();
    let description = catalog.describe(&["write".to_owned(), "read".to_owned()]);
    assert_eq!(
        description.text,
        "`fs.write` is now callable. Full specification:\n\n`read` is ambiguous: `fs.read`, `editor.read`. Pass the full name.\n\n### fs.write\nWrite a file.\nParameters (JSON Schema): {\"type\":\"object\",\"properties\":{}}\nReturns: text"
    );
    assert_eq!(description.unknown, ["read"]);
    let names: Vec<&str> = description.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["fs.write"]);
}

#[test]
fn best_matches_keep_the_best_and_those_about_as_good() {
    let section = section();
    assert_eq!(
        section.best_matches("open a GitHub issue about the crash", 3),
        ["github.list_issues", "github.create_issue"]
    );
    assert_eq!(
        section.best_matches("open a GitHub issue about the crash", 1),
        ["github.list_issues"]
    );
    assert_eq!(
        section.best_matches("What is the weather in Oslo?", 3),
        ["weather.current"]
    );
    assert!(section.best_matches("zzz qqq", 3).is_empty());
    assert!(section.best_matches("weather", 0).is_empty());
}

#[test]
fn find_tool_covers_every_step_of_a_task() {
    let section = section();
    let session = Session::new();
    let task = "Check the weather in Oslo, then post it to our Slack channel.";
    let by_step = call(&section, "find_tool", json!({"purpose": task}), &session);
    assert_eq!(
        by_step,
        "Tools for \"Check the weather in Oslo, then post it to our Slack channel.\", by step (2 steps; call `tool.describe` with a name to make it callable):\nStep 1, \"Check the weather in Oslo\":\n- weather.current: Current weather conditions (temperature, wind, sky) for a city, from…\nStep 2, \"post it to our Slack channel\":\n- slack.post_message: Post a message to a Slack channel."
    );
    let named = call(
        &section,
        "find_tool",
        json!({"purpose": "weather then chat", "queries": ["current weather", "send a chat message"], "limit": 2}),
        &session,
    );
    let named_expected = "Tools for \"current weather\", \"send a chat message\", by step (2 steps; call `tool.describe` with a name to make it callable):\nStep 1, \"current weather\":\n- weather.current: Current weather conditions (temperature, wind, sky) for a city, from…\nStep 2, \"send a chat message\":\n- slack.post_message: Post a message to a Slack channel.";
    let found = section
        .catalog()
        .find_task(wink_search::TaskInput::Text(task), 5);
    assert_eq!(
        found.steps,
        ["Check the weather in Oslo", "post it to our Slack channel"]
    );
    let listed = call(
        &section,
        "tool.list",
        json!({"query": "issues", "limit": 1}),
        &session,
    );
    assert_eq!(
        (named.as_str(), listed.as_str()),
        (
            named_expected,
            "Catalog, tools found for \"issues\": tools 1-1 of 2.\n- github.list_issues: List open issues of a repository.\nMore: call `tool.list` with offset 1."
        )
    );
    let find = section
        .tools()
        .iter()
        .find(|t| t.name() == "find_tool")
        .unwrap()
        .clone();
    let mut context = ToolContext::new(session.clone());
    for (args, message) in [
        (
            json!({"queries": 3}),
            "`queries` must be a list of strings.",
        ),
        (json!({"limit": 3}), "`purpose` is required (or `queries`)."),
    ] {
        let error = block_on(find.invoke(args, &mut context)).unwrap_err();
        assert!(error.to_string().contains(message), "{error}");
    }
}
