//! Bindings for the embedded tokenizer and offset conversion.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyList;

use super::arrays::counts_array;
use super::errors::{guard, IntoPy};
use super::id_list::id_list;
use super::threads;
use crate::text::offsets::{convert_sorted, Unit};
use crate::tokenizer::Encoding;

#[pyfunction]
#[pyo3(name = "encode")]
pub fn py_encode<'py>(
    py: Python<'py>,
    encoding: &str,
    text: PyBackedStr,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    guard(py, "encode", || {
        let enc = Encoding::from_name(encoding)
            .and_then(Encoding::load)
            .or_raise(py)?;
        let ids = py.detach(|| enc.encode_ids(&text));
        Ok(ids.into_pyarray(py))
    })
}

#[pyfunction]
#[pyo3(name = "encode_list")]
pub fn py_encode_list<'py>(
    py: Python<'py>,
    encoding: &str,
    text: PyBackedStr,
) -> PyResult<Bound<'py, PyList>> {
    guard(py, "encode_list", || {
        let enc = Encoding::from_name(encoding)
            .and_then(Encoding::load)
            .or_raise(py)?;
        let ids = py.detach(|| enc.encode_ids(&text));
        id_list(py, enc, &ids)
    })
}

type IdsAndStarts<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>);

#[pyfunction]
#[pyo3(name = "encode_with_offsets")]
pub fn py_encode_with_offsets<'py>(
    py: Python<'py>,
    encoding: &str,
    text: PyBackedStr,
) -> PyResult<IdsAndStarts<'py>> {
    guard(py, "encode_with_offsets", || {
        let enc = Encoding::from_name(encoding)
            .and_then(Encoding::load)
            .or_raise(py)?;
        let encoded = py.detach(|| enc.encode(&text)).or_raise(py)?;
        Ok((
            encoded.ids.into_pyarray(py),
            encoded.byte_starts.into_pyarray(py),
        ))
    })
}

#[pyfunction]
#[pyo3(name = "count")]
pub fn py_count(py: Python<'_>, encoding: &str, text: PyBackedStr) -> PyResult<usize> {
    guard(py, "count", || {
        let enc = Encoding::from_name(encoding)
            .and_then(Encoding::load)
            .or_raise(py)?;
        Ok(py.detach(|| enc.count(&text)))
    })
}

#[pyfunction]
#[pyo3(name = "count_batch", signature = (encoding, texts, threads=None))]
pub fn py_count_batch<'py>(
    py: Python<'py>,
    encoding: &str,
    texts: Vec<PyBackedStr>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    guard(py, "count_batch", || {
        let enc = Encoding::from_name(encoding)
            .and_then(Encoding::load)
            .or_raise(py)?;
        let counts = py
            .detach(|| {
                let refs: Vec<&str> = texts.iter().map(|t| &**t).collect();
                threads::run(threads, || Ok(enc.count_batch(&refs)))
            })
            .or_raise(py)?;
        Ok(counts_array(py, counts))
    })
}

#[pyfunction]
#[pyo3(name = "char_to_byte_offsets")]
pub fn py_char_to_byte_offsets<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    char_offsets: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    guard(py, "char_to_byte_offsets", || {
        // Copied under the GIL: another Python thread may write to the array.
        let offsets = char_offsets.as_array().to_vec();
        let bytes = py
            .detach(|| {
                crate::tokenizer::check_len(&text)?;
                convert_sorted(&text, &offsets, Unit::Char, Unit::Byte)
            })
            .or_raise(py)?;
        // `check_len` bounds every byte offset by u32::MAX.
        Ok(bytes
            .into_iter()
            .map(|b| b as u32)
            .collect::<Vec<_>>()
            .into_pyarray(py))
    })
}
