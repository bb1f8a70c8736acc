//! Every BFCL function must normalise without error in every dialect, and the
//! result must be a fixed point (normalising again changes nothing).
//!
//! Data: the repository's vendored `data/bfcl/BFCL_v4_*.json` (override with
//! `WINK_BFCL_DIR`; source and license in `data/README.md`). BFCL (Berkeley Function Calling Leaderboard),
//! Apache-2.0, <https://github.com/ShishirPatil/gorilla>.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::PathBuf;
use wink_schema::dialect::{SchemaDialect, normalize};
use wink_schema::names::{ToolNameAliases, is_provider_safe};

fn bfcl_dir() -> PathBuf {
    match std::env::var_os("WINK_BFCL_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/bfcl"),
    }
}

/// `(file, line id, function)` for every function of every question file.
fn bfcl_functions() -> Option<Vec<(String, String, Value)>> {
    let dir = bfcl_dir();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: the vendored data/bfcl of the repository is missing (or WINK_BFCL_DIR is wrong)",
            dir.display()
        )
    });
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("BFCL_v4_") && name.ends_with(".json") && !name.ends_with(".ans.json")
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no BFCL_v4_*.json in {}", dir.display());
    let mut functions = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let entry: Value = serde_json::from_str(line).unwrap();
            let id = entry["id"].as_str().unwrap().to_owned();
            for function in entry["function"].as_array().unwrap() {
                functions.push((name.clone(), id.clone(), function.clone()));
            }
        }
    }
    Some(functions)
}

#[test]
fn every_bfcl_function_normalises_in_every_dialect() {
    let Some(functions) = bfcl_functions() else {
        println!(
            "note: BFCL data not found at {}; skipping",
            bfcl_dir().display()
        );
        return;
    };
    assert!(functions.len() > 5000, "only {} functions", functions.len());
    let mut failures = Vec::new();
    for (file, id, function) in &functions {
        let parameters = &function["parameters"];
        for dialect in SchemaDialect::ALL {
            match normalize(parameters, dialect) {
                Ok(normalized) => {
                    assert_eq!(normalized["type"], "object", "{file} {id} {dialect}");
                    assert!(
                        normalized["properties"].is_object(),
                        "{file} {id} {dialect}"
                    );
                    let again = normalize(&normalized, dialect).unwrap();
                    assert_eq!(
                        serde_json::to_string(&again).unwrap(),
                        serde_json::to_string(&normalized).unwrap(),
                        "not idempotent: {file} {id} {dialect}"
                    );
                }
                Err(error) => failures.push(format!(
                    "{file} {id} {} [{dialect}]: {error}",
                    function["name"]
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_bfcl_question_gets_provider_safe_aliases() {
    let Some(functions) = bfcl_functions() else {
        println!(
            "note: BFCL data not found at {}; skipping",
            bfcl_dir().display()
        );
        return;
    };
    let mut by_question: std::collections::BTreeMap<String, Vec<String>> =
        std::collections::BTreeMap::new();
    for (file, id, function) in &functions {
        by_question
            .entry(format!("{file}/{id}"))
            .or_default()
            .push(function["name"].as_str().unwrap().to_owned());
    }
    for (question, mut names) in by_question {
        names.sort();
        names.dedup();
        let aliases = ToolNameAliases::new(&names).unwrap();
        for name in &names {
            let alias = aliases.alias(name).unwrap();
            assert!(is_provider_safe(alias), "{question}: {alias}");
            assert_eq!(aliases.original(alias), Some(name.as_str()), "{question}");
        }
    }
}
