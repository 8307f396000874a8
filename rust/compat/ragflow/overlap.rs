//! §4.2–4.3 overlap prefixes, with Python's arithmetic and slice semantics.

use crate::error::{Error, Result};

use super::delim::remove_tag;
use super::num_tokens_from_string;

/// An overlap percentage as upstream receives it: a Python int or float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Percent {
    Int(i64),
    Float(f64),
}

impl Percent {
    /// `p <= 0` as Python evaluates it (false for NaN).
    pub fn is_non_positive(self) -> bool {
        match self {
            Percent::Int(p) => p <= 0,
            Percent::Float(p) => p <= 0.0,
        }
    }

    /// `int(len * (100 - p) / 100.0)`, or the exception Python raises.
    fn cut(self, len: usize) -> Result<f64> {
        let x = match self {
            // Python multiplies exactly, then converts the integer to float once.
            Percent::Int(p) => (len as i128 * (100 - i128::from(p))) as f64 / 100.0,
            Percent::Float(p) => len as f64 * (100.0 - p) / 100.0,
        };
        if x.is_nan() {
            return Err(Error::Upstream {
                class: "ValueError",
                message: "cannot convert float NaN to integer".into(),
            });
        }
        if x.is_infinite() {
            return Err(Error::Upstream {
                class: "OverflowError",
                message: "cannot convert float infinity to integer".into(),
            });
        }
        Ok(x.trunc())
    }
}

/// `visible[cut:]` with Python slice semantics (a negative cut counts from the end).
fn tail(visible: &str, cut: f64) -> &str {
    let n = visible.chars().count();
    let start = if cut >= n as f64 {
        n
    } else if cut >= 0.0 {
        cut as usize
    } else if -cut >= n as f64 {
        0
    } else {
        n - (-cut) as usize
    };
    match visible.char_indices().nth(start) {
        Some((at, _)) => &visible[at..],
        None => "",
    }
}

/// §4.2 `_compute_overlap_prefix`: the last part of `prev` (tags removed) and its count.
///
/// # Errors
/// [`Error::Upstream`] `ValueError`/`OverflowError` for a NaN/infinite cut.
pub fn compute_overlap_prefix(prev: &str, percent: Percent) -> Result<(String, usize)> {
    let visible = remove_tag(prev);
    if visible.is_empty() {
        return Ok((String::new(), 0));
    }
    let prefix = tail(&visible, percent.cut(visible.chars().count())?).to_owned();
    let count = num_tokens_from_string(&prefix)?;
    Ok((prefix, count))
}

/// §4.3: each chunk after the first gets the prefix of the previous *output*
/// chunk (so overlap cascades), glued without a separator.
///
/// # Errors
/// As [`compute_overlap_prefix`].
pub fn apply_overlap(chunks: &mut [String], percent: Percent) -> Result<()> {
    if percent.is_non_positive() {
        return Ok(());
    }
    for i in 1..chunks.len() {
        let visible = remove_tag(&chunks[i - 1]);
        if visible.is_empty() {
            continue;
        }
        let prefix = tail(&visible, percent.cut(visible.chars().count())?).to_owned();
        chunks[i].insert_str(0, &prefix);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(prev: &str, p: Percent) -> (String, usize) {
        compute_overlap_prefix(prev, p).unwrap()
    }

    #[test]
    fn spec_examples() {
        use Percent::*;
        assert_eq!(prefix("abcdefghij", Int(33)), ("ghij".into(), 2));
        assert_eq!(prefix("中文字符测试一二三四", Int(50)).0, "试一二三四");
        assert_eq!(prefix("abcdefghij", Float(0.2)), ("j".into(), 1));
        assert_eq!(prefix("abcdefghij", Int(100)), ("abcdefghij".into(), 2));
        assert_eq!(prefix("abcdefghij", Int(150)), ("fghij".into(), 3));
        assert_eq!(prefix("abcdefghij", Int(199)), ("bcdefghij".into(), 4));
        assert_eq!(prefix("abcdefghij", Int(200)).0, "abcdefghij");
        assert_eq!(prefix("abcdefghij", Int(1000)).0, "abcdefghij");
        assert_eq!(prefix("abc", Int(150)), ("c".into(), 1));
        assert_eq!(prefix("abcdefghij", Int(-50)), (String::new(), 0));
        assert_eq!(prefix("", Float(f64::NAN)), (String::new(), 0));
        assert!(matches!(
            compute_overlap_prefix("a", Float(f64::NAN)),
            Err(Error::Upstream {
                class: "ValueError",
                ..
            })
        ));
        assert!(matches!(
            compute_overlap_prefix("a", Float(f64::INFINITY)),
            Err(Error::Upstream {
                class: "OverflowError",
                ..
            })
        ));
    }

    #[test]
    fn overlap_cascades() {
        let mut chunks: Vec<String> = vec!["\naaa".into(), "\nbbb".into(), "\nccc".into()];
        apply_overlap(&mut chunks, Percent::Int(100)).unwrap();
        assert_eq!(chunks, vec!["\naaa", "\naaa\nbbb", "\naaa\nbbb\nccc"]);
        let mut chunks: Vec<String> = vec!["\naaa".into(), "\nbbb".into(), "\nccc".into()];
        apply_overlap(&mut chunks, Percent::Int(150)).unwrap();
        assert_eq!(chunks, vec!["\naaa", "aa\nbbb", "bbb\nccc"]);
    }
}
