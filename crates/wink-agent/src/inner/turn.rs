//! What the loop does with a model's turn before taking it: the answer tool, and the turn
//! policies of the model's profile (see [`crate::turn_policy`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use wink_core::builtin::FINAL_ANSWER;
use wink_model::profile::{ALL_TURN_POLICIES, ModelProfile, profile_named};
use wink_model::{ModelRequest, ModelTurn};

use crate::turn_policy::answer_tool::{
    answer_tool_addition, answer_tool_spec, joins_after, take_answer,
};
use crate::turn_policy::{Firing, review, reviewers};

/// The turn settings an evaluation runs with, resolved from the model's profile and the
/// run's overrides ([`TurnSettings::resolve`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnSettings {
    /// The profile they come from.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub profile: String,
    /// The turn policies that review each free turn, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<String>,
    /// Offer the answer tool once a tool has returned.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub answer_tool: bool,
    /// Send the rendered prompt as the user turn when the conversation has no user message
    /// ([`wink_model::ModelRequest::with_user_turn`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prompt_as_user_turn: bool,
    /// Refuse calls with a record code found nowhere in the conversation
    /// ([`crate::unseen_code`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unseen_codes: bool,
}

impl TurnSettings {
    /// The settings of `profile` (or of the profile named `requested`, when given and known),
    /// with the policies `repairs` switches on (`true`) or off (`false`), and the answer tool as
    /// `answer_tool` says when it says.
    #[must_use]
    pub fn resolve(
        profile: &'static ModelProfile,
        requested: Option<&str>,
        repairs: &BTreeMap<String, bool>,
        answer_tool: Option<bool>,
    ) -> Self {
        let profile = requested
            .and_then(|name| profile_named(name).ok())
            .unwrap_or(profile);
        let listed = |name: &str| match repairs.get(name) {
            Some(on) => *on,
            None => profile.turn_policies.contains(&name),
        };
        Self {
            profile: profile.name.to_owned(),
            policies: ALL_TURN_POLICIES
                .iter()
                .filter(|name| listed(name))
                .map(|name| (*name).to_owned())
                .collect(),
            answer_tool: answer_tool.unwrap_or(profile.answer_tool),
            prompt_as_user_turn: profile.prompt_as_user_turn,
            unseen_codes: profile.unseen_codes,
        }
    }

    /// `request` with the answer tool added where it joins the conversation, when these
    /// settings offer it.
    pub(crate) fn offer_answer_tool(&self, request: &mut ModelRequest) {
        if !self.answer_tool {
            return;
        }
        if let Some(after) = joins_after(&request.messages, &request.tools) {
            request.tools.push(answer_tool_spec());
            request.tool_additions.push(answer_tool_addition(after));
        }
    }

    /// `turn` with the answer tool's calls taken out: a turn of them alone is the answer they
    /// give; beside other calls they are dropped.
    pub(crate) fn take_answer_calls(&self, mut turn: ModelTurn) -> ModelTurn {
        if !self.answer_tool || !turn.tool_calls.iter().any(|c| c.name == FINAL_ANSWER) {
            return turn;
        }
        if let Some(answer) = take_answer(&turn.tool_calls) {
            turn.text = (!answer.is_empty()).then_some(answer);
            turn.tool_calls.clear();
        } else {
            turn.tool_calls.retain(|c| c.name != FINAL_ANSWER);
        }
        turn
    }

    /// Whether a turn answering `request` is reviewed by the policies: a free turn, or an
    /// answer-only one when a policy reviews those.
    pub(crate) fn reviews(&self, request: &ModelRequest) -> bool {
        reviewers(&self.policies, &request.tool_choice)
            .next()
            .is_some()
    }

    /// The policy that takes back `turn` (a turn without calls) given to `request`, if any.
    pub(crate) fn review(&self, request: &ModelRequest, turn: &ModelTurn) -> Option<Firing> {
        if !turn.tool_calls.is_empty() || !self.reviews(request) {
            return None;
        }
        review(
            &self.policies,
            request,
            turn.text.as_deref().unwrap_or_default(),
        )
    }
}

/// A turn a policy took back, as the driver announces it.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    /// The policy and what it asked for.
    pub firing: Firing,
    /// The answer it took back.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use wink_model::profile::{DEFAULT_PROFILE, PROFILES};

    fn small() -> &'static ModelProfile {
        &PROFILES[0]
    }

    #[test]
    fn a_profile_gives_its_policies_and_repairs_switch_them_alone() {
        let all = TurnSettings::resolve(small(), None, &BTreeMap::new(), None);
        assert_eq!(all.profile, "small-local");
        assert_eq!(all.policies, ALL_TURN_POLICIES);
        assert!(all.answer_tool);
        let off = BTreeMap::from([("ungrounded".to_owned(), false)]);
        let some = TurnSettings::resolve(small(), None, &off, Some(false));
        assert_eq!(some.policies.len(), ALL_TURN_POLICIES.len() - 1);
        assert!(!some.policies.contains(&"ungrounded".to_owned()));
        assert!(!some.answer_tool);
        let none = TurnSettings::resolve(&DEFAULT_PROFILE, None, &BTreeMap::new(), None);
        assert_eq!(none.policies, Vec::<String>::new());
        let on = BTreeMap::from([("named-tool".to_owned(), true)]);
        let one = TurnSettings::resolve(&DEFAULT_PROFILE, None, &on, None);
        assert_eq!(one.policies, ["named-tool"]);
        let named = TurnSettings::resolve(&DEFAULT_PROFILE, Some("small-local"), &off, None);
        assert_eq!(named.profile, "small-local");
        assert!(named.answer_tool);
    }
}
