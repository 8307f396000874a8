//! VoltAgent's `@voltagent/rag` (1.0.2, VoltAgent `3377f6d`): its js-tiktoken tokenizer, JS
//! strings as UTF-16 units, and the three chunkers over them.

pub mod chunkers;
pub mod js;
mod tokenizer;

pub use tokenizer::{counts, has_special_units, prefix_counts, token_ends, token_values};
