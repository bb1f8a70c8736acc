//! Turn policies: each reviews a model's finished turn and may take it back.
//!
//! Small models often get a turn half right: they describe the call they should make instead of
//! making it ("you can call the `lookup_order` function with…"), narrate a plan, answer with a
//! line of the prompt after a tool already gave the answer, or stop one call short of a
//! multi-step task. Such an answer is never what the user asked for. A [`TurnPolicy`] looks at a
//! free turn ([`ToolChoice::Auto`]) that ended without a call and says what to do instead
//! ([`Action`]) — `empty-answer` and `narration` also review a turn the loop asked to be an
//! answer ([`ToolChoice::None`]); the loop then asks the model again — as a call of any tool, a call
//! of a named tool, or a plain answer after a one-turn reminder — from the same conversation (a
//! prefix cache keeps it), once per turn. Every firing is a `TurnRepaired` session event.
//!
//! Which policies run, in which order, is the model's profile's choice
//! ([`wink_model::profile::ModelProfile::turn_policies`]); each can be switched off alone
//! (`--no-repair RULE`, a prompt file's `"repairs": {"RULE": false}`). The policies are
//! provider-neutral: the embedded model regenerates under its grammar, an HTTP provider gets the
//! request again with `tool_choice` required or naming the tool.
//!
//! | policy | fires on | action |
//! |---|---|---|
//! | [`empty-answer`](empty_answer) | a turn with neither text nor a call, or only echoing the tool definitions | the answer tool's call when offered, else any call before a result, else a plain answer |
//! | [`described-answer`](described_answer) | a text describing a call of the answer tool, with its `{"answer": …}` | the answer |
//! | [`follow-up`](follow_up) | an answer after a result that supplies what an uncalled tool the question fits takes | that tool's call |
//! | [`disclosure-echo`](disclosure_echo) | an answer that only names disclosure tools after the work began | a plain answer |
//! | [`named-tool`](named_tool) | an answer naming a tool not called yet, or describing a call again | that tool's call, or the tool its failed result names, or the tool that returns the example code it gives the tool; a plain answer when it repeats a turn word for word after the tool answered |
//! | [`narration`](narration) | an answer narrating work still to do before any call succeeded; a plan or steps once a domain tool returned | any call; after a result, a plain answer |
//! | [`procedure`](procedure) | "To do X, use the…" that an uncalled tool fits, quoting no result | that tool's call |
//! | [`ungrounded`](ungrounded) | an answer after results that shares no word with them, or says it lacks the information a result just gave | a plain answer |

pub mod answer_tool;
pub mod described_answer;
pub mod disclosure_echo;
pub mod empty_answer;
pub mod follow_up;
pub mod named_tool;
pub mod narration;
pub mod procedure;
pub(crate) mod text;
pub mod ungrounded;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_model::{Message, ModelRequest, ToolChoice};

pub use follow_up::FollowUp;

/// How the user turn that asks for the answer again ([`Action::AskAgainAsText`]) begins; it is
/// given to that one model call and never kept in the conversation ([`answer_reminder`]).
pub const ANSWER_REMINDER: &str = "Answer my question now, using the tool results above.";

/// The longest question (in characters) [`answer_reminder`] repeats.
pub const REPEATED_QUESTION_CHARS: usize = 300;

/// The user turn that asks for the answer again: [`ANSWER_REMINDER`], then the user's question
/// once more when a user asked one of at most [`REPEATED_QUESTION_CHARS`] characters (the
/// question is often far back by then, behind the results, and a small model that has lost it
/// answers another one or says it has nothing to answer from).
#[must_use]
pub fn answer_reminder(request: &ModelRequest) -> String {
    match text::question(request) {
        Some((question, true)) if question.trim().chars().count() <= REPEATED_QUESTION_CHARS => {
            format!("{ANSWER_REMINDER}\nMy question: {}", question.trim())
        }
        _ => ANSWER_REMINDER.to_owned(),
    }
}

/// What the loop does instead of taking a turn as it came.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Take this text as the turn's answer (no new model call).
    Answer {
        /// The answer.
        text: String,
    },
    /// Ask again for a plain-text answer, after [`answer_reminder`].
    AskAgainAsText,
    /// Ask again for a call of any tool.
    RequireCall,
    /// Ask again for a call of this tool.
    RequireTool {
        /// The tool.
        tool: String,
    },
    /// Ask again for a call of the tool that takes what the latest result supplied (see
    /// [`FollowUp`]).
    FollowUp(FollowUp),
}

impl Action {
    /// The action's wire name (`answer`, `ask_again_as_text`, `require_call`, `require_tool`,
    /// `follow_up`).
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Answer { .. } => "answer",
            Self::AskAgainAsText => "ask_again_as_text",
            Self::RequireCall => "require_call",
            Self::RequireTool { .. } => "require_tool",
            Self::FollowUp(_) => "follow_up",
        }
    }

    /// The tool the new turn must call, when there is one.
    #[must_use]
    pub fn tool(&self) -> Option<&str> {
        match self {
            Self::RequireTool { tool } => Some(tool),
            Self::FollowUp(follow_up) => Some(&follow_up.tool),
            _ => None,
        }
    }

    /// Whether the loop asks the model again (every action but [`Action::Answer`]).
    #[must_use]
    pub fn asks_again(&self) -> bool {
        !matches!(self, Self::Answer { .. })
    }

    /// The request that asks again: `request` with the tool choice this action needs, a
    /// follow-up's parameter narrowed to the values the result supplied, or the reminder as a
    /// last user turn. `None` for [`Action::Answer`].
    #[must_use]
    pub fn request(&self, request: &ModelRequest) -> Option<ModelRequest> {
        let mut again = request.clone();
        match self {
            Self::Answer { .. } => return None,
            Self::AskAgainAsText => {
                again.messages.push(Message::user(answer_reminder(request)));
                again.tool_choice = ToolChoice::None;
            }
            Self::RequireCall => again.tool_choice = ToolChoice::Required,
            Self::RequireTool { tool } => again.tool_choice = ToolChoice::Tool(tool.clone()),
            Self::FollowUp(follow_up) => {
                follow_up.narrow(&mut again);
                again.tool_choice = ToolChoice::Tool(follow_up.tool.clone());
            }
        }
        Some(again)
    }
}

/// A rule that reviews a finished free turn.
pub trait TurnPolicy: Send + Sync {
    /// Its name (`named-tool`, ...), as profiles and `--no-repair` name it.
    fn name(&self) -> &'static str;
    /// What to do instead of taking `answer`, the text of a turn without calls that the model
    /// gave to `request` (a free turn); `None` when the answer stands as far as this rule goes.
    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action>;
    /// Whether it also reviews a turn the loop asked to be an answer ([`ToolChoice::None`]);
    /// only free turns otherwise.
    fn reviews_answer_only_turns(&self) -> bool {
        false
    }
}

/// Every policy, by name, in the order [`wink_model::profile::ALL_TURN_POLICIES`] lists them.
#[must_use]
pub fn policy_named(name: &str) -> Option<&'static dyn TurnPolicy> {
    let policy: &'static dyn TurnPolicy = match name {
        "empty-answer" => &empty_answer::EmptyAnswer,
        "described-answer" => &described_answer::DescribedAnswer,
        "follow-up" => &follow_up::FollowUpCall,
        "disclosure-echo" => &disclosure_echo::DisclosureEcho,
        "named-tool" => &named_tool::NamedTool,
        "narration" => &narration::Narration,
        "procedure" => &procedure::Procedure,
        "ungrounded" => &ungrounded::Ungrounded,
        _ => return None,
    };
    Some(policy)
}

/// Checks policy names (a profile's, `--no-repair`'s, a prompt file's `repairs`).
///
/// # Errors
/// The first unknown name, with the known ones.
pub fn check_policy_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), String> {
    for name in names {
        if policy_named(name).is_none() {
            return Err(format!(
                "unknown turn policy '{name}' (known: {})",
                wink_model::profile::ALL_TURN_POLICIES.join(", ")
            ));
        }
    }
    Ok(())
}

/// A policy fired: which, and what it asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Firing {
    /// The policy.
    pub rule: String,
    /// What the loop does.
    #[serde(flatten)]
    pub action: Action,
}

/// The policies of `names`, in order, that review a turn given with `choice`: every one for a
/// free turn ([`ToolChoice::Auto`]), those that say they review it for an answer-only one
/// ([`ToolChoice::None`]), none for a turn that had to call a tool.
pub fn reviewers<'a>(
    names: &'a [String],
    choice: &ToolChoice,
) -> impl Iterator<Item = &'static dyn TurnPolicy> + 'a {
    let answer_only = match choice {
        ToolChoice::Auto => Some(false),
        ToolChoice::None => Some(true),
        _ => None,
    };
    names
        .iter()
        .filter(move |_| answer_only.is_some())
        .filter_map(|name| policy_named(name))
        .filter(move |policy| answer_only == Some(false) || policy.reviews_answer_only_turns())
}

/// Reviews a turn that ended without a call under the policies `names` that review it (see
/// [`reviewers`]), in order: the first that fires decides.
#[must_use]
pub fn review(names: &[String], request: &ModelRequest, answer: &str) -> Option<Firing> {
    reviewers(names, &request.tool_choice).find_map(|policy| {
        policy.review(request, answer).map(|action| Firing {
            rule: policy.name().to_owned(),
            action,
        })
    })
}

/// A value list as JSON, for a narrowed parameter.
pub(crate) fn enum_of(values: &[Value]) -> Value {
    Value::from(values.to_vec())
}

#[cfg(test)]
mod fixtures;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use wink_model::{Message, ToolChoice};

    use super::fixtures::*;
    use super::{ANSWER_REMINDER, Action, REPEATED_QUESTION_CHARS, answer_reminder};

    #[test]
    fn the_answer_request_ends_with_the_reminder_and_asks_for_text() {
        let mut r = request(&["add"]);
        r.messages
            .insert(0, Message::system("You help with orders."));
        let r = after_result_of(r, "add");
        let reminded = Action::AskAgainAsText.request(&r).unwrap();
        assert_eq!(reminded.tool_choice, ToolChoice::None);
        assert_eq!(reminded.messages.len(), r.messages.len() + 1);
        assert_eq!(reminded.messages[..r.messages.len()], r.messages[..]);
        assert_eq!(
            reminded.messages[r.messages.len()],
            Message::user(
                "Answer my question now, using the tool results above.\nMy question: Has order A-1042 shipped?"
            )
        );
    }

    #[test]
    fn the_reminder_repeats_a_short_question_a_user_asked() {
        // The prompt as the only message (system, or the first user turn) is not repeated.
        let mut prompt_only = after_result_of(request(&["add"]), "add");
        assert_eq!(
            answer_reminder(&prompt_only),
            "Answer my question now, using the tool results above."
        );
        prompt_only.messages[0] = Message::system("Add 2 and 3 with `add`.");
        assert_eq!(answer_reminder(&prompt_only), ANSWER_REMINDER);
        let mut long = request(&["add"]);
        long.messages.insert(0, Message::system("You add."));
        let mut long = after_result_of(long, "add");
        long.messages[1] = Message::user("x".repeat(REPEATED_QUESTION_CHARS + 1));
        assert_eq!(answer_reminder(&long), ANSWER_REMINDER);
        long.messages[1] = Message::user(format!(" {} ", "x".repeat(REPEATED_QUESTION_CHARS)));
        assert_eq!(
            answer_reminder(&long),
            format!(
                "{ANSWER_REMINDER}\nMy question: {}",
                "x".repeat(REPEATED_QUESTION_CHARS)
            )
        );
    }

    #[test]
    fn only_free_turns_are_repaired() {
        let r = request(&["add"]);
        let answer = "Call add.";
        let mut answering = r.clone();
        answering.tool_choice = ToolChoice::None;
        assert_eq!(repair(&answering, answer), None);
        assert!(repair(&r, answer).is_some());
    }
}
