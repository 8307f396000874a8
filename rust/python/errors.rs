//! The one mapping from core errors to Python exceptions.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::error::Error;

/// The module and class an error is raised as.
fn class_of(e: &Error) -> (&'static str, &'static str) {
    match e {
        Error::InvalidConfig { .. } => ("ferrochunk.errors", "ConfigError"),
        Error::InvalidOffsets { .. } => ("ferrochunk.errors", "OffsetsError"),
        Error::UnknownTokenizer { .. } => ("ferrochunk.errors", "UnknownTokenizerError"),
        Error::TextTooLarge { .. } => ("ferrochunk.errors", "TextTooLargeError"),
        Error::InvalidUtf8 { .. } => ("ferrochunk.errors", "InputDecodeError"),
        Error::TokenizerJson { .. } => ("ferrochunk.errors", "ConfigError"),
        Error::UnsupportedTokenizer { .. } => ("ferrochunk.errors", "UnsupportedTokenizerError"),
        Error::Tokenizer { .. } => ("ferrochunk.errors", "TokenizerError"),
        Error::Internal { .. } => ("ferrochunk.errors", "InternalError"),
        // A compat function reproduces the builtin exception upstream raises.
        Error::Upstream { class, .. } => ("builtins", class),
    }
}

/// Raises `e` as its class: a `ferrochunk.errors` class (all `ValueError`s),
/// or upstream's builtin for compat quirks.
pub fn to_py_err(py: Python<'_>, e: Error) -> PyErr {
    let message = e.to_string();
    let (module, class) = class_of(&e);
    let cls = match py.import(module).and_then(|m| m.getattr(class)) {
        Ok(cls) => cls
            .cast_into()
            .unwrap_or_else(|_| py.get_type::<PyValueError>()),
        Err(_) => py.get_type::<PyValueError>(),
    };
    match e {
        // The decode error carries the offset as an attribute too.
        Error::InvalidUtf8 { byte_offset, .. } => PyErr::from_type(cls, (message, byte_offset)),
        _ => PyErr::from_type(cls, message),
    }
}

/// `Result` into `PyResult` through [`to_py_err`].
pub trait IntoPy<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py_err(py, e))
    }
}

/// Runs a binding's body; a panic (a bug, never bad input) is raised as
/// `ferrochunk.errors.InternalError`, a `RuntimeError` that names the entry point, instead
/// of PyO3's `PanicException`, which `except Exception` would not catch.
pub fn guard<T>(py: Python<'_>, entry: &str, body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        let message = format!("internal error in ferrochunk._native.{entry}: {why}");
        let cls = py
            .import("ferrochunk.errors")
            .and_then(|m| m.getattr("InternalError"))
            .ok()
            .and_then(|c| c.cast_into().ok())
            .unwrap_or_else(|| py.get_type::<PyRuntimeError>());
        Err(PyErr::from_type(cls, message))
    })
}

/// A test-only entry point that panics, to check that [`guard`] turns it into `InternalError`.
#[pyfunction]
#[pyo3(name = "_debug_panic")]
pub fn py_debug_panic(py: Python<'_>) -> PyResult<()> {
    guard(py, "_debug_panic", || {
        py.detach(|| std::panic::resume_unwind(Box::new("deliberate panic for a test")))
    })
}
