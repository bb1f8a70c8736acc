// Shared by `build.rs` (which lays out the table) and `src/vocab.rs` (which reads it): the slot
// of a token's bytes in the open-addressing table of `o200k_base` ranks.

/// log2 of the number of slots (2^19 = 524,288 slots for 199,998 tokens: load factor 0.38).
pub(crate) const SLOT_BITS: u32 = 19;

/// The first slot to probe for `bytes` (FNV-1a, then a multiplicative mix for the top bits).
pub(crate) fn first_slot(bytes: &[u8]) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    ((hash ^ (hash >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) >> (64 - SLOT_BITS)) as usize
}
