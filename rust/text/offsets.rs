//! Byte <-> code point <-> UTF-16 offset conversion in one pass.
//!
//! Rust slices text by bytes, Python by code points and JavaScript by UTF-16
//! units. Chunk offsets are produced as bytes and converted here, walking the
//! text once for a whole sorted list of positions instead of once per position.

use crate::error::{Error, Result};

/// A unit in which a text offset is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// UTF-8 bytes (Rust `str` indices).
    Byte,
    /// Unicode code points (Python `str` indices).
    Char,
    /// UTF-16 code units (JavaScript string indices).
    Utf16,
}

fn width(c: char, unit: Unit) -> usize {
    match unit {
        Unit::Byte => c.len_utf8(),
        Unit::Char => 1,
        Unit::Utf16 => c.len_utf16(),
    }
}

/// Converts non-decreasing `positions` counted in `from` units into `to` units.
///
/// Every position must fall on a character boundary and be at most the text's
/// length in `from` units.
///
/// # Errors
/// [`Error::InvalidOffsets`] for a decreasing position, one inside a
/// character, or one past the end.
pub fn convert_sorted(text: &str, positions: &[u64], from: Unit, to: Unit) -> Result<Vec<u64>> {
    let mut out = Vec::with_capacity(positions.len());
    if from == to || text.is_ascii() {
        // Identical units, or ASCII, where all three units coincide.
        let len = len_in(text, from) as u64;
        let mut prev = 0;
        for (i, &p) in positions.iter().enumerate() {
            check_order(i, p, prev)?;
            if p > len {
                return Err(past_end(i, p));
            }
            if from == Unit::Byte && !text.is_char_boundary(p as usize) {
                return Err(inside_char(i, p));
            }
            out.push(p);
            prev = p;
        }
        return Ok(out);
    }
    let mut chars = text.chars();
    let (mut at_from, mut at_to) = (0u64, 0u64);
    let mut prev = 0;
    for (i, &p) in positions.iter().enumerate() {
        check_order(i, p, prev)?;
        prev = p;
        while at_from < p {
            let Some(c) = chars.next() else {
                return Err(past_end(i, p));
            };
            at_from += width(c, from) as u64;
            at_to += width(c, to) as u64;
        }
        if at_from != p {
            return Err(inside_char(i, p));
        }
        out.push(at_to);
    }
    Ok(out)
}

fn check_order(i: usize, p: u64, prev: u64) -> Result<()> {
    if p < prev {
        return Err(Error::InvalidOffsets {
            index: i,
            value: p,
            reason: format!("offsets must be non-decreasing, previous is {prev}"),
        });
    }
    Ok(())
}

fn past_end(i: usize, p: u64) -> Error {
    Error::InvalidOffsets {
        index: i,
        value: p,
        reason: "is past the end of the text".into(),
    }
}

fn inside_char(i: usize, p: u64) -> Error {
    Error::InvalidOffsets {
        index: i,
        value: p,
        reason: "falls inside a character".into(),
    }
}

/// Checks that token starts (relative to a text of `text_len` bytes) are
/// non-decreasing and within the text.
///
/// # Errors
/// [`Error::InvalidOffsets`] naming the first bad index.
pub fn validate_starts(starts: &[u32], text_len: usize) -> Result<()> {
    let mut prev = 0;
    for (i, &s) in starts.iter().enumerate() {
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

/// Code-point offsets for a set of byte offsets, converted in one pass.
pub struct CharMap {
    bytes: Vec<u64>,
    chars: Vec<u64>,
}

impl CharMap {
    /// # Errors
    /// [`Error::InvalidOffsets`] if a position is inside a character or past the end.
    pub fn new(text: &str, positions: impl IntoIterator<Item = usize>) -> Result<Self> {
        let mut bytes: Vec<u64> = positions.into_iter().map(|p| p as u64).collect();
        bytes.sort_unstable();
        bytes.dedup();
        let chars = convert_sorted(text, &bytes, Unit::Byte, Unit::Char)?;
        Ok(CharMap { bytes, chars })
    }

    /// The code-point offset of a byte offset given to [`CharMap::new`].
    ///
    /// # Errors
    /// [`Error::InvalidOffsets`] for a byte offset the map was not built for.
    pub fn char_of(&self, byte: usize) -> Result<u64> {
        match self.bytes.binary_search(&(byte as u64)) {
            Ok(i) => Ok(self.chars[i]),
            Err(_) => Err(Error::InvalidOffsets {
                index: 0,
                value: byte as u64,
                reason: "is not a position this offset map was built for".into(),
            }),
        }
    }
}

/// Length of `text` in `unit`.
pub fn len_in(text: &str, unit: Unit) -> usize {
    match unit {
        Unit::Byte => text.len(),
        Unit::Char => text.chars().count(),
        Unit::Utf16 => text.encode_utf16().count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn converts_mixed_width_text() {
        // a(1) é(2) 你(3) 😀(4 bytes, 2 UTF-16 units) b(1)
        let text = "aé你😀b";
        let bytes = [0, 1, 3, 6, 10, 11];
        assert_eq!(
            convert_sorted(text, &bytes, Unit::Byte, Unit::Char).unwrap(),
            vec![0, 1, 2, 3, 4, 5]
        );
        assert_eq!(
            convert_sorted(text, &bytes, Unit::Byte, Unit::Utf16).unwrap(),
            vec![0, 1, 2, 3, 5, 6]
        );
        assert_eq!(
            convert_sorted(text, &[0, 2, 3, 5], Unit::Char, Unit::Byte).unwrap(),
            vec![0, 3, 6, 11]
        );
    }

    #[test]
    fn rejects_bad_positions() {
        let text = "aé";
        assert!(convert_sorted(text, &[2], Unit::Byte, Unit::Char).is_err());
        assert!(convert_sorted(text, &[4], Unit::Byte, Unit::Char).is_err());
        assert!(convert_sorted(text, &[1, 0], Unit::Byte, Unit::Char).is_err());
        assert!(convert_sorted("ab", &[3], Unit::Char, Unit::Byte).is_err());
        assert!(convert_sorted(text, &[2], Unit::Byte, Unit::Byte).is_err());
    }

    proptest! {
        #[test]
        fn round_trips_every_boundary(text in "\\PC{0,40}") {
            let bytes: Vec<u64> = text
                .char_indices()
                .map(|(b, _)| b as u64)
                .chain([text.len() as u64])
                .collect();
            let chars = convert_sorted(&text, &bytes, Unit::Byte, Unit::Char).unwrap();
            prop_assert_eq!(&chars, &(0..=text.chars().count() as u64).collect::<Vec<_>>());
            let back = convert_sorted(&text, &chars, Unit::Char, Unit::Byte).unwrap();
            prop_assert_eq!(&back, &bytes);
            let utf16 = convert_sorted(&text, &bytes, Unit::Byte, Unit::Utf16).unwrap();
            prop_assert_eq!(*utf16.last().unwrap(), len_in(&text, Unit::Utf16) as u64);
            let back16 = convert_sorted(&text, &utf16, Unit::Utf16, Unit::Byte).unwrap();
            prop_assert_eq!(back16, bytes);
        }
    }
}
