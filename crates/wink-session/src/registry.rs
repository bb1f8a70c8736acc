//! The per-session type registry: which reducers run for an event type, and how event and slice types are
//! decoded by name when a log is replayed or a JSON snapshot restored.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::bus::DispatchResult;
use crate::event::{Event, SliceItem};
use crate::reducer::{ErasedReducer, Registration};
use crate::session::{DispatchMode, Session};
use crate::slice::{ErasedSlice, TypeMap, decode_slice};

pub(crate) type ReplayEventFn =
    fn(&Session, Value, DispatchMode) -> Result<DispatchResult, serde_json::Error>;
pub(crate) type DecodeSliceFn = fn(Vec<Value>) -> Result<Box<dyn ErasedSlice>, serde_json::Error>;

#[derive(Clone)]
pub(crate) struct EventEntry {
    pub(crate) reducers: Vec<Arc<dyn ErasedReducer>>,
}

#[derive(Clone, Copy)]
pub(crate) struct SliceEntry {
    pub(crate) type_id: TypeId,
    pub(crate) decode: DecodeSliceFn,
}

/// Cloned on write: forks share it until one of them registers something new.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    pub(crate) events: TypeMap<EventEntry>,
    pub(crate) event_names: HashMap<&'static str, ReplayEventFn>,
    pub(crate) slices: TypeMap<&'static str>,
    pub(crate) slice_names: HashMap<&'static str, SliceEntry>,
}

fn replay_event<E: Event>(
    session: &Session,
    value: Value,
    mode: DispatchMode,
) -> Result<DispatchResult, serde_json::Error> {
    let event: E = serde_json::from_value(value)?;
    Ok(session.dispatch_with(event, mode))
}

impl Registry {
    /// This registry plus what `other` registered that this one lacks (types and their reducers);
    /// on a type both know, this registry's entry wins.
    pub(crate) fn merged_with(&self, other: &Registry) -> Registry {
        let mut merged = self.clone();
        for (type_id, entry) in &other.events {
            merged
                .events
                .entry(*type_id)
                .or_insert_with(|| entry.clone());
        }
        for (name, replay) in &other.event_names {
            merged.event_names.entry(name).or_insert(*replay);
        }
        for (type_id, name) in &other.slices {
            merged.slices.entry(*type_id).or_insert(name);
        }
        for (name, entry) in &other.slice_names {
            merged.slice_names.entry(name).or_insert(*entry);
        }
        merged
    }

    pub(crate) fn register_event<E: Event>(&mut self) {
        let type_id = TypeId::of::<E>();
        if self.events.contains_key(&type_id) {
            return;
        }
        let name = E::type_name();
        self.events.insert(
            type_id,
            EventEntry {
                reducers: Vec::new(),
            },
        );
        if self.event_names.contains_key(name) {
            tracing::error!(
                event_type = name,
                rust_type = std::any::type_name::<E>(),
                "Two event types share the name {name}; replay decodes the first one registered. Override Event::type_name."
            );
        } else {
            self.event_names.insert(name, replay_event::<E>);
        }
        self.register_slice::<E>();
    }

    pub(crate) fn register_slice<T: SliceItem>(&mut self) {
        let type_id = TypeId::of::<T>();
        if self.slices.contains_key(&type_id) {
            return;
        }
        let name = T::slice_type_name();
        self.slices.insert(type_id, name);
        if let Some(existing) = self.slice_names.get(name) {
            if existing.type_id != type_id {
                tracing::error!(
                    slice_type = name,
                    rust_type = std::any::type_name::<T>(),
                    "Two slice types share the name {name}; snapshots decode the first one registered. Override the type name."
                );
            }
        } else {
            self.slice_names.insert(
                name,
                SliceEntry {
                    type_id,
                    decode: decode_slice::<T>,
                },
            );
        }
    }

    pub(crate) fn add(&mut self, registration: Registration) {
        (registration.register_types)(self);
        if let Some(entry) = self.events.get_mut(&registration.event_type) {
            entry.reducers.push(registration.reducer);
        }
    }
}
