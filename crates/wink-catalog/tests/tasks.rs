#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `find_tool` on whole tasks: the vendored task set (`data/livemcp/tasks.jsonl`) over the
//! LiveMCP catalog, with the figures the README reports (BM25F; the hybrid's are measured by
//! `wink catalog eval --dataset tasks … --rerank hybrid`).

use std::path::PathBuf;

use wink_catalog::{Catalog, TaskReport, load_catalog_file};
use wink_search::load_tasks_jsonl;

fn data(path: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/livemcp")
        .join(path);
    assert!(
        path.exists(),
        "{} is missing: the vendored data/ folder of the repository is missing",
        path.display()
    );
    path
}

#[test]
fn the_task_set_gets_the_reported_figures() {
    let catalog = Catalog::builder()
        .file(load_catalog_file(&data("tools.json")).unwrap())
        .build()
        .unwrap();
    let set = load_tasks_jsonl(&data("tasks.jsonl")).unwrap();
    set.check_names(|name| catalog.get(name).is_some()).unwrap();
    assert_eq!(set.tasks.len(), 86);
    assert_eq!(set.splits(), ["held-out", "dev"]);
    assert!(catalog.search().is_routed());
    let report = TaskReport::evaluate(&catalog, &set);
    let rounded = |value: f64| (value * 1000.0).round() / 1000.0;
    let figures: Vec<(&str, usize, [f64; 3])> = report
        .splits
        .iter()
        .map(|split| {
            let m = split.metrics;
            (
                split.split.as_str(),
                m.tasks,
                [
                    rounded(m.recall_at_5),
                    rounded(m.recall_at_10),
                    rounded(m.all_needed_at_10),
                ],
            )
        })
        .collect();
    assert_eq!(
        figures,
        [
            ("held-out", 43, [0.503, 0.693, 0.488]),
            ("dev", 43, [0.531, 0.672, 0.512]),
        ]
    );
    // Every task is split into at least one step and every list holds ten tools but one.
    assert!(report.tasks.iter().all(|task| !task.steps.is_empty()));
    assert!(report.overall.mean_list_length > 9.9);
}
