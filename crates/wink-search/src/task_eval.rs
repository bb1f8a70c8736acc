//! Task-level retrieval quality: how much of what a whole multi-step task needs one search
//! returns.
//!
//! A [`Task`] is a user request with the tools it needs. A needed tool may have interchangeable
//! alternatives (`filesystem.write_file` or `desktop-commander.write_file`): it counts as found
//! when any of them is. Per task, given the list a search returned (best first):
//!
//! * **recall@k** = needed tools found in the first k / needed tools;
//! * **all-needed@10** = 1 when every needed tool is in the first 10, else 0;
//! * **list length** = how many tools the search returned (it may stop before the limit).
//!
//! [`TaskMetrics`] averages them over tasks.

use serde::{Deserialize, Serialize};

/// One tool a task needs: a name, or several interchangeable names (any one serves).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Needed {
    /// Exactly this tool.
    One(String),
    /// Any of these tools.
    AnyOf(Vec<String>),
}

impl Needed {
    /// The names that satisfy this need.
    pub fn names(&self) -> &[String] {
        match self {
            Self::One(name) => std::slice::from_ref(name),
            Self::AnyOf(names) => names,
        }
    }

    /// True when `name` satisfies this need.
    pub fn accepts(&self, name: &str) -> bool {
        self.names().iter().any(|candidate| candidate == name)
    }
}

/// A labelled task: `{"id", "task", "tools": [name or [alternatives], …], "split"?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// A stable identifier.
    pub id: String,
    /// The request as a user writes it.
    pub task: String,
    /// The tools the task needs.
    pub tools: Vec<Needed>,
    /// Which part of the set the task belongs to (`dev`, `held-out`), when the set is split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
}

/// How one task fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskJudgement {
    /// The task's id.
    pub id: String,
    /// For each needed tool, the 1-based rank of its first accepted name in the list, if any.
    pub ranks: Vec<Option<usize>>,
    /// How many tools the list held.
    pub list_length: usize,
}

impl TaskJudgement {
    /// Judges `list` (tool names, best first) against what `task` needs.
    pub fn judge<S: AsRef<str>>(task: &Task, list: &[S]) -> Self {
        let ranks = task
            .tools
            .iter()
            .map(|needed| {
                list.iter()
                    .position(|name| needed.accepts(name.as_ref()))
                    .map(|position| position + 1)
            })
            .collect();
        Self {
            id: task.id.clone(),
            ranks,
            list_length: list.len(),
        }
    }

    /// Needed tools found in the first `k` / needed tools (0 for a task that needs nothing).
    pub fn recall_at(&self, k: usize) -> f64 {
        if self.ranks.is_empty() {
            return 0.0;
        }
        self.found_within(k) as f64 / self.ranks.len() as f64
    }

    /// True when every needed tool is in the first `k`.
    pub fn all_needed_at(&self, k: usize) -> bool {
        !self.ranks.is_empty() && self.found_within(k) == self.ranks.len()
    }

    fn found_within(&self, k: usize) -> usize {
        self.ranks
            .iter()
            .filter(|rank| rank.is_some_and(|rank| rank <= k))
            .count()
    }
}

/// Task-level metrics averaged over tasks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TaskMetrics {
    /// Mean recall in the first 5.
    #[serde(rename = "recall@5")]
    pub recall_at_5: f64,
    /// Mean recall in the first 10.
    #[serde(rename = "recall@10")]
    pub recall_at_10: f64,
    /// Share of tasks with every needed tool in the first 10.
    #[serde(rename = "all_needed@10")]
    pub all_needed_at_10: f64,
    /// Mean number of tools a list held.
    pub mean_list_length: f64,
    /// Number of tasks averaged.
    pub tasks: usize,
}

impl TaskMetrics {
    /// Averages `judgements` (all zeros when there are none).
    pub fn from_judgements<'a>(judgements: impl IntoIterator<Item = &'a TaskJudgement>) -> Self {
        let judgements: Vec<&TaskJudgement> = judgements.into_iter().collect();
        let count = judgements.len();
        let mean = |metric: &dyn Fn(&TaskJudgement) -> f64| {
            if count == 0 {
                0.0
            } else {
                judgements.iter().map(|j| metric(j)).sum::<f64>() / count as f64
            }
        };
        Self {
            recall_at_5: mean(&|j| j.recall_at(5)),
            recall_at_10: mean(&|j| j.recall_at(10)),
            all_needed_at_10: mean(&|j| f64::from(u8::from(j.all_needed_at(10)))),
            mean_list_length: mean(&|j| j.list_length as f64),
            tasks: count,
        }
    }
}

/// Judges every task with `search`, which returns the tool names it found for a task (best
/// first).
pub fn judge_tasks<S: AsRef<str>>(
    tasks: &[Task],
    mut search: impl FnMut(&Task) -> Vec<S>,
) -> Vec<TaskJudgement> {
    tasks
        .iter()
        .map(|task| TaskJudgement::judge(task, &search(task)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(tools: Vec<Needed>) -> Task {
        Task {
            id: "t".into(),
            task: "x".into(),
            tools,
            split: None,
        }
    }

    #[test]
    fn alternatives_count_once_at_their_best_rank() {
        let task = task(vec![
            Needed::One("a".into()),
            Needed::AnyOf(vec!["b1".into(), "b2".into()]),
            Needed::One("c".into()),
        ]);
        let list = ["x", "b2", "a", "y", "z", "b1", "w", "v", "u", "t", "c"];
        let judgement = TaskJudgement::judge(&task, &list);
        assert_eq!(judgement.ranks, [Some(3), Some(2), Some(11)]);
        assert_eq!(judgement.list_length, 11);
        assert_eq!(judgement.recall_at(5), 2.0 / 3.0);
        assert_eq!(judgement.recall_at(10), 2.0 / 3.0);
        assert_eq!(judgement.recall_at(11), 1.0);
        assert!(!judgement.all_needed_at(10));
        assert!(judgement.all_needed_at(11));
    }

    #[test]
    fn metrics_average_over_tasks() {
        let both = task(vec![Needed::One("a".into()), Needed::One("b".into())]);
        let judgements = [
            TaskJudgement::judge(&both, &["a", "b"]),
            TaskJudgement::judge(&both, &["a", "q", "r", "s", "t", "b"]),
            TaskJudgement::judge(&both, &[] as &[&str]),
        ];
        let metrics = TaskMetrics::from_judgements(&judgements);
        assert_eq!(metrics.tasks, 3);
        assert_eq!(metrics.recall_at_5, (1.0 + 0.5 + 0.0) / 3.0);
        assert_eq!(metrics.recall_at_10, (1.0 + 1.0 + 0.0) / 3.0);
        assert_eq!(metrics.all_needed_at_10, 2.0 / 3.0);
        assert_eq!(metrics.mean_list_length, 8.0 / 3.0);
        assert_eq!(TaskMetrics::from_judgements(&[]).tasks, 0);
        let none = task(Vec::new());
        let judgement = TaskJudgement::judge(&none, &["a"]);
        assert_eq!(judgement.recall_at(10), 0.0);
        assert!(!judgement.all_needed_at(10));
    }

    #[test]
    fn needed_tools_read_as_names_or_lists() {
        let task: Task = serde_json::from_str(
            r#"{"id": "t1", "task": "do it", "tools": ["a", ["b", "c"]], "split": "dev"}"#,
        )
        .unwrap();
        assert_eq!(
            task.tools,
            [
                Needed::One("a".into()),
                Needed::AnyOf(vec!["b".into(), "c".into()])
            ]
        );
        assert_eq!(task.split.as_deref(), Some("dev"));
    }
}
