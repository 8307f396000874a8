//! Windows of whole tokens over `(token byte starts, text)`.
//!
//! Token `i` spans `byte_starts[i]..byte_starts[i + 1]` (the last one runs to
//! the end of the text, the first one starts at 0), so windows tile the text
//! even when a user tokenizer skips characters.
//!
//! Character-boundary rule: a byte-level BPE token can end inside a UTF-8
//! character (an emoji or CJK character split over two tokens). A window may
//! only be cut at a token boundary that is also a character boundary. The end
//! of a window moves back to the nearest such boundary; only when the window
//! holds none (the tokens straddle characters all the way to `max_tokens`)
//! does it move forward, and that window is the only kind that exceeds
//! `max_tokens`. The
//! start of the next window moves forward, so overlap never exceeds
//! `overlap_tokens`, and every window starts after the previous one.

use crate::error::{Error, Result};

/// One window: a token range and the byte range it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub token_start: usize,
    pub token_end: usize,
    pub byte_start: usize,
    pub byte_end: usize,
}

/// Validated window sizes, in whole tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowConfig {
    max_tokens: usize,
    overlap_tokens: usize,
}

impl WindowConfig {
    /// # Errors
    /// [`Error::InvalidConfig`] when `max_tokens < 1` or `overlap_tokens >= max_tokens`.
    pub fn new(max_tokens: i64, overlap_tokens: i64) -> Result<Self> {
        if max_tokens < 1 {
            return Err(Error::InvalidConfig {
                field: "max_tokens",
                value: max_tokens.to_string(),
                expected: "an integer >= 1",
            });
        }
        if overlap_tokens < 0 || overlap_tokens >= max_tokens {
            return Err(Error::InvalidConfig {
                field: "overlap_tokens",
                value: overlap_tokens.to_string(),
                expected: "an integer >= 0 and < max_tokens",
            });
        }
        Ok(WindowConfig {
            max_tokens: max_tokens as usize,
            overlap_tokens: overlap_tokens as usize,
        })
    }
}

/// Checks that user-supplied token starts are non-decreasing and within the text.
///
/// # Errors
/// [`Error::InvalidOffsets`] naming the first bad index.
pub fn validate_starts(byte_starts: &[u32], text_len: usize) -> Result<()> {
    let mut prev = 0;
    for (i, &s) in byte_starts.iter().enumerate() {
        if s < prev {
            return Err(Error::InvalidOffsets {
                index: i,
                value: s.into(),
                reason: format!("offsets must be non-decreasing, previous is {prev}"),
            });
        }
        if s as usize > text_len {
            return Err(Error::InvalidOffsets {
                index: i,
                value: s.into(),
                reason: format!("is past the end of the text ({text_len})"),
            });
        }
        prev = s;
    }
    Ok(())
}

/// Cuts `text` into windows of at most `max_tokens` whole tokens, each
/// overlapping the previous one by at most `overlap_tokens`.
///
/// `byte_starts` must be valid for `text` (see [`validate_starts`]).
pub fn token_windows(text: &str, byte_starts: &[u32], config: WindowConfig) -> Vec<Window> {
    let n = byte_starts.len();
    let start_of = |i: usize| -> usize {
        if i == 0 {
            0
        } else if i >= n {
            text.len()
        } else {
            byte_starts[i] as usize
        }
    };
    let cuttable = |i: usize| i == 0 || i >= n || text.is_char_boundary(start_of(i));
    if n == 0 {
        // No tokens: a non-empty text is kept whole rather than dropped.
        return if text.is_empty() {
            Vec::new()
        } else {
            vec![Window {
                token_start: 0,
                token_end: 0,
                byte_start: 0,
                byte_end: text.len(),
            }]
        };
    }
    let mut windows = Vec::with_capacity(n / (config.max_tokens - config.overlap_tokens) + 1);
    let mut start = 0;
    loop {
        let limit = (start + config.max_tokens).min(n);
        let end = (start + 1..=limit)
            .rev()
            .find(|&e| cuttable(e))
            .or_else(|| (limit + 1..=n).find(|&e| cuttable(e)))
            .unwrap_or(n);
        windows.push(Window {
            token_start: start,
            token_end: end,
            byte_start: start_of(start),
            byte_end: start_of(end),
        });
        if end >= n {
            return windows;
        }
        let wanted = end.saturating_sub(config.overlap_tokens).max(start + 1);
        start = (wanted..=end).find(|&s| cuttable(s)).unwrap_or(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::Encoding;
    use proptest::prelude::*;

    fn windows(text: &str, max: i64, overlap: i64) -> (Vec<u32>, Vec<Window>) {
        let e = Encoding::Cl100kBase.encode(text).unwrap();
        let w = token_windows(
            text,
            &e.byte_starts,
            WindowConfig::new(max, overlap).unwrap(),
        );
        (e.byte_starts, w)
    }

    #[test]
    fn config_is_validated() {
        assert!(WindowConfig::new(0, 0).is_err());
        assert!(WindowConfig::new(4, 4).is_err());
        assert!(WindowConfig::new(4, -1).is_err());
        assert!(WindowConfig::new(4, 3).is_ok());
    }

    #[test]
    fn plain_windows_and_overlap() {
        let starts = [0u32, 2, 4, 6, 8];
        let text = "aabbccddee";
        let cfg = WindowConfig::new(2, 1).unwrap();
        let w = token_windows(text, &starts, cfg);
        let spans: Vec<_> = w.iter().map(|w| (w.token_start, w.token_end)).collect();
        assert_eq!(spans, vec![(0, 2), (1, 3), (2, 4), (3, 5)]);
        assert_eq!((w[3].byte_start, w[3].byte_end), (6, 10));
    }

    #[test]
    fn empty_and_tokenless_text() {
        let cfg = WindowConfig::new(4, 0).unwrap();
        assert!(token_windows("", &[], cfg).is_empty());
        assert_eq!(token_windows("  ", &[], cfg).len(), 1);
    }

    #[test]
    fn never_cuts_inside_a_character() {
        // "🧑‍🚀" style emoji are several byte-level tokens each.
        let text = "🧑\u{200d}🚀🧑\u{200d}🚀 ok 😀😀";
        for max in 1..6 {
            for w in windows(text, max, 0).1 {
                assert!(text.is_char_boundary(w.byte_start) && text.is_char_boundary(w.byte_end));
            }
        }
    }

    proptest! {
        #[test]
        fn windows_cover_the_text_on_char_boundaries(
            text in "\\PC{0,80}|[a 你😀\u{200d}]{0,80}",
            max in 1i64..12,
            overlap_frac in 0.0f64..1.0,
        ) {
            let overlap = ((max as f64) * overlap_frac) as i64 % max;
            let (starts, w) = windows(&text, max, overlap);
            prop_assert_eq!(w.is_empty(), text.is_empty());
            let mut covered = 0;
            let mut prev_start = None;
            for win in &w {
                prop_assert!(text.is_char_boundary(win.byte_start));
                prop_assert!(text.is_char_boundary(win.byte_end));
                prop_assert!(win.byte_start <= covered, "gap before {:?}", win);
                prop_assert!(prev_start.is_none_or(|p| win.token_start > p));
                let tokens = win.token_end - win.token_start;
                // A window exceeds max only when no token boundary within it is a char boundary.
                if tokens as i64 > max {
                    let inner = win.token_start + 1..=win.token_start + max as usize;
                    prop_assert!(inner.into_iter().all(|i| !text.is_char_boundary(starts[i] as usize)));
                }
                covered = win.byte_end;
                prev_start = Some(win.token_start);
            }
            prop_assert_eq!(covered, text.len());
        }
    }
}
