//! Serving over a pair of byte streams (stdin/stdout) with every client line screened first
//! ([`crate::lines`]): the SDK reads the forwarded lines from an in-memory pipe, and its answers
//! and the screen's error answers are written to the client one whole line at a time.

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::error::McpServeError;
use crate::lines::{Line, LineSplitter, MAX_LINE_BYTES, Screened, screen_line};
use crate::server::PromptServer;

/// Bytes buffered in the pipe between the screen and the SDK.
const PIPE_BYTES: usize = 1 << 16;

impl PromptServer {
    /// Serve over stdin/stdout until the client disconnects.
    pub async fn serve_stdio(self) -> Result<(), McpServeError> {
        self.serve_streams(tokio::io::stdin(), tokio::io::stdout())
            .await
    }

    /// Serve one client reading JSON-RPC lines from `input` and writing to `output` until
    /// `input` ends. Malformed lines are answered with JSON-RPC errors and serving goes on.
    pub async fn serve_streams<R, W>(self, input: R, output: W) -> Result<(), McpServeError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (sdk_side, screen_side) = tokio::io::duplex(PIPE_BYTES);
        let (sdk_read, sdk_write) = tokio::io::split(sdk_side);
        let (from_sdk, to_sdk) = tokio::io::split(screen_side);
        let (lines_out, lines_to_write) = mpsc::unbounded_channel::<Vec<u8>>();
        let writer = tokio::spawn(write_lines(lines_to_write, output));
        let sdk_answers = tokio::spawn(pump_sdk_answers(from_sdk, lines_out.clone()));
        let screen = tokio::spawn(screen_input(input, to_sdk, lines_out));
        let served = match self.serve((sdk_read, sdk_write)).await {
            Ok(running) => running
                .waiting()
                .await
                .map(|_| ())
                .map_err(|e| McpServeError::Stdio(e.to_string())),
            Err(e) => Err(McpServeError::Stdio(e.to_string())),
        };
        screen.abort();
        let _ = sdk_answers.await;
        let _ = writer.await;
        served
    }
}

/// Reads the client's bytes, screens each line and forwards or answers it.
async fn screen_input<R, P>(
    mut input: R,
    mut to_sdk: P,
    answers: mpsc::UnboundedSender<Vec<u8>>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    P: AsyncWrite + Unpin,
{
    let mut splitter = LineSplitter::new(MAX_LINE_BYTES);
    let mut chunk = vec![0u8; PIPE_BYTES];
    let mut lines = Vec::new();
    loop {
        let read = input.read(&mut chunk).await?;
        if read == 0 {
            lines.extend(splitter.finish());
        } else {
            splitter.push(&chunk[..read], &mut lines);
        }
        for line in lines.drain(..) {
            match screen_line(&line) {
                Screened::Skip => {}
                Screened::Answer(text) => {
                    let _ = answers.send(text.into_bytes());
                }
                Screened::Forward => {
                    if let Line::Complete(mut bytes) = line {
                        bytes.push(b'\n');
                        to_sdk.write_all(&bytes).await?;
                        to_sdk.flush().await?;
                    }
                }
            }
        }
        if read == 0 {
            return to_sdk.shutdown().await;
        }
    }
}

/// Hands each line the SDK writes to the writer.
async fn pump_sdk_answers<P>(from_sdk: P, answers: mpsc::UnboundedSender<Vec<u8>>)
where
    P: AsyncRead + Unpin,
{
    let mut reader = BufReader::new(from_sdk);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if answers.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes whole lines to the client, flushing after each.
async fn write_lines<W>(mut lines: mpsc::UnboundedReceiver<Vec<u8>>, mut output: W)
where
    W: AsyncWrite + Unpin,
{
    while let Some(mut line) = lines.recv().await {
        line.push(b'\n');
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}
