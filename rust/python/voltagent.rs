//! Bindings for VoltAgent's js-tiktoken tokenizer and chunkers (`compat/voltagent/`).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::PyBytes;

use super::arrays::{counts_array, rows_array};
use super::errors::{guard, IntoPy};
use crate::compat::voltagent::{self, chunkers, chunkers::OverlapUnit, js};
use crate::error::{Error, Result};

#[pyfunction]
#[pyo3(name = "voltagent_token_ends")]
pub fn py_token_ends<'py>(
    py: Python<'py>,
    text: PyBackedStr,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    guard(py, "voltagent_token_ends", || {
        let ends = py.detach(|| voltagent::token_ends(&text)).or_raise(py)?;
        Ok(ends.into_pyarray(py))
    })
}

#[pyfunction]
#[pyo3(name = "voltagent_token_values")]
pub fn py_token_values(py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<String>> {
    guard(py, "voltagent_token_values", || {
        py.detach(|| voltagent::token_values(&text)).or_raise(py)
    })
}

#[pyfunction]
#[pyo3(name = "voltagent_counts")]
pub fn py_counts<'py>(
    py: Python<'py>,
    texts: Vec<PyBackedStr>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    guard(py, "voltagent_counts", || {
        let counts = py
            .detach(|| {
                let refs: Vec<&str> = texts.iter().map(|t| &**t).collect();
                voltagent::counts(&refs)
            })
            .or_raise(py)?;
        Ok(counts_array(py, counts))
    })
}

#[pyfunction]
#[pyo3(name = "voltagent_prefix_counts")]
pub fn py_prefix_counts<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    positions: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    guard(py, "voltagent_prefix_counts", || {
        // Copied under the GIL: another Python thread may write to the array.
        let positions = positions.as_array().to_vec();
        let counts = py
            .detach(|| voltagent::prefix_counts(&text, &positions))
            .or_raise(py)?;
        Ok(counts_array(py, counts))
    })
}

/// The text as the chunkers take it: a `str` (sliced back by code points), or the
/// UTF-16-LE bytes of its JS form when it holds lone surrogates.
enum JsInput {
    Str(PyBackedStr),
    Utf16(PyBackedBytes),
}

/// `TokenChunker` (`"token"`), `SentenceChunker` (`"sentence"`) or `RecursiveChunker`
/// (`"recursive-tokens"`, `"recursive-chars"`): one row of 16 numbers per chunk, the
/// 14 of `chunkers::Row::columns` and the content's code-point range in a `str` input
/// (-1 when a bound cuts a surrogate pair, or for bytes). `None` when the text holds a
/// special token: the general path raises it where upstream does.
#[pyfunction]
#[pyo3(name = "voltagent_chunks")]
pub fn py_chunks<'py>(
    py: Python<'py>,
    chunker: &str,
    text: &Bound<'py, PyAny>,
    max_tokens: i64,
    overlap: i64,
) -> PyResult<Option<Bound<'py, PyArray2<i64>>>> {
    guard(py, "voltagent_chunks", || {
        let input = match text.cast::<PyBytes>() {
            Ok(bytes) => JsInput::Utf16(bytes.clone().into()),
            Err(_) => JsInput::Str(text.extract()?),
        };
        let rows = py
            .detach(|| -> Result<Option<Vec<[i64; 16]>>> {
                let units = match &input {
                    JsInput::Str(s) => s.encode_utf16().collect(),
                    JsInput::Utf16(b) => units_of(b)?,
                };
                if voltagent::has_special_units(&units)? {
                    return Ok(None);
                }
                let utf8 = match &input {
                    JsInput::Str(s) => Some(&**s),
                    JsInput::Utf16(_) => None,
                };
                let (size, units) = (max_tokens, units.as_slice());
                let rows = match chunker {
                    "token" => chunkers::token_windows(units, utf8, size, overlap),
                    "sentence" => chunkers::sentence_groups(units, utf8, size, overlap),
                    "recursive-tokens" => {
                        chunkers::recursive_chunks(units, utf8, size, overlap, OverlapUnit::Tokens)
                    }
                    "recursive-chars" => {
                        chunkers::recursive_chunks(units, utf8, size, overlap, OverlapUnit::Chars)
                    }
                    other => Err(Error::InvalidConfig {
                        field: "chunker",
                        value: format!("{other:?}"),
                        expected: "'token', 'sentence', 'recursive-tokens' or 'recursive-chars'",
                    }),
                }?;
                // Content bounds in code points, to slice the str; -1 inside a pair.
                let mut bounds: Vec<u64> = Vec::new();
                if matches!(input, JsInput::Str(_)) {
                    bounds = rows
                        .iter()
                        .flat_map(|r| [r.content.0, r.content.1])
                        .filter(|&k| !js::inside_pair(units, k))
                        .map(|k| k as u64)
                        .collect();
                    bounds.sort_unstable();
                    bounds.dedup();
                }
                let chars = match &input {
                    JsInput::Str(_) => js::code_points_at(units, &bounds),
                    JsInput::Utf16(_) => Vec::new(),
                };
                let at = |k: usize| match bounds.binary_search(&(k as u64)) {
                    Ok(i) => chars[i] as i64,
                    Err(_) => -1,
                };
                Ok(Some(
                    rows.iter()
                        .map(|r| {
                            let mut out = [0i64; 16];
                            out[..14].copy_from_slice(&r.columns());
                            out[14] = at(r.content.0);
                            out[15] = at(r.content.1);
                            out
                        })
                        .collect(),
                ))
            })
            .or_raise(py)?;
        rows.map(|rows| rows_array(py, rows).or_raise(py))
            .transpose()
    })
}

/// UTF-16-LE bytes as code units.
fn units_of(bytes: &[u8]) -> Result<Vec<u16>> {
    if bytes.len() % 2 != 0 {
        return Err(Error::InvalidConfig {
            field: "utf16",
            value: format!("{} bytes", bytes.len()),
            expected: "UTF-16-LE bytes (an even length)",
        });
    }
    Ok(bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect())
}
