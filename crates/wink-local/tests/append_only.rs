//! Append-only prompts: tools added mid-conversation are announced where they became available, the
//! system message never changes, and every call's prompt extends the previous one in every template family.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use wink_core::{ToolArguments, ToolCall};
use wink_local::{
    ChatTemplate, DecodingConstraint, TemplateFamily, ToolSpec, grammar::turn_grammar,
};
use wink_model::{DeferredTool, Message, ModelRequest, ToolAddition};

const FAMILIES: [TemplateFamily; 8] = [
    TemplateFamily::ChatMl,
    TemplateFamily::Llama3,
    TemplateFamily::Gemma,
    TemplateFamily::Phi3,
    TemplateFamily::MistralV1,
    TemplateFamily::MistralV3,
    TemplateFamily::MistralV3Tekken,
    TemplateFamily::MistralV7,
];

fn tool(name: &str, description: &str) -> ToolSpec {
    ToolSpec::new(name, description, json!({"type": "object"}))
}

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: ToolArguments::Json(json!({})),
    }
}

/// A request of `messages` offering `tools`, some of them added after other messages.
fn request(
    messages: Vec<Message>,
    tools: Vec<ToolSpec>,
    tool_additions: Vec<ToolAddition>,
) -> ModelRequest {
    ModelRequest {
        messages,
        tools,
        tool_additions,
        ..ModelRequest::default()
    }
}

/// The requests of a run: `ping` offered from the start, `pong` disclosed by the result of the `ping`
/// call (message 3), then called. Each request is the previous one plus the model's turn and its result.
fn growing_run(system: Option<&str>, initial_tools: bool) -> Vec<ModelRequest> {
    let mut messages: Vec<Message> = system.map(Message::system).into_iter().collect();
    messages.push(Message::user("Ping, then pong."));
    let start = messages.len();
    let ping = call("call_0", "ping");
    let pong = call("call_1", "pong");
    let initial: Vec<ToolSpec> = if initial_tools {
        vec![tool("ping", "Ping.")]
    } else {
        Vec::new()
    };
    let first = request(messages.clone(), initial.clone(), Vec::new());
    messages.push(Message::assistant_tool_calls("", vec![ping.clone()]));
    messages.push(Message::tool_result(&ping, "pong"));
    let mut all = initial;
    all.push(tool("pong", "Pong."));
    let added = vec![ToolAddition {
        after_message: start + 1,
        section: "pong".into(),
        tools: vec!["pong".into()],
    }];
    let second = request(messages.clone(), all.clone(), added.clone());
    messages.push(Message::assistant_tool_calls("", vec![pong.clone()]));
    messages.push(Message::tool_result(&pong, "done"));
    let third = request(messages, all, added);
    vec![first, second, third]
}

/// Each prompt starts with the previous prompt (which ends with the opening of the assistant turn).
#[test]
fn every_family_renders_a_growing_run_as_growing_prompts() {
    for family in FAMILIES {
        for (system, initial_tools) in [
            (Some("Use tools."), true),
            (Some("Use tools."), false),
            (None, true),
            (None, false),
        ] {
            let template = ChatTemplate::new(family, None);
            let prompts: Vec<String> = growing_run(system, initial_tools)
                .iter()
                .map(|request| template.render(request))
                .collect();
            for pair in prompts.windows(2) {
                assert!(
                    pair[1].starts_with(&pair[0]),
                    "{family:?}, system {system:?}, initial tools {initial_tools}:\n{}\n---- is not a prefix of ----\n{}",
                    pair[0],
                    pair[1]
                );
            }
        }
    }
}

const PING_TOOLS_BLOCK: &str = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
    You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n\
    {\"type\": \"function\", \"function\": {\"name\": \"ping\", \"description\": \"Ping.\", \"parameters\": {\"type\": \"object\"}}}\n\
    </tools>\n\nFor each function call, return a json object with function name and arguments within \
    <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";

const PONG_ANNOUNCEMENT: &str = "# New tools\n\nThese functions are now available too, within <tools></tools> XML tags:\n<tools>\n\
    {\"type\": \"function\", \"function\": {\"name\": \"pong\", \"description\": \"Pong.\", \"parameters\": {\"type\": \"object\"}}}\n\
    </tools>";

const PONG_TOOLS_BLOCK: &str = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
    You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n\
    {\"type\": \"function\", \"function\": {\"name\": \"pong\", \"description\": \"Pong.\", \"parameters\": {\"type\": \"object\"}}}\n\
    </tools>\n\nFor each function call, return a json object with function name and arguments within \
    <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";

const PING_CALL: &str = "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>";
const PONG_CALL: &str = "<tool_call>\n{\"name\": \"pong\", \"arguments\": {}}\n</tool_call>";

#[test]
fn qwen_lists_initial_tools_in_the_system_message_and_announces_later_ones_after_their_result() {
    let template = ChatTemplate::new(TemplateFamily::ChatMl, None);
    let run = growing_run(Some("Use tools."), true);
    assert_eq!(
        template.render(&run[2]),
        format!(
            "<|im_start|>system\nUse tools.\n\n{PING_TOOLS_BLOCK}<|im_end|>\n\
             <|im_start|>user\nPing, then pong.<|im_end|>\n\
             <|im_start|>assistant\n{PING_CALL}<|im_end|>\n\
             <|im_start|>user\n<tool_response>\npong\n</tool_response>\n\n{PONG_ANNOUNCEMENT}<|im_end|>\n\
             <|im_start|>assistant\n{PONG_CALL}<|im_end|>\n\
             <|im_start|>user\n<tool_response>\ndone\n</tool_response><|im_end|>\n\
             <|im_start|>assistant\n"
        )
    );
}

#[test]
fn qwen_without_tools_at_start_announces_the_whole_tools_block_later() {
    let template = ChatTemplate::new(TemplateFamily::ChatMl, None);
    let run = growing_run(Some("Use tools."), false);
    assert_eq!(
        template.render(&run[0]),
        "<|im_start|>system\nUse tools.<|im_end|>\n<|im_start|>user\nPing, then pong.<|im_end|>\n<|im_start|>assistant\n"
    );
    assert_eq!(
        template.render(&run[1]),
        format!(
            "<|im_start|>system\nUse tools.<|im_end|>\n\
             <|im_start|>user\nPing, then pong.<|im_end|>\n\
             <|im_start|>assistant\n{PING_CALL}<|im_end|>\n\
             <|im_start|>user\n<tool_response>\npong\n</tool_response>\n\n{PONG_TOOLS_BLOCK}<|im_end|>\n\
             <|im_start|>assistant\n"
        )
    );
}

#[test]
fn llama3_announces_later_tools_in_the_tool_result_turn() {
    let template = ChatTemplate::new(TemplateFamily::Llama3, None);
    let run = growing_run(Some("Use tools."), true);
    assert_eq!(
        template.render(&run[1]),
        format!(
            "<|start_header_id|>system<|end_header_id|>\n\nUse tools.\n\n{PING_TOOLS_BLOCK}<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\nPing, then pong.<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\n{PING_CALL}<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\n<tool_response>\npong\n</tool_response>\n\n{PONG_ANNOUNCEMENT}<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\n"
        )
    );
    let no_tools_at_start = growing_run(None, false);
    assert_eq!(
        template.render(&no_tools_at_start[1]),
        format!(
            "<|start_header_id|>user<|end_header_id|>\n\nPing, then pong.<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\n{PING_CALL}<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\n<tool_response>\npong\n</tool_response>\n\n{PONG_TOOLS_BLOCK}<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\n"
        )
    );
}

#[test]
fn gemma_and_phi3_announce_later_tools_in_the_tool_result_turn() {
    let run = growing_run(Some("Use tools."), true);
    assert_eq!(
        ChatTemplate::new(TemplateFamily::Gemma, None).render(&run[1]),
        format!(
            "<start_of_turn>user\nUse tools.\n\n{PING_TOOLS_BLOCK}\n\nPing, then pong.<end_of_turn>\n\
             <start_of_turn>model\n{PING_CALL}<end_of_turn>\n\
             <start_of_turn>user\n<tool_response>\npong\n</tool_response>\n\n{PONG_ANNOUNCEMENT}<end_of_turn>\n\
             <start_of_turn>model\n"
        )
    );
    assert_eq!(
        ChatTemplate::new(TemplateFamily::Phi3, None).render(&run[1]),
        format!(
            "<|system|>\nUse tools.\n\n{PING_TOOLS_BLOCK}<|end|>\n<|user|>\nPing, then pong.<|end|>\n\
             <|assistant|>\n{PING_CALL}<|end|>\n\
             <|user|>\n<tool_response>\npong\n</tool_response>\n\n{PONG_ANNOUNCEMENT}<|end|>\n<|assistant|>\n"
        )
    );
}

#[test]
fn mistral_announces_later_tools_in_the_instruction_after_the_result() {
    let run = growing_run(Some("Use tools."), true);
    assert_eq!(
        ChatTemplate::new(TemplateFamily::MistralV3, None).render(&run[1]),
        format!(
            "[INST] Use tools.\n\n{PING_TOOLS_BLOCK}\n\nPing, then pong.[/INST] {PING_CALL}</s>\
             [INST] <tool_response>\npong\n</tool_response>\n\n{PONG_ANNOUNCEMENT}[/INST]"
        )
    );
    assert_eq!(
        ChatTemplate::new(TemplateFamily::MistralV7, None).render(&run[1]),
        format!(
            "[SYSTEM_PROMPT] Use tools.\n\n{PING_TOOLS_BLOCK}[/SYSTEM_PROMPT][INST] Ping, then pong.[/INST] {PING_CALL}</s>\
             [INST] <tool_response>\npong\n</tool_response>\n\n{PONG_ANNOUNCEMENT}[/INST]"
        )
    );
}

#[test]
fn deferred_tools_are_callable_but_never_listed() {
    let mut request = request(
        vec![Message::user("Pong.")],
        vec![tool("ping", "Ping.")],
        Vec::new(),
    );
    request.deferred_tools = [tool("pong", "Pong."), tool("ping", "Ping.")]
        .into_iter()
        .map(|spec| DeferredTool {
            spec,
            section: "more".into(),
        })
        .collect();
    let prompt = ChatTemplate::new(TemplateFamily::ChatMl, None).render(&request);
    assert!(!prompt.contains("pong"), "{prompt}");
    let callable: Vec<String> = request
        .callable_tools()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(callable, ["ping", "pong"]);
    let grammar = turn_grammar(&DecodingConstraint::Auto, &request.callable_tools())
        .unwrap()
        .unwrap();
    assert!(
        grammar.contains("call ::= call-ping | call-pong\n"),
        "{grammar}"
    );
    let named = turn_grammar(
        &DecodingConstraint::RequireNamedTool("pong".into()),
        &request.callable_tools(),
    )
    .unwrap()
    .unwrap();
    assert!(named.starts_with("root ::= tool-call\n"), "{named}");
    assert!(named.contains("call ::= call-pong\n"), "{named}");
    assert_eq!(
        turn_grammar(
            &DecodingConstraint::RequireNamedTool("nope".into()),
            &request.callable_tools()
        )
        .unwrap_err()
        .to_string(),
        "a call of tool 'nope' is required but the request offers no tool of that name"
    );
}
