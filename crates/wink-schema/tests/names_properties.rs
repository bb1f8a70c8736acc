//! Property tests: tool name aliases are legal, distinct, reversible and
//! independent of the order the names are given in, for adversarial name sets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};
use wink_schema::names::{ToolNameAliases, encode, is_provider_safe};

/// Names with dots, dashes, underscores, spaces, slashes, non-ASCII and lengths up
/// to 130 characters.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,8}(\\.[a-z_]{1,8}){0,3}",
        "[a-zA-Z0-9_.-]{1,20}",
        "[a-z_]{60,70}",
        "[a-z.]{1,6}\\.[a-z]{100,124}",
        "[a-z ./:é-]{1,12}",
        "[_.]{1,6}",
    ]
}

/// A set of names plus adversarial companions: each name's own encoding and a
/// dot/underscore swap (`a.b` next to `a__b`).
fn name_set() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(name(), 1..12).prop_map(|names| {
        let mut all: Vec<String> = Vec::new();
        for name in names {
            all.push(encode(&name));
            all.push(name.replace("__", "."));
            all.push(name);
        }
        let mut seen = HashSet::new();
        all.retain(|name| !name.is_empty() && seen.insert(name.clone()));
        all
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn aliases_round_trip(names in name_set()) {
        let aliases = ToolNameAliases::new(&names).unwrap();
        let mut distinct = HashSet::new();
        for name in &names {
            let alias = aliases.alias(name).unwrap();
            prop_assert!(is_provider_safe(alias), "{alias:?} is not provider safe");
            prop_assert!(distinct.insert(alias.to_owned()), "{alias:?} used twice");
            prop_assert_eq!(aliases.original(alias), Some(name.as_str()));
            if is_provider_safe(name) {
                prop_assert_eq!(alias, name.as_str());
            }
        }
        prop_assert_eq!(aliases.len(), names.len());
    }

    #[test]
    fn aliases_do_not_depend_on_order(names in name_set(), seed in any::<u64>()) {
        let forward = ToolNameAliases::new(&names).unwrap();
        let mut shuffled = names.clone();
        // A deterministic shuffle from the seed.
        let mut state = seed | 1;
        for index in (1..shuffled.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let other = usize::try_from(state % (index as u64 + 1)).unwrap();
            shuffled.swap(index, other);
        }
        let backward = ToolNameAliases::new(&shuffled).unwrap();
        let pairs = |aliases: &ToolNameAliases| -> BTreeSet<(String, String)> {
            aliases.iter().map(|(name, alias)| (name.to_owned(), alias.to_owned())).collect()
        };
        prop_assert_eq!(pairs(&forward), pairs(&backward));
    }
}
