//! The `o200k_base` vocabulary, laid out by `build.rs` as static tables: looking a token up
//! costs a hash and a probe or two, and nothing is built at start-up.

include!("table_hash.rs");

/// Every token's bytes, in rank order.
static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_bytes.bin"));
/// Per rank, the little-endian `u32` end of its bytes in [`BYTES`].
static ENDS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_ends.bin"));
/// Open-addressing table of little-endian `u32` slots: `rank + 1`, 0 when empty.
static SLOTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_slots.bin"));

/// A token rank.
pub(crate) type Rank = u32;

fn u32_at(table: &[u8], index: usize) -> Option<u32> {
    let bytes = table.get(index * 4..index * 4 + 4)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// The bytes of token `rank`.
fn token_bytes(rank: Rank) -> Option<&'static [u8]> {
    let rank = rank as usize;
    let start = match rank {
        0 => 0,
        _ => u32_at(ENDS, rank - 1)? as usize,
    };
    BYTES.get(start..u32_at(ENDS, rank)? as usize)
}

/// The rank of the token whose bytes are `bytes`, if there is one.
pub(crate) fn rank_of(bytes: &[u8]) -> Option<Rank> {
    let mask = (1usize << SLOT_BITS) - 1;
    let mut slot = first_slot(bytes);
    loop {
        let rank = u32_at(SLOTS, slot)?.checked_sub(1)?;
        if token_bytes(rank) == Some(bytes) {
            return Some(rank);
        }
        slot = (slot + 1) & mask;
    }
}

/// The number of tokens in the vocabulary.
#[cfg(test)]
pub(crate) fn len() -> usize {
    ENDS.len() / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_is_found_at_its_rank() {
        assert_eq!(len(), 199_998);
        for rank in 0..len() as Rank {
            let bytes = token_bytes(rank).unwrap_or_default();
            assert_eq!(rank_of(bytes), Some(rank), "rank {rank}");
        }
        assert_eq!(rank_of(b"hello"), Some(24912));
        assert_eq!(rank_of(b"not a single token, surely"), None);
    }
}
