//! `procedure`: an answer that tells the user how to do the work instead of doing it ("To
//! convert 42 degrees Celsius to Fahrenheit, use the formula…", "To check the status of your last
//! order, please provide your order ID.") without naming a tool, while a tool not called yet fits
//! it (at least [`MIN_SHARED_WORDS`] content words of the answer in the tool's name or
//! description), is asked for again as a call of the best-fitting tool, or of any tool when
//! several fit equally. The disclosing builtins never count as fitting.
//!
//! An answer that quotes a successful result since the question (six words in a row, a read
//! section's included) reports what the work found and stands, however it opens: measured
//! on Qwen2.5-Coder-1.5B, "To determine if the warranty covers …, you would need to look at the
//! warranty terms. According to the warranty, damage caused by not descaling … is not covered."
//! was taken back for a ticket lookup the question never needed.

use wink_core::builtin::discloses_content;
use wink_model::ModelRequest;

use super::text::{called_names, content_words, quotes_a_result, shared_words};
use super::{Action, TurnPolicy};

/// The `procedure` policy.
#[derive(Debug, Clone, Copy)]
pub struct Procedure;

/// Openings of an answer that tells the user how to do the work.
const PROCEDURE_OPENINGS: [&str; 1] = ["to "];

/// Phrases of such an answer.
const PROCEDURE_PHRASES: [&str; 7] = [
    "you can",
    "you need to",
    "use the",
    "please provide",
    "following steps",
    "you would",
    "you will need",
];

/// Content words shared by the answer and a tool's name and description before it counts.
pub const MIN_SHARED_WORDS: usize = 2;

impl TurnPolicy for Procedure {
    fn name(&self) -> &'static str {
        "procedure"
    }

    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action> {
        let lower = answer.trim_start().to_lowercase();
        let procedural = PROCEDURE_OPENINGS.iter().any(|o| lower.starts_with(o))
            && PROCEDURE_PHRASES.iter().any(|p| lower.contains(p));
        if !procedural || quotes_a_result(request, answer) {
            return None;
        }
        let called = called_names(request);
        let answer_words = content_words(&lower);
        let mut best: Vec<(usize, String)> = request
            .callable_tools()
            .into_iter()
            .filter(|t| !discloses_content(&t.name) && !called.contains(&t.name.as_str()))
            .map(|t| (shared_words(&answer_words, &t), t.name))
            .filter(|(shared, _)| *shared >= MIN_SHARED_WORDS)
            .collect();
        let top = best.iter().map(|(shared, _)| *shared).max()?;
        best.retain(|(shared, _)| *shared == top);
        match best.as_slice() {
            [(_, name)] => Some(Action::RequireTool { tool: name.clone() }),
            _ => Some(Action::RequireCall),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use wink_model::{Message, ToolSpec};

    use super::super::Action;
    use super::super::fixtures::*;

    #[test]
    fn a_procedure_that_fits_an_uncalled_tool_becomes_its_call() {
        let r = with_deferred(
            request(&["add", "read_section"]),
            vec![
                ToolSpec::new(
                    "celsius_to_fahrenheit",
                    "Convert degrees Celsius to degrees Fahrenheit.",
                    json!({"type": "object"}),
                ),
                ToolSpec::new(
                    "km_to_miles",
                    "Convert kilometres to miles.",
                    json!({"type": "object"}),
                ),
            ],
        );
        let before = r.clone();
        let r = after_result_of(r, "add");
        assert_eq!(
            repair(
                &r,
                "To convert 42 degrees Celsius to Fahrenheit, use the formula: (Celsius * 9/5) + 32."
            ),
            Some(Action::RequireTool {
                tool: "celsius_to_fahrenheit".into()
            })
        );
        // An answer, or a procedure no tool fits, stands.
        assert_eq!(repair(&before, "42 °C is 107.6 °F."), None);
        assert_eq!(
            repair(
                &before,
                "To return an item, you can send it back within 30 days."
            ),
            None
        );
        // Without the procedure's phrasing the words alone do not count.
        assert_eq!(
            repair(&before, "To convert Celsius to Fahrenheit: 107.6 degrees."),
            None
        );
    }

    #[test]
    fn a_procedure_that_fits_several_tools_equally_asks_for_any_call() {
        let r = conversation(
            vec![Message::user("What's the status of my last order?")],
            vec![
                ToolSpec::new(
                    "lookup_order",
                    "Look up an order by id: status, tracking number and delivery date.",
                    json!({"type": "object"}),
                ),
                ToolSpec::new(
                    "find_customer",
                    "Find a customer by email: customer id, name and last order id.",
                    json!({"type": "object"}),
                ),
            ],
        );
        assert_eq!(
            repair(
                &r,
                "To check the status of your last order, please provide your order ID."
            ),
            Some(Action::RequireCall)
        );
    }

    #[test]
    fn a_procedure_that_quotes_a_result_stands() {
        let r = shop_request("Can I return an opened kettle?");
        let policy = "Opened items can be returned within 30 days if unused.";
        let read = with_result(r.clone(), "read_section", policy, false);
        let answer = "To return an opened kettle, you need to know that opened items can be returned within 30 days if unused; check your order status.";
        assert_eq!(repair(&read, answer), None);
        // Without the quote, the same procedure becomes a call.
        let other = with_result(r, "read_section", "Refunds take five days.", false);
        assert_eq!(
            repair(&other, answer),
            Some(Action::RequireTool {
                tool: "lookup_order".into()
            })
        );
    }
}
