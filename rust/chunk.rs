//! The pipeline the bindings call: tokenize once, cut, and attach offsets in
//! every unit a caller needs.

use rayon::prelude::*;

use crate::error::Result;
use crate::offsets::CharMap;
use crate::slice::{token_windows, validate_starts, Window, WindowConfig};
use crate::tokenize::{check_len, Encoding};

/// A chunk's position: token range, byte range and code-point range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub token_start: u64,
    pub token_end: u64,
    pub byte_start: u64,
    pub byte_end: u64,
    pub char_start: u64,
    pub char_end: u64,
}

impl Span {
    /// The row layout of the span arrays handed to Python.
    pub fn to_row(self) -> [u64; 6] {
        [
            self.token_start,
            self.token_end,
            self.byte_start,
            self.byte_end,
            self.char_start,
            self.char_end,
        ]
    }
}

/// Adds code-point offsets to windows, converting all their byte offsets in
/// one pass over the text.
///
/// # Errors
/// Only if a window is not on character boundaries, which `token_windows` rules out.
pub fn spans_of(text: &str, windows: &[Window]) -> Result<Vec<Span>> {
    let map = CharMap::new(
        text,
        windows.iter().flat_map(|w| [w.byte_start, w.byte_end]),
    )?;
    Ok(windows
        .iter()
        .map(|w| Span {
            token_start: w.token_start as u64,
            token_end: w.token_end as u64,
            byte_start: w.byte_start as u64,
            byte_end: w.byte_end as u64,
            char_start: map.char_of(w.byte_start),
            char_end: map.char_of(w.byte_end),
        })
        .collect())
}

/// Token windows over the embedded tokenizer's output.
///
/// # Errors
/// [`crate::Error::TextTooLarge`] for texts of 4 GiB or more.
pub fn token_window_spans(
    text: &str,
    encoding: Encoding,
    config: WindowConfig,
) -> Result<Vec<Span>> {
    let encoded = encoding.encode(text)?;
    spans_of(text, &token_windows(text, &encoded.byte_starts, config))
}

/// Token windows over a user tokenizer's token start offsets (bytes).
///
/// # Errors
/// [`crate::Error::InvalidOffsets`] when the starts decrease or pass the end.
pub fn token_window_spans_from_starts(
    text: &str,
    byte_starts: &[u32],
    config: WindowConfig,
) -> Result<Vec<Span>> {
    check_len(text)?;
    validate_starts(byte_starts, text.len())?;
    spans_of(text, &token_windows(text, byte_starts, config))
}

/// [`token_window_spans`] for many documents, in parallel on the current rayon pool.
///
/// # Errors
/// The first document's error, if any.
pub fn token_window_spans_many<S: AsRef<str> + Sync>(
    texts: &[S],
    encoding: Encoding,
    config: WindowConfig,
) -> Result<Vec<Vec<Span>>> {
    texts
        .par_iter()
        .map(|t| token_window_spans(t.as_ref(), encoding, config))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_carry_char_offsets() {
        let text = "你好，世界。hello world";
        let cfg = WindowConfig::new(3, 1).unwrap();
        let spans = token_window_spans(text, Encoding::Cl100kBase, cfg).unwrap();
        let chars: Vec<char> = text.chars().collect();
        for s in &spans {
            let by_bytes = &text[s.byte_start as usize..s.byte_end as usize];
            let by_chars: String = chars[s.char_start as usize..s.char_end as usize]
                .iter()
                .collect();
            assert_eq!(by_bytes, by_chars);
        }
        assert_eq!(spans.last().unwrap().char_end as usize, chars.len());
    }

    #[test]
    fn bad_user_offsets_are_rejected() {
        let cfg = WindowConfig::new(3, 0).unwrap();
        assert!(token_window_spans_from_starts("abcd", &[0, 2, 1], cfg).is_err());
        assert!(token_window_spans_from_starts("abcd", &[0, 9], cfg).is_err());
        assert_eq!(
            token_window_spans_from_starts("abcd", &[0, 2], cfg)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn many_equals_one_by_one() {
        let texts = ["a b c d e f", "", "你好😀"];
        let cfg = WindowConfig::new(2, 1).unwrap();
        let many = token_window_spans_many(&texts, Encoding::O200kBase, cfg).unwrap();
        for (t, spans) in texts.iter().zip(many) {
            assert_eq!(
                spans,
                token_window_spans(t, Encoding::O200kBase, cfg).unwrap()
            );
        }
    }
}
