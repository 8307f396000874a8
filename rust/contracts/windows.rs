//! `TokenWindows`: windows of whole tokens.
//!
//! Token `i` spans from its start to the next token's start (the first from 0,
//! the last to the end), so windows tile the text even when a user tokenizer
//! skips characters; a non-empty text with no tokens is one 0-token window.
//!
//! Character-boundary rule: a byte-level BPE token can end inside a UTF-8
//! character. A window is cut only at a token boundary that is also a character
//! boundary. Its end moves back to the nearest such boundary; only when the
//! window holds none does it move forward (the one case that exceeds
//! `max_tokens`). The next window's start moves forward, so the overlap never
//! exceeds `overlap_tokens` and every window starts after the previous one.

use super::{Cutter, Input, Row};
use crate::error::{Error, Result};

/// Validated window sizes, in whole tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowConfig {
    max_tokens: usize,
    overlap_tokens: usize,
}

impl WindowConfig {
    /// # Errors
    /// [`Error::InvalidConfig`] when `max_tokens < 1` or `overlap_tokens >= max_tokens`.
    pub fn new(max_tokens: usize, overlap_tokens: usize) -> Result<Self> {
        if max_tokens < 1 {
            return Err(Error::InvalidConfig {
                field: "max_tokens",
                value: max_tokens.to_string(),
                expected: "an integer >= 1",
            });
        }
        if overlap_tokens >= max_tokens {
            return Err(Error::InvalidConfig {
                field: "overlap_tokens",
                value: overlap_tokens.to_string(),
                expected: "an integer >= 0 and < max_tokens",
            });
        }
        Ok(WindowConfig {
            max_tokens,
            overlap_tokens,
        })
    }
}

/// The `TokenWindows` cutter.
pub struct Windows {
    cfg: WindowConfig,
    /// The next window's first token, and its byte.
    start: usize,
    start_byte: usize,
    index: u64,
    finished: bool,
}

impl Windows {
    pub fn new(cfg: WindowConfig) -> Self {
        Windows {
            cfg,
            start: 0,
            start_byte: 0,
            index: 0,
            finished: false,
        }
    }

    fn emit(&mut self, out: &mut Vec<Row>, tokens: (usize, usize), bytes: (usize, usize)) {
        out.push(Row {
            index: self.index,
            token_start: tokens.0 as u64,
            token_end: tokens.1 as u64,
            byte_start: bytes.0,
            byte_end: bytes.1,
            oversize: tokens.1 - tokens.0 > self.cfg.max_tokens,
            ..Row::default()
        });
        self.index += 1;
    }
}

/// A window may be cut where token `i` starts if that is a character boundary (and,
/// with word information, a word's first token).
fn cuttable(input: &Input<'_>, i: usize) -> bool {
    i == 0 || input.cuttable(i)
}

impl Cutter for Windows {
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()> {
        while !self.finished {
            let n = input.n();
            if n == 0 {
                if input.done {
                    // No tokens: a non-empty text is kept whole rather than dropped.
                    if input.end() > 0 {
                        self.emit(out, (0, 0), (0, input.end()));
                    }
                    self.finished = true;
                }
                return Ok(());
            }
            let start = self.start;
            let limit = start + self.cfg.max_tokens;
            if limit > n && !input.done {
                return Ok(()); // the window's tokens are not all known yet
            }
            let limit = limit.min(n);
            let back = (start + 1..=limit).rev().find(|&e| cuttable(input, e));
            let Some(end) = back.or_else(|| (limit + 1..=n).find(|&e| cuttable(input, e))) else {
                if input.done {
                    // Unreachable: the end of the text is always cuttable.
                    return Err(Error::InvalidOffsets {
                        index: n,
                        value: input.end() as u64,
                        reason: "no character boundary ends the last window".into(),
                    });
                }
                return Ok(()); // no boundary yet: wait for more tokens
            };
            self.emit(out, (start, end), (self.start_byte, input.bound(end)));
            if end >= n && input.done {
                self.finished = true;
                return Ok(());
            }
            let wanted = end.saturating_sub(self.cfg.overlap_tokens).max(start + 1);
            self.start = (wanted..=end).find(|&s| cuttable(input, s)).unwrap_or(end);
            self.start_byte = input.bound(self.start);
        }
        Ok(())
    }

    fn keep(&self) -> (usize, usize) {
        (self.start_byte, self.start)
    }
}
