//! How `find_tool`'s task-search defaults were chosen: a grid over the server-summary field
//! weight, server routing and the context weight of steps, scored on the **dev** half of
//! `data/livemcp/tasks.jsonl` only (the held-out half is never printed here; measure it with
//! `wink catalog eval --dataset tasks data/livemcp/tasks.jsonl`).
//!
//! `cargo run --release -p wink-catalog --example task_tune`

use std::path::PathBuf;

use wink_catalog::{Catalog, TaskReport, load_catalog_file};
use wink_search::{
    FieldWeights, IndexConfig, RoutingConfig, SearchConfig, TaskConfig, TaskSet, load_tasks_jsonl,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/livemcp");
    let file = load_catalog_file(&data.join("tools.json"))?;
    let all = load_tasks_jsonl(&data.join("tasks.jsonl"))?;
    let dev = TaskSet {
        path: all.path.clone(),
        tasks: all
            .tasks
            .iter()
            .filter(|task| task.split.as_deref() == Some("dev"))
            .cloned()
            .collect(),
        lines: Vec::new(),
    };
    println!(
        "| server weight | routed servers | routing weight | context weight | recall@5 | recall@10 | all-needed@10 |"
    );
    println!("|---|---|---|---|---|---|---|");
    for server in [0.0, 0.25, 0.5, 1.0] {
        for (servers, weight) in [
            (0, 0.0),
            (1, 0.2),
            (3, 0.3),
            (3, 0.5),
            (5, 0.5),
            (5, 0.8),
            (3, 1.0),
        ] {
            for context_weight in [0.0, 0.3, 0.5, 0.8] {
                let index_config = IndexConfig {
                    weights: FieldWeights {
                        server,
                        ..FieldWeights::default()
                    },
                    ..IndexConfig::default()
                };
                let search_config = SearchConfig {
                    routing: RoutingConfig { servers, weight },
                    task: TaskConfig {
                        context_weight,
                        ..TaskConfig::default()
                    },
                };
                let catalog = Catalog::builder()
                    .file(file.clone())
                    .index_config(index_config)
                    .search_config(search_config)
                    .build()?;
                let m = TaskReport::evaluate(&catalog, &dev).overall;
                println!(
                    "| {server} | {servers} | {weight} | {context_weight} | {:.3} | {:.3} | {:.3} |",
                    m.recall_at_5, m.recall_at_10, m.all_needed_at_10
                );
            }
        }
    }
    Ok(())
}
