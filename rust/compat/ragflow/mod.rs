//! RAGFlow (`infiniflow/ragflow` @ b1b8cd6): `rag/nlp/__init__.py` and
//! `rag/flow/chunker/token_chunker.py`.
//!
//! Strings are Python strings: lengths, slices and cuts count code points.

pub mod delim;
pub mod naive;
pub mod overlap;

use rayon::prelude::*;

use crate::error::Result;
use crate::tokenizer::Encoding;

/// `common/token_utils.num_tokens_from_string`: tiktoken `cl100k_base`
/// `encode`, which refuses special-token text; upstream turns that error into 0.
///
/// # Errors
/// Only if the embedded tokenizer cannot load.
pub fn num_tokens_from_string(text: &str) -> Result<usize> {
    let enc = Encoding::Cl100kBase.load()?;
    if enc.contains_special_token(text) {
        return Ok(0);
    }
    Ok(enc.count(text))
}

/// [`num_tokens_from_string`] of many texts, in parallel.
///
/// # Errors
/// Only if the embedded tokenizer cannot load.
pub fn num_tokens_batch<S: AsRef<str> + Sync>(texts: &[S]) -> Result<Vec<u64>> {
    texts
        .par_iter()
        .map(|t| num_tokens_from_string(t.as_ref()).map(|n| n as u64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(num_tokens_from_string("\n").unwrap(), 1);
        assert_eq!(num_tokens_from_string("\nx").unwrap(), 2);
        assert_eq!(num_tokens_from_string("hello world 你好").unwrap(), 5);
        assert_eq!(num_tokens_from_string("x<|endofprompt|>y").unwrap(), 0);
        assert_eq!(num_tokens_from_string("").unwrap(), 0);
        assert_eq!(
            num_tokens_batch(&["\n", "a<|endoftext|>"]).unwrap(),
            vec![1, 0]
        );
    }
}
