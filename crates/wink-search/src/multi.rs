//! Multi-intent search: one list that covers every step of a task.
//!
//! A task is split into steps ([`crate::split_task`]), or the caller names them
//! ([`TaskInput::Queries`]). Each step is ranked on its own words plus the whole task's words at
//! [`TaskConfig::context_weight`] (so "show me the details of the first one" still knows which
//! server the task is about); a split text is also ranked as a whole. The lists are then merged:
//! first the whole text's best tool and every step's best tool not yet listed, so the list covers
//! each step; then every other tool the lists hold, by reciprocal-rank fusion (a tool scores
//! `1 / (60 + rank)` in each list that holds it, summed: a tool that both the whole text and a
//! step rank high comes first). A list offers a tool only while it scores at least
//! [`TaskConfig::floor`] of the list's best. Each tool serves the step whose query scores it
//! highest, and a step offers only tools it serves (the task's words in every step's query would
//! otherwise let one step take another's tools). A text with one step is ranked as a whole,
//! exactly as a plain search.

use serde::{Deserialize, Serialize};

use crate::index::{SearchHit, WeightedQuery};
use crate::split::split_task;

/// What to search for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskInput<'a> {
    /// A request in the user's words: split into steps.
    Text(&'a str),
    /// Capabilities named one by one (a model's `find_tool(queries)`): each is a step, ranked on
    /// its own words.
    Queries(&'a [String]),
    /// A request with its steps written by someone else (a model asked to split it, see
    /// [`crate::model_queries`]): ranked as a split [`TaskInput::Text`] is — the text as a whole
    /// and each step with the text's words as context — with these steps instead of the
    /// splitter's. Without a non-empty step it is the text alone.
    Steps {
        /// The request as the user wrote it.
        text: &'a str,
        /// Its steps.
        steps: &'a [String],
    },
}

/// How steps are ranked and merged.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TaskConfig {
    /// Weight of the whole task's words when a step of a split text is ranked (its own words
    /// weigh 1).
    pub context_weight: f32,
    /// A step offers a further tool only while it scores at least this share of the step's
    /// best (0 lists everything a step matches).
    pub floor: f32,
}

impl Default for TaskConfig {
    /// The values chosen on the development half of the task set (see the crate README).
    fn default() -> Self {
        Self {
            context_weight: 0.5,
            floor: 0.0,
        }
    }
}

/// A tool found for a task, with the step it serves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskHit {
    /// The tool.
    pub hit: SearchHit,
    /// Position of the step in [`TaskResult::steps`].
    pub step: usize,
}

/// The merged list for a task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskResult {
    /// The steps, in task order (one for a single request).
    pub steps: Vec<String>,
    /// Tools, best first within each round of the merge.
    pub hits: Vec<TaskHit>,
}

impl TaskResult {
    /// The tool names, in list order.
    pub fn names(&self) -> Vec<&str> {
        self.hits.iter().map(|hit| hit.hit.name.as_str()).collect()
    }
}

/// Ranks `input` with `rank` (a query and a limit → hits, best first) and merges the steps'
/// lists into at most `limit` tools (see the module docs).
pub fn search_task(
    input: TaskInput<'_>,
    limit: usize,
    config: &TaskConfig,
    rank: impl Fn(&WeightedQuery<'_>, usize) -> Vec<SearchHit>,
) -> TaskResult {
    let (steps, context): (Vec<String>, Option<&str>) = match input {
        TaskInput::Text(text) => {
            let steps: Vec<String> = split_task(text).into_iter().map(|s| s.text).collect();
            if steps.len() <= 1 {
                let hits = rank(&WeightedQuery::text(text), limit)
                    .into_iter()
                    .map(|hit| TaskHit { hit, step: 0 })
                    .collect();
                let step = steps.into_iter().next().unwrap_or_else(|| text.to_owned());
                return TaskResult {
                    steps: vec![step],
                    hits,
                };
            }
            (steps, Some(text))
        }
        TaskInput::Queries(queries) => (non_empty(queries), None),
        TaskInput::Steps { text, steps } => {
            let steps = non_empty(steps);
            if steps.is_empty() {
                return search_task(TaskInput::Text(text), limit, config, rank);
            }
            (steps, Some(text))
        }
    };
    let mut lists: Vec<Vec<SearchHit>> = Vec::with_capacity(steps.len() + 1);
    if let Some(text) = context {
        lists.push(rank(&WeightedQuery::text(text), limit));
    }
    let whole_lists = lists.len();
    lists.extend(steps.iter().map(|step| {
        let mut parts = vec![(step.as_str(), 1.0)];
        if let Some(text) = context
            && config.context_weight > 0.0
        {
            parts.push((text, config.context_weight));
        }
        let query = WeightedQuery {
            parts,
            namespace_boosts: None,
        };
        rank(&query, limit)
    }));
    let step_lists = &lists[whole_lists..];
    let owner = |index: usize| best_step(step_lists, index);
    let mut hits = merge(&lists, limit, config.floor, |list, index| {
        list < whole_lists || owner(index) == list - whole_lists
    });
    for hit in &mut hits {
        hit.step = owner(hit.hit.index);
    }
    TaskResult { hits, steps }
}

/// The trimmed, non-empty ones of `texts`.
fn non_empty(texts: &[String]) -> Vec<String> {
    texts
        .iter()
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
        .collect()
}

/// The step whose query scores document `index` highest (ties and unlisted documents: the
/// first step). Every step's query holds the same task words, so the step whose own words match
/// the tool best wins.
fn best_step(step_lists: &[Vec<SearchHit>], index: usize) -> usize {
    let mut best: Option<(f32, usize)> = None;
    for (step, list) in step_lists.iter().enumerate() {
        if let Some(hit) = list.iter().find(|hit| hit.index == index)
            && best.is_none_or(|(score, _)| hit.score > score)
        {
            best = Some((hit.score, step));
        }
    }
    best.map_or(0, |(_, step)| step)
}

/// The constant of reciprocal-rank fusion: a tool at rank `r` (1-based) of a list scores
/// `1 / (RRF_K + r)` there. 60 is the value of the method's authors (Cormack, Clarke and
/// Büttcher, SIGIR 2009), used as they give it.
const RRF_K: f32 = 60.0;

/// Merges lists (see the module docs), list `l` offering only the documents `offers(l,
/// document)` allows and, below `floor` of its best score, none; a hit's `step` is the position
/// of the list it came from (the first list that holds it, after the first round).
fn merge(
    lists: &[Vec<SearchHit>],
    limit: usize,
    floor: f32,
    offers: impl Fn(usize, usize) -> bool,
) -> Vec<TaskHit> {
    let mut merged: Vec<TaskHit> = Vec::new();
    let listed = |merged: &[TaskHit], index: usize| merged.iter().any(|m| m.hit.index == index);
    for (step, list) in lists.iter().enumerate() {
        if merged.len() == limit {
            return merged;
        }
        let first = above_floor(list, floor)
            .find(|(_, hit)| offers(step, hit.index) && !listed(&merged, hit.index));
        if let Some((_, hit)) = first {
            merged.push(TaskHit {
                hit: hit.clone(),
                step,
            });
        }
    }
    // (fused score, the first list that holds it, the hit), in the order first met (the sort is
    // stable: ties keep it).
    let mut fused: Vec<(f32, usize, &SearchHit)> = Vec::new();
    for (step, list) in lists.iter().enumerate() {
        for (rank, hit) in above_floor(list, floor) {
            if !offers(step, hit.index) {
                continue;
            }
            let score = 1.0 / (RRF_K + rank as f32 + 1.0);
            match fused.iter_mut().find(|(_, _, h)| h.index == hit.index) {
                Some(entry) => entry.0 += score,
                None => fused.push((score, step, hit)),
            }
        }
    }
    fused.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (_, step, hit) in fused {
        if merged.len() == limit {
            break;
        }
        if !listed(&merged, hit.index) {
            merged.push(TaskHit {
                hit: hit.clone(),
                step,
            });
        }
    }
    merged
}

/// `list`'s hits (0-based rank, hit) until the first that scores under `floor` of the list's
/// best and is not named exactly.
fn above_floor(list: &[SearchHit], floor: f32) -> impl Iterator<Item = (usize, &SearchHit)> {
    let best = list.first().map_or(0.0, |hit| hit.score);
    list.iter()
        .enumerate()
        .take_while(move |(_, hit)| hit.exact_name || hit.score >= floor * best)
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    fn hit(index: usize, score: f32) -> SearchHit {
        SearchHit {
            index,
            name: format!("t{index}"),
            score,
            exact_name: false,
        }
    }

    #[test]
    fn merge_covers_each_list_before_a_second_tool_and_skips_repeats() {
        let lists = vec![
            vec![hit(1, 9.0), hit(2, 8.0), hit(3, 1.0)],
            vec![hit(1, 5.0), hit(4, 4.0)],
            vec![hit(5, 2.0)],
        ];
        let names = |hits: &[TaskHit]| -> Vec<(String, usize)> {
            hits.iter().map(|h| (h.hit.name.clone(), h.step)).collect()
        };
        assert_eq!(
            names(&merge(&lists, 10, 0.0, |_, _| true)),
            [
                ("t1".into(), 0),
                ("t4".into(), 1),
                ("t5".into(), 2),
                ("t2".into(), 0),
                ("t3".into(), 0)
            ]
        );
        assert_eq!(merge(&lists, 2, 0.0, |_, _| true).len(), 2);
        // With a floor of .5, t3 (1/9 of its step's best) is not offered.
        assert_eq!(merge(&lists, 10, 0.5, |_, _| true).len(), 4);
        // A list that may not offer t4 leaves it out.
        assert_eq!(merge(&lists, 10, 0.0, |_, index| index != 4).len(), 4);
        assert_eq!(best_step(&lists[1..], 4), 0);
        // t1 scores 9 in the first list, 5 in the second.
        assert_eq!(best_step(&lists, 1), 0);
        assert_eq!(best_step(&lists[1..], 1), 0);
        assert_eq!(best_step(&[lists[1].clone(), lists[0].clone()], 1), 1);
        assert_eq!(best_step(&lists, 5), 2);
        assert_eq!(best_step(&lists, 9), 0);
    }

    #[test]
    fn after_the_first_round_tools_several_lists_rank_high_come_first() {
        let lists = vec![
            vec![hit(1, 9.0), hit(2, 8.0), hit(3, 7.0), hit(4, 6.0)],
            vec![hit(5, 5.0), hit(4, 4.0), hit(6, 3.0)],
            vec![hit(7, 2.0), hit(6, 1.0)],
        ];
        let merged = merge(&lists, 10, 0.0, |_, _| true);
        let names: Vec<&str> = merged.iter().map(|h| h.hit.name.as_str()).collect();
        // Round one: each list's best. Then t6 (2nd in two lists: 2/62) and t4 (4th and 2nd:
        // 1/64 + 1/62) before t2 (2nd in one list) and t3 (3rd in one).
        assert_eq!(names, ["t1", "t5", "t7", "t6", "t4", "t2", "t3"]);
        assert_eq!(
            merged.iter().map(|h| h.step).collect::<Vec<_>>(),
            [0, 1, 2, 1, 0, 0, 0]
        );
        assert_eq!(merge(&lists, 4, 0.0, |_, _| true).len(), 4);
        // The floor cuts a list where its scores fall under the share of its best: t6 is in no
        // list any more, t4 only in the second (2nd: 1/62, a tie with t2, met first).
        let floored = merge(&lists, 10, 0.75, |_, _| true);
        let names: Vec<&str> = floored.iter().map(|h| h.hit.name.as_str()).collect();
        assert_eq!(names, ["t1", "t5", "t7", "t2", "t4", "t3"]);
    }

    /// A ranker that records each query as `text@weight|…` in `seen` and answers with one hit
    /// numbered by how many queries it has seen.
    fn recording(
        seen: &RefCell<Vec<String>>,
    ) -> impl Fn(&WeightedQuery<'_>, usize) -> Vec<SearchHit> + Copy + '_ {
        move |query, _limit| {
            seen.borrow_mut().push(
                query
                    .parts
                    .iter()
                    .map(|(text, weight)| format!("{text}@{weight}"))
                    .collect::<Vec<_>>()
                    .join("|"),
            );
            vec![hit(seen.borrow().len(), 1.0)]
        }
    }

    #[test]
    fn one_step_is_ranked_whole_and_steps_see_the_task() {
        let seen = RefCell::new(Vec::new());
        let rank = recording(&seen);
        let config = TaskConfig::default();
        let single = search_task(TaskInput::Text("What's the weather?"), 5, &config, rank);
        assert_eq!(single.steps, ["What's the weather"]);
        assert_eq!(single.names(), ["t1"]);
        let task = "Find the file, then open it.";
        let result = search_task(TaskInput::Text(task), 5, &config, rank);
        assert_eq!(result.steps, ["Find the file", "open it"]);
        // The whole text's list (t2), then each step's (t3, t4).
        assert_eq!(result.names(), ["t2", "t3", "t4"]);
        assert_eq!(
            result.hits.iter().map(|h| h.step).collect::<Vec<_>>(),
            [0, 0, 1]
        );
        let queries = ["weather".to_owned(), " ".to_owned(), "time".to_owned()];
        let named = search_task(TaskInput::Queries(&queries), 5, &config, rank);
        assert_eq!(named.steps, ["weather", "time"]);
        assert_eq!(
            *seen.borrow(),
            [
                "What's the weather?@1",
                "Find the file, then open it.@1",
                "Find the file@1|Find the file, then open it.@0.5",
                "open it@1|Find the file, then open it.@0.5",
                "weather@1",
                "time@1"
            ]
        );
    }

    #[test]
    fn steps_written_elsewhere_are_ranked_as_a_split_text_is() {
        let seen = RefCell::new(Vec::new());
        let rank = recording(&seen);
        let config = TaskConfig::default();
        let text = "Find the file, then open it.";
        let written = [
            "locate a file".to_owned(),
            " ".to_owned(),
            "open a file".to_owned(),
        ];
        let result = search_task(
            TaskInput::Steps {
                text,
                steps: &written,
            },
            5,
            &config,
            rank,
        );
        assert_eq!(result.steps, ["locate a file", "open a file"]);
        assert_eq!(result.names(), ["t1", "t2", "t3"]);
        assert_eq!(
            *seen.borrow(),
            [
                "Find the file, then open it.@1",
                "locate a file@1|Find the file, then open it.@0.5",
                "open a file@1|Find the file, then open it.@0.5"
            ]
        );
        // No step: the text alone, as `TaskInput::Text` ranks it.
        let blank = [" ".to_owned()];
        let alone = search_task(
            TaskInput::Steps {
                text: "What's the weather?",
                steps: &blank,
            },
            5,
            &config,
            rank,
        );
        assert_eq!(alone.steps, ["What's the weather"]);
        assert_eq!(alone.names(), ["t4"]);
    }
}
