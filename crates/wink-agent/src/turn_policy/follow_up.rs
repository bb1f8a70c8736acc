//! `follow-up`: the call a multi-step task is missing.
//!
//! After a result of the user's work, an answer is taken back when a callable tool that has not
//! succeeded yet in this conversation takes what that result has just supplied and fits the
//! question: every word of one of its required parameters' names is in one key of the latest
//! successful result with a value (`last_order` for `order_id`, `tracking` for
//! `tracking_number`, not `price_eur` for `amount_eur`; the words of the result's text when it
//! holds no JSON object), and a content word of the question is in its name but in no name of a
//! tool that succeeded since the question (that word is served already). Measured on
//! Qwen2.5-Coder-1.5B: given a customer's last order id, or an order's tracking number, it
//! answered from memory ("The status of your last order is pending.") instead of making the
//! second call.
//!
//! A follow-up is a call the model did not choose, so the question must name what the tool is
//! about: its description shares words with too many questions (measured on the 1.5B: after a
//! loans lookup, `renew_loan`, "renew a loan … new due date", fitted "when is it due back?" by its
//! description, and the model was made to renew a book, then to place a hold; after an order
//! lookup, "when should it arrive?" was made a refund). Tools that fit are ranked by the content
//! words of the question in their names and descriptions. An answer that names a callable tool
//! not called yet is left to `named-tool`: the model's own plan says which call is missing.
//!
//! A tool the user's message names (every word of its name, two at least: see [`names_in`]) fits
//! without a supplied value: with the answer tool, "Add 15 and 27, then convert that many degrees
//! Celsius to Fahrenheit." ended after `add` with "42 degrees Fahrenheit". Not when the question is
//! the prompt itself, which names the tools it describes. A tool whose name holds a word of the
//! latest call's argument names turns the result back into what was given (`miles_to_km` after
//! `km_to_miles`): never a follow-up (the 1.5B, asked "How many miles is a 42 km run?", otherwise
//! ended at `miles_to_km(26.1)` and answered 42). Of the tools that qualify, the one sharing the
//! most words with the question is asked for; the parameter the result supplies is narrowed to the
//! supplied values for that one call (an `enum`: made to call `track_parcel` after `lookup_order`
//! returned `"tracking": "TRK-9931"`, the 1.5B passed the order id from the question instead).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_core::builtin::discloses_content;
use wink_model::{ModelRequest, ToolSpec};

use super::text::{
    called_names, calls_of, content_words, json_objects, named_tools, question, shared_words,
    since_question, tool_result, words,
};
use super::{Action, TurnPolicy};

/// The `follow-up` policy.
#[derive(Debug, Clone, Copy)]
pub struct FollowUpCall;

impl TurnPolicy for FollowUpCall {
    fn name(&self) -> &'static str {
        "follow-up"
    }

    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action> {
        if names_uncalled_tool(request, answer) {
            return None;
        }
        follow_up(request).map(Action::FollowUp)
    }
}

/// The call a multi-step task is missing: `tool`, and, when the latest result is a JSON object,
/// the parameter it supplies and the values it supplies for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FollowUp {
    /// The tool to call.
    pub tool: String,
    /// The parameter the result supplies, and its values there (strings and numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supplied: Option<(String, Vec<Value>)>,
}

impl FollowUp {
    /// Narrows the supplied parameter of the tool in `request` to the supplied values (an
    /// `enum` in the tool's schema, for this request only).
    pub fn narrow(&self, request: &mut ModelRequest) {
        let Some((parameter, values)) = &self.supplied else {
            return;
        };
        for tool in request
            .tools
            .iter_mut()
            .chain(request.deferred_tools.iter_mut().map(|d| &mut d.spec))
            .filter(|t| t.name == self.tool)
        {
            if let Some(property) = tool
                .parameters
                .get_mut("properties")
                .and_then(|p| p.get_mut(parameter.as_str()))
                .and_then(Value::as_object_mut)
            {
                property.insert("enum".to_owned(), super::enum_of(values));
            }
        }
    }
}

/// Does `answer` name a callable tool the conversation has not called? Then the model's own words
/// say which call is missing better than shared words do, and the turn is left to `named-tool`.
/// Measured on Qwen2.5-Coder-1.5B (a reorder procedure: check the stock with `stock_level`, then
/// order): its answer planned "get the stock on hand (stock_level)", and follow-up asked for the
/// purchase order instead, placed without the check.
fn names_uncalled_tool(request: &ModelRequest, answer: &str) -> bool {
    let called = called_names(request);
    named_tools(request, answer)
        .iter()
        .any(|name| !called.contains(&name.as_str()))
}

/// Words of a parameter name that say nothing about what it takes (`order_id` is about orders).
const GENERIC_PARAMETER_WORDS: [&str; 8] =
    ["id", "ids", "number", "no", "name", "value", "key", "code"];

/// Question words: they fit every tool that says "where" or "when".
const QUESTION_WORDS: [&str; 12] = [
    "what", "when", "where", "which", "who", "whom", "whose", "why", "how", "does", "do", "did",
];

/// The follow-up `request` is missing, if any (see the module docs).
#[must_use]
pub fn follow_up(request: &ModelRequest) -> Option<FollowUp> {
    let latest = since_question(request)
        .filter_map(tool_result)
        .find(|r| !r.failed && !discloses_content(r.name))?;
    let supplied = Supplied::of(latest.content);
    let (question, asked_by_user) = question(request)?;
    let question_words: Vec<String> = content_words(&question.to_lowercase())
        .into_iter()
        .filter(|w| !QUESTION_WORDS.contains(&w.as_str()))
        .collect();
    let succeeded = |name: &str| {
        request
            .messages
            .iter()
            .filter_map(tool_result)
            .any(|r| !r.failed && r.name == name)
    };
    let given = given_words(request, latest.call_id);
    let served = served_words(request);
    request
        .callable_tools()
        .into_iter()
        .filter(|t| !discloses_content(&t.name) && !succeeded(&t.name))
        .filter(|t| {
            let name = words(&t.name.to_lowercase(), false);
            !given.iter().any(|w| name.contains(w))
        })
        .filter_map(|t| candidate(t, &supplied, &question_words, &served, asked_by_user))
        .reduce(|best, next| if next.0 > best.0 { next } else { best })
        .map(|(_, follow_up)| follow_up)
}

/// `tool` as a follow-up with the words it shares with the question, when it qualifies.
fn candidate(
    tool: ToolSpec,
    supplied: &Supplied,
    question_words: &[String],
    served: &[String],
    asked_by_user: bool,
) -> Option<(usize, FollowUp)> {
    let shared = shared_words(question_words, &tool);
    // The question must name what the tool is about, a word of its name that no tool which
    // answered since the question has in its own: a description shares words with too many
    // questions, and a word a call already served asks for nothing more.
    let name_words = content_words(&tool.name.to_lowercase());
    let fits = question_words
        .iter()
        .any(|w| name_words.contains(w) && !served.contains(w));
    let parameter = required_parameters(&tool.parameters)
        .into_iter()
        .find(|parameter| supplied.supplies(parameter));
    let Some(parameter) = parameter else {
        let named = asked_by_user && names_in(&tool.name, question_words);
        let follow_up = FollowUp {
            tool: tool.name,
            supplied: None,
        };
        return named.then_some((shared, follow_up));
    };
    let values = supplied.values_for(&parameter);
    let follow_up = FollowUp {
        tool: tool.name,
        supplied: (!values.is_empty()).then_some((parameter, values)),
    };
    fits.then_some((shared, follow_up))
}

/// The content words of the names of the tools that succeeded since the question: "how many
/// leave days has she left?" is served by `leave_balance`, and its word `leave` does not make
/// `book_leave` a follow-up (measured on the 1.5B: the right answer, "9 days of annual leave
/// left", was taken back to book leave nobody asked for).
fn served_words(request: &ModelRequest) -> Vec<String> {
    since_question(request)
        .filter_map(tool_result)
        .filter(|r| !r.failed && !discloses_content(r.name))
        .flat_map(|r| content_words(&r.name.to_lowercase()))
        .collect()
}

/// Does `question_words` hold every word of the tool name `name` (split at `_`, `.` and `-`,
/// stop words left out), two words at least? `celsius_to_fahrenheit` in "Add 15 and 27, then
/// convert that many degrees Celsius to Fahrenheit."; not `add`, one word.
#[must_use]
pub fn names_in(name: &str, question_words: &[String]) -> bool {
    let name_words = words(&name.to_lowercase(), false);
    name_words.len() >= 2 && name_words.iter().all(|w| question_words.contains(w))
}

/// The words of the argument names the call `call_id` was given (`km_to_miles(km=42)`: `km`).
fn given_words(request: &ModelRequest, call_id: &str) -> Vec<String> {
    request
        .messages
        .iter()
        .flat_map(calls_of)
        .filter(|call| call.id == call_id)
        .filter_map(|call| match call.arguments.to_value() {
            Value::Object(arguments) => Some(arguments),
            _ => None,
        })
        .flat_map(|arguments| arguments.into_iter().map(|(key, _)| key))
        .flat_map(|key| parameter_words(&key))
        .collect()
}

/// Does the key `key` hold every one of `wanted` among its words?
fn key_holds(key: &str, wanted: &[String]) -> bool {
    let key_words = words(&key.to_lowercase(), false);
    wanted.iter().all(|w| key_words.contains(w))
}

/// The words of a parameter's name that say what it takes (`order_id`: `order`).
fn parameter_words(parameter: &str) -> Vec<String> {
    words(&parameter.to_lowercase(), false)
        .into_iter()
        .filter(|w| !GENERIC_PARAMETER_WORDS.contains(&w.as_str()))
        .collect()
}

/// The names of a JSON-Schema object's required parameters (all of them when none is required).
#[must_use]
pub fn required_parameters(schema: &Value) -> Vec<String> {
    let listed = |key: &str| -> Vec<String> {
        match schema.get(key) {
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect(),
            Some(Value::Object(properties)) => properties.keys().cloned().collect(),
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

/// What a tool result supplies: the fields of the first JSON object in it whose values are not
/// null or empty (WINK's tool message is the message, then the value as JSON), or, when it holds
/// none, the words of its text.
#[derive(Debug)]
pub(crate) enum Supplied {
    Fields(Vec<(String, Value)>),
    Text(Vec<String>),
}

impl Supplied {
    pub(crate) fn of(result: &str) -> Self {
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

    /// Does it supply `parameter`: is every word of the parameter's name (generic ones left
    /// out) a word of one field's key, or of the text? `last_order` supplies `order_id`;
    /// `price_eur` does not supply `amount_eur` (measured on the 1.5B: a delivery question whose
    /// order lookup returned `price_eur` was made to call `issue_refund` with it).
    pub(crate) fn supplies(&self, parameter: &str) -> bool {
        let wanted = parameter_words(parameter);
        !wanted.is_empty()
            && match self {
                Self::Fields(fields) => fields.iter().any(|(key, _)| key_holds(key, &wanted)),
                Self::Text(words) => wanted.iter().all(|w| words.contains(w)),
            }
    }

    /// The string and number values of the fields that supply `parameter`.
    pub(crate) fn values_for(&self, parameter: &str) -> Vec<Value> {
        let Self::Fields(fields) = self else {
            return Vec::new();
        };
        let wanted = parameter_words(parameter);
        if wanted.is_empty() {
            return Vec::new();
        }
        let mut values: Vec<Value> = fields
            .iter()
            .filter(|(key, _)| key_holds(key, &wanted))
            .map(|(_, value)| value)
            .filter(|value| value.is_string() || value.is_number())
            .cloned()
            .collect();
        values.dedup();
        values
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use wink_core::{ToolArguments, ToolCall};
    use wink_model::{Message, ToolChoice, ToolSpec};

    use super::super::TurnPolicy;
    use super::super::fixtures::*;
    use super::super::text::content_words;
    use super::super::{Action, FollowUp};
    use super::{Supplied, names_in, required_parameters};

    #[test]
    fn a_result_that_supplies_what_a_fitting_tool_takes_asks_for_that_call() {
        let customer = "customer jane@example.com: {\"customer_id\": \"CU-17\", \"last_order\": \"B-7\"}\n\n{\"customer_id\": \"CU-17\", \"last_order\": \"B-7\"}";
        let r = with_result(
            shop_request("Hi, I'm jane@example.com. What's the status of my last order?"),
            "find_customer",
            customer,
            false,
        );
        let lookup = Some(Action::FollowUp(FollowUp {
            tool: "lookup_order".into(),
            supplied: Some(("order_id".into(), vec![json!("B-7")])),
        }));
        assert_eq!(
            repair(&r, "The status of your last order is pending."),
            lookup
        );
        // Once it has succeeded, the answer stands.
        let done = with_result(
            r.clone(),
            "lookup_order",
            "order B-7: {\"status\": \"delivered\"}",
            false,
        );
        assert_eq!(repair(&done, "Your last order was delivered."), None);
        // A failed call of it does not count as done.
        let failed = with_result(r, "lookup_order", "no order B7", true);
        assert_eq!(repair(&failed, "Your last order was delivered."), lookup);
    }

    #[test]
    fn an_answer_naming_an_uncalled_tool_is_left_to_named_tool() {
        let customer =
            "customer jane@example.com: {\"customer_id\": \"CU-17\", \"last_order\": \"B-7\"}";
        let r = with_result(
            shop_request("Hi, I'm jane@example.com. What's the status of my last order?"),
            "find_customer",
            customer,
            false,
        );
        let plan = "First I get the parcel's position with track_parcel, then I answer.";
        assert_eq!(super::FollowUpCall.review(&r, plan), None);
        assert_eq!(
            repair(&r, plan),
            Some(Action::RequireTool {
                tool: "track_parcel".into()
            })
        );
        // Naming the tool it has called is no plan: the follow-up stands.
        assert!(matches!(
            super::FollowUpCall.review(&r, "find_customer says your last order is B-7."),
            Some(Action::FollowUp(FollowUp { tool, .. })) if tool == "lookup_order"
        ));
    }

    #[test]
    fn the_question_must_name_what_the_follow_up_is_about() {
        let card = json!({"type": "object", "properties": {"card_number": {"type": "string"}}, "required": ["card_number"]});
        let desk = |question: &str| {
            conversation(
                vec![Message::user(question)],
                vec![
                    ToolSpec::new(
                        "member_loans",
                        "A card's loans and due dates.",
                        card.clone(),
                    ),
                    ToolSpec::new(
                        "renew_loan",
                        "Renew a loan of a card: returns the new due date.",
                        card.clone(),
                    ),
                ],
            )
        };
        let loans = "loans of card 2231-0192: {\"card_number\": \"2231-0192\", \"loans\": []}";
        // "due" is in renew_loan's description only: no follow-up.
        let r = with_result(
            desk("what have i got out on card 2231-0192, and when is it due back?"),
            "member_loans",
            loans,
            false,
        );
        assert_eq!(super::FollowUpCall.review(&r, "Nothing is due."), None);
        // Asked to renew, the question names it.
        let r = with_result(
            desk("renew everything on card 2231-0192 please"),
            "member_loans",
            loans,
            false,
        );
        assert_eq!(
            super::FollowUpCall.review(&r, "Done."),
            Some(Action::FollowUp(FollowUp {
                tool: "renew_loan".into(),
                supplied: Some(("card_number".into(), vec![json!("2231-0192")])),
            }))
        );
    }

    #[test]
    fn a_follow_up_needs_a_supplied_value_and_a_question_it_fits() {
        let order = |tracking: &str| {
            format!("order A-1042: {{\"status\": \"shipped\", \"tracking\": {tracking}}}")
        };
        let track = Some(Action::FollowUp(FollowUp {
            tool: "track_parcel".into(),
            supplied: Some(("tracking_number".into(), vec![json!("TRK-9931")])),
        }));
        let where_is = shop_request("Where is the parcel of order A-1042 right now?");
        let r = with_result(
            where_is.clone(),
            "lookup_order",
            &order("\"TRK-9931\""),
            false,
        );
        assert_eq!(
            repair(&r, "It has shipped and arrives on 25 November."),
            track
        );
        // No tracking number in the result (null), or a question the tool does not fit: it stands.
        let r = with_result(where_is, "lookup_order", &order("null"), false);
        assert_eq!(repair(&r, "It has not shipped yet."), None);
        let r = with_result(
            shop_request("Has order A-1042 shipped yet?"),
            "lookup_order",
            &order("\"TRK-9931\""),
            false,
        );
        assert_eq!(repair(&r, "Yes, it has shipped."), None);
        // Question words alone do not make a tool fit ("when" is in track_parcel's description).
        let r = with_result(
            shop_request("When will my order C-300 be delivered?"),
            "lookup_order",
            &order("\"TRK-1\""),
            false,
        );
        assert_eq!(
            repair(&r, "It has shipped; it arrives on 4 December."),
            None
        );
    }

    #[test]
    fn a_tool_the_user_names_is_the_follow_up_of_another_result() {
        let number = |p: &str| json!({"type": "object", "properties": {p: {"type": "number"}}, "required": [p]});
        let question = "Add 15 and 27, then convert that many degrees Celsius to Fahrenheit.";
        let tools = vec![
            ToolSpec::new("add", "Add two numbers.", number("a")),
            ToolSpec::new(
                "celsius_to_fahrenheit",
                "Convert Celsius to Fahrenheit.",
                number("celsius"),
            ),
        ];
        let asked = conversation(
            vec![Message::system("Use the tools."), Message::user(question)],
            tools.clone(),
        );
        let added = with_result(asked, "add", "15 + 27 = 42 {\"result\": 42}", false);
        assert_eq!(
            repair(&added, "42 degrees Fahrenheit"),
            Some(Action::FollowUp(FollowUp {
                tool: "celsius_to_fahrenheit".into(),
                supplied: None,
            }))
        );
        // Once it has returned, the answer stands.
        let converted = with_result(added, "celsius_to_fahrenheit", "42 °C = 107.6 °F", false);
        assert_eq!(repair(&converted, "107.6 °F"), None);
        // The prompt sent as the user turn (the first message) names the tools it describes.
        let prompt = conversation(vec![Message::user(question)], tools);
        let added = with_result(prompt, "add", "15 + 27 = 42 {\"result\": 42}", false);
        assert_eq!(repair(&added, "42 degrees Fahrenheit"), None);
        // One word of a name is not enough: `add` is in many questions.
        assert!(!names_in("add", &content_words("add 1 and 2")));
        assert!(names_in(
            "is_leap_year",
            &content_words("is 2028 a leap year")
        ));
    }

    #[test]
    fn the_inverse_of_the_call_made_is_never_a_follow_up() {
        let number = |p: &str| json!({"type": "object", "properties": {p: {"type": "number"}}, "required": [p]});
        let mut r = conversation(
            vec![Message::user("How many miles is a 42 km run?")],
            vec![
                ToolSpec::new("km_to_miles", "Convert kilometres to miles.", number("km")),
                ToolSpec::new(
                    "miles_to_km",
                    "Convert miles to kilometres.",
                    number("miles"),
                ),
            ],
        );
        let call = ToolCall {
            id: "call_0".into(),
            name: "km_to_miles".into(),
            arguments: ToolArguments::Json(json!({"km": 42})),
        };
        r.messages.push(Message::assistant_tool_calls(
            String::new(),
            vec![call.clone()],
        ));
        r.messages
            .push(Message::tool_result(&call, "42 km = 26.1 miles"));
        assert_eq!(repair(&r, "A 42 km run is 26.1 miles."), None);
        // Without the call's arguments to tell, the words `km_to_miles` served (`miles`, `km`)
        // still leave it out.
        if let Message::Assistant { tool_calls, .. } = &mut r.messages[1] {
            tool_calls[0].arguments = ToolArguments::Json(json!({}));
        }
        assert_eq!(repair(&r, "A 42 km run is 26.1 miles."), None);
    }

    #[test]
    fn a_question_word_a_call_already_served_asks_for_nothing_more() {
        let leave = |question: &str| {
            let id = json!({"type": "object", "properties": {"employee_id": {"type": "string"}, "start": {"type": "string"}}, "required": ["employee_id", "start"]});
            let mut r = conversation(
                vec![Message::user(question)],
                vec![
                    ToolSpec::new("leave_balance", "Days of leave left.", id.clone()),
                    ToolSpec::new("book_leave", "Book leave from a date.", id),
                ],
            );
            let call = ToolCall {
                id: "call_0".into(),
                name: "leave_balance".into(),
                arguments: ToolArguments::Json(json!({"employee_id": "E-200"})),
            };
            r.messages.push(Message::assistant_tool_calls(
                String::new(),
                vec![call.clone()],
            ));
            r.messages.push(Message::tool_result(
                &call,
                r#"{"employee_id": "E-200", "days_left": 9}"#,
            ));
            repair(&r, "She has 9 days of leave left.")
        };
        assert_eq!(leave("How many leave days has E-200 got left?"), None);
        assert_eq!(
            leave("Has E-200 got leave left? If so book leave from 3 March."),
            Some(Action::FollowUp(FollowUp {
                tool: "book_leave".into(),
                supplied: Some(("employee_id".into(), vec![json!("E-200")])),
            }))
        );
    }

    #[test]
    fn supplied_fields_are_the_keys_with_values_or_the_text() {
        let supplied = Supplied::of(
            "order A-1: {\"last_order\": \"B-7\", \"tracking\": null, \"note\": \"\"}\n\n{\"x\": 1}",
        );
        assert!(supplied.supplies("last_order"));
        assert!(!supplied.supplies("note"));
        assert!(supplied.supplies("order_id"));
        assert!(!supplied.supplies("tracking_number"));
        assert_eq!(supplied.values_for("order_id"), [json!("B-7")]);
        // Every word of the parameter's name must be in one key: a price is not an amount.
        let order = Supplied::of("order K-881: {\"item\": \"Kettle\", \"price_eur\": 89.0}");
        assert!(!order.supplies("amount_eur"));
        assert!(order.values_for("amount_eur").is_empty());
        assert!(order.supplies("price"));
        assert!(!order.supplies("id"));
        let text = Supplied::of("42 km = 26.1 miles");
        assert!(text.supplies("miles") && text.supplies("km"));
        assert!(text.values_for("km").is_empty());
    }

    #[test]
    fn the_follow_up_request_narrows_the_supplied_parameter_to_its_values() {
        let r = shop_request("Where is my parcel?");
        let follow = FollowUp {
            tool: "track_parcel".into(),
            supplied: Some(("tracking_number".into(), vec![json!("TRK-9931")])),
        };
        let narrowed = Action::FollowUp(follow.clone()).request(&r).unwrap();
        assert_eq!(
            narrowed.tool_choice,
            ToolChoice::Tool("track_parcel".into())
        );
        assert_eq!(
            narrowed.tools[1].parameters["properties"]["tracking_number"],
            json!({"type": "string", "enum": ["TRK-9931"]})
        );
        assert_eq!(narrowed.tools[0], r.tools[0]);
        assert_eq!(narrowed.messages, r.messages);
    }

    #[test]
    fn required_parameters_fall_back_to_every_property() {
        let schema = json!({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["b"]});
        assert_eq!(required_parameters(&schema), ["b"]);
        let schema = json!({"type": "object", "properties": {"a": {}, "b": {}}});
        assert_eq!(required_parameters(&schema), ["a", "b"]);
    }
}
