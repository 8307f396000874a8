//! Result arrays: rows of unsigned values leave as `(n, N)` int64 numpy arrays.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;

use crate::error::Result;
use crate::slice::validate_starts;
use crate::tokenize::Encoding;

/// Moves counts into an int64 array.
pub fn counts_array(py: Python<'_>, counts: Vec<usize>) -> Bound<'_, PyArray1<i64>> {
    counts
        .into_iter()
        .map(|c| c as i64)
        .collect::<Vec<_>>()
        .into_pyarray(py)
}

/// A user tokenizer's validated byte starts, or the embedded encoding's; none without either.
///
/// # Errors
/// Malformed user starts, or text too large to encode.
pub fn token_starts(
    text: &str,
    given: Option<Vec<u32>>,
    enc: Option<Encoding>,
) -> Result<Vec<u32>> {
    match (given, enc) {
        (Some(starts), _) => {
            validate_starts(&starts, text.len())?;
            Ok(starts)
        }
        (None, Some(enc)) => Ok(enc.encode(text)?.byte_starts),
        (None, None) => Ok(Vec::new()),
    }
}

/// Moves `rows` into a `(rows.len(), N)` int64 array.
pub fn rows_array<const N: usize>(py: Python<'_>, rows: Vec<[u64; N]>) -> Bound<'_, PyArray2<i64>> {
    let n = rows.len();
    let flat: Vec<i64> = rows.into_iter().flat_map(|r| r.map(|v| v as i64)).collect();
    // The shape always matches: N values per row.
    Array2::from_shape_vec((n, N), flat)
        .unwrap_or_else(|_| Array2::zeros((0, N)))
        .into_pyarray(py)
}
