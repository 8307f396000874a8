//! Native configs as the Python configs describe them: one tagged tuple each.
//!
//! `("windows", max_tokens, overlap_tokens)`,
//! `("recursive", max_tokens, overlap_tokens, fixed_separator | None, separators, keep_end)`,
//! `("sentences", safe_max, overlap_tokens, break_classes)`,
//! `("delimiter", token_size, under_cap, overlap_percent, hard, soft, child, joiner)`,
//! `("parent_child", recursive_tuple | None, recursive_tuple)`,
//! `("markdown", max_tokens, overlap_tokens, context)`.
//! This is the one registry on the Rust side; `config.py` builds the tuples.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::errors::IntoPy;
use crate::contracts::delimiter_merge::DelimiterConfig;
use crate::contracts::markdown::MarkdownConfig;
use crate::contracts::merge::MergeStrategy;
use crate::contracts::recursive::{Keep, RecursiveConfig};
use crate::contracts::windows::WindowConfig;
use crate::contracts::Spec;
use crate::text::breaks::BreakClasses;

fn recursive(t: &Bound<'_, PyTuple>) -> PyResult<RecursiveConfig> {
    let cfg = RecursiveConfig {
        max_tokens: t.get_item(1)?.extract()?,
        overlap_tokens: t.get_item(2)?.extract()?,
        fixed_separator: t.get_item(3)?.extract()?,
        separators: t.get_item(4)?.extract()?,
        keep: if t.get_item(5)?.extract()? {
            Keep::End
        } else {
            Keep::Start
        },
    };
    cfg.validate().or_raise(t.py())?;
    Ok(cfg)
}

/// Parses a spec tuple.
///
/// # Errors
/// `ValueError` for an unknown tag or a malformed tuple; `ConfigError` for bad values.
pub fn parse(spec: &Bound<'_, PyAny>) -> PyResult<Spec> {
    let py = spec.py();
    let t = spec.cast::<PyTuple>()?;
    let tag: String = t.get_item(0)?.extract()?;
    Ok(match tag.as_str() {
        "windows" => Spec::Windows(
            WindowConfig::new(t.get_item(1)?.extract()?, t.get_item(2)?.extract()?).or_raise(py)?,
        ),
        "recursive" => Spec::Recursive(recursive(t)?),
        "sentences" => Spec::Sentences {
            safe_max: t.get_item(1)?.extract()?,
            overlap_tokens: t.get_item(2)?.extract()?,
            classes: BreakClasses::parse(&t.get_item(3)?.extract::<Vec<Vec<String>>>()?)
                .or_raise(py)?,
        },
        "delimiter" => {
            let strategy = if t.get_item(2)?.extract()? {
                MergeStrategy::UnderCap
            } else {
                MergeStrategy::OverCap
            };
            Spec::Delimiter(
                DelimiterConfig::new(
                    t.get_item(1)?.extract()?,
                    strategy,
                    t.get_item(3)?.extract()?,
                    [
                        t.get_item(4)?.extract()?,
                        t.get_item(5)?.extract()?,
                        t.get_item(6)?.extract()?,
                    ],
                    t.get_item(7)?.extract()?,
                )
                .or_raise(py)?,
            )
        }
        "parent_child" => {
            let parent = t.get_item(1)?;
            Spec::ParentChild {
                parent: if parent.is_none() {
                    None
                } else {
                    Some(recursive(parent.cast::<PyTuple>()?)?)
                },
                child: recursive(t.get_item(2)?.cast::<PyTuple>()?)?,
            }
        }
        "markdown" => {
            let cfg = MarkdownConfig {
                max_tokens: t.get_item(1)?.extract()?,
                overlap_tokens: t.get_item(2)?.extract()?,
                context: t.get_item(3)?.extract()?,
            };
            cfg.validate().or_raise(py)?;
            Spec::Markdown(cfg)
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown native config {other:?}"
            )))
        }
    })
}
