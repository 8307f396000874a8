//! Tokenizing text that arrives in pieces, with exactly the tokens of the joined text.
//!
//! BPE runs per pre-tokenized piece, so the stream only has to know which pieces
//! of the text seen so far are the pieces of the whole text. A piece is final
//! when more text could not change it:
//!
//! - it ends before the end of the text seen so far (the match stopped on its own);
//! - it starts before the trailing run of white space: `\s*[\r\n]+` and
//!   `\s+(?!\S)` read a whole run of white space, so a run at the end can still
//!   regroup (`"\n  "` is `"\n"` now but `"\n  \n"` later);
//! - it ends before an apostrophe among the last three characters: o200k's
//!   letters take an optional contraction (`don'` may become `don't`).
//!
//! Those are the only places where the split patterns look past the end of a
//! match (cl100k's contractions are pieces of their own). Final pieces are
//! encoded and dropped; the carry is the rest, at most the longest piece of the
//! text (a run with no break at all, 50 MB of letters, is one piece and is held
//! whole: BPE decides its tokens from all of it). The property tests below check
//! the stream against the whole-text encoding at random split points.

use super::memo::with_memo;
use super::{is_space, Tokenizer};

/// A carry at least this long is scanned again only once it has doubled, so a
/// long open piece costs linear time however finely the input is split.
const RESCAN_FROM: usize = 4096;

/// Incremental tokenizer state: tokens are final up to `pos`.
pub struct StreamEncoder {
    tok: &'static Tokenizer,
    pos: usize,
    stalled: usize,
}

impl StreamEncoder {
    pub fn new(tok: &'static Tokenizer) -> Self {
        StreamEncoder {
            tok,
            pos: 0,
            stalled: 0,
        }
    }

    /// The absolute byte offset up to which tokens are final: a piece boundary.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Tokenizes every piece that became final and appends the absolute byte
    /// start of each of its tokens to `starts`.
    ///
    /// `text` holds the input from absolute byte offset `base` (at most `pos`) to
    /// the end seen so far; `done` says no more input follows.
    pub fn advance(&mut self, text: &str, base: usize, done: bool, starts: &mut Vec<usize>) {
        let local = self.pos - base;
        let avail = &text[local..];
        if avail.is_empty()
            || (!done && self.stalled >= RESCAN_FROM && avail.len() < 2 * self.stalled)
        {
            return;
        }
        let limit = if done {
            Limit {
                run_start: avail.len(),
                apostrophe: usize::MAX,
            }
        } else {
            final_limit(avail)
        };
        let engine = self.tok.engine();
        let bytes = avail.as_bytes();
        let mut at = 0;
        with_memo(engine, |memo| {
            let mut few = [0u32; 2];
            while at < avail.len() {
                let end = self.tok.piece_end(avail, at);
                if !done && (end >= avail.len() || at >= limit.run_start || end >= limit.apostrophe)
                {
                    break;
                }
                let mut start = self.pos + at;
                for &id in memo.tokens(engine, bytes, (at, end), &mut few) {
                    starts.push(start);
                    start += engine.token_len(id);
                }
                at = end;
            }
        });
        self.stalled = if at == 0 && !done { avail.len() } else { 0 };
        self.pos += at;
    }
}

/// Where final pieces must stop, as local offsets into the unfinished text.
struct Limit {
    /// Pieces must start before the trailing run of white space.
    run_start: usize,
    /// Pieces must end before an apostrophe among the last three characters.
    apostrophe: usize,
}

fn final_limit(text: &str) -> Limit {
    let run_start = text
        .char_indices()
        .rev()
        .find(|&(_, c)| !is_space(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let apostrophe = text
        .char_indices()
        .rev()
        .take(3)
        .filter(|&(_, c)| c == '\'')
        .last()
        .map_or(usize::MAX, |(i, _)| i);
    Limit {
        run_start,
        apostrophe,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::Encoding;
    use proptest::prelude::*;

    /// Feeds `text` cut at `cuts` (byte offsets, moved to character boundaries) and
    /// drops consumed text as a driver does.
    fn streamed(enc: Encoding, text: &str, cuts: &[usize]) -> Vec<usize> {
        let tok = enc.load().unwrap();
        let mut points: Vec<usize> = cuts
            .iter()
            .map(|&c| {
                let mut c = c.min(text.len());
                while !text.is_char_boundary(c) {
                    c += 1;
                }
                c
            })
            .collect();
        points.sort_unstable();
        points.push(text.len());
        let mut s = StreamEncoder::new(tok);
        let mut starts = Vec::new();
        let mut buf = String::new();
        let mut base = 0;
        let mut fed = 0;
        for p in points {
            buf.push_str(&text[fed..p]);
            fed = p;
            s.advance(&buf, base, false, &mut starts);
            let drop = s.pos() - base;
            buf.drain(..drop);
            base += drop;
        }
        s.advance(&buf, base, true, &mut starts);
        assert_eq!(s.pos(), text.len());
        starts
    }

    fn whole(enc: Encoding, text: &str) -> Vec<usize> {
        let tok = enc.load().unwrap();
        tok.token_starts(text)
            .unwrap()
            .into_iter()
            .map(|s| s as usize)
            .collect()
    }

    const ENCODINGS: [Encoding; 3] = [
        Encoding::Cl100kBase,
        Encoding::O200kBase,
        Encoding::Cl100kJs,
    ];

    #[test]
    fn known_look_ahead_cases() {
        for text in [
            "x\n  \n  y",
            "don't stop, we'll see; I'D go",
            "a   \t\r\n\r\n   b",
            "123456 7890",
            "\u{feff}  \u{feff}x \u{85} y",
            "Hello World's END",
            "日本語のテキスト、句読点なし",
        ] {
            for enc in ENCODINGS {
                for cut in 0..=text.len() {
                    assert_eq!(
                        streamed(enc, text, &[cut]),
                        whole(enc, text),
                        "{enc:?} {text:?} {cut}"
                    );
                }
                let every: Vec<usize> = (0..text.len()).collect();
                assert_eq!(streamed(enc, text, &every), whole(enc, text));
            }
        }
    }

    #[test]
    fn a_long_open_piece_is_rescanned_only_when_it_doubles() {
        let text = "a".repeat(300_000) + " b";
        let cuts: Vec<usize> = (1..300).map(|i| i * 1000).collect();
        assert_eq!(
            streamed(Encoding::Cl100kBase, &text, &cuts),
            whole(Encoding::Cl100kBase, &text)
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn stream_equals_whole_text(
            text in "[a-zA-Z0-9' .,!?\n\r\t\u{a0}\u{3000}\u{feff}\u{85}ſ你好😀\u{200d}éK]{0,60}|\\PC{0,40}",
            cuts in proptest::collection::vec(0usize..80, 0..6),
        ) {
            for enc in ENCODINGS {
                prop_assert_eq!(streamed(enc, &text, &cuts), whole(enc, &text));
            }
        }
    }
}
