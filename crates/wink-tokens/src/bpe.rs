//! Byte-pair encoding of one piece: start from single bytes and repeatedly merge the adjacent
//! pair whose merged bytes have the lowest rank (the leftmost on a tie) until no adjacent pair
//! forms a token. This is the merge order `tiktoken` uses, so the tokens are the same.
//!
//! Short pieces (nearly all of them) find the next merge by scanning their few parts. A long
//! piece — a run of letters tens of thousands long in a tool description — would make that scan
//! quadratic, so pieces over [`SCAN_LIMIT`] bytes keep their pairs in a min-heap ordered by
//! (rank, start) over a linked list of parts: each merge costs a few heap operations, the whole
//! piece O(n log n), and the heap's first valid pair is exactly the pair the scan would pick.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::vocab::{Rank, rank_of};

/// A part of the piece being merged: where it starts, and the rank of the token it would form
/// with the next part (`Rank::MAX` when none).
type Part = (usize, Rank);

/// Pieces longer than this many bytes are merged with the heap (see the module docs).
const SCAN_LIMIT: usize = 128;

#[cfg(test)]
thread_local! {
    /// Steps taken by the merges of this thread (parts scanned, heap entries popped): the test of
    /// a long piece checks that they grow linearly with its length, not quadratically.
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn step(n: usize) {
    STEPS.with(|steps| steps.set(steps.get() + n as u64));
}

#[cfg(not(test))]
fn step(_: usize) {}

/// The parts of `piece` once merged, as start offsets followed by the piece's end, in `parts`.
fn merge(piece: &[u8], parts: &mut Vec<Part>) {
    if piece.len() > SCAN_LIMIT {
        merge_with_heap(piece, parts);
    } else {
        merge_by_scan(piece, parts);
    }
}

/// [`merge`] for short pieces: each merge scans the parts for the lowest rank.
fn merge_by_scan(piece: &[u8], parts: &mut Vec<Part>) {
    parts.clear();
    let pair_rank = |parts: &[Part], i: usize| -> Rank {
        match (parts.get(i), parts.get(i + 2)) {
            (Some(&(start, _)), Some(&(end, _))) => {
                rank_of(&piece[start..end]).unwrap_or(Rank::MAX)
            }
            _ => Rank::MAX,
        }
    };
    parts.extend((0..=piece.len()).map(|start| (start, Rank::MAX)));
    for i in 0..parts.len().saturating_sub(2) {
        parts[i].1 = pair_rank(parts, i);
    }
    loop {
        let mut best: Option<(Rank, usize)> = None;
        step(parts.len());
        for (i, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
            if rank != Rank::MAX && best.is_none_or(|(lowest, _)| rank < lowest) {
                best = Some((rank, i));
            }
        }
        let Some((_, i)) = best else { break };
        parts.remove(i + 1);
        parts[i].1 = pair_rank(parts, i);
        if i > 0 {
            parts[i - 1].1 = pair_rank(parts, i - 1);
        }
    }
}

/// No part: the end of the linked list.
const NONE: usize = usize::MAX;

/// [`merge`] for long pieces: parts are a linked list indexed by their start byte, and every
/// adjacent pair that forms a token is in a heap keyed by (rank, start, end). An entry is stale
/// once its first part was merged away or its second part grew; stale entries are skipped.
fn merge_with_heap(piece: &[u8], parts: &mut Vec<Part>) {
    let len = piece.len();
    // next[i]: the start of the part after the part starting at i (`len` for the last part);
    // prev[i]: the start of the part before it. Only entries of live parts are meaningful.
    let mut next: Vec<usize> = (1..=len).collect();
    let mut prev: Vec<usize> = (0..len).map(|i| i.wrapping_sub(1)).collect();
    if let Some(first) = prev.first_mut() {
        *first = NONE;
    }
    let mut alive = vec![true; len];
    let mut heap: BinaryHeap<Reverse<(Rank, usize, usize)>> = BinaryHeap::with_capacity(len);
    // The pair starting at `start`, when its part has a successor: its rank and end.
    let pair = |next: &[usize], start: usize| -> Option<(Rank, usize)> {
        let middle = *next.get(start)?;
        let end = *next.get(middle)?;
        rank_of(&piece[start..end]).map(|rank| (rank, end))
    };
    for start in 0..len {
        if let Some((rank, end)) = pair(&next, start) {
            heap.push(Reverse((rank, start, end)));
        }
    }
    while let Some(Reverse((_, start, end))) = heap.pop() {
        step(1);
        // Stale: the first part is gone, or its successor is no longer the one paired with it.
        let middle = next[start];
        if !alive[start] || middle >= len || next[middle] != end {
            continue;
        }
        // Merge the part at `middle` into the part at `start`.
        alive[middle] = false;
        next[start] = end;
        if end < len {
            prev[end] = start;
        }
        if let Some((rank, pair_end)) = pair(&next, start) {
            heap.push(Reverse((rank, start, pair_end)));
        }
        let before = prev[start];
        if before != NONE
            && let Some((rank, pair_end)) = pair(&next, before)
        {
            heap.push(Reverse((rank, before, pair_end)));
        }
    }
    parts.clear();
    let mut start = 0;
    while start < len {
        parts.push((start, Rank::MAX));
        start = next[start];
    }
    parts.push((len, Rank::MAX));
}

/// The number of tokens of `piece` (`parts` is scratch space).
pub(crate) fn count(piece: &[u8], parts: &mut Vec<Part>) -> usize {
    if piece.len() <= 1 || rank_of(piece).is_some() {
        return usize::from(!piece.is_empty());
    }
    merge(piece, parts);
    parts.len() - 1
}

/// Appends the token ids of `piece` to `ids` (`parts` is scratch space).
pub(crate) fn encode(piece: &[u8], parts: &mut Vec<Part>, ids: &mut Vec<Rank>) {
    if let Some(rank) = rank_of(piece) {
        ids.push(rank);
        return;
    }
    merge(piece, parts);
    for pair in parts.windows(2) {
        // Every single byte is a token, so every merged part is one.
        ids.extend(rank_of(&piece[pair[0].0..pair[1].0]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_merge_lowest_rank_first() {
        let mut parts = Vec::new();
        let mut ids = Vec::new();
        encode(b" zxqvbnmwlk", &mut parts, &mut ids);
        assert_eq!(ids.len(), count(b" zxqvbnmwlk", &mut parts));
        assert!(ids.len() >= 2);
        assert_eq!(count(b"", &mut parts), 0);
        assert_eq!(count(b"a", &mut parts), 1);
        ids.clear();
        encode(&[0xff, 0xfe], &mut parts, &mut ids);
        assert_eq!(ids.len(), 2);
    }

    /// Letters from a fixed pseudo-random sequence (xorshift), `len` of them.
    fn letters(len: usize, alphabet: &[u8]) -> Vec<u8> {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect()
    }

    fn parts_of(piece: &[u8], heap: bool) -> Vec<usize> {
        let mut parts = Vec::new();
        if heap {
            merge_with_heap(piece, &mut parts);
        } else {
            merge_by_scan(piece, &mut parts);
        }
        parts.iter().map(|&(start, _)| start).collect()
    }

    #[test]
    fn the_heap_merges_exactly_as_the_scan_does() {
        let alphabets: [&[u8]; 4] = [
            b"abcdefghijklmnopqrstuvwxyz",
            b"ab",
            b"a",
            "é日本語 x\n\u{1F642}".as_bytes(),
        ];
        for alphabet in alphabets {
            for len in [2, 3, 7, 40, 129, 600, 3000] {
                let piece = letters(len, alphabet);
                assert_eq!(
                    parts_of(&piece, true),
                    parts_of(&piece, false),
                    "{len} bytes of {alphabet:?}"
                );
            }
        }
    }

    #[test]
    fn a_long_run_of_letters_merges_in_near_linear_steps() {
        // A 200,000-letter word in a tool description took 47 s with a scan per merge.
        let piece = letters(20_000, b"abcdefghijklmnopqrstuvwxyz");
        let mut parts = Vec::new();
        STEPS.with(|steps| steps.set(0));
        let tokens = count(&piece, &mut parts);
        let steps = STEPS.with(std::cell::Cell::get);
        assert!(tokens > 2_000, "{tokens}");
        // The scan takes about tokens × length / 2 steps (over 20 million here); the heap pops
        // each pair it pushed once: at most three per merge plus one per byte.
        assert!(steps <= 4 * piece.len() as u64, "{steps} steps");
    }
}
