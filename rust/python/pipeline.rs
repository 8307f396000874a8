//! Bindings for the one pipeline: a whole text, many texts, or a stream.

use std::sync::Mutex;

use numpy::{PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyList, PyString};
use rayon::prelude::*;

use super::arrays::rows_array;
use super::errors::{guard, IntoPy};
use super::{spec, threads};
use crate::contracts::delimiter_merge::pieces;
use crate::contracts::stream::{chunk_text, Batch, Pipeline, Tokens};
use crate::contracts::Spec;
use crate::error::{Error, Result};
use crate::tokenizer::Encoding;

/// `(table, spans, texts)`: the rows as an `(n, 14)` int64 array, the spans of
/// joined chunks as an `(m, 4)` int64 array, and each row's text.
pub type PyBatch<'py> = (
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyList>,
);

/// Moves a batch into Python objects: two arrays and one `str` per row.
pub fn to_python(py: Python<'_>, batch: Batch) -> PyResult<PyBatch<'_>> {
    let mut texts = Vec::with_capacity(batch.text_ends.len());
    let mut from = 0;
    for &end in &batch.text_ends {
        let end = end as usize;
        texts.push(PyString::new(py, &batch.text[from..end]));
        from = end;
    }
    Ok((
        rows_array(py, batch.table).or_raise(py)?,
        rows_array(py, batch.spans).or_raise(py)?,
        PyList::new(py, texts)?,
    ))
}

fn tokens(
    encoding: Option<&str>,
    starts: Option<PyReadonlyArray1<'_, u32>>,
    counts: Option<PyReadonlyArray1<'_, u32>>,
) -> Result<Tokens> {
    // Arrays are copied under the GIL: another Python thread may write to them.
    match (encoding, starts, counts) {
        (Some(name), None, None) => Ok(Tokens::Embedded(Encoding::from_name(name)?)),
        (None, Some(s), None) => Ok(Tokens::Given(s.as_array().to_vec())),
        (None, Some(s), Some(c)) => Ok(Tokens::GivenPieces {
            starts: s.as_array().to_vec(),
            counts: c.as_array().to_vec(),
        }),
        _ => Err(Error::InvalidConfig {
            field: "tokens",
            value: "a mix of encoding, starts and counts".into(),
            expected: "an encoding name, or token starts (with per-piece counts)",
        }),
    }
}

#[pyfunction]
#[pyo3(name = "chunk", signature = (text, spec, encoding=None, starts=None, counts=None))]
pub fn py_chunk<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    spec: &Bound<'py, PyAny>,
    encoding: Option<&str>,
    starts: Option<PyReadonlyArray1<'py, u32>>,
    counts: Option<PyReadonlyArray1<'py, u32>>,
) -> PyResult<PyBatch<'py>> {
    guard(py, "chunk", || {
        let spec = spec::parse(spec)?;
        let tokens = tokens(encoding, starts, counts).or_raise(py)?;
        let batch = py
            .detach(|| chunk_text(&text, &spec, tokens))
            .or_raise(py)?;
        to_python(py, batch)
    })
}

#[pyfunction]
#[pyo3(name = "chunk_many", signature = (texts, spec, encoding, threads=None))]
pub fn py_chunk_many<'py>(
    py: Python<'py>,
    texts: Vec<PyBackedStr>,
    spec: &Bound<'py, PyAny>,
    encoding: &str,
    threads: Option<usize>,
) -> PyResult<Vec<PyBatch<'py>>> {
    guard(py, "chunk_many", || {
        let spec = spec::parse(spec)?;
        let enc = Encoding::from_name(encoding).or_raise(py)?;
        let batches = py
            .detach(|| {
                threads::run(threads, || {
                    texts
                        .par_iter()
                        .map(|t| chunk_text(t, &spec, Tokens::Embedded(enc)))
                        .collect::<Result<Vec<_>>>()
                })
            })
            .or_raise(py)?;
        batches.into_iter().map(|b| to_python(py, b)).collect()
    })
}

/// The byte ranges of a delimiter contract's pieces: what a Python tokenizer tokenizes.
#[pyfunction]
#[pyo3(name = "delimiter_pieces")]
pub fn py_delimiter_pieces<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    spec: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    guard(py, "delimiter_pieces", || {
        let Spec::Delimiter(cfg) = spec::parse(spec)? else {
            return Err(Error::InvalidConfig {
                field: "spec",
                value: "not a delimiter contract".into(),
                expected: "a DelimiterMerge spec",
            })
            .or_raise(py);
        };
        let found = py.detach(|| pieces(&text, &cfg)).or_raise(py)?;
        let ranges = found
            .into_iter()
            .map(|r| [r.start as i64, r.end as i64])
            .collect();
        rows_array(py, ranges).or_raise(py)
    })
}

/// A stream of text pieces through the pipeline (the one stateful binding: a
/// stream has to remember its carry between pieces).
#[pyclass(name = "Stream", module = "ferrochunk._native", weakref)]
pub struct PyStream {
    pipeline: Mutex<Pipeline>,
}

impl PyStream {
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        entry: &str,
        f: impl FnOnce(&mut Pipeline) -> Result<T> + Send,
    ) -> PyResult<T> {
        guard(py, entry, || {
            py.detach(|| {
                let mut pipeline = self.pipeline.lock().map_err(|_| Error::InvalidConfig {
                    field: "stream",
                    value: "poisoned".into(),
                    expected: "a stream that no earlier call left broken",
                })?;
                f(&mut pipeline)
            })
            .or_raise(py)
        })
    }
}

#[pymethods]
impl PyStream {
    #[new]
    fn new(spec: &Bound<'_, PyAny>, encoding: &str) -> PyResult<Self> {
        let py = spec.py();
        guard(py, "Stream", || {
            let spec = spec::parse(spec)?;
            let enc = Encoding::from_name(encoding).or_raise(py)?;
            Ok(PyStream {
                pipeline: Mutex::new(Pipeline::new(&spec, enc).or_raise(py)?),
            })
        })
    }

    fn push<'py>(&self, py: Python<'py>, piece: PyBackedStr) -> PyResult<PyBatch<'py>> {
        let batch = self.with(py, "Stream.push", |p| p.push_str(&piece))?;
        to_python(py, batch)
    }

    fn push_bytes<'py>(&self, py: Python<'py>, data: PyBackedBytes) -> PyResult<PyBatch<'py>> {
        let batch = self.with(py, "Stream.push_bytes", |p| p.push_bytes(&data))?;
        to_python(py, batch)
    }

    fn finish<'py>(&self, py: Python<'py>) -> PyResult<PyBatch<'py>> {
        let batch = self.with(py, "Stream.finish", Pipeline::finish)?;
        to_python(py, batch)
    }

    #[getter]
    fn bytes_seen(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, "Stream.bytes_seen", |p| Ok(p.bytes_seen()))
    }
}
