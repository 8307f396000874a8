//! The one mapping from core errors to `ferrochunk.errors` classes.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::error::Error;

fn class_name(e: &Error) -> &'static str {
    match e {
        Error::InvalidConfig { .. } => "ConfigError",
        Error::InvalidOffsets { .. } => "OffsetsError",
        Error::UnknownTokenizer { .. } => "UnknownTokenizerError",
        Error::TextTooLarge { .. } => "TextTooLargeError",
    }
}

/// Raises `e` as its `ferrochunk.errors` class (a `ValueError` subclass).
pub fn to_py_err(py: Python<'_>, e: Error) -> PyErr {
    let message = e.to_string();
    match py
        .import("ferrochunk.errors")
        .and_then(|m| m.getattr(class_name(&e)))
    {
        Ok(cls) => PyErr::from_type(
            cls.cast_into()
                .unwrap_or_else(|_| py.get_type::<PyValueError>()),
            message,
        ),
        Err(_) => PyValueError::new_err(message),
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
