//! Unigram: the best-scoring segmentation (Viterbi), SentencePiece's rules for
//! unknown characters (one fused unknown piece per run) and byte fallback.

use foldhash::HashMap;

use super::byte_tokens;
use super::json::At;
use crate::error::{Error, Result};

const UNK_PENALTY: f64 = 10.0;

/// The pieces as a byte trie: every piece that starts at a position is found in one
/// walk, as SentencePiece's common-prefix search does.
#[derive(Debug, Default)]
struct Trie {
    /// Per node: its children's range in `edges`, and its piece id (`u32::MAX`: none).
    nodes: Vec<(u32, u32, u32)>,
    /// `(byte, child)`, sorted by byte within each node's range.
    edges: Vec<(u8, u32)>,
}

impl Trie {
    fn new<'a>(pieces: impl Iterator<Item = (&'a str, u32)>) -> Self {
        // Built with child lists, then laid out flat.
        let mut kids: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        let mut ids = vec![u32::MAX];
        for (piece, id) in pieces {
            let mut node = 0;
            for &b in piece.as_bytes() {
                node = match kids[node].binary_search_by_key(&b, |&(k, _)| k) {
                    Ok(i) => kids[node][i].1 as usize,
                    Err(i) => {
                        let child = kids.len() as u32;
                        kids.push(Vec::new());
                        ids.push(u32::MAX);
                        kids[node].insert(i, (b, child));
                        child as usize
                    }
                };
            }
            ids[node] = id;
        }
        let mut trie = Trie::default();
        for (list, id) in kids.iter().zip(ids) {
            let start = trie.edges.len() as u32;
            trie.edges.extend_from_slice(list);
            trie.nodes.push((start, list.len() as u32, id));
        }
        trie
    }

    /// Calls `f(end, id)` for every piece that is a prefix of `bytes`, shortest first.
    fn prefixes(&self, bytes: &[u8], mut f: impl FnMut(usize, u32)) {
        let mut node = 0usize;
        for (i, &b) in bytes.iter().enumerate() {
            let (start, len, _) = self.nodes[node];
            let edges = &self.edges[start as usize..(start + len) as usize];
            match edges.binary_search_by_key(&b, |&(k, _)| k) {
                Ok(k) => node = edges[k].1 as usize,
                Err(_) => return,
            }
            let id = self.nodes[node].2;
            if id != u32::MAX {
                f(i + 1, id);
            }
        }
    }
}

#[derive(Debug)]
pub struct Unigram {
    ids: HashMap<String, u32>,
    trie: Trie,
    scores: Vec<f64>,
    min_score: f64,
    unk: Option<u32>,
    byte_fallback: bool,
}

impl Unigram {
    pub fn parse(at: At<'_, '_>) -> Result<Self> {
        let mut ids = HashMap::default();
        let mut scores = Vec::new();
        let mut min_score = f64::INFINITY;
        let items = at.req("vocab")?.at().items()?;
        for item in &items {
            let pair = item.at().items()?;
            let [piece, score] = pair.as_slice() else {
                return Err(item.at().invalid("must be [piece, score]"));
            };
            let (piece, score) = (piece.at().str()?, score.at().f64()?);
            ids.insert(piece.to_owned(), scores.len() as u32);
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
        // A repeated piece answers with its last id, as a map built in order does.
        let trie = Trie::new(ids.iter().map(|(p, &id)| (p.as_str(), id)));
        Ok(Unigram {
            ids,
            trie,
            scores,
            min_score,
            unk,
            byte_fallback: at.flag("byte_fallback", false)?,
        })
    }

    /// Replaces the scores read from the JSON with `scores` (one per piece, in order).
    ///
    /// serde_json's default float parser, which `tokenizers` also uses, is not correctly
    /// rounded: a score can move by one ulp and flip a near-tie. An in-memory model's
    /// exact scores come from a correctly rounded parser (Python's) through here.
    pub fn set_scores(&mut self, scores: &[f64]) -> Result<()> {
        if scores.len() != self.scores.len() {
            return Err(Error::Tokenizer {
                message: format!(
                    "unigram_scores has {} scores for {} pieces",
                    scores.len(),
                    self.scores.len()
                ),
            });
        }
        if let Some(bad) = scores.iter().find(|s| s.is_nan()) {
            return Err(Error::Tokenizer {
                message: format!("unigram_scores must be numbers, got {bad}"),
            });
        }
        self.scores = scores.to_vec();
        self.min_score = scores.iter().copied().fold(f64::INFINITY, f64::min);
        Ok(())
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
            self.trie.prefixes(&word.as_bytes()[start..], |len, id| {
                let end = start + len;
                let score = here + self.scores[id as usize];
                if best[end].is_none_or(|(s, _, _)| score > s) {
                    best[end] = Some((score, start, id));
                }
                single |= len == c.len_utf8();
            });
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
