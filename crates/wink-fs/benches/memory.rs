//! In-memory backend: grep over 10K files, snapshot and restore of a 10K-file tree.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use divan::Bencher;
use wink_fs::{Filesystem, FsLimits, InMemoryFilesystem, WriteMode};

fn main() {
    divan::main();
}

const DIRS: usize = 100;
const FILES_PER_DIR: usize = 100;

/// 10 000 files of 20 lines (about 700 bytes) each, in 100 directories.
fn tree() -> InMemoryFilesystem {
    let fs = InMemoryFilesystem::with_limits(FsLimits {
        max_write_bytes: 1 << 20,
        ..FsLimits::DEFAULT
    });
    for dir in 0..DIRS {
        for file in 0..FILES_PER_DIR {
            let mut body = String::new();
            for line in 0..20 {
                body.push_str(&format!(
                    "fn item_{dir}_{file}_{line}() -> usize {{ {line} }}\n"
                ));
            }
            if (dir * FILES_PER_DIR + file).is_multiple_of(997) {
                body.push_str("// needle: rare marker\n");
            }
            let ext = if file.is_multiple_of(2) { "rs" } else { "md" };
            fs.write(
                &format!("src/m{dir:03}/f{file:03}.{ext}"),
                &body,
                WriteMode::Create,
            )
            .unwrap();
        }
    }
    fs
}

#[divan::bench]
fn grep_rare_literal_10k_files(bencher: Bencher) {
    let fs = tree();
    bencher.bench_local(|| {
        let hits = fs.grep("needle", "", None).unwrap();
        assert_eq!(hits.len(), 11);
        hits
    });
}

#[divan::bench]
fn grep_regex_with_glob_10k_files(bencher: Bencher) {
    let fs = tree();
    bencher.bench_local(|| fs.grep(r"item_\d+_7_1\d\(", "src", Some("*.md")).unwrap());
}

#[divan::bench]
fn glob_recursive_10k_files(bencher: Bencher) {
    let fs = tree();
    bencher.bench_local(|| fs.glob("**/f0?1.rs", "").unwrap());
}

#[divan::bench]
fn snapshot_10k_files(bencher: Bencher) {
    let fs = tree();
    bencher.bench_local(|| fs.snapshot().unwrap());
}

#[divan::bench]
fn write_then_restore_10k_files(bencher: Bencher) {
    let fs = tree();
    let snapshot = fs.snapshot().unwrap();
    bencher.bench_local(|| {
        fs.write("src/m050/f050.rs", "changed", WriteMode::Overwrite)
            .unwrap();
        fs.restore(&snapshot).unwrap();
    });
}
