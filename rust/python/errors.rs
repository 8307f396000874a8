//! The one mapping from core errors to Python exceptions.

use pyo3::exceptions::PyValueError;
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
