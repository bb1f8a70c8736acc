//! The wink model cache: one rule for every model wink fetches (the embedded chat models of
//! `wink-local`, the embedding model of this crate) and for `scripts/fetch-model.sh`.

use std::ffi::OsString;
use std::path::PathBuf;

/// The model cache directory: `$WINK_HOME/models` if set, else `$XDG_CACHE_HOME/wink/models`, else the
/// platform's cache directory: `~/Library/Caches/wink/models` on macOS, `%LOCALAPPDATA%\wink\models` on
/// Windows, `~/.cache/wink/models` elsewhere. Empty variables count as unset.
#[must_use]
pub fn models_dir() -> PathBuf {
    models_dir_for(
        std::env::consts::OS,
        &|name| std::env::var_os(name),
        std::env::home_dir(),
    )
}

/// [`models_dir`] for the operating system `os` (as in [`std::env::consts::OS`]), reading
/// environment variables through `var` and falling back to `home_dir` when `HOME` is unset. Empty
/// variables count as unset.
fn models_dir_for(
    os: &str,
    var: &dyn Fn(&str) -> Option<OsString>,
    home_dir: Option<PathBuf>,
) -> PathBuf {
    let non_empty = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(wink_home) = non_empty("WINK_HOME") {
        return wink_home.join("models");
    }
    let cache = non_empty("XDG_CACHE_HOME").unwrap_or_else(|| {
        let home = || {
            non_empty("HOME")
                .or_else(|| home_dir.clone())
                .unwrap_or_else(|| PathBuf::from("."))
        };
        match os {
            "macos" => home().join("Library").join("Caches"),
            "windows" => {
                non_empty("LOCALAPPDATA").unwrap_or_else(|| home().join("AppData").join("Local"))
            }
            _ => home().join(".cache"),
        }
    });
    cache.join("wink").join("models")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn cache_dir_prefers_wink_home_then_xdg_on_every_platform() {
        let home = Some(PathBuf::from("/fallback"));
        for os in ["linux", "macos", "windows", "freebsd"] {
            let both = env(&[
                ("WINK_HOME", "/w"),
                ("XDG_CACHE_HOME", "/x"),
                ("HOME", "/h"),
            ]);
            assert_eq!(
                models_dir_for(os, &both, home.clone()),
                PathBuf::from("/w/models")
            );
            let xdg = env(&[
                ("WINK_HOME", ""),
                ("XDG_CACHE_HOME", "/x"),
                ("LOCALAPPDATA", "/l"),
            ]);
            assert_eq!(
                models_dir_for(os, &xdg, home.clone()),
                PathBuf::from("/x/wink/models")
            );
        }
    }

    #[test]
    fn cache_dir_falls_back_to_the_platform_cache_dir() {
        let home = Some(PathBuf::from("/fallback"));
        let unix = env(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "")]);
        assert_eq!(
            models_dir_for("linux", &unix, home.clone()),
            PathBuf::from("/home/u/.cache/wink/models")
        );
        assert_eq!(
            models_dir_for("freebsd", &unix, home.clone()),
            PathBuf::from("/home/u/.cache/wink/models")
        );
        let mac = env(&[("HOME", "/Users/u")]);
        assert_eq!(
            models_dir_for("macos", &mac, home.clone()),
            PathBuf::from("/Users/u/Library/Caches/wink/models")
        );
        let windows = env(&[("LOCALAPPDATA", "C:/Users/u/AppData/Local")]);
        assert_eq!(
            models_dir_for("windows", &windows, home.clone()),
            PathBuf::from("C:/Users/u/AppData/Local/wink/models")
        );
        // Without LOCALAPPDATA, Windows uses the profile's AppData/Local; without HOME, the OS's home dir.
        assert_eq!(
            models_dir_for("windows", &env(&[]), Some(PathBuf::from("C:/Users/u"))),
            PathBuf::from("C:/Users/u/AppData/Local/wink/models")
        );
        assert_eq!(
            models_dir_for("linux", &env(&[]), home),
            PathBuf::from("/fallback/.cache/wink/models")
        );
        assert_eq!(
            models_dir_for("linux", &env(&[]), None),
            PathBuf::from("./.cache/wink/models")
        );
    }
}
