//! A native engine for Hugging Face `tokenizer.json` files: the same ids and offsets as
//! the `tokenizers` library, without Python, for the pipelines open embedding models use.
//!
//! The text goes through `tokenizers`' stages in its order: added tokens are cut out,
//! each remaining piece is normalized (`normalize.rs`, which keeps every byte's original
//! offset), pre-tokenized into words (`pretokenize.rs`), and each word goes through the
//! model (`wordpiece.rs`, `bpe.rs`, `unigram.rs`). A component this engine does not run
//! is an [`Error::UnsupportedTokenizer`] naming its JSON path, so the caller can fall
//! back to `tokenizers` itself.
//!
//! Performance: words repeat, so each thread keeps a bounded memo of word -> tokens
//! for the tokenizer it last ran (documents of one corpus share most words); ASCII text
//! skips the Unicode normalizers it cannot change.

#![forbid(unsafe_code)]

mod added;
mod bpe;
mod json;
mod normalize;
mod pattern;
mod pretokenize;
pub mod stream;
mod unigram;
mod wordpiece;

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;
use serde_json::Value;
use unicode_segmentation::GraphemeCursor;

use self::added::{AddedTokens, Piece};
use self::bpe::Bpe;
use self::json::At;
use self::normalize::{Normalized, Normalizer};
use self::pretokenize::{PreTokenizer, Scratch, Words};
use self::unigram::Unigram;
use self::wordpiece::WordPiece;
use crate::error::{Error, Result};
use crate::tokenizer::{check_len, Encoded};

#[derive(Debug)]
enum Model {
    /// One id per word (`[UNK]` for the rest).
    WordLevel {
        vocab: HashMap<String, u32>,
        unk: String,
    },
    WordPiece(WordPiece),
    Bpe(Bpe),
    Unigram(Unigram),
}

impl Model {
    fn parse(at: At<'_, '_>) -> Result<Self> {
        let kind = at.kind()?;
        Ok(match kind {
            "WordLevel" => Model::WordLevel {
                vocab: vocab(at)?,
                unk: at.opt_str("unk_token")?.unwrap_or("<unk>").to_owned(),
            },
            "WordPiece" => Model::WordPiece(WordPiece::parse(at, vocab(at)?)?),
            "BPE" => Model::Bpe(Bpe::parse(at, vocab(at)?)?),
            "Unigram" => Model::Unigram(Unigram::parse(at)?),
            other => return Err(at.unsupported("type", format!("model {other:?}"))),
        })
    }

    /// Each id's count of leading spaces (`Ġ` or whitespace), for `trim_offsets`.
    fn leading_spaces(&self) -> Vec<u8> {
        let mut table = Vec::new();
        let mut set = |token: &str, id: u32| {
            let n = token
                .chars()
                .take_while(|&c| c == '\u{120}' || c.is_whitespace())
                .count();
            let id = id as usize;
            if n > 0 {
                if table.len() <= id {
                    table.resize(id + 1, 0);
                }
                table[id] = n.min(255) as u8;
            }
        };
        match self {
            Model::WordLevel { vocab, .. } => vocab.iter().for_each(|(t, &id)| set(t, id)),
            Model::WordPiece(m) => m.vocab().iter().for_each(|(t, &id)| set(t, id)),
            Model::Bpe(m) => m.vocab().iter().for_each(|(t, &id)| set(t, id)),
            Model::Unigram(m) => m.vocab().iter().for_each(|(t, &id)| set(t, id)),
        }
        table
    }

    fn tokenize(&self, word: &str, out: &mut Vec<(u32, u32)>) -> Result<()> {
        match self {
            Model::WordLevel { vocab, unk } => {
                let id =
                    vocab
                        .get(word)
                        .or_else(|| vocab.get(unk))
                        .ok_or_else(|| Error::Tokenizer {
                            message: "WordLevel error: Missing [UNK] token from the vocabulary"
                                .into(),
                        })?;
                out.push((*id, 0));
                Ok(())
            }
            Model::WordPiece(m) => m.tokenize(word, out),
            Model::Bpe(m) => m.tokenize(word, out),
            Model::Unigram(m) => m.tokenize(word, out),
        }
    }
}

/// SentencePiece's byte fallback: the ids of `<0xAB>` for each byte of `piece`, if the
/// vocabulary has every one.
fn byte_tokens(vocab: &HashMap<String, u32>, piece: &str) -> Option<Vec<u32>> {
    piece
        .bytes()
        .map(|b| vocab.get(&format!("<0x{b:02X}>")).copied())
        .collect()
}

/// A `{"token": id}` vocabulary.
fn vocab(at: At<'_, '_>) -> Result<HashMap<String, u32>> {
    let node = at.req("vocab")?;
    let map = node
        .value
        .as_object()
        .ok_or_else(|| node.at().invalid("must be an object of token -> id"))?;
    let mut vocab = HashMap::with_capacity(map.len());
    for (token, id) in map {
        let id = id
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| {
                node.at().invalid(format!(
                    "{token:?} must map to an id, got {}",
                    json::short(id)
                ))
            })?;
        vocab.insert(token.clone(), id);
    }
    Ok(vocab)
}

/// `Some(add_prefix_space)` when the post-processor trims spaces off token offsets
/// (`RobertaProcessing` and `ByteLevel` with `trim_offsets`).
fn trims(at: Option<At<'_, '_>>) -> Result<Option<bool>> {
    let Some(at) = at else { return Ok(None) };
    match at.kind()? {
        "RobertaProcessing" | "ByteLevel" if at.flag("trim_offsets", true)? => {
            Ok(Some(at.flag("add_prefix_space", true)?))
        }
        "Sequence" => {
            let mut out = None;
            for item in at.req("processors")?.at().items()? {
                out = out.or(trims(Some(item.at()))?);
            }
            Ok(out)
        }
        _ => Ok(None),
    }
}

/// How many special tokens the post-processor adds around one sequence.
fn specials(at: Option<At<'_, '_>>) -> Result<usize> {
    let Some(at) = at else { return Ok(0) };
    Ok(match at.kind()? {
        "BertProcessing" | "RobertaProcessing" => 2,
        "ByteLevel" => 0,
        "Sequence" => {
            let mut n = 0;
            for item in at.req("processors")?.at().items()? {
                n += specials(Some(item.at()))?;
            }
            n
        }
        "TemplateProcessing" => {
            let table = at.req("special_tokens")?;
            let mut n = 0;
            for item in at.req("single")?.at().items()? {
                let Some(special) = item.at().get("SpecialToken") else {
                    continue;
                };
                let name = special.at().req("id")?.at().str()?;
                let entry = table.at().get(name).ok_or_else(|| {
                    special
                        .at()
                        .invalid(format!("{name:?} is not in special_tokens"))
                })?;
                n += entry.at().req("ids")?.at().items()?.len();
            }
            n
        }
        other => return Err(at.unsupported("type", format!("post-processor {other:?}"))),
    })
}

/// A loaded `tokenizer.json`.
#[derive(Debug)]
pub struct HfTokenizer {
    added: AddedTokens,
    normalizers: Vec<Normalizer>,
    pre: Vec<PreTokenizer>,
    model: Model,
    specials: usize,
    /// `trim_offsets`: `add_prefix_space`, and each id's leading spaces.
    trim: Option<(bool, Vec<u8>)>,
    /// This tokenizer's key in each thread's memo.
    id: u64,
    /// With a `Replace` that may join characters across a word boundary: the steps
    /// whose effect at such a boundary is checked (`Prepend` and `Strip` left out).
    joining: Option<Vec<usize>>,
    /// Settles most of those checks from the two characters at the boundary.
    join_hint: Option<JoinHint>,
}

/// When the one joining step's matches are runs of one character (SentencePiece's
/// `Replace(" {2,}", " ")`), a match crosses a boundary only with that character on both
/// sides of it. Where each side's character next to the boundary is an ASCII grapheme of
/// its own, every other step acts on it alone (no grapheme, composition or `Precompiled`
/// entry spans it), so the two characters' own normalizations settle the check: apart
/// unless both end in the run's character, and joined when they do if the step collapses
/// every run of two or more into one character.
#[derive(Debug)]
struct JoinHint {
    run: char,
    collapses: bool,
    /// A last step replacing each `k` copies of the run's ASCII character by one, which
    /// the steps before it leave as it is: `(the byte, k)`. Across a run of spaces cut
    /// into `L` and `R` (bounded by characters the steps do not make spaces), the whole
    /// and the two sides then normalize alike unless `L / k + R / k != (L + R) / k`.
    literal: Option<(u8, usize)>,
    /// The steps before the joining one.
    prior: Vec<usize>,
    /// For each ASCII character: the first and last characters the `prior` steps make of
    /// it (`None` when they remove it).
    ends: Vec<Option<(char, char)>>,
}

/// The first and last characters the `prior` steps make of a grapheme (`None` when they
/// remove it), by grapheme: the text a joining check is settled for repeats its graphemes.
type LastChars = HashMap<String, Option<(char, char)>>;

impl JoinHint {
    fn new(normalizers: &[Normalizer], steps: &[usize]) -> Option<Self> {
        let mut joining = steps.iter().filter(|&&i| normalizers[i].may_join());
        let at = *joining.next()?;
        if joining.next().is_some() {
            return None;
        }
        let (run, collapses) = normalizers[at].run_of()?;
        let prior: Vec<usize> = steps.iter().copied().take_while(|&i| i != at).collect();
        let ends = (0u8..128)
            .map(|b| {
                let n = normalized(normalizers, &prior, char::from(b).encode_utf8(&mut [0; 4]));
                Some((n.chars().next()?, n.chars().next_back()?))
            })
            .collect();
        let last = steps.last() == Some(&at);
        let literal = normalizers[at].literal_run().and_then(|(c, k)| {
            let byte = u8::try_from(u32::from(c)).ok().filter(u8::is_ascii)?;
            let fixed =
                normalized(normalizers, &prior, c.encode_utf8(&mut [0; 4])) == c.to_string();
            (last && fixed).then_some((byte, k))
        });
        Some(JoinHint {
            run: run.c,
            // A later step could map the two sides' runs and the whole's alike.
            collapses: collapses && last,
            literal,
            prior,
            ends,
        })
    }

    /// Whether the step joins across `p` in `text[a..b]` (`None`: the characters there
    /// cannot tell).
    fn settle(
        &self,
        normalizers: &[Normalizer],
        text: &str,
        (a, p, end): (usize, usize, usize),
        cache: &mut LastChars,
    ) -> Option<bool> {
        let b = text.as_bytes();
        let crlf = |i: usize| i + 1 < b.len() && b[i] == b'\r' && b[i + 1] == b'\n';
        let (l, r) = (*b.get(p.checked_sub(1)?)?, *b.get(p)?);
        // A grapheme boundary at `p` (between two ASCII characters: unless CR LF), and
        // the right side's first grapheme is the ASCII character `r` alone.
        if !r.is_ascii() || crlf(p - 1) || (!l.is_ascii() && !boundary(text, p)) {
            return None;
        }
        let alone = match b.get(p + 1) {
            None => true,
            Some(n) if n.is_ascii() => !crlf(p),
            Some(_) => boundary(text, p + 1),
        };
        if !alone {
            return None;
        }
        let (first, _) = self.ends[r as usize]?;
        // The left side's last grapheme, as the steps before the joining one make it
        // (graphemes are normalized alone: no step reaches across their boundaries).
        let lone = l.is_ascii()
            && (p == 1
                || (b[p - 2].is_ascii() && !crlf(p - 2))
                || (!b[p - 2].is_ascii() && boundary(text, p - 1)));
        let last = if lone {
            self.ends[l as usize]?.1
        } else {
            let start = GraphemeCursor::new(p, text.len(), true)
                .prev_boundary(text, 0)
                .ok()??;
            // The grapheme must lie in the window: a part of one may normalize otherwise.
            let g = text.get(start.max(a)..p).filter(|_| start >= a)?;
            self.grapheme_ends(normalizers, g, cache)?.1
        };
        if last != self.run || first != self.run {
            return Some(false);
        }
        if self.collapses {
            return Some(true);
        }
        self.literal_joins(normalizers, text, (a, p, end), cache)
    }

    /// What the `prior` steps make of grapheme `g`'s ends (`None` when they remove it, or
    /// for a grapheme too long to keep).
    fn grapheme_ends(
        &self,
        normalizers: &[Normalizer],
        g: &str,
        cache: &mut LastChars,
    ) -> Option<(char, char)> {
        if let [x] = g.as_bytes() {
            return self.ends.get(usize::from(*x)).copied().flatten();
        }
        if g.len() > 16 {
            return None;
        }
        if !cache.contains_key(g) {
            let n = normalized(normalizers, &self.prior, g);
            let ends = n.chars().next().zip(n.chars().next_back());
            cache.insert(g.to_owned(), ends);
        }
        cache[g]
    }

    /// [`JoinHint::literal`]'s rule at `p`, where both neighbours are its character.
    fn literal_joins(
        &self,
        normalizers: &[Normalizer],
        text: &str,
        (a, p, end): (usize, usize, usize),
        cache: &mut LastChars,
    ) -> Option<bool> {
        let (c, k) = self.literal?;
        let b = text.as_bytes();
        if b.get(p - 1) != Some(&c) || b.get(p) != Some(&c) {
            return None;
        }
        let left = b[a..p].iter().rev().take_while(|&&x| x == c).count();
        let right = b[p..end].iter().take_while(|&&x| x == c).count();
        // Each bound of the run is the window's edge or a whole grapheme of the window that
        // the prior steps keep and do not end (start) with `c`: the run is what it looks.
        let c = char::from(c);
        let (lb, rb) = (p - left, p + right);
        if lb > a {
            let start = GraphemeCursor::new(lb, text.len(), true)
                .prev_boundary(text, 0)
                .ok()??;
            let g = text
                .get(start..lb)
                .filter(|_| start >= a && boundary(text, lb))?;
            if self.grapheme_ends(normalizers, g, cache)?.1 == c {
                return None;
            }
        }
        if rb < end {
            let stop = GraphemeCursor::new(rb, text.len(), true)
                .next_boundary(text, 0)
                .ok()??;
            let g = text
                .get(rb..stop)
                .filter(|_| stop <= end && boundary(text, rb))?;
            if self.grapheme_ends(normalizers, g, cache)?.0 == c {
                return None;
            }
        }
        Some(left / k + right / k != (left + right) / k)
    }
}

/// `s` through the normalizer steps `steps`.
fn normalized(normalizers: &[Normalizer], steps: &[usize], s: &str) -> String {
    let mut n = Normalized::new(s, 0);
    for &i in steps {
        normalizers[i].apply(&mut n);
    }
    n.text
}

/// How far on each side of a word boundary the joining check reads.
const JOIN_WINDOW: usize = 64;

/// A grapheme boundary at byte `at` of `text`.
fn boundary(text: &str, at: usize) -> bool {
    GraphemeCursor::new(at, text.len(), true)
        .is_boundary(text, 0)
        .unwrap_or(false)
}

/// A thread's memo of word -> tokens for one tokenizer, and the bytes it holds.
#[derive(Default)]
struct Memo {
    id: u64,
    words: HashMap<String, Vec<(u32, u32)>>,
    bytes: usize,
}

impl Memo {
    /// Keeps `tokens` for `word`, emptying the memo first if it would pass `MEMO_BYTES`.
    fn keep(&mut self, word: &str, tokens: &[(u32, u32)]) {
        let size = MEMO_ENTRY + word.len() + std::mem::size_of_val(tokens);
        if self.bytes + size > MEMO_BYTES {
            // A new map, not `clear`: that would keep the table's memory.
            self.words = HashMap::new();
            self.bytes = 0;
        }
        self.words.insert(word.to_owned(), tokens.to_vec());
        self.bytes += size;
    }
}

thread_local! {
    /// The memos of the tokenizers this thread used last, least recent first.
    static MEMOS: RefCell<Vec<Memo>> = const { RefCell::new(Vec::new()) };
}

/// Bytes one tokenizer's memo holds on one thread before it is emptied: its words, their
/// tokens, and `MEMO_ENTRY` for each entry's map slot and allocations.
const MEMO_BYTES: usize = 8 << 20;
/// Per entry beyond the word and its tokens: the map slot (two 24-byte headers and a
/// control byte, at the map's load) and two allocations.
const MEMO_ENTRY: usize = 96;
/// Tokenizers a thread keeps a memo for: the least recently used one beyond these is
/// dropped, so a thread holds at most `MEMO_MODELS * MEMO_BYTES` (32 MB), and switching
/// between models empties none of them.
const MEMO_MODELS: usize = 4;

/// Gives each loaded tokenizer its own memo key.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Words longer than this are tokenized without the memo.
const MEMO_WORD: usize = 64;

impl HfTokenizer {
    /// Parses a `tokenizer.json` document.
    ///
    /// # Errors
    /// [`Error::TokenizerJson`] for malformed JSON or values, naming the JSON path;
    /// [`Error::UnsupportedTokenizer`] for a component this engine does not run.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::TokenizerJson {
            path: "(document)".into(),
            reason: format!("is not valid JSON: {e}"),
        })?;
        let root = At::root(&value);
        if !value.is_object() {
            return Err(root.invalid("must be an object"));
        }
        let mut normalizers = Vec::new();
        if let Some(n) = root.get("normalizer") {
            Normalizer::parse(n.at(), &mut normalizers)?;
        }
        let mut pre = Vec::new();
        if let Some(p) = root.get("pre_tokenizer") {
            PreTokenizer::parse(p.at(), &mut pre)?;
        }
        let model = Model::parse(root.req("model")?.at())?;
        let post = root.get("post_processor");
        let specials = specials(post.as_ref().map(|n| n.at()))?;
        let trim = trims(post.as_ref().map(|n| n.at()))?.map(|p| (p, model.leading_spaces()));
        let added = root.get("added_tokens");
        let added = AddedTokens::parse(added.as_ref().map(|n| n.at()), &normalizers)?;
        let joining: Option<Vec<usize>> = normalizers.iter().any(Normalizer::may_join).then(|| {
            (0..normalizers.len())
                .filter(|&i| !normalizers[i].is_edge())
                .collect()
        });
        let join_hint = joining
            .as_ref()
            .and_then(|steps| JoinHint::new(&normalizers, steps));
        Ok(HfTokenizer {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            joining,
            join_hint,
            added,
            normalizers,
            pre,
            model,
            specials,
            trim,
        })
    }

    /// [`HfTokenizer::from_json`], with a Unigram model's scores taken from `scores`
    /// rather than the document's text (see [`Unigram::set_scores`]).
    ///
    /// # Errors
    /// As `from_json`, and [`Error::Tokenizer`] when the model is not Unigram or the
    /// scores are not one number per piece.
    pub fn from_json_with_scores(text: &str, scores: &[f64]) -> Result<Self> {
        let mut tok = Self::from_json(text)?;
        match &mut tok.model {
            Model::Unigram(m) => m.set_scores(scores)?,
            _ => {
                return Err(Error::Tokenizer {
                    message: "unigram_scores given for a model that is not Unigram".into(),
                })
            }
        }
        Ok(tok)
    }

    /// Special tokens the post-processor adds to one sequence.
    pub fn special_tokens(&self) -> usize {
        self.specials
    }

    /// Ids and the original byte offset where each token starts (as
    /// `tokenizers.Tokenizer.encode(text, add_special_tokens=False)`).
    ///
    /// # Errors
    /// The model meets an unknown word and has no unknown token, or the text is 4 GiB.
    pub fn encode(&self, text: &str) -> Result<Encoded> {
        let (mut out, _) = self.run(text, true)?;
        if let Some((prefix, table)) = &self.trim {
            trim_offsets(&mut out, *prefix, table, text.len());
        }
        Ok(out)
    }

    /// Token starts for chunking, and whether each token begins a word (a pre-token or
    /// an added token). Starts are not trimmed by the post-processor: a token owns the
    /// spaces it encodes, so a cut at a word's first token re-encodes exactly.
    ///
    /// # Errors
    /// As [`HfTokenizer::encode`].
    pub fn chunk_tokens(&self, text: &str) -> Result<(Vec<u32>, Vec<bool>)> {
        self.chunk_tokens_from(text, true)
    }

    /// [`HfTokenizer::chunk_tokens`] of a piece of a longer text: `at_start` says whether
    /// it opens the text (where `Metaspace` with `prepend_scheme: first` prepends).
    ///
    /// # Errors
    /// As [`HfTokenizer::encode`].
    pub fn chunk_tokens_from(&self, text: &str, at_start: bool) -> Result<(Vec<u32>, Vec<bool>)> {
        let (out, mut words) = self.run(text, at_start)?;
        if let Some(steps) = &self.joining {
            self.unjoin(text, &out.byte_starts, &mut words, steps);
        }
        Ok((out.byte_starts, words))
    }

    /// Whether `text` may be tokenized as two texts cut at `p` with the same tokens near
    /// `p`: the tokens (and word flags) of `text[a..b]` equal those of its two sides, and
    /// no normalizer joins across `p`. A stream cuts only where this holds. Returns where
    /// the first token after `p` starts (white space a tokenizer drops may lie between).
    pub(crate) fn separable(
        &self,
        text: &str,
        a: usize,
        p: usize,
        b: usize,
        at_start: bool,
    ) -> Result<Option<usize>> {
        let (whole, whole_words) = self.run(&text[a..b], at_start)?;
        let (left, left_words) = self.run(&text[a..p], at_start)?;
        let (right, right_words) = self.run(&text[p..b], false)?;
        let Some(&first) = right.byte_starts.first() else {
            return Ok(None);
        };
        let shift = (p - a) as u32;
        let same = whole.ids.len() == left.ids.len() + right.ids.len()
            && whole.ids.iter().eq(left.ids.iter().chain(&right.ids))
            && whole.byte_starts.iter().copied().eq(left
                .byte_starts
                .iter()
                .copied()
                .chain(right.byte_starts.iter().map(|s| s + shift)))
            && whole_words.iter().eq(left_words.iter().chain(&right_words));
        let joined = self
            .joining
            .as_ref()
            .is_some_and(|steps| self.joined(text, (a, p, b), steps, &mut LastChars::new()));
        Ok((same && !joined).then_some(p + first as usize))
    }

    /// The normalizer steps `steps` join across `p` inside `text[a..b]`.
    fn joined(
        &self,
        text: &str,
        window: (usize, usize, usize),
        steps: &[usize],
        cache: &mut LastChars,
    ) -> bool {
        let hint = self.join_hint.as_ref();
        match hint.and_then(|h| h.settle(&self.normalizers, text, window, cache)) {
            Some(joined) => joined,
            None => self.joined_in_full(text, window, steps),
        }
    }

    /// [`HfTokenizer::joined`] by normalizing both sides and the whole.
    fn joined_in_full(
        &self,
        text: &str,
        (a, p, b): (usize, usize, usize),
        steps: &[usize],
    ) -> bool {
        let norm = |s: &str| normalized(&self.normalizers, steps, s);
        let (left, right) = (norm(&text[a..p]), norm(&text[p..b]));
        let both = norm(&text[a..b]);
        both.len() != left.len() + right.len()
            || !both.starts_with(&left)
            || !both.ends_with(&right)
    }

    /// Clears the word flag of every boundary the normalizer joins across (a `Replace`
    /// that matches on both sides, such as `" {2,}"` after a newline mapped to a space):
    /// cut there, each side would normalize differently alone.
    fn unjoin(&self, text: &str, starts: &[u32], words: &mut [bool], steps: &[usize]) {
        let firsts: Vec<usize> = (0..starts.len()).filter(|&i| words[i]).collect();
        let mut cache = LastChars::new();
        for (k, &i) in firsts.iter().enumerate().skip(1) {
            let p = starts[i] as usize;
            let mut a = (starts[firsts[k - 1]] as usize).max(p.saturating_sub(JOIN_WINDOW));
            while !text.is_char_boundary(a) {
                a += 1;
            }
            let next = firsts
                .get(k + 1)
                .map_or(text.len(), |&j| starts[j] as usize);
            let mut b = next.min(p + JOIN_WINDOW).min(text.len());
            while !text.is_char_boundary(b) {
                b -= 1;
            }
            if a < p && p < b && self.joined(text, (a, p, b), steps, &mut cache) {
                words[i] = false;
            }
        }
    }

    fn run(&self, text: &str, at_start: bool) -> Result<(Encoded, Vec<bool>)> {
        check_len(text)?;
        MEMOS.with(|memos| {
            let Ok(mut memos) = memos.try_borrow_mut() else {
                // A callback tokenizing again on this thread: a memo of its own.
                return self.run_with(text, at_start, &mut Memo::default());
            };
            let mut memo = match memos.iter().position(|m| m.id == self.id) {
                Some(i) => memos.remove(i),
                None => Memo {
                    id: self.id,
                    ..Memo::default()
                },
            };
            let result = self.run_with(text, at_start, &mut memo);
            if memos.len() == MEMO_MODELS {
                memos.remove(0);
            }
            memos.push(memo);
            result
        })
    }

    fn run_with(
        &self,
        text: &str,
        at_start: bool,
        memo: &mut Memo,
    ) -> Result<(Encoded, Vec<bool>)> {
        let mut out = Encoded::default();
        let mut words = Vec::new();
        let mut scratch = Vec::new();
        let mut split_scratch = Scratch::default();
        let mut raw = Vec::new();
        self.added.split_raw(Normalized::new(text, 0), &mut raw);
        // An added token is a word of one token.
        let token = |out: &mut Encoded, words: &mut Vec<bool>, id: u32, start: u32| {
            out.ids.push(id);
            out.byte_starts.push(start);
            words.push(true);
        };
        for piece in raw {
            let mut normalized = match piece {
                Piece::Token { id, start } => {
                    token(&mut out, &mut words, id, start);
                    continue;
                }
                Piece::Text(n) => n,
            };
            for step in &self.normalizers {
                step.apply(&mut normalized);
            }
            let mut pieces = Vec::new();
            self.added.split_normalized(normalized, &mut pieces);
            for piece in pieces {
                let mut pre_tokens = match piece {
                    Piece::Token { id, start } => {
                        token(&mut out, &mut words, id, start);
                        continue;
                    }
                    Piece::Text(n) => Words::new(n, at_start),
                };
                for step in &self.pre {
                    step.apply(&mut pre_tokens, &mut split_scratch);
                }
                for i in 0..pre_tokens.spans.len() {
                    let (word, starts) = pre_tokens.word(i);
                    let before = out.ids.len();
                    self.word(word, starts, memo, &mut scratch, &mut out)?;
                    words.extend((before..out.ids.len()).map(|i| i == before));
                }
            }
        }
        Ok((out, words))
    }

    fn word(
        &self,
        word: &str,
        starts: &[u32],
        memo: &mut Memo,
        scratch: &mut Vec<(u32, u32)>,
        out: &mut Encoded,
    ) -> Result<()> {
        let known = if word.len() <= MEMO_WORD {
            memo.words.get(word)
        } else {
            None
        };
        let tokens: &[(u32, u32)] = match known {
            Some(tokens) => tokens,
            None => {
                scratch.clear();
                self.model.tokenize(word, scratch)?;
                if word.len() <= MEMO_WORD {
                    memo.keep(word, scratch);
                }
                scratch
            }
        };
        let last = starts.len().saturating_sub(1);
        for &(id, rel) in tokens {
            out.ids.push(id);
            out.byte_starts.push(starts[(rel as usize).min(last)]);
        }
        Ok(())
    }

    /// The number of tokens in `text`.
    ///
    /// # Errors
    /// As [`HfTokenizer::encode`].
    pub fn count(&self, text: &str) -> Result<usize> {
        Ok(self.run(text, true)?.0.ids.len())
    }

    /// [`HfTokenizer::count`] of each text, in parallel.
    ///
    /// # Errors
    /// The first text that fails.
    pub fn count_batch(&self, texts: &[&str]) -> Result<Vec<usize>> {
        texts.par_iter().map(|t| self.count(t)).collect()
    }
}

/// `byte_level::process_offsets` on starts: a token's start moves past its leading
/// spaces, except the one space `add_prefix_space` put before the first token.
fn trim_offsets(out: &mut Encoded, add_prefix_space: bool, table: &[u8], len: usize) {
    for (i, (&id, start)) in out.ids.iter().zip(&mut out.byte_starts).enumerate() {
        let lead = table.get(id as usize).copied().unwrap_or(0) as u32;
        if lead == 0 || (add_prefix_space && lead == 1 && (i == 0 || *start == 0)) {
            continue;
        }
        *start = (*start + lead).min(len as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BERT: &str = r###"{
      "added_tokens": [{"id": 1, "content": "[SEP]", "single_word": false, "lstrip": false,
                        "rstrip": false, "normalized": false, "special": true}],
      "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                     "strip_accents": null, "lowercase": true},
      "pre_tokenizer": {"type": "BertPreTokenizer"},
      "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 1], "cls": ["[CLS]", 2]},
      "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
                "vocab": {"[UNK]": 0, "[SEP]": 1, "[CLS]": 2, "play": 3, "##ing": 4, "!": 5, "cafe": 6}}
    }"###;

    /// SentencePiece's joining `Replace` after other steps: `Precompiled` is not here,
    /// so NFKC and the BERT cleaner (which pads CJK with spaces) stand before it.
    fn joining(prior: &str) -> HfTokenizer {
        joining_with(prior, r#"{"Regex": " {2,}"}"#)
    }

    /// The same with another pattern for the `Replace` (`{"String": "  "}`, T5-style).
    fn joining_with(prior: &str, pattern: &str) -> HfTokenizer {
        let json = format!(
            r#"{{"normalizer": {{"type": "Sequence", "normalizers": [{prior},
                {{"type": "Replace", "pattern": {pattern}, "content": " "}}]}},
              "pre_tokenizer": {{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"}},
              "model": {{"type": "WordLevel", "vocab": {{"[UNK]": 0}}, "unk_token": "[UNK]"}}}}"#
        );
        HfTokenizer::from_json(&json).unwrap()
    }

    proptest::proptest! {
        /// Wherever the hint settles a joining check, it says what normalizing both sides
        /// and the whole says.
        #[test]
        fn the_join_hint_agrees_with_the_full_check(
            text in "[ a\n\r\t\u{3000}\u{301}\u{600}\u{ff76}\u{ff9e}中é\u{1100}\u{1161}]{0,24}",
            prior in 0usize..2,
            pattern in 0usize..3,
        ) {
            let prior = ["{\"type\": \"NFKC\"}",
                         "{\"type\": \"BertNormalizer\", \"clean_text\": true, \"handle_chinese_chars\": true, \"strip_accents\": false, \"lowercase\": false}"][prior];
            let pattern = [r#"{"Regex": " {2,}"}"#, r#"{"String": "  "}"#, r#"{"String": "   "}"#][pattern];
            let tok = joining_with(prior, pattern);
            let hint = tok.join_hint.as_ref().unwrap();
            let steps = tok.joining.as_ref().unwrap();
            let mut cache = LastChars::new();
            let points: Vec<usize> = (0..=text.len()).filter(|&p| text.is_char_boundary(p)).collect();
            // Every window a..b around every point p.
            for (i, &p) in points.iter().enumerate() {
                for &a in &points[..i] {
                    for &b in points[i + 1..].iter() {
                        if let Some(settled) = hint.settle(&tok.normalizers, &text, (a, p, b), &mut cache) {
                            let full = tok.joined_in_full(&text, (a, p, b), steps);
                            proptest::prop_assert_eq!(settled, full, "{}..{}..{} of {:?}", a, p, b, text);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_join_hint_settles_the_usual_boundaries() {
        let tok = joining(r#"{"type": "NFKC"}"#);
        let hint = tok.join_hint.as_ref().unwrap();
        let mut cache = LastChars::new();
        let mut settle = |text: &str, p: usize| {
            hint.settle(&tok.normalizers, text, (0, p, text.len()), &mut cache)
        };
        assert_eq!(settle("a b", 1), Some(false));
        assert_eq!(settle("a  b", 2), Some(true));
        assert_eq!(settle("中 b", 3), Some(false));
        assert_eq!(
            settle("\u{3000} b", 3),
            Some(true),
            "NFKC makes U+3000 a space"
        );
        assert_eq!(
            settle("e\u{301} b", 3),
            Some(false),
            "the grapheme e + accent, alone"
        );
        assert_eq!(
            settle(" \u{301}", 1),
            None,
            "an accent on the right side's space"
        );
    }

    #[test]
    fn a_literal_pair_of_spaces_is_settled_by_the_run_lengths() {
        let tok = joining_with(r#"{"type": "NFKC"}"#, r#"{"String": "  "}"#);
        let hint = tok.join_hint.as_ref().unwrap();
        let mut cache = LastChars::new();
        let mut settle = |text: &str, p: usize| {
            hint.settle(&tok.normalizers, text, (0, p, text.len()), &mut cache)
        };
        // Left L and right R spaces: joined unless L / 2 + R / 2 == (L + R) / 2.
        assert_eq!(settle("a  b", 2), Some(true));
        assert_eq!(settle("a   b", 2), Some(false));
        assert_eq!(settle("a   b", 3), Some(false));
        assert_eq!(settle("\n    x", 3), Some(false));
        assert_eq!(settle("\n      x", 2), Some(true));
        // A neighbour the prior steps make a space (NFKC: U+3000) leaves it to the full check.
        assert_eq!(settle("\u{3000}  b", 4), None);
        assert_eq!(settle("a  \u{3000}", 2), None);
    }

    /// Each tokenizer keeps its own memo on a thread: using another does not empty it,
    /// and past `MEMO_MODELS` tokenizers the least recently used memo goes.
    #[test]
    fn memos_are_per_tokenizer_and_the_oldest_goes() {
        let memo_of = |tok: &HfTokenizer| {
            MEMOS.with_borrow(|m| m.iter().find(|x| x.id == tok.id).map(|x| x.words.len()))
        };
        let toks: Vec<HfTokenizer> = (0..=MEMO_MODELS)
            .map(|_| HfTokenizer::from_json(BERT).unwrap())
            .collect();
        toks[0].encode("playing cafe").unwrap();
        assert_eq!(memo_of(&toks[0]), Some(2));
        toks[1].encode("cafe").unwrap();
        assert_eq!(
            memo_of(&toks[0]),
            Some(2),
            "another tokenizer's call keeps it"
        );
        for tok in &toks[1..] {
            tok.encode("play").unwrap();
        }
        assert_eq!(
            memo_of(&toks[0]),
            None,
            "the least recently used of five went"
        );
        assert_eq!(MEMOS.with_borrow(Vec::len), MEMO_MODELS);
    }

    /// A memo holds at most `MEMO_BYTES`, counted per entry.
    #[test]
    fn a_memo_is_bounded_in_bytes() {
        let mut memo = Memo::default();
        let tokens = vec![(7, 0); 1000];
        for i in 0..2 * MEMO_BYTES / (8 * 1000) {
            memo.keep(&format!("w{i}"), &tokens);
            assert!(memo.bytes <= MEMO_BYTES);
            assert!(!memo.words.is_empty());
        }
        assert!(memo.words.len() < MEMO_BYTES / (8 * 1000));
    }

    #[test]
    fn wordpiece_ids_and_original_offsets() {
        let tok = HfTokenizer::from_json(BERT).unwrap();
        let e = tok.encode("Playing [SEP] Café!").unwrap();
        assert_eq!(e.ids, vec![3, 4, 1, 6, 5]);
        assert_eq!(e.byte_starts, vec![0, 4, 8, 14, 19]);
        assert_eq!(tok.special_tokens(), 2);
        assert_eq!(tok.encode("zzz").unwrap().ids, vec![0]);
    }

    #[test]
    fn errors_name_the_json_path() {
        let bad = BERT.replace("\"BertPreTokenizer\"", "\"UnicodeScripts\"");
        let e = HfTokenizer::from_json(&bad).unwrap_err();
        assert!(
            matches!(e, Error::UnsupportedTokenizer { ref path, .. } if path == "pre_tokenizer.type"),
            "{e}"
        );
        let bad = BERT.replace("\"lowercase\": true", "\"lowercase\": 3");
        let e = HfTokenizer::from_json(&bad).unwrap_err();
        assert!(e.to_string().contains("normalizer.lowercase"), "{e}");
        assert!(HfTokenizer::from_json("{\"model\":").is_err());
    }
}
