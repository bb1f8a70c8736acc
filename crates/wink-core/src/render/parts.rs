//! Budget-aware section reads: a section too long for the room left in the model's context is
//! returned in parts. Parts are fixed by the text alone (cut at blank lines outside code fences,
//! else at line breaks, at most [`READ_PART_BYTES`] each), so `read_section` with `part` N reads
//! the same text whatever the room was when the first part was read; a read returns as many
//! consecutive parts as fit.

use super::*;

/// Largest part of a section read in parts, in bytes (about 1,000 tokens by the agent loop's
/// estimate of one token per 3 bytes).
pub const READ_PART_BYTES: usize = 3_000;

/// Tokens kept for the framing of a read's result (its message, the note on the parts left and
/// the tool message around them).
const FRAMING_TOKENS: u64 = 64;

/// Most subsection keys a note on the parts left lists.
const LISTED_CHILDREN: usize = 12;

/// The room left in the model's context for the result of one tool call, in tokens as the agent
/// loop estimates them (one per 3 bytes of text, an overestimate). The loop adds it to a call's
/// resources when it knows the model's context window; `read_section` then returns a section
/// that does not fit in parts instead of overflowing the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextRoom(pub u64);

/// Byte ranges of the parts of `text`, each at most `max` bytes, covering it in order.
pub(crate) fn part_ranges(text: &str, max: usize) -> Vec<Range<usize>> {
    let max = max.max(1);
    let paragraph_ends = paragraph_ends(text);
    let mut parts = Vec::new();
    let mut start = 0;
    while text.len() - start > max {
        let mut limit = start + max;
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let cut = paragraph_ends
            .iter()
            .rev()
            .find(|&&end| end > start && end <= limit)
            .copied()
            .or_else(|| {
                text[start..limit]
                    .rfind('\n')
                    .map(|i| start + i + 1)
                    .filter(|&end| end > start)
            })
            .unwrap_or_else(|| {
                // A character longer than `max` bytes is kept whole.
                if limit > start {
                    limit
                } else {
                    (start + 1..=text.len())
                        .find(|&i| text.is_char_boundary(i))
                        .unwrap_or(text.len())
                }
            });
        parts.push(start..cut);
        start = cut;
    }
    if start < text.len() || parts.is_empty() {
        parts.push(start..text.len());
    }
    parts
}

/// Offsets just after each blank line of `text` that is outside a code fence.
fn paragraph_ends(text: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut fenced = false;
    let mut offset = 0;
    let mut previous_blank = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            fenced = !fenced;
        }
        offset += line.len();
        let blank = trimmed.is_empty();
        if blank && !fenced && !previous_blank {
            ends.push(offset);
        }
        previous_blank = blank;
    }
    ends
}

/// What one read returns of a section's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Portion {
    /// The text returned.
    pub(crate) text: String,
    /// First part returned (1-based) and the last, and how many there are; `None` when the
    /// whole content is returned in one piece.
    pub(crate) parts: Option<(usize, usize, usize)>,
}

/// The portion of `content` a read returns: all of it when no part is asked for and it fits
/// `room` (or no room is known); otherwise the parts from `part` (default 1) on, as many as fit.
/// `Err` is the message of a failed read: a part that does not exist, or no room for one part.
pub(crate) fn portion(
    key: &str,
    content: &str,
    part: Option<usize>,
    room: Option<u64>,
) -> Result<Portion, String> {
    let fits =
        |bytes: usize| room.is_none_or(|room| (bytes as u64).div_ceil(3) + FRAMING_TOKENS <= room);
    if part.is_none() && fits(content.len()) {
        return Ok(Portion {
            text: content.to_owned(),
            parts: None,
        });
    }
    let ranges = part_ranges(content, READ_PART_BYTES);
    let count = ranges.len();
    let first = part.unwrap_or(1);
    if first == 0 || first > count {
        return Err(format!(
            "Section '{key}' has {count} part{}: part {first} does not exist.",
            if count == 1 { "" } else { "s" }
        ));
    }
    let start = ranges[first - 1].start;
    let mut last = first - 1;
    while last < count && fits(ranges[last].end - start) {
        last += 1;
    }
    if last < first {
        let room = room.unwrap_or_default();
        return Err(format!(
            "Section '{key}' does not fit in the room left in the context (about {room} tokens): answer with what you have."
        ));
    }
    let text = content[start..ranges[last - 1].end].trim_end().to_owned();
    Ok(Portion {
        text,
        parts: (count > 1).then_some((first, last, count)),
    })
}

/// The note after a read that stops before the last part: how to read on, and the keys of the
/// section's subsections (which can be read on their own).
pub(crate) fn continuation_note(
    key: &str,
    next: usize,
    count: usize,
    children: &[String],
) -> String {
    let mut note = format!(
        "[Section '{key}' continues: call `read_section` with key \"{key}\" and part {next} to read on ({count} parts)."
    );
    if !children.is_empty() {
        let listed: Vec<&str> = children
            .iter()
            .take(LISTED_CHILDREN)
            .map(String::as_str)
            .collect();
        note.push_str(&format!(" Its subsections: {}", listed.join(", ")));
        if children.len() > LISTED_CHILDREN {
            note.push_str(&format!(" and {} more", children.len() - LISTED_CHILDREN));
        }
        note.push('.');
    }
    note.push(']');
    note
}

/// `Content of section 'k':`, naming the parts returned when the content comes in parts.
pub(crate) fn read_message(key: &str, parts: Option<(usize, usize, usize)>) -> String {
    match parts {
        None => format!("Content of section '{key}':"),
        Some((first, last, count)) if first == last => {
            format!("Content of section '{key}' (part {first} of {count}):")
        }
        Some((first, last, count)) => {
            format!("Content of section '{key}' (parts {first}–{last} of {count}):")
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn parts_cut_at_blank_lines_outside_fences_then_at_lines() {
        let text = "aaaa\n\nbbbb\n\n```\ncc\n\ncc\n```\n\ndd";
        let parts: Vec<&str> = part_ranges(text, 12)
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert_eq!(parts, ["aaaa\n\nbbbb\n\n", "```\ncc\n\ncc\n", "```\n\ndd"]);
        assert_eq!(parts.concat(), text);
        let long_line = "x".repeat(25);
        let parts = part_ranges(&long_line, 10);
        assert_eq!(parts, [0..10, 10..20, 20..25]);
        let empty = part_ranges("", 10);
        assert_eq!((empty.len(), empty[0].clone()), (1, 0..0));
        let accents = "é".repeat(10);
        for range in part_ranges(&accents, 5) {
            assert!(accents.is_char_boundary(range.start) && accents.is_char_boundary(range.end));
        }
    }

    #[test]
    fn a_read_returns_everything_that_fits_and_parts_of_the_rest() {
        let paragraph = format!("{}\n\n", "word ".repeat(100)); // 502 bytes
        let content = paragraph.repeat(20); // 10,040 bytes: parts of 5 paragraphs (2,510 bytes)
        let whole = portion("k", &content, None, None).unwrap();
        assert_eq!((whole.text.len(), whole.parts), (content.len(), None));
        // Room for 1,000 tokens: one part (837 + 64 tokens), not two.
        let first = portion("k", &content, None, Some(1_000)).unwrap();
        assert_eq!(first.parts, Some((1, 1, 4)));
        assert_eq!(first.text, paragraph.repeat(5).trim_end());
        let on = portion("k", &content, Some(3), Some(10_000)).unwrap();
        assert_eq!(on.parts, Some((3, 4, 4)));
        assert_eq!(
            portion("k", &content, Some(5), None).unwrap_err(),
            "Section 'k' has 4 parts: part 5 does not exist."
        );
        assert_eq!(
            portion("k", &content, None, Some(100)).unwrap_err(),
            "Section 'k' does not fit in the room left in the context (about 100 tokens): answer with what you have."
        );
        assert_eq!(
            continuation_note("k", 2, 4, &["k.a".into(), "k.b".into()]),
            "[Section 'k' continues: call `read_section` with key \"k\" and part 2 to read on (4 parts). Its subsections: k.a, k.b.]"
        );
        assert_eq!(
            read_message("k", Some((1, 2, 4))),
            "Content of section 'k' (parts 1–2 of 4):"
        );
    }
}
