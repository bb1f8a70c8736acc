//! Strict JSON parsing for documents whose every key and digit matter (tool arguments, prompt
//! files): an object with a key twice is refused instead of keeping the last value, and an
//! integer beyond 64 bits is refused instead of silently becoming a float.
//!
//! ```
//! use wink_schema::{StrictJsonError, parse_strict_json};
//! assert_eq!(parse_strict_json(r#"{"a": [1, -2]}"#).unwrap(), serde_json::json!({"a": [1, -2]}));
//! assert_eq!(
//!     parse_strict_json(r#"{"a": 1, "a": 2}"#).unwrap_err().to_string(),
//!     "duplicate key 'a'"
//! );
//! assert_eq!(
//!     parse_strict_json(r#"{"n": 123456789012345678901234567890}"#).unwrap_err(),
//!     StrictJsonError::IntegerTooLarge("123456789012345678901234567890".into())
//! );
//! ```

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The start of the message of a duplicate-key error (parsers add where it was).
pub const DUPLICATE_KEY: &str = "duplicate key";

/// Why [`parse_strict_json`] refused a text.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrictJsonError {
    /// Not JSON.
    #[error("{0}")]
    Syntax(String),
    /// An object has this key twice.
    #[error("{DUPLICATE_KEY} '{0}'")]
    DuplicateKey(String),
    /// An integer literal outside the range of i64 and u64.
    #[error("the integer {0} does not fit in 64 bits")]
    IntegerTooLarge(String),
}

/// A JSON value built by a parser, refusing objects with a key twice (with a custom error
/// starting with [`DUPLICATE_KEY`]). Deserialize it from any serde format.
#[derive(Debug, Clone, PartialEq)]
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        StrictValue::deserialize(deserializer).map(|v| v.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(StrictValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // One lookup per key (issue 22: every tool schema of a prompt file is read here).
            match object.entry(key) {
                serde_json::map::Entry::Occupied(entry) => {
                    return Err(de::Error::custom(format!(
                        "{DUPLICATE_KEY} '{}'",
                        entry.key()
                    )));
                }
                serde_json::map::Entry::Vacant(entry) => {
                    let StrictValue(value) = map.next_value()?;
                    entry.insert(value);
                }
            }
        }
        Ok(Value::Object(object))
    }
}

/// Parses JSON text strictly (see the module docs).
pub fn parse_strict_json(text: &str) -> Result<Value, StrictJsonError> {
    if let Some(literal) = oversized_integer(text) {
        return Err(StrictJsonError::IntegerTooLarge(literal.to_owned()));
    }
    serde_json::from_str::<StrictValue>(text)
        .map(|v| v.0)
        .map_err(|error| {
            let message = error.to_string();
            match message
                .strip_prefix(DUPLICATE_KEY)
                .and_then(|rest| rest.strip_prefix(" '"))
                .and_then(|rest| rest.rsplit_once("' at line "))
            {
                Some((key, _)) => StrictJsonError::DuplicateKey(key.to_owned()),
                None => StrictJsonError::Syntax(message),
            }
        })
}

/// The first integer literal of a JSON text (outside strings) that fits neither i64 nor u64.
fn oversized_integer(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut index = 0;
    let mut in_string = false;
    while index < bytes.len() {
        let byte = bytes[index];
        if in_string {
            match byte {
                b'\\' => index += 1,
                b'"' => in_string = false,
                _ => {}
            }
            index += 1;
            continue;
        }
        if byte == b'"' {
            in_string = true;
            index += 1;
            continue;
        }
        if byte == b'-' || byte.is_ascii_digit() {
            let start = index;
            while index < bytes.len()
                && matches!(bytes[index], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
            {
                index += 1;
            }
            let literal = &text[start..index];
            let digits = literal.strip_prefix('-').unwrap_or(literal);
            if !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && literal.parse::<i64>().is_err()
                && literal.parse::<u64>().is_err()
            {
                return Some(literal);
            }
            continue;
        }
        index += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_integers_beyond_64_bits_are_refused() {
        assert_eq!(
            oversized_integer("[18446744073709551615, -9223372036854775808]"),
            None
        );
        assert_eq!(
            oversized_integer("[18446744073709551616]"),
            Some("18446744073709551616")
        );
        assert_eq!(
            oversized_integer("{\"a\": -9223372036854775809}"),
            Some("-9223372036854775809")
        );
        assert_eq!(oversized_integer("[1.2345678901234568e+29, 1e400]"), None);
        assert_eq!(
            oversized_integer(r#"{"s": "123456789012345678901234567890\"99999999999999999999"}"#),
            None
        );
    }

    #[test]
    fn nested_duplicates_are_found() {
        assert_eq!(
            parse_strict_json(r#"{"a": {"b": 1, "b": 1}}"#),
            Err(StrictJsonError::DuplicateKey("b".into()))
        );
        assert!(matches!(
            parse_strict_json("{\"a\": "),
            Err(StrictJsonError::Syntax(_))
        ));
    }
}
