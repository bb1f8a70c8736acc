//! Provider-safe aliases for tool names.
//!
//! Providers accept tool names matching `^[a-zA-Z0-9_-]{1,64}$`; wink tool names
//! may be namespaced with dots (`file.read`, `tool.list`) and MCP names may hold
//! any character and run to 128 characters. [`ToolNameAliases`] maps every name
//! of one tool set to a distinct legal alias and back.
//!
//! # Scheme
//! 1. A name that is already legal is its own alias — always, whatever else is
//!    in the set.
//! 2. Any other name is encoded character by character: `.` becomes `__`, every
//!    other character outside `[a-zA-Z0-9_-]` becomes `_<hex code point>_`
//!    (`my tool` → `my_20_tool`, `ns/x` → `ns_2f_x`).
//! 3. When the encoding is longer than 64 characters, or equals an alias already
//!    taken, it is cut to 55 characters and suffixed with `_` and 8 hex digits of
//!    a 64-bit FNV-1a hash of the original name (`a.b` next to a tool named
//!    `a__b` becomes `a__b_` + hash). Should that collide too, the hash is taken
//!    again with a counter appended to the name, until the alias is free.
//!
//! Names needing an encoding are processed in sorted order after all legal
//! names, so the mapping depends only on the *set* of names, not their order,
//! and is the same on every run. Every alias is legal and distinct, and
//! [`ToolNameAliases::original`] inverts [`ToolNameAliases::alias`].
//!
//! ```
//! use wink_schema::names::ToolNameAliases;
//!
//! let aliases = ToolNameAliases::new(["file.read", "file__read", "search"]).unwrap();
//! assert_eq!(aliases.alias("search"), Some("search"));
//! assert_eq!(aliases.alias("file__read"), Some("file__read"));
//! let encoded = aliases.alias("file.read").unwrap();
//! assert!(encoded.starts_with("file__read_") && encoded.len() == 19);
//! assert_eq!(aliases.original(encoded), Some("file.read"));
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;

/// Longest alias providers accept.
pub const MAX_ALIAS_LEN: usize = 64;

/// Length of the `_` + hash suffix.
const SUFFIX_LEN: usize = 9;

/// Why a set of names cannot be aliased.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// A tool name is empty.
    #[error("Tool name must not be empty.")]
    Empty,
    /// The same tool name appears twice.
    #[error("Duplicate tool name '{name}'.")]
    Duplicate {
        /// The repeated name.
        name: String,
    },
}

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`.
#[must_use]
pub fn is_provider_safe(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_ALIAS_LEN && name.bytes().all(is_safe_byte)
}

fn is_safe_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

/// A reversible, collision-free mapping between tool names and provider-safe
/// aliases for one set of tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolNameAliases {
    /// `(original, alias)` in the order the names were given.
    pairs: Vec<(String, String)>,
    by_original: HashMap<String, usize>,
    by_alias: HashMap<String, usize>,
}

impl ToolNameAliases {
    /// Builds the aliases for a set of tool names.
    ///
    /// # Errors
    /// [`NameError::Empty`] for an empty name, [`NameError::Duplicate`] for a
    /// repeated one.
    pub fn new<I, S>(names: I) -> Result<Self, NameError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut pairs: Vec<(String, String)> = Vec::new();
        let mut by_original: HashMap<String, usize> = HashMap::new();
        for name in names {
            let name = name.as_ref();
            if name.is_empty() {
                return Err(NameError::Empty);
            }
            if by_original.contains_key(name) {
                return Err(NameError::Duplicate {
                    name: name.to_owned(),
                });
            }
            by_original.insert(name.to_owned(), pairs.len());
            pairs.push((name.to_owned(), String::new()));
        }

        let mut by_alias: HashMap<String, usize> = HashMap::new();
        let mut pending: Vec<usize> = Vec::new();
        for (index, (original, alias)) in pairs.iter_mut().enumerate() {
            if is_provider_safe(original) {
                alias.clone_from(original);
                by_alias.insert(original.clone(), index);
            } else {
                pending.push(index);
            }
        }
        pending.sort_by(|left, right| pairs[*left].0.cmp(&pairs[*right].0));
        for index in pending {
            let alias = choose_alias(&pairs[index].0, |candidate| {
                by_alias.contains_key(candidate)
            });
            by_alias.insert(alias.clone(), index);
            pairs[index].1 = alias;
        }

        Ok(Self {
            pairs,
            by_original,
            by_alias,
        })
    }

    /// The provider-safe alias of a tool name of the set.
    #[must_use]
    pub fn alias(&self, name: &str) -> Option<&str> {
        self.by_original
            .get(name)
            .map(|index| self.pairs[*index].1.as_str())
    }

    /// The tool name behind an alias.
    #[must_use]
    pub fn original(&self, alias: &str) -> Option<&str> {
        self.by_alias
            .get(alias)
            .map(|index| self.pairs[*index].0.as_str())
    }

    /// `(original, alias)` pairs in the order the names were given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs
            .iter()
            .map(|(original, alias)| (original.as_str(), alias.as_str()))
    }

    /// Number of names.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the set is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// The readable encoding of a name (step 2 of the scheme); may be too long.
#[must_use]
pub fn encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for character in name.chars() {
        match character {
            '.' => out.push_str("__"),
            c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => out.push(c),
            c => {
                // Writing to a String cannot fail.
                let _ = write!(out, "_{:x}_", u32::from(c));
            }
        }
    }
    out
}

fn choose_alias(name: &str, taken: impl Fn(&str) -> bool) -> String {
    let encoded = encode(name);
    if !encoded.is_empty() && encoded.len() <= MAX_ALIAS_LEN && !taken(&encoded) {
        return encoded;
    }
    // The encoding is ASCII, so any byte index is a character boundary.
    let stem = &encoded[..encoded.len().min(MAX_ALIAS_LEN - SUFFIX_LEN)];
    let mut salt: u64 = 0;
    loop {
        let hash = if salt == 0 {
            fnv1a(name.as_bytes())
        } else {
            fnv1a(format!("{name}#{salt}").as_bytes())
        };
        let folded = (hash ^ (hash >> 32)) & 0xffff_ffff;
        let candidate = format!("{stem}_{folded:08x}");
        if !taken(&candidate) {
            return candidate;
        }
        salt += 1;
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(PRIME)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_names_map_to_themselves() {
        let aliases = ToolNameAliases::new(["read_section", "find-tool", "X9"]).unwrap();
        for name in ["read_section", "find-tool", "X9"] {
            assert_eq!(aliases.alias(name), Some(name));
            assert_eq!(aliases.original(name), Some(name));
        }
    }

    #[test]
    fn dots_and_other_characters_are_encoded() {
        let aliases = ToolNameAliases::new(["file.read", "my tool", "ns/x:y", "é"]).unwrap();
        assert_eq!(aliases.alias("file.read"), Some("file__read"));
        assert_eq!(aliases.alias("my tool"), Some("my_20_tool"));
        assert_eq!(aliases.alias("ns/x:y"), Some("ns_2f_x_3a_y"));
        assert_eq!(aliases.alias("é"), Some("_e9_"));
        assert_eq!(aliases.original("file__read"), Some("file.read"));
        assert_eq!(aliases.original("file.read"), None);
    }

    #[test]
    fn collisions_get_a_hash_suffix() {
        let aliases = ToolNameAliases::new(["a.b", "a__b"]).unwrap();
        assert_eq!(aliases.alias("a__b"), Some("a__b"));
        let hashed = aliases.alias("a.b").unwrap();
        assert_eq!(
            hashed,
            format!("a__b_{:08x}", {
                let hash = fnv1a(b"a.b");
                (hash ^ (hash >> 32)) & 0xffff_ffff
            })
        );
        assert_eq!(aliases.original(hashed), Some("a.b"));
    }

    #[test]
    fn long_names_are_cut_and_hashed() {
        let long = format!("mcp.{}", "x".repeat(120));
        let aliases = ToolNameAliases::new([long.as_str()]).unwrap();
        let alias = aliases.alias(&long).unwrap();
        assert_eq!(alias.len(), MAX_ALIAS_LEN);
        assert!(alias.starts_with("mcp__xxx"));
        assert!(is_provider_safe(alias));
        assert_eq!(aliases.original(alias), Some(long.as_str()));
    }

    #[test]
    fn invalid_sets_are_rejected() {
        assert_eq!(ToolNameAliases::new([""]), Err(NameError::Empty));
        assert_eq!(
            ToolNameAliases::new(["a", "a"]).unwrap_err().to_string(),
            "Duplicate tool name 'a'."
        );
    }

    #[test]
    fn provider_safe_pattern() {
        assert!(is_provider_safe("a-b_c9"));
        assert!(!is_provider_safe(""));
        assert!(!is_provider_safe("a.b"));
        assert!(!is_provider_safe(&"a".repeat(65)));
        assert!(is_provider_safe(&"a".repeat(64)));
    }
}
