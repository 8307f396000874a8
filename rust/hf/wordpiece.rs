//! WordPiece: greedy longest match from the left, `##` on every piece but the first.

use foldhash::HashMap;

use super::json::At;
use crate::error::{Error, Result};

#[derive(Debug)]
pub struct WordPiece {
    vocab: HashMap<String, u32>,
    unk: String,
    prefix: String,
    max_chars: usize,
}

impl WordPiece {
    pub fn parse(at: At<'_, '_>, vocab: HashMap<String, u32>) -> Result<Self> {
        Ok(WordPiece {
            vocab,
            unk: at.opt_str("unk_token")?.unwrap_or("[UNK]").to_owned(),
            prefix: at
                .opt_str("continuing_subword_prefix")?
                .unwrap_or("##")
                .to_owned(),
            max_chars: at
                .get("max_input_chars_per_word")
                .map_or(Ok(100), |n| n.at().usize())?,
        })
    }

    fn unk(&self) -> Result<u32> {
        self.vocab
            .get(&self.unk)
            .copied()
            .ok_or_else(|| Error::Tokenizer {
                message: "WordPiece error: Missing [UNK] token from the vocabulary".into(),
            })
    }

    pub fn vocab(&self) -> &HashMap<String, u32> {
        &self.vocab
    }

    /// Appends `(id, byte start in word)` for `word`.
    pub fn tokenize(&self, word: &str, out: &mut Vec<(u32, u32)>) -> Result<()> {
        if word.chars().nth(self.max_chars).is_some() {
            out.push((self.unk()?, 0));
            return Ok(());
        }
        let mark = out.len();
        let mut key = String::with_capacity(self.prefix.len() + word.len());
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                key.clear();
                if start > 0 {
                    key.push_str(&self.prefix);
                }
                key.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(key.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= word[start..end]
                    .chars()
                    .next_back()
                    .map_or(1, char::len_utf8);
            }
            let Some(id) = found else {
                out.truncate(mark);
                out.push((self.unk()?, 0));
                return Ok(());
            };
            out.push((id, start as u32));
            start = end;
        }
        Ok(())
    }
}
