//! `follow-up`: the call a multi-step task is missing.
//!
//! After a result of the user's work, an answer is taken back when a callable tool that has not
//! succeeded yet in this conversation takes what that result has just supplied and fits the
//! question: a word of one of its required parameters' names is a key of the latest successful
//! result with a value (`last_order` for `order_id`, `tracking` for `tracking_number`; the words of
//! the result's text when it holds no JSON object), and a content word of the question is in its
//! name or description. Measured on Qwen2.5-Coder-1.5B: given a customer's last order id, or an
//! order's tracking number, it answered from memory ("The status of your last order is pending.")
//! instead of making the second call.
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
    callable_tools, calls_of, content_words, json_objects, question, shared_words, since_question,
    tool_result, words,
};
use super::{Action, TurnPolicy};

/// The `follow-up` policy.
#[derive(Debug, Clone, Copy)]
pub struct FollowUpCall;

impl TurnPolicy for FollowUpCall {
    fn name(&self) -> &'static str {
        "follow-up"
    }

    fn review(&self, request: &ModelRequest, _answer: &str) -> Option<Action> {
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
    callable_tools(request)
        .into_iter()
        .filter(|t| !discloses_content(&t.name) && !succeeded(&t.name))
        .filter(|t| {
            let name = words(&t.name.to_lowercase(), false);
            !given.iter().any(|w| name.contains(w))
        })
        .filter_map(|t| candidate(t, &supplied, &question_words, asked_by_user))
        .reduce(|best, next| if next.0 > best.0 { next } else { best })
        .map(|(_, follow_up)| follow_up)
}

/// `tool` as a follow-up with the words it shares with the question, when it qualifies.
fn candidate(
    tool: ToolSpec,
    supplied: &Supplied,
    question_words: &[String],
    asked_by_user: bool,
) -> Option<(usize, FollowUp)> {
    let shared = shared_words(question_words, &tool);
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
    (shared > 0).then_some((shared, follow_up))
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

    /// The words it supplies: its fields' keys (split at `_`) or its text's words.
    pub(crate) fn words(&self) -> Vec<String> {
        match self {
            Self::Fields(fields) => {
                let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
                words(&keys.join(" ").to_lowercase(), false)
            }
            Self::Text(words) => words.clone(),
        }
    }

    /// Does it supply `parameter` (a word of the parameter's name among its words)?
    pub(crate) fn supplies(&self, parameter: &str) -> bool {
        let supplied = self.words();
        parameter_words(parameter)
            .iter()
            .any(|w| supplied.contains(w))
    }

    /// The string and number values of the fields whose keys share a word with `parameter`.
    pub(crate) fn values_for(&self, parameter: &str) -> Vec<Value> {
        let Self::Fields(fields) = self else {
            return Vec::new();
        };
        let wanted = parameter_words(parameter);
        let mut values: Vec<Value> = fields
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use wink_core::{ToolArguments, ToolCall};
    use wink_model::{Message, ToolChoice, ToolSpec};

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
        // Without the call's arguments to tell, the result's words alone would pick it.
        if let Message::Assistant { tool_calls, .. } = &mut r.messages[1] {
            tool_calls[0].arguments = ToolArguments::Json(json!({}));
        }
        assert_eq!(
            repair(&r, "A 42 km run is 26.1 miles."),
            Some(Action::FollowUp(FollowUp {
                tool: "miles_to_km".into(),
                supplied: None,
            }))
        );
    }

    #[test]
    fn supplied_fields_are_the_keys_with_values_or_the_text() {
        let supplied = Supplied::of(
            "order A-1: {\"last_order\": \"B-7\", \"tracking\": null, \"note\": \"\"}\n\n{\"x\": 1}",
        );
        assert_eq!(supplied.words(), ["last", "order"]);
        assert!(supplied.supplies("order_id"));
        assert!(!supplied.supplies("tracking_number"));
        assert_eq!(supplied.values_for("order_id"), [json!("B-7")]);
        let text = Supplied::of("42 km = 26.1 miles");
        assert_eq!(text.words(), ["km", "mile"]);
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
