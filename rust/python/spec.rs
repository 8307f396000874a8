//! Native configs read from the Python config objects by attribute name.
//!
//! Each config class names its kind in a class attribute, `_native` (`"windows"`,
//! `"recursive"`, `"sentences"`, `"delimiter"`, `"parent_child"`, `"markdown"`, `"code"`), and its
//! fields are read by the names `config.py` gives them: a renamed field fails here with
//! an `AttributeError` naming it, never as a value read from the wrong position. This is
//! the one registry on the Rust side.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::errors::IntoPy;
use super::grammar;
use std::sync::Arc;

use crate::contracts::code::CodeConfig;
use crate::contracts::delimiter_merge::DelimiterConfig;
use crate::contracts::markdown::MarkdownConfig;
use crate::contracts::merge::MergeStrategy;
use crate::contracts::recursive::{Keep, RecursiveConfig};
use crate::contracts::windows::WindowConfig;
use crate::contracts::Spec;
use crate::structure::code::Grammar;
use crate::text::breaks::BreakClasses;

#[derive(FromPyObject)]
struct Windows {
    #[pyo3(attribute)]
    max_tokens: usize,
    #[pyo3(attribute)]
    overlap_tokens: usize,
}

#[derive(FromPyObject)]
struct Recursive {
    #[pyo3(attribute)]
    max_tokens: usize,
    #[pyo3(attribute)]
    overlap_tokens: usize,
    #[pyo3(attribute)]
    fixed_separator: Option<String>,
    #[pyo3(attribute)]
    separators: Vec<String>,
    #[pyo3(attribute)]
    keep_separator: String,
    #[pyo3(attribute)]
    boundaries: String,
}

#[derive(FromPyObject)]
struct Sentences {
    #[pyo3(attribute)]
    safe_max: usize,
    #[pyo3(attribute)]
    overlap_tokens: usize,
    #[pyo3(attribute)]
    break_classes: Vec<Vec<String>>,
}

#[derive(FromPyObject)]
struct Delimiter {
    #[pyo3(attribute)]
    token_size: u64,
    #[pyo3(attribute, from_py_with = enum_value)]
    strategy: String,
    #[pyo3(attribute)]
    overlap: u64,
    #[pyo3(attribute)]
    hard_delimiters: Vec<String>,
    #[pyo3(attribute)]
    delimiters: Vec<String>,
    #[pyo3(attribute)]
    child_delimiters: Vec<String>,
    #[pyo3(attribute)]
    joiner: String,
}

#[derive(FromPyObject)]
struct Code {
    #[pyo3(attribute)]
    max_tokens: usize,
    #[pyo3(attribute)]
    overlap_tokens: usize,
    #[pyo3(attribute)]
    context: bool,
    #[pyo3(attribute)]
    boundaries: String,
}

#[derive(FromPyObject)]
struct Markdown {
    #[pyo3(attribute)]
    max_tokens: usize,
    #[pyo3(attribute)]
    overlap_tokens: usize,
    #[pyo3(attribute)]
    context: bool,
    #[pyo3(attribute)]
    boundaries: String,
}

/// An `Enum` member's value.
fn enum_value(member: &Bound<'_, PyAny>) -> PyResult<String> {
    member.getattr("value")?.extract()
}

/// Whether `boundaries` asks for content-defined boundaries.
fn content_boundaries(owner: &str, boundaries: &str) -> PyResult<bool> {
    match boundaries {
        "greedy" => Ok(false),
        "content" => Ok(true),
        other => Err(PyValueError::new_err(format!(
            "{owner}.boundaries must be 'greedy' or 'content', got {other:?}"
        ))),
    }
}

fn recursive(config: &Bound<'_, PyAny>) -> PyResult<RecursiveConfig> {
    let r: Recursive = config.extract()?;
    let cfg = RecursiveConfig {
        max_tokens: r.max_tokens,
        overlap_tokens: r.overlap_tokens,
        fixed_separator: r.fixed_separator,
        separators: r.separators,
        keep: match r.keep_separator.as_str() {
            "end" => Keep::End,
            "start" => Keep::Start,
            other => {
                return Err(PyValueError::new_err(format!(
                    "Recursive.keep_separator must be 'end' or 'start', got {other:?}"
                )))
            }
        },
        content: content_boundaries("Recursive", &r.boundaries)?,
    };
    cfg.validate().or_raise(config.py())?;
    Ok(cfg)
}

/// Reads a native config (a `ferrochunk` config object).
///
/// # Errors
/// `ValueError` for an object that names no known kind, `AttributeError` or `TypeError`
/// for a missing or mistyped field, `ConfigError` for bad values.
pub fn parse(config: &Bound<'_, PyAny>) -> PyResult<Spec> {
    let py = config.py();
    let kind: String = config.getattr("_native")?.extract()?;
    Ok(match kind.as_str() {
        "windows" => {
            let w: Windows = config.extract()?;
            Spec::Windows(WindowConfig::new(w.max_tokens, w.overlap_tokens).or_raise(py)?)
        }
        "recursive" => Spec::Recursive(recursive(config)?),
        "sentences" => {
            let s: Sentences = config.extract()?;
            Spec::Sentences {
                safe_max: s.safe_max,
                overlap_tokens: s.overlap_tokens,
                classes: BreakClasses::parse(&s.break_classes).or_raise(py)?,
            }
        }
        "delimiter" => {
            let d: Delimiter = config.extract()?;
            let strategy = match d.strategy.as_str() {
                "under_cap" => MergeStrategy::UnderCap,
                "over_cap" => MergeStrategy::OverCap,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "DelimiterMerge.strategy must be 'under_cap' or 'over_cap', got {other:?}"
                    )))
                }
            };
            Spec::Delimiter(
                DelimiterConfig::new(
                    d.token_size,
                    strategy,
                    d.overlap,
                    [d.hard_delimiters, d.delimiters, d.child_delimiters],
                    d.joiner,
                )
                .or_raise(py)?,
            )
        }
        "parent_child" => {
            let parent = config.getattr("parent")?;
            Spec::ParentChild {
                // A Recursive, or "full-doc" (the whole text is the one parent).
                parent: if parent.is_instance_of::<pyo3::types::PyString>() {
                    None
                } else {
                    Some(recursive(&parent)?)
                },
                child: recursive(&config.getattr("child")?)?,
            }
        }
        "markdown" => {
            let m: Markdown = config.extract()?;
            let cfg = MarkdownConfig {
                max_tokens: m.max_tokens,
                overlap_tokens: m.overlap_tokens,
                context: m.context,
                content: content_boundaries("Markdown", &m.boundaries)?,
            };
            cfg.validate().or_raise(py)?;
            Spec::Markdown(cfg)
        }
        "code" => {
            let c: Code = config.extract()?;
            let cfg = CodeConfig {
                max_tokens: c.max_tokens,
                overlap_tokens: c.overlap_tokens,
                context: c.context,
                content: content_boundaries("Code", &c.boundaries)?,
            };
            cfg.validate().or_raise(py)?;
            let language = grammar::language(&config.getattr("_grammar")?)?;
            Spec::Code(cfg, Arc::new(Grammar::new(language).or_raise(py)?))
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown native config kind {other:?}"
            )))
        }
    })
}
