//! `described-answer`: a text that describes a call of the answer tool instead of making it
//! gives the answer it describes. Measured on Qwen2.5-Coder-1.5B, after `km_to_miles` returned:
//! "To give the final answer, use the `final_answer` function:" and a fenced
//! `{"answer": "42 km = 26.1 miles"}` — taken for a procedure, it would have become a call of
//! `miles_to_km`.

use wink_core::builtin::FINAL_ANSWER;
use wink_model::ModelRequest;

use super::text::json_objects;
use super::{Action, TurnPolicy};

/// The `described-answer` policy.
#[derive(Debug, Clone, Copy)]
pub struct DescribedAnswer;

impl TurnPolicy for DescribedAnswer {
    fn name(&self) -> &'static str {
        "described-answer"
    }

    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action> {
        if !request.tools.iter().any(|t| t.name == FINAL_ANSWER) {
            return None;
        }
        described_answer(answer).map(|text| Action::Answer { text })
    }
}

/// The answer of a text that describes a call of the answer tool: the `answer` string of the
/// first JSON object in `text`, when `text` names the tool.
#[must_use]
pub fn described_answer(text: &str) -> Option<String> {
    if !text.contains(FINAL_ANSWER) {
        return None;
    }
    json_objects(text).find_map(|object| {
        let answer = object.get("answer")?.as_str()?.trim();
        (!answer.is_empty()).then(|| answer.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_described_answer_call_gives_its_answer() {
        assert_eq!(
            described_answer(
                "To give the final answer, use the `final_answer` function:\n```\n{\"answer\": \"42 km = 26.1 miles\"}\n```"
            )
            .as_deref(),
            Some("42 km = 26.1 miles")
        );
        // The object with the answer may follow others; the tool must be named.
        assert_eq!(
            described_answer("final_answer {x} {\"a\": 1} {\"answer\": \"yes\"}").as_deref(),
            Some("yes")
        );
        assert_eq!(described_answer("{\"answer\": \"yes\"}"), None);
        assert_eq!(
            described_answer("Use final_answer with {\"answer\": \" \"}"),
            None
        );
        assert_eq!(described_answer("Use final_answer."), None);
    }

    #[test]
    fn only_when_the_answer_tool_is_offered() {
        let text = "Use final_answer: {\"answer\": \"3\"}";
        let mut request = ModelRequest::default();
        assert_eq!(DescribedAnswer.review(&request, text), None);
        request
            .tools
            .push(super::super::answer_tool::answer_tool_spec());
        assert_eq!(
            DescribedAnswer.review(&request, text),
            Some(Action::Answer { text: "3".into() })
        );
    }
}
