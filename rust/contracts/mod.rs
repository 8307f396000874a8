//! The native contracts, each an incremental cutter.
//!
//! A cutter is fed the text seen so far and the final tokens over it (absolute
//! byte starts), and emits every chunk that more input could no longer change.
//! It reads nothing before its `keep` point, so the driver (`stream.rs`) drops
//! everything earlier: memory is the carry, not the document. A whole text is
//! a stream with one piece; the cutters cannot tell the difference, which is
//! what makes `chunk`, `chunk_stream` and `chunk_file` agree byte for byte.
//!
//! Adding a contract means one cutter here and one arm in [`Spec`].

#![forbid(unsafe_code)]

pub mod boundaries;
pub mod chunk_id;
pub mod code;
pub mod delimiter_merge;
pub mod markdown;
pub mod merge;
pub mod parent_child;
pub mod recursive;
pub mod sentence_windows;
pub mod stream;
pub mod windows;

use std::ops::Range;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::hf::HfTokenizer;
use crate::text::breaks::BreakClasses;
use crate::tokenizer::Tokenizer;

/// Checks a cap of at least `min` tokens (`at_least` says so in the error) and an
/// overlap below it: the shape Recursive and Markdown share.
pub(crate) fn check_cap(
    max_tokens: usize,
    overlap_tokens: usize,
    min: usize,
    at_least: &'static str,
) -> Result<()> {
    if max_tokens < min {
        return Err(Error::InvalidConfig {
            field: "max_tokens",
            value: max_tokens.to_string(),
            expected: at_least,
        });
    }
    if overlap_tokens >= max_tokens {
        return Err(Error::InvalidConfig {
            field: "overlap_tokens",
            value: overlap_tokens.to_string(),
            expected: "an integer below max_tokens",
        });
    }
    Ok(())
}

/// The points strictly inside a unit that fits, for a chunk from `at` with `room`
/// tokens: a unit starting after `at` fits when it fits `max_tokens` (it gets a chunk
/// of its own), one holding `at` when it fits the room. Kept as the units' union of
/// open intervals, merged where they overlap, so one search answers. Markdown's and
/// Code's cutters share this rule.
pub(crate) struct Blocked(Vec<(usize, usize)>);

impl Blocked {
    /// `units`: sorted by start, those that may hold a point of the window.
    pub(crate) fn new(
        units: &[(usize, usize)],
        input: &Input<'_>,
        at: usize,
        room: usize,
        max_tokens: usize,
    ) -> Self {
        let mut blocked: Vec<(usize, usize)> = Vec::new();
        for &(a, b) in units {
            let fits = if a > at { max_tokens } else { room };
            if b <= at || input.count(a, b) > fits {
                continue;
            }
            match blocked.last_mut() {
                Some(last) if a < last.1 => last.1 = last.1.max(b),
                _ => blocked.push((a, b)),
            }
        }
        Blocked(blocked)
    }

    /// Whether no unit that fits holds `p` strictly.
    pub(crate) fn allows(&self, p: usize) -> bool {
        let k = self.0.partition_point(|u| u.0 < p);
        !(k > 0 && p < self.0[k - 1].1)
    }
}

/// What a cutter sees: the text from absolute byte `base` to the end seen so
/// far, and the final tokens over it.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub text: &'a str,
    pub base: usize,
    /// Absolute byte starts of tokens `token_base..token_base + starts.len()`.
    pub starts: &'a [usize],
    pub token_base: usize,
    /// The known tokens end here; the next token (or the end of the text) starts here.
    pub tokens_end: usize,
    /// No more input follows: every token is known and the text ends at [`Input::end`].
    pub done: bool,
    /// For a tokenizer with pre-tokens (words), whether each token in `starts` begins
    /// one: chunks are cut only there, so a chunk re-encodes to exactly its tokens.
    /// Empty: every token may begin a chunk.
    pub words: &'a [bool],
}

impl Input<'_> {
    /// The absolute end of the text seen so far.
    pub fn end(&self) -> usize {
        self.base + self.text.len()
    }

    /// How many tokens are known (an absolute count).
    pub fn n(&self) -> usize {
        self.token_base + self.starts.len()
    }

    /// The byte where token `i` starts; for `i >= n()`, where the known tokens end.
    pub fn bound(&self, i: usize) -> usize {
        debug_assert!(i >= self.token_base, "token {i} was dropped");
        match i.checked_sub(self.token_base) {
            Some(k) if k < self.starts.len() => self.starts[k],
            Some(_) => self.tokens_end,
            // Cutters never read before their keep point; the earliest kept byte is safe.
            None => self.starts.first().copied().unwrap_or(self.tokens_end),
        }
    }

    /// The index of the token that holds byte `at`: the first one starting there, else
    /// the last one starting before it (tokens of one character may share a start).
    pub fn token_at(&self, at: usize) -> usize {
        let k = self.starts.partition_point(|&s| s < at);
        if self.starts.get(k) == Some(&at) {
            return self.token_base + k;
        }
        self.token_base + k.saturating_sub(1)
    }

    /// Whether token `i` begins a word (always, without word information).
    pub(crate) fn word_start(&self, i: usize) -> bool {
        match i.checked_sub(self.token_base) {
            Some(k) => self.words.get(k).copied().unwrap_or(true),
            None => true,
        }
    }

    /// A chunk may start at token `i`: its start is a character boundary and, with
    /// word information, it begins a word.
    pub fn cuttable(&self, i: usize) -> bool {
        self.word_start(i) && self.is_char_boundary(self.bound(i))
    }

    /// A chunk may end at byte `at`: a character boundary and, with word information,
    /// where a word's first token starts, or where the known tokens end.
    pub fn is_cut(&self, at: usize) -> bool {
        if !self.is_char_boundary(at) {
            return false;
        }
        if self.words.is_empty() || at >= self.tokens_end || at <= self.base {
            return true;
        }
        let k = self.starts.partition_point(|&s| s < at);
        self.starts.get(k) == Some(&at) && self.words[k]
    }

    /// A separator's cut `at` moved to a word boundary: forward over white space (which
    /// the tokenizer drops between words) when that reaches one by `limit`, else back to
    /// the last one after `floor`; `None` when neither exists.
    pub fn word_cut(&self, at: usize, floor: usize, limit: usize) -> Option<usize> {
        if self.is_cut(at) {
            return Some(at);
        }
        let mut q = at;
        for c in self.text[at - self.base..].chars() {
            if q >= limit || !c.is_whitespace() {
                break;
            }
            q += c.len_utf8();
        }
        if q > at && q <= limit && self.is_cut(q) {
            return Some(q);
        }
        let mut k = self.starts.partition_point(|&s| s < at);
        while k > 0 {
            k -= 1;
            let b = self.starts[k];
            if b <= floor {
                break;
            }
            if self.words[k] && self.is_char_boundary(b) {
                return Some(b);
            }
        }
        None
    }

    /// How many tokens start before byte `at`.
    pub fn tokens_before(&self, at: usize) -> usize {
        self.token_base + self.starts.partition_point(|&s| s < at)
    }

    /// Tokens overlapping `a..b`, counted from the token that holds `a`.
    pub fn count(&self, a: usize, b: usize) -> usize {
        if b > a && self.n() > 0 {
            self.tokens_before(b) - self.token_at(a)
        } else {
            0
        }
    }

    pub fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// The text of absolute bytes `a..b` (both within what is seen).
    pub fn slice(&self, a: usize, b: usize) -> &str {
        &self.text[a - self.base..b - self.base]
    }

    pub fn is_char_boundary(&self, at: usize) -> bool {
        at >= self.end() || self.text.is_char_boundary(at - self.base)
    }

    /// Where a window of tokens `first..last` from byte `at` may end: the last
    /// token boundary after `at` that is a character boundary, else the first one
    /// after the window (then the window runs over), else None.
    pub fn char_cut(&self, at: usize, first: usize, last: usize) -> Option<usize> {
        let ok = |&i: &usize| self.bound(i) > at && self.cuttable(i);
        (first + 1..=last)
            .rev()
            .find(ok)
            .or_else(|| (last + 1..=self.n()).find(ok))
            .map(|i| self.bound(i))
    }

    /// `start` moved later to a token boundary that is a character boundary, but
    /// never past `at` (an overlap's start must fall on a character).
    pub fn char_start(&self, mut start: usize, at: usize) -> usize {
        while start < at && !self.is_cut(start) {
            // The first token that starts after `start` (past any sharing its start).
            let next = self.token_base + self.starts.partition_point(|&s| s <= start);
            start = if next < self.n() {
                self.bound(next).min(at)
            } else {
                at
            };
        }
        start
    }
}

/// One chunk as a cutter emits it, in absolute byte and token offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// Top-level chunks count from 0 over the stream; a child counts within its parent.
    pub index: u64,
    /// The parent's index, for a child chunk.
    pub parent: Option<u64>,
    pub token_start: u64,
    pub token_end: u64,
    pub byte_start: usize,
    pub byte_end: usize,
    pub oversize: bool,
    /// Leading tokens repeated from the previous chunk.
    pub overlap_tokens: u64,
    /// Where the chunk's new text starts, when its overlap is a byte prefix.
    pub fresh_start: Option<usize>,
    /// The byte spans the chunk's text joins; empty means `byte_start..byte_end`.
    pub spans: Vec<Range<usize>>,
    /// How many leading spans are overlap.
    pub overlap_spans: u64,
    /// A structured chunk's heading path and context (`Markdown`).
    pub meta: Option<Arc<ChunkMeta>>,
}

/// A section path, outermost first: `(level, title)` per heading.
pub type HeadingPath = Vec<(u8, String)>;

/// What a structure-aware cutter knows about a chunk beyond its span.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMeta {
    /// The section path where the chunk starts, outermost first: `(level, title)`.
    pub headings: Arc<HeadingPath>,
    /// Whether a title in the path was cut to its first 1 000 characters.
    pub headings_truncated: bool,
    /// The text to embed before the chunk (counted against the cap).
    pub context: String,
    /// The definitions holding the chunk's start, outermost first: `(kind, name)`
    /// (`Code`; its `headings_truncated` says a header was cut).
    pub scopes: Arc<Vec<(String, String)>>,
}

/// An incremental cutter: one per native contract.
pub trait Cutter: Send {
    /// Emits, in order, every chunk that more input could no longer change.
    ///
    /// # Errors
    /// Malformed external token data; the contracts themselves cannot fail.
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()>;

    /// The earliest absolute byte and token index the cutter may still read.
    fn keep(&self) -> (usize, usize);

    /// Whether the cutter reads the whole text's tokens (`Input::starts`). The
    /// delimiter contract tokenizes each of its pieces on its own instead.
    fn wants_tokens(&self) -> bool {
        true
    }

    /// The text placed between the spans of a joined chunk.
    fn joiner(&self) -> &str {
        ""
    }
}

/// A native contract and its settings, as the bindings parse them.
#[derive(Clone, Debug)]
pub enum Spec {
    Windows(windows::WindowConfig),
    Recursive(recursive::RecursiveConfig),
    Sentences {
        safe_max: usize,
        overlap_tokens: usize,
        classes: BreakClasses,
    },
    Delimiter(delimiter_merge::DelimiterConfig),
    ParentChild {
        parent: Option<recursive::RecursiveConfig>,
        child: recursive::RecursiveConfig,
    },
    Markdown(markdown::MarkdownConfig),
    Code(code::CodeConfig, Arc<crate::structure::code::Grammar>),
}

/// Counts the tokens of text a cutter builds itself (Markdown's heading context).
#[derive(Clone)]
pub enum Counter {
    Embedded(&'static Tokenizer),
    Hf(Arc<HfTokenizer>),
    /// The caller's count: a Python tokenizer, which the bindings call back.
    Given(Arc<dyn Fn(&str) -> usize + Send + Sync>),
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Counter::Embedded(tok) => f.debug_tuple("Embedded").field(tok).finish(),
            Counter::Hf(tok) => f.debug_tuple("Hf").field(tok).finish(),
            Counter::Given(_) => f.write_str("Given(..)"),
        }
    }
}

impl Counter {
    /// The tokens of `context` and `text` counted as one string.
    pub fn joined(&self, context: &str, text: &str) -> usize {
        let mut s = String::with_capacity(context.len() + text.len());
        s.push_str(context);
        s.push_str(text);
        self.count(&s)
    }

    pub fn count(&self, s: &str) -> usize {
        match self {
            Counter::Embedded(tok) => tok.count(s),
            // Context strings are pieces of a text the engine has already tokenized, so
            // this cannot fail; if it did, the context would simply not fit.
            Counter::Hf(tok) => tok.count(s).unwrap_or(usize::MAX / 4),
            Counter::Given(count) => count(s),
        }
    }
}

/// Where a cutter that tokenizes its own pieces gets their tokens.
#[derive(Clone, Debug)]
pub enum PieceTokens {
    Embedded(&'static Tokenizer),
    /// A native `tokenizer.json` engine.
    Hf(Arc<HfTokenizer>),
    /// A Python tokenizer's output, one list per piece in order: `counts[i]`
    /// starts (relative to piece `i`) taken in turn from `starts`.
    Given {
        starts: Vec<u32>,
        counts: Vec<u32>,
    },
    /// No pieces to tokenize, and a count for the text a cutter builds (Markdown with a
    /// Python tokenizer).
    Counted(Counter),
}

impl PieceTokens {
    /// The count of the strings a structure-aware cutter builds (its context).
    fn counter(self) -> Result<Counter> {
        match self {
            PieceTokens::Embedded(tok) => Ok(Counter::Embedded(tok)),
            PieceTokens::Hf(tok) => Ok(Counter::Hf(tok)),
            PieceTokens::Counted(count) => Ok(count),
            PieceTokens::Given { .. } => Err(Error::InvalidConfig {
                field: "tokenizer",
                value: "per-piece token lists".into(),
                expected: "a tokenizer that can count the context a cutter builds",
            }),
        }
    }
}

impl Spec {
    /// The cutter that implements this contract.
    ///
    /// # Errors
    /// Invalid settings (already validated by the Python configs; checked again here).
    pub fn cutter(&self, pieces: PieceTokens) -> Result<Box<dyn Cutter>> {
        Ok(match self {
            Spec::Windows(cfg) => Box::new(windows::Windows::new(*cfg)),
            Spec::Recursive(cfg) => Box::new(recursive::Recursive::new(cfg.clone())?),
            Spec::Sentences {
                safe_max,
                overlap_tokens,
                classes,
            } => Box::new(sentence_windows::SentenceWindows::new(
                sentence_windows::SentenceWindowsConfig::new(
                    *safe_max,
                    *overlap_tokens,
                    classes.clone(),
                )?,
            )),
            Spec::Delimiter(cfg) => {
                Box::new(delimiter_merge::DelimiterMerge::new(cfg.clone(), pieces)?)
            }
            Spec::ParentChild { parent, child } => Box::new(parent_child::ParentChild::new(
                parent.clone(),
                child.clone(),
            )?),
            Spec::Markdown(cfg) => Box::new(markdown::Markdown::new(*cfg, pieces.counter()?)?),
            Spec::Code(cfg, language) => {
                Box::new(code::Code::new(*cfg, language.clone(), pieces.counter()?)?)
            }
        })
    }

    /// True for contracts that count text they build (their context) themselves.
    pub fn counts_context(&self) -> bool {
        matches!(self, Spec::Markdown(_) | Spec::Code(..))
    }

    /// True for contracts that tokenize pieces of the text rather than the whole text.
    pub fn tokenizes_pieces(&self) -> bool {
        matches!(self, Spec::Delimiter(_))
    }
}
