//! Deserializers for the maps and free JSON values of the file model that refuse a key given
//! twice, as [`wink_schema::StrictValue`] does for a whole document. With them a JSON prompt file
//! can be read in one pass, straight into the model (issue 22): every object of the text is then
//! read by a struct (serde refuses a field given twice), one of these maps or a `StrictValue`.
//!
//! Reading a `serde_json::Value` (the second pass of TOML and YAML files, and of JSON files that
//! the one pass refuses), they build what serde's own implementations build: such a value has no
//! key twice, and a wrong type is reported with the same expectation ("a map").

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use indexmap::IndexMap;
use indexmap::map::Entry;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use wink_schema::{DUPLICATE_KEY, StrictValue};

/// A map from strings that refuses a key given twice.
pub(crate) struct StrictMap<V>(pub(crate) IndexMap<String, V>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for StrictMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

struct MapVisitor<V>(PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
    type Value = StrictMap<V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // indexmap's own wording: a wrong type reads the same whichever pass reports it.
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut map = IndexMap::with_capacity(access.size_hint().unwrap_or(0).min(256));
        while let Some(key) = access.next_key::<String>()? {
            match map.entry(key) {
                Entry::Occupied(entry) => {
                    return Err(de::Error::custom(format!(
                        "{DUPLICATE_KEY} '{}'",
                        entry.key()
                    )));
                }
                Entry::Vacant(entry) => {
                    entry.insert(access.next_value()?);
                }
            }
        }
        Ok(StrictMap(map))
    }
}

/// `IndexMap<String, V>`, refusing a key given twice.
pub(crate) fn map<'de, D, V>(deserializer: D) -> Result<IndexMap<String, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    StrictMap::deserialize(deserializer).map(|m| m.0)
}

/// The params types: a map of maps, each refusing a key given twice.
pub(crate) fn map_of_maps<'de, D, V>(
    deserializer: D,
) -> Result<IndexMap<String, IndexMap<String, V>>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    let StrictMap(outer) = StrictMap::<StrictMap<V>>::deserialize(deserializer)?;
    Ok(outer.into_iter().map(|(k, v)| (k, v.0)).collect())
}

/// An optional text (`null` is none), borrowed from the document when it has no escapes.
pub(crate) fn option_text<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    deserializer.deserialize_option(OptionTextVisitor(PhantomData))
}

struct OptionTextVisitor<'a>(PhantomData<&'a str>);

impl<'de: 'a, 'a> Visitor<'de> for OptionTextVisitor<'a> {
    type Value = Option<Cow<'a, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // What `Option<String>` expects: a wrong type reads as it did.
        f.write_str("option")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer
            .deserialize_string(TextVisitor(PhantomData))
            .map(Some)
    }
}

struct TextVisitor<'a>(PhantomData<&'a str>);

impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
    type Value = Cow<'a, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text))
    }
}

/// A JSON value, refusing a key given twice in any of its objects.
pub(crate) fn value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    StrictValue::deserialize(deserializer).map(|v| v.0)
}

/// An optional JSON value (`null` is none), refusing a key given twice in any of its objects.
pub(crate) fn option_value<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Option::<StrictValue>::deserialize(deserializer).map(|v| v.map(|v| v.0))
}

#[cfg(test)]
mod tests {
    //! The one pass must accept exactly what the two passes accept and build the same model: it
    //! is checked here on the corpus (every format, as JSON), on a file setting every strict field,
    //! on mutations of them, and on each with one of its keys given twice.
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::fmt::Write as _;

    use serde_json::{Value, json};

    use crate::{FileFormat, parse_in_two_passes, parse_json_once};

    fn every_strict_field() -> Value {
        json!({
            "$schema": "x", "ns": "n", "key": "k", "name": "N", "disclosure": "wink",
            "name_hidden_tools": true, "preopen": 2, "allow_extra_keys": true,
            "search_sections": "on", "search_rerank": "bm25",
            "params": {"P": {"a": {"type": "string", "default": {"x": [1, 2.5, null]}}},
                       "Q": {"b": {"type": "any", "description": "d"}}},
            "output": {"type": "object", "properties": {"r": {"type": "string"}}},
            "subagents": {"s": "s.json", "t": "t.json"},
            "sections": [{
                "key": "a", "title": "A", "params": "P", "template": "${a}",
                "defaults": {"a": {"y": true}}, "summary": "s", "visibility": "summary",
                "summary_suffix": "x", "enabled": "flag",
                "tools": [{"name": "t", "description": "d",
                    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                    "examples": [{"description": "e", "input": {"q": "w"}, "output": {"o": [1]}}],
                    "handler": {"command": ["sh"], "timeout_s": 1.5, "cwd": ".",
                                "env": {"A": "1", "B": "2"}, "max_output_bytes": 9}}],
                "children": [{"key": "c", "title": "C", "enabled": false}]
            }, {
                "key": "cat", "title": "Cat", "builtin": "catalog", "catalog": "x.json",
                "listing": "grouped", "rerank": "bm25", "defer": "auto", "dirs": ["d"],
                "root": ".",
                "servers": {"m": {"command": ["m"], "env": {"E": "1"}, "cwd": ".", "timeout_s": 3},
                            "h": {"url": "http://x", "headers_env": {"H": "V", "I": "W"}}}
            }]
        })
    }

    fn corpus() -> Vec<Value> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let mut values = vec![every_strict_field()];
        for path in files {
            let Some(format) = FileFormat::from_path(&path) else {
                continue;
            };
            let text = std::fs::read_to_string(&path).unwrap();
            values.push(crate::document::parse_document(&text, format, "c").unwrap());
        }
        values
    }

    /// `value` as JSON text; the `dup`-th object (pre-order) gives its first key twice.
    fn write(value: &Value, dup: usize, seen: &mut usize, out: &mut String) {
        match value {
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, dup, seen, out);
                }
                out.push(']');
            }
            Value::Object(map) => {
                let twice = *seen == dup;
                *seen += 1;
                out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    if twice && i == 0 {
                        write!(out, "{}:", Value::String(key.clone())).unwrap();
                        write(item, usize::MAX, &mut 0, out);
                        out.push(',');
                    }
                    write!(out, "{}:", Value::String(key.clone())).unwrap();
                    write(item, dup, seen, out);
                }
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
    }

    fn same_as_two_passes(text: &str) -> bool {
        let Some(once) = parse_json_once(text) else {
            return false;
        };
        match parse_in_two_passes(text, FileFormat::Json, "t") {
            Ok(twice) => assert_eq!(format!("{once:?}"), format!("{twice:?}"), "{text}"),
            Err(e) => panic!("one pass accepted what two passes refuse ({e}): {text}"),
        }
        true
    }

    #[test]
    fn one_pass_accepts_what_two_passes_accept_and_builds_the_same_model() {
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut accepted = 0;
        for value in corpus() {
            let text = value.to_string();
            assert!(same_as_two_passes(&text), "{text}");
            assert!(same_as_two_passes(
                &serde_json::to_string_pretty(&value).unwrap()
            ));
            let mut objects = 0;
            write(&value, usize::MAX, &mut objects, &mut String::new());
            for dup in 0..objects {
                let mut twice = String::new();
                write(&value, dup, &mut 0, &mut twice);
                if twice.len() == text.len() {
                    continue; // an empty object
                }
                assert!(parse_json_once(&twice).is_none(), "{twice}");
                assert!(parse_in_two_passes(&twice, FileFormat::Json, "t").is_err());
            }
            let bytes = text.as_bytes();
            for _ in 0..400 {
                let mut m = bytes.to_vec();
                let i = (next() % m.len() as u64) as usize;
                match next() % 3 {
                    0 => m[i] = b"{}[]\":,0 ntf"[(next() % 12) as usize],
                    1 => {
                        m.remove(i);
                    }
                    _ => m.insert(i, b"{}[]\":,1 -"[(next() % 10) as usize]),
                }
                accepted += usize::from(same_as_two_passes(&String::from_utf8_lossy(&m)));
            }
        }
        assert!(accepted > 50, "{accepted} mutations accepted");
    }
}
