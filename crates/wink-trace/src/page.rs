//! `wink trace serve`: the page, served on the loopback interface only. Its three static files
//! are in the binary; `runs.json` holds the runs as OTLP/JSON. Nothing is fetched from
//! anywhere else, so it works offline.

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::span::SpanRecord;

const INDEX: &str = include_str!("../page/index.html");
const APP: &str = include_str!("../page/app.js");
const STYLE: &str = include_str!("../page/style.css");

/// One run (or one recording) the page shows.
#[derive(Clone, Debug)]
pub struct PageRun {
    /// Its heading (the file name, the request id).
    pub label: String,
    /// Where it came from.
    pub source: String,
    /// Its spans.
    pub spans: Vec<SpanRecord>,
}

/// The page's data: `{"runs": [{"label", "source", "otlp"}]}`.
pub fn runs_json(runs: &[PageRun]) -> Value {
    json!({
        "runs": runs.iter().map(|run| json!({
            "label": run.label,
            "source": run.source,
            "otlp": crate::otlp_json::request(&run.spans, "wink"),
        })).collect::<Vec<_>>()
    })
}

/// A page server bound to `127.0.0.1`.
#[derive(Debug)]
pub struct PageServer {
    listener: TcpListener,
    body: Arc<String>,
    stop: Arc<AtomicBool>,
}

impl PageServer {
    /// Binds `127.0.0.1:port` (0: any free port).
    ///
    /// # Errors
    /// The port cannot be bound.
    pub fn bind(port: u16, runs: &[PageRun]) -> std::io::Result<Self> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
        Ok(Self {
            listener,
            body: Arc::new(runs_json(runs).to_string()),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The address it listens on.
    ///
    /// # Errors
    /// The socket has no local address.
    pub fn addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A flag that ends [`PageServer::serve`] at the next connection.
    pub fn stopper(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Answers requests until stopped, one thread per connection.
    pub fn serve(&self) {
        let port = self.addr().map(|a| a.port()).unwrap_or_default();
        for stream in self.listener.incoming() {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let body = Arc::clone(&self.body);
            let _ = std::thread::Builder::new()
                .name("wink-trace-page".into())
                .spawn(move || {
                    let _ = answer(stream, &body, port);
                });
        }
    }
}

/// Whether the `Host` header names this server on the loopback interface (a page elsewhere
/// cannot reach it through a rebound DNS name).
fn local_host(host: &str, port: u16) -> bool {
    let host = host.trim().to_ascii_lowercase();
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|name| host == *name || host == format!("{name}:{port}"))
}

fn answer(stream: TcpStream, runs: &str, port: u16) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut host = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("host")
        {
            value.trim().clone_into(&mut host);
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let (status, kind, body): (&str, &str, &str) = if !local_host(&host, port) {
        (
            "403 Forbidden",
            "text/plain; charset=utf-8",
            "only 127.0.0.1 / localhost\n",
        )
    } else if method != "GET" && method != "HEAD" {
        (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            "GET only\n",
        )
    } else {
        match path {
            "/" | "/index.html" => ("200 OK", "text/html; charset=utf-8", INDEX),
            "/app.js" => ("200 OK", "text/javascript; charset=utf-8", APP),
            "/style.css" => ("200 OK", "text/css; charset=utf-8", STYLE),
            "/runs.json" => ("200 OK", "application/json", runs),
            _ => ("404 Not Found", "text/plain; charset=utf-8", "not found\n"),
        }
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         Content-Security-Policy: default-src 'self'; connect-src 'self'; img-src 'self' data:\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if method != "HEAD" {
        out.write_all(body.as_bytes())?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_are_served() {
        assert!(local_host("127.0.0.1:7410", 7410));
        assert!(local_host("localhost:7410", 7410));
        assert!(local_host("LOCALHOST", 7410));
        assert!(!local_host("evil.example:7410", 7410));
        assert!(!local_host("127.0.0.1:80", 7410));
        assert!(!local_host("", 7410));
    }

    #[test]
    fn the_page_fetches_nothing_from_elsewhere() {
        for file in [INDEX, APP, STYLE] {
            for scheme in ["http://", "https://", "//cdn", "@import"] {
                assert!(!file.contains(scheme), "{scheme} in a page file");
            }
        }
    }
}
