//! Python-compatible text renderings of JSON values.
//!
//! WINK (the Python original) builds several user-visible strings with Python's
//! `repr()` and `json.dumps()`: `Extra keys not permitted: ['x']`, `must be one of
//! [1, 2]`, the `{"group": {"value": 1}}` payload appended to tool messages. The
//! functions here reproduce those renderings for [`serde_json::Value`] so that wink
//! emits byte-identical text.
//!
//! ```
//! use serde_json::json;
//! use wink_schema::python;
//!
//! assert_eq!(python::repr(&json!(["x", "it's", 1.0, true, null])), r#"['x', "it's", 1.0, True, None]"#);
//! assert_eq!(python::dumps(&json!({"group": {"value": 1}}), false), r#"{"group": {"value": 1}}"#);
//! assert_eq!(python::dumps(&json!("é"), true), r#""\u00e9""#);
//! ```

use serde_json::{Number, Value};
use std::fmt::Write as _;

/// Python's `str.strip()` with no argument: removes leading and trailing whitespace as Python
/// defines it (Unicode whitespace plus the ASCII separators `\x1c`–`\x1f`).
///
/// ```
/// assert_eq!(wink_schema::python::strip("\u{1f} key \n"), "key");
/// ```
#[must_use]
pub fn strip(text: &str) -> &str {
    // Most texts start and end with a visible ASCII character, none of which is whitespace:
    // nothing to trim, and no need to decode characters from both ends (issue 22).
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim_matches(is_whitespace),
    }
}

/// Whether Python's `str.isspace()` holds for `c`.
#[must_use]
pub fn is_whitespace(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// Python's `repr()` of the Python object a JSON value decodes to
/// (`str`, `int`, `float`, `bool`, `None`, `list`, `dict`).
#[must_use]
pub fn repr(value: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, value);
    out
}

/// Python's `repr()` of a `str`: single quotes unless the text contains a single
/// quote and no double quote; backslashes, the chosen quote and non-printable
/// characters escaped.
#[must_use]
pub fn str_repr(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_str_repr(&mut out, text);
    out
}

/// Python's `repr()` of a list of strings, e.g. `['a', 'b']`.
#[must_use]
pub fn str_list_repr<S: AsRef<str>>(items: &[S]) -> String {
    let mut out = String::from("[");
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        write_str_repr(&mut out, item.as_ref());
    }
    out.push(']');
    out
}

/// Python's `repr()` of a JSON number (`int` or `float`).
#[must_use]
pub fn number_repr(number: &Number) -> String {
    if let Some(int) = number.as_i64() {
        return int.to_string();
    }
    if let Some(int) = number.as_u64() {
        return int.to_string();
    }
    float_repr(number.as_f64().unwrap_or(f64::NAN))
}

/// Python's `json.dumps(value, ensure_ascii=...)` with the default separators
/// (`", "` and `": "`), keys in the value's own order.
#[must_use]
pub fn dumps(value: &Value, ensure_ascii: bool) -> String {
    let mut out = String::new();
    write_dumps(&mut out, value, ensure_ascii);
    out
}

fn write_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(number) => out.push_str(&number_repr(number)),
        Value::String(text) => write_str_repr(out, text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_str_repr(out, key);
                out.push_str(": ");
                write_repr(out, item);
            }
            out.push('}');
        }
    }
}

fn write_str_repr(out: &mut String, text: &str) {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for character in text.chars() {
        match character {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_python_printable(c) => out.push(c),
            c => {
                let code = u32::from(c);
                // Writing to a String cannot fail.
                let _ = if code <= 0xff {
                    write!(out, "\\x{code:02x}")
                } else if code <= 0xffff {
                    write!(out, "\\u{code:04x}")
                } else {
                    write!(out, "\\U{code:08x}")
                };
            }
        }
    }
    out.push(quote);
}

/// Approximation of Python's `str.isprintable()` for one character: control
/// characters, separators other than the ASCII space and the common format
/// characters are non-printable.
fn is_python_printable(character: char) -> bool {
    if character == ' ' {
        return true;
    }
    if character.is_control() || character.is_whitespace() {
        return false;
    }
    !matches!(
        u32::from(character),
        0xad | 0x600..=0x605
            | 0x61c
            | 0x6dd
            | 0x70f
            | 0x180e
            | 0x200b..=0x200f
            | 0x202a..=0x202e
            | 0x2060..=0x2064
            | 0x2066..=0x206f
            | 0xd800..=0xdfff
            | 0xe000..=0xf8ff
            | 0xfeff
            | 0xfff9..=0xfffb
    )
}

/// Python's `repr(float)`: shortest round-trip digits, positional notation for
/// decimal exponents in `-4..16`, scientific (`1e+16`, `1.5e-05`) otherwise.
fn float_repr(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        }
        .to_owned();
    }
    // `{:e}` yields a shortest round-trip digit string (`1.5e20`, `-2e-7`);
    // Python picks, among the strings of that length, the one nearest the exact
    // value (ties to even), which is the correctly rounded one.
    let shortest = format!("{value:e}");
    let significant = shortest
        .split_once('e')
        .map_or(shortest.as_str(), |(mantissa, _)| mantissa)
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    let scientific = format!("{value:.*e}", significant.saturating_sub(1));
    let (mantissa, exponent) = scientific
        .split_once('e')
        .unwrap_or((scientific.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let body = if point <= 0 {
            let zeros = usize::try_from(-point).unwrap_or(0);
            format!("0.{}{digits}", "0".repeat(zeros))
        } else {
            let point = usize::try_from(point).unwrap_or(0);
            if digits.len() <= point {
                format!("{digits}{}.0", "0".repeat(point - digits.len()))
            } else {
                format!("{}.{}", &digits[..point], &digits[point..])
            }
        };
        format!("{sign}{body}")
    } else {
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        let magnitude = exponent.unsigned_abs();
        let mantissa = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        format!("{sign}{mantissa}e{exponent_sign}{magnitude:02}")
    }
}

fn write_dumps(out: &mut String, value: &Value, ensure_ascii: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => out.push_str(&dumps_number(number)),
        Value::String(text) => write_json_string(out, text, ensure_ascii),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_dumps(out, item, ensure_ascii);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_json_string(out, key, ensure_ascii);
                out.push_str(": ");
                write_dumps(out, item, ensure_ascii);
            }
            out.push('}');
        }
    }
}

fn dumps_number(number: &Number) -> String {
    let text = number_repr(number);
    match text.as_str() {
        "nan" => "NaN".to_owned(),
        "inf" => "Infinity".to_owned(),
        "-inf" => "-Infinity".to_owned(),
        _ => text,
    }
}

fn write_json_string(out: &mut String, text: &str, ensure_ascii: bool) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c if ensure_ascii && !c.is_ascii() => {
                let mut units = [0_u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_repr_picks_quotes_like_python() {
        assert_eq!(str_repr("x"), "'x'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(str_repr("tab\there\n"), "'tab\\there\\n'");
        assert_eq!(str_repr("back\\slash"), "'back\\\\slash'");
        assert_eq!(str_repr("\u{1}\u{7f}\u{a0}"), "'\\x01\\x7f\\xa0'");
        assert_eq!(str_repr("é漢🙂"), "'é漢🙂'");
        assert_eq!(str_repr("\u{200b}\u{2028}"), "'\\u200b\\u2028'");
    }

    #[test]
    fn list_repr_matches_python() {
        assert_eq!(str_list_repr(&["x", "y"]), "['x', 'y']");
        assert_eq!(str_list_repr::<&str>(&[]), "[]");
        assert_eq!(
            repr(&json!({"a": [1, 2.5, false, null]})),
            "{'a': [1, 2.5, False, None]}"
        );
    }

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (1.0, "1.0"),
            (2.5, "2.5"),
            (-0.5, "-0.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123_456_789.0, "123456789.0"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.25e22, "1.25e+22"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (-0.0, "-0.0"),
            (-788_316_016_740_972.2, "-788316016740972.2"),
            (-21_901_983_486_555.062, "-21901983486555.062"),
            (5e-324, "5e-324"),
            (1.797_693_134_862_315_7e308, "1.7976931348623157e+308"),
        ];
        for (value, expected) in cases {
            assert_eq!(float_repr(value), expected, "repr of {value}");
        }
    }

    #[test]
    fn dumps_matches_python_defaults() {
        let value = json!({"b": [1, 2.0, "é\n"], "a": {}, "c": [], "d": null});
        assert_eq!(
            dumps(&value, false),
            "{\"b\": [1, 2.0, \"é\\n\"], \"a\": {}, \"c\": [], \"d\": null}"
        );
        assert_eq!(
            dumps(&value, true),
            "{\"b\": [1, 2.0, \"\\u00e9\\n\"], \"a\": {}, \"c\": [], \"d\": null}"
        );
        assert_eq!(dumps(&json!("🙂\u{1}"), true), "\"\\ud83d\\ude42\\u0001\"");
    }
}
