//! The task files of `bench/eval` stay runnable by `wink eval`: both suites are split into their
//! development and held-out halves by the fixed rule (`bench/eval/split.py --check`), and every
//! domain task's gold run passes while its wrong answers fail (`bench/eval/check.py`: the scripted
//! model replays them through this `wink`, with disclosure and with every section expanded).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python(script: &str, args: &[&str]) -> Output {
    Command::new("python3")
        .arg(root().join(script))
        .args(args)
        .current_dir(root())
        .env("WINK", env!("CARGO_BIN_EXE_wink"))
        .env_remove("WINK_LOG")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn both_suites_are_split_by_the_fixed_rule() {
    let out = python("bench/eval/split.py", &["--check"]);
    assert_eq!(
        (text(&out.stdout), out.status.code()),
        (
            "bench/eval: 33 tasks, 15 development, 18 held out\n\
             bench/eval/domains: 70 tasks, 35 development, 35 held out\n"
                .to_owned(),
            Some(0)
        ),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn every_domain_task_passes_its_gold_run_and_fails_its_wrong_answers() {
    let out = python("bench/eval/check.py", &[]);
    let stdout = text(&out.stdout);
    assert_eq!(
        (stdout.as_str(), out.status.code()),
        (
            "10 gold files, 259 gold and wrong answers checked, 0 problems\n",
            Some(0)
        ),
        "{}",
        text(&out.stderr)
    );
}
