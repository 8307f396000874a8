//! The one error type of the core. The Python bindings map each variant to a
//! class of `ferrochunk.errors` in a single place (`python/errors.rs`).

#![forbid(unsafe_code)]

use std::fmt;

/// Everything the core can reject. Each variant names the offending field and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A configuration value is out of its domain.
    InvalidConfig {
        field: &'static str,
        value: String,
        expected: &'static str,
    },
    /// Offsets from a user tokenizer are malformed (decreasing, or past the end of the text).
    InvalidOffsets {
        index: usize,
        value: u64,
        reason: String,
    },
    /// The tokenizer name is not one of the embedded encodings.
    UnknownTokenizer { name: String },
    /// The text does not fit the 32-bit byte offsets used at the boundary.
    TextTooLarge { bytes: usize },
    /// Input bytes are not UTF-8 (`byte_offset` counts from the start of the stream).
    InvalidUtf8 { byte_offset: u64, reason: String },
    /// A `tokenizer.json` value is malformed (`path` is its JSON path).
    TokenizerJson { path: String, reason: String },
    /// A `tokenizer.json` component the native engine does not run.
    UnsupportedTokenizer { path: String, what: String },
    /// The tokenizer itself failed on this text (an unknown word without an unknown token).
    Tokenizer { message: String },
    /// A failure of ferrochunk itself (a poisoned lock, worker threads that stopped), not
    /// of the input.
    Internal { message: String },
    /// A compat function reproduces the exception upstream's Python raises here
    /// (`class` is a builtin exception name such as `ValueError`).
    Upstream {
        class: &'static str,
        message: String,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidConfig {
                field,
                value,
                expected,
            } => write!(f, "{field} must be {expected}, got {value}"),
            Error::InvalidOffsets {
                index,
                value,
                reason,
            } => write!(f, "tokenizer offsets[{index}] = {value}: {reason}"),
            Error::UnknownTokenizer { name } => write!(
                f,
                "tokenizer must be one of 'cl100k', 'cl100k_base', 'o200k', 'o200k_base', got {name:?}"
            ),
            Error::Upstream { message, .. } => f.write_str(message),
            Error::TokenizerJson { path, reason } => write!(f, "tokenizer.json {path} {reason}"),
            Error::UnsupportedTokenizer { path, what } => write!(
                f,
                "tokenizer.json {path}: {what} is not supported by the native engine"
            ),
            Error::Tokenizer { message } | Error::Internal { message } => f.write_str(message),
            Error::InvalidUtf8 {
                byte_offset,
                reason,
            } => write!(f, "{reason} at byte {byte_offset}"),
            Error::TextTooLarge { bytes } => write!(
                f,
                "text must be smaller than 4 GiB of UTF-8, got {bytes} bytes"
            ),
        }
    }
}

impl std::error::Error for Error {}
