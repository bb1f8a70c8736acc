//! [`ModelSummarizer`]: a model writes the one-line summaries of `wink_docs::docs_to_prompt`
//! (`wink docs-to-prompt --model SPEC`).

use std::sync::Arc;

use wink_agent::{Message, ModelRequest, ProviderAdapter};

use crate::Result;
use crate::model::{self, ModelOptions};

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
