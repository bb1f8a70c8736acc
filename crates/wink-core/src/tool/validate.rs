//! The rules for tool names, descriptions and example descriptions.

use super::*;

/// WINK's tool-name rule, extended with dot-separated namespaces: each segment matches
/// `[a-z0-9_-]+`, the whole name is 1–64 characters.
pub fn validate_tool_name(name: &str) -> Result<(), PromptError> {
    let stripped = crate::key::python_strip(name);
    if stripped != name {
        return Err(
            PromptError::validation("Tool name must not contain surrounding whitespace.")
                .with_placeholder(stripped),
        );
    }
    if name.is_empty() {
        return Err(PromptError::validation(
            "Tool name must match the OpenAI function name constraints (1-64 lowercase ASCII letters, digits, underscores, or hyphens).",
        )
        .with_placeholder(name));
    }
    let segments_ok = name.split('.').all(|seg| {
        !seg.is_empty()
            && seg
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
    });
    if name.len() > 64 || !segments_ok {
        return Err(PromptError::validation(
            "Tool name must match the OpenAI function name constraints (pattern: ^[a-z0-9_-]{1,64}$).",
        )
        .with_placeholder(name));
    }
    Ok(())
}

/// WINK's description rule: 1–200 ASCII characters after stripping. Returns the stripped text.
pub fn validate_tool_description(description: &str) -> Result<String, PromptError> {
    let clean = crate::key::python_strip(description);
    if clean.is_empty() || clean.chars().count() > 200 {
        return Err(
            PromptError::validation("Tool description must be 1-200 ASCII characters.")
                .with_placeholder("description"),
        );
    }
    if !clean.is_ascii() {
        return Err(PromptError::validation("Tool description must be ASCII.")
            .with_placeholder("description"));
    }
    Ok(clean.to_owned())
}

pub(super) fn validate_example_description(description: &str) -> Result<String, PromptError> {
    let clean = crate::key::python_strip(description);
    if clean.is_empty() || clean.chars().count() > 200 {
        return Err(PromptError::validation(
            "Tool example description must be 1-200 ASCII characters.",
        )
        .with_placeholder("description"));
    }
    if !clean.is_ascii() {
        return Err(
            PromptError::validation("Tool example description must be ASCII.")
                .with_placeholder("description"),
        );
    }
    Ok(clean.to_owned())
}
