//! Run settings given as text (flags, prompt-file keys): budget limits, the expansion policy,
//! timeouts.

use std::time::Duration;

use wink_agent::{Budget, BudgetLimit, ExpansionPolicy};

use crate::error::{Result, RunError};

/// A budget flag's value: a number, or `0` / `none` for unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// No limit.
    Unlimited,
    /// At most this many.
    At(u64),
}

impl std::str::FromStr for Limit {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "none" | "0" => Ok(Self::Unlimited),
            n => n
                .parse::<u64>()
                .map(Self::At)
                .map_err(|_| format!("'{text}' is not a number (or 0 / none for unlimited)")),
        }
    }
}

impl Limit {
    /// As a model/tool-call limit (`None`: unlimited).
    #[must_use]
    pub fn calls(self) -> Option<u32> {
        match self {
            Self::Unlimited => None,
            Self::At(n) => Some(u32::try_from(n).unwrap_or(u32::MAX)),
        }
    }

    /// As a token limit (`None`: unlimited).
    #[must_use]
    pub fn tokens(self) -> Option<u64> {
        match self {
            Self::Unlimited => None,
            Self::At(n) => Some(n),
        }
    }
}

/// The message for a run that ran out of `limit` under `budget`, naming the flag to raise it.
#[must_use]
pub fn budget_message(limit: BudgetLimit, budget: &Budget) -> String {
    let (spent, what, flag) = match limit {
        BudgetLimit::ModelCalls => (
            budget.max_model_calls.map(u64::from),
            "model calls",
            "--max-model-calls",
        ),
        BudgetLimit::ToolCalls => (
            budget.max_tool_calls.map(u64::from),
            "tool calls",
            "--max-tool-calls",
        ),
        BudgetLimit::InputTokens => (
            budget.max_input_tokens,
            "input tokens",
            "--max-input-tokens",
        ),
        BudgetLimit::OutputTokens => (
            budget.max_output_tokens,
            "output tokens",
            "--max-output-tokens",
        ),
        _ => return "budget exceeded: the deadline passed (raise it with --timeout)".to_owned(),
    };
    match spent {
        Some(1) => format!(
            "budget exceeded: 1 {} (raise it with {flag})",
            what.strip_suffix('s').unwrap_or(what)
        ),
        Some(n) => format!("budget exceeded: {n} {what} (raise it with {flag})"),
        None => format!("budget exceeded: {what} (raise it with {flag})"),
    }
}

/// An expansion policy by name: `eager`, `conservative`, `batched` or `batched:N`.
///
/// # Errors
/// [`RunError::Usage`] naming `--policy`.
pub fn parse_policy(text: &str) -> Result<ExpansionPolicy> {
    match text {
        "eager" => Ok(ExpansionPolicy::Eager),
        "conservative" => Ok(ExpansionPolicy::Conservative),
        other => match other.strip_prefix("batched") {
            Some("") => Ok(ExpansionPolicy::Batched { size: 2 }),
            Some(n) => n
                .strip_prefix(':')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n > 0)
                .map(|size| ExpansionPolicy::Batched { size })
                .ok_or_else(|| {
                    RunError::usage(format!("--policy: '{other}' is not batched:N with N > 0"))
                }),
            None => Err(RunError::usage(format!(
                "--policy: unknown policy '{other}' (eager, conservative, batched:N)"
            ))),
        },
    }
}

/// The longest timeout accepted: one year, in seconds.
pub const MAX_TIMEOUT_SECONDS: f64 = 31_536_000.0;

/// A timeout in seconds as a duration: a positive number up to [`MAX_TIMEOUT_SECONDS`].
///
/// # Errors
/// [`RunError::Usage`] naming `flag`.
pub fn seconds(flag: &str, value: f64) -> Result<Duration> {
    if value.is_finite() && value > 0.0 && value <= MAX_TIMEOUT_SECONDS {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(RunError::usage(format!(
            "{flag} must be a positive number of seconds up to {MAX_TIMEOUT_SECONDS} (one year), not {value}"
        )))
    }
}

/// `--timeout` as a duration ([`seconds`]), `None` when not given.
///
/// # Errors
/// As [`seconds`].
pub fn timeout(value: Option<f64>) -> Result<Option<Duration>> {
    value.map(|t| seconds("--timeout", t)).transpose()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn limits_read_numbers_and_unlimited() {
        assert_eq!("5".parse::<Limit>(), Ok(Limit::At(5)));
        assert_eq!("0".parse::<Limit>(), Ok(Limit::Unlimited));
        assert_eq!(" none ".parse::<Limit>(), Ok(Limit::Unlimited));
        assert_eq!(
            "many".parse::<Limit>(),
            Err("'many' is not a number (or 0 / none for unlimited)".to_owned())
        );
        assert_eq!(Limit::At(u64::MAX).calls(), Some(u32::MAX));
        assert_eq!(Limit::Unlimited.tokens(), None);
    }

    #[test]
    fn policies_by_name() {
        assert_eq!(parse_policy("eager").unwrap(), ExpansionPolicy::Eager);
        assert_eq!(
            parse_policy("batched").unwrap(),
            ExpansionPolicy::Batched { size: 2 }
        );
        assert_eq!(
            parse_policy("batched:3").unwrap(),
            ExpansionPolicy::Batched { size: 3 }
        );
        assert_eq!(
            parse_policy("batched:0").unwrap_err().to_string(),
            "--policy: 'batched:0' is not batched:N with N > 0"
        );
        assert_eq!(
            parse_policy("lazy").unwrap_err().to_string(),
            "--policy: unknown policy 'lazy' (eager, conservative, batched:N)"
        );
    }

    #[test]
    fn timeouts_are_positive_and_at_most_a_year() {
        assert_eq!(timeout(None).unwrap(), None);
        assert_eq!(
            timeout(Some(1.5)).unwrap(),
            Some(Duration::from_millis(1500))
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 4e7] {
            assert!(timeout(Some(bad)).is_err(), "{bad}");
        }
    }
}
