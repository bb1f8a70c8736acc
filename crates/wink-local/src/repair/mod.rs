//! Call-intent repair: an answer that names a tool the model has not called yet is taken back.
//!
//! Small models often describe the call they should make instead of making it ("To check order
//! A-1042, you can call the `lookup_order` function with the order id…", or a fenced JSON block of a
//! made-up result). Measured on Qwen2.5-Coder-1.5B over the `bench/eval` suite, this was the most
//! common failure once the right tool was on offer. Such an answer is never what the user asked for,
//! so when a free turn ([`DecodingConstraint::Auto`]) ends without a call and its text names a callable
//! tool that the conversation has not called yet, the turn is generated again, from the same prompt
//! (the KV cache keeps it, only the new answer is decoded), under the tool-call grammar: a call of
//! that tool when the text names one, any call when it names several.
//!
//! A tool the conversation has called already counts only when the answer describes calling it
//! ("you can call the `get_forecast` function with…": a verb such as *call* or *use* shortly before
//! the name), so an answer that quotes the tool it used ("`get_forecast` says 5 °C") stands. The
//! model then repeats the call or makes a new one; a repeated call gets the earlier result back from
//! the loop's repetition guard with the instruction to answer. Measured on Qwen2.5-Coder-1.5B: after
//! a tool result it often explains how to call the tool instead of answering. The repair happens
//! at most once per model call.
//!
//! One answer is repaired the other way: after a tool result the model sometimes answers with a
//! line of the prompt instead of the result — most often a summarized section's suffix ("To view full
//! content, call `read_section` with key \"conversions\".", measured on Qwen2.5-Coder-1.5B after an
//! `add` result that already held the answer). When a domain tool has returned since the user's
//! question and the answer names only the disclosure tools ([`DISCLOSURE_TOOLS`]), opening a section
//! is not what the user needs: the answer is generated again after a reminder
//! ([`ANSWER_REMINDER`], a user turn given to this generation only, never kept in the conversation),
//! as plain text. So is an answer after domain tool results that shares no word or number with any
//! of them ("This is the full content of the \"dates\" section." after `42 °C = 107.6 °F`).

use wink_core::ToolCall;
use wink_model::{Message, ModelRequest, ToolSpec};

use crate::{DecodingConstraint, callable_tools};

/// Built-in tools that disclose prompt content rather than do the user's work.
pub const DISCLOSURE_TOOLS: [&str; 5] = [
    "read_section",
    "open_sections",
    "search_sections",
    "find_tool",
    "tool.describe",
];

/// The user turn that asks for the answer again ([`Repair::Answer`]).
pub const ANSWER_REMINDER: &str = "Answer my question now, using the tool results above.";

/// How a free answer is taken back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Repair {
    /// Generate the turn again under this constraint: a call.
    Call(DecodingConstraint),
    /// Generate the answer again, as plain text, after [`ANSWER_REMINDER`].
    Answer,
    /// Generate the turn again as a call of the tool that takes what the latest result supplied
    /// ([`follow_up_request`]).
    FollowUp(FollowUp),
}

/// The call a multi-step task is missing (see [`repair`]): `tool`, and, when the latest result
/// is a JSON object, the parameter it supplies and the values it supplies for it.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowUp {
    /// The tool to call.
    pub tool: String,
    /// The parameter the result supplies, and its values there (strings and numbers).
    pub supplied: Option<(String, Vec<serde_json::Value>)>,
}

/// How to take back `answer`, the text of the turn generated for `request` under `constraint`;
/// `None` when it stands. Only free turns ([`DecodingConstraint::Auto`]) are repaired.
#[must_use]
pub fn repair(
    request: &ModelRequest,
    constraint: &DecodingConstraint,
    answer: &str,
) -> Option<Repair> {
    if *constraint != DecodingConstraint::Auto {
        return None;
    }
    if let Some(follow_up) = follow_up(request) {
        return Some(Repair::FollowUp(follow_up));
    }
    let Some(constraint) = repair_constraint(request, answer) else {
        if let Some(call) = procedure_constraint(request, answer) {
            return Some(Repair::Call(call));
        }
        return ungrounded(request, answer).then_some(Repair::Answer);
    };
    let named = named_tools(request, answer);
    let nothing_new = named
        .iter()
        .all(|name| DISCLOSURE_TOOLS.contains(&name.as_str()));
    if !named.is_empty()
        && nothing_new
        && (failed_disclosure_since_question(request) || names_a_section_read(request, answer))
    {
        return Some(Repair::Answer);
    }
    if !domain_result_since_question(request) {
        return Some(Repair::Call(constraint));
    }
    if nothing_new {
        Some(Repair::Answer)
    } else {
        Some(Repair::Call(constraint))
    }
}

/// `request` for a call of the follow-up's tool ([`FollowUp::constraint`]), its supplied
/// parameter narrowed to the values the result supplied (an `enum` in the tool's schema, for this
/// generation only): the 1.5B model, made to call `track_parcel` after `lookup_order` returned
/// `"tracking": "TRK-9931"`, passed the order id from the question instead.
#[must_use]
pub fn follow_up_request(request: &ModelRequest, follow_up: &FollowUp) -> ModelRequest {
    let mut narrowed = request.clone();
    if let Some((parameter, values)) = &follow_up.supplied {
        for tool in narrowed
            .tools
            .iter_mut()
            .chain(narrowed.deferred_tools.iter_mut().map(|d| &mut d.spec))
            .filter(|t| t.name == follow_up.tool)
        {
            if let Some(property) = tool
                .parameters
                .get_mut("properties")
                .and_then(|p| p.get_mut(parameter.as_str()))
                .and_then(serde_json::Value::as_object_mut)
            {
                property.insert("enum".to_owned(), serde_json::Value::from(values.clone()));
            }
        }
    }
    narrowed
}

/// `request` with [`ANSWER_REMINDER`] as a last user turn, for a plain-text answer
/// ([`DecodingConstraint::FinalAnswer`]).
#[must_use]
pub fn answer_request(request: &ModelRequest) -> ModelRequest {
    let mut reminded = request.clone();
    reminded.messages.push(Message::user(ANSWER_REMINDER));
    reminded
}

impl FollowUp {
    /// The constraint of the follow-up call: a call of [`FollowUp::tool`].
    #[must_use]
    pub fn constraint(&self) -> DecodingConstraint {
        DecodingConstraint::RequireNamedTool(self.tool.clone())
    }
}

fn is_user(message: &Message) -> bool {
    matches!(message, Message::User { .. })
}

/// The calls of an assistant message (none for the others).
fn calls_of(message: &Message) -> &[ToolCall] {
    match message {
        Message::Assistant { tool_calls, .. } => tool_calls.as_slice(),
        _ => &[],
    }
}

/// A tool result of `message`, when it is one: its call id, tool name, content and whether the
/// call failed.
fn tool_result(message: &Message) -> Option<(&str, &str, &str, bool)> {
    match message {
        Message::Tool {
            tool_call_id,
            name,
            content,
            is_error,
        } => Some((
            tool_call_id.as_str(),
            name.as_str(),
            content.as_str(),
            *is_error,
        )),
        _ => None,
    }
}

/// Openings of an answer that tells the user how to do the work instead of doing it.
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

/// Words that say nothing about which tool fits.
const STOP_WORDS: [&str; 40] = [
    "a",
    "an",
    "the",
    "to",
    "of",
    "and",
    "or",
    "in",
    "on",
    "for",
    "with",
    "by",
    "from",
    "at",
    "as",
    "is",
    "are",
    "be",
    "it",
    "its",
    "this",
    "that",
    "these",
    "you",
    "your",
    "can",
    "use",
    "using",
    "please",
    "provide",
    "following",
    "step",
    "i",
    "my",
    "me",
    "we",
    "will",
    "would",
    "need",
    "then",
];

/// Content words shared by the answer and a tool's name and description before a repair counts.
const MIN_SHARED_WORDS: usize = 2;

/// An answer that describes a procedure ("To convert 42 degrees Celsius to Fahrenheit, use the
/// formula…", "To check the status of your last order, please provide your order ID.") without
/// naming a tool, while a tool not called yet fits it: at least [`MIN_SHARED_WORDS`] content words
/// of the answer are in that tool's name or description. A call of the best-fitting tool, or any
/// call when several fit equally. The disclosure tools never count as fitting.
///
/// An answer given before any call since the user's question that narrates the work it has yet
/// to do ("To determine when order A-1042 will arrive, I need to look at the file…", measured on
/// Qwen2.5-Coder-1.5B over an MCP filesystem server: it went on to quote a file it made up)
/// becomes a call of any tool, the model choosing which under the grammar: its own plan says
/// better than shared words which tool it needs.
fn procedure_constraint(request: &ModelRequest, answer: &str) -> Option<DecodingConstraint> {
    let lower = answer.trim_start().to_lowercase();
    let narrating = !call_since_question(request)
        && !callable_tools(request).is_empty()
        && NARRATION_PHRASES.iter().any(|p| lower.contains(p));
    if narrating {
        return Some(DecodingConstraint::RequireTool);
    }
    let procedural = PROCEDURE_OPENINGS.iter().any(|o| lower.starts_with(o))
        && PROCEDURE_PHRASES.iter().any(|p| lower.contains(p));
    if !procedural {
        return None;
    }
    let called: Vec<&str> = request
        .messages
        .iter()
        .flat_map(|m| calls_of(m).iter().map(|c| c.name.as_str()))
        .collect();
    let answer_words = content_words(&lower);
    let mut best: Vec<(usize, String)> = callable_tools(request)
        .into_iter()
        .filter(|t| {
            !DISCLOSURE_TOOLS.contains(&t.name.as_str()) && !called.contains(&t.name.as_str())
        })
        .map(|t| (shared_words(&answer_words, &t), t.name))
        .filter(|(shared, _)| *shared >= MIN_SHARED_WORDS)
        .collect();
    let top = best.iter().map(|(shared, _)| *shared).max()?;
    best.retain(|(shared, _)| *shared == top);
    match best.as_slice() {
        [(_, name)] => Some(DecodingConstraint::RequireNamedTool(name.clone())),
        _ => Some(DecodingConstraint::RequireTool),
    }
}

/// Phrases of an answer that narrates work the model has yet to do.
const NARRATION_PHRASES: [&str; 9] = [
    "i need to",
    "i'll need to",
    "i will need to",
    "i would need to",
    "i will first",
    "i'll first",
    "let me",
    "let's",
    "we need to",
];

/// The messages after the last user message, newest first.
fn since_question(request: &ModelRequest) -> impl Iterator<Item = &Message> {
    request.messages.iter().rev().take_while(|m| !is_user(m))
}

/// Has the model made a call since the last user message?
fn call_since_question(request: &ModelRequest) -> bool {
    since_question(request).any(|m| !calls_of(m).is_empty())
}

/// How many of `said` (content words) are in `tool`'s name or description.
fn shared_words(said: &[String], tool: &ToolSpec) -> usize {
    let tool_words = content_words(&format!("{} {}", tool.name, tool.description).to_lowercase());
    said.iter().filter(|w| tool_words.contains(w)).count()
}

/// The distinct content words of lower-case `text`, a plural `s` dropped.
fn content_words(text: &str) -> Vec<String> {
    words(text, false)
}

/// The distinct words of lower-case `text` but stop words, a plural `s` dropped; numbers kept
/// when `numbers`.
fn words(text: &str, numbers: bool) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && (numbers || !w.chars().all(|c| c.is_ascii_digit())))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with(['s', 'u', 'i']) => stem.to_owned(),
            _ => w.to_owned(),
        })
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// Words of a parameter name that say nothing about what it takes (`order_id` is about orders).
const GENERIC_PARAMETER_WORDS: [&str; 8] =
    ["id", "ids", "number", "no", "name", "value", "key", "code"];

/// Question words: they fit every tool that says "where" or "when".
const QUESTION_WORDS: [&str; 12] = [
    "what", "when", "where", "which", "who", "whom", "whose", "why", "how", "does", "do", "did",
];

/// The call a multi-step task is missing. After a domain tool's result, an answer is taken back
/// when a callable tool that has not succeeded yet in this conversation takes what that result
/// has just supplied and fits the question: a word of one of its required parameters' names is a
/// key of the latest successful domain result with a value (`last_order` for `order_id`,
/// `tracking` for `tracking_number`; the words of the result's text when it holds no JSON object),
/// and a content word of the user's message is in its name or description. Measured on
/// Qwen2.5-Coder-1.5B: given a customer's last order id, or an order's tracking number, it answered
/// from memory ("The status of your last order is pending.") instead of making the second call.
/// A tool the user's message names (every word of its name, two at least: see [`names_in`]) fits
/// without a supplied value: measured on the 1.5B model with the answer tool
/// ([`crate::answer_tool`]), "Add 15 and 27, then convert that many degrees Celsius to
/// Fahrenheit." ended after `add` with "42 degrees Fahrenheit". Not when the user's message is
/// the prompt itself (the conversation's first message), which names the tools it describes.
/// The tool sharing the most words with the question is chosen; `None` when no tool qualifies.
fn follow_up(request: &ModelRequest) -> Option<FollowUp> {
    let (latest_call, _, latest, _) = since_question(request)
        .filter_map(tool_result)
        .find(|(_, name, _, failed)| !failed && !DISCLOSURE_TOOLS.contains(name))?;
    let supplied = Supplied::of(latest);
    let (index, question) =
        request
            .messages
            .iter()
            .enumerate()
            .rev()
            .find_map(|(index, m)| match m {
                Message::User { content } => Some((index, content)),
                _ => None,
            })?;
    let question = question.to_lowercase();
    // The prompt itself sent as the user turn (see `crate::with_user_turn`) names the tools it
    // describes: only a user's own message asks for a tool by naming it.
    let asked_by_user = index > 0;
    let question_words: Vec<String> = content_words(&question)
        .into_iter()
        .filter(|w| !QUESTION_WORDS.contains(&w.as_str()))
        .collect();
    let succeeded = |name: &str| {
        request
            .messages
            .iter()
            .filter_map(tool_result)
            .any(|(_, tool, _, failed)| !failed && tool == name)
    };
    let given = given_words(request, latest_call);
    callable_tools(request)
        .into_iter()
        .filter(|t| !DISCLOSURE_TOOLS.contains(&t.name.as_str()) && !succeeded(&t.name))
        .filter(|t| {
            let name = words(&t.name.to_lowercase(), false);
            !given.iter().any(|w| name.contains(w))
        })
        .filter_map(|t| {
            let shared = shared_words(&question_words, &t);
            let parameter = required_parameters(&t.parameters)
                .into_iter()
                .find(|parameter| supplied.supplies(parameter));
            let Some(parameter) = parameter else {
                let named = asked_by_user && names_in(&t.name, &question_words);
                let follow_up = FollowUp {
                    tool: t.name,
                    supplied: None,
                };
                return named.then_some((shared, follow_up));
            };
            let values = supplied.values_for(&parameter);
            let follow_up = FollowUp {
                tool: t.name,
                supplied: (!values.is_empty()).then_some((parameter, values)),
            };
            (shared > 0).then_some((shared, follow_up))
        })
        .reduce(|best, next| if next.0 > best.0 { next } else { best })
        .map(|(_, follow_up)| follow_up)
}

/// Does `question_words` hold every word of the tool name `name` (split at `_`, `.` and `-`,
/// stop words left out), two words at least? `celsius_to_fahrenheit` in "Add 15 and 27, then
/// convert that many degrees Celsius to Fahrenheit."; not `add`, one word.
fn names_in(name: &str, question_words: &[String]) -> bool {
    let name_words = words(&name.to_lowercase(), false);
    name_words.len() >= 2 && name_words.iter().all(|w| question_words.contains(w))
}

/// The words of the argument names the call `call_id` was given (`km_to_miles(km=42)`:
/// `km`). A tool whose name holds one of them turns the result back into what was given
/// (`miles_to_km` after `km_to_miles`), so it is never a follow-up: measured on the 1.5B model,
/// `How many miles is a 42 km run?` otherwise ended at `miles_to_km(26.1)` and answered 42.
fn given_words(request: &ModelRequest, call_id: &str) -> Vec<String> {
    request
        .messages
        .iter()
        .flat_map(calls_of)
        .filter(|call| call.id == call_id)
        .filter_map(|call| match call.arguments.to_value() {
            serde_json::Value::Object(arguments) => Some(arguments),
            _ => None,
        })
        .flat_map(|arguments| arguments.into_iter().map(|(key, _)| key))
        .flat_map(|key| parameter_words(&key))
        .collect()
}

/// The words of a parameter's name that say what it takes (`order_id`: `order`).
fn parameter_words(parameter: &str) -> Vec<String> {
    words(&parameter.to_lowercase(), false)
        .into_iter()
        .filter(|w| !GENERIC_PARAMETER_WORDS.contains(&w.as_str()))
        .collect()
}

/// The names of a JSON-Schema object's required parameters (all of them when none is required).
fn required_parameters(schema: &serde_json::Value) -> Vec<String> {
    let listed = |key: &str| -> Vec<String> {
        match schema.get(key) {
            Some(serde_json::Value::Array(names)) => names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect(),
            Some(serde_json::Value::Object(properties)) => properties.keys().cloned().collect(),
            _ => Vec::new(),
        }
    };
    let required = listed("required");
    if required.is_empty() {
        listed("properties")
    } else {
        required
    }
}

/// The JSON objects in `text`, in order of their opening braces (an object nested in one that
/// parses comes after it too).
pub(crate) fn json_objects(
    text: &str,
) -> impl Iterator<Item = serde_json::Map<String, serde_json::Value>> + '_ {
    text.match_indices('{').filter_map(|(start, _)| {
        serde_json::Deserializer::from_str(&text[start..])
            .into_iter::<serde_json::Map<String, serde_json::Value>>()
            .next()?
            .ok()
    })
}

/// What a tool result supplies: the fields of the first JSON object in it whose values are not
/// null or empty (WINK's tool message is the message, then the value as JSON), or, when it holds
/// none, the words of its text.
#[derive(Debug)]
enum Supplied {
    Fields(Vec<(String, serde_json::Value)>),
    Text(Vec<String>),
}

impl Supplied {
    fn of(result: &str) -> Self {
        match json_objects(result).next() {
            Some(object) => Self::Fields(
                object
                    .into_iter()
                    .filter(|(_, v)| !v.is_null() && v.as_str() != Some(""))
                    .collect(),
            ),
            None => Self::Text(words(&result.to_lowercase(), false)),
        }
    }

    /// The words it supplies: its fields' keys (split at `_`) or its text's words.
    fn words(&self) -> Vec<String> {
        match self {
            Self::Fields(fields) => {
                let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
                words(&keys.join(" ").to_lowercase(), false)
            }
            Self::Text(words) => words.clone(),
        }
    }

    /// Does it supply `parameter` (a word of the parameter's name among its words)?
    fn supplies(&self, parameter: &str) -> bool {
        let supplied = self.words();
        parameter_words(parameter)
            .iter()
            .any(|w| supplied.contains(w))
    }

    /// The string and number values of the fields whose keys share a word with `parameter`.
    fn values_for(&self, parameter: &str) -> Vec<serde_json::Value> {
        let Self::Fields(fields) = self else {
            return Vec::new();
        };
        let wanted = parameter_words(parameter);
        let mut values: Vec<serde_json::Value> = fields
            .iter()
            .filter(|(key, _)| {
                words(&key.to_lowercase(), false)
                    .iter()
                    .any(|w| wanted.contains(w))
            })
            .map(|(_, value)| value)
            .filter(|value| value.is_string() || value.is_number())
            .cloned()
            .collect();
        values.dedup();
        values
    }
}

/// Has a tool other than the disclosure ones returned since the last user message?
fn domain_result_since_question(request: &ModelRequest) -> bool {
    domain_results_since_question(request).next().is_some()
}

/// The callable tools the answer names.
fn named_tools(request: &ModelRequest, answer: &str) -> Vec<String> {
    callable_tools(request)
        .into_iter()
        .map(|t| t.name)
        .filter(|name| names_identifier(answer, name))
        .collect()
}

/// Has a disclosure call failed since the last user message? Its error already says what to do
/// (for a section shown in full: answer from its text), so an answer that describes another
/// such call is asked again as text rather than made a call: the 1.5B model, told
/// `Section 'glossary' is shown in full already`, answered "you can call the `read_section`
/// function with the key "glossary.dreich"", and made to call it, read the forecasts instead and
/// never answered what 'dreich' means.
fn failed_disclosure_since_question(request: &ModelRequest) -> bool {
    since_question(request)
        .filter_map(tool_result)
        .any(|(_, name, _, failed)| failed && DISCLOSURE_TOOLS.contains(&name))
}

/// Does `answer` name a section whose reading succeeded since the last user message? Its text is
/// in the conversation already, so an answer describing how to read it is asked again as text:
/// the 1.5B model, the section pre-opened by a `read_section` call before its first turn
/// (`--preopen-style call`), answered "you can call the `read_section` function with the key
/// `providers-reliability`" with the connect timeout in the result just above, and made to call
/// it, repeated the read until the repetition guard stopped it.
fn names_a_section_read(request: &ModelRequest, answer: &str) -> bool {
    let succeeded = |id: &str| {
        since_question(request)
            .filter_map(tool_result)
            .any(|(call_id, _, _, failed)| call_id == id && !failed)
    };
    since_question(request)
        .flat_map(calls_of)
        .filter(|call| DISCLOSURE_TOOLS.contains(&call.name.as_str()) && succeeded(&call.id))
        .flat_map(|call| section_keys(&call.arguments.to_value()))
        .any(|key| !key.is_empty() && answer.contains(key.as_str()))
}

/// The section keys a disclosure call names (`section_key`, `section_keys`).
fn section_keys(arguments: &serde_json::Value) -> Vec<String> {
    let one = arguments
        .get("section_key")
        .and_then(serde_json::Value::as_str);
    let many = arguments
        .get("section_keys")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str);
    one.into_iter().chain(many).map(str::to_owned).collect()
}

/// The results of tools other than the disclosure ones since the last user message.
fn domain_results_since_question(request: &ModelRequest) -> impl Iterator<Item = &str> {
    since_question(request)
        .filter_map(tool_result)
        .filter(|(_, name, _, _)| !DISCLOSURE_TOOLS.contains(name))
        .map(|(_, _, content, _)| content)
}

/// A free answer after domain tool results that shares no word or number with any of them
/// ("This is the full content of the \"dates\" section." after `42 °C = 107.6 °F`): the model lost
/// the thread; the answer is asked for again ([`Repair::Answer`]).
fn ungrounded(request: &ModelRequest, answer: &str) -> bool {
    if !domain_result_since_question(request) {
        return false;
    }
    let said = words(&answer.to_lowercase(), true);
    !domain_results_since_question(request).any(|result| {
        let found = words(&result.to_lowercase(), true);
        said.iter().any(|w| found.contains(w))
    })
}

/// The constraint to generate again under, when `answer` names callable tools not called yet in
/// `request` (or describes calling one it called): a call of the one it names first; `None` when
/// the answer stands.
fn repair_constraint(request: &ModelRequest, answer: &str) -> Option<DecodingConstraint> {
    let called: Vec<&str> = request
        .messages
        .iter()
        .flat_map(|m| calls_of(m).iter().map(|c| c.name.as_str()))
        .collect();
    let callable = callable_tools(request);
    let named: Vec<&str> = callable
        .iter()
        .map(|t| t.name.as_str())
        .filter(|name| {
            if called.contains(name) {
                describes_call(answer, name)
            } else {
                names_identifier(answer, name)
            }
        })
        .collect();
    // Several named: a described procedure starts with the first ("use `find_customer` to get
    // the id, then `read_section` with key \"orders\"…": measured on the 1.5B, left a free
    // choice it read the section and never looked the customer up).
    named
        .into_iter()
        .min_by_key(|name| identifier_starts(answer, name).first().copied())
        .map(|name| DecodingConstraint::RequireNamedTool(name.to_owned()))
}

/// Verbs that, shortly before a tool's name, describe calling it.
const CALL_VERBS: [&str; 9] = [
    "call", "calling", "use", "using", "invoke", "invoking", "run", "running", "execute",
];

/// How far before the name (in characters) a verb counts.
const VERB_WINDOW: usize = 40;

/// Does `text` describe calling `name` (a call verb within [`VERB_WINDOW`] characters before a
/// whole-identifier occurrence)?
fn describes_call(text: &str, name: &str) -> bool {
    identifier_starts(text, name).into_iter().any(|start| {
        let before: String = text[..start]
            .chars()
            .rev()
            .take(VERB_WINDOW)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<String>()
            .to_lowercase();
        before
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| CALL_VERBS.contains(&word))
    })
}

/// Does `text` contain `name` as a whole identifier (not inside a longer name)?
fn names_identifier(text: &str, name: &str) -> bool {
    !identifier_starts(text, name).is_empty()
}

/// Byte offsets where `name` occurs in `text` as a whole identifier.
fn identifier_starts(text: &str, name: &str) -> Vec<usize> {
    if name.is_empty() {
        return Vec::new();
    }
    let is_name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    text.match_indices(name)
        .map(|(start, _)| start)
        .filter(|&start| {
            let before = text[..start].chars().next_back();
            let after = text[start + name.len()..].chars().next();
            // A trailing full stop ends a sentence, it does not continue the name.
            let after_ok = match after {
                None => true,
                Some('.') => text[start + name.len() + 1..]
                    .chars()
                    .next()
                    .is_none_or(|c| !is_name_char(c)),
                Some(c) => !is_name_char(c),
            };
            before.is_none_or(|c| !is_name_char(c)) && after_ok
        })
        .collect()
}

#[cfg(test)]
mod tests;
