//! A private `redis-server` for tests and benchmarks: started on a free loopback port in a fresh
//! temporary directory (append-only persistence on, so a restart keeps the data), stopped and
//! removed on drop.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Why the server could not be started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// `redis-server` is not installed.
    #[error("redis-server is not installed (scripts/setup.sh installs Debian's redis-server)")]
    NotInstalled,
    /// It could not be started or did not answer.
    #[error("redis-server: {0}")]
    Start(String),
}

/// A running `redis-server`.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
}

/// Whether `redis-server` can be run.
pub fn redis_server_installed() -> bool {
    Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn free_port() -> Result<u16, ServerError> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| ServerError::Start(format!("no free port: {e}")))
}

fn ping(port: u16) -> bool {
    redis::Client::open(format!("redis://127.0.0.1:{port}/"))
        .and_then(|c| c.get_connection_with_timeout(Duration::from_millis(200)))
        .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
        .is_ok()
}

impl RedisServer {
    /// Start a server on a free port in a new temporary directory.
    ///
    /// # Errors
    /// [`ServerError::NotInstalled`] without `redis-server`; [`ServerError::Start`] when it
    /// does not answer within 10 s.
    pub fn start() -> Result<Self, ServerError> {
        if !redis_server_installed() {
            return Err(ServerError::NotInstalled);
        }
        let dir = std::env::temp_dir().join(format!("wink-redis-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| ServerError::Start(format!("cannot create {}: {e}", dir.display())))?;
        let mut server = Self {
            child: None,
            port: free_port()?,
            dir,
        };
        server.spawn()?;
        Ok(server)
    }

    fn spawn(&mut self) -> Result<(), ServerError> {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--dir", &self.dir.display().to_string()])
            .args(["--appendonly", "yes", "--appendfsync", "everysec"])
            .args(["--save", "", "--daemonize", "no", "--loglevel", "warning"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ServerError::Start(e.to_string()))?;
        self.child = Some(child);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if ping(self.port) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(ServerError::Start(format!(
            "no answer on port {} after 10 s",
            self.port
        )))
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stop the server (SIGTERM: the append-only file is flushed) and start it again on the
    /// same port with the same data.
    ///
    /// # Errors
    /// When it does not come back.
    pub fn restart(&mut self) -> Result<(), ServerError> {
        self.stop();
        self.spawn()
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
