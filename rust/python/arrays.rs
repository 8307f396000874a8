//! Result arrays: rows of unsigned values leave as `(n, N)` int64 numpy arrays.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::prelude::*;

/// Moves `rows` into a `(rows.len(), N)` int64 array.
pub fn rows_array<const N: usize>(py: Python<'_>, rows: Vec<[u64; N]>) -> Bound<'_, PyArray2<i64>> {
    let n = rows.len();
    let flat: Vec<i64> = rows.into_iter().flat_map(|r| r.map(|v| v as i64)).collect();
    // The shape always matches: N values per row.
    Array2::from_shape_vec((n, N), flat)
        .unwrap_or_else(|_| Array2::zeros((0, N)))
        .into_pyarray(py)
}
