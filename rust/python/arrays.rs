//! Result arrays: counts and rows leave as int64 numpy arrays.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;

use crate::error::{Error, Result};

/// Moves counts into an int64 array.
pub fn counts_array(py: Python<'_>, counts: Vec<usize>) -> Bound<'_, PyArray1<i64>> {
    counts
        .into_iter()
        .map(|c| c as i64)
        .collect::<Vec<_>>()
        .into_pyarray(py)
}

/// Moves `rows` into a `(rows.len(), N)` int64 array.
///
/// # Errors
/// Never in practice (every row has `N` values); reported rather than hidden.
pub fn rows_array<const N: usize>(
    py: Python<'_>,
    rows: Vec<[i64; N]>,
) -> Result<Bound<'_, PyArray2<i64>>> {
    let n = rows.len();
    let flat: Vec<i64> = rows.into_iter().flatten().collect();
    let array = Array2::from_shape_vec((n, N), flat).map_err(|e| Error::InvalidOffsets {
        index: n,
        value: N as u64,
        reason: format!("row array of the wrong shape ({e})"),
    })?;
    Ok(array.into_pyarray(py))
}
