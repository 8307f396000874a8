//! ferrochunk: token-aware chunking over token-id arrays and byte offsets.
//!
//! - `tokenizer`: the embedded, tiktoken-exact BPE (tables, split, merge, memo,
//!   the streaming carry, and js-tiktoken's variant for VoltAgent).
//! - `hf`: a native engine for Hugging Face `tokenizer.json` files (WordPiece,
//!   Unigram, BPE and their normalizers and pre-tokenizers).
//! - `text`: the text primitives: delimiter scanning, break classes, offsets.
//! - `structure`: scanners that turn a format into ranked cut points, units and
//!   context: Markdown by lines, source code over a tree-sitter tree.
//! - `contracts`: one incremental cutter per native config, and the one
//!   pipeline (`contracts::stream`) that drives them.
//! - `compat`: the upstream families' algorithms, bug for bug.
//! - `python` (behind the `python` cargo feature): the bindings, the only code
//!   that talks to the interpreter.
//! - `alloc`: the extension's allocator (mimalloc for small blocks, the system's for
//!   large ones). It and `python::grammar` (a grammar capsule read as a tree-sitter
//!   `Language`) are the two modules that allow `unsafe`.

// PyO3's macros emit `allow(unsafe_code)`, which `forbid` would reject: the crate
// denies it, and each core module forbids it.
#![deny(unsafe_code)]

pub mod alloc;
pub mod compat;
pub mod contracts;
pub mod error;
pub mod hf;
pub mod structure;
pub mod text;
pub mod tokenizer;

#[cfg(feature = "fuzzing")]
pub mod fuzzing;
#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
