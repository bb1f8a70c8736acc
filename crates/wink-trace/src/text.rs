//! [`Text`]: the string of an attribute, which many spans of a run repeat (the model, the
//! conversation id, the section tree a call saw): a `&'static str` or a string shared by every
//! span that carries it, so that a span holding it copies nothing and an exporter takes it as
//! it is.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// A string attribute value: static, or shared (cloning it never copies the text).
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Static(&'static str),
    Shared(Arc<str>),
}

impl Text {
    /// Static text (no allocation).
    pub const fn from_static(text: &'static str) -> Self {
        Self(Repr::Static(text))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(text) => text,
            Repr::Shared(text) => text,
        }
    }

    /// The text as OpenTelemetry takes it (the same static or shared string, not a copy).
    pub(crate) fn into_otel(self) -> opentelemetry::StringValue {
        match self.0 {
            Repr::Static(text) => text.into(),
            Repr::Shared(text) => text.into(),
        }
    }
}

impl Default for Text {
    fn default() -> Self {
        Self::from_static("")
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Self(Repr::Shared(Arc::from(text)))
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Self(Repr::Shared(Arc::from(text)))
    }
}

impl From<Arc<str>> for Text {
    fn from(text: Arc<str>) -> Self {
        Self(Repr::Shared(text))
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The strings spans repeat, each kept once per thread: a model's name, an adapter, a tool's
/// name, a finish reason, a list of offered tools. Looking one up costs less than copying it
/// into every span.
#[derive(Debug, Default)]
struct Texts {
    texts: Vec<Text>,
    lists: Vec<Arc<[Text]>>,
}

/// How many strings (and lists) are kept; the oldest goes first.
const KEPT: usize = 32;

impl Texts {
    /// `text`, shared.
    fn text(&mut self, text: &str) -> Text {
        if let Some(kept) = self.texts.iter().find(|t| t.as_str() == text) {
            return kept.clone();
        }
        let kept = Text::from(text);
        if self.texts.len() == KEPT {
            self.texts.remove(0);
        }
        self.texts.push(kept.clone());
        kept
    }

    /// The list of `items`, shared.
    fn list(&mut self, items: &[String]) -> Arc<[Text]> {
        let same = |list: &&Arc<[Text]>| {
            list.len() == items.len() && list.iter().zip(items).all(|(a, b)| a.as_str() == b)
        };
        if let Some(kept) = self.lists.iter().find(same) {
            return Arc::clone(kept);
        }
        let list: Arc<[Text]> = items.iter().map(|item| self.text(item)).collect();
        if self.lists.len() == KEPT {
            self.lists.remove(0);
        }
        self.lists.push(Arc::clone(&list));
        list
    }
}

thread_local! {
    static TEXTS: std::cell::RefCell<Texts> = std::cell::RefCell::new(Texts::default());
}

/// `text`, shared with the spans of this thread that carry it already.
pub(crate) fn shared(text: &str) -> Text {
    TEXTS.with(|texts| texts.borrow_mut().text(text))
}

/// The list of `items`, shared with the spans of this thread that carry it already.
pub(crate) fn shared_list(items: &[String]) -> Arc<[Text]> {
    TEXTS.with(|texts| texts.borrow_mut().list(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_its_string_and_kept_texts_are_shared() {
        let text = Text::from("gpt-4.1");
        assert_eq!(text, "gpt-4.1");
        assert_eq!(text, Text::from_static("gpt-4.1"));
        assert_eq!(format!("{text} {text:?}"), "gpt-4.1 \"gpt-4.1\"");
        assert_eq!(serde_json::to_string(&text).unwrap(), "\"gpt-4.1\"");
        assert_eq!(Text::default().as_str(), "");

        let mut texts = Texts::default();
        let a = texts.text("model");
        let b = texts.text("model");
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        let tools = ["read_section".to_owned(), "lookup".to_owned()];
        let first = texts.list(&tools);
        assert!(Arc::ptr_eq(&first, &texts.list(&tools)));
        assert_eq!(&*first, [Text::from("read_section"), Text::from("lookup")]);
        assert!(!Arc::ptr_eq(&first, &texts.list(&tools[..1])));
        for i in 0..KEPT + 1 {
            texts.text(&i.to_string());
        }
        assert_eq!(texts.texts.len(), KEPT);
        assert!(std::ptr::eq(shared("x").as_str(), shared("x").as_str()));
        assert!(Arc::ptr_eq(&shared_list(&tools), &shared_list(&tools)));
    }
}
