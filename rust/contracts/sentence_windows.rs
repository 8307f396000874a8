//! `SentenceWindows`: sentences packed into windows of whole tokens, with a
//! tail of the previous window repeated at the start of the next.
//!
//! Everything is counted on one tokenization of the whole text; a window's size
//! is its number of tokens, so nothing is encoded twice. Break points are the
//! ranked token boundaries of `text/breaks.rs`; the first two classes end sentences.
//!
//! - A window ends at its last sentence end. With none (one sentence longer
//!   than the window) it ends at the best break in the last 200 characters,
//!   right-most within a class; with no break at all, at the last token
//!   boundary that is a character boundary. Only a window holding no character
//!   boundary at all runs past `safe_max` (it is flagged `oversize`).
//! - The next window starts with at most `overlap_tokens` of the previous
//!   window's tokens, a proper tail that begins at its best break (left-most
//!   within a class, so the longest such tail), else at a character boundary.
//!   The overlap counts toward `safe_max`.
//! - Leaving the overlaps out, windows tile the text; a text without tokens is
//!   one window.
//!
//! Each window classifies only its own boundaries, so the cutter reads a window
//! and one character past it.

use super::{Cutter, Input, Row};
use crate::error::{Error, Result};
use crate::text::breaks::{classify_window, BreakClasses, NONE};

/// Classes below this rank end sentences.
const SENTENCE_CLASSES: u8 = 2;
/// How far back from a full window a force split looks for a break, in characters.
const LOOKBACK_CHARS: u64 = 200;

/// Validated sizes and break classes.
#[derive(Clone, Debug)]
pub struct SentenceWindowsConfig {
    safe_max: usize,
    overlap_tokens: usize,
    classes: BreakClasses,
}

impl SentenceWindowsConfig {
    /// # Errors
    /// [`Error::InvalidConfig`] when `safe_max < 1` or `overlap_tokens >= safe_max`.
    pub fn new(safe_max: usize, overlap_tokens: usize, classes: BreakClasses) -> Result<Self> {
        if safe_max < 1 {
            return Err(Error::InvalidConfig {
                field: "safe_max",
                value: safe_max.to_string(),
                expected: "at least 1 token (max_tokens * safety_margin)",
            });
        }
        if overlap_tokens >= safe_max {
            return Err(Error::InvalidConfig {
                field: "overlap_tokens",
                value: overlap_tokens.to_string(),
                expected: "fewer tokens than safe_max",
            });
        }
        Ok(SentenceWindowsConfig {
            safe_max,
            overlap_tokens,
            classes,
        })
    }
}

/// The classes and code-point offsets of boundaries `lo..=hi` of one window.
struct Boundaries<'a, 'i> {
    input: &'a Input<'i>,
    lo: usize,
    class: Vec<u8>,
    /// Characters that start before each boundary, counted from boundary `lo`.
    chars: Vec<u64>,
}

impl<'a, 'i> Boundaries<'a, 'i> {
    /// Boundaries `lo..=hi`; reads where token `hi + 1` starts, so `hi < n`.
    fn new(input: &'a Input<'i>, lo: usize, hi: usize, classes: &BreakClasses) -> Self {
        let starts: Vec<usize> = (lo..=hi + 1).map(|i| input.bound(i)).collect();
        let from = starts[0];
        // The window's last boundary may fall inside a character: read to its end,
        // and one character more, which decides "followed by white space".
        let mut to = starts[starts.len() - 1];
        while !input.is_char_boundary(to) {
            to += 1;
        }
        if let Some(c) = input.text[to - input.base..].chars().next() {
            to += c.len_utf8();
        }
        let rel: Vec<usize> = starts.iter().map(|s| s - from).collect();
        let text = input.slice(from, to);
        let mut class = classify_window(text, &rel, classes);
        // With word information, only a word's first token may end a window.
        if !input.words.is_empty() {
            for (k, c) in class.iter_mut().enumerate() {
                let i = lo + k;
                if i < input.n() && !input.word_start(i) {
                    *c = NONE;
                }
            }
        }
        let mut chars = Vec::with_capacity(rel.len());
        let mut count = 0u64;
        let mut it = text.char_indices().peekable();
        for &at in &rel[..rel.len() - 1] {
            while it.peek().is_some_and(|&(i, _)| i < at) {
                it.next();
                count += 1;
            }
            chars.push(count);
        }
        Boundaries {
            input,
            lo,
            class,
            chars,
        }
    }

    fn class(&self, i: usize) -> u8 {
        self.class[i - self.lo]
    }

    fn chars(&self, i: usize) -> u64 {
        self.chars[i - self.lo]
    }

    fn cuttable(&self, i: usize) -> bool {
        i == 0 || self.input.cuttable(i)
    }
}

/// The `SentenceWindows` cutter.
pub struct SentenceWindows {
    cfg: SentenceWindowsConfig,
    start: usize,
    fresh: usize,
    start_byte: usize,
    index: u64,
    finished: bool,
}

impl SentenceWindows {
    pub fn new(cfg: SentenceWindowsConfig) -> Self {
        SentenceWindows {
            cfg,
            start: 0,
            fresh: 0,
            start_byte: 0,
            index: 0,
            finished: false,
        }
    }

    fn emit(&mut self, input: &Input<'_>, end: usize, oversize: bool, out: &mut Vec<Row>) {
        let byte_end = if input.n() == 0 {
            input.end()
        } else {
            input.bound(end)
        };
        out.push(Row {
            index: self.index,
            token_start: self.start as u64,
            token_end: end as u64,
            byte_start: self.start_byte,
            byte_end,
            oversize,
            overlap_tokens: (self.fresh - self.start) as u64,
            fresh_start: Some(if self.fresh == 0 {
                0
            } else {
                input.bound(self.fresh)
            }),
            ..Row::default()
        });
        self.index += 1;
    }
}

impl Cutter for SentenceWindows {
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()> {
        while !self.finished {
            let n = input.n();
            if n == 0 {
                if input.done {
                    // No tokens: a non-empty text is kept whole rather than dropped.
                    if input.end() > 0 {
                        self.emit(input, 0, false, out);
                    }
                    self.finished = true;
                }
                return Ok(());
            }
            let limit = self.start + self.cfg.safe_max;
            if limit >= n {
                if !input.done {
                    return Ok(()); // the window's boundaries are not all known yet
                }
                self.emit(input, n, false, out);
                self.finished = true;
                return Ok(());
            }
            let b = Boundaries::new(input, self.start, limit, &self.cfg.classes);
            let Some((end, oversize)) = window_end(&b, self.fresh, limit, n, input.done) else {
                return Ok(()); // no character boundary yet: wait for more tokens
            };
            self.emit(input, end, oversize, out);
            if end >= n && input.done {
                self.finished = true;
                return Ok(());
            }
            let tail = (self.start + 1).max(end.saturating_sub(self.cfg.overlap_tokens))..end;
            let start = if self.cfg.overlap_tokens == 0 {
                end
            } else if end > limit + 1 {
                // An oversize window: classify its tail too.
                let whole = Boundaries::new(input, self.start, end - 1, &self.cfg.classes);
                overlap_start(&whole, tail)
            } else {
                overlap_start(&b, tail)
            };
            self.start = start;
            self.fresh = end;
            self.start_byte = input.bound(start);
        }
        Ok(())
    }

    fn keep(&self) -> (usize, usize) {
        (self.start_byte, self.start)
    }
}

/// Where a window from `fresh` (new text) may end, at most at `limit < n`;
/// `None` when only tokens not yet known could end it.
fn window_end(
    b: &Boundaries<'_, '_>,
    fresh: usize,
    limit: usize,
    n: usize,
    done: bool,
) -> Option<(usize, bool)> {
    let inside = fresh + 1..=limit;
    if let Some(i) = inside
        .clone()
        .rev()
        .find(|&i| b.class(i) < SENTENCE_CLASSES)
    {
        return Some((i, false));
    }
    let near = b.chars(limit).saturating_sub(LOOKBACK_CHARS);
    let best = inside
        .clone()
        .filter(|&i| b.class(i) != NONE && b.chars(i) >= near)
        .min_by_key(|&i| (b.class(i), std::cmp::Reverse(i)));
    if let Some(i) = best {
        return Some((i, false));
    }
    if let Some(i) = inside.rev().find(|&i| b.cuttable(i)) {
        return Some((i, false));
    }
    match (limit + 1..=n).find(|&i| b.cuttable(i)) {
        Some(i) => Some((i, true)),
        None if done => Some((n, true)),
        None => None,
    }
}

/// Where the next window starts: a proper tail (`tail`) of at most the overlap budget.
fn overlap_start(b: &Boundaries<'_, '_>, tail: std::ops::Range<usize>) -> usize {
    let end = tail.end;
    let best = tail
        .clone()
        .filter(|&i| b.class(i) != NONE)
        .min_by_key(|&i| (b.class(i), i));
    best.or_else(|| tail.into_iter().find(|&i| b.cuttable(i)))
        .unwrap_or(end)
}
