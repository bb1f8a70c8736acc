//! `SKILL.md` front matter, read the way the reference validator (`skills-ref`, which parses
//! with `strictyaml`) reads it: the file must start with `---`, the front matter ends at the next
//! `---` (anywhere, as `str.split("---", 2)` finds it), every scalar is a string (`name: 123` is
//! the string `"123"`), and flow style (`[a, b]`, `{k: v}`), anchors, aliases, tags and
//! duplicate keys are errors.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_yaml_ng::Value as Shape;

/// A front-matter value: every scalar kept as its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A scalar, as written (quotes removed, escapes resolved).
    Scalar(String),
    /// A block sequence.
    Seq(Vec<Node>),
    /// A block mapping, in file order.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// The scalar text, when this is a scalar.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The node as JSON: scalars as strings, mappings as objects.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Self::Scalar(s) => serde_json::Value::String(s.clone()),
            Self::Seq(items) => items.iter().map(Node::to_json).collect(),
            Self::Map(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// The text Python's `str()` gives for the reference's parsed value (metadata values).
    pub fn python_text(&self) -> String {
        match self {
            Self::Scalar(s) => s.clone(),
            other => other.to_json().to_string(),
        }
    }
}

/// Why the front matter could not be read. `line` is 1-based in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatterError {
    /// The reference validator's message (its `ParseError` text).
    pub message: String,
    /// Where, when known.
    pub line: usize,
}

/// The front matter (keys in file order) and the body (stripped, as the reference keeps it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// Top-level keys and values.
    pub entries: Vec<(String, Node)>,
    /// The text between the front matter and the end of the file, stripped.
    pub body: String,
    /// The raw front matter text (between the two `---`).
    pub raw: String,
}

/// Split and parse `content` (newlines already normalised to `\n`).
pub fn parse(content: &str) -> Result<Parsed, FrontMatterError> {
    if !content.starts_with("---") {
        return Err(FrontMatterError {
            message: "SKILL.md must start with YAML frontmatter (---)".into(),
            line: 1,
        });
    }
    let mut parts = content.splitn(3, "---");
    let _before = parts.next();
    let (Some(raw), Some(rest)) = (parts.next(), parts.next()) else {
        return Err(FrontMatterError {
            message: "SKILL.md frontmatter not properly closed with ---".into(),
            line: 1,
        });
    };
    if let Some((line, what)) = crate::strict::strict_violation(raw) {
        return Err(FrontMatterError {
            message: format!("Invalid YAML in frontmatter: {what} (line {line})"),
            line,
        });
    }
    let shape: Shape = serde_yaml_ng::from_str(raw).map_err(|e| {
        let mut error = yaml_error(&e);
        if let Some(line) = duplicate_key_line(raw, &e.to_string()) {
            error.line = line;
            error.message = format!(
                "{} (line {line})",
                error.message.rsplit_once(" (line ").map_or("", |(m, _)| m)
            );
        }
        error
    })?;
    let entries = match &shape {
        Shape::Mapping(_) => {
            let de = serde_yaml_ng::Deserializer::from_str(raw);
            match (NodeSeed { shape: &shape })
                .deserialize(de)
                .map_err(|e| yaml_error(&e))?
            {
                Node::Map(entries) => entries,
                _ => Vec::new(),
            }
        }
        _ => {
            return Err(FrontMatterError {
                message: "SKILL.md frontmatter must be a YAML mapping".into(),
                line: 1,
            });
        }
    };
    Ok(Parsed {
        entries,
        body: python_strip(rest).to_owned(),
        raw: raw.to_owned(),
    })
}

fn yaml_error(error: &serde_yaml_ng::Error) -> FrontMatterError {
    // The front matter starts right after the opening `---` on line 1, so its line n is the
    // file's line n.
    let line = error.location().map_or(1, |l| l.line());
    let text = error.to_string();
    let text = text.split(" at line ").next().unwrap_or(&text).to_owned();
    FrontMatterError {
        message: format!("Invalid YAML in frontmatter: {text} (line {line})"),
        line,
    }
}

/// The line of the second top-level `key:` when `message` reports a duplicate key (the parser
/// points at the mapping's start; the reference at the repeated key).
fn duplicate_key_line(raw: &str, message: &str) -> Option<usize> {
    let key = message
        .strip_prefix("duplicate entry with key \"")?
        .split('"')
        .next()?;
    raw.split('\n')
        .enumerate()
        .filter(|(_, line)| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .nth(1)
        .map(|(index, _)| index + 1)
}

/// Python's `str.strip()` (whitespace as Rust sees it).
fn python_strip(text: &str) -> &str {
    text.trim()
}

/// Deserializes a value whose shape (from a first parse) is known, reading scalars as text.
struct NodeSeed<'a> {
    shape: &'a Shape,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = Node;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        match self.shape {
            Shape::Mapping(_) => deserializer.deserialize_map(NodeVisitor { shape: self.shape }),
            Shape::Sequence(_) => deserializer.deserialize_seq(NodeVisitor { shape: self.shape }),
            Shape::Tagged(_) => Err(de::Error::custom("tags are not allowed")),
            _ => deserializer.deserialize_str(NodeVisitor { shape: self.shape }),
        }
    }
}

struct NodeVisitor<'a> {
    shape: &'a Shape,
}

impl<'de> Visitor<'de> for NodeVisitor<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML scalar, sequence or mapping")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Scalar(v.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let Shape::Sequence(shapes) = self.shape else {
            return Err(de::Error::custom("unexpected sequence"));
        };
        let mut items = Vec::with_capacity(shapes.len());
        for shape in shapes {
            match seq.next_element_seed(NodeSeed { shape })? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(Node::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let Shape::Mapping(shapes) = self.shape else {
            return Err(de::Error::custom("unexpected mapping"));
        };
        let mut entries = Vec::with_capacity(shapes.len());
        for (_, shape) in shapes {
            let Some(key) = map.next_key_seed(KeySeed)? else {
                break;
            };
            let value = map.next_value_seed(NodeSeed { shape })?;
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}

/// A mapping key as text (`strictyaml` keys are strings).
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn entries(text: &str) -> Vec<(String, Node)> {
        parse(text).unwrap().entries
    }

    #[test]
    fn every_scalar_is_text_as_written() {
        let got = entries("---\nname: 123\ndescription: 1.10\nlicense:\nx: true\n---\nbody\n");
        assert_eq!(
            got,
            vec![
                ("name".into(), Node::Scalar("123".into())),
                ("description".into(), Node::Scalar("1.10".into())),
                ("license".into(), Node::Scalar(String::new())),
                ("x".into(), Node::Scalar("true".into())),
            ]
        );
    }

    #[test]
    fn nested_mappings_and_block_sequences_keep_their_shape() {
        let got = entries(
            "---\nmetadata:\n  version: 1.0\n  author: me\nallowed-tools:\n  - Read\n  - Bash(git:*)\n---\n",
        );
        assert_eq!(
            got[0].1,
            Node::Map(vec![
                ("version".into(), Node::Scalar("1.0".into())),
                ("author".into(), Node::Scalar("me".into()))
            ])
        );
        assert_eq!(
            got[1].1,
            Node::Seq(vec![
                Node::Scalar("Read".into()),
                Node::Scalar("Bash(git:*)".into())
            ])
        );
    }

    #[test]
    fn the_body_is_stripped_and_the_split_is_the_references() {
        let parsed = parse("---\nname: a\n---\n\n# Title\n\ntext --- more\n\n").unwrap();
        assert_eq!(parsed.body, "# Title\n\ntext --- more");
    }

    #[test]
    fn missing_and_unclosed_front_matter_use_the_references_messages() {
        assert_eq!(
            parse("# no front matter").unwrap_err().message,
            "SKILL.md must start with YAML frontmatter (---)"
        );
        assert_eq!(
            parse("---\nname: a\n").unwrap_err().message,
            "SKILL.md frontmatter not properly closed with ---"
        );
        assert_eq!(
            parse("---\n- a\n- b\n---\n").unwrap_err().message,
            "SKILL.md frontmatter must be a YAML mapping"
        );
    }

    #[test]
    fn strictyaml_refusals_are_errors_with_their_line() {
        let e = parse("---\nname: a\nallowed-tools: [Read, Write]\n---\n").unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.line),
            (
                "Invalid YAML in frontmatter: flow style is not allowed (line 3)",
                3
            )
        );
        let e = parse("---\nname: &n a\n---\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse("---\nname: a\nname: b\n---\n").unwrap_err();
        assert!(
            e.message.starts_with("Invalid YAML in frontmatter: "),
            "{}",
            e.message
        );
        // A quoted key is a key like any other.
        let e = parse("---\nname: a\n\"allowed-tools\": [Read]\n---\n").unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.line),
            (
                "Invalid YAML in frontmatter: flow style is not allowed (line 3)",
                3
            )
        );
        for duplicate in [
            "---\nname: a\n\"name\": b\n---\n",
            "---\n'name': a\nname: b\n---\n",
            "---\nmetadata:\n  \"k\": a\n  k: b\n---\n",
        ] {
            let e = parse(duplicate).unwrap_err();
            assert!(
                e.message.starts_with("Invalid YAML in frontmatter: ")
                    && e.message.contains("duplicate entry with key"),
                "{duplicate:?}: {}",
                e.message
            );
        }
        // Block scalar contents may hold anything.
        assert!(parse("---\ndescription: |\n  [not flow]\n  {nor this}\nname: a\n---\n").is_ok());
    }
}
