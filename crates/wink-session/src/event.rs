//! The event and slice-item traits, session ids, and type-erased access used by the bus and the log.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Something that can be dispatched into a [`Session`](crate::Session) and published on an
/// [`EventBus`](crate::EventBus).
///
/// Events are plain serializable values. [`Event::type_name`] is the stable name written to session logs and
/// snapshots and used to find the decoder on replay; the default is the type's name without its module path
/// (`my_crate::notes::Note` → `Note`). Override it when two event types share a name.
pub trait Event: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// Stable name of the event type used in logs, snapshots and error messages.
    fn type_name() -> &'static str {
        short_type_name::<Self>()
    }
}

/// A value stored in a session slice. Every [`Event`] is a slice item (the default ledger stores events in a
/// slice of their own type); state types that are not events implement this trait directly.
pub trait SliceItem: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// Stable name of the slice (and of its item type) in snapshots, logs and error messages.
    fn slice_type_name() -> &'static str {
        short_type_name::<Self>()
    }
}

impl<E: Event> SliceItem for E {
    fn slice_type_name() -> &'static str {
        E::type_name()
    }
}

/// The name of `T` with module paths removed: `alloc::vec::Vec<my::Note>` → `Vec<Note>`.
///
/// The string is computed once per type and kept for the life of the process.
pub fn short_type_name<T: ?Sized + 'static>() -> &'static str {
    static NAMES: OnceLock<Mutex<HashMap<TypeId, &'static str>>> = OnceLock::new();
    let names = NAMES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut names = names
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    names.entry(TypeId::of::<T>()).or_insert_with(|| {
        let shortened = strip_module_paths(std::any::type_name::<T>());
        Box::leak(shortened.into_boxed_str())
    })
}

fn strip_module_paths(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut segment_start = 0;
    let mut chars = full.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.truncate(segment_start);
            continue;
        }
        out.push(ch);
        if !(ch.is_alphanumeric() || ch == '_') {
            segment_start = out.len();
        }
    }
    out
}

/// An event seen through a type-erased reference: what bus subscribers for all events and session journals get.
pub trait ErasedEvent: Send + Sync {
    /// The event's [`Event::type_name`].
    fn event_type_name(&self) -> &'static str;
    /// The concrete event, for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// The event as JSON.
    fn to_json(&self) -> Result<serde_json::Value, serde_json::Error>;
    /// Appends the event's compact JSON to `out`.
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error>;
}

impl<E: Event> ErasedEvent for E {
    fn event_type_name(&self) -> &'static str {
        E::type_name()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn to_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }

    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        serde_json::to_writer(out, self)
    }
}

impl fmt::Debug for dyn ErasedEvent + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ErasedEvent")
            .field("type", &self.event_type_name())
            .finish_non_exhaustive()
    }
}

/// Identifier of a session (a random UUID v4), displayed hyphenated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SessionId(Uuid);

impl SessionId {
    /// A fresh random id.
    pub fn new() -> Self {
        Self(Uuid::new_v4())
    }

    /// Wraps an existing UUID.
    pub fn from_uuid(uuid: Uuid) -> Self {
        Self(uuid)
    }

    /// The underlying UUID.
    pub fn as_uuid(&self) -> &Uuid {
        &self.0
    }
}

impl Default for SessionId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

impl FromStr for SessionId {
    type Err = uuid::Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Uuid::parse_str(text).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Serialize, Deserialize)]
    struct Note {
        text: String,
    }
    impl Event for Note {}

    #[derive(Clone, Serialize, Deserialize)]
    struct Wrapper<T>(T);

    #[test]
    fn default_names_drop_module_paths() {
        assert_eq!(Note::type_name(), "Note");
        assert_eq!(<Note as SliceItem>::slice_type_name(), "Note");
        assert_eq!(short_type_name::<Wrapper<Note>>(), "Wrapper<Note>");
        assert_eq!(
            short_type_name::<Vec<Option<String>>>(),
            "Vec<Option<String>>"
        );
        assert_eq!(short_type_name::<(u8, Note)>(), "(u8, Note)");
        assert_eq!(
            strip_module_paths("a::b::C<d::E, f::G<h::I>>"),
            "C<E, G<I>>"
        );
    }

    #[test]
    fn erased_event_serializes() {
        let note = Note { text: "a".into() };
        let erased: &dyn ErasedEvent = &note;
        assert_eq!(erased.event_type_name(), "Note");
        assert_eq!(erased.to_json().unwrap(), serde_json::json!({"text": "a"}));
        let mut out = Vec::new();
        erased.write_json(&mut out).unwrap();
        assert_eq!(out, br#"{"text":"a"}"#);
        assert!(erased.as_any().downcast_ref::<Note>().is_some());
    }

    #[test]
    fn session_id_round_trips() {
        let id = SessionId::new();
        let text = id.to_string();
        assert_eq!(text.len(), 36);
        assert_eq!(text.parse::<SessionId>().unwrap(), id);
        assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{text}\""));
    }
}
