//! Replaying log records into a session: events through their reducers, and the reserved
//! `wink.*` records (restores, slice changes, resets).

use std::sync::Arc;

use crate::bus::DispatchResult;
use crate::journal::{
    LogRecord, RESET, RESTORED, RestoreRecord, SLICE_EXTENDED, SLICE_REPLACED, SliceItemsRecord,
    SliceRecord,
};
use crate::registry::Registry;
use crate::slice::{ErasedSlice, SliceMap};
use crate::snapshot::SnapshotRestoreError;

use super::{DispatchMode, ReplayError, Session};

impl Session {
    /// Applies one log record (an event or a reserved `wink.*` record) without journaling or publishing it.
    pub fn replay_record(&self, record: &LogRecord) -> Result<DispatchResult, ReplayError> {
        self.apply_record(record, DispatchMode::Replay)
    }

    /// Applies one log record; `Live` journals it (and publishes events) as a fresh change would.
    pub(crate) fn apply_record(
        &self,
        record: &LogRecord,
        mode: DispatchMode,
    ) -> Result<DispatchResult, ReplayError> {
        let type_name = record.type_name.as_str();
        if mode == DispatchMode::Live
            && let Some(reserved) = crate::transaction::reserved_record(record)
        {
            let journal = self.lock().journal.clone();
            if let Some(journal) = journal {
                journal
                    .append(crate::ErasedEvent::event_type_name(&reserved), &reserved)
                    .map_err(|source| ReplayError::Journal {
                        type_name: record.type_name.clone(),
                        source,
                    })?;
            }
        }
        let restore_error = |source| ReplayError::Restore {
            type_name: record.type_name.clone(),
            source,
        };
        match type_name {
            RESTORED => {
                let restore: RestoreRecord =
                    serde_json::from_value(record.event.clone()).map_err(|source| {
                        ReplayError::Decode {
                            type_name: record.type_name.clone(),
                            source,
                        }
                    })?;
                self.restore_records(restore.slices, DispatchMode::Replay)
                    .map_err(restore_error)?;
                Ok(DispatchResult::default())
            }
            SLICE_REPLACED | SLICE_EXTENDED => {
                let change: SliceItemsRecord = serde_json::from_value(record.event.clone())
                    .map_err(|source| ReplayError::Decode {
                        type_name: record.type_name.clone(),
                        source,
                    })?;
                let mut state = self.lock();
                let slice_name = change.slice.clone();
                let mut decoded = decode_records(
                    &state.registry,
                    vec![SliceRecord {
                        slice_type: change.slice,
                        items: change.items,
                    }],
                )
                .map_err(restore_error)?;
                let entry = state.registry.slice_names.get(slice_name.as_str()).copied();
                state.changed = true;
                let slices = Arc::make_mut(&mut state.slices);
                if let Some(entry) = entry
                    && let Some(new_slice) = decoded.take(entry.type_id)
                {
                    if type_name == SLICE_EXTENDED {
                        slices.extend_erased(entry.type_id, new_slice);
                    } else {
                        slices.insert_erased(entry.type_id, new_slice);
                    }
                }
                Ok(DispatchResult::default())
            }
            RESET => {
                let mut state = self.lock();
                state.changed = true;
                state.slices = Arc::new(SliceMap::default());
                Ok(DispatchResult::default())
            }
            _ => {
                let replay = self
                    .lock()
                    .registry
                    .event_names
                    .get(type_name)
                    .copied()
                    .ok_or_else(|| ReplayError::UnknownEventType(record.type_name.clone()))?;
                replay(self, record.event.clone(), mode).map_err(|source| ReplayError::Decode {
                    type_name: record.type_name.clone(),
                    source,
                })
            }
        }
    }
}

pub(super) fn decode_records(
    registry: &Registry,
    records: Vec<SliceRecord>,
) -> Result<SliceMap, SnapshotRestoreError> {
    let mut missing: Vec<String> = records
        .iter()
        .filter(|record| {
            !registry
                .slice_names
                .contains_key(record.slice_type.as_str())
        })
        .map(|record| record.slice_type.clone())
        .collect();
    if !missing.is_empty() {
        missing.sort();
        missing.dedup();
        return Err(SnapshotRestoreError::UnregisteredSliceTypes(missing));
    }
    let mut slices = SliceMap::default();
    for record in records {
        if let Some(entry) = registry.slice_names.get(record.slice_type.as_str()) {
            let slice: Box<dyn ErasedSlice> = (entry.decode)(record.items).map_err(|source| {
                SnapshotRestoreError::ItemDecode {
                    slice: record.slice_type.clone(),
                    source,
                }
            })?;
            slices.insert_erased(entry.type_id, slice);
        }
    }
    Ok(slices)
}
