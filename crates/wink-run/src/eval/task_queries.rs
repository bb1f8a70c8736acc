//! Capability queries written by a model for a task set (`wink catalog eval --dataset tasks
//! --model`): one greedy call per task, with the instructions of
//! [`wink_search::model_queries`], and what the calls cost.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;
use wink_agent::{Message, ModelRequest, ProviderAdapter};
use wink_search::TaskSet;
use wink_search::model_queries::{INSTRUCTIONS, MAX_OUTPUT_TOKENS, parse_queries, user_message};

use crate::error::{Result, RunError};

/// What the model that wrote a set's queries cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QueryCost {
    /// The model spec.
    pub model: String,
    /// One per task.
    pub model_calls: usize,
    /// Prompt tokens over the set.
    pub input_tokens: u64,
    /// Completion tokens over the set.
    pub output_tokens: u64,
    /// Wall seconds of the model calls (loading the model not included).
    pub seconds: f64,
    /// Tasks whose answer held no query: they are searched with their text.
    pub fallbacks: usize,
}

impl std::fmt::Display for QueryCost {
    /// One line: the model, its calls, tokens and seconds, and the tasks searched with their
    /// text because the model's answer held no query.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "queries written by {}: {} model calls, {} input and {} output tokens, {:.1} s ({:.2} s per task); {} tasks searched with their text (no query in the answer)",
            self.model,
            self.model_calls,
            self.input_tokens,
            self.output_tokens,
            self.seconds,
            self.seconds / self.model_calls.max(1) as f64,
            self.fallbacks
        )
    }
}

/// Each task's queries by task id (empty when the answer held none), and their cost.
#[derive(Debug, Clone, Default)]
pub struct WrittenQueries {
    /// Task id → its queries.
    pub queries: HashMap<String, Vec<String>>,
    /// What writing them cost.
    pub cost: QueryCost,
}

/// Asks `adapter` (the model `model` names) for the queries of every task of `set`, in order;
/// `progress` gets the number of tasks done and the total after each. A failed model call
/// fails the whole set ([`RunError::Failed`], naming the task): a figure with a silent hole
/// would mislead.
pub fn write_task_queries(
    adapter: &dyn ProviderAdapter,
    model: &str,
    set: &TaskSet,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<WrittenQueries> {
    let runtime = crate::prepared::runtime()?;
    let mut written = WrittenQueries {
        cost: QueryCost {
            model: model.to_owned(),
            ..QueryCost::default()
        },
        ..WrittenQueries::default()
    };
    for task in &set.tasks {
        let request = ModelRequest {
            messages: vec![
                Message::system(INSTRUCTIONS),
                Message::user(user_message(&task.task)),
            ],
            max_output_tokens: Some(MAX_OUTPUT_TOKENS),
            temperature: Some(0.0),
            ..ModelRequest::default()
        };
        let started = Instant::now();
        let turn = runtime
            .block_on(adapter.complete(&request, None))
            .map_err(|e| RunError::failed(format!("task {}: the model failed: {e}", task.id)))?;
        let cost = &mut written.cost;
        cost.seconds += started.elapsed().as_secs_f64();
        cost.model_calls += 1;
        if let Some(usage) = &turn.usage {
            cost.input_tokens += usage.input_tokens;
            cost.output_tokens += usage.output_tokens;
        }
        let queries = parse_queries(turn.text.as_deref().unwrap_or_default());
        if queries.is_empty() {
            cost.fallbacks += 1;
        }
        written.queries.insert(task.id.clone(), queries);
        progress(cost.model_calls, set.tasks.len());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use wink_agent::ScriptedProvider;
    use wink_search::task_eval::{Needed, Task};

    use super::*;

    fn set(ids: &[&str]) -> TaskSet {
        TaskSet {
            path: "tasks.jsonl".into(),
            tasks: ids
                .iter()
                .map(|id| Task {
                    id: (*id).into(),
                    task: format!("Task {id}."),
                    tools: vec![Needed::One("x".into())],
                    split: None,
                })
                .collect(),
            lines: Vec::new(),
        }
    }

    #[test]
    fn the_cost_is_one_line() {
        let cost = QueryCost {
            model: "local".into(),
            model_calls: 4,
            input_tokens: 1_000,
            output_tokens: 80,
            seconds: 10.0,
            fallbacks: 1,
        };
        assert_eq!(
            cost.to_string(),
            "queries written by local: 4 model calls, 1000 input and 80 output tokens, 10.0 s (2.50 s per task); 1 tasks searched with their text (no query in the answer)"
        );
    }

    #[test]
    fn every_task_gets_one_greedy_call_and_the_cost_adds_up() {
        let model = ScriptedProvider::from_json(
            r#"[{"text": "1. Read a file.\n2. send an email", "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0}},
                {"text": "Sure, here they are:", "usage": {"input_tokens": 90, "output_tokens": 2, "cached_tokens": 0}}]"#,
            "script",
        )
        .unwrap();
        let mut seen = Vec::new();
        let written =
            write_task_queries(&model, "scripted:q.json", &set(&["a", "b"]), &mut |d, t| {
                seen.push((d, t));
            })
            .unwrap();
        assert_eq!(written.queries["a"], ["read a file", "send an email"]);
        assert!(written.queries["b"].is_empty());
        assert_eq!(
            written.cost,
            QueryCost {
                model: "scripted:q.json".into(),
                model_calls: 2,
                input_tokens: 190,
                output_tokens: 12,
                seconds: written.cost.seconds,
                fallbacks: 1,
            }
        );
        assert_eq!(seen, [(1, 2), (2, 2)]);
        let request = &model.requests()[0];
        assert_eq!(request.temperature, Some(0.0));
        assert_eq!(request.max_output_tokens, Some(MAX_OUTPUT_TOKENS));
        assert_eq!(
            serde_json::to_value(&request.messages).unwrap(),
            serde_json::to_value([
                Message::system(INSTRUCTIONS),
                Message::user("Request: Task a.")
            ])
            .unwrap()
        );
    }

    #[test]
    fn a_failed_call_fails_the_set_naming_the_task() {
        let model = ScriptedProvider::from_json(r#"[{"text": "read a file"}]"#, "script").unwrap();
        let error =
            write_task_queries(&model, "scripted", &set(&["a", "b"]), &mut |_, _| {}).unwrap_err();
        assert!(
            error.to_string().starts_with("task b: the model failed: "),
            "{error}"
        );
        assert!(!error.is_usage());
    }
}
