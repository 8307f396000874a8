//! Bindings for ids outside the pipeline (which computes a chunk id per row).

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyList;

use super::batch::hex_str;
use super::errors::guard;
use crate::contracts::chunk_id::bytes_id;

/// The scheme's id of each bytes object (`ferrochunk.ids` encodes the text), as hex.
#[pyfunction]
#[pyo3(name = "hash_ids")]
pub fn py_hash_ids<'py>(py: Python<'py>, data: Vec<PyBackedBytes>) -> PyResult<Bound<'py, PyList>> {
    guard(py, "hash_ids", || {
        let ids: Vec<[u8; 16]> = py.detach(|| data.iter().map(|d| bytes_id(d)).collect());
        PyList::new(py, ids.iter().map(|id| hex_str(py, id)))
    })
}
