//! A `tokenizer.json` over text that arrives in pieces, with exactly the tokens of the
//! joined text.
//!
//! Tokens are final up to `pos`, where the next token starts; the next piece is
//! tokenized from `from` (at most `pos`: the white space between may belong to no
//! token). When enough new text has come, the text from `from` is
//! cut at a line start (else after a space) well before its end, where tokenizing each
//! side alone gives the tokens of the whole within a window on each side
//! ([`HfTokenizer::separable`]); the part before the cut is tokenized as a piece of the
//! text. Without such a cut the text waits, and a try is repeated only once the text has
//! doubled, so a long line costs linear time. The carry is the text since `pos`.

use std::sync::Arc;

use super::HfTokenizer;
use crate::error::Result;

/// How far before the end of the text a cut may fall: the tokens near it then depend on
/// no text still to come.
const MARGIN: usize = 1024;
/// How much text each side of a cut the separability check reads.
const WINDOW: usize = 256;
/// Text gathered before the first try, and candidates tried per kind of cut.
const FIRST_TRY: usize = 16 * 1024;
const TRIES: usize = 8;

pub struct HfStream {
    tok: Arc<HfTokenizer>,
    /// Where the next piece is tokenized from, and where its first token starts.
    from: usize,
    pos: usize,
    /// The available text's length at the last try that found no cut.
    stalled: usize,
}

impl HfStream {
    pub fn new(tok: Arc<HfTokenizer>) -> Self {
        HfStream {
            tok,
            from: 0,
            pos: 0,
            stalled: 0,
        }
    }

    /// The absolute byte up to which tokens are final: where the next token starts.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The first byte the stream still needs.
    pub fn keep(&self) -> usize {
        self.from
    }

    /// Tokenizes the text that became final, appending absolute token starts to
    /// `starts` and word flags to `words`. `text` holds the input from absolute byte
    /// `base` (at most `keep()`) to the end seen so far; `done` says no more follows.
    ///
    /// # Errors
    /// The tokenizer fails on the text (an unknown word without an unknown token).
    pub fn advance(
        &mut self,
        text: &str,
        base: usize,
        done: bool,
        starts: &mut Vec<usize>,
        words: &mut Vec<bool>,
    ) -> Result<()> {
        let avail = &text[self.from - base..];
        if avail.is_empty() {
            if done {
                self.pos = self.from;
            }
            return Ok(());
        }
        let (cut, next) = if done {
            (avail.len(), avail.len())
        } else {
            if avail.len() < FIRST_TRY.max(2 * self.stalled) {
                return Ok(());
            }
            match self.cut(avail)? {
                Some(found) => found,
                None => {
                    self.stalled = avail.len();
                    return Ok(());
                }
            }
        };
        let at_start = self.from == 0;
        let (found, flags) = self.tok.chunk_tokens_from(&avail[..cut], at_start)?;
        let first = starts.len();
        starts.extend(found.iter().map(|&s| self.from + s as usize));
        words.extend(flags);
        if at_start {
            if let Some(s) = starts.get_mut(first) {
                *s = 0; // token 0 runs from the start of the text
            }
        }
        self.pos = self.from + next;
        self.from += cut;
        self.stalled = 0;
        Ok(())
    }

    /// A separable cut in `avail` at least `MARGIN` bytes before its end (the last line
    /// start that is one, else the last position after a space), and where the first
    /// token after it starts.
    fn cut(&self, avail: &str) -> Result<Option<(usize, usize)>> {
        let bytes = avail.as_bytes();
        let Some(limit) = avail.len().checked_sub(MARGIN) else {
            return Ok(None);
        };
        for sep in [b'\n', b' '] {
            let mut tried = 0;
            let mut at = limit;
            while tried < TRIES {
                let Some(i) = memchr::memrchr(sep, &bytes[..at]) else {
                    break;
                };
                at = i;
                let p = i + 1;
                if p <= WINDOW {
                    break;
                }
                tried += 1;
                let mut a = p - WINDOW;
                while !avail.is_char_boundary(a) {
                    a += 1;
                }
                let mut b = p + WINDOW;
                while !avail.is_char_boundary(b) {
                    b -= 1;
                }
                let at_start = self.from == 0 && a == 0;
                if let Some(next) = self.tok.separable(avail, a, p, b, at_start)? {
                    return Ok(Some((p, next)));
                }
            }
        }
        Ok(None)
    }
}
