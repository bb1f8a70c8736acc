//! Record codes in pre-opening (the "Record codes" part of the [`crate::preopen`] doc): the kinds
//! a question's codes name ([`code_kinds`]) and the sections that find the codes a question
//! lacks ([`producers`]).
//!
//! Shapes compare letters as letters and digits as digits, separators as themselves
//! (`NB-3005` has the shape of `NB-1001`, not of `E-104`); where several parameters' examples
//! have a code's shape, those sharing its leading letters win (`C-301` is a customer, not the
//! order `K-881`).

use std::collections::BTreeMap;

use serde_json::Value;
use wink_core::{RenderedPrompt, SectionPath, ToolRef};

use super::overlapping;
use crate::example::code_like;

/// `code` with each ASCII letter as `A` and each digit as `9`: `NB-1001` → `AA-9999`.
fn shape(code: &str) -> String {
    code.chars()
        .map(|c| match c {
            c if c.is_ascii_alphabetic() => 'A',
            c if c.is_ascii_digit() => '9',
            c => c,
        })
        .collect()
}

/// The letters `code` starts with, upper-cased: `nb-1001` → `NB`.
fn leading_letters(code: &str) -> String {
    code.chars()
        .take_while(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// The code-like words of `text` ([`code_like`]), trimmed of punctuation around them.
fn codes_in(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .map(|word| word.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|word| code_like(word))
}

/// Every tool of the render: offered, then hidden (with the section that holds it).
fn all_tools(rendered: &RenderedPrompt) -> impl Iterator<Item = (Option<&SectionPath>, &ToolRef)> {
    let offered = rendered.tools.iter().map(|tool| (None, tool));
    let hidden = rendered
        .hidden_tools
        .iter()
        .map(|(path, tool)| (Some(path), tool));
    offered.chain(hidden)
}

/// The properties of a tool's parameters schema, with whether each is required.
fn parameters(tool: &ToolRef) -> Vec<(&str, &Value, bool)> {
    let schema = tool.parameters();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, spec)| (name.as_str(), spec, required.contains(&name.as_str())))
                .collect()
        })
        .unwrap_or_default()
}

/// Parameter name → the example codes its descriptions give, over every tool of the render.
fn examples(rendered: &RenderedPrompt) -> BTreeMap<String, Vec<String>> {
    let mut examples: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, tool) in all_tools(rendered) {
        for (name, spec, _) in parameters(tool) {
            let description = spec.get("description").and_then(Value::as_str);
            for code in codes_in(description.unwrap_or_default()) {
                let known = examples.entry(name.to_owned()).or_default();
                if !known.iter().any(|k| k == code) {
                    known.push(code.to_owned());
                }
            }
        }
    }
    examples
}

/// The parameters whose example codes have the shape of `code`: those whose examples also share
/// its leading letters when any do, else all of them.
fn kinds_of(code: &str, examples: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let shaped: Vec<(&String, bool)> = examples
        .iter()
        .filter_map(|(name, codes)| {
            let matching: Vec<&String> = codes.iter().filter(|c| shape(c) == shape(code)).collect();
            let lettered = matching
                .iter()
                .any(|c| leading_letters(c) == leading_letters(code));
            (!matching.is_empty()).then_some((name, lettered))
        })
        .collect();
    let lettered = shaped.iter().any(|(_, lettered)| *lettered);
    shaped
        .into_iter()
        .filter(|(_, l)| *l || !lettered)
        .map(|(name, _)| name.clone())
        .collect()
}

/// A parameter name as the words a description would use: `employee_id` → `employee id`.
fn words_of(parameter: &str) -> Vec<String> {
    parameter
        .split(|c: char| c == '_' || c == '-' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The kinds of the codes in `query`, as words (`employee id`), in the order of the parameters
/// they belong to: what [`crate::preopen::scores`] adds to the query.
pub fn code_kinds(rendered: &RenderedPrompt, query: &str) -> Vec<String> {
    let examples = examples(rendered);
    let mut kinds: Vec<String> = Vec::new();
    for code in codes_in(query) {
        for kind in kinds_of(code, &examples) {
            let words = words_of(&kind).join(" ");
            if !kinds.contains(&words) {
                kinds.push(words);
            }
        }
    }
    kinds
}

/// Whether a tool called `name`, described by `description`, with the arguments `schema`,
/// returns `parameter` without taking it: its name or description has the parameter's words in
/// a row (`find_employee`, "…: employee id, name, title…" for `employee_id`) and its schema has
/// no property of that name.
pub(crate) fn returns_parameter(
    name: &str,
    description: &str,
    schema: &Value,
    parameter: &str,
) -> bool {
    let takes = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| properties.contains_key(parameter));
    let words = words_of(parameter);
    !takes && (names(description, &words) || names(name, &words))
}

/// Whether `description` has `words` in a row (each compared without case, a trailing `s`
/// ignored: "order ids" names `order_id`).
fn names(description: &str, words: &[String]) -> bool {
    let singular = |w: &str| -> String {
        let w = w.to_lowercase();
        match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 2 => stem.to_owned(),
            _ => w,
        }
    };
    let text: Vec<String> = description
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(singular)
        .collect();
    let wanted: Vec<String> = words.iter().map(|w| singular(w)).collect();
    !wanted.is_empty()
        && text
            .windows(wanted.len())
            .any(|window| window == wanted.as_slice())
}

/// The hidden sections to open with `chosen` so that their tools can be called with codes the
/// question does not give (see the module doc), in the order of the parameters that need them.
/// A producer is a tool that names the parameter in its description (or name) without taking
/// it, and whose own code parameters the question answers. Sections already chosen, or inside or
/// around one, are not returned; nor is a producer when an offered tool or a chosen section
/// already has one.
pub fn producers(
    rendered: &RenderedPrompt,
    chosen: &[SectionPath],
    query: &str,
) -> Vec<SectionPath> {
    let examples = examples(rendered);
    let given: Vec<String> = codes_in(query).map(shape).collect();
    let in_chosen = |path: Option<&SectionPath>| match path {
        None => true,
        Some(path) => chosen.iter().any(|c| overlapping(path, c)),
    };
    // The required code parameters of `tool` that no word of the question answers.
    let unanswered = |tool: &ToolRef| -> Vec<String> {
        parameters(tool)
            .into_iter()
            .filter(|(name, _, required)| {
                *required
                    && examples
                        .get(*name)
                        .is_some_and(|codes| !codes.iter().any(|c| given.contains(&shape(c))))
            })
            .map(|(name, _, _)| name.to_owned())
            .collect()
    };
    let mut needed: Vec<String> = Vec::new();
    for (path, tool) in all_tools(rendered) {
        if path.is_some_and(|path| chosen.iter().any(|c| overlapping(path, c))) {
            for name in unanswered(tool) {
                if !needed.contains(&name) {
                    needed.push(name);
                }
            }
        }
    }
    let mut opened: Vec<SectionPath> = Vec::new();
    for parameter in &needed {
        // A tool that names the code without taking it, and that can be called with what the
        // question gives (a lookup by another code the question lacks finds nothing).
        let produces = |tool: &ToolRef| {
            returns_parameter(
                tool.name(),
                tool.description(),
                tool.parameters(),
                parameter,
            ) && unanswered(tool).is_empty()
        };
        let sources: Vec<Option<&SectionPath>> = all_tools(rendered)
            .filter(|(_, tool)| produces(tool))
            .map(|(path, _)| path)
            .collect();
        if sources.iter().any(|path| in_chosen(*path)) {
            continue;
        }
        if let Some(Some(path)) = sources.first()
            && !opened.iter().any(|o| overlapping(o, path))
        {
            opened.push((*path).clone());
        }
    }
    opened
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use wink_core::{
        MarkdownSection, Prompt, PromptTemplate, SectionVisibility, ToolBuilder, ToolResult,
    };

    use super::*;

    /// A tool whose parameters are `(name, description, required)`.
    fn tool(name: &str, description: &str, params: &[(&str, &str, bool)]) -> ToolRef {
        let properties: serde_json::Map<String, Value> = params
            .iter()
            .map(|(n, d, _)| ((*n).to_owned(), json!({"type": "string", "description": d})))
            .collect();
        let required: Vec<&str> = params.iter().filter(|p| p.2).map(|p| p.0).collect();
        let schema = json!({"type": "object", "properties": properties, "required": required});
        ToolBuilder::dynamic(name, description, schema, |_, _| {
            Ok(ToolResult::message("ok"))
        })
        .build()
        .unwrap()
    }

    /// A warehouse: products (search by words, details by SKU), stock (by SKU), a reorder
    /// section (by SKU and quantity), all summarized.
    fn warehouse() -> RenderedPrompt {
        let section = |key: &str, tools: Vec<ToolRef>| {
            let mut section = MarkdownSection::new(key, key, "Body.")
                .summary("Summary.")
                .visibility(SectionVisibility::Summary);
            for tool in tools {
                section = section.tool(tool);
            }
            section
        };
        let sku = ("sku", "The SKU, e.g. NB-1001.", true);
        let template = PromptTemplate::builder("t", "codes")
            .section(MarkdownSection::new("Task", "task", "Help the warehouse."))
            .section(section(
                "products",
                vec![
                    tool(
                        "search_products",
                        "Search products by name: SKU and name of each match.",
                        &[("query", "Words of the name.", true)],
                    ),
                    tool("get_product", "Product details by SKU.", &[sku]),
                ],
            ))
            .section(section(
                "stock",
                vec![tool("stock_level", "Units on hand.", &[sku])],
            ))
            .section(section(
                "people",
                vec![tool(
                    "get_employee",
                    "One employee by id.",
                    &[("employee_id", "The employee id, e.g. E-104.", true)],
                )],
            ))
            .section(section(
                "teams",
                vec![tool(
                    "get_team",
                    "A team by id: its name and the employee id of its lead.",
                    &[("team_id", "The team id, e.g. TM-01.", true)],
                )],
            ))
            .build()
            .unwrap();
        Prompt::new(template).render().unwrap()
    }

    fn path(key: &str) -> SectionPath {
        SectionPath::new(vec![key.to_owned()])
    }

    #[test]
    fn shapes_compare_letters_digits_and_separators() {
        assert_eq!(shape("NB-1001"), "AA-9999");
        assert_eq!(shape("SK101"), "AA999");
        assert_eq!(leading_letters("nb-3005"), "NB");
        assert_eq!(words_of("employee_id"), ["employee", "id"]);
        assert!(names(
            "customer id, name and order ids",
            &words_of("order_id")
        ));
        assert!(!names("ordering identity", &words_of("order_id")));
    }

    #[test]
    fn a_code_in_the_question_names_the_parameter_its_shape_belongs_to() {
        let rendered = warehouse();
        assert_eq!(code_kinds(&rendered, "who is E-205?"), ["employee id"]);
        assert_eq!(code_kinds(&rendered, "who supplies NB-3005?"), ["sku"]);
        assert!(code_kinds(&rendered, "who supplies the hex bolts?").is_empty());
        // A code of no example's shape names nothing.
        assert!(code_kinds(&rendered, "where is ABC-12345?").is_empty());
    }

    #[test]
    fn leading_letters_decide_between_parameters_of_one_shape() {
        let mut examples = BTreeMap::new();
        examples.insert("customer_id".to_owned(), vec!["C-301".to_owned()]);
        examples.insert("order_id".to_owned(), vec!["K-881".to_owned()]);
        assert_eq!(kinds_of("C-302", &examples), ["customer_id"]);
        assert_eq!(kinds_of("K-900", &examples), ["order_id"]);
        assert_eq!(kinds_of("Z-100", &examples), ["customer_id", "order_id"]);
    }

    #[test]
    fn a_code_the_question_lacks_opens_the_section_that_produces_it() {
        let rendered = warehouse();
        assert_eq!(
            producers(&rendered, &[path("stock")], "bins of the large gloves?"),
            [path("products")]
        );
        // Given in the question: nothing more to open.
        assert!(producers(&rendered, &[path("stock")], "bin of NB-1002?").is_empty());
        // The chosen section produces it itself.
        assert!(producers(&rendered, &[path("products")], "price of the gloves?").is_empty());
        // The team lookup names an employee id, but needs a team id the question lacks.
        assert!(producers(&rendered, &[path("people")], "who runs the night shift?").is_empty());
        assert_eq!(
            producers(&rendered, &[path("people")], "who leads TM-04?"),
            [path("teams")]
        );
    }
}
