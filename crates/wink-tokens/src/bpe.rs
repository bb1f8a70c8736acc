//! Byte-pair encoding of one piece: start from single bytes and repeatedly merge the adjacent
//! pair whose merged bytes have the lowest rank (the leftmost on a tie) until no adjacent pair
//! forms a token. This is the merge order `tiktoken` uses, so the tokens are the same.

use crate::vocab::{Rank, rank_of};

/// A part of the piece being merged: where it starts, and the rank of the token it would form
/// with the next part (`Rank::MAX` when none).
type Part = (usize, Rank);

/// The parts of `piece` once merged, as start offsets followed by the piece's end, in `parts`.
fn merge(piece: &[u8], parts: &mut Vec<Part>) {
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
}
