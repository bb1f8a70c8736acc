//! Typed structured output: `PromptTemplate<O>` built with `output_object::<T>()` or
//! `output_list::<T>()`, decoded with `parse_output` in WINK's order and with its messages.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use wink_core::*;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Summary {
    title: String,
    bullets: Vec<String>,
    confidence: Option<f64>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Finding {
    file: String,
    line: u32,
}

/// The schema says "a string"; the type accepts only two of them.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Strict {
    name: String,
    #[schemars(with = "String")]
    level: Level,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Low,
    High,
}

fn task() -> MarkdownSection {
    MarkdownSection::new("Task", "task", "Summarize the release notes.")
}

fn summary_template() -> PromptTemplate<Summary> {
    PromptTemplate::builder("docs", "summarize")
        .section(task())
        .output_object::<Summary>(false)
        .build()
        .unwrap()
}

#[test]
fn object_output_decodes_into_the_declared_type() {
    let template: PromptTemplate<Summary> = summary_template();
    let text = "Here it is:\n```json\n{\"title\": \"v2\", \"bullets\": [\"faster\"], \"confidence\": 0.5}\n```";
    assert_eq!(
        template.parse_output(text).unwrap(),
        Summary {
            title: "v2".into(),
            bullets: vec!["faster".into()],
            confidence: Some(0.5),
        }
    );
    // The prompt carries the same type.
    let prompt: Prompt<Summary> = Prompt::new(template.clone());
    let whole = r#"{"title": "t", "bullets": []}"#;
    assert_eq!(
        prompt.parse_output(whole).unwrap(),
        Summary {
            title: "t".into(),
            bullets: vec![],
            confidence: None,
        }
    );
}

#[test]
fn object_output_reports_winks_messages() {
    let template = summary_template();
    let message = |text: &str| template.parse_output(text).unwrap_err().to_string();
    assert_eq!(
        message("no json here"),
        "No JSON object or array found in assistant message."
    );
    assert_eq!(
        message("```json\n{not json\n```"),
        "Failed to decode JSON from fenced code block."
    );
    assert_eq!(message("[1, 2]"), "Expected top-level JSON object.");
    assert_eq!(
        message(r#"{"title": "t"}"#),
        "Missing required field: 'bullets'"
    );
    assert_eq!(
        message(r#"{"title": "t", "bullets": [], "extra": 1}"#),
        "Extra keys not permitted: ['extra']"
    );
}

#[test]
fn list_output_is_a_vec_and_accepts_the_items_wrapper() {
    let template: PromptTemplate<Vec<Finding>> = PromptTemplate::builder("review", "findings")
        .section(task())
        .output_list::<Finding>(false)
        .build()
        .unwrap();
    let expected = vec![
        Finding {
            file: "a.rs".into(),
            line: 3,
        },
        Finding {
            file: "b.rs".into(),
            line: 9,
        },
    ];
    let bare = r#"[{"file": "a.rs", "line": 3}, {"file": "b.rs", "line": 9}]"#;
    let wrapped = r#"{"items": [{"file": "a.rs", "line": 3}, {"file": "b.rs", "line": 9}]}"#;
    assert_eq!(template.parse_output(bare).unwrap(), expected);
    assert_eq!(template.parse_output(wrapped).unwrap(), expected);
    assert_eq!(
        template.parse_output("[1]").unwrap_err().to_string(),
        "Array item at index 0 is not an object."
    );
    // The wire format wraps the list under "items".
    let spec = template.output().unwrap();
    let format = wink_schema::response_format(spec);
    assert_eq!(format["json_schema"]["name"], json!("findings_schema"));
    assert_eq!(
        format["json_schema"]["schema"]["required"],
        json!(["items"])
    );
}

#[test]
fn a_value_the_schema_allows_but_the_type_refuses_is_a_decode_error() {
    let template = PromptTemplate::builder("t", "strict")
        .section(task())
        .output_object::<Strict>(false)
        .build()
        .unwrap();
    assert_eq!(
        template
            .parse_output(r#"{"name": "x", "level": "high"}"#)
            .unwrap(),
        Strict {
            name: "x".into(),
            level: Level::High,
        }
    );
    let error = template
        .parse_output(r#"{"name": "x", "level": "extreme"}"#)
        .unwrap_err();
    let OutputError::Decode {
        type_name, value, ..
    } = &error
    else {
        panic!("expected a decode error, got {error:?}");
    };
    assert!(type_name.ends_with("Strict"), "{type_name}");
    assert_eq!(value, &json!({"name": "x", "level": "extreme"}));
    assert!(
        error
            .to_string()
            .starts_with("Structured output does not decode into "),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .ends_with("unknown variant `extreme`, expected `low` or `high`"),
        "{error}"
    );
}

#[test]
fn a_template_without_output_says_so() {
    let template = PromptTemplate::builder("t", "plain")
        .section(task())
        .build()
        .unwrap();
    assert_eq!(
        template.parse_output("{}").unwrap_err().to_string(),
        "Prompt does not declare structured output."
    );
    assert_eq!(
        template.decode_output(json!({})).unwrap_err().to_string(),
        "Prompt does not declare structured output."
    );
}

#[test]
fn erasing_keeps_the_spec_and_the_rendered_output() {
    let template = summary_template();
    let erased: PromptTemplate = template.erase();
    assert!(erased.same_as(&template));
    assert_eq!(erased.output(), template.output());
    let typed = Prompt::new(template.clone()).render().unwrap();
    let untyped = Prompt::new(erased).render().unwrap();
    assert_eq!(typed.text, untyped.text);
    assert_eq!(typed.output, untyped.output);
    assert_eq!(
        typed.output.as_ref().map(|o| o.name.as_str()),
        Some("summarize")
    );
    // decode_output takes values parsed elsewhere (a provider's native JSON output).
    assert_eq!(
        template
            .decode_output(json!({"title": "n", "bullets": ["a"]}))
            .unwrap(),
        Summary {
            title: "n".into(),
            bullets: vec!["a".into()],
            confidence: None,
        }
    );
}

#[test]
fn typed_builder_methods_match_the_positional_forms() {
    let typed = PromptTemplate::builder("docs", "summarize")
        .section(task())
        .output::<Summary>()
        .build()
        .unwrap();
    assert_eq!(typed.output(), summary_template().output());
    assert!(!typed.output().unwrap().allow_extra_keys);

    // `.allow_extra_keys()` before or after the output declaration.
    let positional = PromptTemplate::builder("docs", "summarize")
        .section(task())
        .output_object::<Summary>(true)
        .build()
        .unwrap();
    let after = PromptTemplate::builder("docs", "summarize")
        .section(task())
        .output::<Summary>()
        .allow_extra_keys()
        .build()
        .unwrap();
    let before = PromptTemplate::builder("docs", "summarize")
        .allow_extra_keys()
        .section(task())
        .output::<Summary>()
        .build()
        .unwrap();
    assert!(positional.output().unwrap().allow_extra_keys);
    assert_eq!(after.output(), positional.output());
    assert_eq!(before.output(), positional.output());
    // (Whether an extra key then passes is the spec's business, as for the positional form: a
    // derived schema already closes its object with `additionalProperties: false`.)

    // Lists.
    let list: PromptTemplate<Vec<Finding>> = PromptTemplate::builder("review", "findings")
        .section(task())
        .output_vec::<Finding>()
        .build()
        .unwrap();
    let positional_list = PromptTemplate::builder("review", "findings")
        .section(task())
        .output_list::<Finding>(false)
        .build()
        .unwrap();
    assert_eq!(list.output(), positional_list.output());
    assert_eq!(
        list.parse_output(r#"[{"file": "a.rs", "line": 3}]"#)
            .unwrap(),
        vec![Finding {
            file: "a.rs".into(),
            line: 3
        }]
    );
}
