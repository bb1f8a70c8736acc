//! `wink session show`: a log's events and the slices replay yields, as text or JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::str::FromStr;

use serde_json::{Map, Value, json};
use wink_session::journal::{RESET, RESTORED, SLICE_EXTENDED, SLICE_REPLACED};
use wink_session::{LogRecord, Session};

use crate::error::StoreError;
use crate::read::{LogContents, read_log};

/// Output format of [`show`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShowFormat {
    /// Human-readable text.
    #[default]
    Text,
    /// One pretty-printed JSON document.
    Json,
}

impl FromStr for ShowFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "text" => Ok(ShowFormat::Text),
            "json" => Ok(ShowFormat::Json),
            other => Err(format!(
                "unknown format {other:?}; expected \"text\" or \"json\""
            )),
        }
    }
}

/// Slices of event types this process has no Rust type for, folded at the JSON level as ledgers.
#[derive(Default)]
struct RawSlices {
    slices: BTreeMap<String, Vec<Value>>,
}

fn items_of(value: &Value) -> Vec<Value> {
    value
        .get("items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Which slices a record changed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reach {
    /// Every slice (`wink.restored`, `wink.reset` set the whole state).
    All,
    /// These slices: the targets of the event type's reducers, its own ledger, or the slice a
    /// `wink.slice_*` record names.
    Slices(Vec<String>),
}

impl Reach {
    fn includes(&self, slice: &str) -> bool {
        match self {
            Reach::All => true,
            Reach::Slices(names) => names.iter().any(|name| name == slice),
        }
    }
}

/// The slices replay yields, and for each record (in order) the slices it reduced into.
struct Folded {
    slices: BTreeMap<String, Vec<Value>>,
    reach: Vec<Reach>,
}

/// Replays what the session knows and folds the rest as ledgers.
fn fold(
    path: &Path,
    contents: &LogContents,
    configure: impl FnOnce(&Session),
) -> Result<Folded, StoreError> {
    let session = Session::builder()
        .id(contents.header.session_id)
        .created_at(contents.header.created_at)
        .build();
    configure(&session);
    let mut folder = Folder {
        path,
        session,
        raw: RawSlices::default(),
    };
    let mut reach = Vec::with_capacity(contents.records.len());
    for record in &contents.records {
        reach.push(folder.fold_record(record)?);
    }
    let slices = folder.into_slices()?;
    Ok(Folded { slices, reach })
}

/// A log being folded: the session replaying the event types it knows, and the ledgers of the
/// others.
struct Folder<'a> {
    path: &'a Path,
    session: Session,
    raw: RawSlices,
}

impl Folder<'_> {
    fn replay(&self, record: &LogRecord) -> Result<(), StoreError> {
        self.session
            .replay_record(record)
            .map(drop)
            .map_err(|source| StoreError::Replay {
                path: self.path.to_path_buf(),
                seq: record.seq,
                source,
            })
    }

    /// Folds one record; returns the slices it reduced into.
    fn fold_record(&mut self, record: &LogRecord) -> Result<Reach, StoreError> {
        match record.type_name.as_str() {
            SLICE_REPLACED | SLICE_EXTENDED => self.fold_slice_change(record),
            RESTORED => {
                self.fold_restored(record)?;
                Ok(Reach::All)
            }
            RESET => {
                self.replay(record)?;
                self.raw.slices.clear();
                Ok(Reach::All)
            }
            name => match self.session.slices_reduced_by(name) {
                Some(targets) => {
                    let reach = Reach::Slices(targets.into_iter().map(str::to_owned).collect());
                    self.replay(record)?;
                    Ok(reach)
                }
                None => {
                    self.raw
                        .slices
                        .entry(name.to_owned())
                        .or_default()
                        .push(record.event.clone());
                    Ok(Reach::Slices(vec![name.to_owned()]))
                }
            },
        }
    }

    /// A `wink.slice_*` record: replayed when its slice type is known, else applied to the
    /// slice's ledger.
    fn fold_slice_change(&mut self, record: &LogRecord) -> Result<Reach, StoreError> {
        let slice = record
            .event
            .get("slice")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if self.session.is_slice_type_registered(slice) {
            self.replay(record)?;
        } else {
            let entry = self.raw.slices.entry(slice.to_owned()).or_default();
            if record.type_name == SLICE_REPLACED {
                entry.clear();
            }
            entry.extend(items_of(&record.event));
        }
        Ok(Reach::Slices(vec![slice.to_owned()]))
    }

    /// A `wink.restored` record: the known slices are replayed, the others become the ledgers.
    fn fold_restored(&mut self, record: &LogRecord) -> Result<(), StoreError> {
        let slices = record
            .event
            .get("slices")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let (known, unknown): (Vec<Value>, Vec<Value>) = slices.into_iter().partition(|slice| {
            slice
                .get("slice_type")
                .and_then(Value::as_str)
                .is_some_and(|name| self.session.is_slice_type_registered(name))
        });
        self.replay(&LogRecord {
            seq: record.seq,
            type_name: RESTORED.to_owned(),
            event: json!({"slices": known}),
        })?;
        self.raw.slices = unknown
            .iter()
            .filter_map(|slice| {
                Some((
                    slice.get("slice_type")?.as_str()?.to_owned(),
                    items_of(slice),
                ))
            })
            .collect();
        Ok(())
    }

    /// The replayed slices, then the ledgers.
    fn into_slices(self) -> Result<BTreeMap<String, Vec<Value>>, StoreError> {
        let mut slices: BTreeMap<String, Vec<Value>> = self
            .session
            .slices_json()
            .map_err(|source| StoreError::Encode {
                path: self.path.to_path_buf(),
                source,
            })?
            .into_iter()
            .map(|(name, items)| (name.to_owned(), items))
            .collect();
        for (name, items) in self.raw.slices {
            slices.entry(name).or_default().extend(items);
        }
        Ok(slices)
    }
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
}

/// Renders a session log for `wink session show FILE [--slice TYPE] [--format text|json]`.
///
/// The slices are what replaying the log yields: event types this build knows (the telemetry events and the
/// visibility-override events, with their reducers) are replayed through a [`Session`]; every other event
/// type is shown as a ledger (its events in order, as in a session without a reducer for it), and direct
/// slice changes (`wink.slice_*`, `wink.restored`, `wink.reset`) are applied to those ledgers too.
///
/// With `slice`, only that slice is shown, with the records that reduced into it: the events whose reducers
/// target it (for a ledger, the events of its own type), the `wink.slice_*` records that name it, and the
/// `wink.restored` / `wink.reset` records (they set every slice). A torn last line is dropped (with a warning)
/// and mentioned; the file is not modified. See the crate documentation for both output formats.
pub fn show(
    path: impl AsRef<Path>,
    slice: Option<&str>,
    format: ShowFormat,
) -> Result<String, StoreError> {
    show_with(path, slice, format, |_| {})
}

/// [`show`] for a program that knows its own event types and reducers: `configure` registers them (as for
/// [`open_session`](crate::open_session)) before the log is replayed, so their slices are folded by their
/// reducers instead of as ledgers, and `--slice` finds the events that reduced into them.
pub fn show_with(
    path: impl AsRef<Path>,
    slice: Option<&str>,
    format: ShowFormat,
    configure: impl FnOnce(&Session),
) -> Result<String, StoreError> {
    let path = path.as_ref();
    let contents = read_log(path)?;
    let Folded { mut slices, reach } = fold(path, &contents, configure)?;
    let mut events: Vec<&LogRecord> = contents.records.iter().collect();
    if let Some(name) = slice {
        if !slices.contains_key(name) {
            return Err(StoreError::UnknownSlice {
                path: path.to_path_buf(),
                name: name.to_owned(),
                available: slices.into_keys().collect(),
            });
        }
        slices.retain(|key, _| key == name);
        events = contents
            .records
            .iter()
            .zip(&reach)
            .filter(|(_, reach)| reach.includes(name))
            .map(|(record, _)| record)
            .collect();
    }
    match format {
        ShowFormat::Json => {
            let mut document = Map::new();
            let header =
                serde_json::to_value(&contents.header).map_err(|source| StoreError::Encode {
                    path: path.to_path_buf(),
                    source,
                })?;
            document.insert("header".into(), header);
            if let Some(torn) = &contents.torn_tail {
                document.insert("dropped_torn_line".into(), json!(torn.line));
            }
            let events: Vec<Value> = events
                .iter()
                .map(|record| json!({"seq": record.seq, "type": record.type_name, "event": record.event}))
                .collect();
            document.insert("events".into(), Value::Array(events));
            document.insert("slices".into(), json!(slices));
            serde_json::to_string_pretty(&Value::Object(document))
                .map(|mut text| {
                    text.push('\n');
                    text
                })
                .map_err(|source| StoreError::Encode {
                    path: path.to_path_buf(),
                    source,
                })
        }
        ShowFormat::Text => Ok(render_text(path, &contents, &events, &slices)),
    }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

fn render_text(
    path: &Path,
    contents: &LogContents,
    events: &[&LogRecord],
    slices: &BTreeMap<String, Vec<Value>>,
) -> String {
    let mut out = String::new();
    let header = &contents.header;
    let _ = writeln!(out, "Session {}", header.session_id);
    let _ = writeln!(out, "  log: {}", path.display());
    let _ = writeln!(out, "  schema: {}", header.wink_session_log);
    let _ = writeln!(out, "  created: {}", header.created_at);
    let _ = writeln!(out, "  records: {}", contents.records.len());
    if let Some(torn) = &contents.torn_tail {
        let _ = writeln!(
            out,
            "  dropped torn last line: line {} ({} bytes)",
            torn.line, torn.bytes
        );
    }
    let _ = writeln!(out, "\nEvents ({}):", events.len());
    for record in events {
        let _ = writeln!(
            out,
            "  #{} {} {}",
            record.seq,
            record.type_name,
            compact(&record.event)
        );
    }
    let _ = writeln!(out, "\nSlices ({}):", slices.len());
    for (name, items) in slices {
        let _ = writeln!(out, "  {name} ({})", plural(items.len(), "item"));
        for item in items {
            let _ = writeln!(out, "    - {}", compact(item));
        }
    }
    out
}
