//! VoltAgent's `@voltagent/rag` (specs/voltagent.md): its js-tiktoken tokenizer, JS
//! strings as UTF-16 units, and the three chunkers over them.

pub mod chunkers;
pub mod js;
mod tokenizer;

pub use tokenizer::{counts, has_special_units, prefix_counts, token_ends, token_values};
