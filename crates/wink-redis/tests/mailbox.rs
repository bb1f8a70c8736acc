//! The mailbox contract against a real `redis-server` (skipped, saying so, when none is
//! installed; CI installs it through scripts/setup.sh).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use serde_json::json;
use wink_agent::AsyncMailbox;
use wink_redis::{
    Claim, Published, QueueConfig, QueueStats, RedisMailbox, RedisMailboxError, RedisServer,
    RequestResult, RequestStatus, ServerError,
};

fn server() -> Option<RedisServer> {
    match RedisServer::start() {
        Ok(s) => Some(s),
        Err(ServerError::NotInstalled) => {
            println!("SKIPPED: redis-server is not installed (scripts/setup.sh installs it)");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn mailbox(url: &str, max_deliveries: u32) -> RedisMailbox<String> {
    let mut config = QueueConfig::new("test");
    config.max_deliveries = max_deliveries;
    RedisMailbox::connect(url, config).await.unwrap()
}

#[test]
fn at_least_once_with_visibility_timeout_ack_nack_and_dead_letters() {
    let Some(server) = server() else { return };
    runtime().block_on(async {
        let a = mailbox(&server.url(), 2).await;
        let b = mailbox(&server.url(), 2).await;
        let id_a = a.send("a".to_owned()).await.unwrap();
        let id_b = a.send("b".to_owned()).await.unwrap();
        let first = a.receive(1, Duration::from_secs(60)).await.unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].body, "a");
        assert_eq!(first[0].receipt.request_id, id_a);
        assert_eq!(first[0].delivery_count, 1);
        // "a" is hidden from the other worker; it gets "b".
        let second = b.receive(10, Duration::from_secs(60)).await.unwrap();
        assert_eq!(
            second.iter().map(|d| d.body.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
        assert_eq!(second[0].receipt.request_id, id_b);
        b.ack(&second[0].receipt).await.unwrap();
        assert!(matches!(
            b.ack(&second[0].receipt).await,
            Err(RedisMailboxError::StaleReceipt(_))
        ));
        assert_eq!(
            a.stats().await.unwrap(),
            QueueStats {
                pending: 0,
                in_flight: 1,
                dead_lettered: 0,
                done: 0
            }
        );
        // Nack "a" with a delay: invisible until it passes, then delivered again (count 2).
        a.nack(&first[0].receipt, Duration::from_millis(300))
            .await
            .unwrap();
        assert_eq!(a.stats().await.unwrap().pending, 1);
        assert!(
            b.receive(10, Duration::from_secs(60))
                .await
                .unwrap()
                .is_empty()
        );
        tokio::time::sleep(Duration::from_millis(350)).await;
        let again = b.receive(10, Duration::from_millis(100)).await.unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].body, "a");
        assert_eq!(again[0].delivery_count, 2);
        // The first receipt is stale now.
        assert!(a.ack(&first[0].receipt).await.is_err());
        // Not acked within the visibility timeout: the next receive takes it over (XAUTOCLAIM)
        // and, past max deliveries, dead-letters it.
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert!(
            a.receive(10, Duration::from_millis(100))
                .await
                .unwrap()
                .is_empty()
        );
        let result = a.result(&id_a).await.unwrap();
        assert_eq!(
            result,
            RequestResult::dead_lettered(&id_a, "delivered 2 times without a result")
        );
        assert_eq!(
            a.stats().await.unwrap(),
            QueueStats {
                pending: 0,
                in_flight: 0,
                dead_lettered: 1,
                done: 0
            }
        );
    });
}

#[test]
fn visibility_timeout_redelivers_to_another_worker() {
    let Some(server) = server() else { return };
    runtime().block_on(async {
        let a = mailbox(&server.url(), 5).await;
        let b = mailbox(&server.url(), 5).await;
        a.send("x".to_owned()).await.unwrap();
        let got = a.receive(1, Duration::from_millis(100)).await.unwrap();
        assert_eq!(got.len(), 1);
        assert!(
            b.receive(1, Duration::from_millis(100))
                .await
                .unwrap()
                .is_empty()
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
        let taken = b.receive(1, Duration::from_millis(100)).await.unwrap();
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].receipt, got[0].receipt);
        assert_eq!(taken[0].delivery_count, 2);
    });
}

#[test]
fn one_result_per_request_id_when_two_workers_receive_it() {
    let Some(server) = server() else { return };
    runtime().block_on(async {
        let a = mailbox(&server.url(), 5).await;
        let b = mailbox(&server.url(), 5).await;
        let id = a.send("job".to_owned()).await.unwrap();
        let lease = Duration::from_secs(30);
        let got = a.receive(1, Duration::from_millis(50)).await.unwrap();
        assert_eq!(a.claim(&id, lease).await.unwrap(), Claim::Acquired);
        // a stalls past the visibility timeout: b receives the same request, sees a's lease
        // and stops.
        tokio::time::sleep(Duration::from_millis(80)).await;
        let dup = b.receive(1, Duration::from_millis(50)).await.unwrap();
        assert_eq!(dup[0].receipt.request_id, id);
        assert_eq!(b.claim(&id, lease).await.unwrap(), Claim::Held);
        let mut done = RequestResult::pending(&id);
        done.status = RequestStatus::Done;
        done.text = Some("answer".into());
        done.output = Some(json!({"n": 1}));
        // Only the lease holder publishes; a second publish keeps the first result.
        assert_eq!(b.publish(&done).await.unwrap(), Published::LeaseLost);
        assert_eq!(a.publish(&done).await.unwrap(), Published::Stored);
        let mut other = done.clone();
        other.text = Some("another".into());
        assert_eq!(a.publish(&other).await.unwrap(), Published::AlreadyFinished);
        assert_eq!(b.result(&id).await.unwrap(), done);
        // Once it has a result, whoever receives it next sees so.
        assert_eq!(b.claim(&id, lease).await.unwrap(), Claim::Finished);
        a.ack(&got[0].receipt).await.unwrap();
        assert_eq!(
            a.stats().await.unwrap(),
            QueueStats {
                pending: 0,
                in_flight: 0,
                dead_lettered: 0,
                done: 1
            }
        );
        // An id the queue never saw is unknown, not pending, and waiting for it ends at once.
        assert_eq!(
            a.result("no-such-id").await.unwrap(),
            RequestResult::unknown("no-such-id")
        );
        assert_eq!(
            a.wait_result("no-such-id", Duration::from_millis(10))
                .await
                .unwrap()
                .status,
            RequestStatus::Unknown
        );
    });
}

#[test]
fn a_redis_restart_keeps_requests_and_results() {
    let Some(mut server) = server() else { return };
    runtime().block_on(async {
        let a = mailbox(&server.url(), 5).await;
        let id = a.send("kept".to_owned()).await.unwrap();
        let mut failed = RequestResult::failed("earlier", "boom");
        failed.usage.output_tokens = 3;
        assert_eq!(a.publish(&failed).await.unwrap(), Published::Stored);
        tokio::time::sleep(Duration::from_millis(1100)).await; // appendfsync everysec
        server.restart().unwrap();
        // The same connection reconnects by itself.
        let mut got = Vec::new();
        for _ in 0..50 {
            match a.receive(1, Duration::from_secs(30)).await {
                Ok(d) => {
                    got = d;
                    break;
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].receipt.request_id, id);
        assert_eq!(a.result("earlier").await.unwrap(), failed);
    });
}

/// Adds an entry with `fields` as they are (what another producer could write).
async fn add_raw(url: &str, queue: &str, fields: &[(&str, &[u8])]) -> String {
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let mut command = redis::cmd("XADD");
    command.arg(format!("wink:{{{queue}}}:requests")).arg("*");
    for (field, value) in fields {
        command.arg(*field).arg(*value);
    }
    command.query_async(&mut conn).await.unwrap()
}

/// The dead-letter stream: each entry's fields as raw bytes.
async fn dead_letters(url: &str, queue: &str) -> Vec<Vec<(String, Vec<u8>)>> {
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let entries: Vec<(String, Vec<Vec<u8>>)> = redis::cmd("XRANGE")
        .arg(format!("wink:{{{queue}}}:dead"))
        .arg("-")
        .arg("+")
        .query_async(&mut conn)
        .await
        .unwrap();
    entries
        .into_iter()
        .map(|(_, fields)| {
            fields
                .chunks(2)
                .map(|pair| {
                    (
                        String::from_utf8_lossy(&pair[0]).into_owned(),
                        pair[1].clone(),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn malformed_entries_are_dead_lettered_with_their_bytes_and_a_reason() {
    let Some(server) = server() else { return };
    let url = server.url();
    runtime().block_on(async {
        let mut config = QueueConfig::new("raw");
        config.max_request_bytes = 1000;
        let worker: RedisMailbox<wink_redis::RunRequest> =
            RedisMailbox::connect(&url, config).await.unwrap();
        let good = worker
            .send(wink_redis::RunRequest {
                params: None,
                input: Some("hi".into()),
                traceparent: None,
            })
            .await
            .unwrap();
        add_raw(&url, "raw", &[("id", b"r-latin1"), ("body", b"{\"input\": \"caf\xe9\"}")]).await;
        add_raw(&url, "raw", &[("body", b"{\"input\": \"no id\"}")]).await;
        add_raw(&url, "raw", &[("id", b""), ("body", b"{}")]).await;
        add_raw(&url, "raw", &[("id", good.as_bytes()), ("body", b"{\"input\": \"again\"}")]).await;
        add_raw(&url, "raw", &[("id", b"r-array"), ("body", b"[]")]).await;
        let big = vec![b'x'; 5000];
        add_raw(&url, "raw", &[("id", b"r-big"), ("body", &big)]).await;
        let delivered = worker.receive(10, Duration::from_secs(60)).await.unwrap();
        // Only the request sent through the mailbox runs; its id is not merged with another.
        assert_eq!(
            delivered
                .iter()
                .map(|d| (d.receipt.request_id.as_str(), d.body.input.as_deref()))
                .collect::<Vec<_>>(),
            [(good.as_str(), Some("hi"))]
        );
        let dead = dead_letters(&url, "raw").await;
        let reasons: Vec<(Option<Vec<u8>>, Vec<u8>, String)> = dead
            .iter()
            .map(|fields| {
                let get = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
                (
                    get("id"),
                    get("body").unwrap_or_default(),
                    String::from_utf8(get("reason").unwrap()).unwrap(),
                )
            })
            .collect();
        assert_eq!(
            reasons,
            [
                (
                    Some(b"r-latin1".to_vec()),
                    b"{\"input\": \"caf\xe9\"}".to_vec(),
                    "the body is not UTF-8 (invalid utf-8 sequence of 1 bytes from index 14)".to_owned()
                ),
                (None, b"{\"input\": \"no id\"}".to_vec(), "the entry has no id".to_owned()),
                (Some(Vec::new()), b"{}".to_vec(), "a request id is not empty".to_owned()),
                (
                    Some(good.as_bytes().to_vec()),
                    b"{\"input\": \"again\"}".to_vec(),
                    format!("another entry carries the request id {good}")
                ),
                (
                    Some(b"r-array".to_vec()),
                    b"[]".to_vec(),
                    "the body is not a request: invalid type: sequence, expected a JSON object with params and input".to_owned()
                ),
                (
                    Some(b"r-big".to_vec()),
                    big.clone(),
                    "the body is 5000 bytes, over the limit of 1000 bytes".to_owned()
                ),
            ]
        );
        // Entries with a usable id of their own get a dead_lettered result saying why.
        let result = worker.result("r-big").await.unwrap();
        assert_eq!(
            (result.status, result.text.as_deref()),
            (
                RequestStatus::DeadLettered,
                Some("the body is 5000 bytes, over the limit of 1000 bytes; moved to the dead-letter stream")
            )
        );
        assert_eq!(worker.result(&good).await.unwrap().status, RequestStatus::Pending);
        // The mailbox refuses to send what its workers would refuse.
        let long = wink_redis::RunRequest {
            params: None,
            input: Some("x".repeat(2000)),
            traceparent: None,
        };
        assert!(matches!(
            worker.send(long).await,
            Err(RedisMailboxError::TooLarge { size: 2012, max: 1000 })
        ));
    });
}

#[test]
fn a_bad_queue_name_or_a_port_without_redis_is_a_clear_error() {
    runtime().block_on(async {
        let error = RedisMailbox::<String>::connect("redis://127.0.0.1:1/", QueueConfig::new(""))
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), "--queue '': a queue name is not empty");
        // A port where something answers, but not in the Redis protocol.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let _ = std::io::Write::write_all(
                    &mut stream,
                    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        let url = format!("redis://127.0.0.1:{port}/");
        let error = RedisMailbox::<String>::connect(&url, QueueConfig::new("q"))
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("--redis {url}: what answered there does not speak the Redis protocol (is it the port of a Redis or Valkey server?)")
        );
        // A port that accepts and stays silent: reported after 5 s, not retried for 40.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("redis://127.0.0.1:{}/", silent.local_addr().unwrap().port());
        let error = RedisMailbox::<String>::connect(&url, QueueConfig::new("q"))
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("--redis {url}: no Redis answer within 5 s (is it the port of a Redis or Valkey server?)")
        );
        drop(silent);
    });
}
