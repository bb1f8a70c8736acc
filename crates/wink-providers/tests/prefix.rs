//! Append-only requests, measured: the real agent loop runs a 20-call scripted conversation with
//! three tool injections (tools hidden in summarized sections, disclosed by `read_section`)
//! against a loopback server speaking each wire format; the server records every request body.
//!
//! Reported per format (`cargo test -p wink-providers --test prefix -- --nocapture`): the share
//! of each request's bytes that is a byte-prefix of the next request. Asserted per format:
//! * Anthropic and OpenAI Responses with section deferral: `tools` (and Anthropic's `system`)
//!   byte-identical on every call, the conversation array element-wise a prefix of the next
//!   one's, and each body a byte-prefix of the next but for its closing `]}`.
//! * Chat Completions (`openai`, `litellm`, `openai-compat`): the messages element-wise a prefix
//!   of the next ones, the tools array a prefix of the next one (it grows only at injections),
//!   and each body a byte-prefix of the next but for its closing `]}` when no tool was injected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use common::{Loopback, Recorded, Reply};
use serde_json::{Value, json};
use wink_agent::{Budget, LoopConfig, LoopOutcome, MainLoop, MainLoopConfig, RunHooks};
use wink_core::{MarkdownSection, Prompt, PromptTemplate, ToolBuilder, ToolRef, ToolResult};
use wink_providers::{AdapterConfig, HttpAdapter, WireFormat};
use wink_session::Session;

fn counted_tool(name: &str) -> ToolRef {
    let label = name.to_owned();
    ToolBuilder::dynamic(
        name,
        format!("The {name} tool: give it a number."),
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false}),
        move |args, _ctx| Ok(ToolResult::message(format!("{label} {}", args["n"]))),
    )
    .build()
    .unwrap()
}

/// A visible task with `note`; `inventory` (`stock`, `price`), `orders` (`order`) and
/// `shipping` (`ship`) hide their tools; `reference` is summarized without tools.
fn template() -> Arc<PromptTemplate> {
    Arc::new(
        PromptTemplate::builder("shop", "prefix")
            .section(
                MarkdownSection::new("Task", "task", "Answer the customer.")
                    .tool(counted_tool("note")),
            )
            .section(
                MarkdownSection::new("Inventory", "inventory", "Stock levels and prices.")
                    .summary("Inventory tools.")
                    .summarized()
                    .tool(counted_tool("stock"))
                    .tool(counted_tool("price")),
            )
            .section(
                MarkdownSection::new("Reference", "reference", "Opening hours: 9 to 5.")
                    .summary("Reference material.")
                    .summarized(),
            )
            .section(
                MarkdownSection::new("Orders", "orders", "Placing orders.")
                    .summary("Order tools.")
                    .summarized()
                    .tool(counted_tool("order")),
            )
            .section(
                MarkdownSection::new("Shipping", "shipping", "Shipping parcels.")
                    .summary("Shipping tools.")
                    .summarized()
                    .tool(counted_tool("ship")),
            )
            .build()
            .unwrap(),
    )
}

/// The 20 model turns: 19 single tool calls (three `read_section` calls that inject tools, one
/// that does not), then the answer.
fn script() -> Vec<Option<(String, Value)>> {
    let steps: [(&str, Value); 19] = [
        ("note", json!({"n": 1})),
        ("read_section", json!({"section_key": "inventory"})),
        ("stock", json!({"n": 2})),
        ("price", json!({"n": 3})),
        ("note", json!({"n": 4})),
        ("read_section", json!({"section_key": "reference"})),
        ("note", json!({"n": 5})),
        ("read_section", json!({"section_key": "orders"})),
        ("order", json!({"n": 6})),
        ("stock", json!({"n": 7})),
        ("note", json!({"n": 8})),
        ("read_section", json!({"section_key": "shipping"})),
        ("ship", json!({"n": 9})),
        ("order", json!({"n": 10})),
        ("price", json!({"n": 11})),
        ("note", json!({"n": 12})),
        ("stock", json!({"n": 13})),
        ("ship", json!({"n": 14})),
        ("note", json!({"n": 15})),
    ];
    let mut turns: Vec<Option<(String, Value)>> = steps
        .into_iter()
        .map(|(name, args)| Some((name.to_owned(), args)))
        .collect();
    turns.push(None);
    turns
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    Chat,
    Responses,
    Anthropic,
    Litellm,
    Compat,
    /// Anthropic without section deferral: injected tools appended.
    AnthropicAppend,
    /// OpenAI Responses without section deferral: injected tools appended.
    ResponsesAppend,
}

impl Format {
    const ALL: [Format; 7] = [
        Format::Chat,
        Format::Responses,
        Format::Anthropic,
        Format::Litellm,
        Format::Compat,
        Format::AnthropicAppend,
        Format::ResponsesAppend,
    ];

    fn label(self) -> &'static str {
        match self {
            Format::Chat => "openai (chat)",
            Format::Responses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Litellm => "litellm (chat)",
            Format::Compat => "openai-compat",
            Format::AnthropicAppend => "anthropic, no deferral",
            Format::ResponsesAppend => "responses, no deferral",
        }
    }

    fn config(self, base_url: &str) -> AdapterConfig {
        let mut config = match self {
            Format::Chat => AdapterConfig::openai("gpt-4.1"),
            Format::Responses | Format::ResponsesAppend => {
                AdapterConfig::openai_responses("gpt-5.4")
            }
            Format::Anthropic | Format::AnthropicAppend => {
                AdapterConfig::anthropic("claude-sonnet-4-5")
            }
            Format::Litellm => AdapterConfig::litellm("gpt-4.1", WireFormat::OpenAiChat),
            Format::Compat => AdapterConfig::openai_compat("qwen", base_url),
        };
        config.base_url = match self {
            Format::Anthropic | Format::AnthropicAppend => base_url.to_owned(),
            _ => format!("{base_url}/v1"),
        };
        config.section_deferral =
            !matches!(self, Format::AnthropicAppend | Format::ResponsesAppend);
        config.probe_server_props = false;
        config.retry.max_attempts = 1;
        config
    }

    fn native(self) -> bool {
        matches!(self, Format::Responses | Format::Anthropic)
    }

    /// The array that grows with the conversation.
    fn conversation_key(self) -> &'static str {
        if matches!(self, Format::Responses | Format::ResponsesAppend) {
            "input"
        } else {
            "messages"
        }
    }

    fn reply(self, step: usize, turn: &Option<(String, Value)>) -> Reply {
        let id = format!("call_{step}");
        let wire = match self {
            Format::AnthropicAppend => Format::Anthropic,
            Format::ResponsesAppend => Format::Responses,
            other => other,
        };
        let body = match (wire, turn) {
            (Format::Anthropic, Some((name, args))) => {
                json!({"type": "message", "role": "assistant",
                "content": [{"type": "tool_use", "id": id, "name": name, "input": args}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}})
            }
            (Format::Anthropic, None) => json!({"type": "message", "role": "assistant",
                "content": [{"type": "text", "text": "All done."}], "stop_reason": "end_turn"}),
            (Format::Responses, Some((name, args))) => {
                json!({"id": format!("resp_{step}"), "status": "completed",
                "output": [{"type": "function_call", "call_id": id, "name": name, "arguments": args.to_string()}]})
            }
            (Format::Responses, None) => json!({"id": "resp_end", "status": "completed",
                "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "All done."}]}]}),
            (_, Some((name, args))) => {
                json!({"id": format!("chat_{step}"), "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}}]})
            }
            (_, None) => json!({"id": "chat_end", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "All done."}}]}),
        };
        Reply::json(200, body.to_string())
    }
}

async fn run(format: Format) -> Vec<Recorded> {
    let turns = script();
    let replies = turns
        .iter()
        .enumerate()
        .map(|(step, turn)| format.reply(step, turn))
        .collect();
    let server = Loopback::start(replies).await;
    let adapter = HttpAdapter::new(format.config(&server.base_url)).unwrap();
    let config = MainLoopConfig {
        loop_config: LoopConfig {
            supports_dynamic_tools: true,
            user_message: Some("Ship a copy of Dune.".into()),
            ..LoopConfig::default()
        },
        budget: Budget {
            max_model_calls: Some(40),
            ..Budget::default()
        },
        ..MainLoopConfig::default()
    };
    let session = Session::new();
    let result = MainLoop::new(&adapter, config)
        .execute(&Prompt::new(template()), &session, RunHooks::default())
        .await
        .unwrap();
    assert!(
        matches!(&result.outcome, LoopOutcome::Finished { .. }),
        "{}: {:?}",
        format.label(),
        result.outcome
    );
    let requests = server.requests();
    assert_eq!(requests.len(), turns.len(), "{}", format.label());
    requests
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn serialized(value: &Value) -> String {
    serde_json::to_string(value).unwrap()
}

/// Asserts the layout's guarantees; returns the per-pair prefix shares and which pairs injected.
fn check(format: Format, requests: &[Recorded]) -> (Vec<f64>, Vec<usize>) {
    let label = format.label();
    let bodies: Vec<Value> = requests.iter().map(Recorded::json).collect();
    let conversation = format.conversation_key();
    let mut shares = Vec::new();
    let mut injections = Vec::new();
    for (index, pair) in bodies.windows(2).enumerate() {
        let (before, after) = (&pair[0], &pair[1]);
        let (raw_before, raw_after) = (&requests[index].body, &requests[index + 1].body);
        // The conversation only grows.
        let old = before[conversation].as_array().unwrap();
        let new = after[conversation].as_array().unwrap();
        assert!(new.len() > old.len(), "{label} call {index}");
        for (position, item) in old.iter().enumerate() {
            assert_eq!(
                serialized(item),
                serialized(&new[position]),
                "{label}: call {} changed {conversation}[{position}]",
                index + 1
            );
        }
        let tools_before = before["tools"].as_array().unwrap();
        let tools_after = after["tools"].as_array().unwrap();
        let injected = tools_after.len() != tools_before.len();
        if injected {
            injections.push(index + 1);
        }
        if format.native() {
            assert_eq!(
                serialized(&before["tools"]),
                serialized(&after["tools"]),
                "{label}: the tools changed at call {}",
                index + 1
            );
            assert_eq!(before.get("system"), after.get("system"), "{label}");
        } else if format == Format::AnthropicAppend && !injected {
            assert_eq!(
                serialized(&before["tools"]),
                serialized(&after["tools"]),
                "{label}"
            );
        } else {
            assert!(tools_after.len() >= tools_before.len(), "{label}");
            for (position, tool) in tools_before.iter().enumerate() {
                assert_eq!(
                    serialized(tool),
                    serialized(&tools_after[position]),
                    "{label}"
                );
            }
        }
        let prefix = common_prefix(raw_before, raw_after);
        if !injected {
            // Everything but the closing `]}` of the conversation array and the body.
            assert_eq!(
                prefix,
                raw_before.len() - 2,
                "{label}: call {} is not an append",
                index + 1
            );
        }
        shares.push(prefix as f64 / raw_before.len() as f64);
    }
    (shares, injections)
}

fn row(format: Format, requests: &[Recorded], shares: &[f64], injections: &[usize]) -> String {
    let mean = shares.iter().sum::<f64>() / shares.len() as f64;
    let min = shares.iter().copied().fold(f64::INFINITY, f64::min);
    let at_injections: Vec<String> = injections
        .iter()
        .map(|call| format!("{:.1}%", 100.0 * shares[call - 1]))
        .collect();
    let total: usize = requests.iter().map(|request| request.body.len()).sum();
    let reused: f64 = requests
        .windows(2)
        .map(|pair| common_prefix(&pair[0].body, &pair[1].body) as f64)
        .sum();
    let next_total: usize = requests[1..].iter().map(|request| request.body.len()).sum();
    format!(
        "| {:<22} | {:>8} | {:>6.2}% | {:>6.2}% | {:<22} | {:>6.2}% | {:>8} |",
        format.label(),
        requests.len(),
        100.0 * mean,
        100.0 * min,
        if at_injections.is_empty() {
            "none (tools fixed)".to_owned()
        } else {
            at_injections.join(" ")
        },
        100.0 * reused / next_total as f64,
        total
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_format_keeps_the_longest_byte_prefix_over_a_20_call_run_with_3_injections() {
    let mut table = vec![
        "| format                 | requests | mean    | min     | share at injections    | of next | bytes    |".to_owned(),
        "|---|---|---|---|---|---|---|".to_owned(),
    ];
    for format in Format::ALL {
        let requests = run(format).await;
        let (shares, injections) = check(format, &requests);
        if format.native() {
            assert!(injections.is_empty(), "{}", format.label());
        } else {
            assert_eq!(injections, [2, 8, 12], "{}", format.label());
        }
        table.push(row(format, &requests, &shares, &injections));
    }
    println!(
        "share of each request that is a byte-prefix of the next (mean and min over 19 pairs), \
         and of the next request's bytes that the previous one already sent:\n{}",
        table.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_loads_injected_section_tools_with_tool_references() {
    let requests = run(Format::Anthropic).await;
    let last = requests.last().unwrap().json();
    let tools = last["tools"].as_array().unwrap();
    let names: Vec<(&str, bool)> = tools
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                tool.get("defer_loading") == Some(&json!(true)),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("note", false),
            ("read_section", false),
            ("price", true),
            ("stock", true),
            ("order", true),
            ("ship", true),
        ]
    );
    let references: Vec<Vec<String>> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
        .filter(|block| block["type"] == "tool_result")
        .filter_map(|block| block["content"].as_array().cloned())
        .map(|parts| {
            parts
                .iter()
                .filter(|part| part["type"] == "tool_reference")
                .map(|part| part["tool_name"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect();
    assert_eq!(
        references,
        [vec!["stock", "price"], vec!["order"], vec!["ship"]]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_loads_injected_section_tools_with_a_client_tool_search_pair() {
    let requests = run(Format::Responses).await;
    let last = requests.last().unwrap().json();
    let input = last["input"].as_array().unwrap();
    let loads: Vec<(String, Vec<String>)> = input
        .iter()
        .filter(|item| item["type"] == "tool_search_output")
        .map(|item| {
            let call = input
                .iter()
                .find(|other| {
                    other["type"] == "tool_search_call" && other["call_id"] == item["call_id"]
                })
                .unwrap();
            (
                call["arguments"]["section"].as_str().unwrap().to_owned(),
                item["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|tool| tool["name"].as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        loads,
        [
            (
                "inventory".to_owned(),
                vec!["stock".to_owned(), "price".to_owned()]
            ),
            ("orders".to_owned(), vec!["order".to_owned()]),
            ("shipping".to_owned(), vec!["ship".to_owned()]),
        ]
    );
}
