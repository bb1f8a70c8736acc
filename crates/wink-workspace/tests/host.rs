//! The host backend: conformance, confinement, races and snapshots.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use proptest::prelude::*;
use tempfile::TempDir;
use wink_fs::{Filesystem, FsError, FsLimits, WriteMode, conformance};
use wink_workspace::{HostFilesystem, SnapshotLimits};

/// A temp dir holding `root/` (the workspace) and `outside/` (with a secret).
struct Sandbox {
    _dir: TempDir,
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        fs::create_dir(&root).unwrap();
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "SECRET\n").unwrap();
        Self {
            _dir: dir,
            root,
            outside,
        }
    }

    fn fs(&self) -> HostFilesystem {
        HostFilesystem::open(&self.root, FsLimits::default()).unwrap()
    }

    fn outside_listing(&self) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<_> = fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let content = fs::read(e.path()).unwrap_or_default();
                (e.file_name().to_string_lossy().into_owned(), content)
            })
            .collect();
        out.sort();
        out
    }
}

#[test]
fn host_backend_passes_the_conformance_suite() {
    let mut dirs = Vec::new();
    let failures = conformance::run(&mut |limits| {
        let dir = tempfile::tempdir().unwrap();
        let fs = HostFilesystem::open(dir.path(), limits).unwrap();
        dirs.push(dir);
        Arc::new(fs) as Arc<dyn Filesystem>
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn open_refuses_missing_roots_and_files() {
    let sandbox = Sandbox::new();
    let missing = sandbox.root.join("nope");
    let error = HostFilesystem::open(&missing, FsLimits::default()).unwrap_err();
    assert!(
        error.to_string().starts_with(&format!(
            "Workspace root unavailable: {}: ",
            missing.display()
        )),
        "{error}"
    );
    fs::write(sandbox.root.join("file"), "").unwrap();
    assert!(matches!(
        HostFilesystem::open(sandbox.root.join("file"), FsLimits::default()),
        Err(FsError::RootUnavailable { .. })
    ));
    let fs = sandbox.fs();
    assert_eq!(fs.root(), fs::canonicalize(&sandbox.root).unwrap());
    assert_eq!(fs.root_label(), fs.root().display().to_string());
}

#[test]
fn dot_dot_and_absolute_paths_are_refused() {
    let sandbox = Sandbox::new();
    let fs = sandbox.fs();
    assert_eq!(
        fs.read("../outside/secret.txt", 0, None)
            .unwrap_err()
            .to_string(),
        "Path escapes the workspace root: ../outside/secret.txt"
    );
    let absolute = sandbox.outside.join("secret.txt").display().to_string();
    assert_eq!(
        fs.read(&absolute, 0, None).unwrap_err().to_string(),
        format!(
            "Absolute paths are not allowed, use a path relative to the workspace root: {absolute}"
        )
    );
    assert!(
        fs.write("../outside/new.txt", "x", WriteMode::Create)
            .is_err()
    );
    assert!(fs.remove("../outside", true).is_err());
    assert_eq!(
        sandbox.outside_listing(),
        vec![("secret.txt".into(), b"SECRET\n".to_vec())]
    );
}

#[test]
fn symlinks_leading_outside_are_refused_for_every_operation() {
    let sandbox = Sandbox::new();
    symlink(&sandbox.outside, sandbox.root.join("out_dir")).unwrap();
    symlink(
        sandbox.outside.join("secret.txt"),
        sandbox.root.join("out_file"),
    )
    .unwrap();
    symlink("../outside/secret.txt", sandbox.root.join("relative_out")).unwrap();
    let fs = sandbox.fs();
    let escape =
        |path: &str| format!("Path escapes the workspace root through a symbolic link: {path}");
    assert_eq!(
        fs.read("out_file", 0, None).unwrap_err().to_string(),
        escape("out_file")
    );
    assert_eq!(
        fs.read("relative_out", 0, None).unwrap_err().to_string(),
        escape("relative_out")
    );
    assert_eq!(
        fs.read("out_dir/secret.txt", 0, None)
            .unwrap_err()
            .to_string(),
        escape("out_dir")
    );
    assert_eq!(
        fs.read_bytes("out_file").unwrap_err().to_string(),
        escape("out_file")
    );
    assert_eq!(
        fs.stat("out_dir").unwrap_err().to_string(),
        escape("out_dir")
    );
    assert_eq!(
        fs.list("out_dir").unwrap_err().to_string(),
        escape("out_dir")
    );
    assert_eq!(
        fs.write("out_dir/new.txt", "x", WriteMode::Create)
            .unwrap_err()
            .to_string(),
        escape("out_dir")
    );
    assert_eq!(
        fs.write("out_file", "pwned", WriteMode::Overwrite)
            .unwrap_err()
            .to_string(),
        escape("out_file")
    );
    assert_eq!(
        fs.edit("out_file", "SECRET", "x", false)
            .unwrap_err()
            .to_string(),
        escape("out_file")
    );
    assert_eq!(
        fs.mkdir("out_dir/sub", true, true).unwrap_err().to_string(),
        escape("out_dir")
    );
    assert_eq!(
        fs.glob("*", "out_dir").unwrap_err().to_string(),
        escape("out_dir")
    );
    assert_eq!(
        fs.grep("SECRET", "out_dir", None).unwrap_err().to_string(),
        escape("out_dir")
    );
    assert!(!fs.exists("out_file"));
    // Walks skip links that lead out; listings hide them.
    assert!(fs.grep("SECRET", "", None).unwrap().is_empty());
    assert!(fs.glob("**", "").unwrap().is_empty());
    assert!(fs.list("").unwrap().is_empty());
    // Removing a link removes the link, never its target.
    fs.remove("out_dir", true).unwrap();
    fs.remove("out_file", false).unwrap();
    assert!(!sandbox.root.join("out_dir").exists());
    assert_eq!(
        sandbox.outside_listing(),
        vec![("secret.txt".into(), b"SECRET\n".to_vec())]
    );
}

#[test]
fn symlinks_inside_the_root_are_followed() {
    let sandbox = Sandbox::new();
    fs::create_dir_all(sandbox.root.join("real/sub")).unwrap();
    fs::write(sandbox.root.join("real/sub/a.txt"), "alpha\n").unwrap();
    symlink("real/sub", sandbox.root.join("shortcut")).unwrap();
    symlink("real/sub/a.txt", sandbox.root.join("a_link")).unwrap();
    symlink(
        sandbox.root.join("real"),
        sandbox.root.join("absolute_inside"),
    )
    .unwrap();
    let fs = sandbox.fs();
    assert_eq!(fs.read("shortcut/a.txt", 0, None).unwrap().content, "alpha");
    assert_eq!(fs.read("a_link", 0, None).unwrap().content, "alpha");
    assert_eq!(
        fs.read("absolute_inside/sub/a.txt", 0, None)
            .unwrap()
            .content,
        "alpha"
    );
    fs.write("shortcut/b.txt", "beta", WriteMode::Create)
        .unwrap();
    assert_eq!(
        fs::read_to_string(sandbox.root.join("real/sub/b.txt")).unwrap(),
        "beta"
    );
    let listed: Vec<(String, bool)> = fs
        .list("")
        .unwrap()
        .into_iter()
        .map(|e| (e.path.clone(), e.is_dir()))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("a_link".into(), false),
            ("absolute_inside".into(), true),
            ("real".into(), true),
            ("shortcut".into(), true),
        ]
    );
    // Linked files are searched; linked directories are not walked twice.
    let hits: Vec<String> = fs
        .grep("alpha", "", None)
        .unwrap()
        .into_iter()
        .map(|m| m.path)
        .collect();
    assert_eq!(hits, vec!["a_link".to_owned(), "real/sub/a.txt".to_owned()]);
}

#[test]
fn dangling_and_looping_links_are_reported() {
    let sandbox = Sandbox::new();
    symlink("nowhere", sandbox.root.join("dangling")).unwrap();
    symlink(
        sandbox.outside.join("not-yet"),
        sandbox.root.join("dangling_out"),
    )
    .unwrap();
    symlink("loop_b", sandbox.root.join("loop_a")).unwrap();
    symlink("loop_a", sandbox.root.join("loop_b")).unwrap();
    let fs = sandbox.fs();
    assert_eq!(
        fs.write("dangling", "x", WriteMode::Overwrite)
            .unwrap_err()
            .to_string(),
        "Cannot resolve symbolic link: dangling (it points to nothing)"
    );
    assert!(fs.write("dangling_out", "x", WriteMode::Create).is_err());
    assert!(!sandbox.outside.join("not-yet").exists());
    assert_eq!(
        fs.read("loop_a", 0, None).unwrap_err().to_string(),
        "Cannot resolve symbolic link: loop_a (too many levels of symbolic links)"
    );
}

#[test]
fn a_directory_swapped_for_an_outside_link_is_never_followed() {
    let sandbox = Sandbox::new();
    let dir = sandbox.root.join("d");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("secret.txt"), "inside\n").unwrap();
    let fs = Arc::new(sandbox.fs());
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (root, outside, stop) = (
            sandbox.root.clone(),
            sandbox.outside.clone(),
            Arc::clone(&stop),
        );
        std::thread::spawn(move || {
            let mut swaps = 0u32;
            let (d, d_real) = (root.join("d"), root.join("d_real"));
            let clear = |path: &Path| {
                // The workspace may recreate a missing `d` (writes create parents): drop it.
                let _ = fs::remove_file(path);
                let _ = fs::remove_dir_all(path);
            };
            while !stop.load(Ordering::Relaxed) {
                fs::rename(&d, &d_real).unwrap();
                while symlink(&outside, &d).is_err() {
                    clear(&d);
                }
                std::thread::yield_now();
                clear(&d);
                while fs::rename(&d_real, &d).is_err() {
                    clear(&d);
                }
                swaps += 1;
                for _ in 0..8 {
                    std::thread::yield_now();
                }
            }
            swaps
        })
    };
    let (mut inside_reads, mut refusals) = (0u32, 0u32);
    for round in 0..3000 {
        match fs.read("d/secret.txt", 0, None) {
            Ok(page) => {
                assert_eq!(page.content, "inside", "read escaped the root");
                inside_reads += 1;
            }
            Err(_) => refusals += 1,
        }
        let _ = fs.write(
            &format!("d/w{}.txt", round % 7),
            "written",
            WriteMode::Overwrite,
        );
        let _ = fs
            .grep("SECRET", "d", None)
            .map(|hits| assert!(hits.is_empty(), "grep escaped"));
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("swaps={swaps} inside_reads={inside_reads} refusals={refusals}");
    assert!(swaps > 0);
    assert!(inside_reads + refusals == 3000);
    assert_eq!(
        sandbox.outside_listing(),
        vec![("secret.txt".into(), b"SECRET\n".to_vec())],
        "something was written outside the root"
    );
}

#[test]
fn restore_recreates_links_and_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = Sandbox::new();
    fs::create_dir(sandbox.root.join("bin")).unwrap();
    fs::write(sandbox.root.join("bin/run.sh"), "#!/bin/sh\n").unwrap();
    fs::set_permissions(
        sandbox.root.join("bin/run.sh"),
        fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    symlink("bin/run.sh", sandbox.root.join("run")).unwrap();
    symlink(&sandbox.outside, sandbox.root.join("out")).unwrap();
    let fs = sandbox.fs();
    let snapshot = fs.snapshot().unwrap();
    fs.remove("bin", true).unwrap();
    fs.remove("run", false).unwrap();
    fs.remove("out", false).unwrap();
    fs.write("run", "now a file", WriteMode::Create).unwrap();
    fs.restore(&snapshot).unwrap();
    let mode = fs::metadata(sandbox.root.join("bin/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o750);
    assert_eq!(
        fs::read_link(sandbox.root.join("run")).unwrap(),
        Path::new("bin/run.sh")
    );
    assert_eq!(
        fs::read_link(sandbox.root.join("out")).unwrap(),
        sandbox.outside
    );
    assert_eq!(fs.read("run", 0, None).unwrap().content, "#!/bin/sh");
    assert_eq!(
        sandbox.outside_listing(),
        vec![("secret.txt".into(), b"SECRET\n".to_vec())]
    );
}

#[test]
fn writes_in_the_same_instant_as_a_snapshot_are_still_restored() {
    let sandbox = Sandbox::new();
    let fs = sandbox.fs();
    fs.write("a.txt", "one", WriteMode::Create).unwrap();
    for round in 0..50 {
        let snapshot = fs.snapshot().unwrap();
        // Same size, same second: only content tells the difference.
        fs.write("a.txt", "two", WriteMode::Overwrite).unwrap();
        fs.restore(&snapshot).unwrap();
        assert_eq!(fs.read_to_string("a.txt").unwrap(), "one", "round {round}");
    }
}

#[test]
fn changes_made_behind_the_backend_are_rolled_back_too() {
    let sandbox = Sandbox::new();
    let fs = sandbox.fs();
    fs.write("keep.txt", "original", WriteMode::Create).unwrap();
    let snapshot = fs.snapshot().unwrap();
    fs::write(sandbox.root.join("keep.txt"), "changed by a shell tool").unwrap();
    fs::write(sandbox.root.join("stray.txt"), "new").unwrap();
    fs.restore(&snapshot).unwrap();
    assert_eq!(
        fs::read_to_string(sandbox.root.join("keep.txt")).unwrap(),
        "original"
    );
    assert!(!sandbox.root.join("stray.txt").exists());
}

#[test]
fn files_beyond_the_snapshot_limits_do_not_disable_the_workspace() {
    let sandbox = Sandbox::new();
    fs::write(sandbox.root.join("big.bin"), vec![0u8; 2048]).unwrap();
    fs::write(sandbox.root.join("small.bin"), vec![0u8; 900]).unwrap();
    fs::write(sandbox.root.join("note.txt"), "before").unwrap();
    for limits in [
        SnapshotLimits {
            max_file_bytes: 1024,
            max_total_bytes: 1 << 20,
        },
        SnapshotLimits {
            max_file_bytes: 4096,
            max_total_bytes: 1000,
        },
    ] {
        let fs_ = sandbox.fs().with_snapshot_limits(limits);
        let snapshot = fs_.snapshot().unwrap();
        fs::write(sandbox.root.join("big.bin"), b"changed").unwrap();
        fs::write(sandbox.root.join("note.txt"), "after").unwrap();
        fs::write(sandbox.root.join("huge-new.bin"), vec![1u8; 4096]).unwrap();
        fs_.restore(&snapshot).unwrap();
        // Files within the limits are restored, new entries removed, untracked ones kept as found.
        assert_eq!(
            fs::read_to_string(sandbox.root.join("note.txt")).unwrap(),
            "before"
        );
        assert!(!sandbox.root.join("huge-new.bin").exists());
        assert_eq!(fs::read(sandbox.root.join("big.bin")).unwrap(), b"changed");
        assert_eq!(fs::read(sandbox.root.join("small.bin")).unwrap().len(), 900);
        fs::write(sandbox.root.join("big.bin"), vec![0u8; 2048]).unwrap();
    }
}

/// A file outside the workspace root and a hard link to it inside.
fn outside_file_linked_as(sandbox: &Sandbox, name: &str) -> (TempDir, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let outside = TempDir::new().unwrap();
    let target = outside.path().join("secret.txt");
    fs::write(&target, "outside content").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
    fs::hard_link(&target, sandbox.root.join(name)).unwrap();
    (outside, target)
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn writes_never_go_through_a_hard_link() {
    let sandbox = Sandbox::new();
    let fs_ = sandbox.fs();
    let (_outside, target) = outside_file_linked_as(&sandbox, "a.txt");
    fs_.write("a.txt", "overwritten", WriteMode::Overwrite)
        .unwrap();
    assert_eq!(fs::read_to_string(&target).unwrap(), "outside content");
    assert_eq!(
        fs::read_to_string(sandbox.root.join("a.txt")).unwrap(),
        "overwritten"
    );
    assert_eq!(mode_of(&sandbox.root.join("a.txt")), 0o600);

    let (_outside, target) = outside_file_linked_as(&sandbox, "b.txt");
    fs_.write("b.txt", " and more", WriteMode::Append).unwrap();
    assert_eq!(fs::read_to_string(&target).unwrap(), "outside content");
    assert_eq!(
        fs::read_to_string(sandbox.root.join("b.txt")).unwrap(),
        "outside content and more"
    );

    let (_outside, target) = outside_file_linked_as(&sandbox, "c.txt");
    fs_.edit("c.txt", "outside", "inside", false).unwrap();
    assert_eq!(fs::read_to_string(&target).unwrap(), "outside content");
    assert_eq!(
        fs::read_to_string(sandbox.root.join("c.txt")).unwrap(),
        "inside content"
    );
}

#[test]
fn a_rollback_never_writes_through_a_hard_link() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = Sandbox::new();
    let fs_ = sandbox.fs();
    fs::create_dir(sandbox.root.join("work")).unwrap();
    fs::write(sandbox.root.join("work/a.txt"), "workspace content").unwrap();
    fs::set_permissions(
        sandbox.root.join("work/a.txt"),
        fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let snapshot = fs_.snapshot().unwrap();
    // A tool replaces work/a.txt with a hard link to a file outside the root, then fails.
    let outside = TempDir::new().unwrap();
    let target = outside.path().join("secret.txt");
    fs::write(&target, "outside content").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
    fs::remove_file(sandbox.root.join("work/a.txt")).unwrap();
    fs::hard_link(&target, sandbox.root.join("work/a.txt")).unwrap();
    fs_.restore(&snapshot).unwrap();
    assert_eq!(fs::read_to_string(&target).unwrap(), "outside content");
    assert_eq!(mode_of(&target), 0o600);
    assert_eq!(
        fs::read_to_string(sandbox.root.join("work/a.txt")).unwrap(),
        "workspace content"
    );
    assert_eq!(mode_of(&sandbox.root.join("work/a.txt")), 0o644);
}

#[test]
fn snapshots_from_another_workspace_are_refused() {
    let (first, second) = (Sandbox::new(), Sandbox::new());
    let snapshot = first.fs().snapshot().unwrap();
    let error = second.fs().restore(&snapshot).unwrap_err();
    assert!(matches!(error, FsError::ForeignSnapshot { .. }), "{error}");
}

#[test]
fn special_files_are_reported() {
    let sandbox = Sandbox::new();
    let status = std::process::Command::new("mkfifo")
        .arg(sandbox.root.join("pipe"))
        .status();
    if !status.is_ok_and(|s| s.success()) {
        return;
    }
    let fs = sandbox.fs();
    assert_eq!(
        fs.read("pipe", 0, None).unwrap_err().to_string(),
        "Not a regular file or directory: pipe"
    );
    assert!(fs.list("").unwrap().is_empty());
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just(String::new()),
        Just("out".to_owned()),
        Just("in".to_owned()),
        Just("secret.txt".to_owned()),
        Just("outside".to_owned()),
        "[a-z]{1,3}",
        "[ -~]{1,4}",
    ]
}

fn random_path() -> impl Strategy<Value = String> {
    (prop::bool::ANY, prop::collection::vec(segment(), 0..6)).prop_map(|(absolute, segments)| {
        let joined = segments.join("/");
        if absolute {
            format!("/{joined}")
        } else {
            joined
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_paths_never_reach_outside_the_root(paths in prop::collection::vec(random_path(), 1..8)) {
        let sandbox = Sandbox::new();
        symlink(&sandbox.outside, sandbox.root.join("out")).unwrap();
        fs::create_dir(sandbox.root.join("in")).unwrap();
        symlink("../outside", sandbox.root.join("in/up")).unwrap();
        let fs = sandbox.fs();
        for path in &paths {
            if let Ok(page) = fs.read(path, 0, None) {
                prop_assert!(!page.content.contains("SECRET"), "read {path:?}");
            }
            if let Ok(bytes) = fs.read_bytes(path) {
                prop_assert!(!bytes.starts_with(b"SECRET"), "read_bytes {path:?}");
            }
            for hit in fs.grep("SECRET", path, None).unwrap_or_default() {
                prop_assert!(false, "grep {path:?} found {hit:?}");
            }
            let _ = fs.write(path, "pwned", WriteMode::Append);
            let _ = fs.write(&format!("{path}/new.txt"), "pwned", WriteMode::Create);
            let _ = fs.edit(path, "SECRET", "pwned", true);
            let _ = fs.mkdir(&format!("{path}/dir"), true, true);
            let _ = fs.list(path);
            let _ = fs.glob("**", path);
            let _ = fs.stat(path);
            if let Ok(snapshot) = fs.snapshot() {
                let _ = fs.remove(path, true);
                fs.restore(&snapshot).unwrap();
            }
        }
        prop_assert_eq!(sandbox.outside_listing(), vec![("secret.txt".into(), b"SECRET\n".to_vec())]);
        prop_assert!(sandbox.root.join("out").symlink_metadata().is_ok());
    }
}
