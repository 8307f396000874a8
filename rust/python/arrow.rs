//! Arrow string columns through the pipeline, without a Python `str` per document.
//!
//! `ferrochunk.arrow` passes the buffers of one `string` or `large_string` array
//! (a chunk of a column) as read-only numpy views of pyarrow's own memory, so
//! Rust reads the UTF-8 bytes in place. The results leave as flat numpy arrays
//! (rows, texts as one byte buffer plus offsets) that pyarrow wraps without copying.

use std::sync::Arc;

use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;

use super::arrays::rows_array;
use super::batch::{meta_list, ArrowChunks, ArrowPart};
use super::errors::{guard, IntoPy};
use super::{spec, threads};
use crate::contracts::chunk_id::hex;
use crate::contracts::stream::{chunk_text, Batch};
use crate::contracts::ChunkMeta;
use crate::error::{Error, Result};

/// An Arrow offsets buffer: `int32` for `string`, `int64` for `large_string`.
#[derive(FromPyObject)]
pub enum Offsets<'py> {
    Small(PyReadonlyArray1<'py, i32>),
    Large(PyReadonlyArray1<'py, i64>),
}

/// Rows of one kind (top-level chunks or children): the document of each row, its
/// table row, and its text as one UTF-8 buffer with `n + 1` offsets.
#[derive(Default)]
struct Part {
    docs: Vec<i64>,
    table: Vec<[i64; 14]>,
    text: Vec<u8>,
    ends: Vec<i64>,
    ids: Vec<u8>,
}

impl Part {
    fn push(&mut self, doc: usize, row: [i64; 14], text: &str, id: &[u8; 16]) {
        self.docs.push(doc as i64);
        self.table.push(row);
        self.text.extend_from_slice(text.as_bytes());
        self.ends.push(self.text.len() as i64);
        self.ids.extend_from_slice(&hex(id));
    }
}

fn part_arrays(py: Python<'_>, part: Part) -> PyResult<Py<ArrowPart>> {
    let mut offsets = Vec::with_capacity(part.ends.len() + 1);
    offsets.push(0);
    offsets.extend(part.ends);
    let part = ArrowPart {
        docs: part.docs.into_pyarray(py).unbind(),
        table: rows_array(py, part.table).or_raise(py)?.unbind(),
        text: part.text.into_pyarray(py).unbind(),
        offsets: offsets.into_pyarray(py).unbind(),
        ids: part.ids.into_pyarray(py).unbind(),
    };
    Py::new(py, part)
}

/// The documents of the array: `None` for a null row, else its UTF-8 text.
fn documents<'a>(
    data: &'a [u8],
    bounds: &[(i64, i64)],
    valid: &dyn Fn(usize) -> bool,
) -> Result<Vec<Option<&'a str>>> {
    bounds
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| {
            if !valid(i) {
                return Ok(None);
            }
            let slice = usize::try_from(a)
                .ok()
                .zip(usize::try_from(b).ok())
                .and_then(|(a, b)| data.get(a..b))
                .ok_or_else(|| Error::InvalidOffsets {
                    index: i,
                    value: b.max(0) as u64,
                    reason: format!(
                        "Arrow offsets {a}..{b} leave the {}-byte data buffer",
                        data.len()
                    ),
                })?;
            std::str::from_utf8(slice)
                .map(Some)
                .map_err(|e| Error::InvalidUtf8 {
                    byte_offset: a.max(0) as u64 + e.valid_up_to() as u64,
                    reason: format!("row {i} of the Arrow column is not UTF-8"),
                })
        })
        .collect()
}

/// Chunks the rows `offset..offset + length` of an Arrow string array.
///
/// Returns an `ArrowChunks`; a top row's spans are `spans[span_start..span_end]`.
#[pyfunction]
#[pyo3(name = "chunk_arrow", signature = (data, offsets, validity, offset, length, spec, encoding, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn py_chunk_arrow<'py>(
    py: Python<'py>,
    data: PyReadonlyArray1<'py, u8>,
    offsets: Offsets<'py>,
    validity: Option<PyReadonlyArray1<'py, u8>>,
    offset: usize,
    length: usize,
    spec: &Bound<'py, PyAny>,
    encoding: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<ArrowChunks> {
    guard(py, "chunk_arrow", || {
        let spec = spec::parse(spec)?;
        let enc = super::hf::source(encoding)?;
        // `ferrochunk.arrow` passes read-only views of pyarrow's immutable buffers, so
        // nothing can write to them while Rust reads them detached. A writeable array (a
        // caller of `_native` directly) could change under that read, and a view that is
        // not contiguous cannot be read as a slice: both are copied first. The offsets and
        // the validity bitmap are copied below in any case.
        let writeable: bool = data.getattr("flags")?.getattr("writeable")?.extract()?;
        let data_copy;
        let data: &[u8] = match data.as_slice() {
            Ok(s) if !writeable => s,
            _ => {
                data_copy = data.as_array().to_vec();
                &data_copy
            }
        };
        let bounds: Vec<(i64, i64)> = match &offsets {
            Offsets::Small(o) => window(o.as_array().iter().map(|&v| i64::from(v)), offset, length),
            Offsets::Large(o) => window(o.as_array().iter().copied(), offset, length),
        }
        .or_raise(py)?;
        let bitmap: Option<Vec<u8>> = validity.map(|v| v.as_array().to_vec());
        let valid = |i: usize| -> bool {
            bitmap.as_ref().is_none_or(|b| {
                let bit = offset + i;
                b.get(bit / 8)
                    .is_some_and(|byte| byte >> (bit % 8) & 1 == 1)
            })
        };
        let (top, spans, kids, meta) = py
            .detach(|| {
                let docs = documents(data, &bounds, &valid)?;
                let batches = threads::run(threads, || {
                    docs.par_iter()
                        .map(|d| match d {
                            Some(text) => chunk_text(text, &spec, enc.clone()),
                            None => Ok(Batch::default()),
                        })
                        .collect::<Result<Vec<_>>>()
                })?;
                Ok(split(batches))
            })
            .or_raise(py)?;
        Ok(ArrowChunks {
            top: part_arrays(py, top)?,
            spans: rows_array(py, spans).or_raise(py)?.unbind(),
            children: part_arrays(py, kids)?,
            meta: meta_list(py, &meta)?,
        })
    })
}

/// The `(start, end)` byte bounds of rows `offset..offset + length`.
fn window(
    values: impl Iterator<Item = i64>,
    offset: usize,
    length: usize,
) -> Result<Vec<(i64, i64)>> {
    let v: Vec<i64> = values.skip(offset).take(length + 1).collect();
    if v.len() != length + 1 {
        return Err(Error::InvalidOffsets {
            index: offset + length,
            value: v.len() as u64,
            reason: "the Arrow offsets buffer is shorter than the array".into(),
        });
    }
    Ok(v.windows(2).map(|w| (w[0], w[1])).collect())
}

/// Separates top-level rows from children, and renumbers spans into one array;
/// the top rows' meta (structure-aware contracts) comes along in order.
fn split(batches: Vec<Batch>) -> (Part, Vec<[i64; 4]>, Part, Vec<Arc<ChunkMeta>>) {
    let (mut top, mut kids) = (Part::default(), Part::default());
    let mut spans = Vec::new();
    let mut meta = Vec::new();
    for (doc, batch) in batches.into_iter().enumerate() {
        meta.extend(batch.meta);
        let mut from = 0;
        let rows = batch
            .table
            .into_iter()
            .zip(&batch.text_ends)
            .zip(&batch.ids);
        for ((mut row, &end), id) in rows {
            let text = &batch.text[from..end as usize];
            from = end as usize;
            if row[1] < 0 {
                let lo = spans.len() as i64;
                spans.extend_from_slice(&batch.spans[row[12] as usize..row[13] as usize]);
                row[12] = lo;
                row[13] = spans.len() as i64;
                top.push(doc, row, text, id);
            } else {
                kids.push(doc, row, text, id);
            }
        }
    }
    (top, spans, kids, meta)
}
