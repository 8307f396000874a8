//! `Html` before chunking: the page rendered as light Markdown, with each rendered
//! character's source span.

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::errors::guard;
use crate::structure::html::{render, Skip};

/// The rendered text, each character's source start and end (code points, -1: added by
/// the rendering), and the page's title.
type RenderedArrays<'py> = (
    String,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Option<String>,
);

#[pyfunction]
#[pyo3(name = "html_render")]
pub fn py_html_render<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    skip_tags: Vec<String>,
    skip_classes: Vec<String>,
    skip_ids: Vec<String>,
) -> PyResult<RenderedArrays<'py>> {
    guard(py, "html_render", || {
        let skip = Skip {
            tags: skip_tags,
            classes: skip_classes,
            ids: skip_ids,
        };
        let r = py.detach(|| render(&text, &skip).into_chars(&text));
        Ok((
            r.text,
            r.starts.into_pyarray(py),
            r.ends.into_pyarray(py),
            r.title,
        ))
    })
}
