//! Bindings for the Dify family's native compat path (character lengths).

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::errors::IntoPy;
use crate::families::dify::{
    fixed_split, merge_splits, recursive_split, split_text_with_regex, Sizes,
};

fn sizes(chunk_size: i64, chunk_overlap: i64, keep_separator: bool) -> Sizes {
    Sizes {
        chunk_size,
        chunk_overlap,
        keep_separator,
    }
}

#[pyfunction]
#[pyo3(name = "dify_merge_splits")]
pub fn py_merge_splits(
    py: Python<'_>,
    splits: Vec<PyBackedStr>,
    lengths: Vec<i64>,
    separator: PyBackedStr,
    chunk_size: i64,
    chunk_overlap: i64,
) -> PyResult<Vec<String>> {
    py.detach(|| {
        let refs: Vec<&str> = splits.iter().map(|s| &**s).collect();
        merge_splits(
            &refs,
            &lengths,
            &separator,
            sizes(chunk_size, chunk_overlap, false),
        )
    })
    .or_raise(py)
}

#[pyfunction]
#[pyo3(name = "dify_split_text_with_regex")]
pub fn py_split_text_with_regex(text: &str, separator: &str, keep_separator: bool) -> Vec<String> {
    split_text_with_regex(text, separator, keep_separator)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[pyfunction]
#[pyo3(name = "dify_recursive_split")]
pub fn py_recursive_split(
    py: Python<'_>,
    text: PyBackedStr,
    separators: Vec<String>,
    chunk_size: i64,
    chunk_overlap: i64,
    keep_separator: bool,
) -> PyResult<Vec<String>> {
    py.detach(|| {
        recursive_split(
            &text,
            &separators,
            sizes(chunk_size, chunk_overlap, keep_separator),
        )
    })
    .or_raise(py)
}

#[pyfunction]
#[pyo3(name = "dify_fixed_split")]
pub fn py_fixed_split(
    py: Python<'_>,
    text: PyBackedStr,
    fixed_separator: PyBackedStr,
    separators: Vec<String>,
    chunk_size: i64,
    chunk_overlap: i64,
    keep_separator: bool,
) -> PyResult<Vec<String>> {
    py.detach(|| {
        fixed_split(
            &text,
            &fixed_separator,
            &separators,
            sizes(chunk_size, chunk_overlap, keep_separator),
        )
    })
    .or_raise(py)
}
