//! The eval harness behind `wink eval`: a prompt file run over a JSON Lines file of cases, each
//! run checked against the case's expectations; pass rate, tokens, model calls and time.
//!
//! ```no_run
//! use wink_run::eval::{EvalSpec, Evaluation};
//! use wink_run::PromptSpec;
//!
//! let spec = EvalSpec {
//!     prompt: PromptSpec::file("bench/eval/calc.json"),
//!     cases: "bench/eval/calc.cases.jsonl".into(),
//!     model: "local".into(),
//!     ..EvalSpec::default()
//! };
//! let report = Evaluation::new(spec)?.run(&mut |_| {})?;
//! println!("{}", report.text());
//! # Ok::<(), wink_run::RunError>(())
//! ```

mod cases;
pub mod catalog;
mod harness;
mod report;
pub mod task_queries;

pub use cases::{Case, Expect, case_type, parse_case, parse_cases, read_cases};
pub use harness::{EvalProgress, EvalSpec, Evaluation, check};
pub use report::{CaseResult, Report, one_line};
