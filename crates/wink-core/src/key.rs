//! Section key normalisation and validation.

use std::borrow::Cow;

use crate::error::PromptError;

/// The pattern every normalised section key must match (WINK's `COMPONENT_KEY_PATTERN`).
pub const SECTION_KEY_PATTERN: &str = "^[a-z0-9][a-z0-9._-]{0,63}$";

/// Normalise a section key (trim, lowercase) and validate it against [`SECTION_KEY_PATTERN`].
///
/// ```
/// use wink_core::normalize_section_key;
/// assert_eq!(normalize_section_key(" spacing.out ").unwrap(), "spacing.out");
/// assert_eq!(
///     normalize_section_key("Invalid Key").unwrap_err().message(),
///     "Section key must match ^[a-z0-9][a-z0-9._-]{0,63}$."
/// );
/// ```
pub fn normalize_section_key(key: &str) -> Result<String, PromptError> {
    normalized_section_key(key).map(Cow::into_owned)
}

/// [`normalize_section_key`], borrowing `key` when it is normalised already (issue 22: the usual
/// case, and one allocation fewer per section).
pub(crate) fn normalized_section_key(key: &str) -> Result<Cow<'_, str>, PromptError> {
    let stripped = python_strip(key);
    let normalized = if stripped
        .bytes()
        .any(|b| !b.is_ascii() || b.is_ascii_uppercase())
    {
        Cow::Owned(stripped.to_lowercase())
    } else {
        Cow::Borrowed(stripped)
    };
    if normalized.is_empty() {
        return Err(PromptError::validation(
            "Section key must be a non-empty string.",
        ));
    }
    if !matches_key_pattern(&normalized) {
        return Err(PromptError::validation(format!(
            "Section key must match {SECTION_KEY_PATTERN}."
        ))
        .with_placeholder(normalized.into_owned()));
    }
    Ok(normalized)
}

fn matches_key_pattern(key: &str) -> bool {
    let bytes = key.as_bytes();
    let Some((first, rest)) = bytes.split_first() else {
        return false;
    };
    if rest.len() > 63 {
        return false;
    }
    let head_ok = first.is_ascii_lowercase() || first.is_ascii_digit();
    head_ok
        && rest.iter().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
        })
}

pub(crate) use wink_schema::python::strip as python_strip;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_whitespace_and_case() {
        assert_eq!(
            normalize_section_key(" spacing.out ").unwrap(),
            "spacing.out"
        );
        assert_eq!(normalize_section_key("Task").unwrap(), "task");
    }

    #[test]
    fn rejects_empty_and_invalid_keys_with_wink_messages() {
        assert_eq!(
            normalize_section_key("").unwrap_err().message(),
            "Section key must be a non-empty string."
        );
        assert_eq!(
            normalize_section_key("   ").unwrap_err().message(),
            "Section key must be a non-empty string."
        );
        assert_eq!(
            normalize_section_key("Invalid Key").unwrap_err().message(),
            "Section key must match ^[a-z0-9][a-z0-9._-]{0,63}$."
        );
        assert!(normalize_section_key("-lead").is_err());
        assert!(normalize_section_key(&"a".repeat(65)).is_err());
        assert!(normalize_section_key(&"a".repeat(64)).is_ok());
        assert!(normalize_section_key("a_b-c.d9").is_ok());
    }
}
