//! Choosing each next token.

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;

use super::generate::{GenerationSettings, decode_error};
use crate::error::LocalError;

/// Chooses each next token: greedy or sampled, filtered by the grammar when there is one.
///
/// The grammar is checked against the proposed token first and applied to the whole vocabulary only when
/// that token is rejected (as llama.cpp's own sampler does), which keeps constrained decoding cheap.
pub(super) struct TokenPicker<'model> {
    model: &'model LlamaModel,
    grammar: Option<LlamaSampler>,
    random: Option<LlamaSampler>,
}

impl<'model> TokenPicker<'model> {
    pub(super) fn new(
        model: &'model LlamaModel,
        grammar: Option<&str>,
        settings: &GenerationSettings,
    ) -> Result<Self, LocalError> {
        let grammar = grammar
            .map(|text| {
                LlamaSampler::grammar(model, text, "root").map_err(|error| LocalError::Grammar {
                    reason: error.to_string(),
                    grammar: text.to_owned(),
                })
            })
            .transpose()?;
        let random = (settings.temperature > 0.0).then(|| {
            LlamaSampler::chain_simple([
                LlamaSampler::temp(settings.temperature),
                LlamaSampler::dist(settings.seed),
            ])
        });
        Ok(Self {
            model,
            grammar,
            random,
        })
    }

    pub(super) fn is_end(&self, token: LlamaToken) -> bool {
        self.model.vocab().is_eog(token)
    }

    pub(super) fn piece(&self, token: LlamaToken) -> Vec<u8> {
        self.model.vocab().token_to_piece(token, true, None)
    }

    /// The best candidate: sampled through the random chain, or the highest finite logit.
    fn choose(&mut self, candidates: &mut LlamaTokenDataArray) -> Option<LlamaTokenData> {
        if let Some(random) = self.random.as_mut() {
            candidates.selected = None;
            candidates.apply_sampler(random);
            let index = candidates.selected?;
            return candidates.data.get(index).copied();
        }
        candidates
            .data
            .iter()
            .filter(|candidate| candidate.logit().is_finite())
            .max_by(|a, b| a.logit().total_cmp(&b.logit()))
            .copied()
    }

    /// The proposal before any grammar check. Greedy decoding reads the logits directly instead of building
    /// the full candidate array.
    fn propose(&mut self, context: &LlamaContext<'_>, logits_index: i32) -> Option<LlamaTokenData> {
        if self.random.is_some() {
            return self.choose(&mut context.token_data_array_ith(logits_index));
        }
        let logits = context.get_logits_ith(logits_index);
        let (index, logit) = logits
            .iter()
            .enumerate()
            .filter(|(_, logit)| logit.is_finite())
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        Some(LlamaTokenData::new(
            LlamaToken(i32::try_from(index).ok()?),
            *logit,
            0.0,
        ))
    }

    pub(super) fn pick(
        &mut self,
        context: &LlamaContext<'_>,
        logits_index: i32,
    ) -> Result<LlamaToken, LocalError> {
        let proposal = self
            .propose(context, logits_index)
            .ok_or_else(|| decode_error("generating", "the model produced no finite logits"))?;
        let Some(grammar) = self.grammar.as_mut() else {
            return Ok(proposal.id());
        };
        let mut single = LlamaTokenDataArray::new(vec![proposal], false);
        grammar.apply(&mut single);
        let accepted = single
            .data
            .first()
            .is_some_and(|candidate| candidate.logit().is_finite());
        let token = if accepted {
            proposal.id()
        } else {
            let mut allowed = context.token_data_array_ith(logits_index);
            grammar.apply(&mut allowed);
            self.choose(&mut allowed)
                .ok_or_else(|| decode_error("generating", "the grammar allows no next token"))?
                .id()
        };
        // End-of-generation tokens are never accepted: generation stops there, and llama.cpp's grammar
        // aborts the process if an end token is accepted while the grammar is incomplete.
        if let Some(grammar) = self
            .grammar
            .as_mut()
            .filter(|_| !self.model.vocab().is_eog(token))
        {
            grammar.accept(token);
        }
        Ok(token)
    }
}
