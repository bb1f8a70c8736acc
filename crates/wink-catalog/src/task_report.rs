//! How well `find_tool` serves whole tasks: each task of a [`TaskSet`] searched as a model would
//! (its text, split into steps), judged on the first [`TASK_EVAL_LIMIT`] tools.

use serde::Serialize;
use serde_json::{Value, json};
use wink_search::task_eval::{Task, TaskJudgement, TaskMetrics};
use wink_search::{TaskInput, TaskSet};

use crate::catalog::Catalog;

/// How many tools each task's search returns in the evaluation (recall@10 needs ten).
pub const TASK_EVAL_LIMIT: usize = 10;

/// One task's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskRow {
    /// The task's id.
    pub id: String,
    /// Its part of the set, if the set is split.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// The steps the search saw.
    pub steps: Vec<String>,
    /// Recall in the first 5.
    #[serde(rename = "recall@5")]
    pub recall_at_5: f64,
    /// Recall in the first 10.
    #[serde(rename = "recall@10")]
    pub recall_at_10: f64,
    /// Every needed tool in the first 10.
    #[serde(rename = "all_needed@10")]
    pub all_needed_at_10: bool,
    /// How many tools the list held.
    pub list_length: usize,
    /// The needed tools not in the first 10 (the first name of a group of alternatives).
    pub missing: Vec<String>,
    /// The list, best first.
    pub found: Vec<String>,
}

/// Metrics of one part of a split set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitMetrics {
    /// The split's name (`dev`, `held-out`).
    pub split: String,
    /// Its averages.
    #[serde(flatten)]
    pub metrics: TaskMetrics,
}

/// The evaluation of a task set over a catalog.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskReport {
    /// Tools in the catalog.
    pub tools: usize,
    /// Averages over every task.
    pub overall: TaskMetrics,
    /// Averages per split, in order of first appearance (empty for an unsplit set).
    pub splits: Vec<SplitMetrics>,
    /// Every task, in file order.
    pub tasks: Vec<TaskRow>,
}

impl TaskReport {
    /// The report as a table (what `wink catalog eval --dataset tasks` prints): a row per
    /// task, then the averages overall and per split. `ranker` names how the lists were ranked.
    pub fn text(&self, ranker: &str) -> String {
        let mut lines = vec![
            format!(
                "{} tasks over {} tools ({ranker}), judged on the first {} tools of each list",
                self.overall.tasks,
                self.tools,
                crate::TASK_EVAL_LIMIT
            ),
            "id        split     recall@5 recall@10 all@10 len steps missing".to_owned(),
        ];
        for row in &self.tasks {
            lines.push(format!(
                "{:<9} {:<9} {:>8.2} {:>9.2} {:>6} {:>3} {:>5} {}",
                row.id,
                row.split.as_deref().unwrap_or("-"),
                row.recall_at_5,
                row.recall_at_10,
                if row.all_needed_at_10 { "yes" } else { "no" },
                row.list_length,
                row.steps.len(),
                if row.missing.is_empty() {
                    "-".to_owned()
                } else {
                    row.missing.join(", ")
                }
            ));
        }
        lines.push(String::new());
        lines.push(summary_line("overall", &self.overall));
        for split in &self.splits {
            lines.push(summary_line(&split.split, &split.metrics));
        }
        lines.join("\n")
    }

    /// The report as one JSON object: the averages, `splits`, then `query_model` when given
    /// (what writing the queries cost) and `per_task`.
    pub fn to_json(&self, ranker: &str, query_model: Option<Value>) -> Value {
        let mut out = json!({"dataset": "tasks", "tools": self.tools, "ranker": ranker});
        if let (Some(map), Ok(Value::Object(overall))) =
            (out.as_object_mut(), serde_json::to_value(self.overall))
        {
            map.extend(overall);
            map.insert(
                "splits".into(),
                serde_json::to_value(&self.splits).unwrap_or(Value::Null),
            );
            if let Some(cost) = query_model {
                map.insert("query_model".into(), cost);
            }
            map.insert(
                "per_task".into(),
                serde_json::to_value(&self.tasks).unwrap_or(Value::Null),
            );
        }
        out
    }

    /// Searches every task of `set` in `catalog` and judges the lists.
    pub fn evaluate(catalog: &Catalog, set: &TaskSet) -> Self {
        Self::evaluate_with(catalog, set, |_| None)
    }

    /// [`TaskReport::evaluate`] where `queries` may give a task's steps as capability queries
    /// (written by a model, see [`wink_search::model_queries`]): a task with some is searched
    /// with them in place of the splitter's steps ([`TaskInput::Steps`]: the text still ranks
    /// as a whole and as each step's context), one without (`None` or an empty list) with its
    /// text alone.
    pub fn evaluate_with(
        catalog: &Catalog,
        set: &TaskSet,
        mut queries: impl FnMut(&Task) -> Option<Vec<String>>,
    ) -> Self {
        let mut judgements = Vec::with_capacity(set.tasks.len());
        let mut tasks = Vec::with_capacity(set.tasks.len());
        for task in &set.tasks {
            let written = queries(task).filter(|queries| !queries.is_empty());
            let input = match &written {
                Some(queries) => TaskInput::Steps {
                    text: &task.task,
                    steps: queries,
                },
                None => TaskInput::Text(&task.task),
            };
            let found = catalog.find_task(input, TASK_EVAL_LIMIT);
            let names: Vec<String> = found
                .hits
                .iter()
                .map(|hit| catalog.entries()[hit.entry].name().to_owned())
                .collect();
            let judgement = TaskJudgement::judge(task, &names);
            let missing = task
                .tools
                .iter()
                .zip(&judgement.ranks)
                .filter(|(_, rank)| rank.is_none_or(|rank| rank > TASK_EVAL_LIMIT))
                .filter_map(|(needed, _)| needed.names().first().cloned())
                .collect();
            tasks.push(TaskRow {
                id: task.id.clone(),
                split: task.split.clone(),
                steps: found.steps,
                recall_at_5: judgement.recall_at(5),
                recall_at_10: judgement.recall_at(10),
                all_needed_at_10: judgement.all_needed_at(10),
                list_length: judgement.list_length,
                missing,
                found: names,
            });
            judgements.push(judgement);
        }
        let splits = set
            .splits()
            .into_iter()
            .map(|split| SplitMetrics {
                split: split.to_owned(),
                metrics: TaskMetrics::from_judgements(
                    set.tasks
                        .iter()
                        .zip(&judgements)
                        .filter(|(task, _)| task.split.as_deref() == Some(split))
                        .map(|(_, judgement)| judgement),
                ),
            })
            .collect();
        Self {
            tools: catalog.len(),
            overall: TaskMetrics::from_judgements(&judgements),
            splits,
            tasks,
        }
    }
}

/// One line of averages in [`TaskReport::text`].
fn summary_line(label: &str, metrics: &TaskMetrics) -> String {
    format!(
        "{label:<9} {} tasks: recall@5 {:.3}  recall@10 {:.3}  all-needed@10 {:.3}  mean list length {:.1}",
        metrics.tasks,
        metrics.recall_at_5,
        metrics.recall_at_10,
        metrics.all_needed_at_10,
        metrics.mean_list_length
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolRecord;
    use wink_search::task_eval::Needed;

    #[test]
    fn tasks_are_judged_on_the_catalog_search() {
        let catalog = Catalog::builder()
            .records([
                ToolRecord::new("weather.now", "Current weather for a city."),
                ToolRecord::new("money.convert", "Convert an amount between currencies."),
                ToolRecord::new("files.write", "Write text to a file."),
            ])
            .build()
            .unwrap();
        let task = |id: &str, text: &str, tools: &[&str], split: &str| Task {
            id: id.into(),
            task: text.into(),
            tools: tools.iter().map(|t| Needed::One((*t).into())).collect(),
            split: Some(split.into()),
        };
        let set = TaskSet {
            path: "tasks.jsonl".into(),
            tasks: vec![
                task(
                    "a",
                    "What's the weather in Rome, then convert 10 euros into dollars.",
                    &["weather.now", "money.convert"],
                    "dev",
                ),
                task(
                    "b",
                    "Write it down.",
                    &["files.write", "weather.now"],
                    "held-out",
                ),
            ],
            lines: vec![1, 2],
        };
        let report = TaskReport::evaluate(&catalog, &set);
        assert_eq!(report.tools, 3);
        assert_eq!(report.tasks[0].steps.len(), 2);
        assert_eq!(report.tasks[0].recall_at_10, 1.0);
        assert!(report.tasks[0].all_needed_at_10);
        assert_eq!(report.tasks[1].found, ["files.write"]);
        assert_eq!(report.tasks[1].missing, ["weather.now"]);
        assert_eq!(report.overall.recall_at_10, 0.75);
        assert_eq!(report.overall.all_needed_at_10, 0.5);
        let splits: Vec<(&str, f64)> = report
            .splits
            .iter()
            .map(|s| (s.split.as_str(), s.metrics.recall_at_10))
            .collect();
        assert_eq!(splits, [("dev", 1.0), ("held-out", 0.5)]);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["splits"][1]["split"], "held-out");
        assert_eq!(json["splits"][1]["recall@10"], 0.5);
        assert_eq!(json["tasks"][1]["all_needed@10"], false);
        let text = report.text("bm25");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "2 tasks over 3 tools (bm25), judged on the first 10 tools of each list"
        );
        assert_eq!(
            lines[3],
            "b         held-out      0.50      0.50     no   1     1 weather.now"
        );
        assert_eq!(
            lines[lines.len() - 1],
            "held-out  1 tasks: recall@5 0.500  recall@10 0.500  all-needed@10 0.000  mean list length 1.0"
        );
        let json = report.to_json("bm25", Some(serde_json::json!({"model": "local"})));
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys[..3], ["dataset", "tools", "ranker"]);
        assert_eq!(
            keys[keys.len() - 3..],
            ["splits", "query_model", "per_task"]
        );
    }

    #[test]
    fn a_task_with_written_queries_is_searched_with_them_and_one_without_with_its_text() {
        let catalog = Catalog::builder()
            .records([
                ToolRecord::new("weather.now", "Current weather for a city."),
                ToolRecord::new("files.write", "Write text to a file."),
            ])
            .build()
            .unwrap();
        let task = |id: &str| Task {
            id: id.into(),
            task: "Write it down.".into(),
            tools: vec![
                Needed::One("files.write".into()),
                Needed::One("weather.now".into()),
            ],
            split: None,
        };
        let set = TaskSet {
            path: "tasks.jsonl".into(),
            tasks: vec![task("written"), task("empty"), task("none")],
            lines: vec![1, 2, 3],
        };
        let report = TaskReport::evaluate_with(&catalog, &set, |task| match task.id.as_str() {
            "written" => Some(vec!["weather in a city".into(), "write a file".into()]),
            "empty" => Some(Vec::new()),
            _ => None,
        });
        assert_eq!(report.tasks[0].steps, ["weather in a city", "write a file"]);
        // The text's own list first ("Write it down."), then each written step's.
        assert_eq!(report.tasks[0].found, ["files.write", "weather.now"]);
        assert!(report.tasks[0].all_needed_at_10);
        for row in &report.tasks[1..] {
            assert_eq!(row.steps, ["Write it down"]);
            assert_eq!(row.found, ["files.write"]);
        }
    }
}
