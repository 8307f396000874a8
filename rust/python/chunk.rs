//! Bindings for the chunking pipeline; results leave as `(n, 6)` int64 span arrays.

use numpy::{PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::arrays::rows_array;
use super::errors::IntoPy;
use super::threads;
use crate::chunk::{
    token_window_spans, token_window_spans_from_starts, token_window_spans_many, Span,
};
use crate::slice::WindowConfig;
use crate::tokenize::Encoding;

/// Columns: token_start, token_end, byte_start, byte_end, char_start, char_end.
fn span_array(py: Python<'_>, spans: Vec<Span>) -> Bound<'_, PyArray2<i64>> {
    rows_array(py, spans.into_iter().map(Span::to_row).collect())
}

#[pyfunction]
#[pyo3(name = "token_windows")]
pub fn py_token_windows<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    encoding: &str,
    max_tokens: i64,
    overlap_tokens: i64,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let enc = Encoding::from_name(encoding).or_raise(py)?;
    let config = WindowConfig::new(max_tokens, overlap_tokens).or_raise(py)?;
    let spans = py
        .detach(|| token_window_spans(&text, enc, config))
        .or_raise(py)?;
    Ok(span_array(py, spans))
}

#[pyfunction]
#[pyo3(name = "token_windows_from_starts")]
pub fn py_token_windows_from_starts<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    byte_starts: PyReadonlyArray1<'py, u32>,
    max_tokens: i64,
    overlap_tokens: i64,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let config = WindowConfig::new(max_tokens, overlap_tokens).or_raise(py)?;
    // Copied under the GIL: another Python thread may write to the array.
    let starts = byte_starts.as_array().to_vec();
    let spans = py
        .detach(|| token_window_spans_from_starts(&text, &starts, config))
        .or_raise(py)?;
    Ok(span_array(py, spans))
}

#[pyfunction]
#[pyo3(name = "token_windows_many", signature = (texts, encoding, max_tokens, overlap_tokens, threads=None))]
pub fn py_token_windows_many<'py>(
    py: Python<'py>,
    texts: Vec<PyBackedStr>,
    encoding: &str,
    max_tokens: i64,
    overlap_tokens: i64,
    threads: Option<usize>,
) -> PyResult<Vec<Bound<'py, PyArray2<i64>>>> {
    let enc = Encoding::from_name(encoding).or_raise(py)?;
    let config = WindowConfig::new(max_tokens, overlap_tokens).or_raise(py)?;
    let all = py
        .detach(|| threads::run(threads, || token_window_spans_many(&texts, enc, config)))
        .or_raise(py)?;
    Ok(all.into_iter().map(|spans| span_array(py, spans)).collect())
}
