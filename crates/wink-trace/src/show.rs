//! `wink trace show`: a run as a terminal tree — the run, its model calls, under each call the
//! tools it asked for, with tokens and seconds per line; disclosure, interventions and errors
//! where they happened.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::semconv::{self, event as ev, operation, wink};
use crate::span::{AttrValue, SpanEvent, SpanId, SpanRecord, SpanStatus};

/// Thousands separators: `12,345`.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

fn tokens(span: &SpanRecord) -> Option<String> {
    let input = span.attributes.int(semconv::USAGE_INPUT_TOKENS)?;
    let output = span
        .attributes
        .int(semconv::USAGE_OUTPUT_TOKENS)
        .unwrap_or(0);
    let cached = span
        .attributes
        .int(semconv::USAGE_CACHE_READ_INPUT_TOKENS)
        .unwrap_or(0);
    Some(format!(
        "{} in ({} cached) / {} out",
        thousands(input),
        thousands(cached),
        thousands(output)
    ))
}

fn seconds(span: &SpanRecord, timed: bool) -> String {
    if timed {
        format!("{:.2}s", span.seconds())
    } else {
        "-".to_owned()
    }
}

fn error_suffix(span: &SpanRecord) -> String {
    match &span.status {
        SpanStatus::Error(message) => format!("  ERROR {}", one_line(message, 120)),
        _ => String::new(),
    }
}

fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}

fn list(value: Option<&AttrValue>) -> String {
    match value {
        Some(AttrValue::StrList(items)) => items.join(", "),
        Some(AttrValue::Str(s)) => s.to_string(),
        _ => String::new(),
    }
}

/// One event of a run, as a line.
pub fn event_line(event: &SpanEvent) -> String {
    let a = &event.attributes;
    match event.name.as_str() {
        ev::SECTION_OPENED => format!("opened {}", a.str(wink::SECTION_KEY).unwrap_or_default()),
        ev::TOOLS_INJECTED => format!(
            "injected {} (from {})",
            list(a.get(wink::TOOLS)),
            a.str(wink::SECTION_KEY).unwrap_or_default()
        ),
        ev::RUN_RESTARTED => format!("restarted with {} open", list(a.get(wink::SECTIONS))),
        ev::INTERVENTION => {
            let what = a
                .str("wink.kind")
                .or_else(|| a.str("wink.rule"))
                .unwrap_or_else(|| a.str(wink::EVENT_TYPE).unwrap_or_default());
            let detail = a
                .str("wink.detail")
                .or_else(|| a.str("wink.action"))
                .unwrap_or_default();
            let tool = a
                .str("wink.tool")
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            format!(
                "{} {what}{tool}: {}",
                a.str(wink::EVENT_TYPE).unwrap_or("intervention"),
                one_line(detail, 140)
            )
        }
        other => other.to_owned(),
    }
}

/// A line of the tree and the time it sorts by.
struct Line {
    time: u64,
    text: String,
    children: Vec<Line>,
}

/// The tree of `spans` as text: one block per run, runs in start order.
pub fn render(spans: &[SpanRecord]) -> String {
    let by_id: HashMap<SpanId, &SpanRecord> = spans.iter().map(|s| (s.span_id, s)).collect();
    let mut children: HashMap<SpanId, Vec<&SpanRecord>> = HashMap::new();
    let mut roots: Vec<&SpanRecord> = Vec::new();
    for span in spans {
        match span.parent_span_id.filter(|p| by_id.contains_key(p)) {
            Some(parent) => children.entry(parent).or_default().push(span),
            None => roots.push(span),
        }
    }
    roots.sort_by_key(|s| s.start_ns);
    let mut out = String::new();
    for root in roots {
        let timed = root.attributes.get(wink::TIMING_UNKNOWN).is_none();
        let line = span_line(root, &children, timed);
        write_line(&mut out, &line, "", true, true);
    }
    out
}

fn span_line(span: &SpanRecord, children: &HashMap<SpanId, Vec<&SpanRecord>>, timed: bool) -> Line {
    let a = &span.attributes;
    let op = a.str(semconv::OPERATION_NAME).unwrap_or_default();
    let mut text = span.name.clone();
    match op {
        operation::INVOKE_AGENT => {
            let status =
                a.str(wink::RUN_STATUS)
                    .unwrap_or(if a.get(wink::RUN_INCOMPLETE).is_some() {
                        "incomplete"
                    } else {
                        "-"
                    });
            let _ = write!(
                text,
                "  {status}  {} model calls, {} tool calls",
                a.int(wink::RUN_MODEL_CALLS).unwrap_or(0),
                a.int(wink::RUN_TOOL_CALLS).unwrap_or(0)
            );
        }
        operation::CHAT => {
            if let Some(reason) = a.get(semconv::RESPONSE_FINISH_REASONS) {
                let _ = write!(text, "  {}", list(Some(reason)));
            }
        }
        _ => {}
    }
    if let Some(tokens) = tokens(span) {
        let _ = write!(text, "  {tokens}");
    }
    let _ = write!(text, "  {}{}", seconds(span, timed), error_suffix(span));
    let mut lines: Vec<Line> = Vec::new();
    let kids = children.get(&span.span_id).cloned().unwrap_or_default();
    if op == operation::INVOKE_AGENT {
        // Tools under the model call that asked for them.
        let mut calls: Vec<Line> = Vec::new();
        let mut call_index: HashMap<i64, usize> = HashMap::new();
        let mut rest: Vec<&SpanRecord> = Vec::new();
        let mut sorted = kids.clone();
        sorted.sort_by_key(|s| s.start_ns);
        for kid in &sorted {
            if kid.attributes.str(semconv::OPERATION_NAME) == Some(operation::CHAT) {
                let index = kid.attributes.int(wink::MODEL_CALL_INDEX).unwrap_or(-1);
                call_index.insert(index, calls.len());
                calls.push(span_line(kid, children, timed));
            } else {
                rest.push(kid);
            }
        }
        for kid in rest {
            let line = span_line(kid, children, timed);
            let asked_by = kid
                .attributes
                .int(wink::MODEL_CALL_INDEX)
                .and_then(|i| call_index.get(&i));
            match asked_by {
                Some(&at) => calls[at].children.push(line),
                None => calls.push(line),
            }
        }
        lines.extend(calls);
        lines.extend(span.events.iter().map(|e| Line {
            time: e.time_ns,
            text: format!("· {}", event_line(e)),
            children: Vec::new(),
        }));
    } else {
        lines.extend(kids.iter().map(|k| span_line(k, children, timed)));
        lines.extend(span.events.iter().map(|e| Line {
            time: e.time_ns,
            text: format!("· {}", event_line(e)),
            children: Vec::new(),
        }));
    }
    lines.sort_by_key(|l| l.time);
    for line in &mut lines {
        line.children.sort_by_key(|l| l.time);
    }
    Line {
        time: span.start_ns,
        text,
        children: lines,
    }
}

fn write_line(out: &mut String, line: &Line, prefix: &str, last: bool, root: bool) {
    if root {
        let _ = writeln!(out, "{}", line.text);
    } else {
        let _ = writeln!(
            out,
            "{prefix}{}{}",
            if last { "└─ " } else { "├─ " },
            line.text
        );
    }
    let child_prefix = if root {
        String::new()
    } else {
        format!("{prefix}{}", if last { "   " } else { "│  " })
    };
    for (i, child) in line.children.iter().enumerate() {
        write_line(
            out,
            child,
            &child_prefix,
            i + 1 == line.children.len(),
            false,
        );
    }
}
