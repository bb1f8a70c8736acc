//! Typed slices: persistent vectors of items keyed by item type, their read-only views and the operations
//! reducers return.

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use rpds::VectorSync;
use serde_json::Value;

use crate::event::SliceItem;

/// An immutable view of one slice: the items of type `T`, oldest first.
///
/// Cloning is O(1) (the items live in a persistent vector), so views can be kept while the session moves on;
/// a view never changes after it was taken.
pub struct SliceView<T> {
    items: VectorSync<T>,
}

impl<T> Clone for SliceView<T> {
    fn clone(&self) -> Self {
        Self {
            items: self.items.clone(),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for SliceView<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.items.iter()).finish()
    }
}

impl<T> Default for SliceView<T> {
    fn default() -> Self {
        Self {
            items: VectorSync::new_sync(),
        }
    }
}

impl<T: PartialEq> PartialEq for SliceView<T> {
    fn eq(&self, other: &Self) -> bool {
        self.items.len() == other.items.len()
            && self
                .items
                .iter()
                .zip(other.items.iter())
                .all(|(a, b)| a == b)
    }
}

impl<T> SliceView<T> {
    /// Every item, oldest first, cloned into a vector.
    pub fn all(&self) -> Vec<T>
    where
        T: Clone,
    {
        self.items.iter().cloned().collect()
    }

    /// The most recent item.
    pub fn latest(&self) -> Option<&T> {
        self.items.last()
    }

    /// The items matching `predicate`, oldest first (WINK's `where`).
    #[doc(alias = "where")]
    pub fn filter(&self, mut predicate: impl FnMut(&T) -> bool) -> Vec<T>
    where
        T: Clone,
    {
        self.items
            .iter()
            .filter(|item| predicate(item))
            .cloned()
            .collect()
    }

    /// Iterates over the items, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    /// The item at `index` (0 = oldest).
    pub fn get(&self, index: usize) -> Option<&T> {
        self.items.get(index)
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the slice holds no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<T: Clone> SliceView<T> {
    /// A view holding `items`.
    pub fn from_items(items: impl IntoIterator<Item = T>) -> Self {
        let mut vector = VectorSync::new_sync();
        for item in items {
            vector.push_back_mut(item);
        }
        Self { items: vector }
    }

    pub(crate) fn push(&mut self, item: T) {
        self.items.push_back_mut(item);
    }

    pub(crate) fn apply(&mut self, op: SliceOp<T>) {
        match op {
            SliceOp::Append(item) => self.items.push_back_mut(item),
            SliceOp::Extend(items) => {
                for item in items {
                    self.items.push_back_mut(item);
                }
            }
            SliceOp::Replace(items) => *self = Self::from_items(items),
            SliceOp::Clear => *self = Self::default(),
            SliceOp::ClearWhere(predicate) => {
                let kept: Vec<T> = self
                    .items
                    .iter()
                    .filter(|item| !predicate(item))
                    .cloned()
                    .collect();
                if kept.len() != self.items.len() {
                    *self = Self::from_items(kept);
                }
            }
            SliceOp::Unchanged => {}
        }
    }
}

/// What a reducer asks the session to do to its slice.
#[non_exhaustive]
pub enum SliceOp<T> {
    /// Add one item at the end.
    Append(T),
    /// Add several items at the end, in order.
    Extend(Vec<T>),
    /// Replace the whole slice with these items.
    Replace(Vec<T>),
    /// Remove every item.
    Clear,
    /// Remove the items matching the predicate.
    ClearWhere(Box<dyn Fn(&T) -> bool + Send + Sync>),
    /// Leave the slice as it is.
    Unchanged,
}

impl<T: fmt::Debug> fmt::Debug for SliceOp<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SliceOp::Append(item) => f.debug_tuple("Append").field(item).finish(),
            SliceOp::Extend(items) => f.debug_tuple("Extend").field(items).finish(),
            SliceOp::Replace(items) => f.debug_tuple("Replace").field(items).finish(),
            SliceOp::Clear => f.write_str("Clear"),
            SliceOp::ClearWhere(_) => f.write_str("ClearWhere(..)"),
            SliceOp::Unchanged => f.write_str("Unchanged"),
        }
    }
}

/// Type-erased slice storage.
pub(crate) trait ErasedSlice: Send + Sync + 'static {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn clone_box(&self) -> Box<dyn ErasedSlice>;
    fn slice_name(&self) -> &'static str;
    fn item_count(&self) -> usize;
    fn items_json(&self) -> Result<Vec<Value>, serde_json::Error>;
    /// Appends the items of `other` (a slice of the same type; anything else is ignored).
    fn extend_from(&mut self, other: &dyn ErasedSlice);
}

impl<T: SliceItem> ErasedSlice for SliceView<T> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn clone_box(&self) -> Box<dyn ErasedSlice> {
        Box::new(self.clone())
    }

    fn slice_name(&self) -> &'static str {
        T::slice_type_name()
    }

    fn item_count(&self) -> usize {
        self.items.len()
    }

    fn items_json(&self) -> Result<Vec<Value>, serde_json::Error> {
        self.items.iter().map(serde_json::to_value).collect()
    }

    fn extend_from(&mut self, other: &dyn ErasedSlice) {
        if let Some(other) = other.as_any().downcast_ref::<SliceView<T>>() {
            for item in other.iter() {
                self.push(item.clone());
            }
        }
    }
}

/// Decodes JSON items into a boxed slice of a concrete type (one instantiation per registered slice type).
pub(crate) fn decode_slice<T: SliceItem>(
    items: Vec<Value>,
) -> Result<Box<dyn ErasedSlice>, serde_json::Error> {
    let mut view = SliceView::<T>::default();
    for item in items {
        view.push(serde_json::from_value(item)?);
    }
    Ok(Box::new(view))
}

/// A hasher for `TypeId` keys: `TypeId` is already a high-quality hash, so fold its bits instead of SipHashing.
#[derive(Default)]
pub(crate) struct TypeIdHasher {
    hash: u64,
}

impl Hasher for TypeIdHasher {
    fn finish(&self) -> u64 {
        self.hash
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.hash =
                (self.hash.rotate_left(8) ^ u64::from(*byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.hash = (self.hash ^ value).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_u128(&mut self, value: u128) {
        // Truncation is intended: both halves are folded in.
        self.write_u64(value as u64);
        self.write_u64((value >> 64) as u64);
    }
}

pub(crate) type TypeMap<V> = HashMap<TypeId, V, BuildHasherDefault<TypeIdHasher>>;

/// All slices of a session. Held behind an `Arc`: a snapshot shares it, the next write copies the (small) map
/// of slice handles, and each slice's persistent vector shares its structure with the snapshot.
#[derive(Default)]
pub(crate) struct SliceMap {
    slices: TypeMap<Box<dyn ErasedSlice>>,
}

impl Clone for SliceMap {
    fn clone(&self) -> Self {
        Self {
            slices: self
                .slices
                .iter()
                .map(|(id, slice)| (*id, slice.clone_box()))
                .collect(),
        }
    }
}

impl fmt::Debug for SliceMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.by_name()
                    .iter()
                    .map(|(name, slice)| (*name, slice.item_count())),
            )
            .finish()
    }
}

impl SliceMap {
    pub(crate) fn view<T: SliceItem>(&self) -> Option<&SliceView<T>> {
        self.slices
            .get(&TypeId::of::<T>())
            .and_then(|slice| slice.as_any().downcast_ref())
    }

    /// The slice for `T`, created empty when missing. `None` only if the storage under `T`'s id has another
    /// type, which the session never produces.
    pub(crate) fn view_mut<T: SliceItem>(&mut self) -> Option<&mut SliceView<T>> {
        self.slices
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(SliceView::<T>::default()))
            .as_any_mut()
            .downcast_mut()
    }

    pub(crate) fn insert_erased(&mut self, type_id: TypeId, slice: Box<dyn ErasedSlice>) {
        self.slices.insert(type_id, slice);
    }

    pub(crate) fn take(&mut self, type_id: TypeId) -> Option<Box<dyn ErasedSlice>> {
        self.slices.remove(&type_id)
    }

    pub(crate) fn extend_erased(&mut self, type_id: TypeId, other: Box<dyn ErasedSlice>) {
        match self.slices.get_mut(&type_id) {
            Some(existing) => existing.extend_from(other.as_ref()),
            None => {
                self.slices.insert(type_id, other);
            }
        }
    }

    pub(crate) fn type_ids(&self) -> impl Iterator<Item = (&TypeId, &'static str)> {
        self.slices
            .iter()
            .map(|(id, slice)| (id, slice.slice_name()))
    }

    pub(crate) fn by_name(&self) -> BTreeMap<&'static str, &dyn ErasedSlice> {
        self.slices
            .values()
            .map(|slice| (slice.slice_name(), slice.as_ref()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_apply_as_documented() {
        let mut view = SliceView::from_items([1, 2, 3]);
        view.apply(SliceOp::Append(4));
        assert_eq!(view.all(), [1, 2, 3, 4]);
        view.apply(SliceOp::Extend(vec![5, 6]));
        assert_eq!(view.all(), [1, 2, 3, 4, 5, 6]);
        view.apply(SliceOp::ClearWhere(Box::new(|n| n % 2 == 0)));
        assert_eq!(view.all(), [1, 3, 5]);
        view.apply(SliceOp::Unchanged);
        assert_eq!(view.all(), [1, 3, 5]);
        view.apply(SliceOp::Replace(vec![9]));
        assert_eq!(view.all(), [9]);
        view.apply(SliceOp::Clear);
        assert!(view.is_empty());
    }

    #[test]
    fn queries() {
        let view = SliceView::from_items(["a", "bb", "c"]);
        assert_eq!(view.latest(), Some(&"c"));
        assert_eq!(view.filter(|s| s.len() == 1), ["a", "c"]);
        assert_eq!(view.get(1), Some(&"bb"));
        assert_eq!(view.len(), 3);
        assert_eq!(view.iter().count(), 3);
    }

    #[test]
    fn views_are_immutable_after_writes() {
        let mut view = SliceView::from_items([1, 2]);
        let before = view.clone();
        view.apply(SliceOp::Append(3));
        view.apply(SliceOp::ClearWhere(Box::new(|n| *n == 1)));
        assert_eq!(before.all(), [1, 2]);
        assert_eq!(view.all(), [2, 3]);
    }
}
