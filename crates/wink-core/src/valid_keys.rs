//! The valid keys an unknown-key message lists, closest first.

/// Most keys an unknown-key message lists.
const MAX_LISTED_KEYS: usize = 8;

/// `message` followed by the valid keys, closest to `key` first (a key that `key` extends, then
/// by edit distance; at most 8): `Unknown section key: 'inventory.Dune'. Valid keys: inventory,
/// orders.` Unchanged when there are no valid keys.
///
/// ```
/// use wink_core::with_valid_keys;
/// assert_eq!(
///     with_valid_keys("Unknown section key: 'inventory.Dune'", "inventory.Dune", &["orders".into(), "inventory".into()]),
///     "Unknown section key: 'inventory.Dune'. Valid keys: inventory, orders."
/// );
/// ```
pub fn with_valid_keys(message: &str, key: &str, valid: &[String]) -> String {
    if valid.is_empty() {
        return message.to_owned();
    }
    let wanted = key.to_lowercase();
    let mut ranked: Vec<(usize, usize, &str)> = valid
        .iter()
        .enumerate()
        .map(|(order, k)| {
            let candidate = k.to_lowercase();
            let extends = wanted.starts_with(&format!("{candidate}."));
            let distance = if extends {
                0
            } else {
                edit_distance(&wanted, &candidate)
            };
            (distance, order, k.as_str())
        })
        .collect();
    ranked.sort_unstable();
    let listed: Vec<&str> = ranked
        .iter()
        .take(MAX_LISTED_KEYS)
        .map(|(_, _, k)| *k)
        .collect();
    let more = valid.len().saturating_sub(MAX_LISTED_KEYS);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let message = message.strip_suffix('.').unwrap_or(message);
    format!("{message}. Valid keys: {}{tail}.", listed.join(", "))
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = if ca == *cb {
                previous
            } else {
                1 + previous.min(current).min(row[j])
            };
            previous = current;
        }
    }
    row[b.len()]
}
