//! Embedded, tiktoken-exact BPE for `cl100k_base` and `o200k_base`.
//!
//! Performance notes:
//! - The rank tables are built from `bpe-openai`'s data by `build.rs`; pieces come
//!   from `pretokenize.rs` (tiktoken's split patterns, with fast paths for ASCII
//!   and for runs of three-byte letters) and are merged in `engine.rs`.
//! - Most pre-tokenized pieces are one vocabulary entry. A hash lookup answers
//!   those without running BPE at all; multi-token pieces go through a bounded
//!   per-thread memo (`memo.rs`).
//! - Offsets are the running sum of token byte lengths; BPE tokens of a piece
//!   concatenate back to the piece, so this is exact.
//! - `stream.rs` tokenizes text that arrives in pieces, with exactly the tokens
//!   of the joined text.

#![forbid(unsafe_code)]

mod engine;
mod js;
mod long;
mod memo;
mod pretokenize;
pub mod stream;
mod table_hash;
mod tables;
pub(crate) mod warm;

use std::sync::LazyLock;

use rayon::prelude::*;

use self::engine::Engine;
use self::memo::with_memo;
use self::pretokenize::{Pretokenizer, Split};
use crate::error::{Error, Result};

/// An embedded encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    Cl100kBase,
    O200kBase,
    /// `cl100k_base` as js-tiktoken splits it (JavaScript `\s`, ASCII-only case
    /// folding). Same vocabulary; only the VoltAgent compat layer uses it.
    Cl100kJs,
}

/// Token ids and the byte offset where each token starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    pub ids: Vec<u32>,
    pub byte_starts: Vec<u32>,
}

/// A ready encoding: its BPE tables, its split and its special-token texts.
pub struct Tokenizer {
    encoding: Encoding,
    engine: &'static Engine,
    pre: Pretokenizer,
    /// Special-token texts. `encode_ordinary` treats them as plain text;
    /// `first_special_token` reports them (tiktoken's `encode` refuses them).
    specials: &'static [&'static str],
}

static CL100K_ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let tables = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.tables"));
    Engine::new(tables, 0)
});
static O200K_ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let tables = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.tables"));
    Engine::new(tables, 1)
});

const CL100K_SPECIALS: &[&str] = &[
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|endofprompt|>",
];

static CL100K: LazyLock<Tokenizer> = LazyLock::new(|| Tokenizer {
    encoding: Encoding::Cl100kBase,
    engine: &CL100K_ENGINE,
    pre: Pretokenizer::new(Split::Cl100k),
    specials: CL100K_SPECIALS,
});

static CL100K_JS: LazyLock<Tokenizer> = LazyLock::new(|| Tokenizer {
    encoding: Encoding::Cl100kJs,
    engine: &CL100K_ENGINE,
    pre: Pretokenizer::new(Split::Cl100kJs),
    specials: CL100K_SPECIALS,
});

static O200K: LazyLock<Tokenizer> = LazyLock::new(|| Tokenizer {
    encoding: Encoding::O200kBase,
    engine: &O200K_ENGINE,
    pre: Pretokenizer::new(Split::O200k),
    specials: &["<|endoftext|>", "<|endofprompt|>"],
});

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokenizer({})", self.encoding.name())
    }
}

/// Two tokenizers are equal when they are the same encoding (there is one of each).
impl PartialEq for Tokenizer {
    fn eq(&self, other: &Self) -> bool {
        self.encoding == other.encoding
    }
}

impl Eq for Tokenizer {}

impl Encoding {
    /// Every name `from_name` accepts for the public encodings.
    pub const NAMES: [&'static str; 4] = ["cl100k", "cl100k_base", "o200k", "o200k_base"];

    /// Parses `cl100k`, `cl100k_base`, `o200k` or `o200k_base` (and `cl100k_js`).
    ///
    /// # Errors
    /// [`Error::UnknownTokenizer`] for any other name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "cl100k" | "cl100k_base" => Ok(Encoding::Cl100kBase),
            "o200k" | "o200k_base" => Ok(Encoding::O200kBase),
            "cl100k_js" => Ok(Encoding::Cl100kJs),
            _ => Err(Error::UnknownTokenizer {
                name: name.to_owned(),
            }),
        }
    }

    /// The tiktoken name of the encoding.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kJs => "cl100k_js",
        }
    }

    /// The ready tokenizer, built on first use and shared afterwards.
    ///
    /// # Errors
    /// None today: the tables and split DFAs are read in place and checked by unit tests
    /// (`every_split_dfa_loads`). The `Result` keeps room for an encoding that can fail.
    pub fn load(self) -> Result<&'static Tokenizer> {
        Ok(match self {
            Encoding::Cl100kBase => &CL100K,
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kJs => &CL100K_JS,
        })
    }
}

impl Tokenizer {
    /// Which encoding this is.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    pub(crate) fn engine(&self) -> &'static Engine {
        self.engine
    }

    /// The end of the pre-tokenized piece of `text` that starts at `at`.
    pub(crate) fn piece_end(&self, text: &str, at: usize) -> usize {
        self.pre.piece_end(text, at)
    }

    /// Calls `f(piece_byte_start, piece_tokens)` for every pre-tokenized piece, in order.
    pub(crate) fn for_each_piece(&self, text: &str, mut f: impl FnMut(usize, &[u32])) {
        let bytes = text.as_bytes();
        with_memo(self.engine, |memo| {
            let mut few = [0u32; 2];
            self.pre.for_each_piece(text, |a, b| {
                f(a, memo.tokens(self.engine, bytes, (a, b), &mut few));
            });
        });
    }

    /// Token ids, as tiktoken's `encode_ordinary` returns them.
    pub fn encode_ids(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::with_capacity(text.len() / 3 + 1);
        self.for_each_piece(text, |_, tokens| ids.extend_from_slice(tokens));
        ids
    }

    /// The first `n` ids of [`Tokenizer::encode_ids`], encoding only the pieces they
    /// need. Each piece still sees the whole text, so its look-ahead is the same.
    pub fn first_ids(&self, text: &str, n: usize) -> Vec<u32> {
        let bytes = text.as_bytes();
        let mut ids = Vec::with_capacity(n.min(text.len()));
        with_memo(self.engine, |memo| {
            let mut few = [0u32; 2];
            let mut at = 0;
            while at < text.len() && ids.len() < n {
                let end = self.pre.piece_end(text, at);
                ids.extend_from_slice(memo.tokens(self.engine, bytes, (at, end), &mut few));
                at = end;
            }
        });
        ids.truncate(n);
        ids
    }

    /// Token ids with the byte offset where each token starts.
    ///
    /// # Errors
    /// [`Error::TextTooLarge`] when the text has 4 GiB or more of UTF-8.
    pub fn encode(&self, text: &str) -> Result<Encoded> {
        check_len(text)?;
        let mut out = Encoded {
            ids: Vec::with_capacity(text.len() / 3 + 1),
            byte_starts: Vec::with_capacity(text.len() / 3 + 1),
        };
        self.for_each_piece(text, |start, tokens| {
            push_starts(self.engine, start, tokens, &mut out.byte_starts);
            out.ids.extend_from_slice(tokens);
        });
        Ok(out)
    }

    /// Only the byte offset where each token starts.
    ///
    /// # Errors
    /// [`Error::TextTooLarge`] when the text has 4 GiB or more of UTF-8.
    pub fn token_starts(&self, text: &str) -> Result<Vec<u32>> {
        check_len(text)?;
        let mut starts = Vec::with_capacity(text.len() / 3 + 1);
        self.for_each_piece(text, |start, tokens| {
            push_starts(self.engine, start, tokens, &mut starts);
        });
        Ok(starts)
    }

    /// Number of tokens `encode_ids` would return.
    pub fn count(&self, text: &str) -> usize {
        let mut n = 0;
        self.for_each_piece(text, |_, tokens| n += tokens.len());
        n
    }

    /// `count(&text[..k])` for every byte position `k`, from one pass over `text`.
    ///
    /// A prefix splits into the same pieces as the whole text up to the first piece
    /// whose match looked at a character at or past `k`. For cl100k that is its end,
    /// or the end of the white-space run it starts with (`\s*[\r\n]+` and
    /// `\s+(?!\S)` read the whole run). Only the tail from there is encoded again.
    /// o200k's optional contraction suffix looks further ahead, so its prefixes are
    /// counted directly.
    ///
    /// # Errors
    /// [`Error::InvalidOffsets`] for a position past the end or inside a character.
    pub fn prefix_counts(&self, text: &str, positions: &[usize]) -> Result<Vec<usize>> {
        for (index, &k) in positions.iter().enumerate() {
            if !text.is_char_boundary(k) {
                return Err(Error::InvalidOffsets {
                    index,
                    value: k as u64,
                    reason: format!(
                        "is not a character boundary of the text ({} bytes)",
                        text.len()
                    ),
                });
            }
        }
        if self.encoding == Encoding::O200kBase {
            return Ok(positions.iter().map(|&k| self.count(&text[..k])).collect());
        }
        let mut starts = Vec::new();
        let mut tokens_before = vec![0usize];
        self.for_each_piece(text, |start, tokens| {
            starts.push(start);
            tokens_before.push(tokens_before[tokens_before.len() - 1] + tokens.len());
        });
        // Running maximum of the last position each piece's match examined.
        let mut horizon = Vec::with_capacity(starts.len());
        let mut seen = 0;
        for (j, &start) in starts.iter().enumerate() {
            let end = starts.get(j + 1).copied().unwrap_or(text.len());
            let run_end = text[start..]
                .char_indices()
                .find(|&(_, c)| !is_space(c))
                .map_or(text.len(), |(i, _)| start + i);
            seen = seen.max(end).max(run_end);
            horizon.push(seen);
        }
        Ok(positions
            .iter()
            .map(|&k| {
                if k >= text.len() {
                    return tokens_before[starts.len()];
                }
                // Pieces whose matches stayed strictly before `k` are shared.
                let shared = horizon.partition_point(|&h| h < k);
                let from = starts.get(shared).copied().unwrap_or(text.len()).min(k);
                tokens_before[shared] + self.count(&text[from..k])
            })
            .collect())
    }

    /// Counts many texts in parallel on the current rayon pool.
    pub fn count_batch(&self, texts: &[&str]) -> Vec<usize> {
        texts.par_iter().map(|t| self.count(t)).collect()
    }

    /// True when the text contains a special-token string, which tiktoken's
    /// default `encode` refuses.
    pub fn contains_special_token(&self, text: &str) -> bool {
        self.first_special_token(text).is_some()
    }

    /// The left-most special-token string in the text, if any.
    pub fn first_special_token(&self, text: &str) -> Option<&'static str> {
        memchr::memmem::find_iter(text.as_bytes(), b"<|").find_map(|at| {
            let rest = &text.as_bytes()[at..];
            self.specials
                .iter()
                .find(|s| rest.starts_with(s.as_bytes()))
                .copied()
        })
    }

    /// The bytes of one token, or `None` for an id outside the vocabulary.
    pub fn token_bytes(&self, id: u32) -> Option<&'static [u8]> {
        ((id as usize) < self.engine.num_tokens()).then(|| self.engine.token_bytes(id))
    }
}

#[cfg(feature = "fuzzing")]
impl Tokenizer {
    /// Fuzzing: the fast paths agree with the general ones on `text` (the pre-tokenizer's
    /// ASCII path with the regex, the short merge with the long-piece encoder, the memo
    /// with a fresh encoding of each piece).
    pub fn fast_paths_agree(&self, text: &str) -> bool {
        let mut fast = Vec::new();
        self.pre.for_each_piece(text, |a, b| fast.push((a, b)));
        let mut slow = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let end = self.pre.regex_piece(text, at);
            slow.push((at, end));
            at = end;
        }
        if fast != slow {
            return false;
        }
        let mut memoised = Vec::new();
        self.for_each_piece(text, |_, tokens| memoised.extend_from_slice(tokens));
        let mut direct = Vec::new();
        for &(a, b) in &slow {
            let piece = &text.as_bytes()[a..b];
            let mut reference = Vec::new();
            self.engine.encode_long(piece, &mut reference);
            if piece.len() <= engine::SHORT_PIECE {
                let mut short = Vec::new();
                self.engine.merge_short(piece, &mut short);
                if short != reference {
                    return false;
                }
            }
            direct.extend(reference);
        }
        memoised == direct
    }
}

/// Appends the start of every token of one piece that starts at byte `start`.
fn push_starts(engine: &Engine, start: usize, tokens: &[u32], out: &mut Vec<u32>) {
    // Offsets fit u32: callers check the text length first.
    let mut at = start;
    for &id in tokens {
        out.push(at as u32);
        at += engine.token_len(id);
    }
}

/// White space to any of the splits: Unicode `White_Space` or JavaScript's `\s`.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || js::is_js_space(c)
}

/// Rejects texts whose byte offsets do not fit `u32`.
///
/// # Errors
/// [`Error::TextTooLarge`].
pub fn check_len(text: &str) -> Result<()> {
    if text.len() > u32::MAX as usize {
        return Err(Error::TextTooLarge { bytes: text.len() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tok(enc: Encoding) -> &'static Tokenizer {
        enc.load().unwrap()
    }

    #[test]
    fn every_split_pattern_compiles() {
        for enc in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::Cl100kJs,
        ] {
            assert!(enc.load().is_ok(), "{enc:?}");
        }
    }

    #[test]
    fn js_split_reads_feff_as_white_space() {
        // js-tiktoken: U+FEFF is `\s`, U+0085 is not; `'ſ` is no contraction.
        let (js, stock) = (tok(Encoding::Cl100kJs), tok(Encoding::Cl100kBase));
        assert_eq!(
            js.encode_ids("hello world"),
            stock.encode_ids("hello world")
        );
        assert_ne!(
            js.encode_ids("  \u{feff}  x"),
            stock.encode_ids("  \u{feff}  x")
        );
        assert_eq!(Encoding::from_name("cl100k_js"), Ok(Encoding::Cl100kJs));
    }

    #[test]
    fn known_counts_match_tiktoken() {
        // Figures from tiktoken cl100k_base (also in the RAGFlow spec §1).
        let enc = tok(Encoding::Cl100kBase);
        assert_eq!(enc.count("\n"), 1);
        assert_eq!(enc.count("\nx"), 2);
        assert_eq!(enc.count("hello world 你好"), 5);
        assert_eq!(enc.encode_ids("hello world"), vec![15339, 1917]);
        assert_eq!(enc.count(""), 0);
    }

    #[test]
    fn o200k_differs_from_cl100k() {
        assert_eq!(
            tok(Encoding::O200kBase).encode_ids("hello world"),
            vec![24912, 2375]
        );
    }

    #[test]
    fn special_token_text_is_ordinary_but_detected() {
        let enc = tok(Encoding::Cl100kBase);
        assert!(enc.count("a<|endoftext|>b") > 3);
        assert!(enc.contains_special_token("a<|endoftext|>b"));
        assert!(enc.contains_special_token("<|fim_suffix|>"));
        assert!(!enc.contains_special_token("<|endoftext|"));
        assert!(!tok(Encoding::O200kBase).contains_special_token("<|fim_suffix|>"));
    }

    #[test]
    fn names_parse_and_unknown_is_rejected() {
        assert_eq!(Encoding::from_name("cl100k"), Ok(Encoding::Cl100kBase));
        assert_eq!(Encoding::from_name("o200k_base"), Ok(Encoding::O200kBase));
        assert!(matches!(
            Encoding::from_name("gpt2"),
            Err(Error::UnknownTokenizer { .. })
        ));
    }

    #[test]
    fn memo_reset_keeps_output_exact() {
        // More distinct multi-token pieces than the memo holds.
        let text: String = (0..memo::MEMO_CAPACITY + 10)
            .map(|i| format!("zq{i}xv "))
            .collect();
        let enc = tok(Encoding::Cl100kBase);
        let bpe = bpe_openai::cl100k_base();
        let direct: Vec<u32> = bpe
            .split(&text)
            .flat_map(|p| bpe.bpe.encode_via_backtracking(p.as_bytes()))
            .collect();
        assert_eq!(enc.encode_ids(&text), direct);
    }

    #[test]
    fn the_thread_memo_stays_exact_across_calls_encodings_and_reentry() {
        let text = "Shakespeare's comedies, 第一句话。 Shakespeare's comedies again!";
        let direct = |e: Encoding| {
            let bpe = match e {
                Encoding::O200kBase => bpe_openai::o200k_base(),
                _ => bpe_openai::cl100k_base(),
            };
            bpe.split(text)
                .flat_map(|p| bpe.bpe.encode_via_backtracking(p.as_bytes()))
                .collect::<Vec<u32>>()
        };
        let (cl, o2) = (tok(Encoding::Cl100kBase), tok(Encoding::O200kBase));
        for _ in 0..2 {
            assert_eq!(cl.encode_ids(text), direct(Encoding::Cl100kBase));
            assert_eq!(o2.encode_ids(text), direct(Encoding::O200kBase));
        }
        // A callback that tokenizes again gets a memo of its own.
        let mut inner = Vec::new();
        cl.for_each_piece(text, |_, tokens| {
            inner.push((tokens.to_vec(), o2.count(text)));
        });
        let ids: Vec<u32> = inner.iter().flat_map(|(t, _)| t.clone()).collect();
        assert_eq!(ids, direct(Encoding::Cl100kBase));
        assert!(inner
            .iter()
            .all(|&(_, n)| n == direct(Encoding::O200kBase).len()));
    }

    #[test]
    fn prefix_counts_reject_bad_positions() {
        let enc = tok(Encoding::Cl100kJs);
        assert!(enc.prefix_counts("aé", &[2]).is_err());
        assert!(enc.prefix_counts("ab", &[3]).is_err());
        assert_eq!(enc.prefix_counts("ab", &[0, 2]).unwrap(), vec![0, 1]);
    }

    proptest! {
        #[test]
        fn short_merge_equals_backtracking_on_text(piece in "\\PC{1,16}|[a-zA-Z你好世界]{1,24}") {
            let engine = tok(Encoding::Cl100kBase).engine;
            let mut ours = Vec::new();
            engine.merge_short(piece.as_bytes(), &mut ours);
            prop_assert_eq!(ours, bpe_openai::cl100k_base().bpe.encode_via_backtracking(piece.as_bytes()));
        }

        #[test]
        fn first_ids_are_a_prefix_of_the_encoding(
            text in "\\PC{0,64}|[a-z 你好😀\u{200d}\r\n\t]{0,64}", n in 0usize..40
        ) {
            for enc in [Encoding::Cl100kBase, Encoding::O200kBase, Encoding::Cl100kJs] {
                let enc = tok(enc);
                let all = enc.encode_ids(&text);
                prop_assert_eq!(enc.first_ids(&text, n), &all[..n.min(all.len())]);
            }
        }

        #[test]
        fn offsets_tile_the_text(text in "\\PC{0,64}|[a-z 你好😀\u{200d}\r\n\t]{0,64}") {
            for enc in [Encoding::Cl100kBase, Encoding::O200kBase] {
                let enc = tok(enc);
                let e = enc.encode(&text).unwrap();
                prop_assert_eq!(e.ids.len(), e.byte_starts.len());
                prop_assert_eq!(e.ids.len(), enc.count(&text));
                prop_assert_eq!(&enc.token_starts(&text).unwrap(), &e.byte_starts);
                let mut bytes = Vec::new();
                for (i, &id) in e.ids.iter().enumerate() {
                    prop_assert_eq!(e.byte_starts[i] as usize, bytes.len());
                    bytes.extend_from_slice(enc.token_bytes(id).unwrap());
                }
                prop_assert_eq!(bytes, text.as_bytes());
            }
        }

        #[test]
        fn prefix_counts_equal_direct_counts(
            text in "[a-zA-Z0-9' .,!?\n\r\t\u{a0}\u{3000}\u{feff}\u{85}ſ你好😀]{0,48}",
            cuts in proptest::collection::vec(0usize..64, 0..8),
        ) {
            let mut positions: Vec<usize> = cuts
                .into_iter()
                .map(|c| c.min(text.len()))
                .filter(|&c| text.is_char_boundary(c))
                .collect();
            positions.push(text.len());
            for enc in [Encoding::Cl100kBase, Encoding::Cl100kJs, Encoding::O200kBase] {
                let enc = tok(enc);
                let direct: Vec<usize> = positions.iter().map(|&k| enc.count(&text[..k])).collect();
                prop_assert_eq!(enc.prefix_counts(&text, &positions).unwrap(), direct);
            }
        }
    }
}
