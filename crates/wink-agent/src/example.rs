//! The copied-example guard: a tool call whose argument is the example value from the tool's own
//! description is answered with a failed result instead of running.
//!
//! Tool descriptions teach formats by example ("The order id, e.g. A-1042."). Small models copy
//! the example when the conversation has no real value: measured on Qwen2.5-Coder-1.5B over
//! `bench/eval`, asked "Hi, I'm jane@example.com. What's the status of my last order?" it called
//! `lookup_order("A-1042")` — the example — instead of looking the customer up first, and answered
//! with that order's details. Such a call returns real data for the wrong record, which is worse
//! than no answer.
//!
//! A string argument is a *copied example* when it looks like an identifier or a value (at least
//! three characters, at least one digit), occurs in the tool's description or parameter schema,
//! and occurs nowhere the model could have learned it: not in a user message, not in the result of
//! a tool other than the disclosure and catalog tools (whose results quote section text and tool
//! specs, examples included), and not in the system prompt outside the section that owns the tool
//! (the task section, where a prompt's parameters put the user's question, counts). Words are
//! caught too when they are the example the parameter's schema states (its `examples`, or what
//! its description gives after "e.g." or "for example") and not one of their words occurs in
//! those places: asked "who do we buy NB-3005 from?", the 1.5B model searched products for
//! "hex bolt", the example of the search's `query`, and answered with that product's supplier.
//! The model gets [`copied_example_message`] as a failed result; the call does not run.
//!
//! The unseen-code guard ([`unseen_code`], for the model profiles that ask for it) goes one step
//! further: a string argument with the shape of a record's code (`E-104`, `NB-1002`, `SK101`:
//! letters and digits in one token, with a `-` or `_` or capitals) that occurs nowhere in the
//! conversation — not in the system prompt, a user message or a tool's result — was made up,
//! and a call with it would act on a record nobody named. Small models do this when the
//! question names a person or a product and the code must be looked up first.

use serde_json::Value;
use wink_core::{first_sentence, is_disclosure_tool};

use crate::{Message, ToolSpec};

/// Tools whose results quote prompt text or tool specs (examples included): the builtin
/// disclosure tools and the catalog's meta-tools.
const QUOTING_TOOLS: [&str; 3] = ["tool.list", "tool.describe", "find_tool"];

/// Whether the results of the tool `name` quote prompt text or tool specs: a disclosure tool or
/// one of [`QUOTING_TOOLS`]. Such a tool supplies no value of its own.
pub(crate) fn quotes_the_prompt(name: &str) -> bool {
    is_disclosure_tool(name) || QUOTING_TOOLS.contains(&name)
}

/// Shortest argument the guard looks at.
const MIN_LEN: usize = 3;

/// Most other tools [`copied_example_message`] names.
const MAX_OTHER_TOOLS: usize = 8;

/// Most tools that find the value [`copied_example_message`] names.
const MAX_SOURCES: usize = 3;

/// The tools a refused call's result points the model at, each `(name, description)`: those
/// whose name or description says they return the parameter without taking it (`sources`:
/// `find_employee` for an `employee_id`), and the other tools that could supply a value,
/// offered or hidden (`others`). With sources, the result names them (the first three) and
/// not the others; without, it names the first eight others. Each tool is shown with its
/// description's first sentence.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValueSources<'a> {
    /// Tools that return the parameter without taking it.
    pub sources: &'a [(String, String)],
    /// Every other tool that could supply a value.
    pub others: &'a [(String, String)],
}

/// The failed result for a call that copies `value`, the example of `param` in `tool`'s
/// description; `tools` are the tools named as where a real value comes from.
///
/// ```
/// use wink_agent::{copied_example_message, ValueSources};
/// let others = [
///     ("find_customer".to_owned(), "Find a customer by email: id and last order id. Slow.".to_owned()),
/// ];
/// assert_eq!(
///     copied_example_message("lookup_order", "order_id", "A-1042", ValueSources { sources: &[], others: &others }),
///     "The order_id \"A-1042\" is the example in the description of `lookup_order`, not a value from this conversation. Call `lookup_order` with the order_id the user gave or a tool returned; if there is none yet, get it with another tool first or ask the user. Other tools: find_customer (Find a customer by email: id and last order id.)."
/// );
/// assert_eq!(
///     copied_example_message("lookup_order", "order_id", "A-1042", ValueSources { sources: &others, others: &[] }),
///     "The order_id \"A-1042\" is the example in the description of `lookup_order`, not a value from this conversation. Get the order_id first: call find_customer (Find a customer by email: id and last order id.), then call `lookup_order` with the order_id it returns."
/// );
/// ```
pub fn copied_example_message(
    tool: &str,
    param: &str,
    value: &str,
    tools: ValueSources<'_>,
) -> String {
    let why = format!(
        "is the example in the description of `{tool}`, not a value from this conversation"
    );
    value_message(&why, tool, param, value, tools)
}

/// The failed result for a call whose `value` of `param` occurs nowhere in the conversation
/// (see [`unseen_code`]); `tools` as in [`copied_example_message`].
///
/// ```
/// use wink_agent::{unseen_code_message, ValueSources};
/// assert_eq!(
///     unseen_code_message("book_leave", "employee_id", "E-104", ValueSources::default()),
///     "The employee_id \"E-104\" appears nowhere in this conversation: not in the question, the prompt or a tool result. Call `book_leave` with the employee_id the user gave or a tool returned; if there is none yet, get it with another tool first or ask the user."
/// );
/// let finders = [
///     ("find_employee".to_owned(), "Find employees by name: employee id, title.".to_owned()),
///     ("list_team".to_owned(), "A team's employee ids.".to_owned()),
/// ];
/// assert_eq!(
///     unseen_code_message("book_leave", "employee_id", "E-104", ValueSources { sources: &finders, others: &[] }),
///     "The employee_id \"E-104\" appears nowhere in this conversation: not in the question, the prompt or a tool result. Get the employee_id first: call find_employee (Find employees by name: employee id, title.) or list_team (A team's employee ids.), then call `book_leave` with the employee_id it returns."
/// );
/// ```
pub fn unseen_code_message(
    tool: &str,
    param: &str,
    value: &str,
    tools: ValueSources<'_>,
) -> String {
    let why =
        "appears nowhere in this conversation: not in the question, the prompt or a tool result";
    value_message(why, tool, param, value, tools)
}

/// `The {param} "{value}" {why}.`, then where the value comes from: the tools that return it,
/// or what to call instead and the other tools.
fn value_message(
    why: &str,
    tool: &str,
    param: &str,
    value: &str,
    tools: ValueSources<'_>,
) -> String {
    let described = |list: &[(String, String)], most: usize| -> Vec<String> {
        list.iter()
            .take(most)
            .map(|(name, description)| format!("{name} ({})", first_sentence(description)))
            .collect()
    };
    let mut message = format!("The {param} \"{value}\" {why}.");
    if !tools.sources.is_empty() {
        let sources = described(tools.sources, MAX_SOURCES).join(" or ");
        message.push_str(&format!(
            " Get the {param} first: call {sources}, then call `{tool}` with the {param} it returns."
        ));
        return message;
    }
    message.push_str(&format!(
        " Call `{tool}` with the {param} the user gave or a tool returned; if there is none yet, get it with another tool first or ask the user."
    ));
    if !tools.others.is_empty() {
        let listed = described(tools.others, MAX_OTHER_TOOLS);
        message.push_str(&format!(" Other tools: {}.", listed.join(", ")));
    }
    message
}

/// The text a value may come from: `grounding` (the system prompt outside tool-owning sections,
/// computed when the evaluation starts), user messages and the results of non-disclosure tools.
pub(crate) fn grounded(value: &str, grounding: &str, messages: &[Message]) -> bool {
    value_sources(grounding, messages).any(|text| text.contains(value))
}

/// The texts a value may come from (see [`grounded`]), `grounding` first.
fn value_sources<'a>(grounding: &'a str, messages: &'a [Message]) -> impl Iterator<Item = &'a str> {
    let said = messages.iter().filter_map(|m| match m {
        Message::User { content } => Some(content.as_str()),
        Message::Tool { name, content, .. } if !quotes_the_prompt(name) => Some(content.as_str()),
        _ => None,
    });
    std::iter::once(grounding).chain(said)
}

/// Whether `value` looks like an identifier or a quantity rather than a word.
fn value_like(value: &str) -> bool {
    value.chars().count() >= MIN_LEN && value.chars().any(|c| c.is_ascii_digit())
}

/// The first top-level string argument of `arguments` that copies an example from `spec`, as
/// `(parameter, value)`.
pub fn copied_example(
    spec: &ToolSpec,
    arguments: &Value,
    grounding: &str,
    messages: &[Message],
) -> Option<(String, String)> {
    let Value::Object(arguments) = arguments else {
        return None;
    };
    let schema = spec.parameters.to_string();
    arguments.iter().find_map(|(param, value)| {
        let Value::String(value) = value else {
            return None;
        };
        let value = value.trim();
        let copied = if value_like(value) {
            let in_spec = spec.description.contains(value) || schema.contains(value);
            in_spec && !grounded(value, grounding, messages)
        } else {
            parameter_examples(&spec.parameters, param)
                .iter()
                .any(|example| example.eq_ignore_ascii_case(value))
                && !shares_a_word(value, grounding, messages)
        };
        copied.then(|| (param.clone(), value.to_owned()))
    })
}

/// The examples the schema `parameters` gives for the parameter `param`: its `examples` and
/// `example` strings, and what its description states after "e.g." or "for example", up to the
/// end of that sentence or parenthesis, split at commas and " or " (`"Words of the product
/// name, e.g. hex bolt."` gives `hex bolt`).
fn parameter_examples(parameters: &Value, param: &str) -> Vec<String> {
    let Some(schema) = parameters.get("properties").and_then(|p| p.get(param)) else {
        return Vec::new();
    };
    let mut examples: Vec<String> = match schema.get("examples") {
        Some(Value::Array(values)) => values
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    if let Some(Value::String(example)) = schema.get("example") {
        examples.push(example.clone());
    }
    if let Some(Value::String(description)) = schema.get("description") {
        examples.extend(stated_examples(description));
    }
    examples
}

/// What `description` states after "e.g." or "for example" (see [`parameter_examples`]).
fn stated_examples(description: &str) -> Vec<String> {
    let lower = description.to_ascii_lowercase();
    let mut examples = Vec::new();
    for marker in ["e.g.", "for example"] {
        let mut from = 0;
        while let Some(found) = lower.get(from..).and_then(|rest| rest.find(marker)) {
            let start = from + found + marker.len();
            from = start;
            let rest = description.get(start..).unwrap_or_default();
            let rest = rest.trim_start_matches([':', ',', ' ']);
            let end = rest.find(['.', ')', ';', '\n']).unwrap_or(rest.len());
            let piece = rest.get(..end).unwrap_or_default();
            for part in piece.split(',').flat_map(|part| part.split(" or ")) {
                let part = part.trim().trim_matches(['"', '\'', '`']).trim();
                if !part.is_empty() {
                    examples.push(part.to_owned());
                }
            }
        }
    }
    examples
}

/// Whether a word of `value` (three characters or more, ignoring case) occurs in a text it may
/// come from ([`grounded`]'s): a value the model could have taken, in part, from the conversation.
fn shares_a_word(value: &str, grounding: &str, messages: &[Message]) -> bool {
    let words: Vec<String> = value
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= MIN_LEN)
        .map(str::to_lowercase)
        .collect();
    value_sources(grounding, messages)
        .map(str::to_lowercase)
        .any(|text| words.iter().any(|word| text.contains(word.as_str())))
}

/// Whether `value` has the shape of a code naming a record: one token of ASCII letters and
/// digits, both present, in parts joined by `-` or `_`, and either joined so or written with a
/// capital (`E-104`, `NB-1002`, `SK101`, `ord_77a`); not a word, a number, a date, a quantity
/// (`23kg`), a file name or a phrase.
pub(crate) fn code_like(value: &str) -> bool {
    let parts = value
        .split(['-', '_'])
        .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric()));
    let marked = value.contains(['-', '_']) || value.chars().any(|c| c.is_ascii_uppercase());
    value.len() >= MIN_LEN
        && parts
        && marked
        && value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic())
}

/// The first top-level string argument of `arguments` that has the shape of a code
/// ([`code_like`]) and occurs, ignoring case, nowhere in `system` (the system prompt), a user
/// message or a successful tool result (any tool's, the disclosure tools' included: a section
/// may list codes), as `(parameter, value)`. Failed results do not count: they include this
/// guard's own messages, which quote the value.
pub fn unseen_code(
    arguments: &Value,
    system: &str,
    messages: &[Message],
) -> Option<(String, String)> {
    let Value::Object(arguments) = arguments else {
        return None;
    };
    arguments.iter().find_map(|(param, value)| {
        let Value::String(value) = value else {
            return None;
        };
        let value = value.trim();
        if !code_like(value) {
            return None;
        }
        let wanted = value.to_lowercase();
        let holds = |text: &str| text.to_lowercase().contains(&wanted);
        let seen = holds(system)
            || messages.iter().any(|m| match m {
                Message::User { content } => holds(content),
                Message::Tool {
                    content, is_error, ..
                } => !is_error && holds(content),
                _ => false,
            });
        (!seen).then(|| (param.clone(), value.to_owned()))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    fn lookup_order() -> ToolSpec {
        ToolSpec {
            name: "lookup_order".into(),
            description: "Look up an order by id.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"order_id": {"type": "string", "description": "The order id, e.g. A-1042."}},
                "required": ["order_id"]
            }),
        }
    }

    fn tool_result(name: &str, content: &str) -> Message {
        Message::Tool {
            tool_call_id: "c".into(),
            name: name.into(),
            content: content.into(),
            is_error: false,
            images: Vec::new(),
        }
    }

    #[test]
    fn the_example_value_with_no_source_in_the_conversation_is_caught() {
        let messages = vec![
            Message::system("## Orders\n\nOrder ids look like A-1042."),
            Message::user("What's the status of my last order?"),
            // A read_section result quotes the section, example included: not a source.
            tool_result("read_section", "Order ids look like A-1042."),
        ];
        assert_eq!(
            copied_example(
                &lookup_order(),
                &json!({"order_id": "A-1042"}),
                "## Task\n\nAnswer customers.",
                &messages
            ),
            Some(("order_id".to_owned(), "A-1042".to_owned()))
        );
    }

    #[test]
    fn a_value_the_user_a_tool_or_the_task_gave_stands() {
        let spec = lookup_order();
        let args = json!({"order_id": "A-1042"});
        let user = vec![Message::user("Has order A-1042 shipped?")];
        assert_eq!(copied_example(&spec, &args, "", &user), None);
        let tool = vec![tool_result("find_customer", "last order: A-1042")];
        assert_eq!(copied_example(&spec, &args, "", &tool), None);
        assert_eq!(
            copied_example(&spec, &args, "Question: has order A-1042 shipped?", &[]),
            None
        );
    }

    #[test]
    fn words_short_values_and_values_outside_the_spec_stand() {
        let spec = ToolSpec {
            name: "forecast".into(),
            description: "Forecast for a city, e.g. Paris, in units such as C1.".into(),
            parameters: json!({"type": "object"}),
        };
        // A word (no digit) and a two-character value are not treated as copied.
        assert_eq!(
            copied_example(&spec, &json!({"city": "Paris", "unit": "C1"}), "", &[]),
            None
        );
        // A value the description does not contain.
        assert_eq!(
            copied_example(&lookup_order(), &json!({"order_id": "B-77"}), "", &[]),
            None
        );
        // Non-string arguments are not looked at.
        assert_eq!(
            copied_example(&lookup_order(), &json!({"order_id": 1042}), "", &[]),
            None
        );
    }

    fn search_products() -> ToolSpec {
        ToolSpec {
            name: "search_products".into(),
            description: "Search products by words of their name.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"query": {
                    "type": "string",
                    "description": "Words of the product name, e.g. hex bolt or cable tie.",
                    "examples": ["nitrile gloves"]
                }},
                "required": ["query"]
            }),
        }
    }

    #[test]
    fn words_copied_from_the_parameters_example_are_caught_when_nothing_says_them() {
        let spec = search_products();
        let question = vec![Message::user("who do we buy NB-3005 from?")];
        for copied in ["hex bolt", "Cable tie", "nitrile gloves"] {
            assert_eq!(
                copied_example(&spec, &json!({ "query": copied }), "## Task", &question),
                Some(("query".to_owned(), copied.to_owned())),
                "{copied}"
            );
        }
        // Not the example: any other words stand.
        let other = json!({"query": "bolt"});
        assert_eq!(copied_example(&spec, &other, "## Task", &question), None);
        // The example, but a word of it is in the question, a tool result or the task.
        let args = json!({"query": "hex bolt"});
        let asked = vec![Message::user("how many M8 bolts are left?")];
        assert_eq!(copied_example(&spec, &args, "", &asked), None);
        let found = vec![tool_result("get_product", "NB-1001: Hex bolt M8x40")];
        assert_eq!(copied_example(&spec, &args, "", &found), None);
        assert_eq!(copied_example(&spec, &args, "We sell hex keys.", &[]), None);
        // A section read quotes the prompt: not a source.
        let read = vec![tool_result("read_section", "Search for hex bolt.")];
        assert_eq!(
            copied_example(&spec, &args, "", &read),
            Some(("query".to_owned(), "hex bolt".to_owned()))
        );
    }

    #[test]
    fn examples_are_read_from_the_words_after_e_g_and_for_example() {
        assert_eq!(
            stated_examples("The city, e.g. Paris or 'Lyon'; for example: Nice, Metz."),
            ["Paris", "Lyon", "Nice", "Metz"]
        );
        assert_eq!(
            stated_examples("A city (E.g. Paris) to look up."),
            ["Paris"]
        );
        assert!(stated_examples("The city to look up.").is_empty());
        assert!(stated_examples("Ends with e.g.").is_empty());
    }

    #[test]
    fn a_code_found_nowhere_in_the_conversation_is_caught() {
        let messages = vec![
            Message::user("Book two days of leave for Ana Lima from 3 March."),
            tool_result("find_employee", "no match"),
        ];
        let args = json!({"employee_id": "E-104", "days": 2, "reason": "family visit 3 March"});
        assert_eq!(
            unseen_code(&args, "## Task\n\nYou book leave.", &messages),
            Some(("employee_id".to_owned(), "E-104".to_owned()))
        );
        // The guard's own failed result quotes the value: it does not ground it.
        let mut refused = messages.clone();
        refused.push(Message::Tool {
            tool_call_id: "c".into(),
            name: "book_leave".into(),
            content: unseen_code_message(
                "book_leave",
                "employee_id",
                "E-104",
                ValueSources::default(),
            ),
            is_error: true,
            images: Vec::new(),
        });
        assert!(unseen_code(&args, "", &refused).is_some());
    }

    #[test]
    fn a_code_the_prompt_the_user_or_any_result_holds_stands_in_any_case() {
        let args = json!({"sku": "nb-1002"});
        assert_eq!(
            unseen_code(&args, "Notebooks: NB-1002, NB-1003.", &[]),
            None
        );
        let user = vec![Message::user("How many NB-1002 are left?")];
        assert_eq!(unseen_code(&args, "", &user), None);
        let read = vec![tool_result(
            "read_section",
            "Products: NB-1002 (A5 notebook)",
        )];
        assert_eq!(unseen_code(&args, "", &read), None);
    }

    #[test]
    fn words_numbers_dates_quantities_and_phrases_are_not_codes() {
        for value in [
            "Lisbon",
            "10234",
            "2026-03-03",
            "23kg",
            "10:30",
            "a1",
            "report.pdf",
            "SK 101",
            "flight delayed 2h",
            "-A1",
            "A1-",
        ] {
            assert!(!code_like(value), "{value}");
        }
        for value in ["E-104", "NB-1002", "SK101", "ord_77a", "D-L-001", "T-5001"] {
            assert!(code_like(value), "{value}");
        }
        assert_eq!(
            unseen_code(&json!({"city": "Lisbon", "n": "SK 101"}), "", &[]),
            None
        );
    }
}
