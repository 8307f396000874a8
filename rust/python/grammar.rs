//! A grammar capsule from a tree-sitter grammar package, read as the runtime's
//! `Language`: the one place the bindings need `unsafe`.
//!
//! Grammar packages (`tree_sitter_python.language()`) return a `PyCapsule` named
//! `tree_sitter.Language` whose pointer is the grammar's static `TSLanguage`.
//! Everything but such a capsule is refused before the pointer is read, and the
//! grammar's ABI version is checked against what the runtime reads.

#![allow(unsafe_code)]

use std::sync::LazyLock;

use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods};
use tree_sitter::{Language, LANGUAGE_VERSION, MIN_COMPATIBLE_LANGUAGE_VERSION};

use super::errors::IntoPy;
use crate::error::Error;

/// The name grammar packages give their capsules.
const CAPSULE: &std::ffi::CStr = c"tree_sitter.Language";

/// The ABI versions the runtime reads, from its own constants.
static ABI_EXPECTED: LazyLock<String> = LazyLock::new(|| {
    format!(
        "a grammar of ABI {MIN_COMPATIBLE_LANGUAGE_VERSION} to {LANGUAGE_VERSION} (what the \
         linked tree-sitter runtime reads)"
    )
});

fn refused(value: String, expected: &'static str) -> Error {
    Error::InvalidConfig {
        field: "Code.language",
        value,
        expected,
    }
}

/// The `Language` in `capsule`.
///
/// # Errors
/// `ConfigError` for anything but a grammar capsule of an ABI the runtime reads.
pub fn language(capsule: &Bound<'_, PyAny>) -> PyResult<Language> {
    let py = capsule.py();
    let Ok(capsule) = capsule.cast::<PyCapsule>() else {
        let ty = capsule.get_type().name()?;
        return Err(refused(
            format!("a {ty}"),
            "a grammar capsule (tree_sitter.Language)",
        ))
        .or_raise(py);
    };
    // `PyCapsule_GetPointer` with the expected name: another library's capsule fails here.
    let Ok(ptr) = capsule.pointer_checked(Some(CAPSULE)) else {
        return Err(refused(
            "a capsule not named 'tree_sitter.Language'".into(),
            "the capsule a grammar package returns (tree_sitter_python.language())",
        ))
        .or_raise(py);
    };
    // SAFETY: a capsule named `tree_sitter.Language` holds a `const TSLanguage *` to
    // static data in the grammar's extension module (tree-sitter's binding convention).
    // CPython never unloads an extension module, so that data outlives the capsule and
    // every `Language` made from it (dropping one of a static grammar frees nothing);
    // the only field read before the ABI check below is the version. A capsule forged
    // under that name is out of scope.
    let language = unsafe { Language::from_raw(ptr.as_ptr().cast()) };
    let abi = language.abi_version();
    if !(MIN_COMPATIBLE_LANGUAGE_VERSION..=LANGUAGE_VERSION).contains(&abi) {
        return Err(refused(
            format!("a grammar of ABI version {abi}"),
            ABI_EXPECTED.as_str(),
        ))
        .or_raise(py);
    }
    Ok(language)
}

/// The ABI version of a grammar capsule, after the checks [`language`] makes: a config
/// calls it where it is built and unpickled.
///
/// # Errors
/// `ConfigError`, as [`language`].
#[pyfunction]
#[pyo3(name = "grammar_abi")]
pub fn py_grammar_abi(capsule: &Bound<'_, PyAny>) -> PyResult<usize> {
    Ok(language(capsule)?.abi_version())
}
