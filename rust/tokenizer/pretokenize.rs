//! Pre-tokenization: tiktoken's split patterns, with hand-written paths for the common pieces.
//!
//! The patterns (`patterns.rs`) are compiled at build time into DFAs (no regex is
//! compiled at run time): a process reads its first pieces that need one with the sparse
//! form, read in place, and inflates the faster dense form once it has read
//! `SPARSE_PIECES` of them (ASCII text never needs either). tiktoken's look-ahead
//! `\s+(?!\S)` is a second pattern `\s+\s` whose last character is dropped, so the whole
//! split runs on a DFA.
//!
//! Most text is ASCII, where every class the cl100k pattern asks about is a
//! byte test. `ascii_piece` decides a piece from ASCII bytes alone and gives up
//! (returns `None`) the moment the decision would depend on a non-ASCII
//! character (which might be a letter, a number, white space, or fold to `s`
//! under `(?i)`); `letter_piece` then reads runs of letters through three-byte
//! characters (CJK, kana, Hangul) with two bitmaps built from the same Unicode
//! tables, and the DFA decides whatever is left. o200k has the same two paths for
//! its own pattern (`o200k_ascii_piece`, `o200k_letter_piece`). Before all of them, a
//! word after at most one space (most pieces of most text) is decided inline in the
//! caller's loop (`spaced_word`), its letters read eight bytes at a time. The fast paths
//! are checked against the DFA by property tests, and the DFA against tiktoken.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use regex_automata::dfa::{dense, sparse, Automaton};
use regex_automata::{Anchored, HalfMatch, Input};

/// Each split's DFA (`build.rs`, in `Split` order): dense and deflated, and sparse.
static DENSE: [&[u8]; 3] = [
    include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.dfa.deflate")),
    include_bytes!(concat!(env!("OUT_DIR"), "/o200k.dfa.deflate")),
    include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_js.dfa.deflate")),
];
static SPARSE: [&[u8]; 3] = [
    include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.sparse.dfa")),
    include_bytes!(concat!(env!("OUT_DIR"), "/o200k.sparse.dfa")),
    include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_js.sparse.dfa")),
];

/// Pieces a process reads with a split's sparse DFA before it inflates the dense one.
/// Inflating takes 2-4 ms (1.6-2.1 MB of fresh pages), which was most of a process's first
/// `count()` at load; the sparse form is read in place (0.5 ms to check it) but searches
/// 22 % slower on Chinese, so it serves only the first few KB of such text (4,096 pieces
/// cost 4-6 % on a 3 MB Chinese first pass).
const SPARSE_PIECES: u32 = 256;

/// A split's two DFAs, each loaded when first needed.
struct Automata {
    sparse: OnceLock<Option<sparse::DFA<&'static [u8]>>>,
    dense: OnceLock<Option<dense::DFA<&'static [u32]>>>,
    sparse_pieces: AtomicU32,
}

static AUTOMATA: [Automata; 3] = [const {
    Automata {
        sparse: OnceLock::new(),
        dense: OnceLock::new(),
        sparse_pieces: AtomicU32::new(0),
    }
}; 3];

impl Automata {
    /// The anchored search for the piece at the start of `input`. `None` only if the
    /// build script's bytes do not load, which `every_split_dfa_loads` rules out.
    fn search(&self, split: Split, input: &Input<'_>) -> Option<HalfMatch> {
        // A search fails only on quit bytes, which these DFAs do not have.
        if let Some(dense) = self.dense.get() {
            return dense.as_ref()?.try_search_fwd(input).ok().flatten();
        }
        if self.sparse_pieces.fetch_add(1, Ordering::Relaxed) >= SPARSE_PIECES {
            return self.dense(split)?.try_search_fwd(input).ok().flatten();
        }
        self.sparse(split)?.try_search_fwd(input).ok().flatten()
    }

    fn sparse(&self, split: Split) -> Option<&sparse::DFA<&'static [u8]>> {
        let bytes = SPARSE[split as usize];
        self.sparse
            .get_or_init(|| sparse::DFA::from_bytes(bytes).ok().map(|(dfa, _)| dfa))
            .as_ref()
    }

    fn dense(&self, split: Split) -> Option<&dense::DFA<&'static [u32]>> {
        let packed = DENSE[split as usize];
        self.dense
            .get_or_init(|| {
                let bytes = inflate_aligned(packed)?;
                dense::DFA::from_bytes(bytes).ok().map(|(dfa, _)| dfa)
            })
            .as_ref()
    }
}

fn inflate_aligned(packed: &[u8]) -> Option<&'static [u8]> {
    let raw = miniz_oxide::inflate::decompress_to_vec(packed).ok()?;
    let mut buf: Vec<u8> = Vec::with_capacity(raw.len() + 3);
    let pad = buf.as_ptr().align_offset(4).min(3);
    buf.resize(pad, 0);
    buf.extend_from_slice(&raw); // within capacity: the buffer does not move
    Some(&Vec::leak(buf)[pad..])
}

/// `\p{L}`, `\p{N}` and `[\p{Lo}\p{Lm}\p{M}]` of the three-byte characters, by code
/// point (`build.rs`).
static CLASSES3: &[u8; 3 << 13] = include_bytes!(concat!(env!("OUT_DIR"), "/classes3.bits"));

/// Which split.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Split {
    Cl100k,
    O200k,
    /// js-tiktoken's `cl100k_base` split (see `patterns.rs`).
    Cl100kJs,
}

/// Splits text into the pieces tiktoken encodes one by one.
pub struct Pretokenizer {
    split: Split,
    fast: Fast,
}

/// The hand-written path a split tries before its DFA.
#[derive(Clone, Copy)]
enum Fast {
    /// cl100k's pattern (either `\s`): `ascii_piece`, then `letter_piece`.
    Cl100k,
    /// o200k's pattern: `o200k_ascii_piece`.
    O200k,
}

impl Pretokenizer {
    /// The split (cl100k's with the ASCII fast path; ASCII white space is the same set for
    /// JavaScript). Its DFA is read when a piece first needs it.
    pub(crate) fn new(split: Split) -> Self {
        let fast = match split {
            Split::Cl100k | Split::Cl100kJs => Fast::Cl100k,
            Split::O200k => Fast::O200k,
        };
        Pretokenizer { split, fast }
    }

    /// Calls `f(start, end)` for every piece, in order; the pieces tile `text`.
    pub fn for_each_piece(&self, text: &str, mut f: impl FnMut(usize, usize)) {
        let mut at = 0;
        while at < text.len() {
            let end = self.piece_end(text, at);
            f(at, end);
            at = end;
        }
    }

    /// The end of the piece that starts at `at` (a character boundary before the end).
    #[inline(always)]
    pub fn piece_end(&self, text: &str, at: usize) -> usize {
        // Words, most pieces of most text, are decided inline in the caller's loop.
        let b = text.as_bytes();
        let word = match self.fast {
            Fast::Cl100k => spaced_word(b, at, |q| letter_run(b, q)),
            Fast::O200k => spaced_word(b, at, |q| o200k_word(b, q)),
        };
        word.unwrap_or_else(|| self.other_piece_end(text, at))
    }

    #[inline(never)]
    fn other_piece_end(&self, text: &str, at: usize) -> usize {
        let bytes = text.as_bytes();
        let fast = match self.fast {
            Fast::Cl100k => ascii_piece(bytes, at).or_else(|| letter_piece(bytes, at)),
            Fast::O200k => o200k_ascii_piece(bytes, at).or_else(|| o200k_letter_piece(bytes, at)),
        };
        fast.unwrap_or_else(|| self.regex_piece(text, at))
    }

    /// The piece starting at `at`, by the DFA.
    pub(crate) fn regex_piece(&self, text: &str, at: usize) -> usize {
        let input = Input::new(text).range(at..).anchored(Anchored::Yes);
        match AUTOMATA[self.split as usize].search(self.split, &input) {
            Some(m) if m.pattern().as_usize() == 1 => {
                // Drop the look-ahead character; `\s+\s` always leaves one behind.
                let last = text[..m.offset()]
                    .chars()
                    .next_back()
                    .map_or(0, char::len_utf8);
                m.offset() - last
            }
            Some(m) if m.offset() > at => m.offset(),
            // Every character matches some alternative; this keeps progress regardless.
            _ => text[at..]
                .chars()
                .next()
                .map_or(text.len(), |c| at + c.len_utf8()),
        }
    }
}

fn is_letter(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

fn is_number(c: u8) -> bool {
    c.is_ascii_digit()
}

/// ASCII `\s` (Unicode White_Space): tab, LF, VT, FF, CR, space.
#[inline]
fn is_space(c: u8) -> bool {
    const SPACES: u64 = 1 << b'\t' | 1 << b'\n' | 1 << 0x0B | 1 << 0x0C | 1 << b'\r' | 1 << b' ';
    c <= b' ' && SPACES >> c & 1 == 1
}

fn is_newline(c: u8) -> bool {
    c == b'\r' || c == b'\n'
}

/// ASCII `[^\s\p{L}\p{N}]`.
fn is_other(c: u8) -> bool {
    c.is_ascii() && !is_letter(c) && !is_number(c) && !is_space(c)
}

/// A run of `class` from `q`, or None if a non-ASCII character follows it.
fn ascii_run(b: &[u8], q: usize, class: impl Fn(u8) -> bool) -> Option<usize> {
    let mut e = q;
    while e < b.len() && class(b[e]) {
        e += 1;
    }
    (e == b.len() || b[e].is_ascii()).then_some(e)
}

/// A run of ASCII letters from `q`, or None if a non-ASCII character follows it.
#[inline(always)]
fn letter_run(b: &[u8], q: usize) -> Option<usize> {
    range_run(b, q, 0x20, b'a'..=b'z')
}

/// A run from `q` of ASCII bytes that `| fold` puts in `range`, or None if a non-ASCII
/// character follows it. Reads eight bytes at a time: most words are longer than a byte
/// test per letter is cheap.
#[inline(always)]
fn range_run(b: &[u8], q: usize, fold: u8, range: std::ops::RangeInclusive<u8>) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let (lo, hi) = (*range.start(), *range.end());
    let mut e = q;
    while let Some(w) = b.get(e..e + 8) {
        let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        // On seven bits no byte carries into the next: the high bit of each byte says
        // `x >= lo`, then `x > hi`; non-ASCII bytes are outside.
        let x = (w & !HIGH) | (ONES * u64::from(fold));
        let from_lo = x + ONES * u64::from(0x80 - lo);
        let past_hi = x + ONES * u64::from(0x7F - hi);
        let others = !(from_lo & !past_hi & !w) & HIGH;
        if others != 0 {
            e += (others.trailing_zeros() / 8) as usize;
            return b[e].is_ascii().then_some(e);
        }
        e += 8;
    }
    ascii_run(b, e, |x| range.contains(&(x | fold)))
}

/// The end of the piece starting at `p` when it is the commonest kind, a word after at
/// most one space (rule 2 alone, both splits): `word` reads the split's word from its first
/// ASCII letter. `None` for any other piece, or when `word` gives up.
#[inline(always)]
fn spaced_word(b: &[u8], p: usize, word: impl Fn(usize) -> Option<usize>) -> Option<usize> {
    let q = p + usize::from(*b.get(p)? == b' ');
    if b.get(q).copied().is_some_and(is_letter) {
        word(q)
    } else {
        None
    }
}

/// The end of the cl100k piece starting at `p`, decided from ASCII bytes only;
/// `None` when a non-ASCII character could change the answer.
fn ascii_piece(b: &[u8], p: usize) -> Option<usize> {
    // 1. (?i:'s|'t|'re|'ve|'m|'ll|'d)
    if b.get(p) == Some(&b'\'') {
        let x = b.get(p + 1).map(u8::to_ascii_lowercase);
        let y = b.get(p + 2).map(u8::to_ascii_lowercase);
        match (x, y) {
            (Some(x), _) if !x.is_ascii() => return None,
            (Some(b's' | b't' | b'm' | b'd'), _) => return Some(p + 2),
            (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => return Some(p + 3),
            _ => {}
        }
    }
    // 2. [^\r\n\p{L}\p{N}]?\p{L}+, then 3-7; `[\r\n]*` after punctuation.
    ascii_words_and_rest(b, p, |q| letter_run(b, q), is_newline)
}

/// The end of the o200k piece starting at `p`, decided from ASCII bytes only; `None`
/// when a non-ASCII character could change the answer.
///
/// o200k's words are `[^\r\n\p{L}\p{N}]?` then upper-case letters then lower-case
/// ones (at least one letter; the lower-case part may be empty only without a
/// lower-case letter after the upper-case run), then an optional contraction. Its other
/// alternatives read ASCII as cl100k's do, but its punctuation run also takes `/`.
fn o200k_ascii_piece(b: &[u8], p: usize) -> Option<usize> {
    ascii_words_and_rest(b, p, |q| o200k_word(b, q), |x| is_newline(x) || x == b'/')
}

/// The end of the o200k word whose letters start at `q` (an ASCII letter): upper-case
/// letters, lower-case letters, then `(?i:'s|'t|'re|'ve|'m|'ll|'d)?`; `None` when a
/// non-ASCII character could change it.
#[inline]
fn o200k_word(b: &[u8], q: usize) -> Option<usize> {
    let next = |i: usize| b.get(i).copied();
    let upper = ascii_run(b, q, |x| x.is_ascii_uppercase())?;
    let e = range_run(b, upper, 0, b'a'..=b'z')?;
    if next(e) != Some(b'\'') {
        return Some(e);
    }
    let lower = |i: usize| next(i).map(|x| x.to_ascii_lowercase());
    match (lower(e + 1), lower(e + 2)) {
        (Some(x), _) if !x.is_ascii() => None,
        (Some(b'r' | b'v'), Some(y)) if !y.is_ascii() => None,
        (Some(b'l'), Some(y)) if !y.is_ascii() => None,
        (Some(b's' | b't' | b'm' | b'd'), _) => Some(e + 2),
        (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => Some(e + 3),
        _ => Some(e),
    }
}

/// What cl100k's and o200k's splits share on ASCII, from `p`: a word (`word` from its
/// first letter) after at most one non-letter, non-number, non-newline; `\p{N}{1,3}`;
/// ` ?[^\s\p{L}\p{N}]+` then a run of `tail` bytes; white space. `None` when a
/// non-ASCII character could change the answer.
fn ascii_words_and_rest(
    b: &[u8],
    p: usize,
    word: impl Fn(usize) -> Option<usize>,
    tail: impl Fn(u8) -> bool,
) -> Option<usize> {
    let n = b.len();
    let c = *b.get(p)?;
    if !c.is_ascii() {
        return None;
    }
    let next = |i: usize| b.get(i).copied();
    if is_letter(c) {
        return word(p);
    }
    if !is_newline(c) && !is_number(c) {
        match next(p + 1) {
            Some(x) if !x.is_ascii() => return None,
            Some(x) if is_letter(x) => return word(p + 1),
            _ => {}
        }
    }
    // 3. \p{N}{1,3}
    if is_number(c) {
        let mut e = p + 1;
        while e < n && e < p + 3 {
            match b[e] {
                x if !x.is_ascii() => return None,
                x if is_number(x) => e += 1,
                _ => break,
            }
        }
        return Some(e);
    }
    // 4. ` ?[^\s\p{L}\p{N}]+` and the tail, which ends at any other character, ASCII or not.
    let others = |q: usize| {
        ascii_run(b, q, is_other).map(|mut e| {
            while e < n && tail(b[e]) {
                e += 1;
            }
            e
        })
    };
    if is_other(c) {
        return others(p);
    }
    if c == b' ' && next(p + 1).is_some_and(is_other) {
        return others(p + 1);
    }
    // 5. \s*[\r\n]+   6. \s+(?!\S)   7. \s+
    if is_space(c) {
        let e = ascii_run(b, p, is_space)?;
        if let Some(k) = (p..e).rev().find(|&k| is_newline(b[k])) {
            return Some(k + 1);
        }
        return Some(if e == n || e - p == 1 { e } else { e - 1 });
    }
    None
}

/// Whether the three-byte character at `b[i]` is in `[\p{Lo}\p{Lm}\p{M}]`, in both of
/// o200k's letter classes (CJK, kana, Hangul, their marks); `None` if it is not three
/// bytes long.
#[inline]
fn caseless_at(b: &[u8], i: usize) -> Option<bool> {
    let cp = code_point3(b, i)?;
    Some(CLASSES3[(2 << 13) + cp / 8] >> (cp % 8) & 1 == 1)
}

/// The code point of the three-byte character starting at `b[i]`, or `None` when the
/// byte there does not start one. Text is UTF-8, so its continuation bytes are there.
#[inline]
fn code_point3(b: &[u8], i: usize) -> Option<usize> {
    let c = *b.get(i)?;
    (c & 0xF0 == 0xE0).then(|| {
        (usize::from(c & 0x0F) << 12)
            | (usize::from(b[i + 1] & 0x3F) << 6)
            | usize::from(b[i + 2] & 0x3F)
    })
}

/// The end of an o200k word of case-less three-byte letters (a CJK run) that starts at
/// `p`: `[^\r\n\p{L}\p{N}]?` then a run of `[\p{Lo}\p{Lm}\p{M}]` that starts with a
/// letter. Such a run is all of the word when what follows is no letter and no `'`;
/// otherwise, or for any character of another length, `None`.
fn o200k_letter_piece(b: &[u8], p: usize) -> Option<usize> {
    let letter = |i: usize| {
        class_at(b, i).is_some_and(|(c, len)| c == Class::Letter && len == 3)
            && caseless_at(b, i) == Some(true)
    };
    let start = if letter(p) {
        p
    } else {
        let (class, len) = class_at(b, p)?;
        // A mark could belong to the run; the DFA decides those.
        let prefix = class == Class::Other && !(len == 3 && caseless_at(b, p) == Some(true));
        if !(prefix && letter(p + len)) {
            return None;
        }
        p + len
    };
    let mut e = start;
    while caseless_at(b, e) == Some(true) {
        e += 3;
    }
    match class_at(b, e) {
        None if e == b.len() => Some(e),
        Some((Class::Letter, _)) | None => None,
        Some(_) if b[e] == b'\'' => None,
        Some(_) => Some(e),
    }
}

/// The class of the character at `b[i]`, if it is ASCII or three bytes long.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Number,
    /// `[^\r\n\p{L}\p{N}]`
    Other,
    Newline,
}

/// The class of the character starting at `b[i]` and its length, if it is ASCII or
/// takes three bytes (CJK, kana, Hangul); `None` for any other character.
#[inline]
fn class_at(b: &[u8], i: usize) -> Option<(Class, usize)> {
    let c = *b.get(i)?;
    if c.is_ascii() {
        let class = match c {
            _ if is_letter(c) => Class::Letter,
            _ if is_number(c) => Class::Number,
            b'\r' | b'\n' => Class::Newline,
            _ => Class::Other,
        };
        return Some((class, 1));
    }
    let cp = code_point3(b, i)?;
    let bit = |k: usize| CLASSES3[(k << 13) + cp / 8] >> (cp % 8) & 1 == 1;
    let class = if bit(0) {
        Class::Letter
    } else if bit(1) {
        Class::Number
    } else {
        Class::Other
    };
    Some((class, 3))
}

/// The end of a cl100k piece `[^\r\n\p{L}\p{N}]?\p{L}+` that starts at `p` and has a
/// three-byte character (a CJK run), read from ASCII and three-byte characters alone;
/// `None` for any other piece, or when a character of another length could change it.
fn letter_piece(b: &[u8], p: usize) -> Option<usize> {
    let (class, len) = class_at(b, p)?;
    let start = match class {
        Class::Letter => p,
        // `'` may start a contraction; the DFA decides those.
        Class::Other if b[p] != b'\'' => match class_at(b, p + len)? {
            (Class::Letter, _) => p + len,
            _ => return None,
        },
        _ => return None,
    };
    let mut e = start;
    while e < b.len() {
        match class_at(b, e)? {
            (Class::Letter, len) => e += len,
            _ => break,
        }
    }
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The DFAs load lazily, where a failure could not be reported: every one must load.
    #[test]
    fn every_split_dfa_loads() {
        for split in [Split::Cl100k, Split::O200k, Split::Cl100kJs] {
            let automata = &AUTOMATA[split as usize];
            assert!(automata.sparse(split).is_some(), "{split:?} sparse");
            assert!(automata.dense(split).is_some(), "{split:?} dense");
        }
    }

    fn both_forms(split: Split, text: &str, at: usize) -> (Option<HalfMatch>, Option<HalfMatch>) {
        let automata = &AUTOMATA[split as usize];
        let input = Input::new(text).range(at..).anchored(Anchored::Yes);
        let sparse = automata
            .sparse(split)
            .unwrap()
            .try_search_fwd(&input)
            .unwrap();
        let dense = automata
            .dense(split)
            .unwrap()
            .try_search_fwd(&input)
            .unwrap();
        (sparse, dense)
    }

    fn pieces(pre: &Pretokenizer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        pre.for_each_piece(text, |a, b| out.push(text[a..b].to_owned()));
        out
    }

    fn regex_only(pre: &Pretokenizer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let end = pre.regex_piece(text, at);
            out.push(text[at..end].to_owned());
            at = end;
        }
        out
    }

    #[test]
    fn known_splits() {
        let pre = Pretokenizer::new(Split::Cl100k);
        assert_eq!(
            pieces(&pre, "Hello world's  end\n\n  x 123456"),
            vec!["Hello", " world", "'s", " ", " end", "\n\n", " ", " x", " ", "123", "456"]
        );
        assert_eq!(pieces(&pre, "a  "), vec!["a", "  "]);
        assert_eq!(pieces(&pre, "((abc .com"), vec!["((", "abc", " .", "com"]);
        assert_eq!(pieces(&pre, "x 'RE'll"), vec!["x", " '", "RE", "'ll"]);
    }

    #[test]
    fn matches_bpe_openai_split() {
        let pre = Pretokenizer::new(Split::Cl100k);
        let text = "It's 2024!\r\n\tNaïve café—ſtraße 'ſ 你好 😀\u{a0}x  \u{3000}y\u{85}z";
        let theirs: Vec<&str> = bpe_openai::cl100k_base().split(text).collect();
        assert_eq!(pieces(&pre, text), theirs);
        let o200k = Pretokenizer::new(Split::O200k);
        let theirs: Vec<&str> = bpe_openai::o200k_base().split(text).collect();
        assert_eq!(pieces(&o200k, text), theirs);
    }

    proptest! {
        /// The sparse and the dense form of each split find the same piece everywhere.
        #[test]
        fn sparse_equals_dense(text in "\\PC{0,30}|[a-z' \n\r\t0-9.é你，。ſK\u{a0}\u{3000}\u{85}²😀]{0,40}") {
            for split in [Split::Cl100k, Split::O200k, Split::Cl100kJs] {
                for (at, _) in text.char_indices() {
                    let (sparse, dense) = both_forms(split, &text, at);
                    prop_assert_eq!(sparse, dense, "{:?} at {}", split, at);
                }
            }
        }

        #[test]
        fn fast_path_equals_regex(
            text in "[ -~\t\n\r\u{b}\u{c}]{0,40}|[a-z' \n\r\t0-9.é你ſK\u{a0}\u{3000}\u{85}²]{0,40}"
        ) {
            let pre = Pretokenizer::new(Split::Cl100k);
            prop_assert_eq!(pieces(&pre, &text), regex_only(&pre, &text));
        }

        #[test]
        fn letter_runs_equal_byte_by_byte(b in proptest::collection::vec(any::<u8>(), 0..40), q in 0usize..40) {
            let q = q.min(b.len());
            prop_assert_eq!(letter_run(&b, q), ascii_run(&b, q, is_letter));
            prop_assert_eq!(range_run(&b, q, 0, b'a'..=b'z'), ascii_run(&b, q, |x| x.is_ascii_lowercase()));
        }

        #[test]
        fn fast_path_equals_regex_on_ascii_controls(text in "[\\x00-\\x7f]{0,40}") {
            let pre = Pretokenizer::new(Split::Cl100k);
            prop_assert_eq!(pieces(&pre, &text), regex_only(&pre, &text));
        }

        #[test]
        fn fast_path_equals_regex_on_any_text(text in "\\PC{0,30}") {
            for pre in [Pretokenizer::new(Split::Cl100k), Pretokenizer::new(Split::Cl100kJs)] {
                prop_assert_eq!(pieces(&pre, &text), regex_only(&pre, &text));
            }
        }

        #[test]
        fn letter_path_equals_regex(
            text in "[你好的是しーカ한국ａＺ０１２ab9 '\t\r\n，。「」\u{3099}\u{2028}\u{3000}\u{feff}é😀Ⅻ]{0,40}"
        ) {
            // Three-byte letters, numbers (full-width digits, Ⅻ) and others (marks,
            // punctuation, separators) next to ASCII and to characters of other lengths.
            for pre in [Pretokenizer::new(Split::Cl100k), Pretokenizer::new(Split::Cl100kJs)] {
                prop_assert_eq!(pieces(&pre, &text), regex_only(&pre, &text));
            }
        }

        #[test]
        fn o200k_fast_path_equals_regex(
            text in "[ -~\t\n\r\u{b}\u{c}]{0,40}|[a-zA-Z' \n\r\t0-9./é你ſK\u{a0}\u{3000}\u{85}²\u{301}]{0,40}|[sStTlLrReEvVmMdD' A]{0,20}"
        ) {
            let pre = Pretokenizer::new(Split::O200k);
            prop_assert_eq!(pieces(&pre, &text), regex_only(&pre, &text));
        }

        #[test]
        fn o200k_letter_path_equals_regex(
            text in "[你好的是しーカ한국ａＺ０１２ab9 'A\t\r\n，。「」\u{3099}\u{302a}\u{2028}\u{3000}\u{feff}é😀Ⅻ々ー]{0,40}"
        ) {
            let pre = Pretokenizer::new(Split::O200k);
            prop_assert_eq!(pieces(&pre, &text), regex_only(&pre, &text));
        }

        #[test]
        fn o200k_fast_path_equals_regex_on_any_text(text in "\\PC{0,30}|[\\x00-\\x7f]{0,40}") {
            let pre = Pretokenizer::new(Split::O200k);
            prop_assert_eq!(pieces(&pre, &text), regex_only(&pre, &text));
        }

        #[test]
        fn js_fast_path_equals_regex(text in "[a-z' \n\r\t0-9.ſ\u{a0}\u{3000}\u{85}\u{feff}]{0,40}") {
            let pre = Pretokenizer::new(Split::Cl100kJs);
            prop_assert_eq!(pieces(&pre, &text), regex_only(&pre, &text));
        }
    }
}
