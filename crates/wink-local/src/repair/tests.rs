//! Unit tests of call-intent repair.

use super::*;
use crate::ToolSpec;
use serde_json::json;
use wink_core::ToolArguments;
use wink_model::DeferredTool;

fn tool(name: &str) -> ToolSpec {
    ToolSpec::new(name, "A tool.", json!({"type": "object"}))
}

fn conversation(messages: Vec<Message>, tools: Vec<ToolSpec>) -> ModelRequest {
    ModelRequest {
        messages,
        tools,
        ..ModelRequest::default()
    }
}

fn request(tools: &[&str]) -> ModelRequest {
    conversation(
        vec![Message::user("Has order A-1042 shipped?")],
        tools.iter().map(|n| tool(n)).collect(),
    )
}

/// `request` with `tools` deferred (hidden in a summarized section).
fn with_deferred(mut request: ModelRequest, tools: Vec<ToolSpec>) -> ModelRequest {
    request.deferred_tools = tools
        .into_iter()
        .map(|spec| DeferredTool {
            spec,
            section: "more".into(),
        })
        .collect();
    request
}

#[test]
fn an_answer_that_describes_a_call_is_repaired_toward_that_tool() {
    let r = request(&["lookup_order", "track_parcel"]);
    let answer = "To check it, you can call the `lookup_order` function with the order id A-1042.";
    assert_eq!(
        repair_constraint(&r, answer),
        Some(DecodingConstraint::RequireNamedTool("lookup_order".into()))
    );
}

#[test]
fn of_several_names_the_first_is_called() {
    let r = request(&["lookup_order", "track_parcel", "read_section"]);
    let answer = "Call track_parcel after lookup_order.";
    assert_eq!(
        repair_constraint(&r, answer),
        Some(DecodingConstraint::RequireNamedTool("track_parcel".into()))
    );
    let answer = "Use `lookup_order` for the id. Once you have it, use `read_section` with key \"x\", then track_parcel.";
    assert_eq!(
        repair_constraint(&r, answer),
        Some(DecodingConstraint::RequireNamedTool("lookup_order".into()))
    );
}

#[test]
fn deferred_tools_count_as_callable() {
    let r = with_deferred(request(&["read_section"]), vec![tool("miles_to_km")]);
    let answer = "Use the `miles_to_km` function:\n```json\n{\"km\": 8.05}\n```";
    assert_eq!(
        repair_constraint(&r, answer),
        Some(DecodingConstraint::RequireNamedTool("miles_to_km".into()))
    );
}

#[test]
fn answers_naming_no_tool_or_only_called_ones_stand() {
    let mut r = request(&["get_forecast"]);
    assert_eq!(repair_constraint(&r, "Oslo will be 5 °C."), None);
    r.messages.push(Message::assistant_tool_calls(
        String::new(),
        vec![ToolCall {
            id: "call_0".into(),
            name: "get_forecast".into(),
            arguments: ToolArguments::Json(json!({"city": "Oslo"})),
        }],
    ));
    assert_eq!(
        repair_constraint(&r, "According to `get_forecast`, Oslo will be 5 °C."),
        None
    );
    // Describing the call again (instead of answering) is repaired.
    assert_eq!(
        repair_constraint(
            &r,
            "To get the weather in Oslo, you can call the `get_forecast` function with the city name \"Oslo\"."
        ),
        Some(DecodingConstraint::RequireNamedTool("get_forecast".into()))
    );
}

fn after_result_of(mut r: ModelRequest, name: &str) -> ModelRequest {
    let call = ToolCall {
        id: format!("call_{}", r.messages.len()),
        name: name.into(),
        arguments: ToolArguments::Json(json!({})),
    };
    r.messages.push(Message::assistant_tool_calls(
        String::new(),
        vec![call.clone()],
    ));
    r.messages
        .push(Message::tool_result(&call, format!("{name}: done")));
    r
}

#[test]
fn after_a_domain_result_an_answer_naming_only_disclosure_tools_is_asked_again() {
    let r = after_result_of(request(&["add", "read_section"]), "add");
    let echo = "To view full content, call `read_section` with key \"conversions\".";
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, echo),
        Some(Repair::Answer)
    );
    // Before any domain result the same words are an intent to read the section.
    let fresh = request(&["add", "read_section"]);
    assert_eq!(
        repair(&fresh, &DecodingConstraint::Auto, echo),
        Some(Repair::Call(DecodingConstraint::RequireNamedTool(
            "read_section".into()
        )))
    );
    let read = after_result_of(request(&["add", "read_section"]), "read_section");
    assert_eq!(
        repair(&read, &DecodingConstraint::Auto, echo),
        Some(Repair::Call(DecodingConstraint::RequireNamedTool(
            "read_section".into()
        )))
    );
}

#[test]
fn after_a_domain_result_a_new_domain_tool_is_still_called() {
    let r = after_result_of(
        request(&["lookup_order", "track_parcel", "read_section"]),
        "lookup_order",
    );
    assert_eq!(
        repair(
            &r,
            &DecodingConstraint::Auto,
            "Now call `track_parcel` with TRK-9931."
        ),
        Some(Repair::Call(DecodingConstraint::RequireNamedTool(
            "track_parcel".into()
        )))
    );
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, "It is done: it has shipped."),
        None
    );
}

#[test]
fn after_a_domain_result_describing_the_same_call_again_is_still_a_call() {
    // Measured on the 1.5B: after Oslo's forecast it describes the Oslo call again; made to
    // call, it asks for Rome's (a repeat would get the guard's answer).
    let mut r = request(&["get_forecast"]);
    let call = ToolCall {
        id: "call_0".into(),
        name: "get_forecast".into(),
        arguments: ToolArguments::Json(json!({"city": "Oslo"})),
    };
    r.messages.push(Message::assistant_tool_calls(
        String::new(),
        vec![call.clone()],
    ));
    r.messages.push(Message::tool_result(&call, "snow, -2 °C"));
    let again = "To get the forecast for Oslo, you can call the `get_forecast` function with the city name \"Oslo\".";
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, again),
        Some(Repair::Call(DecodingConstraint::RequireNamedTool(
            "get_forecast".into()
        )))
    );
}

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
            &DecodingConstraint::Auto,
            "To convert 42 degrees Celsius to Fahrenheit, use the formula: (Celsius * 9/5) + 32."
        ),
        Some(Repair::Call(DecodingConstraint::RequireNamedTool(
            "celsius_to_fahrenheit".into()
        )))
    );
    // An answer, or a procedure no tool fits, stands.
    assert_eq!(
        repair(&before, &DecodingConstraint::Auto, "42 °C is 107.6 °F."),
        None
    );
    assert_eq!(
        repair(
            &before,
            &DecodingConstraint::Auto,
            "To return an item, you can send it back within 30 days."
        ),
        None
    );
    // Without the procedure's phrasing the words alone do not count.
    assert_eq!(
        repair(
            &before,
            &DecodingConstraint::Auto,
            "To convert Celsius to Fahrenheit: 107.6 degrees."
        ),
        None
    );
}

#[test]
fn an_answer_narrating_its_own_plan_before_any_call_becomes_any_call() {
    let r = conversation(
        vec![Message::user("When will order A-1042 arrive?")],
        vec![
            ToolSpec::new(
                "fs.list_directory",
                "Get a detailed listing of all files and directories in a specified path.",
                json!({"type": "object"}),
            ),
            ToolSpec::new(
                "fs.read_text_file",
                "Read the complete contents of a file from the file system as text.",
                json!({"type": "object"}),
            ),
        ],
    );
    // As the 1.5B answered over the MCP filesystem server (examples/08_mcp_servers).
    let narration = "To determine when order A-1042 will arrive, I need to look at the file \
        `files/order_status.txt`. The file contains the following information:";
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, narration),
        Some(Repair::Call(DecodingConstraint::RequireTool))
    );
    assert_eq!(
        repair(
            &r,
            &DecodingConstraint::Auto,
            "Let me list the folder first."
        ),
        Some(Repair::Call(DecodingConstraint::RequireTool))
    );
    // An answer that narrates nothing stands.
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, "It arrives on 2026-11-25."),
        None
    );
    // After a call since the question, the narration rule is done: the other rules decide.
    let called = after_result_of(r.clone(), "fs.list_directory");
    assert_eq!(
        repair(
            &called,
            &DecodingConstraint::Auto,
            "I need to say: it arrives on 2026-11-25 (fs.list_directory: done)."
        ),
        None
    );
    // No tool on offer: nothing to call.
    let bare = conversation(vec![Message::user("When?")], Vec::new());
    assert_eq!(
        repair(&bare, &DecodingConstraint::Auto, "Let me think: soon."),
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
            &DecodingConstraint::Auto,
            "To check the status of your last order, please provide your order ID."
        ),
        Some(Repair::Call(DecodingConstraint::RequireTool))
    );
}

#[test]
fn an_answer_sharing_nothing_with_the_results_is_asked_again() {
    let mut r = request(&["celsius_to_fahrenheit"]);
    let call = ToolCall {
        id: "call_0".into(),
        name: "celsius_to_fahrenheit".into(),
        arguments: ToolArguments::Json(json!({"celsius": 42})),
    };
    r.messages.push(Message::assistant_tool_calls(
        String::new(),
        vec![call.clone()],
    ));
    r.messages.push(Message::tool_result(
        &call,
        "42 °C = 107.6 °F\n\n{\"fahrenheit\": 107.6}",
    ));
    assert_eq!(
        repair(
            &r,
            &DecodingConstraint::Auto,
            "This is the full content of the \"dates\" section."
        ),
        Some(Repair::Answer)
    );
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, "It is 107.6 °F."),
        None
    );
    assert_eq!(
        repair(
            &r,
            &DecodingConstraint::Auto,
            "Fahrenheit: about one hundred and eight."
        ),
        None
    );
    // Before any domain result an answer is not checked against results.
    let fresh = request(&["celsius_to_fahrenheit"]);
    assert_eq!(
        repair(&fresh, &DecodingConstraint::Auto, "Hello there."),
        None
    );
    let read = after_result_of(request(&["read_section"]), "read_section");
    assert_eq!(
        repair(&read, &DecodingConstraint::Auto, "Hello there."),
        None
    );
}

fn shop_request(question: &str) -> ModelRequest {
    let schema =
        |p: &str| json!({"type": "object", "properties": {p: {"type": "string"}}, "required": [p]});
    conversation(
        vec![Message::user(question)],
        vec![
            ToolSpec::new(
                "lookup_order",
                "Look up an order by id: status, tracking number and delivery date.",
                schema("order_id"),
            ),
            ToolSpec::new(
                "track_parcel",
                "Tell where a parcel is now and when it arrives, by tracking number.",
                schema("tracking_number"),
            ),
            ToolSpec::new(
                "find_customer",
                "Find a customer by email: customer id, name and last order id.",
                schema("email"),
            ),
            ToolSpec::new("read_section", "Read a section.", schema("key")),
        ],
    )
}

fn with_result(mut r: ModelRequest, name: &str, content: &str, failed: bool) -> ModelRequest {
    let call = ToolCall {
        id: format!("call_{}", r.messages.len()),
        name: name.into(),
        arguments: ToolArguments::Json(json!({})),
    };
    r.messages.push(Message::assistant_tool_calls(
        String::new(),
        vec![call.clone()],
    ));
    r.messages.push(if failed {
        Message::tool_error(&call, content)
    } else {
        Message::tool_result(&call, content)
    });
    r
}

#[test]
fn a_result_that_supplies_what_a_fitting_tool_takes_asks_for_that_call() {
    let customer = "customer jane@example.com: {\"customer_id\": \"CU-17\", \"last_order\": \"B-7\"}\n\n{\"customer_id\": \"CU-17\", \"last_order\": \"B-7\"}";
    let r = with_result(
        shop_request("Hi, I'm jane@example.com. What's the status of my last order?"),
        "find_customer",
        customer,
        false,
    );
    let lookup = Some(Repair::FollowUp(FollowUp {
        tool: "lookup_order".into(),
        supplied: Some(("order_id".into(), vec![json!("B-7")])),
    }));
    assert_eq!(
        repair(
            &r,
            &DecodingConstraint::Auto,
            "The status of your last order is pending."
        ),
        lookup
    );
    // Once it has succeeded, the answer stands.
    let done = with_result(
        r.clone(),
        "lookup_order",
        "order B-7: {\"status\": \"delivered\"}",
        false,
    );
    assert_eq!(
        repair(
            &done,
            &DecodingConstraint::Auto,
            "Your last order was delivered."
        ),
        None
    );
    // A failed call of it does not count as done.
    let failed = with_result(r, "lookup_order", "no order B7", true);
    assert_eq!(
        repair(
            &failed,
            &DecodingConstraint::Auto,
            "Your last order was delivered."
        ),
        lookup
    );
}

#[test]
fn a_follow_up_needs_a_supplied_value_and_a_question_it_fits() {
    let order = |tracking: &str| {
        format!("order A-1042: {{\"status\": \"shipped\", \"tracking\": {tracking}}}")
    };
    let track = Some(Repair::FollowUp(FollowUp {
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
        repair(
            &r,
            &DecodingConstraint::Auto,
            "It has shipped and arrives on 25 November."
        ),
        track
    );
    // No tracking number in the result (null), or a question the tool does not fit: it stands.
    let r = with_result(where_is, "lookup_order", &order("null"), false);
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, "It has not shipped yet."),
        None
    );
    let r = with_result(
        shop_request("Has order A-1042 shipped yet?"),
        "lookup_order",
        &order("\"TRK-9931\""),
        false,
    );
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, "Yes, it has shipped."),
        None
    );
    // Question words alone do not make a tool fit ("when" is in track_parcel's description).
    let r = with_result(
        shop_request("When will my order C-300 be delivered?"),
        "lookup_order",
        &order("\"TRK-1\""),
        false,
    );
    assert_eq!(
        repair(
            &r,
            &DecodingConstraint::Auto,
            "It has shipped; it arrives on 4 December."
        ),
        None
    );
}

#[test]
fn a_described_disclosure_call_after_a_failed_one_is_asked_again_as_text() {
    let answer = "To get the definition of 'dreich', you can call the `read_section` function with the key \"glossary.dreich\".";
    let failed = with_result(
        shop_request("What does 'dreich' mean?"),
        "read_section",
        "Unknown section key: 'glossary.dreich'. Section 'glossary' is shown in full already: answer from its text above.",
        true,
    );
    assert_eq!(
        repair(&failed, &DecodingConstraint::Auto, answer),
        Some(Repair::Answer)
    );
    // Without the failure, the described call is made.
    let fresh = shop_request("What does 'dreich' mean?");
    assert!(matches!(
        repair(&fresh, &DecodingConstraint::Auto, answer),
        Some(Repair::Call(_))
    ));
}

#[test]
fn a_tool_the_user_names_is_the_follow_up_of_another_result() {
    let number =
        |p: &str| json!({"type": "object", "properties": {p: {"type": "number"}}, "required": [p]});
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
        repair(&added, &DecodingConstraint::Auto, "42 degrees Fahrenheit"),
        Some(Repair::FollowUp(FollowUp {
            tool: "celsius_to_fahrenheit".into(),
            supplied: None,
        }))
    );
    // Once it has returned, the answer stands.
    let converted = with_result(added, "celsius_to_fahrenheit", "42 °C = 107.6 °F", false);
    assert_eq!(
        repair(&converted, &DecodingConstraint::Auto, "107.6 °F"),
        None
    );
    // The prompt sent as the user turn (the first message) names the tools it describes.
    let prompt = conversation(vec![Message::user(question)], tools);
    let added = with_result(prompt, "add", "15 + 27 = 42 {\"result\": 42}", false);
    assert_eq!(
        repair(&added, &DecodingConstraint::Auto, "42 degrees Fahrenheit"),
        None
    );
    // One word of a name is not enough: `add` is in many questions.
    assert!(!names_in("add", &content_words("add 1 and 2")));
    assert!(names_in(
        "is_leap_year",
        &content_words("is 2028 a leap year")
    ));
}

#[test]
fn the_inverse_of_the_call_made_is_never_a_follow_up() {
    let number =
        |p: &str| json!({"type": "object", "properties": {p: {"type": "number"}}, "required": [p]});
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
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, "A 42 km run is 26.1 miles."),
        None
    );
    // Without the call's arguments to tell, the result's words alone would pick it.
    if let Message::Assistant { tool_calls, .. } = &mut r.messages[1] {
        tool_calls[0].arguments = ToolArguments::Json(json!({}));
    }
    assert_eq!(
        repair(&r, &DecodingConstraint::Auto, "A 42 km run is 26.1 miles."),
        Some(Repair::FollowUp(FollowUp {
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
    let narrowed = follow_up_request(&r, &follow);
    assert_eq!(
        follow.constraint(),
        DecodingConstraint::RequireNamedTool("track_parcel".into())
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

#[test]
fn content_words_drop_stop_words_digits_and_plurals() {
    assert_eq!(
        content_words("to convert 42 degrees celsius, use the formula"),
        ["celsius", "convert", "degree", "formula"]
    );
    assert_eq!(
        content_words("address class status analysis"),
        ["address", "analysis", "class", "status"]
    );
}

#[test]
fn the_answer_request_ends_with_the_reminder_and_asks_for_text() {
    let r = after_result_of(request(&["add"]), "add");
    let reminded = answer_request(&r);
    assert_eq!(reminded.messages.len(), r.messages.len() + 1);
    assert_eq!(reminded.messages[..r.messages.len()], r.messages[..]);
    assert_eq!(
        reminded.messages[r.messages.len()],
        Message::user("Answer my question now, using the tool results above.")
    );
}

#[test]
fn only_free_turns_are_repaired() {
    let r = request(&["add"]);
    let answer = "Call add.";
    assert_eq!(repair(&r, &DecodingConstraint::FinalAnswer, answer), None);
    assert!(repair(&r, &DecodingConstraint::Auto, answer).is_some());
}

#[test]
fn a_call_is_described_by_a_verb_shortly_before_the_name() {
    assert!(describes_call("you can call the `add` function", "add"));
    assert!(describes_call("Using add, the sum is 5.", "add"));
    assert!(!describes_call("The add tool says 5.", "add"));
    assert!(!describes_call(
        "I will call you back tomorrow when the weather changes; add says 5.",
        "add"
    ));
    assert!(!describes_call("call add_days", "add"));
}

#[test]
fn names_match_whole_identifiers_only() {
    assert!(names_identifier("call `add`.", "add"));
    assert!(names_identifier("use add.", "add"));
    assert!(names_identifier(
        "unit.inches_to_cm(12)",
        "unit.inches_to_cm"
    ));
    assert!(!names_identifier("I added them", "add"));
    assert!(!names_identifier("call add_days", "add"));
    assert!(!names_identifier("call unit.add", "add"));
    assert!(!names_identifier("see add.py", "add"));
    assert!(!names_identifier("anything", ""));
}

#[test]
fn a_described_read_of_a_section_read_already_is_asked_again_as_text() {
    let read = ToolCall {
        id: "preopen_0".into(),
        name: "read_section".into(),
        arguments: ToolArguments::Json(json!({"section_key": "providers-reliability"})),
    };
    let with_read = |result: Message| {
        conversation(
            vec![
                Message::system("Answer from the docs."),
                Message::user("What is the connect timeout of the HTTP providers?"),
                Message::assistant_tool_calls("", vec![read.clone()]),
                result,
            ],
            vec![tool("read_section")],
        )
    };
    let read_ok = with_read(Message::tool_result(
        &read,
        "Content of section 'providers-reliability': connect (10 s)",
    ));
    let answer = "To get the connect timeout, you can call the `read_section` function with the key `providers-reliability`.";
    assert_eq!(
        repair(&read_ok, &DecodingConstraint::Auto, answer),
        Some(Repair::Answer)
    );
    // Another section, not read yet: the described read is made.
    let other =
        "To get it, you can call the `read_section` function with the key `providers-http`.";
    assert_eq!(
        repair(&read_ok, &DecodingConstraint::Auto, other),
        Some(Repair::Call(DecodingConstraint::RequireNamedTool(
            "read_section".into()
        )))
    );
    // A read that failed is not a section read.
    let read_failed = with_read(Message::tool_error(&read, "Unknown section key."));
    assert_eq!(
        repair(&read_failed, &DecodingConstraint::Auto, answer),
        Some(Repair::Answer),
        "a failed disclosure call answers as text already"
    );
}
