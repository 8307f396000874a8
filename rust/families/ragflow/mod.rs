//! RAGFlow (`infiniflow/ragflow` @ b1b8cd6), spec `ragflow.md`.
//!
//! Strings are Python strings: lengths, slices and cuts count code points.

pub mod contract;
pub mod delim;
pub mod naive;
pub mod overlap;

use rayon::prelude::*;

use crate::tokenize::Encoding;

/// `common/token_utils.num_tokens_from_string`: tiktoken `cl100k_base`
/// `encode`, which refuses special-token text; upstream turns that error into 0.
pub fn num_tokens_from_string(text: &str) -> usize {
    let enc = Encoding::Cl100kBase;
    if enc.contains_special_token(text) {
        return 0;
    }
    enc.count(text)
}

/// [`num_tokens_from_string`] of many texts, in parallel.
pub fn num_tokens_batch<S: AsRef<str> + Sync>(texts: &[S]) -> Vec<u64> {
    texts
        .par_iter()
        .map(|t| num_tokens_from_string(t.as_ref()) as u64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(num_tokens_from_string("\n"), 1);
        assert_eq!(num_tokens_from_string("\nx"), 2);
        assert_eq!(num_tokens_from_string("hello world 你好"), 5);
        assert_eq!(num_tokens_from_string("x<|endofprompt|>y"), 0);
        assert_eq!(num_tokens_from_string(""), 0);
        assert_eq!(num_tokens_batch(&["\n", "a<|endoftext|>"]), vec![1, 0]);
    }
}
