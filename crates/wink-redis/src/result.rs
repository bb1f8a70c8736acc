//! What `wink submit --wait` and `wink result` print for one request.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_session::TokenUsage;

/// Where a request stands.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestStatus {
    /// Its run finished with an answer (or a terminal tool ended it).
    Done,
    /// Its run ended without an answer (failure, budget) or could not start.
    Failed,
    /// No result yet: waiting, or running.
    Pending,
    /// Delivered too many times without a result, or malformed: moved to the dead-letter
    /// stream.
    DeadLettered,
    /// The queue has no such request: a mistyped id, or one whose result has expired.
    Unknown,
}

impl RequestStatus {
    /// The name printed and stored (`done`, `failed`, `pending`, `dead_lettered`, `unknown`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Pending => "pending",
            Self::DeadLettered => "dead_lettered",
            Self::Unknown => "unknown",
        }
    }
}

/// One request's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestResult {
    /// The id `wink submit` printed.
    pub request_id: String,
    /// Where it stands.
    pub status: RequestStatus,
    /// The answer text (or the terminal tool's content; for `failed`, why).
    pub text: Option<String>,
    /// The structured output (or the terminal tool's value).
    pub output: Option<Value>,
    /// Tokens the run spent.
    pub usage: TokenUsage,
}

impl RequestResult {
    /// A request without a result yet.
    pub fn pending(request_id: &str) -> Self {
        Self {
            request_id: request_id.to_owned(),
            status: RequestStatus::Pending,
            text: None,
            output: None,
            usage: TokenUsage::default(),
        }
    }

    /// A request moved to the dead-letter stream because of `reason` (e.g. `delivered 5 times
    /// without a result`).
    pub fn dead_lettered(request_id: &str, reason: &str) -> Self {
        Self {
            status: RequestStatus::DeadLettered,
            text: Some(format!("{reason}; moved to the dead-letter stream")),
            ..Self::pending(request_id)
        }
    }

    /// A request id the queue does not know.
    pub fn unknown(request_id: &str) -> Self {
        Self {
            status: RequestStatus::Unknown,
            text: Some(
                "the queue has no such request (a mistyped id, or its result has expired)"
                    .to_owned(),
            ),
            ..Self::pending(request_id)
        }
    }

    /// A request that failed with `message`.
    pub fn failed(request_id: &str, message: impl Into<String>) -> Self {
        Self {
            status: RequestStatus::Failed,
            text: Some(message.into()),
            ..Self::pending(request_id)
        }
    }

    /// Whether the request is finished (`done`, `failed` or `dead_lettered`).
    pub fn is_final(&self) -> bool {
        matches!(
            self.status,
            RequestStatus::Done | RequestStatus::Failed | RequestStatus::DeadLettered
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape_is_the_cli_contract() {
        let value = serde_json::to_value(RequestResult::dead_lettered(
            "r1",
            "delivered 3 times without a result",
        ))
        .unwrap_or_default();
        assert_eq!(
            value,
            serde_json::json!({
                "request_id": "r1",
                "status": "dead_lettered",
                "text": "delivered 3 times without a result; moved to the dead-letter stream",
                "output": null,
                "usage": {"input_tokens": 0, "output_tokens": 0, "cached_tokens": 0}
            })
        );
    }
}
