//! Whether a collector answers at all, asked once before an exit flush that has nothing to go
//! on (no export has succeeded or failed yet): a collector that is down must not hold a process
//! at exit, and the SDK's exporter retries a refused connection for seconds before it fails.

use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::Duration;

/// The host and port of an OTLP endpoint URL (`http://host:port/...`; without a port, 80 for
/// `http`, 443 for `https`).
pub(crate) fn endpoint_address(url: &str) -> Option<(String, u16)> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let (host, port) = match authority.strip_prefix('[') {
        Some(bracketed) => {
            let (host, after) = bracketed.split_once(']')?;
            let port = match after.strip_prefix(':') {
                Some(port) => port.parse().ok()?,
                None if after.is_empty() => default_port,
                None => return None,
            };
            (host, port)
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, port.parse().ok()?),
            None => (authority, default_port),
        },
    };
    (!host.is_empty()).then(|| (host.to_owned(), port))
}

/// Whether a TCP connection to the endpoint's host and port opens within `timeout` (name
/// resolution included: it runs on a thread of its own, so a slow resolver costs no more).
pub(crate) fn answers_within(url: &str, timeout: Duration) -> bool {
    let Some((host, port)) = endpoint_address(url) else {
        return false;
    };
    let (sender, receiver) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("wink-otlp-probe".into())
        .spawn(move || {
            let addresses: Vec<SocketAddr> = (host.as_str(), port)
                .to_socket_addrs()
                .map(Iterator::collect)
                .unwrap_or_default();
            let open = addresses
                .iter()
                .any(|address| TcpStream::connect_timeout(address, timeout).is_ok());
            let _ = sender.send(open);
        });
    spawned.is_ok() && receiver.recv_timeout(timeout).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_give_their_host_and_port() {
        let cases = [
            ("http://127.0.0.1:4318", Some(("127.0.0.1", 4318))),
            (
                "http://collector.local:4318/v1/traces",
                Some(("collector.local", 4318)),
            ),
            (
                "https://otel.example.com/v1/traces",
                Some(("otel.example.com", 443)),
            ),
            ("http://localhost", Some(("localhost", 80))),
            ("http://[::1]:4317", Some(("::1", 4317))),
            ("http://user:pw@host:9000/x", Some(("host", 9000))),
            ("localhost:4317", None),
            ("ftp://host:21", None),
            ("http://host:port", None),
            ("http://:4318", None),
        ];
        for (url, expected) in cases {
            let got = endpoint_address(url);
            assert_eq!(
                got.as_ref().map(|(h, p)| (h.as_str(), *p)),
                expected,
                "{url}"
            );
        }
    }

    #[test]
    fn a_closed_port_does_not_answer_and_an_open_one_does() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let open = format!("http://{}", listener.local_addr().unwrap());
        assert!(answers_within(&open, Duration::from_millis(500)));
        drop(listener);
        assert!(!answers_within(&open, Duration::from_millis(500)));
    }
}
