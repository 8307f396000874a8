//! Bindings for `ferrochunk.Recursive` (the Dify family's native contract).

use numpy::{PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::arrays::{rows_array, token_starts};
use super::errors::IntoPy;
use crate::families::dify_contract::{recursive_chunks, recursive_rows, Keep, RecursiveConfig};
use crate::tokenize::{check_len, Encoding};

fn config(
    max_tokens: usize,
    overlap_tokens: usize,
    fixed_separator: Option<String>,
    separators: Vec<String>,
    keep_end: bool,
) -> RecursiveConfig {
    RecursiveConfig {
        max_tokens,
        overlap_tokens,
        fixed_separator,
        separators,
        keep: if keep_end { Keep::End } else { Keep::Start },
    }
}

/// Tokenizes with an embedded encoding (or takes a user tokenizer's byte starts) and
/// returns `(n, 7)` rows: token_start, token_end, byte_start, byte_end, char_start,
/// char_end, oversize.
#[pyfunction]
#[pyo3(name = "recursive", signature = (text, encoding, byte_starts, max_tokens, overlap_tokens, fixed_separator, separators, keep_end))]
#[allow(clippy::too_many_arguments)]
pub fn py_recursive<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    encoding: Option<&str>,
    byte_starts: Option<PyReadonlyArray1<'py, u32>>,
    max_tokens: usize,
    overlap_tokens: usize,
    fixed_separator: Option<String>,
    separators: Vec<String>,
    keep_end: bool,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let cfg = config(
        max_tokens,
        overlap_tokens,
        fixed_separator,
        separators,
        keep_end,
    );
    cfg.validate().or_raise(py)?;
    let enc = encoding.map(Encoding::from_name).transpose().or_raise(py)?;
    // Copied under the GIL: another Python thread may write to the array.
    let given: Option<Vec<u32>> = byte_starts.map(|a| a.as_array().to_vec());
    let rows = py
        .detach(|| {
            check_len(&text)?;
            let starts = token_starts(&text, given, enc)?;
            recursive_rows(&text, &recursive_chunks(&text, &starts, &cfg))
        })
        .or_raise(py)?;
    Ok(rows_array(py, rows))
}
