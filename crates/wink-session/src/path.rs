//! Section paths and section visibility: the vocabulary shared by sessions and prompt rendering.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The position of a section in a prompt's section tree: the keys from the root section down to the section.
///
/// Serializes as a JSON array of strings (`["reference", "details"]`) and displays dotted (`reference.details`).
/// The segments are shared: a clone is a reference count (issue 22: a rendered prompt keeps a path
/// per section, and a template one per node and per tool).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SectionPath(Arc<[String]>);

impl SectionPath {
    /// A path from its segments, root first.
    pub fn new(segments: Vec<String>) -> Self {
        Self(segments.into())
    }

    /// The path of a root (top-level) section.
    pub fn root(key: impl Into<String>) -> Self {
        Self(Arc::from([key.into()]))
    }

    /// The path of the child `key` of this section.
    pub fn child(&self, key: impl Into<String>) -> Self {
        let key = key.into();
        Self(self.0.iter().cloned().chain(std::iter::once(key)).collect())
    }

    /// The section keys, root first.
    pub fn segments(&self) -> &[String] {
        &self.0
    }

    /// Nesting depth: 0 for a root section (number of segments minus one, saturating at 0).
    pub fn depth(&self) -> usize {
        self.0.len().saturating_sub(1)
    }

    /// The keys joined with dots: `"reference.details"`.
    pub fn dotted(&self) -> String {
        self.0.join(".")
    }

    /// The last key (the section's own key); empty for an empty path.
    pub fn key(&self) -> &str {
        self.0.last().map_or("", String::as_str)
    }

    /// True when `ancestor` is a strict prefix of this path.
    pub fn is_descendant_of(&self, ancestor: &SectionPath) -> bool {
        self.0.len() > ancestor.0.len() && self.0.starts_with(&ancestor.0)
    }
}

impl fmt::Display for SectionPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, segment) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str(".")?;
            }
            f.write_str(segment)?;
        }
        Ok(())
    }
}

impl From<Vec<String>> for SectionPath {
    fn from(segments: Vec<String>) -> Self {
        Self(segments.into())
    }
}

impl From<&[&str]> for SectionPath {
    fn from(segments: &[&str]) -> Self {
        Self(segments.iter().map(|s| (*s).to_owned()).collect())
    }
}

/// How a section renders: in full, or as its summary.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SectionVisibility {
    /// The section renders its complete body.
    Full,
    /// The section renders its summary and can be expanded.
    Summary,
}

impl SectionVisibility {
    /// `"full"` or `"summary"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SectionVisibility::Full => "full",
            SectionVisibility::Summary => "summary",
        }
    }
}

impl fmt::Display for SectionVisibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_accessors() {
        let path = SectionPath::root("reference").child("details").child("x");
        assert_eq!(path.segments(), ["reference", "details", "x"]);
        assert_eq!(path.depth(), 2);
        assert_eq!(path.dotted(), "reference.details.x");
        assert_eq!(path.to_string(), "reference.details.x");
        assert_eq!(path.key(), "x");
        assert_eq!(SectionPath::root("a").depth(), 0);
        assert_eq!(SectionPath::new(vec![]).key(), "");
    }

    #[test]
    fn descendant_is_strict() {
        let parent = SectionPath::root("a");
        let child = parent.child("b");
        assert!(child.is_descendant_of(&parent));
        assert!(child.child("c").is_descendant_of(&parent));
        assert!(!parent.is_descendant_of(&parent));
        assert!(!parent.is_descendant_of(&child));
        assert!(!SectionPath::root("ab").is_descendant_of(&SectionPath::root("a")));
        assert!(!SectionPath::root("b").child("a").is_descendant_of(&parent));
    }

    #[test]
    fn serde_forms() {
        let path = SectionPath::root("a").child("b");
        assert_eq!(serde_json::to_string(&path).unwrap(), r#"["a","b"]"#);
        let back: SectionPath = serde_json::from_str(r#"["a","b"]"#).unwrap();
        assert_eq!(back, path);
        assert_eq!(
            serde_json::to_string(&SectionVisibility::Summary).unwrap(),
            r#""summary""#
        );
        assert_eq!(
            serde_json::from_str::<SectionVisibility>(r#""full""#).unwrap(),
            SectionVisibility::Full
        );
        assert_eq!(SectionVisibility::Full.to_string(), "full");
        assert_eq!(SectionVisibility::Summary.to_string(), "summary");
    }
}
