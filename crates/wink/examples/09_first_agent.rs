//! A first agent with nothing but the `wink` facade: an order desk whose order tool sits in a
//! summarized section. The model reads the section (which makes `lookup_order` callable), looks
//! the order up and answers; the run's budget caps it at 8 model calls.
//!
//! Run: `cargo run -p wink --example 09_first_agent [SCRIPT.json]` (default script:
//! `examples/09_first_agent/script.json`, replayed by the scripted provider: no network, no
//! model). With a real model, build the adapter instead with
//! `adapter_from_spec("openai:gpt-4.1", &AdapterOptions::default())?` (inside a Tokio runtime).
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::path::Path;
use std::sync::Arc;

use wink::prelude::*;

pub(crate) const DEFAULT_SCRIPT: &str =
    include_str!("../../../examples/09_first_agent/script.json");

/// The task's params: what the customer asked.
#[derive(Serialize, Deserialize, JsonSchema, Clone)]
struct Request {
    /// The customer's question.
    question: String,
}

/// `lookup_order`'s parameters.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Lookup {
    /// The order id, e.g. A-1042.
    order_id: String,
}

/// The order desk: a task, a summarized section holding the order tool, a style section.
fn template() -> Result<PromptTemplate, PromptError> {
    let lookup_order = ToolBuilder::<Lookup, String>::new(
        "lookup_order",
        "Look up an order by its id and return its status and delivery date.",
    )
    .handler(
        |p: Lookup, _ctx: &mut ToolContext| match p.order_id.as_str() {
            "A-1042" => Ok(ToolResult::ok(
                "Order A-1042: shipped.",
                "shipped; estimated delivery 2026-11-25 (PostNord)".to_owned(),
            )),
            other => Ok(ToolResult::failure(format!("No order {other}."))),
        },
    )
    .build()?;
    PromptTemplate::builder("examples", "first-agent")
        .section(
            MarkdownSection::new(
                "Task",
                "task",
                "You are the order desk of a small shop. A customer asks: \"${question}\" \
                 Answer in one sentence.",
            )
            .params::<Request>(),
        )
        .section(
            MarkdownSection::new(
                "Order Tools",
                "orders",
                "Call `lookup_order` with the order id exactly as the customer wrote it.",
            )
            .summary("The order system: look orders up by id.")
            .summarized()
            .tool(lookup_order),
        )
        .section(MarkdownSection::new(
            "Style",
            "style",
            "Be brief. Never invent order details: use what the tools return.",
        ))
        .build()
}

/// Runs the order desk on `model`; returns the answer and the run's figures.
pub(crate) fn run(model: Arc<dyn ProviderAdapter>) -> Result<(String, RunResult), Box<dyn Error>> {
    let prompt = Prompt::new(template()?).bind(Request {
        question: "Where is my order A-1042?".into(),
    });
    let agent = Agent::new(model).with_budget(Budget {
        max_model_calls: Some(8),
        ..Budget::default()
    });
    let result = block_on(agent.run(&prompt))?;
    let answer = result
        .text()
        .ok_or_else(|| {
            format!(
                "the run ended without an answer: {}",
                result.outcome.summary()
            )
        })?
        .to_owned();
    Ok((answer, result))
}

fn main() -> Result<(), Box<dyn Error>> {
    let model = match std::env::args().nth(1) {
        Some(path) => ScriptedProvider::from_file(Path::new(&path))?,
        None => ScriptedProvider::from_json(DEFAULT_SCRIPT, "09_first_agent/script.json")?,
    };
    let (answer, result) = run(Arc::new(model))?;
    println!(
        "{} model calls, {} tool calls, {} restarts",
        result.spent.model_calls, result.spent.tool_calls, result.restarts
    );
    println!("{answer}");
    Ok(())
}
