//! Model profiles: what a model family needs from a run, in one table ([`PROFILES`]).
//!
//! A profile picks the turn policies that review a model's finished turns (and take back the
//! ones a small model gets half right), whether the answer tool is offered, how an embedded
//! decoder lets the model write a call, how many sections are pre-opened when nothing else says,
//! and when the repetition guard asks for an answer. The adapter chooses the profile of the model
//! it talks to ([`crate::ProviderAdapter::profile`]: by default from the model's name; the
//! embedded model reads its GGUF metadata; an OpenAI-compatible server may report what it
//! serves), and a run may name another (`--profile NAME`, a prompt file's `"model_profile"`).
//!
//! Profiles other than [`DEFAULT_PROFILE`] are measured, not guessed: `small-local` is what the
//! embedded Qwen2.5-Coder models were measured with (the README has the figures); a model the
//! table does not know gets `default`, which changes nothing in WINK's conversation.

/// A model profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelProfile {
    /// Its name (`--profile NAME`).
    pub name: &'static str,
    /// One line on what it is for.
    pub summary: &'static str,
    /// The model names it is for: a model whose normalised name (see [`normalize_model_name`])
    /// contains one of these is of this family.
    pub families: &'static [&'static str],
    /// The turn policies that review the model's turns, in order (names of the loop's policies).
    pub turn_policies: &'static [&'static str],
    /// Offer the answer tool (`final_answer`) once a tool has returned.
    pub answer_tool: bool,
    /// An embedded decoder lets the model write a call only in the chat template's own form.
    pub template_calls: bool,
    /// Sections pre-opened for the input outside `wink` mode when neither the run nor the
    /// prompt file says.
    pub preopen: Option<usize>,
    /// Repeated calls after which the repetition guard asks for an answer.
    pub answer_only_after: u32,
    /// The most tokens one model turn may write when the run sets no cap, for every provider
    /// (the embedded decoder stops at the same number): a small model that never ends its turn
    /// would otherwise run to the server's context size.
    pub turn_output_cap: Option<u32>,
    /// Decode greedily (temperature 0) when the run sets no temperature, for every provider: the
    /// embedded decoder does, and a server left to its own default samples.
    pub greedy: bool,
    /// With no user message in the conversation, send the rendered prompt as the user turn
    /// ([`crate::ModelRequest::with_user_turn`]), for every provider: the embedded model always
    /// does, and a small chat model served over HTTP that is given only a system message may
    /// answer with its chat template's empty tool list instead of the task.
    pub prompt_as_user_turn: bool,
    /// Refuse a call whose argument has the shape of a record's code (`E-104`, `SK101`) but
    /// occurs nowhere in the conversation, with a failed result saying so: a small model makes
    /// such codes up when the question names a person or a product instead.
    pub unseen_codes: bool,
}

/// The profile of models the table does not know: WINK's conversation, nothing added.
pub const DEFAULT_PROFILE: ModelProfile = ModelProfile {
    name: "default",
    summary: "no turn policies, no answer tool, no pre-opening: the conversation as WINK has it",
    families: &[],
    turn_policies: &[],
    answer_tool: false,
    template_calls: false,
    preopen: None,
    answer_only_after: 2,
    turn_output_cap: None,
    greedy: false,
    prompt_as_user_turn: false,
    unseen_codes: false,
};

/// Every turn policy, in the order a profile that wants them all lists them.
pub const ALL_TURN_POLICIES: [&str; 8] = [
    "empty-answer",
    "described-answer",
    "follow-up",
    "disclosure-echo",
    "named-tool",
    "narration",
    "procedure",
    "ungrounded",
];

/// Every profile; the first whose family matches a model is its profile.
pub const PROFILES: [ModelProfile; 3] = [
    ModelProfile {
        name: "small-local",
        summary: "small open models (Qwen2.5 up to 3B): every turn policy, the answer tool, calls in the template's form, up to 3 sections pre-opened, greedy turns of at most 512 tokens, made-up record codes refused",
        families: &[
            "qwen2.5-coder-0.5b",
            "qwen2.5-coder-1.5b",
            "qwen2.5-coder-3b",
            "qwen2.5-0.5b",
            "qwen2.5-1.5b",
            "qwen2.5-3b",
        ],
        turn_policies: &ALL_TURN_POLICIES,
        answer_tool: true,
        template_calls: true,
        preopen: Some(3),
        answer_only_after: 2,
        turn_output_cap: Some(512),
        greedy: true,
        prompt_as_user_turn: true,
        unseen_codes: true,
    },
    ModelProfile {
        name: "hosted",
        summary: "large hosted models (GPT, o-series, Claude, Gemini): the conversation as WINK has it",
        families: &["gpt-", "chatgpt", "o1", "o3", "o4", "claude", "gemini"],
        ..DEFAULT_PROFILE
    },
    DEFAULT_PROFILE,
];

/// A model name as the table matches it: lower case, with `_`, `:`, `/` and spaces as `-`
/// (`Qwen2.5 Coder 1.5B Instruct` → `qwen2.5-coder-1.5b-instruct`; Ollama's
/// `qwen2.5-coder:1.5b` → `qwen2.5-coder-1.5b`).
#[must_use]
pub fn normalize_model_name(name: &str) -> String {
    name.trim()
        .to_lowercase()
        .chars()
        .map(|c| {
            if matches!(c, '_' | ':' | '/' | ' ') {
                '-'
            } else {
                c
            }
        })
        .collect()
}

/// The profile of the model named `name` (a provider's model name, a GGUF's `general.name` or
/// file name, a server's model path): the first profile whose family it contains, else
/// [`DEFAULT_PROFILE`]. An `o1`-like family must start a name segment (`o1-mini`, not `pro1`).
#[must_use]
pub fn profile_for_model(name: &str) -> &'static ModelProfile {
    let name = normalize_model_name(name);
    let segments: Vec<&str> = name.split('-').collect();
    PROFILES
        .iter()
        .find(|profile| {
            profile.families.iter().any(|family| {
                if family.len() <= 2 {
                    // Short families name a model line: a whole segment or a segment's start.
                    segments
                        .iter()
                        .any(|s| s.starts_with(family) && s.len() <= 4)
                } else {
                    name.contains(family)
                }
            })
        })
        .unwrap_or(&PROFILES[PROFILES.len() - 1])
}

/// The profile named `name`.
///
/// # Errors
/// The known names, when there is no such profile.
pub fn profile_named(name: &str) -> Result<&'static ModelProfile, String> {
    PROFILES
        .iter()
        .find(|profile| profile.name == name)
        .ok_or_else(|| {
            format!(
                "unknown model profile '{name}' (known: {})",
                PROFILES.map(|p| p.name).join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_normalised_before_matching() {
        assert_eq!(
            normalize_model_name("Qwen2.5 Coder 1.5B Instruct"),
            "qwen2.5-coder-1.5b-instruct"
        );
        assert_eq!(
            normalize_model_name("qwen2.5-coder:1.5b"),
            "qwen2.5-coder-1.5b"
        );
        assert_eq!(
            normalize_model_name("Qwen/Qwen2.5-1.5B-Instruct-GGUF"),
            "qwen-qwen2.5-1.5b-instruct-gguf"
        );
    }

    #[test]
    fn each_model_gets_the_profile_of_its_family() {
        let name = |model: &str| profile_for_model(model).name;
        assert_eq!(name("Qwen2.5 Coder 1.5B Instruct"), "small-local");
        assert_eq!(
            name("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
            "small-local"
        );
        assert_eq!(name("qwen2.5-coder:1.5b"), "small-local");
        assert_eq!(name("Qwen/Qwen2.5-3B-Instruct"), "small-local");
        assert_eq!(name("qwen2.5-coder-7b-instruct"), "default");
        assert_eq!(name("gpt-4.1-mini"), "hosted");
        assert_eq!(name("o3-mini"), "hosted");
        assert_eq!(name("o1"), "hosted");
        assert_eq!(name("claude-sonnet-4-5"), "hosted");
        assert_eq!(name("llama3.2:1b"), "default");
        assert_eq!(name("scripted"), "default");
        assert_eq!(name("pro1"), "default");
    }

    #[test]
    fn profiles_are_found_by_name_and_unknown_names_listed() {
        assert_eq!(
            profile_named("small-local").map(|p| p.answer_tool),
            Ok(true)
        );
        assert_eq!(
            profile_named("tiny"),
            Err("unknown model profile 'tiny' (known: small-local, hosted, default)".to_owned())
        );
        let mut names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        names.dedup();
        assert_eq!(names.len(), PROFILES.len());
    }

    #[test]
    fn only_small_models_get_a_turn_cap_and_greedy_decoding() {
        let turns: Vec<(&str, Option<u32>, bool)> = PROFILES
            .iter()
            .map(|p| (p.name, p.turn_output_cap, p.greedy))
            .collect();
        assert_eq!(
            turns,
            [
                ("small-local", Some(512), true),
                ("hosted", None, false),
                ("default", None, false)
            ]
        );
    }
}
