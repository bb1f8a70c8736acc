//! The Redis keys of one queue. Every key of queue `NAME` starts with `wink:{NAME}:`; the braces
//! are a Redis Cluster hash tag, so one queue's keys live in one slot and its Lua scripts may
//! touch them together.

/// The consumer group every worker of a queue joins.
pub const GROUP: &str = "wink-workers";

/// The key names of one queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueKeys {
    prefix: String,
}

impl QueueKeys {
    /// The keys of queue `name`.
    pub fn new(name: &str) -> Self {
        Self {
            prefix: format!("wink:{{{name}}}:"),
        }
    }

    /// The request stream (consumer group [`GROUP`]).
    pub fn requests(&self) -> String {
        format!("{}requests", self.prefix)
    }

    /// The dead-letter stream.
    pub fn dead(&self) -> String {
        format!("{}dead", self.prefix)
    }

    /// Nacked requests waiting for their delay: a sorted set scored by the time (ms since the
    /// epoch) they become visible again.
    pub fn delayed(&self) -> String {
        format!("{}delayed", self.prefix)
    }

    /// Deliveries per request id (a hash).
    pub fn deliveries(&self) -> String {
        format!("{}deliveries", self.prefix)
    }

    /// How many requests have a `done` or `failed` result (a counter).
    pub fn done(&self) -> String {
        format!("{}done", self.prefix)
    }

    /// The lease of the worker processing request `id` (its consumer name, with a TTL).
    pub fn lease(&self, id: &str) -> String {
        format!("{}lease:{id}", self.prefix)
    }

    /// The result of request `id` (JSON, with a TTL).
    pub fn result(&self, id: &str) -> String {
        format!("{}result:{id}", self.prefix)
    }

    /// Which stream entry carries request `id` (its entry id): set when it is submitted or first
    /// received, so that another entry with the same id is dead-lettered rather than merged
    /// with it, and so that `wink result` tells an unknown id from a pending one. Expires with
    /// the request's result.
    pub fn request(&self, id: &str) -> String {
        format!("{}request:{id}", self.prefix)
    }

    /// The checkpoint stream of the run of request `id`.
    pub fn run(&self, id: &str) -> String {
        format!("{}run:{id}", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_share_the_queue_hash_tag() {
        let keys = QueueKeys::new("jobs");
        assert_eq!(keys.requests(), "wink:{jobs}:requests");
        assert_eq!(keys.result("r1"), "wink:{jobs}:result:r1");
        assert_eq!(keys.run("r1"), "wink:{jobs}:run:r1");
        assert_eq!(keys.lease("r1"), "wink:{jobs}:lease:r1");
    }
}
