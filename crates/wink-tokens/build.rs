//! Lays out the vendored `data/o200k_base.tiktoken` (OpenAI's BPE ranks, MIT; see
//! `data/LICENSE-tiktoken`) as three binary tables in `OUT_DIR`, embedded by `src/vocab.rs`, so
//! that counting tokens needs no start-up work on the vocabulary:
//!
//! - `o200k_bytes.bin`: every token's bytes, concatenated in rank order;
//! - `o200k_ends.bin`: per rank, the little-endian `u32` offset where its bytes end;
//! - `o200k_slots.bin`: an open-addressing hash table (linear probing, `src/table_hash.rs`) of
//!   little-endian `u32` slots holding `rank + 1` (0 = empty).

use std::error::Error;
use std::path::PathBuf;

include!("src/table_hash.rs");

fn main() -> Result<(), Box<dyn Error>> {
    let source = "data/o200k_base.tiktoken";
    println!("cargo::rerun-if-changed={source}");
    println!("cargo::rerun-if-changed=src/table_hash.rs");
    let text = std::fs::read_to_string(source)?;
    let mut tokens: Vec<Vec<u8>> = Vec::with_capacity(200_000);
    for (line_number, line) in text.lines().enumerate() {
        let bad = || format!("{source}:{}: not `BASE64 RANK`", line_number + 1);
        let (encoded, rank) = line.split_once(' ').ok_or_else(bad)?;
        let rank: usize = rank.parse().map_err(|_| bad())?;
        if rank != tokens.len() {
            return Err(format!("{source}:{}: ranks must count up from 0", line_number + 1).into());
        }
        tokens.push(decode_base64(encoded).ok_or_else(bad)?);
    }
    let mut bytes = Vec::new();
    let mut ends = Vec::with_capacity(tokens.len() * 4);
    let mut slots = vec![0u32; 1 << SLOT_BITS];
    for (rank, token) in tokens.iter().enumerate() {
        bytes.extend_from_slice(token);
        ends.extend_from_slice(&u32::try_from(bytes.len())?.to_le_bytes());
        let mut slot = first_slot(token);
        while slots[slot] != 0 {
            slot = (slot + 1) & ((1 << SLOT_BITS) - 1);
        }
        slots[slot] = u32::try_from(rank + 1)?;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("o200k_bytes.bin"), bytes)?;
    std::fs::write(out.join("o200k_ends.bin"), ends)?;
    let slots: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    std::fs::write(out.join("o200k_slots.bin"), slots)?;
    Ok(())
}

/// Standard base64 (with `=` padding) to bytes; `None` on any other character.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let text = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &c in text {
        buffer = (buffer << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}
