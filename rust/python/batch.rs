//! The named objects that carry chunk rows from Rust to Python: a batch of rows, each
//! row's structure meta, and the parts of an Arrow result. Python reads them by field
//! name only; their fields are typed in `python/ferrochunk/_native.pyi`.

use std::sync::Arc;

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use super::arrays::rows_array;
use super::errors::IntoPy;
use crate::contracts::chunk_id::hex;
use crate::contracts::stream::Batch;
use crate::contracts::{ChunkMeta, HeadingPath};

/// The rows of one text (or one stream step).
#[pyclass(frozen, get_all, module = "ferrochunk._native")]
pub struct ChunkBatch {
    /// One row per chunk, in the columns of `ROW_COLUMNS`.
    pub table: Py<PyArray2<i64>>,
    /// The spans of joined chunks, in the columns of `SPAN_ROW_COLUMNS`.
    pub spans: Py<PyArray2<i64>>,
    /// Each row's text.
    pub texts: Py<PyList>,
    /// Each row's `ChunkMeta` (structure-aware configs), else `None`.
    pub meta: Option<Py<PyList>>,
    /// Each row's content id, as 32 hex digits.
    pub ids: Py<PyList>,
    /// `Stream.push_block` only: the byte where the next block starts (`None` after the
    /// last block, and for every other call).
    pub next_start: Option<usize>,
}

/// A row's structure: Markdown's headings, Code's scopes, and the context built from them.
#[pyclass(frozen, get_all, module = "ferrochunk._native")]
pub struct RowMeta {
    /// `((level, title), ...)`, outermost first (Markdown).
    pub headings: Py<PyTuple>,
    /// A heading (Markdown) or a header (Code) was cut to its first 1 000 characters.
    pub truncated: bool,
    /// The text set in front of the chunk's own (counted in the cap).
    pub context: Py<PyString>,
    /// `((kind, name), ...)`, outermost first (Code).
    pub scopes: Py<PyTuple>,
}

/// One side of an Arrow result: each row's document (counted from the first row given),
/// its table row, and the rows' texts as one UTF-8 buffer with offsets.
#[pyclass(frozen, get_all, module = "ferrochunk._native")]
pub struct ArrowPart {
    pub docs: Py<PyArray1<i64>>,
    pub table: Py<PyArray2<i64>>,
    pub text: Py<PyArray1<u8>>,
    pub offsets: Py<PyArray1<i64>>,
    /// The rows' content ids, 32 hex digits each, one after another.
    pub ids: Py<PyArray1<u8>>,
}

/// What `chunk_arrow` returns: the top-level chunks, the spans of joined chunks, the
/// child chunks, and the top-level chunks' `RowMeta` (or `None`).
#[pyclass(frozen, get_all, module = "ferrochunk._native")]
pub struct ArrowChunks {
    pub top: Py<ArrowPart>,
    pub spans: Py<PyArray2<i64>>,
    pub children: Py<ArrowPart>,
    pub meta: Option<Py<PyList>>,
}

/// Moves a batch into Python objects: two arrays, one `str` per row, and the rows' meta.
pub fn to_python(py: Python<'_>, batch: Batch, next_start: Option<usize>) -> PyResult<ChunkBatch> {
    let mut texts = Vec::with_capacity(batch.text_ends.len());
    let mut from = 0;
    for &end in &batch.text_ends {
        let end = end as usize;
        texts.push(PyString::new(py, &batch.text[from..end]));
        from = end;
    }
    Ok(ChunkBatch {
        table: rows_array(py, batch.table).or_raise(py)?.unbind(),
        spans: rows_array(py, batch.spans).or_raise(py)?.unbind(),
        texts: PyList::new(py, texts)?.unbind(),
        meta: meta_list(py, &batch.meta)?,
        ids: PyList::new(py, batch.ids.iter().map(|id| hex_str(py, id)))?.unbind(),
        next_start,
    })
}

/// An id as a Python `str` of 32 hex digits.
pub fn hex_str<'py>(py: Python<'py>, id: &[u8; 16]) -> Bound<'py, PyString> {
    let digits = hex(id);
    // Hex digits are ASCII.
    PyString::new(py, std::str::from_utf8(&digits).unwrap_or_default())
}

/// Each row's `RowMeta`, or `None` when no row has any; chunks of one section share their
/// headings tuple.
pub fn meta_list(py: Python<'_>, meta: &[Arc<ChunkMeta>]) -> PyResult<Option<Py<PyList>>> {
    if meta.is_empty() {
        return Ok(None);
    }
    let mut last: Option<(&Arc<HeadingPath>, Bound<'_, PyTuple>)> = None;
    let mut rows = Vec::with_capacity(meta.len());
    for m in meta {
        let headings = match &last {
            Some((shared, t)) if Arc::ptr_eq(shared, &m.headings) => t.clone(),
            _ => {
                let t = PyTuple::new(py, m.headings.iter().map(|(l, s)| (*l, s.as_str())))?;
                last = Some((&m.headings, t.clone()));
                t
            }
        };
        let scopes = PyTuple::new(py, m.scopes.iter().map(|(k, n)| (k.as_str(), n.as_str())))?;
        let row = RowMeta {
            headings: headings.unbind(),
            truncated: m.headings_truncated,
            context: PyString::new(py, &m.context).unbind(),
            scopes: scopes.unbind(),
        };
        rows.push(Bound::new(py, row)?);
    }
    Ok(Some(PyList::new(py, rows)?.unbind()))
}
