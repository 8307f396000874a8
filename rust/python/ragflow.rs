//! Bindings for the RAGFlow family.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::families::ragflow::num_tokens_from_string;

#[pyfunction]
#[pyo3(name = "num_tokens_from_string")]
pub fn py_num_tokens_from_string(py: Python<'_>, text: PyBackedStr) -> usize {
    py.detach(|| num_tokens_from_string(&text))
}
