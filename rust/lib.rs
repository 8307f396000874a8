//! ferrochunk: token-aware chunking over token-id arrays and byte offsets.
//!
//! The core modules below never see a PyO3 type; `python` (behind the `python`
//! cargo feature) is the only place that talks to the interpreter.

pub mod breaks;
pub mod chunk;
pub mod error;
pub mod families;
pub mod merge;
pub mod offsets;
pub mod pretokenize;
pub mod scan;
pub mod sentence_windows;
pub mod slice;
pub mod tokenize;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
