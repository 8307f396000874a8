//! Bindings for `ferrochunk.SentenceWindows`.

use numpy::{PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::arrays::{rows_array, token_starts};
use super::errors::IntoPy;
use crate::breaks::BreakClasses;
use crate::sentence_windows::{sentence_window_rows, sentence_windows, SentenceWindowsConfig};
use crate::tokenize::{check_len, Encoding};

/// Tokenizes with an embedded encoding (or takes a user tokenizer's byte starts) and
/// returns `(n, 8)` rows: the six span columns, overlap_tokens, oversize.
#[pyfunction]
#[pyo3(name = "sentence_windows")]
pub fn py_sentence_windows<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    encoding: Option<&str>,
    byte_starts: Option<PyReadonlyArray1<'py, u32>>,
    safe_max: usize,
    overlap_tokens: usize,
    break_classes: Vec<Vec<String>>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let classes = BreakClasses::parse(&break_classes).or_raise(py)?;
    let cfg = SentenceWindowsConfig::new(safe_max, overlap_tokens, classes).or_raise(py)?;
    let enc = encoding.map(Encoding::from_name).transpose().or_raise(py)?;
    // Copied under the GIL: another Python thread may write to the array.
    let given: Option<Vec<u32>> = byte_starts.map(|a| a.as_array().to_vec());
    let rows = py
        .detach(|| {
            check_len(&text)?;
            let starts = token_starts(&text, given, enc)?;
            sentence_window_rows(&text, &starts, &sentence_windows(&text, &starts, &cfg))
        })
        .or_raise(py)?;
    Ok(rows_array(py, rows))
}
