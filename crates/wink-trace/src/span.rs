//! Spans as wink builds them from a run: ids, times (Unix nanoseconds), attributes, events and
//! status. The same records go to an OTLP exporter, into an OTLP JSON file, to the terminal
//! tree and to the page.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use wink_session::TraceParent;

pub use crate::text::Text;

/// A 16-byte trace id.
pub type TraceId = [u8; 16];
/// An 8-byte span id.
pub type SpanId = [u8; 8];

/// An attribute value (the OTLP kinds wink uses). Strings are [`Text`]: static or shared, so
/// the spans of a run that repeat a value (a model, a conversation id, a section tree) hold one
/// copy of it.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AttrValue {
    /// A string.
    Str(Text),
    /// An integer.
    Int(i64),
    /// A double.
    Double(f64),
    /// A boolean.
    Bool(bool),
    /// A list of strings.
    StrList(Arc<[Text]>),
}

impl From<&str> for AttrValue {
    fn from(value: &str) -> Self {
        AttrValue::Str(value.into())
    }
}

impl From<String> for AttrValue {
    fn from(value: String) -> Self {
        AttrValue::Str(value.into())
    }
}

impl From<Text> for AttrValue {
    fn from(value: Text) -> Self {
        AttrValue::Str(value)
    }
}

impl From<Arc<[Text]>> for AttrValue {
    fn from(value: Arc<[Text]>) -> Self {
        AttrValue::StrList(value)
    }
}

impl From<u64> for AttrValue {
    fn from(value: u64) -> Self {
        AttrValue::Int(i64::try_from(value).unwrap_or(i64::MAX))
    }
}

impl From<u32> for AttrValue {
    fn from(value: u32) -> Self {
        AttrValue::Int(i64::from(value))
    }
}

impl From<bool> for AttrValue {
    fn from(value: bool) -> Self {
        AttrValue::Bool(value)
    }
}

impl From<Vec<String>> for AttrValue {
    fn from(value: Vec<String>) -> Self {
        AttrValue::StrList(value.into_iter().map(Text::from).collect())
    }
}

/// A key and its value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attribute {
    /// The key (see [`crate::semconv`]; a `&'static str` there, so setting it allocates nothing).
    pub key: Cow<'static, str>,
    /// The value.
    pub value: AttrValue,
}

/// Attributes in the order they were set.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Attributes(pub Vec<Attribute>);

impl Attributes {
    /// No attributes, with room for `n`.
    pub fn with_capacity(n: usize) -> Self {
        Self(Vec::with_capacity(n))
    }

    /// Sets `key` (replacing an earlier value).
    pub fn set(&mut self, key: impl Into<Cow<'static, str>>, value: impl Into<AttrValue>) {
        let (key, value) = (key.into(), value.into());
        match self.0.iter_mut().find(|a| a.key == key) {
            Some(existing) => existing.value = value,
            None => self.0.push(Attribute { key, value }),
        }
    }

    /// Adds `key`, which the caller knows is not set yet (no search for an earlier value).
    pub(crate) fn push(&mut self, key: &'static str, value: impl Into<AttrValue>) {
        debug_assert!(self.get(key).is_none(), "{key} is set already");
        self.0.push(Attribute {
            key: Cow::Borrowed(key),
            value: value.into(),
        });
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&AttrValue> {
        self.0.iter().find(|a| a.key == key).map(|a| &a.value)
    }

    /// The string value of `key`.
    pub fn str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(AttrValue::Str(s)) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The integer value of `key`.
    pub fn int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Some(AttrValue::Int(n)) => Some(*n),
            _ => None,
        }
    }
}

/// The span's kind.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    /// Work inside the process.
    Internal,
    /// A call to another service (a model over HTTP).
    Client,
    /// A request handed to a queue.
    Producer,
}

/// The span's status.
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "code", content = "message", rename_all = "snake_case")]
pub enum SpanStatus {
    /// Not set (the default: success).
    #[default]
    Unset,
    /// Failed, with a message.
    Error(String),
}

/// An event at one moment of a span.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpanEvent {
    /// Its name (see [`crate::semconv::event`]).
    pub name: String,
    /// When, in Unix nanoseconds.
    pub time_ns: u64,
    /// Its attributes.
    pub attributes: Attributes,
}

/// One finished span.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpanRecord {
    /// The trace.
    #[serde(serialize_with = "hex_ser")]
    pub trace_id: TraceId,
    /// The span.
    #[serde(serialize_with = "hex_ser")]
    pub span_id: SpanId,
    /// The parent span, if any.
    #[serde(serialize_with = "hex_opt_ser")]
    pub parent_span_id: Option<SpanId>,
    /// The parent is in another process (a queued request's submitter).
    pub parent_is_remote: bool,
    /// `chat gpt-4.1`, `execute_tool search`, `invoke_agent demo:agent`, ...
    pub name: String,
    /// Its kind.
    pub kind: SpanKind,
    /// Start, Unix nanoseconds.
    pub start_ns: u64,
    /// End, Unix nanoseconds.
    pub end_ns: u64,
    /// Attributes.
    pub attributes: Attributes,
    /// Events.
    pub events: Vec<SpanEvent>,
    /// Status.
    pub status: SpanStatus,
}

impl SpanRecord {
    /// The span's W3C trace context.
    pub fn context(&self) -> TraceParent {
        TraceParent {
            trace_id: self.trace_id,
            span_id: self.span_id,
            sampled: true,
        }
    }

    /// Its duration in seconds.
    pub fn seconds(&self) -> f64 {
        self.end_ns.saturating_sub(self.start_ns) as f64 / 1e9
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

fn hex_ser<S: serde::Serializer, const N: usize>(
    bytes: &[u8; N],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&hex(bytes))
}

fn hex_opt_ser<S: serde::Serializer>(
    bytes: &Option<SpanId>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match bytes {
        Some(b) => serializer.serialize_str(&hex(b)),
        None => serializer.serialize_none(),
    }
}

/// A fresh random span id (never all zeros), from a generator of the calling thread seeded
/// from the system's randomness once (SplitMix64: no system call per id).
pub fn random_span_id() -> SpanId {
    thread_local! {
        static STATE: std::cell::Cell<u64> = std::cell::Cell::new(u64::from_le_bytes(
            first_8(uuid::Uuid::new_v4().as_bytes()),
        ));
    }
    let mut z = STATE.with(|state| {
        let next = state.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
        state.set(next);
        next
    });
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    nonzero((z ^ (z >> 31)).to_be_bytes())
}

/// A fresh random trace id (never all zeros).
pub fn random_trace_id() -> TraceId {
    let mut id = *uuid::Uuid::new_v4().as_bytes();
    if id == [0; 16] {
        id[15] = 1;
    }
    id
}

/// A span id taken from a UUID (an event id): stable, so a log exports the same ids every time.
pub fn span_id_of(uuid: &uuid::Uuid, salt: u8) -> SpanId {
    let bytes = uuid.as_bytes();
    let mut id = first_8(bytes);
    for (i, b) in id.iter_mut().enumerate() {
        *b ^= bytes[8 + i].rotate_left(u32::from(salt));
    }
    id[0] ^= salt;
    nonzero(id)
}

fn first_8(bytes: &[u8; 16]) -> SpanId {
    let mut id = [0u8; 8];
    id.copy_from_slice(&bytes[..8]);
    id
}

fn nonzero(mut id: SpanId) -> SpanId {
    if id == [0; 8] {
        id[7] = 1;
    }
    id
}

/// Nanoseconds since the Unix epoch of a session timestamp (0 before the epoch).
pub fn nanos(time: wink_session::Timestamp) -> u64 {
    u64::try_from(time.unix_micros())
        .unwrap_or(0)
        .saturating_mul(1_000)
}
