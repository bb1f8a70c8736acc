//! Token footprint of a catalog file at several line budgets.
//!
//! ```sh
//! cargo run --release -p wink-catalog --example catalog_footprint -- data/livemcp/tools.json 25 22 20
//! ```

use std::path::PathBuf;

use wink_catalog::{Catalog, Footprint, LineBudget, load_catalog_file};
use wink_tokens::TokenCounter;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/livemcp/tools.json").to_owned()
    }));
    let budgets: Vec<usize> = args.map(|a| a.parse()).collect::<Result<_, _>>()?;
    let budgets = if budgets.is_empty() {
        vec![25]
    } else {
        budgets
    };
    let file = load_catalog_file(&path)?;
    let counter = TokenCounter::o200k()?;
    println!(
        "| line budget | full schemas | one line per tool | grouped by namespace | per namespace | namespaces only | mean line | p95 | max |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for budget in budgets {
        let catalog = Catalog::builder()
            .file(file.clone())
            .line_budget(LineBudget::Tokens(budget))
            .build()?;
        let f = Footprint::measure(&catalog, counter);
        println!(
            "| {budget} | {} | {} (−{:.1}%) | {} (−{:.1}%) | {} (−{:.1}%) | {} (−{:.1}%) | {:.1} | {} | {} |",
            f.full_schemas,
            f.per_tool,
            f.reduction(f.per_tool),
            f.grouped,
            f.reduction(f.grouped),
            f.per_namespace,
            f.reduction(f.per_namespace),
            f.namespaces_only,
            f.reduction(f.namespaces_only),
            f.lines.mean,
            f.lines.p95,
            f.lines.max
        );
    }
    Ok(())
}
