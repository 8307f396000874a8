//! Bindings for the Dify family's native compat path.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::errors::{guard, IntoPy};
use crate::compat::dify::{
    fixed_recursive_split, fixed_split, merge_splits, recursive_split, split_text_with_regex,
    Length, Sizes,
};
use crate::error::{Error, Result};
use crate::text::patterns;
use crate::tokenizer::Encoding;

/// `length` is `"chars"`, an embedded encoding's name (`encode_ordinary` counts), or
/// that name with `":strict"` (tiktoken `encode`, which refuses special-token text).
fn sizes(chunk_size: i64, chunk_overlap: i64, keep_separator: bool, length: &str) -> Result<Sizes> {
    let length = match length.split_once(':') {
        _ if length == "chars" => Length::Chars,
        Some((name, "strict")) => Length::Tokens {
            tok: Encoding::from_name(name)?.load()?,
            strict: true,
        },
        _ => Length::Tokens {
            tok: Encoding::from_name(length)?.load()?,
            strict: false,
        },
    };
    Ok(Sizes {
        chunk_size,
        chunk_overlap,
        keep_separator,
        length,
    })
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
    guard(py, "dify_merge_splits", || {
        py.detach(|| {
            let refs: Vec<&str> = splits.iter().map(|s| &**s).collect();
            merge_splits(
                &refs,
                &lengths,
                &separator,
                sizes(chunk_size, chunk_overlap, false, "chars")?,
            )
        })
        .or_raise(py)
    })
}

#[pyfunction]
#[pyo3(name = "dify_split_text_with_regex")]
pub fn py_split_text_with_regex(
    py: Python<'_>,
    text: &str,
    separator: &str,
    keep_separator: bool,
) -> PyResult<Vec<String>> {
    guard(py, "dify_split_text_with_regex", || {
        Ok({
            split_text_with_regex(text, separator, keep_separator)
                .into_iter()
                .map(str::to_owned)
                .collect()
        })
    })
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
    length: &str,
) -> PyResult<Vec<String>> {
    guard(py, "dify_recursive_split", || {
        let sizes = sizes(chunk_size, chunk_overlap, keep_separator, length).or_raise(py)?;
        py.detach(|| recursive_split(&text, &separators, sizes))
            .or_raise(py)
    })
}

#[pyfunction]
#[pyo3(name = "dify_fixed_recursive_split")]
pub fn py_fixed_recursive_split(
    py: Python<'_>,
    text: PyBackedStr,
    separators: Vec<String>,
    chunk_size: i64,
    chunk_overlap: i64,
    keep_separator: bool,
    length: &str,
) -> PyResult<Vec<String>> {
    guard(py, "dify_fixed_recursive_split", || {
        let sizes = sizes(chunk_size, chunk_overlap, keep_separator, length).or_raise(py)?;
        py.detach(|| fixed_recursive_split(&text, &separators, sizes))
            .or_raise(py)
    })
}

/// `FixedRecursiveCharacterTextSplitter.split_text` whole, in one call: the fixed split,
/// each piece's length, and the recursive split of those over the size.
#[pyfunction]
#[pyo3(name = "dify_fixed_split")]
#[allow(clippy::too_many_arguments)]
pub fn py_fixed_split(
    py: Python<'_>,
    text: PyBackedStr,
    fixed_separator: PyBackedStr,
    separators: Vec<String>,
    chunk_size: i64,
    chunk_overlap: i64,
    keep_separator: bool,
    length: &str,
) -> PyResult<Vec<String>> {
    guard(py, "dify_fixed_split", || {
        let sizes = sizes(chunk_size, chunk_overlap, keep_separator, length).or_raise(py)?;
        py.detach(|| fixed_split(&text, &fixed_separator, &separators, sizes))
            .or_raise(py)
    })
}

/// `CleanProcessor.clean`: the always-on part, then each enabled rule in order
/// (`"remove_extra_spaces"` or `"remove_urls_emails"`).
#[pyfunction]
#[pyo3(name = "dify_clean")]
pub fn py_dify_clean(py: Python<'_>, text: PyBackedStr, steps: Vec<String>) -> PyResult<String> {
    guard(py, "dify_clean", || {
        py.detach(|| {
            let mut out = patterns::dify_base(&text);
            for step in &steps {
                out = match step.as_str() {
                    "remove_extra_spaces" => patterns::dify_extra_spaces(&out),
                    "remove_urls_emails" => patterns::dify_urls_emails(&out)?,
                    other => {
                        return Err(Error::InvalidConfig {
                            field: "steps",
                            value: other.to_owned(),
                            expected: "'remove_extra_spaces' or 'remove_urls_emails'",
                        })
                    }
                };
            }
            Ok(out)
        })
        .or_raise(py)
    })
}
