//! An incremental server-sent-events parser (the WHATWG `text/event-stream` rules that LLM
//! streams use): bytes in, whole events out, however the bytes were split into chunks.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, when given.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The longest line an event stream may send (16 MiB, without its line break). A longer line is
/// not buffered: [`SseParser::line_too_long`] reports it and the caller ends the stream.
pub const MAX_SSE_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Feeds on chunks, yields events.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    /// A line went over [`MAX_SSE_LINE_BYTES`]; nothing more is parsed.
    line_too_long: bool,
    /// The previous chunk ended with `\r`: a `\n` opening the next one belongs to it.
    after_cr: bool,
    started: bool,
    /// The stream's first bytes while they may still be a split byte-order mark.
    bom_prefix: Vec<u8>,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses one chunk; returns the events it completed. After a line longer than
    /// [`MAX_SSE_LINE_BYTES`] it returns nothing more (see [`SseParser::line_too_long`]).
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        let mut events = Vec::new();
        if self.line_too_long {
            return events;
        }
        let head;
        let mut bytes = chunk;
        if !self.started {
            // The byte-order mark may arrive split over several chunks.
            let mut start = std::mem::take(&mut self.bom_prefix);
            start.extend_from_slice(chunk);
            if start.len() < BOM.len() && BOM.starts_with(&start) {
                self.bom_prefix = start;
                return events;
            }
            self.started = true;
            head = start;
            bytes = head.strip_prefix(BOM).unwrap_or(&head);
        }
        for &byte in bytes {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                b'\n' => self.end_line(&mut events),
                _ if self.line.len() >= MAX_SSE_LINE_BYTES => {
                    self.line_too_long = true;
                    self.line = Vec::new();
                    return events;
                }
                _ => self.line.push(byte),
            }
        }
        events
    }

    /// Whether the stream sent a line longer than [`MAX_SSE_LINE_BYTES`] (it was dropped, and
    /// the parser stopped).
    pub fn line_too_long(&self) -> bool {
        self.line_too_long
    }

    /// Whether bytes of an event that has not been dispatched yet are buffered.
    pub fn has_partial_event(&self) -> bool {
        !self.line.is_empty() || self.has_data || self.event.is_some()
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        if line.is_empty() {
            if self.has_data {
                events.push(SseEvent {
                    event: self.event.take(),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.event = None;
            self.data.clear();
            self.has_data = false;
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        chunks.iter().flat_map(|chunk| parser.push(chunk)).collect()
    }

    #[test]
    fn a_line_over_the_limit_stops_the_parser_without_buffering_it() {
        let mut parser = SseParser::new();
        assert_eq!(
            parser.push(b"data: a\n\n"),
            vec![SseEvent {
                event: None,
                data: "a".into()
            }]
        );
        let chunk = vec![b'x'; 1024 * 1024];
        for _ in 0..16 {
            assert!(parser.push(&chunk).is_empty());
        }
        assert!(!parser.line_too_long());
        assert_eq!(parser.line.len(), MAX_SSE_LINE_BYTES);
        assert!(parser.push(b"y").is_empty());
        assert!(parser.line_too_long());
        assert_eq!(parser.line.capacity(), 0);
        assert!(parser.push(b"\ndata: b\n\n").is_empty());
        // A line of exactly the limit is still parsed.
        let mut parser = SseParser::new();
        let mut line = b"data: ".to_vec();
        line.resize(MAX_SSE_LINE_BYTES, b'z');
        line.extend_from_slice(b"\n\n");
        let events = parser.push(&line);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data.len(), MAX_SSE_LINE_BYTES - 6);
        assert!(!parser.line_too_long());
    }

    #[test]
    fn a_byte_order_mark_split_over_chunks_is_still_dropped() {
        let data = |text: &str| SseEvent {
            event: None,
            data: text.into(),
        };
        assert_eq!(
            parse_all(&[b"\xEF", b"", b"\xBB", b"\xBFdata: a\n\n"]),
            vec![data("a")]
        );
        // Not a mark after all: the bytes are kept.
        assert_eq!(
            parse_all(&[b"\xEF", b"data: b\n\n"]),
            Vec::<SseEvent>::new()
        );
        assert_eq!(parse_all(&[b"da", b"ta: c\n\n"]), vec![data("c")]);
    }

    #[test]
    fn fields_comments_and_multiline_data() {
        let events = parse_all(&[b"\xEF\xBB\xBF: keep-alive\nevent: message_start\ndata: {\"a\":\ndata:1}\n\ndata: [DONE]\n\n"]);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: Some("message_start".into()),
                    data: "{\"a\":\n1}".into()
                },
                SseEvent {
                    event: None,
                    data: "[DONE]".into()
                },
            ]
        );
    }

    #[test]
    fn crlf_split_across_chunks() {
        let events = parse_all(&[b"data: a\r", b"\n\r", b"\ndata: b\r\r"]);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: None,
                    data: "a".into()
                },
                SseEvent {
                    event: None,
                    data: "b".into()
                }
            ]
        );
    }

    #[test]
    fn event_without_data_is_not_dispatched_and_partial_is_reported() {
        let mut parser = SseParser::new();
        assert!(parser.push(b"event: ping\n\n").is_empty());
        assert!(parser.push(b"data: {\"x\"").is_empty());
        assert!(parser.has_partial_event());
    }

    proptest! {
        #[test]
        fn chunking_does_not_change_events(
            payloads in proptest::collection::vec("[a-z{}\":, ]{0,12}", 1..6),
            cuts in proptest::collection::vec(0usize..200, 0..8),
            crlf in any::<bool>(),
        ) {
            let newline = if crlf { "\r\n" } else { "\n" };
            let text: String = payloads.iter().map(|p| format!("event: e{newline}data: {p}{newline}{newline}")).collect();
            let bytes = text.as_bytes();
            let whole = parse_all(&[bytes]);
            let mut points: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            points.sort_unstable();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut last = 0;
            for point in points {
                chunks.push(&bytes[last..point]);
                last = point;
            }
            chunks.push(&bytes[last..]);
            prop_assert_eq!(parse_all(&chunks), whole.clone());
            prop_assert_eq!(whole.len(), payloads.len());
        }
    }
}
