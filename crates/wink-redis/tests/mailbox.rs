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
        assert_eq!(result, RequestResult::dead_lettered(&id_a, 2));
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
        assert_eq!(
            a.result("no-such-id").await.unwrap(),
            RequestResult::pending("no-such-id")
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
