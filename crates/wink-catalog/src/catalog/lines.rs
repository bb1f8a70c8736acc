//! The listing line of a tool (name, summary, parameters) within the line budget.

use super::*;

#[derive(Debug, Clone, Copy)]
pub(super) struct LineMaker {
    pub(super) budget: LineBudget,
    pub(super) counter: Option<TokenCounter>,
}

impl LineMaker {
    /// `head: detail`, with `detail` cut to fit the budget (`head` alone when even one character
    /// of detail does not fit).
    pub(super) fn line(&self, head: &str, detail: &str) -> String {
        if detail.is_empty() {
            return head.to_owned();
        }
        let full = format!("{head}: {detail}");
        let (LineBudget::Tokens(budget), Some(counter)) = (self.budget, self.counter) else {
            return full;
        };
        let fits = |text: &str| counter.count(text) <= budget;
        // Cheap exit: o200k never needs more tokens than bytes / 1 for ASCII, and short ASCII
        // lines are the common case; count only when the line could be over.
        if full.is_ascii() && full.len() <= budget {
            return full;
        }
        let total_tokens = counter.count(&full);
        if total_tokens <= budget {
            return full;
        }
        let boundaries: Vec<usize> = detail
            .char_indices()
            .map(|(i, _)| i)
            .skip(1)
            .chain(std::iter::once(detail.len()))
            .collect();
        let cut = |end: usize| -> String {
            let mut kept = detail[..end].trim_end();
            // Prefer a word boundary in the second half of the kept text.
            if end < detail.len()
                && let Some(space) = kept.rfind(char::is_whitespace)
                && space >= kept.len() / 2
            {
                kept = kept[..space].trim_end();
            }
            let kept = kept.trim_end_matches([',', ';', ':', '-', '(', '.', ' ']);
            format!("{head}: {kept}…")
        };
        // Find the longest prefix whose cut line fits: start from an estimate made with the
        // line's own tokens-per-character ratio, gallop to bracket the answer, then bisect.
        let kept_ok = |kept: usize| kept > 0 && fits(&cut(boundaries[kept - 1]));
        let n = boundaries.len();
        let estimate = (n * budget / total_tokens).clamp(1, n);
        let (mut low, mut high);
        if kept_ok(estimate) {
            low = estimate;
            let mut step = (n / 8).max(2);
            high = loop {
                let probe = (low + step).min(n);
                if probe == low {
                    break low;
                }
                if kept_ok(probe) {
                    low = probe;
                    step *= 2;
                } else {
                    break probe - 1;
                }
            };
        } else {
            high = estimate - 1;
            let mut step = (n / 8).max(2);
            low = loop {
                let probe = high.saturating_sub(step);
                if probe == 0 {
                    break 0;
                }
                if kept_ok(probe) {
                    break probe;
                }
                high = probe - 1;
                step *= 2;
            };
        }
        while low < high {
            let middle = (low + high).div_ceil(2);
            if kept_ok(middle) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        // Token counts are not strictly monotonic in the prefix length: step down until it fits.
        let mut kept = low;
        while kept > 0 {
            let line = cut(boundaries[kept - 1]);
            if fits(&line) && line.len() > head.len() + 3 {
                return line;
            }
            kept -= 1;
        }
        head.to_owned()
    }
}
