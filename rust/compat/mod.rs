//! One module per upstream family: the compat algorithms, bug for bug, on the
//! primitives of `text` and `tokenizer`.

#![forbid(unsafe_code)]

pub mod dify;
pub mod ragflow;
pub mod voltagent;
