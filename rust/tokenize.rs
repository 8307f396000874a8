//! Embedded, tiktoken-exact BPE for `cl100k_base` and `o200k_base`.
//!
//! Performance notes:
//! - The rank tables are compiled into the binary by `bpe-openai`, so nothing is
//!   downloaded at build or run time. Pieces come from `pretokenize.rs`.
//! - Most pre-tokenized pieces are one vocabulary entry. A hash lookup answers
//!   those without running BPE at all.
//! - Pieces up to 128 bytes are merged with tiktoken's own algorithm (lowest
//!   rank first, leftmost on ties), with ranks looked up by (left id, right id):
//!   a linear scan for a few parts, a min-heap over a linked list for longer
//!   ones (CJK runs). Longer pieces (a 5 MB run of letters is one piece) keep
//!   bpe's linear-time backtracking encoder.
//! - Multi-token pieces repeat a lot inside one document ("Shakespeare's",
//!   CJK runs), so their encodings are memoised per call. The memo is bounded
//!   and per call, so it needs no lock and cannot grow without limit.
//! - Offsets are the running sum of token byte lengths; BPE tokens of a piece
//!   concatenate back to the piece, so this is exact.

use std::collections::HashMap;
use std::sync::LazyLock;

use bpe_openai::Tokenizer as Bpe;
use foldhash::fast::RandomState;
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::pretokenize::Pretokenizer;

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

struct Engine {
    bpe: &'static Bpe,
    /// Our split (`None` only if its pattern failed to compile; bpe-openai's split is used then).
    pre: Option<Pretokenizer>,
    /// Token bytes -> id. Ids are tiktoken's merge ranks, so this is also the rank table.
    vocab: HashMap<&'static [u8], u32, RandomState>,
    /// The id of each single byte.
    byte_ids: [u32; 256],
    /// (left id, right id) -> id of the joined bytes, for every split of every token
    /// into two tokens. BPE parts are always tokens, so this answers every merge rank.
    pairs: HashMap<u64, u32, RandomState>,
    /// The rank of every byte pair (`u32::MAX` if it does not merge): the first
    /// round of every merge, without hashing.
    byte_pairs: Vec<u32>,
    /// Special-token texts. `encode_ordinary` treats them as plain text;
    /// `contains_special_token` reports them (tiktoken's `encode` refuses them).
    specials: &'static [&'static str],
}

impl Engine {
    fn new(
        bpe: &'static Bpe,
        pre: Result<Pretokenizer>,
        specials: &'static [&'static str],
    ) -> Self {
        let n = bpe.bpe.num_tokens();
        let mut vocab = HashMap::with_capacity_and_hasher(n, RandomState::default());
        let mut byte_ids = [u32::MAX; 256];
        for id in 0..n as u32 {
            let bytes = bpe.bpe.token_bytes(id);
            if let [b] = bytes {
                byte_ids[*b as usize] = id;
            }
            vocab.insert(bytes, id);
        }
        let mut pairs = HashMap::with_hasher(RandomState::default());
        for (&bytes, &id) in &vocab {
            for k in 1..bytes.len() {
                if let (Some(&a), Some(&b)) = (vocab.get(&bytes[..k]), vocab.get(&bytes[k..])) {
                    pairs.insert(pair_key(a, b), id);
                }
            }
        }
        let byte_pairs = (0..1usize << 16)
            .map(|k| {
                let pair = [(k >> 8) as u8, k as u8];
                vocab.get(&pair[..]).copied().unwrap_or(u32::MAX)
            })
            .collect();
        Engine {
            bpe,
            pre: pre.ok(),
            vocab,
            byte_ids,
            pairs,
            byte_pairs,
            specials,
        }
    }

    /// The merge rank (= id) of two adjacent tokens, or `u32::MAX` if they do not merge.
    fn pair_rank(&self, left: u32, right: u32) -> u32 {
        self.pairs
            .get(&pair_key(left, right))
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Appends the tokens of one pre-tokenized piece to `out`.
    fn encode_piece(&self, piece: &[u8], out: &mut Vec<u32>) {
        if piece.len() > SHORT_PIECE {
            out.extend(self.bpe.bpe.encode_via_backtracking(piece));
        } else {
            self.merge_short(piece, out);
        }
    }

    /// tiktoken's `byte_pair_merge`: repeatedly merge the adjacent pair whose
    /// joined bytes have the lowest rank. Parts are always tokens, so a rank is a
    /// lookup of two ids (`pairs`) rather than of a byte slice.
    /// `parts[i] = (token of part i, rank of merging it with part i + 1)`.
    fn merge_short(&self, piece: &[u8], out: &mut Vec<u32>) {
        // A scan over a few parts beats a heap; long pieces (CJK runs) want the heap.
        if piece.len() <= HEAP_FROM {
            self.merge_scan(piece, out);
        } else {
            self.merge_heap(piece, out);
        }
    }

    fn merge_scan(&self, piece: &[u8], out: &mut Vec<u32>) {
        let mut parts: Vec<(u32, u32)> = piece
            .iter()
            .map(|&b| (self.byte_ids[b as usize], u32::MAX))
            .collect();
        for (i, w) in piece.windows(2).enumerate() {
            parts[i].1 = self.byte_pairs[usize::from(w[0]) << 8 | usize::from(w[1])];
        }
        loop {
            let mut best = (u32::MAX, 0);
            for (i, part) in parts.iter().enumerate() {
                if part.1 < best.0 {
                    best = (part.1, i);
                }
            }
            let (rank, i) = best;
            if rank == u32::MAX {
                break;
            }
            // The joined token's id is its rank.
            parts[i].0 = rank;
            parts.remove(i + 1);
            parts[i].1 = match parts.get(i + 1) {
                Some(next) => self.pair_rank(rank, next.0),
                None => u32::MAX,
            };
            if i > 0 {
                parts[i - 1].1 = self.pair_rank(parts[i - 1].0, rank);
            }
        }
        out.extend(parts.iter().map(|p| p.0));
    }

    fn merge_heap(&self, piece: &[u8], out: &mut Vec<u32>) {
        // Parts form a linked list over byte positions; a min-heap of (rank, position)
        // picks the lowest rank, leftmost first, as tiktoken's scan does. Stale heap
        // entries (a part that merged or whose rank changed) are skipped when popped.
        let n = piece.len();
        let mut token: Vec<u32> = piece.iter().map(|&b| self.byte_ids[b as usize]).collect();
        let mut rank = vec![u32::MAX; n];
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut heap = std::collections::BinaryHeap::with_capacity(n);
        for (i, w) in piece.windows(2).enumerate() {
            rank[i] = self.byte_pairs[usize::from(w[0]) << 8 | usize::from(w[1])];
            if rank[i] != u32::MAX {
                heap.push(std::cmp::Reverse((rank[i], i)));
            }
        }
        while let Some(std::cmp::Reverse((r, i))) = heap.pop() {
            if token[i] == u32::MAX || rank[i] != r {
                continue;
            }
            let j = next[i];
            token[i] = r;
            token[j] = u32::MAX;
            next[i] = next[j];
            if next[i] < n {
                prev[next[i]] = i;
                rank[i] = self.pair_rank(r, token[next[i]]);
                if rank[i] != u32::MAX {
                    heap.push(std::cmp::Reverse((rank[i], i)));
                }
            } else {
                rank[i] = u32::MAX;
            }
            let p = prev[i];
            if p < n {
                rank[p] = self.pair_rank(token[p], r);
                if rank[p] != u32::MAX {
                    heap.push(std::cmp::Reverse((rank[p], p)));
                }
            }
        }
        out.extend(token.into_iter().filter(|&t| t != u32::MAX));
    }
}

fn pair_key(left: u32, right: u32) -> u64 {
    (u64::from(left) << 32) | u64::from(right)
}

/// Pieces longer than this merge with a heap instead of a linear scan.
const HEAP_FROM: usize = 24;

/// Pieces up to this many bytes use the quadratic-but-tight `merge_short`.
const SHORT_PIECE: usize = 128;

static CL100K: LazyLock<Engine> = LazyLock::new(|| {
    Engine::new(
        bpe_openai::cl100k_base(),
        Pretokenizer::cl100k(),
        &[
            "<|endoftext|>",
            "<|fim_prefix|>",
            "<|fim_middle|>",
            "<|fim_suffix|>",
            "<|endofprompt|>",
        ],
    )
});

static CL100K_JS_SPLIT: LazyLock<Option<Pretokenizer>> =
    LazyLock::new(|| Pretokenizer::cl100k_js().ok());

static O200K: LazyLock<Engine> = LazyLock::new(|| {
    Engine::new(
        bpe_openai::o200k_base(),
        Pretokenizer::o200k(),
        &["<|endoftext|>", "<|endofprompt|>"],
    )
});

/// Memo entries kept per call before the memo is reset.
const MEMO_CAPACITY: usize = 1 << 16;

/// Per-call memo of multi-token pieces: piece -> range in `store`.
struct Memo<'t> {
    ranges: HashMap<&'t str, (u32, u32), RandomState>,
    store: Vec<u32>,
}

impl<'t> Memo<'t> {
    fn new() -> Self {
        Memo {
            ranges: HashMap::with_hasher(RandomState::default()),
            store: Vec::new(),
        }
    }

    fn get_or_encode(&mut self, engine: &Engine, piece: &'t str) -> &[u32] {
        if let Some(&(a, b)) = self.ranges.get(piece) {
            return &self.store[a as usize..b as usize];
        }
        if self.ranges.len() >= MEMO_CAPACITY {
            self.ranges.clear();
            self.store.clear();
        }
        let a = self.store.len();
        engine.encode_piece(piece.as_bytes(), &mut self.store);
        let b = self.store.len();
        self.ranges.insert(piece, (a as u32, b as u32));
        &self.store[a..b]
    }
}

impl Encoding {
    /// Every name `from_name` accepts.
    pub const NAMES: [&'static str; 4] = ["cl100k", "cl100k_base", "o200k", "o200k_base"];

    /// Parses `cl100k`, `cl100k_base`, `o200k` or `o200k_base`.
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

    fn engine(self) -> &'static Engine {
        match self {
            Encoding::Cl100kBase | Encoding::Cl100kJs => &CL100K,
            Encoding::O200kBase => &O200K,
        }
    }

    fn pretokenizer(self) -> Option<&'static Pretokenizer> {
        match self {
            Encoding::Cl100kJs => CL100K_JS_SPLIT.as_ref(),
            _ => self.engine().pre.as_ref(),
        }
    }

    /// Calls `f(piece_byte_start, piece_tokens)` for every pre-tokenized piece, in order.
    fn for_each_piece(self, text: &str, mut f: impl FnMut(usize, &[u32])) {
        let engine = self.engine();
        let mut memo = Memo::new();
        let mut piece = |start: usize, end: usize| {
            let piece = &text[start..end];
            match engine.vocab.get(piece.as_bytes()) {
                Some(&id) => f(start, &[id]),
                None => f(start, memo.get_or_encode(engine, piece)),
            }
        };
        match self.pretokenizer() {
            Some(pre) => pre.for_each_piece(text, &mut piece),
            None => {
                let base = text.as_ptr() as usize;
                for p in engine.bpe.split(text) {
                    // Pieces are sub-slices of `text`: the address difference is the offset.
                    let start = p.as_ptr() as usize - base;
                    piece(start, start + p.len());
                }
            }
        }
    }

    /// Token ids, as tiktoken's `encode_ordinary` returns them.
    pub fn encode_ids(self, text: &str) -> Vec<u32> {
        let mut ids = Vec::with_capacity(text.len() / 3 + 1);
        self.for_each_piece(text, |_, tokens| ids.extend_from_slice(tokens));
        ids
    }

    /// Token ids with the byte offset where each token starts.
    ///
    /// # Errors
    /// [`Error::TextTooLarge`] when the text has 4 GiB or more of UTF-8.
    pub fn encode(self, text: &str) -> Result<Encoded> {
        check_len(text)?;
        let bpe = &self.engine().bpe.bpe;
        let mut out = Encoded {
            ids: Vec::with_capacity(text.len() / 3 + 1),
            byte_starts: Vec::with_capacity(text.len() / 3 + 1),
        };
        self.for_each_piece(text, |start, tokens| {
            if tokens.is_empty() {
                return; // pieces are never empty, so this never happens
            }
            // `check_len` bounds every offset by u32::MAX.
            out.byte_starts.push(start as u32);
            // A one-token piece needs no length lookup; the rest sum token lengths.
            let mut at = start;
            for pair in tokens.windows(2) {
                at += bpe.token_len(pair[0]);
                out.byte_starts.push(at as u32);
            }
            out.ids.extend_from_slice(tokens);
        });
        Ok(out)
    }

    /// Number of tokens `encode_ids` would return.
    pub fn count(self, text: &str) -> usize {
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
    /// counted directly. Positions must be character boundaries of `text`.
    pub fn prefix_counts(self, text: &str, positions: &[usize]) -> Vec<usize> {
        if self == Encoding::O200kBase {
            return positions.iter().map(|&k| self.count(&text[..k])).collect();
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
                .find(|&(_, c)| !(c.is_whitespace() || is_js_space(c)))
                .map_or(text.len(), |(i, _)| start + i);
            seen = seen.max(end).max(run_end);
            horizon.push(seen);
        }
        positions
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
            .collect()
    }

    /// Counts many texts in parallel on the current rayon pool.
    pub fn count_batch(self, texts: &[&str]) -> Vec<usize> {
        texts.par_iter().map(|t| self.count(t)).collect()
    }

    /// True when the text contains a special-token string, which tiktoken's
    /// default `encode` refuses.
    pub fn contains_special_token(self, text: &str) -> bool {
        self.first_special_token(text).is_some()
    }

    /// The left-most special-token string in the text, if any.
    pub fn first_special_token(self, text: &str) -> Option<&'static str> {
        memchr::memmem::find_iter(text.as_bytes(), b"<|").find_map(|at| {
            let rest = &text.as_bytes()[at..];
            self.engine()
                .specials
                .iter()
                .find(|s| rest.starts_with(s.as_bytes()))
                .copied()
        })
    }

    /// The bytes of one token, or `None` for an id outside the vocabulary.
    pub fn token_bytes(self, id: u32) -> Option<&'static [u8]> {
        let bpe = &self.engine().bpe.bpe;
        ((id as usize) < bpe.num_tokens()).then(|| bpe.token_bytes(id))
    }
}

/// ECMAScript white space that Unicode `White_Space` lacks (U+FEFF); the rest of
/// the JavaScript set is Unicode white space too.
fn is_js_space(c: char) -> bool {
    c == '\u{feff}'
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

    #[test]
    fn js_split_reads_feff_as_white_space() {
        // js-tiktoken: U+FEFF is `\s`, U+0085 is not; `'ſ` is no contraction.
        let (js, stock) = (Encoding::Cl100kJs, Encoding::Cl100kBase);
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
        let enc = Encoding::Cl100kBase;
        assert_eq!(enc.count("\n"), 1);
        assert_eq!(enc.count("\nx"), 2);
        assert_eq!(enc.count("hello world 你好"), 5);
        assert_eq!(enc.encode_ids("hello world"), vec![15339, 1917]);
        assert_eq!(enc.count(""), 0);
    }

    #[test]
    fn o200k_differs_from_cl100k() {
        assert_eq!(
            Encoding::O200kBase.encode_ids("hello world"),
            vec![24912, 2375]
        );
    }

    #[test]
    fn special_token_text_is_ordinary_but_detected() {
        let enc = Encoding::Cl100kBase;
        assert!(enc.count("a<|endoftext|>b") > 3);
        assert!(enc.contains_special_token("a<|endoftext|>b"));
        assert!(enc.contains_special_token("<|fim_suffix|>"));
        assert!(!enc.contains_special_token("<|endoftext|"));
        assert!(!Encoding::O200kBase.contains_special_token("<|fim_suffix|>"));
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
        let text: String = (0..MEMO_CAPACITY + 10)
            .map(|i| format!("zq{i}xv "))
            .collect();
        let enc = Encoding::Cl100kBase;
        let direct: Vec<u32> = enc
            .engine()
            .bpe
            .split(&text)
            .flat_map(|p| enc.engine().bpe.bpe.encode_via_backtracking(p.as_bytes()))
            .collect();
        assert_eq!(enc.encode_ids(&text), direct);
    }

    proptest! {
        #[test]
        fn short_merge_equals_backtracking(piece in proptest::collection::vec(any::<u8>(), 0..130)) {
            for enc in [Encoding::Cl100kBase, Encoding::O200kBase] {
                let engine = enc.engine();
                let mut ours = Vec::new();
                engine.merge_short(&piece, &mut ours);
                prop_assert_eq!(ours, engine.bpe.bpe.encode_via_backtracking(&piece));
            }
        }

        #[test]
        fn short_merge_equals_backtracking_on_text(piece in "\\PC{1,16}|[a-zA-Z你好世界]{1,24}") {
            let engine = Encoding::Cl100kBase.engine();
            let mut ours = Vec::new();
            engine.merge_short(piece.as_bytes(), &mut ours);
            prop_assert_eq!(ours, engine.bpe.bpe.encode_via_backtracking(piece.as_bytes()));
        }

        #[test]
        fn offsets_tile_the_text(text in "\\PC{0,64}|[a-z 你好😀\u{200d}\r\n\t]{0,64}") {
            for enc in [Encoding::Cl100kBase, Encoding::O200kBase] {
                let e = enc.encode(&text).unwrap();
                prop_assert_eq!(e.ids.len(), e.byte_starts.len());
                prop_assert_eq!(e.ids.len(), enc.count(&text));
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
                let direct: Vec<usize> = positions.iter().map(|&k| enc.count(&text[..k])).collect();
                prop_assert_eq!(enc.prefix_counts(&text, &positions), direct);
            }
        }
    }
}
