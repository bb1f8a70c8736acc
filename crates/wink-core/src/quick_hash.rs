//! A quick hasher for the sets that building a template fills with short keys (section keys, tool
//! names): issue 22, SipHash cost about 170 instructions a key. FxHash's mixing (as rustc uses it),
//! started from a seed drawn once per process from std's random keys, so that a prompt file cannot
//! be written to make its keys collide.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// Builds [`QuickHasher`]s from the process's seed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct QuickHashBuilder {
    seed: u64,
}

impl Default for QuickHashBuilder {
    fn default() -> Self {
        static SEED: OnceLock<u64> = OnceLock::new();
        let seed = *SEED.get_or_init(|| RandomState::new().hash_one(0x5eed_u64));
        Self { seed }
    }
}

impl BuildHasher for QuickHashBuilder {
    type Hasher = QuickHasher;

    fn build_hasher(&self) -> QuickHasher {
        QuickHasher { hash: self.seed }
    }
}

/// FxHash over 8-byte words, seeded.
pub(crate) struct QuickHasher {
    hash: u64,
}

/// The multiplier of rustc-hash 2.
const MULTIPLIER: u64 = 0xf135_7aea_2e62_a9c5;

impl QuickHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(MULTIPLIER);
    }
}

impl Hasher for QuickHasher {
    fn write(&mut self, bytes: &[u8]) {
        // The length first: the last word is padded with zeros, which would otherwise make
        // `"a"` and `"a\0"` hash alike.
        self.add(bytes.len() as u64);
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut buffer = [0u8; 8];
            buffer.copy_from_slice(word);
            self.add(u64::from_le_bytes(buffer));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut buffer = [0u8; 8];
            buffer[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buffer));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        // The well-mixed high bits moved down, where the table takes its bucket index.
        self.hash.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn equal_keys_hash_equal_and_different_keys_apart() {
        let build = QuickHashBuilder::default();
        assert_eq!(
            build.hash_one((1usize, "c0")),
            build.hash_one((1usize, "c0"))
        );
        assert_ne!(
            build.hash_one((1usize, "c0")),
            build.hash_one((2usize, "c0"))
        );
        assert_ne!(build.hash_one("c0"), build.hash_one("c0\0"));
        let hashes: HashSet<u64> = (0..10_000)
            .map(|i| build.hash_one(format!("key_{i}")))
            .collect();
        assert_eq!(hashes.len(), 10_000);
    }
}
