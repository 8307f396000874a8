//! `CleanRules` before chunking: the cleaned text and each character's original span.

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::errors::{guard, IntoPy};
use crate::text::clean::{clean, CleanRules};

/// The cleaned text, then each character's original start and end.
type CleanedArrays<'py> = (String, Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u64>>);

/// `(cleaned text, original starts, original ends)`, in characters.
#[pyfunction]
#[pyo3(name = "clean_rules")]
pub fn py_clean_rules<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    remove_extra_spaces: bool,
    remove_urls_emails: bool,
) -> PyResult<CleanedArrays<'py>> {
    guard(py, "clean_rules", || {
        let rules = CleanRules {
            remove_extra_spaces,
            remove_urls_emails,
        };
        let cleaned = py.detach(|| clean(&text, rules)).or_raise(py)?;
        Ok((
            cleaned.text,
            cleaned.starts.into_pyarray(py),
            cleaned.ends.into_pyarray(py),
        ))
    })
}
