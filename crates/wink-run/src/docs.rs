//! A documentation folder as a prompt file (`wink docs-to-prompt`): [`write_docs_prompt`]
//! writes it and says what its always-on prompt costs; [`ModelSummarizer`] has a model write
//! the one-line summaries (`--model SPEC`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wink_agent::{Message, ModelRequest, ProviderAdapter};
use wink_docs::{DocsError, DocsOptions, DocsPrompt, Summarizer};

use crate::model::{self, ModelOptions};
use crate::{Result, RunError};

/// What the model is told when it writes a summary.
const SUMMARY_INSTRUCTIONS: &str = "You write the one-line summary of a section of documentation, shown in a table of contents to help a reader decide whether to open it. Answer with one sentence of at most 30 words saying what the section covers; name the specific things it explains. No preamble.";

/// Asks a model for one sentence per section (at most 80 output tokens, temperature 0), one
/// call per section.
pub struct ModelSummarizer {
    adapter: Arc<dyn ProviderAdapter>,
    runtime: tokio::runtime::Runtime,
    written: usize,
    progress: Box<dyn FnMut(usize)>,
}

impl std::fmt::Debug for ModelSummarizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSummarizer")
            .field("model", &self.adapter.model())
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl ModelSummarizer {
    /// The model named by `spec` (a `wink run --model` spec); `progress` gets the number of
    /// summaries written after each one.
    ///
    /// # Errors
    /// As [`model::adapter`], and [`crate::RunError::Failed`] when the async runtime cannot
    /// start.
    pub fn new(spec: &str, progress: impl FnMut(usize) + 'static) -> Result<Self> {
        Ok(Self {
            adapter: model::adapter(spec, &ModelOptions::default())?,
            runtime: crate::runtime()?,
            written: 0,
            progress: Box::new(progress),
        })
    }
}

impl wink_docs::Summarizer for ModelSummarizer {
    fn summarize(&mut self, title: &str, text: &str) -> Result<String, String> {
        let request = ModelRequest {
            messages: vec![
                Message::system(SUMMARY_INSTRUCTIONS),
                Message::user(format!("Section: {title}\n\n{text}")),
            ],
            max_output_tokens: Some(80),
            temperature: Some(0.0),
            ..ModelRequest::default()
        };
        let turn = self
            .runtime
            .block_on(self.adapter.complete(&request, None))
            .map_err(|e| e.to_string())?;
        self.written += 1;
        (self.progress)(self.written);
        Ok(turn.text.unwrap_or_default())
    }
}

/// What [`write_docs_prompt`] wrote.
#[derive(Debug, Clone)]
pub struct WrittenDocs {
    /// The prompt file written.
    pub output: PathBuf,
    /// The prompt and what went into it.
    pub docs: DocsPrompt,
    /// Tokens (o200k) of the prompt as a model first sees it: the rendered text with every
    /// section summarized, and the tools' names, descriptions and parameters.
    pub always_on_tokens: usize,
}

impl std::fmt::Display for WrittenDocs {
    /// One line: the file, its documents and sections, the always-on tokens, skipped files.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wrote {}: {} documents, {} sections; always-on prompt {} tokens (o200k, text and tools)",
            self.output.display(),
            self.docs.documents,
            self.docs.sections,
            self.always_on_tokens
        )?;
        match self.docs.skipped.len() {
            0 => Ok(()),
            n => write!(f, "; {n} files skipped (not Markdown, HTML or text)"),
        }
    }
}

/// Writes the documents under `dir` as a prompt file at `output` (JSON), summaries by
/// `summarizer` when one is given (else the documents' own first sentences), and measures the
/// prompt it makes. `dir` not a folder, `output` a folder or in a missing one, and a folder with
/// no document are usage errors naming the path.
pub fn write_docs_prompt(
    dir: &Path,
    output: &Path,
    options: &DocsOptions,
    summarizer: Option<&mut dyn Summarizer>,
) -> Result<WrittenDocs> {
    if !dir.is_dir() {
        return Err(RunError::usage(format!("{}: not a folder", dir.display())));
    }
    if output.is_dir() {
        return Err(RunError::usage(format!(
            "--output {}: is a folder, not a file",
            output.display()
        )));
    }
    let parent = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(RunError::usage(format!(
            "--output {}: the folder {} does not exist",
            output.display(),
            parent.display()
        )));
    }
    let docs = wink_docs::docs_to_prompt(dir, options, summarizer).map_err(|e| match e {
        DocsError::Empty { .. } => RunError::usage(e.to_string()),
        other => RunError::failed(other.to_string()),
    })?;
    let failed = |e: &dyn std::fmt::Display| RunError::failed(format!("{}: {e}", output.display()));
    let text = serde_json::to_string_pretty(&docs.prompt).map_err(|e| failed(&e))? + "\n";
    std::fs::write(output, text)
        .map_err(|e| RunError::failed(format!("cannot write {}: {e}", output.display())))?;
    let loaded = wink_promptfile::load(output).map_err(|e| failed(&e))?;
    let rendered = wink_core::Prompt::new(Arc::clone(&loaded.template))
        .render()
        .map_err(|e| failed(&e))?;
    let counter = wink_tokens::TokenCounter::o200k().map_err(|e| failed(&e))?;
    let tools: String = rendered
        .tools
        .iter()
        .map(|t| format!("{}{}{}", t.name(), t.description(), t.parameters()))
        .collect();
    Ok(WrittenDocs {
        output: output.to_path_buf(),
        always_on_tokens: counter.count(&rendered.text) + counter.count(&tools),
        docs,
    })
}
