//! Unigram: the best-scoring segmentation (Viterbi), SentencePiece's rules for
//! unknown characters (one fused unknown piece per run) and byte fallback.

use foldhash::HashMap;

use super::byte_tokens;
use super::json::At;
use crate::error::{Error, Result};

const UNK_PENALTY: f64 = 10.0;

#[derive(Debug)]
pub struct Unigram {
    ids: HashMap<String, u32>,
    scores: Vec<f64>,
    /// Byte length of the longest piece: the Viterbi looks no further.
    longest: usize,
    min_score: f64,
    unk: Option<u32>,
    byte_fallback: bool,
}

impl Unigram {
    pub fn parse(at: At<'_, '_>) -> Result<Self> {
        let mut ids = HashMap::default();
        let mut scores = Vec::new();
        let mut longest = 0;
        let mut min_score = f64::INFINITY;
        let items = at.req("vocab")?.at().items()?;
        for item in &items {
            let pair = item.at().items()?;
            let [piece, score] = pair.as_slice() else {
                return Err(item.at().invalid("must be [piece, score]"));
            };
            let (piece, score) = (piece.at().str()?, score.at().f64()?);
            ids.insert(piece.to_owned(), scores.len() as u32);
            longest = longest.max(piece.len());
            min_score = min_score.min(score);
            scores.push(score);
        }
        let unk = match at.get("unk_id") {
            None => None,
            Some(n) => {
                let id = n.at().u32()?;
                if id as usize >= scores.len() {
                    return Err(n.at().invalid(format!("{id} is past the vocabulary")));
                }
                Some(id)
            }
        };
        Ok(Unigram {
            ids,
            scores,
            longest,
            min_score,
            unk,
            byte_fallback: at.flag("byte_fallback", false)?,
        })
    }

    fn unk(&self) -> Result<u32> {
        self.unk.ok_or_else(|| Error::Tokenizer {
            message: "Encountered an unknown token but `unk_id` is missing".into(),
        })
    }

    pub fn vocab(&self) -> &HashMap<String, u32> {
        &self.ids
    }

    /// Appends `(id, byte start in word)` for `word`.
    pub fn tokenize(&self, word: &str, out: &mut Vec<(u32, u32)>) -> Result<()> {
        if word.is_empty() {
            return Ok(());
        }
        let n = word.len();
        // best[e] = (score, start, id) of the best path ending at byte e.
        let mut best: Vec<Option<(f64, usize, u32)>> = vec![None; n + 1];
        best[0] = Some((0.0, 0, 0));
        let unk_score = self.min_score - UNK_PENALTY;
        for (start, c) in word.char_indices() {
            let Some((here, _, _)) = best[start] else {
                continue;
            };
            let mut single = false;
            for (i, ch) in word[start..].char_indices() {
                if i + ch.len_utf8() > self.longest {
                    break;
                }
                let end = start + i + ch.len_utf8();
                if let Some(&id) = self.ids.get(&word[start..end]) {
                    let score = here + self.scores[id as usize];
                    if best[end].is_none_or(|(s, _, _)| score > s) {
                        best[end] = Some((score, start, id));
                    }
                    single |= end - start == c.len_utf8();
                }
            }
            if !single {
                let end = start + c.len_utf8();
                let score = here + unk_score;
                if best[end].is_none_or(|(s, _, _)| score > s) {
                    best[end] = Some((score, start, self.unk()?));
                }
            }
        }
        // Walk back, fusing runs of unknown pieces.
        let mut pieces: Vec<(usize, usize, Option<u32>)> = Vec::new();
        let mut end = n;
        while end > 0 {
            let Some((_, start, id)) = best[end] else {
                return Err(Error::Tokenizer {
                    message: "Unigram: no segmentation".into(),
                });
            };
            let is_unk = Some(id) == self.unk;
            match pieces.last_mut() {
                Some((s, _, None)) if is_unk => *s = start,
                _ => pieces.push((start, end, (!is_unk).then_some(id))),
            }
            end = start;
        }
        for &(a, b, id) in pieces.iter().rev() {
            let piece = &word[a..b];
            // A fused run is looked up whole: it may be a piece after all.
            let id = id.or_else(|| self.ids.get(piece).copied());
            match id {
                Some(id) => out.push((id, a as u32)),
                None => self.unknown(piece, a, out)?,
            }
        }
        Ok(())
    }

    fn unknown(&self, piece: &str, at: usize, out: &mut Vec<(u32, u32)>) -> Result<()> {
        if self.byte_fallback {
            if let Some(bytes) = byte_tokens(&self.ids, piece) {
                out.extend(bytes.into_iter().map(|id| (id, at as u32)));
                return Ok(());
            }
        }
        out.push((self.unk()?, at as u32));
        Ok(())
    }
}
