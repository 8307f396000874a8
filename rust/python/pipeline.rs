//! Bindings for the one pipeline: a whole text, many texts, or a stream.

use std::collections::HashMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};

use numpy::{PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use rayon::prelude::*;

use super::arrays::rows_array;
use super::batch::{to_python, ChunkBatch};
use super::errors::{guard, IntoPy};
use super::{hf, spec, threads};
use crate::contracts::delimiter_merge::pieces;
use crate::contracts::stream::{chunk_text, Batch, Pipeline, Tokens};
use crate::contracts::{Counter, Spec};
use crate::error::{Error, Result};

/// Where a Python count's first error is kept: the core cannot raise, so a count that
/// fails reads as "does not fit", and the call raises the error once the cut is done.
type Failed = Arc<Mutex<Option<PyErr>>>;

/// A Python callable `count(text) -> int` as the core's [`Counter`], called back with
/// the GIL from the cutter (which runs without it).
fn py_counter(count: Py<PyAny>) -> (Counter, Failed) {
    let failed: Failed = Arc::new(Mutex::new(None));
    let keep = Arc::clone(&failed);
    let counter = Counter::Given(Arc::new(move |s: &str| {
        Python::attach(|py| {
            let n = count
                .bind(py)
                .call1((s,))
                .and_then(|n| n.extract::<usize>());
            n.unwrap_or_else(|e| {
                keep.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
                usize::MAX / 4
            })
        })
    }));
    (counter, failed)
}

fn tokens(
    starts: Option<PyReadonlyArray1<'_, u32>>,
    counts: Option<PyReadonlyArray1<'_, u32>>,
    words: Option<PyReadonlyArray1<'_, bool>>,
    count: Option<Counter>,
) -> Result<Tokens> {
    // Arrays are copied under the GIL: another Python thread may write to them.
    let words = words.map_or_else(Vec::new, |w| w.as_array().to_vec());
    match (starts, counts) {
        (Some(s), None) => Ok(Tokens::Given {
            starts: s.as_array().to_vec(),
            words,
            count,
        }),
        (Some(s), Some(c)) => Ok(Tokens::GivenPieces {
            starts: s.as_array().to_vec(),
            counts: c.as_array().to_vec(),
        }),
        _ => Err(Error::InvalidConfig {
            field: "tokens",
            value: "neither an encoding nor token starts".into(),
            expected: "an encoding name or handle, or token starts (with per-piece counts)",
        }),
    }
}

#[pyfunction]
#[pyo3(
    name = "chunk",
    signature = (text, spec, encoding=None, starts=None, counts=None, words=None, count=None)
)]
#[allow(clippy::too_many_arguments)] // the Python signature's keywords
pub fn py_chunk<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    spec: &Bound<'py, PyAny>,
    encoding: Option<Bound<'py, PyAny>>,
    starts: Option<PyReadonlyArray1<'py, u32>>,
    counts: Option<PyReadonlyArray1<'py, u32>>,
    words: Option<PyReadonlyArray1<'py, bool>>,
    count: Option<Py<PyAny>>,
) -> PyResult<ChunkBatch> {
    guard(py, "chunk", || {
        let spec = spec::parse(spec)?;
        let (count, failed) = match count {
            Some(f) => {
                let (counter, failed) = py_counter(f);
                (Some(counter), Some(failed))
            }
            None => (None, None),
        };
        let tokens = match encoding {
            Some(source)
                if starts.is_none() && counts.is_none() && words.is_none() && count.is_none() =>
            {
                hf::source(&source)?
            }
            Some(_) => {
                return Err(Error::InvalidConfig {
                    field: "tokens",
                    value: "an encoding and token starts".into(),
                    expected: "one of the two",
                })
                .or_raise(py)
            }
            None => tokens(starts, counts, words, count).or_raise(py)?,
        };
        let batch = py.detach(|| chunk_text(&text, &spec, tokens));
        if let Some(e) = failed.and_then(|f| f.lock().unwrap_or_else(|p| p.into_inner()).take()) {
            return Err(e);
        }
        to_python(py, batch.or_raise(py)?, None)
    })
}

#[pyfunction]
#[pyo3(name = "chunk_many", signature = (texts, spec, encoding, threads=None))]
pub fn py_chunk_many<'py>(
    py: Python<'py>,
    texts: Vec<PyBackedStr>,
    spec: &Bound<'py, PyAny>,
    encoding: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Vec<ChunkBatch>> {
    guard(py, "chunk_many", || {
        let spec = spec::parse(spec)?;
        let enc = hf::source(encoding)?;
        let batches = py
            .detach(|| {
                threads::run(threads, || {
                    texts
                        .par_iter()
                        .map(|t| chunk_text(t, &spec, enc.clone()))
                        .collect::<Result<Vec<_>>>()
                })
            })
            .or_raise(py)?;
        batches
            .into_iter()
            .map(|b| to_python(py, b, None))
            .collect()
    })
}

/// One text's result (a panic is carried, not lost).
type Cut = std::thread::Result<Result<Batch>>;

/// What the caller and the background helpers share: the texts, and who cuts which.
struct Work {
    texts: Vec<PyBackedStr>,
    spec: Spec,
    enc: Tokens,
    /// The first text nobody has claimed yet. Texts are claimed in order, so batches
    /// come out in about the order the caller wants them.
    claimed: AtomicUsize,
    /// Set when the iterator is dropped: nobody claims another text.
    cancel: AtomicBool,
}

impl Work {
    /// Claims the next text and cuts it; `None` once all are claimed (or cancelled).
    fn cut_next(&self) -> Option<(usize, Cut)> {
        // Checked first, so the counter stops growing once the texts run out.
        if self.cancel.load(Ordering::Relaxed)
            || self.claimed.load(Ordering::Relaxed) >= self.texts.len()
        {
            return None;
        }
        let i = self.claimed.fetch_add(1, Ordering::Relaxed);
        let text = self.texts.get(i)?;
        let enc = self.enc.clone();
        Some((
            i,
            catch_unwind(AssertUnwindSafe(|| chunk_text(text, &self.spec, enc))),
        ))
    }
}

/// `chunk_many` as an iterator of batches in text order, for `threads` threads in all:
/// `threads - 1` helpers (`threads::spawn`) cut texts in the background, and the caller
/// cuts the next unclaimed text itself whenever the batch it wants is not ready. The
/// caller also turns batches into `Chunk`s under the GIL, so that serial part overlaps
/// the helpers' cutting, and no more threads than `threads` want a core at once (an
/// extra thread waiting for a core stalled the caller for milliseconds at a time).
#[pyclass(name = "ChunkManyIter", module = "ferrochunk._native")]
pub struct PyChunkManyIter {
    work: Arc<Work>,
    state: Mutex<Receiving>,
}

struct Receiving {
    /// The helpers' results (a `Receiver` cannot be shared, so it sits in the lock).
    rx: Receiver<(usize, Cut)>,
    /// Results that are ready before the ones ahead of them.
    early: HashMap<usize, Cut>,
    next: usize,
}

#[pyfunction]
#[pyo3(name = "chunk_many_iter", signature = (texts, spec, encoding, threads=None))]
pub fn py_chunk_many_iter(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    spec: &Bound<'_, PyAny>,
    encoding: &Bound<'_, PyAny>,
    threads: Option<usize>,
) -> PyResult<PyChunkManyIter> {
    guard(py, "chunk_many_iter", || {
        let helpers = threads::count(threads::checked(threads).or_raise(py)?) - 1;
        let work = Arc::new(Work {
            spec: spec::parse(spec)?,
            enc: hf::source(encoding)?,
            texts,
            claimed: AtomicUsize::new(0),
            cancel: AtomicBool::new(false),
        });
        let (tx, rx) = channel();
        // A helper still queued when the iterator is dropped finds the texts gone
        // rather than keeping them alive until it runs.
        let weak = Arc::downgrade(&work);
        threads::spawn(helpers, move || {
            let Some(work) = weak.upgrade() else {
                return;
            };
            while let Some(done) = work.cut_next() {
                // The receiver is gone only when the iterator was dropped.
                if tx.send(done).is_err() {
                    break;
                }
            }
        })
        .or_raise(py)?;
        Ok(PyChunkManyIter {
            work,
            state: Mutex::new(Receiving {
                rx,
                early: HashMap::new(),
                next: 0,
            }),
        })
    })
}

#[pymethods]
impl PyChunkManyIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<ChunkBatch>> {
        guard(py, "chunk_many_iter", || {
            let stopped = || Error::Internal {
                message: "chunk_many_iter: the helper threads stopped early".into(),
            };
            // The state is locked and waited on without the GIL: a second thread that
            // calls next() waits for the lock without holding the GIL this one needs.
            let next = py
                .detach(|| -> Result<Option<Cut>> {
                    let mut state = self.state.lock().map_err(|_| stopped())?;
                    let want = state.next;
                    if want >= self.work.texts.len() {
                        return Ok(None);
                    }
                    let done = loop {
                        while let Ok((i, done)) = state.rx.try_recv() {
                            state.early.insert(i, done);
                        }
                        if let Some(done) = state.early.remove(&want) {
                            break done;
                        }
                        // Not ready: cut the next unclaimed text here rather than wait.
                        if let Some((i, done)) = self.work.cut_next() {
                            state.early.insert(i, done);
                            continue;
                        }
                        // All claimed: a helper is cutting `want`, so wait for it.
                        let (i, done) = state.rx.recv().map_err(|_| stopped())?;
                        state.early.insert(i, done);
                    };
                    state.next += 1;
                    Ok(Some(done))
                })
                .or_raise(py)?;
            match next {
                None => Ok(None),
                Some(Ok(batch)) => to_python(py, batch.or_raise(py)?, None).map(Some),
                Some(Err(panic)) => resume_unwind(panic),
            }
        })
    }
}

impl Drop for PyChunkManyIter {
    fn drop(&mut self) {
        self.work.cancel.store(true, Ordering::Relaxed);
    }
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
                let mut pipeline = self.pipeline.lock().map_err(|_| Error::Internal {
                    message: "Stream: an earlier call failed inside and left it unusable".into(),
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
    fn new(spec: &Bound<'_, PyAny>, encoding: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = spec.py();
        guard(py, "Stream", || {
            let spec = spec::parse(spec)?;
            let tokens = hf::source(encoding)?;
            Ok(PyStream {
                pipeline: Mutex::new(Pipeline::with_tokens(&spec, tokens).or_raise(py)?),
            })
        })
    }

    fn push<'py>(&self, py: Python<'py>, piece: PyBackedStr) -> PyResult<ChunkBatch> {
        let batch = self.with(py, "Stream.push", |p| p.push_str(&piece))?;
        to_python(py, batch, None)
    }

    fn push_bytes<'py>(&self, py: Python<'py>, data: PyBackedBytes) -> PyResult<ChunkBatch> {
        let batch = self.with(py, "Stream.push_bytes", |p| p.push_bytes(&data))?;
        to_python(py, batch, None)
    }

    /// `text`'s UTF-8 from byte `start` to the first character boundary at or after
    /// `start + size` (or its end), read in place from the UTF-8 CPython keeps on the
    /// `str`: `chunk()` of a long text hands it over a block at a time. Its batch's
    /// `next_start` is where the next block starts (`None` after the last).
    fn push_block<'py>(
        &self,
        py: Python<'py>,
        text: PyBackedStr,
        start: i64,
        size: i64,
    ) -> PyResult<ChunkBatch> {
        let len = text.len();
        let Some(start) = usize::try_from(start)
            .ok()
            .filter(|&s| s <= len && text.is_char_boundary(s))
        else {
            return Err(Error::InvalidConfig {
                field: "start",
                value: format!("{start} (UTF-8 length {len})"),
                expected: "a byte offset of a character boundary in text",
            })
            .or_raise(py);
        };
        let Some(size) = usize::try_from(size).ok().filter(|&s| s > 0) else {
            return Err(Error::InvalidConfig {
                field: "size",
                value: size.to_string(),
                expected: "an integer >= 1",
            })
            .or_raise(py);
        };
        let mut end = start.saturating_add(size).min(len);
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let block = &text[start..end];
        let batch = self.with(py, "Stream.push_block", |p| p.push_str(block))?;
        to_python(py, batch, (end < len).then_some(end))
    }

    fn finish<'py>(&self, py: Python<'py>) -> PyResult<ChunkBatch> {
        let batch = self.with(py, "Stream.finish", Pipeline::finish)?;
        to_python(py, batch, None)
    }

    #[getter]
    fn bytes_seen(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, "Stream.bytes_seen", |p| Ok(p.bytes_seen()))
    }
}
