//! Immutable, O(1) snapshots of a session's slices, and their JSON form.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::event::{SessionId, SliceItem};
use crate::journal::SliceRecord;
use crate::slice::{SliceMap, SliceView};
use crate::time::Timestamp;

/// Version string of the snapshot JSON format ([`Snapshot::to_json`]).
pub const SNAPSHOT_VERSION: &str = "1";

/// The state of every slice of a session at one moment.
///
/// Taking a snapshot is O(1) whatever the number of events (it shares the session's persistent slice storage);
/// it never changes afterwards, and cloning it is O(1) too. Restore it with
/// [`Session::restore`](crate::Session::restore) or start a child from it with
/// [`Session::fork`](crate::Session::fork).
#[derive(Clone)]
pub struct Snapshot {
    pub(crate) slices: Arc<SliceMap>,
    pub(crate) session_id: SessionId,
    pub(crate) parent_id: Option<SessionId>,
    pub(crate) children_ids: Arc<Vec<SessionId>>,
    pub(crate) tags: Arc<BTreeMap<String, String>>,
    pub(crate) created_at: Timestamp,
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshot")
            .field("session_id", &self.session_id)
            .field("created_at", &self.created_at)
            .field("slices", &self.slices)
            .finish_non_exhaustive()
    }
}

/// Why a snapshot could not be restored. The session is unchanged when this is returned.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum SnapshotRestoreError {
    /// The snapshot holds slices whose types this session does not know (names sorted).
    #[error("Slice types not registered: {}", .0.join(", "))]
    UnregisteredSliceTypes(Vec<String>),
    /// A JSON snapshot written by another format version.
    #[error("snapshot version {found:?} is not supported (expected {expected:?})")]
    UnsupportedVersion {
        /// Version found in the snapshot.
        found: String,
        /// Version this build reads.
        expected: &'static str,
    },
    /// A JSON snapshot that does not have the documented shape.
    #[error("malformed snapshot JSON: {0}")]
    Malformed(String),
    /// An item of a JSON snapshot that does not decode as its slice type.
    #[error("snapshot slice {slice}: item does not decode: {source}")]
    ItemDecode {
        /// The slice type name.
        slice: String,
        /// The decoding error.
        source: serde_json::Error,
    },
    /// The session's journal refused to record the restore.
    #[error("could not record the restore in the session journal: {0}")]
    Journal(String),
}

impl Snapshot {
    /// The session the snapshot was taken from.
    pub fn session_id(&self) -> SessionId {
        self.session_id
    }

    /// That session's parent, if any.
    pub fn parent_id(&self) -> Option<SessionId> {
        self.parent_id
    }

    /// When the snapshot was taken.
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }

    /// The session's tags when the snapshot was taken.
    pub fn tags(&self) -> &BTreeMap<String, String> {
        &self.tags
    }

    /// The items of the `T` slice (empty when the snapshot has no such slice).
    pub fn slice<T: SliceItem>(&self) -> SliceView<T> {
        self.slices.view::<T>().cloned().unwrap_or_default()
    }

    /// Names of the slice types in the snapshot, sorted.
    pub fn slice_type_names(&self) -> Vec<&'static str> {
        self.slices.by_name().into_keys().collect()
    }

    /// Every slice's items as JSON, by slice type name.
    pub fn slices_json(&self) -> Result<BTreeMap<&'static str, Vec<Value>>, serde_json::Error> {
        self.slices
            .by_name()
            .into_iter()
            .map(|(name, slice)| Ok((name, slice.items_json()?)))
            .collect()
    }

    pub(crate) fn slice_records(&self) -> Result<Vec<SliceRecord>, serde_json::Error> {
        slice_records(&self.slices)
    }

    /// The snapshot as JSON (keys sorted):
    ///
    /// ```json
    /// {"children_ids": [], "created_at": "2026-11-22T03:47:39.123456Z", "parent_id": null,
    ///  "session_id": "<uuid>",
    ///  "slices": [{"item_type": "Note", "items": [{"text": "a"}], "slice_type": "Note"}],
    ///  "tags": {"session_id": "<uuid>"}, "version": "1"}
    /// ```
    ///
    /// Slices are sorted by type name; `tags` always includes `session_id` (as in WINK).
    pub fn to_json(&self) -> Result<Value, serde_json::Error> {
        let slices: Vec<Value> = self
            .slice_records()?
            .into_iter()
            .map(|record| json!({"item_type": record.slice_type, "items": record.items, "slice_type": record.slice_type}))
            .collect();
        let mut tags: BTreeMap<String, String> = (*self.tags).clone();
        tags.insert("session_id".to_owned(), self.session_id.to_string());
        let mut object = Map::new();
        object.insert(
            "children_ids".into(),
            serde_json::to_value(&*self.children_ids)?,
        );
        object.insert("created_at".into(), serde_json::to_value(self.created_at)?);
        object.insert("parent_id".into(), serde_json::to_value(self.parent_id)?);
        object.insert("session_id".into(), serde_json::to_value(self.session_id)?);
        object.insert("slices".into(), Value::Array(slices));
        object.insert("tags".into(), serde_json::to_value(tags)?);
        object.insert("version".into(), Value::String(SNAPSHOT_VERSION.to_owned()));
        Ok(Value::Object(object))
    }
}

pub(crate) fn slice_records(slices: &SliceMap) -> Result<Vec<SliceRecord>, serde_json::Error> {
    slices
        .by_name()
        .into_iter()
        .map(|(name, slice)| {
            Ok(SliceRecord {
                slice_type: name.to_owned(),
                items: slice.items_json()?,
            })
        })
        .collect()
}

/// Reads the `slices` of a JSON snapshot after checking its version.
pub(crate) fn parse_snapshot_slices(
    value: &Value,
) -> Result<Vec<SliceRecord>, SnapshotRestoreError> {
    let object = value
        .as_object()
        .ok_or_else(|| SnapshotRestoreError::Malformed("expected an object".into()))?;
    match object.get("version") {
        Some(Value::String(version)) if version == SNAPSHOT_VERSION => {}
        Some(Value::String(version)) => {
            return Err(SnapshotRestoreError::UnsupportedVersion {
                found: version.clone(),
                expected: SNAPSHOT_VERSION,
            });
        }
        _ => {
            return Err(SnapshotRestoreError::Malformed(
                "missing string field \"version\"".into(),
            ));
        }
    }
    let slices = object
        .get("slices")
        .cloned()
        .ok_or_else(|| SnapshotRestoreError::Malformed("missing field \"slices\"".into()))?;
    serde_json::from_value(slices)
        .map_err(|error| SnapshotRestoreError::Malformed(format!("\"slices\": {error}")))
}
