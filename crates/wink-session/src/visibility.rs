//! The `VisibilityOverrides` slice (seed 001): per-section visibility chosen at run time (for example by the
//! model opening a section), installed in every session and read by prompt rendering before the section's own
//! visibility selector.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::event::{Event, SliceItem};
use crate::path::{SectionPath, SectionVisibility};
use crate::reducer::{DeclarativeReducers, DeclarativeSlice};

/// Visibility overrides by section path.
///
/// JSON form: `{"overrides": [{"path": ["reference", "details"], "visibility": "full"}]}` (sorted by path).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VisibilityOverrides {
    overrides: BTreeMap<SectionPath, SectionVisibility>,
}

impl VisibilityOverrides {
    /// The override for `path`, if any.
    pub fn get(&self, path: &SectionPath) -> Option<SectionVisibility> {
        self.overrides.get(path).copied()
    }

    /// Every override, sorted by path.
    pub fn iter(&self) -> impl Iterator<Item = (&SectionPath, SectionVisibility)> {
        self.overrides
            .iter()
            .map(|(path, visibility)| (path, *visibility))
    }

    /// A copy with `path` set to `visibility`.
    pub fn with_override(&self, path: SectionPath, visibility: SectionVisibility) -> Self {
        let mut overrides = self.overrides.clone();
        overrides.insert(path, visibility);
        Self { overrides }
    }

    /// A copy without an override for `path`.
    pub fn without_override(&self, path: &SectionPath) -> Self {
        let mut overrides = self.overrides.clone();
        overrides.remove(path);
        Self { overrides }
    }

    /// True when there is no override.
    pub fn is_empty(&self) -> bool {
        self.overrides.is_empty()
    }

    /// Number of overrides.
    pub fn len(&self) -> usize {
        self.overrides.len()
    }

    fn handle_set(&self, event: &SetVisibilityOverride) -> Self {
        self.with_override(event.path.clone(), event.visibility)
    }

    fn handle_clear(&self, event: &ClearVisibilityOverride) -> Self {
        self.without_override(&event.path)
    }

    fn handle_clear_all(&self, _: &ClearAllVisibilityOverrides) -> Self {
        Self::default()
    }
}

impl FromIterator<(SectionPath, SectionVisibility)> for VisibilityOverrides {
    fn from_iter<I: IntoIterator<Item = (SectionPath, SectionVisibility)>>(iter: I) -> Self {
        Self {
            overrides: iter.into_iter().collect(),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct OverrideEntry {
    path: SectionPath,
    visibility: SectionVisibility,
}

#[derive(Serialize, Deserialize)]
struct OverridesForm {
    overrides: Vec<OverrideEntry>,
}

impl Serialize for VisibilityOverrides {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let overrides = self
            .overrides
            .iter()
            .map(|(path, visibility)| OverrideEntry {
                path: path.clone(),
                visibility: *visibility,
            })
            .collect();
        OverridesForm { overrides }.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for VisibilityOverrides {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let form = OverridesForm::deserialize(deserializer)?;
        Ok(form
            .overrides
            .into_iter()
            .map(|entry| (entry.path, entry.visibility))
            .collect())
    }
}

impl SliceItem for VisibilityOverrides {
    fn slice_type_name() -> &'static str {
        "VisibilityOverrides"
    }
}

impl DeclarativeSlice for VisibilityOverrides {
    fn register_reducers(reducers: &mut DeclarativeReducers<Self>) {
        reducers
            .on(Self::handle_set)
            .on(Self::handle_clear)
            .on(Self::handle_clear_all);
    }
}

/// Sets the visibility of one section.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetVisibilityOverride {
    /// The section.
    pub path: SectionPath,
    /// Its new visibility.
    pub visibility: SectionVisibility,
}

/// Removes the override of one section.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClearVisibilityOverride {
    /// The section.
    pub path: SectionPath,
}

/// Removes every override.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClearAllVisibilityOverrides;

impl Event for SetVisibilityOverride {
    fn type_name() -> &'static str {
        "SetVisibilityOverride"
    }
}

impl Event for ClearVisibilityOverride {
    fn type_name() -> &'static str {
        "ClearVisibilityOverride"
    }
}

impl Event for ClearAllVisibilityOverrides {
    fn type_name() -> &'static str {
        "ClearAllVisibilityOverrides"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Session;

    fn path(dotted: &str) -> SectionPath {
        SectionPath::new(dotted.split('.').map(str::to_owned).collect())
    }

    #[test]
    fn builder_methods_are_persistent() {
        let empty = VisibilityOverrides::default();
        let one = empty.with_override(path("a.b"), SectionVisibility::Full);
        assert!(empty.is_empty());
        assert_eq!(one.get(&path("a.b")), Some(SectionVisibility::Full));
        assert_eq!(one.without_override(&path("a.b")), empty);
        assert_eq!(
            one.iter().collect::<Vec<_>>(),
            [(&path("a.b"), SectionVisibility::Full)]
        );
    }

    #[test]
    fn json_form() {
        let overrides = VisibilityOverrides::default()
            .with_override(path("b"), SectionVisibility::Summary)
            .with_override(path("a.x"), SectionVisibility::Full);
        let json = serde_json::to_string(&overrides).unwrap();
        assert_eq!(
            json,
            r#"{"overrides":[{"path":["a","x"],"visibility":"full"},{"path":["b"],"visibility":"summary"}]}"#
        );
        assert_eq!(
            serde_json::from_str::<VisibilityOverrides>(&json).unwrap(),
            overrides
        );
    }

    #[test]
    fn session_reduces_set_clear_clear_all() {
        let session = Session::new();
        assert!(session.visibility_overrides().is_empty());
        assert_eq!(
            session.slice::<VisibilityOverrides>().len(),
            1,
            "installed with an initial value"
        );

        let result = session.dispatch(SetVisibilityOverride {
            path: path("a"),
            visibility: SectionVisibility::Full,
        });
        assert!(result.ok());
        assert_eq!(result.reducers_applied, 1);
        session.dispatch(SetVisibilityOverride {
            path: path("a.b"),
            visibility: SectionVisibility::Summary,
        });
        assert_eq!(
            session.visibility_overrides().iter().collect::<Vec<_>>(),
            [
                (&path("a"), SectionVisibility::Full),
                (&path("a.b"), SectionVisibility::Summary)
            ]
        );
        session.dispatch(ClearVisibilityOverride { path: path("a") });
        assert_eq!(session.visibility_overrides().get(&path("a")), None);
        assert_eq!(
            session.visibility_overrides().get(&path("a.b")),
            Some(SectionVisibility::Summary)
        );
        session.dispatch(ClearAllVisibilityOverrides);
        assert!(session.visibility_overrides().is_empty());
        assert_eq!(
            session.slice::<VisibilityOverrides>().len(),
            1,
            "declarative slices hold one state"
        );
        assert!(
            session.slice::<SetVisibilityOverride>().is_empty(),
            "events with reducers are not ledgered"
        );
    }
}
