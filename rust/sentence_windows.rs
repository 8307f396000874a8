//! `SentenceWindows`: sentences packed into windows of whole tokens, with a
//! tail of the previous window repeated at the start of the next.
//!
//! Everything is counted on one tokenization of the whole text; a window's size
//! is its number of tokens, so nothing is encoded twice. Break points are the
//! ranked token boundaries of `breaks.rs`; the first two classes end sentences.
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
//! - Leaving the overlaps out, windows tile the text.

use crate::breaks::{classify, BreakClasses, NONE};
use crate::error::{Error, Result};
use crate::offsets::CharMap;

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

/// One window: tokens `token_start..token_end`; `fresh_start..token_end` is new text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentenceWindow {
    pub token_start: usize,
    pub fresh_start: usize,
    pub token_end: usize,
    pub oversize: bool,
}

struct Boundaries<'a> {
    text: &'a str,
    starts: &'a [u32],
    class: Vec<u8>,
    chars: Vec<u64>,
}

impl Boundaries<'_> {
    fn byte(&self, i: usize) -> usize {
        match i {
            0 => 0,
            i if i >= self.starts.len() => self.text.len(),
            i => self.starts[i] as usize,
        }
    }

    fn cuttable(&self, i: usize) -> bool {
        i == 0 || i >= self.starts.len() || self.text.is_char_boundary(self.byte(i))
    }
}

/// The windows of a text whose tokens start at `starts` (bytes, non-decreasing).
pub fn sentence_windows(
    text: &str,
    starts: &[u32],
    cfg: &SentenceWindowsConfig,
) -> Vec<SentenceWindow> {
    let n = starts.len();
    if n == 0 {
        // No tokens: a non-empty text is kept whole rather than dropped.
        let whole = SentenceWindow {
            token_start: 0,
            fresh_start: 0,
            token_end: 0,
            oversize: false,
        };
        return if text.is_empty() { vec![] } else { vec![whole] };
    }
    let b = Boundaries {
        text,
        starts,
        class: classify(text, starts, &cfg.classes),
        chars: boundary_chars(text, starts),
    };
    let mut out = Vec::new();
    let (mut start, mut fresh) = (0, 0);
    loop {
        let limit = start + cfg.safe_max;
        let (end, oversize) = if limit >= n {
            (n, false)
        } else {
            window_end(&b, fresh, limit)
        };
        out.push(SentenceWindow {
            token_start: start,
            fresh_start: fresh,
            token_end: end,
            oversize,
        });
        if end >= n {
            return out;
        }
        start = overlap_start(&b, start, end, cfg.overlap_tokens);
        fresh = end;
    }
}

/// Where a window from `fresh` (new text) may end, at most at `limit`.
fn window_end(b: &Boundaries<'_>, fresh: usize, limit: usize) -> (usize, bool) {
    let inside = fresh + 1..=limit;
    if let Some(i) = inside
        .clone()
        .rev()
        .find(|&i| b.class[i] < SENTENCE_CLASSES)
    {
        return (i, false);
    }
    let near = b.chars[limit].saturating_sub(LOOKBACK_CHARS);
    let best = inside
        .clone()
        .filter(|&i| b.class[i] != NONE && b.chars[i] >= near)
        .min_by_key(|&i| (b.class[i], std::cmp::Reverse(i)));
    if let Some(i) = best {
        return (i, false);
    }
    if let Some(i) = inside.rev().find(|&i| b.cuttable(i)) {
        return (i, false);
    }
    let n = b.starts.len();
    let i = (limit + 1..=n).find(|&i| b.cuttable(i)).unwrap_or(n);
    (i, true)
}

/// Where the window after `start..end` starts: a proper tail of at most `overlap` tokens.
fn overlap_start(b: &Boundaries<'_>, start: usize, end: usize, overlap: usize) -> usize {
    if overlap == 0 {
        return end;
    }
    let tail = (start + 1).max(end.saturating_sub(overlap))..end;
    let best = tail
        .clone()
        .filter(|&i| b.class[i] != NONE)
        .min_by_key(|&i| (b.class[i], i));
    best.or_else(|| tail.into_iter().find(|&i| b.cuttable(i)))
        .unwrap_or(end)
}

/// The code-point offset of every boundary `0..=starts.len()` (a boundary inside
/// a character counts the characters that start before it).
fn boundary_chars(text: &str, starts: &[u32]) -> Vec<u64> {
    let mut out = Vec::with_capacity(starts.len() + 1);
    let mut chars = text.char_indices().peekable();
    let mut count = 0u64;
    let positions = std::iter::once(0)
        .chain(starts.iter().skip(1).map(|&s| s as usize))
        .chain(std::iter::once(text.len()));
    for at in positions {
        while chars.peek().is_some_and(|&(i, _)| i < at) {
            chars.next();
            count += 1;
        }
        out.push(count);
    }
    out
}

/// Rows: token_start, token_end, byte_start, byte_end, char_start, char_end,
/// overlap_tokens, oversize.
///
/// # Errors
/// Only if a window boundary were not a character boundary, which `sentence_windows`
/// never produces.
pub fn sentence_window_rows(
    text: &str,
    starts: &[u32],
    windows: &[SentenceWindow],
) -> Result<Vec<[u64; 8]>> {
    let byte = |i: usize| match i {
        0 => 0,
        i if i >= starts.len() => text.len(),
        i => starts[i] as usize,
    };
    let map = CharMap::new(
        text,
        windows
            .iter()
            .flat_map(|w| [byte(w.token_start), byte(w.token_end)]),
    )?;
    Ok(windows
        .iter()
        .map(|w| {
            let (a, z) = (byte(w.token_start), byte(w.token_end));
            [
                w.token_start as u64,
                w.token_end as u64,
                a as u64,
                z as u64,
                map.char_of(a),
                map.char_of(z),
                (w.fresh_start - w.token_start) as u64,
                u64::from(w.oversize),
            ]
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::Encoding;
    use proptest::prelude::*;

    fn run(text: &str, safe_max: usize, overlap: usize) -> (Vec<u32>, Vec<SentenceWindow>) {
        let starts = Encoding::Cl100kBase.encode(text).unwrap().byte_starts;
        let cfg = SentenceWindowsConfig::new(safe_max, overlap, crate::breaks::default_classes())
            .unwrap();
        let windows = sentence_windows(text, &starts, &cfg);
        (starts, windows)
    }

    fn texts(text: &str, safe_max: usize, overlap: usize) -> Vec<String> {
        let (starts, windows) = run(text, safe_max, overlap);
        sentence_window_rows(text, &starts, &windows)
            .unwrap()
            .iter()
            .map(|r| text[r[2] as usize..r[3] as usize].to_owned())
            .collect()
    }

    #[test]
    fn packs_sentences_and_overlaps_from_a_break() {
        let text = "One two three. Four five six. Seven eight nine.";
        assert_eq!(
            texts(text, 7, 0),
            vec!["One two three.", " Four five six.", " Seven eight nine."]
        );
        assert_eq!(
            texts(text, 7, 2),
            vec![
                "One two three.",
                " three. Four five six.",
                " six. Seven eight nine."
            ]
        );
    }

    #[test]
    fn long_runs_split_at_token_boundaries_in_linear_time() {
        let text = "a".repeat(200_000);
        let (starts, windows) = run(&text, 85, 10);
        assert!(windows.iter().all(|w| w.token_end - w.token_start <= 85));
        assert_eq!(windows.last().map(|w| w.token_end), Some(starts.len()));
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(SentenceWindowsConfig::new(0, 0, crate::breaks::default_classes()).is_err());
        assert!(SentenceWindowsConfig::new(5, 5, crate::breaks::default_classes()).is_err());
    }

    proptest! {
        #[test]
        fn windows_fit_and_tile(
            text in "[a-z .,!?\\n你好。😀]{0,120}",
            safe_max in 1usize..12,
            overlap in 0usize..6,
        ) {
            let overlap = overlap.min(safe_max - 1);
            let (starts, windows) = run(&text, safe_max, overlap);
            let rows = sentence_window_rows(&text, &starts, &windows).unwrap();
            let mut joined = String::new();
            let mut prev_end = 0;
            for (w, r) in windows.iter().zip(&rows) {
                prop_assert!(w.oversize || w.token_end - w.token_start <= safe_max);
                prop_assert!(w.fresh_start - w.token_start <= overlap);
                prop_assert_eq!(w.fresh_start, prev_end);
                prop_assert!(w.token_end > w.fresh_start || starts.is_empty());
                let fresh_byte = if w.fresh_start == 0 { 0 } else { starts.get(w.fresh_start).map_or(text.len(), |&s| s as usize) };
                joined.push_str(&text[fresh_byte..r[3] as usize]);
                prev_end = w.token_end;
            }
            prop_assert_eq!(joined, text);
        }
    }
}
