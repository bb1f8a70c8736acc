//! Choosing each next token.

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;

use super::generate::{GenerationSettings, decode_error};
use crate::error::LocalError;

/// Steers the first token of a turn whose grammar admits only the `<tool_call>` opening
/// ([`crate::CallForm::Template`]): when the model would open a call another way (a ```json fence, a bare
/// object), the turn opens with `<tool_call>` instead. Whether the turn is a call stays the model's choice.
#[derive(Debug)]
pub(super) struct CallOpenings {
    /// The first token of `<tool_call>`.
    opening: LlamaToken,
    /// Tokens that open a call in another form, sorted: a prefix of "```json\n" (or "```json"
    /// followed by whitespace), or text starting with `{`.
    others: Vec<LlamaToken>,
}

impl CallOpenings {
    /// The openings of `model`'s vocabulary, or `None` when `<tool_call>` tokenizes to nothing.
    pub(super) fn of(model: &LlamaModel) -> Option<Self> {
        const FENCE: &[u8] = b"```json\n";
        let vocab = model.vocab();
        let opening = *vocab.tokenize(b"<tool_call>", false, true).first()?;
        let others = (0..vocab.n_tokens())
            .map(LlamaToken)
            .filter(|token| {
                let piece = vocab.token_to_piece(*token, true, None);
                let fence = !piece.is_empty()
                    && (FENCE.starts_with(&piece)
                        || piece
                            .strip_prefix(b"```json".as_slice())
                            .is_some_and(|rest| rest.iter().all(u8::is_ascii_whitespace)));
                fence || piece.first() == Some(&b'{')
            })
            .collect();
        Some(Self { opening, others })
    }

    fn opens_a_call(&self, token: LlamaToken) -> bool {
        self.others.binary_search(&token).is_ok()
    }
}

/// Chooses each next token: greedy or sampled, filtered by the grammar when there is one.
///
/// The grammar is checked against the proposed token first and applied to the whole vocabulary only when
/// that token is rejected (as llama.cpp's own sampler does), which keeps constrained decoding cheap.
pub(super) struct TokenPicker<'model> {
    model: &'model LlamaModel,
    grammar: Option<LlamaSampler>,
    random: Option<LlamaSampler>,
    /// Applied to the first token only, then dropped.
    steer: Option<&'model CallOpenings>,
}

impl<'model> TokenPicker<'model> {
    pub(super) fn new(
        model: &'model LlamaModel,
        grammar: Option<&str>,
        steer: Option<&'model CallOpenings>,
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
            steer,
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
        let steer = self.steer.take();
        let token = if accepted {
            proposal.id()
        } else if let Some(steer) = steer.filter(|steer| steer.opens_a_call(proposal.id())) {
            steer.opening
        } else {
            let mut allowed = context.token_data_array_ith(logits_index);
            grammar.apply(&mut allowed);
            // The model would end its turn before a word: it is not calling a tool. Its turn is an answer, opened
            // by its best token that opens one. Probed on Qwen2.5-Coder-1.5B after the last step of a skill's
            // procedure (the end token first, 50%): turned into a call instead, it called a tool nothing asked for.
            let ends = steer.is_some() && self.is_end(proposal.id());
            if let Some(token) = ends.then(|| self.answer_opening(&allowed)).flatten() {
                return Ok(self.accepted(token));
            }
            let best = self
                .choose(&mut allowed)
                .ok_or_else(|| decode_error("generating", "the grammar allows no next token"))?;
            // Greedy: a rejected proposal that opens nothing (a newline, a space) hands the choice to the
            // best allowed token, unless a call opening the grammar rejects scores higher.
            match steer.filter(|_| self.random.is_none()) {
                Some(steer)
                    if best_logit(context, logits_index, &steer.others)
                        .is_some_and(|logit| logit > best.logit()) =>
                {
                    steer.opening
                }
                _ => best.id(),
            }
        };
        Ok(self.accepted(token))
    }

    /// `token`, fed to the grammar. End-of-generation tokens are never fed: generation stops there,
    /// and llama.cpp's grammar aborts the process if an end token is accepted while the grammar is
    /// incomplete.
    fn accepted(&mut self, token: LlamaToken) -> LlamaToken {
        let end = self.is_end(token);
        if let Some(grammar) = self.grammar.as_mut().filter(|_| !end) {
            grammar.accept(token);
        }
        token
    }

    /// The best token of `allowed` (the grammar applied) that opens an answer rather than a call
    /// ([`opens_an_answer`]), chosen as any token is (greedy or sampled); `None` when the grammar
    /// allows no answer.
    fn answer_opening(&mut self, allowed: &LlamaTokenDataArray) -> Option<LlamaToken> {
        const TRIES: usize = 16;
        let mut refused: Vec<LlamaToken> = Vec::new();
        for _ in 0..TRIES {
            let mut candidates = allowed.clone();
            for candidate in candidates
                .data
                .iter_mut()
                .filter(|candidate| refused.contains(&candidate.id()))
            {
                candidate.set_logit(f32::NEG_INFINITY);
            }
            let best = self.choose(&mut candidates)?;
            if !best.logit().is_finite() {
                return None;
            }
            if opens_an_answer(&self.piece(best.id())) {
                return Some(best.id());
            }
            refused.push(best.id());
        }
        None
    }
}

/// Whether text starting with `piece` can be an answer rather than a call: its first byte is
/// one a final answer may start with ([`crate::grammar`]'s `final-answer`: a letter, a digit, `*`,
/// `#` or a non-ASCII character).
fn opens_an_answer(piece: &[u8]) -> bool {
    piece.first().is_some_and(|&byte| {
        byte.is_ascii_alphanumeric() || byte == b'*' || byte == b'#' || !byte.is_ascii()
    })
}

/// The highest finite logit among `tokens`.
fn best_logit(context: &LlamaContext<'_>, logits_index: i32, tokens: &[LlamaToken]) -> Option<f32> {
    let logits = context.get_logits_ith(logits_index);
    tokens
        .iter()
        .filter_map(|token| usize::try_from(token.0).ok().and_then(|i| logits.get(i)))
        .copied()
        .filter(|logit| logit.is_finite())
        .max_by(f32::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::opens_an_answer;

    #[test]
    fn an_answer_opens_as_the_final_answer_rule_allows() {
        for piece in ["The", "42", "*", "#", "É"] {
            assert!(opens_an_answer(piece.as_bytes()), "{piece}");
        }
        for piece in ["<tool_call>", "<", "{\"", "```", " The", "\n", ""] {
            assert!(!opens_an_answer(piece.as_bytes()), "{piece:?}");
        }
    }
}
