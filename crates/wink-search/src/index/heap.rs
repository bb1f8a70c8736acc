//! What an index holds in memory, by part.

use super::*;

/// Heap bytes held by a [`SearchIndex`], by part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HeapUsage {
    /// The documents themselves (names, descriptions, parameters, tags).
    pub documents: usize,
    /// The term dictionary.
    pub terms: usize,
    /// Postings: document ids and precomputed impacts.
    pub postings: usize,
    /// Name lookups and the name order used for tie breaks.
    pub names: usize,
}

impl HeapUsage {
    /// The sum of all parts.
    pub fn total(&self) -> usize {
        self.documents + self.terms + self.postings + self.names
    }
}

pub(super) fn document_heap_bytes(document: &ToolDocument) -> usize {
    document.name.capacity()
        + document.summary.capacity()
        + document.description.capacity()
        + document.namespace.as_ref().map_or(0, String::capacity)
        + document.parameters.capacity() * size_of::<crate::ParamDoc>()
        + document
            .parameters
            .iter()
            .map(|parameter| parameter.name.capacity() + parameter.description.capacity())
            .sum::<usize>()
        + document.tags.capacity() * size_of::<String>()
        + document.tags.iter().map(String::capacity).sum::<usize>()
        + document.enum_values.capacity() * size_of::<String>()
        + document
            .enum_values
            .iter()
            .map(String::capacity)
            .sum::<usize>()
}

/// Slots plus one control byte per slot, as in hashbrown.
pub(super) fn hash_table_bytes<K, V>(capacity: usize) -> usize {
    capacity * (size_of::<(K, V)>() + 1)
}

/// A name of two or more words: split at separators, case changes or digits.
pub(super) fn is_compound(name: &str) -> bool {
    let mut pieces = 0;
    crate::tokenize::for_each_piece(name, true, |_| pieces += 1);
    pieces >= 2
}

pub(super) fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}
