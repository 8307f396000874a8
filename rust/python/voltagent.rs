//! Bindings for VoltAgent's js-tiktoken tokenizer (`families/voltagent.rs`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::arrays::counts_array;
use super::errors::{guard, IntoPy};
use crate::compat::voltagent;

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
