//! Host backend: snapshot (cold and warm) and restore of a 10K-file tree.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;

use divan::Bencher;
use wink_fs::{Filesystem, FsLimits, WriteMode};
use wink_workspace::HostFilesystem;

fn main() {
    divan::main();
}

/// 10 000 files of about 700 bytes in 100 directories, on the temp file system.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..100 {
        let sub = dir.path().join(format!("src/m{d:03}"));
        fs::create_dir_all(&sub).unwrap();
        for f in 0..100 {
            let body: String = (0..20)
                .map(|l| format!("fn item_{d}_{f}_{l}() -> usize {{ {l} }}\n"))
                .collect();
            fs::write(sub.join(format!("f{f:03}.rs")), body).unwrap();
        }
    }
    // Let every ctime age past the racy window so warm snapshots can trust the cache.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    dir
}

#[divan::bench(sample_count = 10)]
fn snapshot_cold_10k_files(bencher: Bencher) {
    let dir = tree();
    bencher
        .with_inputs(|| HostFilesystem::open(dir.path(), FsLimits::default()).unwrap())
        .bench_local_values(|fs| fs.snapshot().unwrap());
}

#[divan::bench(sample_count = 10)]
fn snapshot_warm_10k_files(bencher: Bencher) {
    let dir = tree();
    let fs = HostFilesystem::open(dir.path(), FsLimits::default()).unwrap();
    fs.snapshot().unwrap();
    bencher.bench_local(|| fs.snapshot().unwrap());
}

#[divan::bench(sample_count = 10)]
fn restore_after_10_writes_10k_files(bencher: Bencher) {
    let dir = tree();
    let fs = HostFilesystem::open(dir.path(), FsLimits::default()).unwrap();
    let snapshot = fs.snapshot().unwrap();
    bencher.bench_local(|| {
        for i in 0..10 {
            fs.write(
                &format!("src/m{i:03}/f000.rs"),
                "changed",
                WriteMode::Overwrite,
            )
            .unwrap();
        }
        fs.write("src/new.txt", "created", WriteMode::Create)
            .unwrap();
        fs.restore(&snapshot).unwrap();
    });
}
