//! Bindings for the native `tokenizer.json` engine: one frozen handle per file, its
//! calls run without the GIL.

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::arrays::counts_array;
use super::errors::{guard, IntoPy};
use super::threads;
use crate::contracts::stream::Tokens;
use crate::hf::HfTokenizer;
use crate::tokenizer::Encoding;

type IdsAndStarts<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>);
type StartsAndWords<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<bool>>);

#[pyclass(name = "HfTokenizer", module = "ferrochunk._native", frozen)]
pub struct PyHfTokenizer {
    inner: Arc<HfTokenizer>,
}

/// Where a batch call's tokens come from: an embedded encoding's name, or a
/// `tokenizer.json` handle.
pub fn source(tokenizer: &Bound<'_, PyAny>) -> PyResult<Tokens> {
    if let Ok(handle) = tokenizer.cast::<PyHfTokenizer>() {
        return Ok(Tokens::Hf(Arc::clone(&handle.get().inner)));
    }
    let name: PyBackedStr = tokenizer.extract()?;
    Encoding::from_name(&name)
        .map(Tokens::Embedded)
        .or_raise(tokenizer.py())
}

#[pymethods]
impl PyHfTokenizer {
    /// `unigram_scores`: a Unigram model's exact scores, which override the JSON's.
    #[new]
    #[pyo3(signature = (json, unigram_scores=None))]
    fn new(py: Python<'_>, json: PyBackedStr, unigram_scores: Option<Vec<f64>>) -> PyResult<Self> {
        guard(py, "HfTokenizer", || {
            let inner = py
                .detach(|| match &unigram_scores {
                    None => HfTokenizer::from_json(&json),
                    Some(scores) => HfTokenizer::from_json_with_scores(&json, scores),
                })
                .or_raise(py)?;
            Ok(PyHfTokenizer {
                inner: Arc::new(inner),
            })
        })
    }

    /// Special tokens the post-processor adds to one sequence.
    #[getter]
    fn special_tokens(&self) -> usize {
        self.inner.special_tokens()
    }

    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: PyBackedStr,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        guard(py, "HfTokenizer.encode", || {
            let encoded = py.detach(|| self.inner.encode(&text)).or_raise(py)?;
            Ok(encoded.ids.into_pyarray(py))
        })
    }

    fn encode_with_offsets<'py>(
        &self,
        py: Python<'py>,
        text: PyBackedStr,
    ) -> PyResult<IdsAndStarts<'py>> {
        guard(py, "HfTokenizer.encode_with_offsets", || {
            let encoded = py.detach(|| self.inner.encode(&text)).or_raise(py)?;
            Ok((
                encoded.ids.into_pyarray(py),
                encoded.byte_starts.into_pyarray(py),
            ))
        })
    }

    /// Token starts for chunking and whether each token begins a word.
    fn chunk_tokens<'py>(
        &self,
        py: Python<'py>,
        text: PyBackedStr,
    ) -> PyResult<StartsAndWords<'py>> {
        guard(py, "HfTokenizer.chunk_tokens", || {
            let (starts, words) = py.detach(|| self.inner.chunk_tokens(&text)).or_raise(py)?;
            Ok((starts.into_pyarray(py), words.into_pyarray(py)))
        })
    }

    fn count(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<usize> {
        guard(py, "HfTokenizer.count", || {
            py.detach(|| self.inner.count(&text)).or_raise(py)
        })
    }

    #[pyo3(signature = (texts, threads=None))]
    fn count_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        guard(py, "HfTokenizer.count_batch", || {
            let counts = py
                .detach(|| {
                    let refs: Vec<&str> = texts.iter().map(|t| &**t).collect();
                    threads::run(threads, || self.inner.count_batch(&refs))
                })
                .or_raise(py)?;
            Ok(counts_array(py, counts))
        })
    }
}
