//! Pre-opening: the summarized sections (and deferred catalog tools) most relevant to the input,
//! opened before the first model call.

use wink_agent::preopen::{PreopenStyle, Preopened};
use wink_core::{DisclosureMode, ToolArguments, ToolCall};
use wink_model::profile::ModelProfile;

use crate::error::{Result, RunError};
use crate::prompt::PreparedPrompt;

/// How many sections to pre-open: `flag`, else the prompt file's `preopen`, else the model
/// profile's default outside `wink` mode (which keeps WINK v0.17's conversation), else none.
/// `Some(0)` turns it off. Small models rarely call `read_section` on their own: their profile
/// pre-opens up to 3 sections (after the most relevant one, only those about as relevant: see
/// [`wink_agent::preopen::RELATIVE_SCORE`]); large hosted models get none.
#[must_use]
pub fn effective_preopen(
    flag: Option<usize>,
    file: Option<usize>,
    profile: &ModelProfile,
    mode: DisclosureMode,
) -> Option<usize> {
    flag.or(file)
        .or_else(|| profile.preopen.filter(|_| mode != DisclosureMode::Wink))
}

/// Opens the `k` summarized sections most relevant to `input` (or, without input, to the
/// prompt's fully rendered sections) before the first model call, in `style`, keeping the prompt
/// within half the model's context `window` when it is known (the conversation needs the rest).
/// Returns the keys opened and, in the `call` style, the calls to run first
/// ([`wink_agent::MainLoopConfig::opening_calls`]).
///
/// # Errors
/// [`RunError::Usage`] naming `--preopen` when the prompt does not render.
pub fn preopen(
    prepared: &PreparedPrompt,
    input: Option<&str>,
    k: usize,
    style: PreopenStyle,
    window: Option<u64>,
) -> Result<Preopened> {
    let mut preopened = wink_agent::preopen::apply_within(
        &prepared.prompt,
        &prepared.session,
        input.unwrap_or_default(),
        k,
        style,
        window.map(|w| w / 2),
    )
    .map_err(|e| RunError::usage(format!("--preopen: {e}")))?;
    if let Some(call) = catalog_opening_call(prepared, input.unwrap_or_default(), k)? {
        preopened.calls.push(call);
    }
    Ok(preopened)
}

/// Pre-opening in a deferred tool catalog: a `tool.describe` call, run before the first model
/// call, of the catalog tools that best match `input`
/// ([`wink_catalog::ToolCatalogSection::best_matches`], at most `k`), so they are callable from
/// the first call with their full specifications in the conversation. None without input,
/// without a deferred catalog whose `tool.describe` the render offers, or when nothing matches.
///
/// # Errors
/// [`RunError::Usage`] naming `--preopen` when the prompt does not render.
pub fn catalog_opening_call(
    prepared: &PreparedPrompt,
    input: &str,
    k: usize,
) -> Result<Option<ToolCall>> {
    if input.trim().is_empty() || k == 0 {
        return Ok(None);
    }
    let rendered = prepared
        .prompt
        .render_with(&prepared.session)
        .map_err(|e| RunError::usage(format!("--preopen: {e}")))?;
    if !rendered.tool_names().contains(&wink_catalog::TOOL_DESCRIBE) {
        return Ok(None);
    }
    let mut names = Vec::new();
    for section in &prepared.loaded.catalogs {
        let deferred = section
            .decision()
            .is_none_or(|decision| decision.decision == "deferred");
        if !deferred {
            continue;
        }
        let activated = section.activated(&prepared.session);
        names.extend(
            section
                .best_matches(input, k)
                .into_iter()
                .filter(|name| !activated.contains(name)),
        );
    }
    if names.is_empty() {
        return Ok(None);
    }
    Ok(Some(ToolCall {
        id: "preopen_describe".to_owned(),
        name: wink_catalog::TOOL_DESCRIBE.to_owned(),
        arguments: ToolArguments::Json(serde_json::json!({ "names": names })),
    }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::effective_preopen;
    use wink_core::DisclosureMode;
    use wink_model::profile::profile_named;

    #[test]
    fn small_models_pre_open_sections_unless_told_otherwise() {
        let unified = DisclosureMode::Unified;
        let small = profile_named("small-local").unwrap();
        let hosted = profile_named("hosted").unwrap();
        let default = profile_named("default").unwrap();
        assert_eq!(effective_preopen(None, None, small, unified), Some(3));
        assert_eq!(
            effective_preopen(None, None, small, DisclosureMode::Wink),
            None
        );
        assert_eq!(effective_preopen(None, None, hosted, unified), None);
        assert_eq!(effective_preopen(None, None, default, unified), None);
        assert_eq!(effective_preopen(Some(0), None, small, unified), Some(0));
        assert_eq!(effective_preopen(None, Some(2), small, unified), Some(2));
        assert_eq!(
            effective_preopen(Some(3), Some(2), hosted, unified),
            Some(3)
        );
    }
}
