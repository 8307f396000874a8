//! Bindings for the RAGFlow family's native compat path.

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::errors::{guard, IntoPy};
use crate::compat::ragflow::delim::{
    has_wrapped_delimiter, normalize_text_newlines, parse_delimiter_field, remove_tag,
};
use crate::compat::ragflow::naive::{naive_merge, parser_txt, Budget, Section};
use crate::compat::ragflow::overlap::{compute_overlap_prefix, Percent};
use crate::compat::ragflow::{num_tokens_batch, num_tokens_from_string};
use crate::contracts::merge::{merge, MergeStrategy};

/// A Python int (within i64) or float, as upstream's arithmetic sees it.
#[derive(FromPyObject)]
pub enum PyPercent {
    Int(i64),
    Float(f64),
}

impl From<PyPercent> for Percent {
    fn from(p: PyPercent) -> Self {
        match p {
            PyPercent::Int(v) => Percent::Int(v),
            PyPercent::Float(v) => Percent::Float(v),
        }
    }
}

fn strategy(under_cap: bool) -> MergeStrategy {
    if under_cap {
        MergeStrategy::UnderCap
    } else {
        MergeStrategy::OverCap
    }
}

#[pyfunction]
#[pyo3(name = "num_tokens_from_string")]
pub fn py_num_tokens_from_string(py: Python<'_>, text: PyBackedStr) -> PyResult<usize> {
    guard(py, "num_tokens_from_string", || {
        py.detach(|| num_tokens_from_string(&text)).or_raise(py)
    })
}

#[pyfunction]
#[pyo3(name = "ragflow_num_tokens_batch")]
pub fn py_num_tokens_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
) -> PyResult<Bound<'_, PyArray1<u64>>> {
    guard(py, "ragflow_num_tokens_batch", || {
        Ok(py
            .detach(|| num_tokens_batch(&texts))
            .or_raise(py)?
            .into_pyarray(py))
    })
}

#[pyfunction]
#[pyo3(name = "ragflow_parse_delimiter_field")]
pub fn py_parse_delimiter_field(py: Python<'_>, field: &str) -> PyResult<Vec<String>> {
    guard(py, "ragflow_parse_delimiter_field", || {
        Ok(parse_delimiter_field(field))
    })
}

#[pyfunction]
#[pyo3(name = "ragflow_has_wrapped_delimiter")]
pub fn py_has_wrapped_delimiter(py: Python<'_>, field: &str) -> PyResult<bool> {
    guard(py, "ragflow_has_wrapped_delimiter", || {
        Ok(has_wrapped_delimiter(field))
    })
}

#[pyfunction]
#[pyo3(name = "ragflow_normalize_text_newlines")]
pub fn py_normalize_text_newlines(py: Python<'_>, text: &str) -> PyResult<String> {
    guard(py, "ragflow_normalize_text_newlines", || {
        Ok(normalize_text_newlines(text).into_owned())
    })
}

#[pyfunction]
#[pyo3(name = "ragflow_remove_tag")]
pub fn py_remove_tag(py: Python<'_>, text: &str) -> PyResult<String> {
    guard(py, "ragflow_remove_tag", || {
        Ok(remove_tag(text).into_owned())
    })
}

#[pyfunction]
#[pyo3(name = "ragflow_compute_overlap_prefix")]
pub fn py_compute_overlap_prefix(
    py: Python<'_>,
    prev_text: PyBackedStr,
    percent: PyPercent,
) -> PyResult<(String, usize)> {
    guard(py, "ragflow_compute_overlap_prefix", || {
        let percent = Percent::from(percent);
        py.detach(|| compute_overlap_prefix(&prev_text, percent))
            .or_raise(py)
    })
}

#[pyfunction]
#[pyo3(name = "ragflow_merge_groups")]
pub fn py_merge_groups(
    py: Python<'_>,
    sizes: Vec<u64>,
    cap: f64,
    threshold: f64,
    under_cap: bool,
) -> PyResult<Vec<Vec<usize>>> {
    guard(py, "ragflow_merge_groups", || {
        Ok({
            py.detach(|| {
                merge(&sizes, cap, strategy(under_cap), threshold)
                    .into_iter()
                    .map(|g| g.pieces.collect())
                    .collect()
            })
        })
    })
}

type MergedLists = (Vec<String>, Vec<Vec<usize>>);

#[pyfunction]
#[pyo3(name = "ragflow_naive_merge")]
#[allow(clippy::too_many_arguments)]
pub fn py_naive_merge(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    positions: Vec<PyBackedStr>,
    delimiter: PyBackedStr,
    cap: f64,
    threshold: f64,
    under_cap: bool,
    percent: PyPercent,
) -> PyResult<MergedLists> {
    guard(py, "ragflow_naive_merge", || {
        let budget = Budget {
            cap,
            threshold,
            strategy: strategy(under_cap),
            percent: percent.into(),
        };
        let merged = py
            .detach(|| {
                let sections: Vec<Section<'_>> = texts
                    .iter()
                    .zip(&positions)
                    .map(|(t, p)| Section { text: t, pos: p })
                    .collect();
                naive_merge(&sections, &delimiter, budget)
            })
            .or_raise(py)?;
        Ok((merged.chunks, merged.sections))
    })
}

#[pyfunction]
#[pyo3(name = "ragflow_parser_txt")]
pub fn py_parser_txt(
    py: Python<'_>,
    txt: PyBackedStr,
    delimiter: PyBackedStr,
    keep_delimiters: bool,
    cap: f64,
    threshold: f64,
) -> PyResult<Vec<String>> {
    guard(py, "ragflow_parser_txt", || {
        py.detach(|| parser_txt(&txt, &delimiter, keep_delimiters, cap, threshold))
            .or_raise(py)
    })
}
