//! Hostile or careless input to `wink run` and friends (issue 23): never a panic, never a lost
//! answer, a clear error before any work is done.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{fixture, stdout, usage_error, wink};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A scripted model that answers `text` at once.
fn answering_script(dir: &Path, text: &str) -> String {
    let script = dir.join("script.json");
    std::fs::write(&script, format!(r#"[{{"text": "{text}"}}]"#)).unwrap();
    format!("scripted:{}", script.display())
}

#[test]
fn a_huge_timeout_is_refused_not_a_panic() {
    let dir = scratch("timeout");
    let model = answering_script(&dir, "ok");
    let f = fixture("unified.json");
    for value in ["1e20", "18446744073709551616", "inf", "NaN", "-1", "0"] {
        let err = usage_error(&[
            "run",
            &f,
            "--model",
            &model,
            "--params",
            r#"{"TaskParams": {"objective": "x"}}"#,
            &format!("--timeout={value}"),
        ]);
        assert!(
            err.contains(
                "--timeout must be a positive number of seconds up to 31536000 (one year), not "
            ),
            "{value}: {err}"
        );
    }
    let out = wink(&[
        "run",
        &f,
        "--model",
        &model,
        "--params",
        r#"{"TaskParams": {"objective": "x"}}"#,
        "--timeout",
        "31536000",
    ]);
    assert_eq!(stdout(&out), "ok\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
