//! `Recursive`: Dify's recursive splitter in real tokens, with local decisions.
//!
//! A span's size is the number of tokens (of the one tokenization pass) that
//! overlap it. The content budget is `max_tokens - overlap_tokens`.
//!
//! 1. A fixed separator (if any) cuts the text into segments, kept at the end
//!    of the segment before it (or the start of the one after); chunks never
//!    cross a segment boundary and empty segments are skipped.
//! 2. Inside a segment, chunks are cut greedily from `at`. If the rest of the
//!    segment fits the budget it is the chunk. Otherwise the window is the
//!    longest span from `at` that fits; the chunk ends at the last occurrence,
//!    inside the window, of the first separator (in order) that occurs there.
//!    Occurrences are found left to right without overlap, starting at `at`;
//!    a separator ends its chunk (`"end"`) or starts the next (`"start"`).
//! 3. With no separator in the window (or after the empty separator), the chunk
//!    ends at the window's last token boundary that is a character boundary;
//!    only a window holding none runs to the next one (`oversize`).
//! 4. Overlap extends each chunk after the first backwards by whole tokens,
//!    within `max_tokens` and never before the previous chunk's content.
//!
//! Every decision reads only the window being cut, so a separator near the end
//! of a 2 GB file cannot change how its start is cut. `reference/recursive.py`
//! is the twin, written from the same description.

use super::{check_cap, Cutter, Input, Row};
use crate::error::Result;

/// Where a separator goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    End,
    Start,
}

/// `Recursive` sizes and separators.
#[derive(Clone, Debug)]
pub struct RecursiveConfig {
    pub max_tokens: usize,
    pub overlap_tokens: usize,
    pub fixed_separator: Option<String>,
    pub separators: Vec<String>,
    pub keep: Keep,
}

impl RecursiveConfig {
    /// # Errors
    /// [`InvalidConfig`](crate::error::Error::InvalidConfig) when `max_tokens < 1` or
    /// the overlap is not below it.
    pub fn validate(&self) -> Result<()> {
        check_cap(self.max_tokens, self.overlap_tokens, 1, "an integer >= 1")
    }
}

/// The end of the current segment: found, or not before some byte.
#[derive(Clone, Copy, Debug)]
enum SegmentEnd {
    At(usize),
    NotBefore(usize),
}

/// What the next step can do.
enum Step {
    Chunk(usize),
    Wait,
}

/// The `Recursive` cutter.
pub struct Recursive {
    cfg: RecursiveConfig,
    budget: usize,
    /// The separators tried in order, up to (not including) the empty one.
    seps: Vec<Vec<u8>>,
    fixed: Option<Vec<u8>>,
    /// The next chunk's content starts here.
    at: usize,
    /// The current segment's end, once found, and where to look for it.
    seg_end: Option<usize>,
    fixed_from: usize,
    /// The previous chunk's content start and the token holding it.
    prev: Option<(usize, usize)>,
    index: u64,
    finished: bool,
}

impl Recursive {
    /// # Errors
    /// Invalid sizes.
    pub fn new(cfg: RecursiveConfig) -> Result<Self> {
        cfg.validate()?;
        let seps = cfg
            .separators
            .iter()
            .take_while(|s| !s.is_empty())
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let fixed = cfg
            .fixed_separator
            .as_ref()
            .filter(|f| !f.is_empty())
            .map(|f| f.as_bytes().to_vec());
        Ok(Recursive {
            budget: cfg.max_tokens - cfg.overlap_tokens,
            cfg,
            seps,
            fixed,
            at: 0,
            seg_end: None,
            fixed_from: 0,
            prev: None,
            index: 0,
            finished: false,
        })
    }

    /// The current segment's end, searching the fixed separator as far as the text goes.
    fn segment_end(&mut self, input: &Input<'_>) -> SegmentEnd {
        if let Some(end) = self.seg_end {
            return SegmentEnd::At(end);
        }
        let end = input.end();
        let Some(fixed) = &self.fixed else {
            return if input.done {
                SegmentEnd::At(end)
            } else {
                SegmentEnd::NotBefore(end)
            };
        };
        let bytes = input.bytes();
        while let Some(i) = memchr::memmem::find(&bytes[self.fixed_from - input.base..], fixed) {
            let m = self.fixed_from + i;
            self.fixed_from = m + fixed.len();
            let cut = match self.cfg.keep {
                Keep::End => m + fixed.len(),
                Keep::Start => m,
            };
            if cut > self.at {
                self.seg_end = Some(cut);
                return SegmentEnd::At(cut);
            }
        }
        if input.done {
            self.fixed_from = end;
            self.seg_end = Some(end);
            return SegmentEnd::At(end);
        }
        // An occurrence not yet seen starts after `end - len(fixed)`; nothing before
        // that needs searching again (the scan is left to right without overlap).
        self.fixed_from = (end + 1).saturating_sub(fixed.len()).max(self.fixed_from);
        let first = self.fixed_from;
        SegmentEnd::NotBefore(match self.cfg.keep {
            Keep::End => first + fixed.len(),
            Keep::Start => first,
        })
    }

    /// The end of the next content chunk, which starts at `self.at`.
    fn next_end(&mut self, input: &Input<'_>) -> Step {
        let at = self.at;
        if !input.done && at >= input.tokens_end {
            return Step::Wait; // the token holding `at` is not known yet
        }
        let first = input.token_at(at);
        let overflow = first + self.budget; // the first token that does not fit
        let n = input.n();
        let window = if overflow < n {
            Some(input.bound(overflow))
        } else if input.done || n == 0 {
            None // everything left fits
        } else {
            return match self.segment_end(input) {
                // The segment ends among known tokens, and they all fit.
                SegmentEnd::At(end) if end <= input.tokens_end => Step::Chunk(end),
                _ => Step::Wait,
            };
        };
        let segment = self.segment_end(input);
        let Some(x) = window else {
            return match segment {
                SegmentEnd::At(end) => Step::Chunk(end),
                SegmentEnd::NotBefore(_) => Step::Wait,
            };
        };
        match segment {
            SegmentEnd::At(end) if end <= x => return Step::Chunk(end),
            SegmentEnd::NotBefore(lower) if lower <= x => return Step::Wait,
            _ => {}
        }
        let limit = match segment {
            SegmentEnd::At(end) => end,
            SegmentEnd::NotBefore(_) => input.end(),
        };
        if let Some(cut) = self.separator_cut(input, at, x) {
            return Step::Chunk(cut);
        }
        // No separator: whole tokens, cut at a character boundary.
        // A cut inside the window is final; one past it only when more text is known.
        match input.char_cut(at, first, overflow) {
            Some(b) if b <= input.bound(overflow) || b < limit => Step::Chunk(b),
            _ if matches!(segment, SegmentEnd::At(_)) => Step::Chunk(limit),
            _ => Step::Wait,
        }
    }

    /// The last cut of the first separator that has one in `(at, x]`.
    fn separator_cut(&self, input: &Input<'_>, at: usize, x: usize) -> Option<usize> {
        let bytes = input.bytes();
        for sep in &self.seps {
            // Occurrences starting at or before `x` lie within `x + len`.
            let hi = (x + sep.len()).min(input.end());
            let hay = &bytes[at - input.base..hi - input.base];
            let mut best = None;
            let mut from = 0;
            while let Some(i) = memchr::memmem::find(&hay[from..], sep) {
                let m = at + from + i;
                let cut = match self.cfg.keep {
                    Keep::End => m + sep.len(),
                    Keep::Start => m,
                };
                if cut > x {
                    break;
                }
                if let Some(cut) = input.word_cut(cut, at, x).filter(|&c| c > at) {
                    best = Some(cut);
                }
                from += i + sep.len();
            }
            if best.is_some() {
                return best;
            }
        }
        None
    }

    /// Emits the content `at..cut` with its overlap.
    fn emit(&mut self, input: &Input<'_>, cut: usize, out: &mut Vec<Row>) {
        let at = self.at;
        let mut start = at;
        if let Some((prev_at, prev_token)) = self.prev {
            let room = self.cfg.max_tokens.saturating_sub(input.count(at, cut));
            let k = self.cfg.overlap_tokens.min(room);
            let first = input.token_at(at);
            if k > 0 && first >= k {
                start = if first - k < prev_token {
                    prev_at
                } else {
                    input.bound(first - k).max(prev_at)
                };
                start = input.char_start(start, at);
            }
        }
        let count = input.count(start, cut);
        let token_start = if input.n() == 0 {
            0
        } else {
            input.token_at(start)
        };
        out.push(Row {
            index: self.index,
            token_start: token_start as u64,
            token_end: (token_start + count) as u64,
            byte_start: start,
            byte_end: cut,
            oversize: count > self.cfg.max_tokens,
            ..Row::default()
        });
        self.index += 1;
        self.prev = Some((at, input.token_at(at)));
        self.at = cut;
        if self.seg_end == Some(cut) {
            self.seg_end = None;
            self.fixed_from = self.fixed_from.max(cut);
        }
    }

    /// Runs the cutter over an input, appending rows (also used for `ParentChild`'s children).
    pub(crate) fn run(&mut self, input: &Input<'_>, out: &mut Vec<Row>) {
        while !self.finished {
            if self.at >= input.end() {
                if input.done {
                    self.finished = true;
                }
                return;
            }
            match self.next_end(input) {
                Step::Chunk(cut) => self.emit(input, cut, out),
                Step::Wait => return,
            }
        }
    }

    /// Starts the cutter at byte `at` (a child cutter starts at its parent's start).
    pub(crate) fn starting_at(mut self, at: usize) -> Self {
        self.at = at;
        self.fixed_from = at;
        self
    }
}

impl Cutter for Recursive {
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()> {
        self.run(input, out);
        Ok(())
    }

    fn keep(&self) -> (usize, usize) {
        match self.prev {
            Some((prev_at, prev_token)) => (prev_at, prev_token),
            None => (self.at, 0),
        }
    }
}
