//! The mapper's small maps: by run (a session id as text, shared) and by (run, call id). A
//! mapper holds a handful of runs and calls at a time, so a scan costs less than hashing their
//! keys (and finds a call without building an owned key).

use crate::span::Text;

/// Values by run key, in insertion order.
#[derive(Debug)]
pub(crate) struct ByRun<V>(Vec<(Text, V)>);

impl<V> Default for ByRun<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> ByRun<V> {
    fn position(&self, key: &str) -> Option<usize> {
        self.0.iter().position(|(k, _)| k == key)
    }

    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` (replacing an earlier value).
    pub(crate) fn insert(&mut self, key: Text, value: V) {
        match self.position(&key) {
            Some(i) => self.0[i].1 = value,
            None => self.0.push((key, value)),
        }
    }

    pub(crate) fn remove(&mut self, key: &str) -> Option<V> {
        let i = self.position(key)?;
        Some(self.0.swap_remove(i).1)
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &Text> {
        self.0.iter().map(|(k, _)| k)
    }
}

/// Values by (run key, call id).
#[derive(Debug)]
pub(crate) struct ByCall<V>(Vec<(Text, String, V)>);

impl<V> Default for ByCall<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> ByCall<V> {
    fn position(&self, run: &str, call: &str) -> Option<usize> {
        self.0.iter().position(|(r, c, _)| r == run && c == call)
    }

    pub(crate) fn get(&self, run: &str, call: &str) -> Option<&V> {
        self.position(run, call).map(|i| &self.0[i].2)
    }

    /// The value of (`run`, `call`), set with `make` when there is none.
    pub(crate) fn get_or_insert_with(
        &mut self,
        run: &Text,
        call: &str,
        make: impl FnOnce() -> V,
    ) -> &V {
        let i = match self.position(run, call) {
            Some(i) => i,
            None => {
                self.0.push((run.clone(), call.to_owned(), make()));
                self.0.len() - 1
            }
        };
        &self.0[i].2
    }

    /// Sets (`run`, `call`) (replacing an earlier value).
    pub(crate) fn insert(&mut self, run: &Text, call: &str, value: V) {
        match self.position(run, call) {
            Some(i) => self.0[i].2 = value,
            None => self.0.push((run.clone(), call.to_owned(), value)),
        }
    }

    pub(crate) fn remove(&mut self, run: &str, call: &str) -> Option<V> {
        let i = self.position(run, call)?;
        Some(self.0.swap_remove(i).2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_by_run_and_by_call() {
        let mut runs = ByRun::default();
        runs.insert("a".into(), 1);
        runs.insert("b".into(), 2);
        runs.insert("a".into(), 3);
        assert_eq!((runs.get("a"), runs.get("c")), (Some(&3), None));
        *runs.get_mut("b").unwrap() += 1;
        assert_eq!(runs.remove("b"), Some(3));
        assert!(!runs.contains_key("b") && runs.contains_key("a"));
        assert_eq!(runs.keys().collect::<Vec<_>>(), ["a"]);

        let mut calls = ByCall::default();
        let (a, b) = (Text::from("a"), Text::from("b"));
        assert_eq!(*calls.get_or_insert_with(&a, "c1", || 7), 7);
        assert_eq!(*calls.get_or_insert_with(&a, "c1", || 8), 7);
        calls.insert(&b, "c1", 9);
        assert_eq!(
            (calls.get("a", "c1"), calls.get("b", "c1")),
            (Some(&7), Some(&9))
        );
        assert_eq!(calls.remove("a", "c1"), Some(7));
        assert_eq!(calls.remove("a", "c1"), None);
    }
}
