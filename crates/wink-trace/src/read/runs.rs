//! Recorded runs as `wink trace` reads them: a file or a directory of session logs and
//! transcripts, or a request on a Redis queue, each as a [`PageRun`] (a label, where it came
//! from, its spans).

use std::path::{Path, PathBuf};

use super::{
    ReadError, file_error, from_file, from_run_entries, from_session_log, from_transcript,
};
use crate::mapping::MapOptions;
use crate::page::PageRun;
use crate::span::SpanRecord;

/// Recorded runs as a command line names them (`wink trace show|serve|export`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recordings {
    /// Files or directories ([`runs_at`]), or request ids when `redis` is set.
    pub runs: Vec<String>,
    /// Session logs.
    pub sessions: Vec<PathBuf>,
    /// Transcripts.
    pub transcripts: Vec<PathBuf>,
    /// The Redis server whose queue holds the requests named in `runs`.
    pub redis: Option<String>,
    /// That queue.
    pub queue: String,
}

impl Recordings {
    /// Every run named, in order: `runs`, then the session logs, then the transcripts.
    ///
    /// # Errors
    /// A recording cannot be read or holds no run ([`ReadError::NoRun`] when none is named).
    pub fn load(&self, options: &MapOptions) -> Result<Vec<PageRun>, ReadError> {
        let mut loaded = Vec::new();
        for run in &self.runs {
            match &self.redis {
                Some(url) => loaded.push(run_of_request(url, &self.queue, run, options)?),
                None => loaded.extend(runs_at(Path::new(run), options)?),
            }
        }
        for file in &self.sessions {
            loaded.push(run_of_session_log(file, options)?);
        }
        for file in &self.transcripts {
            loaded.push(run_of_transcript(file, options)?);
        }
        if loaded.is_empty() {
            return Err(ReadError::NoRun);
        }
        Ok(loaded)
    }
}

/// The runs at `path`: the file (a session log or a transcript, told apart by their first
/// bytes), or every `.jsonl` and `.json` file of a directory (`wink eval --sessions DIR`), by
/// name.
///
/// # Errors
/// A file cannot be read or holds no run; a directory holds none of them.
pub fn runs_at(path: &Path, options: &MapOptions) -> Result<Vec<PageRun>, ReadError> {
    files_at(path)?
        .into_iter()
        .map(|file| {
            let spans = from_file(&file, options.clone())?;
            Ok(page_run(&file, spans))
        })
        .collect()
}

/// The run of a session log (`wink run --session`).
///
/// # Errors
/// As [`from_session_log`].
pub fn run_of_session_log(path: &Path, options: &MapOptions) -> Result<PageRun, ReadError> {
    Ok(page_run(path, from_session_log(path, options.clone())?))
}

/// The run of a transcript (`wink run --transcript`).
///
/// # Errors
/// As [`from_transcript`].
pub fn run_of_transcript(path: &Path, options: &MapOptions) -> Result<PageRun, ReadError> {
    Ok(page_run(path, from_transcript(path, options.clone())?))
}

/// The run of request `id` on queue `queue` of the Redis server at `url` (its durable run's
/// stream).
///
/// # Errors
/// The server cannot be reached or read; the request has no durable run (not started yet, or
/// its stream expired); its records do not decode.
pub fn run_of_request(
    url: &str,
    queue: &str,
    id: &str,
    options: &MapOptions,
) -> Result<PageRun, ReadError> {
    let failed = |message: String| ReadError::Request {
        id: id.to_owned(),
        message,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| failed(format!("cannot start the async runtime: {e}")))?;
    let entries = runtime.block_on(async {
        let mailbox = wink_redis::RedisMailbox::<wink_redis::RunRequest>::connect(
            url,
            wink_redis::QueueConfig::new(queue),
        )
        .await
        .map_err(|e| failed(format!("Redis at {url}: {e}")))?;
        mailbox
            .run_entries(id)
            .await
            .map_err(|e| failed(e.to_string()))
    })?;
    if entries.is_empty() {
        return Err(failed(format!(
            "no durable run in queue '{queue}' (not started yet, or its stream expired)"
        )));
    }
    Ok(PageRun {
        label: id.to_owned(),
        source: format!("{url} queue {queue}"),
        spans: from_run_entries(id, &entries, options.clone())?,
    })
}

/// The file, or the session logs and transcripts in a directory.
fn files_at(path: &Path) -> Result<Vec<PathBuf>, ReadError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| file_error(path, e))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl" || e == "json"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(file_error(
            path,
            "no session logs (.jsonl) or transcripts (.json) in it",
        ));
    }
    Ok(files)
}

fn page_run(file: &Path, spans: Vec<SpanRecord>) -> PageRun {
    PageRun {
        label: file.file_stem().map_or_else(
            || file.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        ),
        source: file.display().to_string(),
        spans,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_without_recordings_is_named() {
        let dir = std::env::temp_dir().join(format!("wink-trace-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("notes.txt"), "not a run").unwrap();
        let error = runs_at(&dir, &MapOptions::default()).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{}: no session logs (.jsonl) or transcripts (.json) in it",
                dir.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn recordings_name_none_is_an_error_and_a_missing_log_names_its_file() {
        let none = Recordings::default()
            .load(&MapOptions::default())
            .unwrap_err();
        assert_eq!(
            none.to_string(),
            "no run given: name session logs or transcripts, or request ids with --redis URL"
        );
        let missing = Recordings {
            sessions: vec!["/nonexistent/run.jsonl".into()],
            ..Recordings::default()
        };
        let error = missing.load(&MapOptions::default()).unwrap_err();
        assert!(
            error.to_string().starts_with("/nonexistent/run.jsonl: "),
            "{error}"
        );
    }
}
