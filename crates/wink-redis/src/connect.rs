//! The first connection to Redis: one attempt with a short limit, so that a port where nothing
//! listens, nothing answers or something else answers is reported in those words at once.

use std::time::Duration;

use crate::mailbox::RedisMailboxError;

/// How long connecting to Redis may take at start, and its first answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Connects once to `client` and asks for a PING: a server that is not there, silent or not
/// Redis is reported in words, within [`CONNECT_TIMEOUT`] (the reconnecting connection would
/// retry for about 40 s, and report a non-Redis answer as a parse error).
pub(crate) async fn probe(client: &redis::Client, url: &str) -> Result<(), RedisMailboxError> {
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(CONNECT_TIMEOUT));
    let failed = |message: String| RedisMailboxError::Connect {
        url: url.to_owned(),
        message,
    };
    let pinged = async {
        let mut conn = client
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        redis::cmd("PING").query_async::<String>(&mut conn).await
    };
    match tokio::time::timeout(CONNECT_TIMEOUT + Duration::from_secs(1), pinged).await {
        Ok(Ok(_)) => Ok(()),
        Err(_) => Err(failed(no_answer())),
        Ok(Err(e)) if e.is_timeout() => Err(failed(no_answer())),
        Ok(Err(e)) if e.is_connection_refusal() => Err(failed(
            "connection refused: no server listens there".to_owned(),
        )),
        Ok(Err(e)) if matches!(e.kind(), redis::ErrorKind::Parse) => Err(failed(
            "what answered there does not speak the Redis protocol (is it the port of a Redis or Valkey server?)".to_owned(),
        )),
        Ok(Err(e)) => Err(failed(e.to_string())),
    }
}

fn no_answer() -> String {
    format!(
        "no Redis answer within {} s (is it the port of a Redis or Valkey server?)",
        CONNECT_TIMEOUT.as_secs()
    )
}
