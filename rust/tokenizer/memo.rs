//! A bounded memo of multi-token pieces, kept per thread across calls.
//!
//! Multi-token pieces repeat a lot, inside one document ("Shakespeare's", CJK runs)
//! and across the documents of a corpus (boilerplate, names, common words). A memo
//! that lived for one call forgot all of that between documents, so `chunk_many` over
//! many small documents merged the same pieces again and again. This one lives in a
//! thread-local, so it needs no lock; it serves one engine at a time (it is emptied
//! when the thread switches encodings), skips pieces longer than [`KEY_MAX`] bytes, and
//! is emptied when full: [`MEMO_CAPACITY`] entries or [`MEMO_BYTES`] of keys and tokens,
//! about 4 MB per thread with the map's own overhead.
//!
//! A piece is kept on its second sighting, not its first: a first pass over new text
//! (most CJK runs never repeat) would otherwise pay an allocation and an insertion for
//! every piece and read none of them back. A small table of hash tags remembers what
//! was seen once.
//!
//! In front of both, a direct-mapped cache answers pieces of up to eight bytes (most
//! pieces) that are one or two tokens, from 128 KB that stay in L2, and another one
//! pieces of nine to sixteen bytes that are one token (a Korean word after its space).

use std::cell::RefCell;
use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::engine::Engine;
use super::table_hash::{hash_bytes, prefix_word_at};
use super::warm::read_in_order;

/// Memo entries kept before the memo is emptied.
pub(crate) const MEMO_CAPACITY: usize = 1 << 15;
/// Key bytes plus token bytes kept before the memo is emptied.
const MEMO_BYTES: usize = 2 << 20;
/// Longer pieces rarely repeat; they are merged without being kept.
const KEY_MAX: usize = 256;
/// Slots of the table of pieces seen once (a tag of 4 bytes each). Fewer slots lose
/// pieces of a warm corpus to collisions before they are ever kept.
const SEEN_SLOTS: usize = 1 << 16;
/// An empty slot of `seen`: even, where every tag is odd. Not zero: a zeroed table comes
/// from pages the kernel maps on first touch, and a first pass over new text touched
/// them one fault at a time; this one is written, so its pages are there.
const SEEN_EMPTY: u32 = 2;
/// Vocabulary lookups in one call (pieces `short` and `mid` do not answer) after which the
/// small lookup tables (`Tables::warm`: 0.46-0.95 MB), the rank cache (0.2 MB) and this
/// memo's caches (0.47 MB) are read in order (`warm.rs`). By then the text is mostly new
/// to the caches, and its lookups would miss on those lines one at a time; a text the two
/// caches answer rarely gets here, so its call does not pay for the read or lose its
/// cached lines to it. Reading at the 64th lookup instead lost 7-9 % on 1,000 characters
/// of Chinese after other work.
const WARM_AFTER: u32 = 256;
/// Slots of the cache of short pieces (16 bytes each).
const SHORT_SLOTS: usize = 1 << 13;
/// Slots of the cache of one-token pieces of nine to sixteen bytes (24 bytes each).
const MID_SLOTS: usize = 1 << 12;
/// An empty slot of `mid`: a length no piece has.
const MID_EMPTY: [u64; 3] = [0, 0, u64::MAX];
/// An empty slot of `short`: length 255, which no short piece has.
const SHORT_EMPTY: [u32; 4] = [0, 0, u32::MAX, u32::MAX];
/// `short`'s second id for a piece of one token.
const NO_SECOND: u32 = u32::MAX;
/// Room for the tokens of a piece that `short` answers.
pub(crate) type Few = [u32; 2];

/// The short pieces' cache and the kept merges of one engine.
pub(crate) struct Memo {
    owner: usize,
    kept: Kept,
    /// Direct-mapped: a piece of up to eight bytes that is one or two tokens (its bytes as
    /// a word; its length << 24 | its first id; its second id or `NO_SECOND`). The
    /// vocabulary's slots are megabytes, so its lookups miss the CPU caches, while a
    /// text's short pieces repeat (nine in ten on a first pass): these few thousand stay
    /// in L2. Two-token pieces are kept on their first sighting, as keeping one costs a
    /// store. The key is the whole piece, so a hit is exact.
    short: Vec<[u32; 4]>,
    /// Direct-mapped: a piece of nine to sixteen bytes that is one token (its first eight
    /// bytes; the rest, zero-padded; its length << 32 | its id). Such pieces repeat (one
    /// in ten pieces of Korean text, a word and its space), and each lookup in the
    /// vocabulary waits on its slot and then on the token's bytes. Kept on the first
    /// sighting; the key is the whole piece, so a hit is exact.
    mid: Vec<[u64; 3]>,
    /// Vocabulary lookups left in this call before the tables are read (0: read).
    misses_left: u32,
}

/// Piece -> range of its tokens in `store`.
struct Kept {
    ranges: HashMap<Box<[u8]>, (u32, u32), RandomState>,
    store: Vec<u32>,
    bytes: usize,
    spill: Vec<u32>,
    /// A hash tag of a piece merged once and not kept, per slot (`SEEN_EMPTY`: none).
    seen: Vec<u32>,
}

/// The embedded engines (cl100k's serves both of its splits). Each has a memo of its own
/// on every thread, made when the thread first uses it, so a thread that switches
/// encodings keeps both warm: at most `ENGINES` memos of about 4 MB per thread.
pub(crate) const ENGINES: usize = 2;

thread_local! {
    static MEMOS: [RefCell<Option<Memo>>; ENGINES] = const { [RefCell::new(None), RefCell::new(None)] };
}

/// Runs `f` with this thread's memo for `engine`, or with a fresh one when the
/// thread's memo is already in use (a caller's callback tokenizing again).
pub(crate) fn with_memo<R>(engine: &Engine, f: impl FnOnce(&mut Memo) -> R) -> R {
    let slot = engine.memo_slot();
    let free = MEMOS
        .try_with(|memos| memos[slot].try_borrow_mut().is_ok())
        .unwrap_or(false);
    if free {
        MEMOS.with(|memos| {
            let mut memo = memos[slot].borrow_mut();
            let memo = memo.get_or_insert_with(Memo::new);
            memo.serve(engine);
            f(memo)
        })
    } else {
        let mut memo = Memo::new();
        memo.serve(engine);
        f(&mut memo)
    }
}

impl Memo {
    fn new() -> Self {
        Memo {
            owner: 0,
            kept: Kept {
                ranges: HashMap::with_hasher(RandomState::default()),
                store: Vec::new(),
                bytes: 0,
                spill: Vec::new(),
                seen: vec![SEEN_EMPTY; SEEN_SLOTS],
            },
            short: vec![SHORT_EMPTY; SHORT_SLOTS],
            mid: vec![MID_EMPTY; MID_SLOTS],
            misses_left: WARM_AFTER,
        }
    }

    /// Starts a call: empties the memo if it last served another engine.
    fn serve(&mut self, engine: &Engine) {
        self.misses_left = WARM_AFTER;
        let owner = std::ptr::from_ref(engine) as usize;
        if self.owner != owner {
            self.kept.clear();
            self.short.fill(SHORT_EMPTY);
            self.mid.fill(MID_EMPTY);
            self.owner = owner;
        }
    }

    /// The tokens of the piece `text[a..b]`: `short`, one vocabulary lookup, the memo, or
    /// a merge.
    #[inline]
    pub(crate) fn tokens<'m>(
        &'m mut self,
        engine: &Engine,
        text: &[u8],
        (a, b): (usize, usize),
        few: &'m mut Few,
    ) -> &'m [u32] {
        // Most pieces are one token: this stays inline in the caller's loop.
        let n = b - a;
        if n <= 8 {
            return self.short_piece(engine, text, a, n, few);
        }
        if n <= 16 {
            return self.mid_piece(engine, text, a, n, few);
        }
        self.missed(engine);
        if let Some(id) = engine.lookup_in(text, a, b) {
            few[0] = id;
            return &few[..1];
        }
        self.kept.multi_token(engine, &text[a..b])
    }

    /// Counts a vocabulary lookup (a piece the caches did not answer); the `WARM_AFTER`th
    /// of a call has the engine read its lookup tables in order.
    #[inline(always)]
    fn missed(&mut self, engine: &Engine) {
        if self.misses_left > 0 {
            self.misses_left -= 1;
            if self.misses_left == 0 {
                self.warm(engine);
            }
        }
    }

    /// Reads the engine's lookup tables and this memo's caches in order (`warm.rs`).
    #[cold]
    #[inline(never)]
    fn warm(&mut self, engine: &Engine) {
        engine.warm_tables();
        read_in_order(&self.short);
        read_in_order(&self.mid);
        read_in_order(&self.kept.seen);
    }

    /// The tokens of a piece of up to eight bytes, through `short`.
    #[inline(always)]
    fn short_piece<'m>(
        &'m mut self,
        engine: &Engine,
        text: &[u8],
        a: usize,
        n: usize,
        few: &'m mut Few,
    ) -> &'m [u32] {
        let word = prefix_word_at(text, a, n);
        let (lo, hi, len) = (word as u32, (word >> 32) as u32, (n as u32) << 24);
        let i = short_slot(word, n);
        let slot = self.short[i];
        if slot[2] & 0xFF00_0000 == len && slot[0] == lo && slot[1] == hi {
            few[0] = slot[2] & 0x00FF_FFFF;
            few[1] = slot[3];
            return &few[..if slot[3] == NO_SECOND { 1 } else { 2 }];
        }
        self.missed(engine);
        if let Some(id) = engine.lookup_in(text, a, a + n) {
            self.short[i] = [lo, hi, len | id, NO_SECOND];
            few[0] = id;
            return &few[..1];
        }
        let tokens = self.kept.multi_token(engine, &text[a..a + n]);
        if let [first, second] = *tokens {
            self.short[i] = [lo, hi, len | first, second];
        }
        tokens
    }

    /// The tokens of a piece of nine to sixteen bytes, through `mid`.
    #[inline(always)]
    fn mid_piece<'m>(
        &'m mut self,
        engine: &Engine,
        text: &[u8],
        a: usize,
        n: usize,
        few: &'m mut Few,
    ) -> &'m [u32] {
        let (first, rest) = (
            prefix_word_at(text, a, 8),
            prefix_word_at(text, a + 8, n - 8),
        );
        let i = mid_slot(first, rest, n);
        let slot = self.mid[i];
        if slot[2] >> 32 == n as u64 && slot[0] == first && slot[1] == rest {
            few[0] = slot[2] as u32;
            return &few[..1];
        }
        self.missed(engine);
        if let Some(id) = engine.lookup_in(text, a, a + n) {
            self.mid[i] = [first, rest, (n as u64) << 32 | u64::from(id)];
            few[0] = id;
            return &few[..1];
        }
        self.kept.multi_token(engine, &text[a..a + n])
    }
}

/// The slot of `mid` for a piece of `n` bytes read as `first` and `rest`.
#[inline(always)]
fn mid_slot(first: u64, rest: u64, n: usize) -> usize {
    let h = (first.wrapping_mul(0x517c_c1b7_2722_0a95) ^ rest ^ n as u64)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> (64 - MID_SLOTS.trailing_zeros())) as usize
}

/// The slot of `short` for a piece of `n` bytes whose bytes, zero-padded, are `word`.
#[inline(always)]
fn short_slot(word: u64, n: usize) -> usize {
    let h = (word ^ n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> (64 - SHORT_SLOTS.trailing_zeros())) as usize
}

impl Kept {
    fn clear(&mut self) {
        self.ranges.clear();
        self.store.clear();
        self.bytes = 0;
    }

    /// The tokens of a piece that is not one token: the memo, or a merge.
    #[inline(never)]
    fn multi_token(&mut self, engine: &Engine, piece: &[u8]) -> &[u32] {
        if piece.len() > KEY_MAX {
            return self.merge_unkept(engine, piece);
        }
        if let Some(&(a, b)) = self.ranges.get(piece) {
            return &self.store[a as usize..b as usize];
        }
        let h = hash_bytes(piece);
        let tag = (h >> 32) as u32 | 1;
        let seen = &mut self.seen[h as usize & (SEEN_SLOTS - 1)];
        if *seen != tag {
            *seen = tag;
            return self.merge_unkept(engine, piece);
        }
        if self.ranges.len() >= MEMO_CAPACITY || self.bytes >= MEMO_BYTES {
            self.clear();
        }
        let a = self.store.len();
        engine.encode_piece(piece, &mut self.store);
        let b = self.store.len();
        self.bytes += piece.len() + 4 * (b - a);
        self.ranges.insert(piece.into(), (a as u32, b as u32));
        &self.store[a..b]
    }

    /// Merges a piece without keeping it.
    fn merge_unkept(&mut self, engine: &Engine, piece: &[u8]) -> &[u32] {
        self.spill.clear();
        engine.encode_piece(piece, &mut self.spill);
        &self.spill
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::tokenizer::table_hash::prefix_word;
    use crate::tokenizer::Encoding;

    /// The tokens of `text[a..b]` without the memo: a lookup, or a merge.
    fn direct(engine: &Engine, text: &[u8], (a, b): (usize, usize)) -> Vec<u32> {
        match engine.lookup_in(text, a, b) {
            Some(id) => vec![id],
            None => {
                let mut out = Vec::new();
                engine.encode_piece(&text[a..b], &mut out);
                out
            }
        }
    }

    /// Short pieces that share a word but not a length (trailing NULs), and more distinct
    /// short pieces than `short` has slots, each asked for twice: every answer, from the
    /// cache or not, is the direct one.
    #[test]
    fn short_pieces_are_exact_through_the_cache() {
        for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
            let engine = encoding.load().unwrap().engine();
            let mut memo = Memo::new();
            memo.serve(engine);
            // Pieces that differ only in trailing NULs share a word: the length tells
            // them apart.
            let mut text = b"a\0\0\0\0\0\0\0".to_vec();
            let mut pieces: Vec<(usize, usize)> = (1..=8).map(|b| (0, b)).collect();
            for i in 0..3 * SHORT_SLOTS {
                let start = text.len();
                // One, two and more tokens: a space and the letters of `i` in base 26.
                text.push(b' ');
                let mut k = i + 26 * 26;
                while k > 0 {
                    text.push(b'a' + (k % 26) as u8);
                    k /= 26;
                }
                pieces.push((start, text.len()));
            }
            let (mut kept_two, mut few) = (0, [0; 2]);
            for _ in 0..2 {
                for &(a, b) in &pieces {
                    let got = memo.tokens(engine, &text, (a, b), &mut few).to_vec();
                    assert_eq!(got, direct(engine, &text, (a, b)), "{:?}", &text[a..b]);
                }
            }
            for slot in &memo.short {
                kept_two += usize::from(slot[2] != u32::MAX && slot[3] != NO_SECOND);
            }
            assert!(
                kept_two > 100,
                "{encoding:?}: {kept_two} two-token pieces kept"
            );
        }
    }

    /// Each engine has its own memo on a thread: a call on the other engine leaves it.
    #[test]
    fn a_thread_keeps_a_memo_per_engine() {
        let kept = |slot: usize| {
            MEMOS.with(|m| {
                m[slot]
                    .borrow()
                    .as_ref()
                    .map_or(0, |memo| memo.kept.ranges.len())
            })
        };
        let cl100k = Encoding::Cl100kBase.load().unwrap();
        let o200k = Encoding::O200kBase.load().unwrap();
        let text = "antidisestablishmentarianism ".repeat(3);
        cl100k.count(&text);
        let before = kept(cl100k.engine().memo_slot());
        assert!(before > 0, "a piece seen twice is kept");
        o200k.count(&text);
        assert!(kept(o200k.engine().memo_slot()) > 0);
        assert_eq!(kept(cl100k.engine().memo_slot()), before);
        assert_ne!(cl100k.engine().memo_slot(), o200k.engine().memo_slot());
    }

    /// A call counts its vocabulary lookups, from `WARM_AFTER` down to zero (where the
    /// tables are read in order) and no further, on each of the three paths to a lookup;
    /// pieces `short` and `mid` answer do not count, and the next call starts again.
    #[test]
    fn vocabulary_lookups_count_down_once_per_call() {
        let engine = Encoding::O200kBase.load().unwrap().engine();
        let mut memo = Memo::new();
        memo.serve(engine);
        // One-token pieces of two to eight bytes in distinct `short` slots, then one of
        // nine to sixteen bytes and one of seventeen or more.
        let (mut text, mut pieces, mut slots) = (Vec::new(), Vec::new(), HashSet::new());
        let mut add = |token: &[u8]| {
            pieces.push((text.len(), text.len() + token.len()));
            text.extend_from_slice(token);
        };
        for id in 0..engine.num_tokens() as u32 {
            let token = engine.token_bytes(id);
            let n = token.len();
            if (2..=8).contains(&n)
                && slots.len() < 2 * WARM_AFTER as usize
                && slots.insert(short_slot(prefix_word(token), n))
            {
                add(token);
            }
        }
        let longer = |range: std::ops::RangeInclusive<usize>| {
            (0..engine.num_tokens() as u32)
                .map(|id| engine.token_bytes(id))
                .find(|token| range.contains(&token.len()))
                .unwrap()
        };
        add(longer(9..=16));
        add(longer(17..=64));
        let (mid, long) = (pieces[pieces.len() - 2], pieces[pieces.len() - 1]);
        let short = &pieces[..pieces.len() - 2];
        assert_eq!(short.len(), 2 * WARM_AFTER as usize);

        let mut few = [0; 2];
        let mut ask = |memo: &mut Memo, piece| {
            memo.tokens(engine, &text, piece, &mut few);
            memo.misses_left
        };
        let half = WARM_AFTER as usize / 2;
        for &piece in &short[..half] {
            ask(&mut memo, piece);
        }
        let left = WARM_AFTER - half as u32;
        assert_eq!(memo.misses_left, left);
        for &piece in &short[..half] {
            assert_eq!(ask(&mut memo, piece), left, "answered by `short`");
        }
        assert_eq!(ask(&mut memo, mid), left - 1);
        assert_eq!(ask(&mut memo, mid), left - 1, "answered by `mid`");
        assert_eq!(ask(&mut memo, long), left - 2);
        assert_eq!(ask(&mut memo, long), left - 3, "no cache for long pieces");
        for &piece in &short[half..] {
            ask(&mut memo, piece);
        }
        assert_eq!(memo.misses_left, 0);
        memo.serve(engine);
        assert_eq!(memo.misses_left, WARM_AFTER);
    }

    /// One-token pieces of nine to sixteen bytes (every such token of the vocabulary, so
    /// more than `mid` has slots), the same bytes with a NUL after them (the same words:
    /// only the length tells them apart) or a letter, and without their last byte, each
    /// asked for twice: every answer is the direct one.
    #[test]
    fn mid_pieces_are_exact_through_the_cache() {
        for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
            let engine = encoding.load().unwrap().engine();
            let mut memo = Memo::new();
            memo.serve(engine);
            let mut text = Vec::new();
            let mut pieces = Vec::new();
            for id in 0..engine.num_tokens() as u32 {
                let token = engine.token_bytes(id);
                if !(9..=16).contains(&token.len()) {
                    continue;
                }
                for variant in [token, &token[..token.len() - 1]] {
                    for tail in [&b""[..], b"\0", b"e"] {
                        let start = text.len();
                        text.extend_from_slice(variant);
                        text.extend_from_slice(tail);
                        pieces.push((start, text.len()));
                    }
                }
            }
            assert!(
                pieces.len() > 4 * MID_SLOTS,
                "{encoding:?}: {} pieces",
                pieces.len()
            );
            let mut few = [0; 2];
            for _ in 0..2 {
                for &(a, b) in &pieces {
                    let got = memo.tokens(engine, &text, (a, b), &mut few).to_vec();
                    assert_eq!(got, direct(engine, &text, (a, b)), "{:?}", &text[a..b]);
                }
            }
            let kept = memo.mid.iter().filter(|slot| slot[2] != u64::MAX).count();
            assert!(kept > MID_SLOTS / 2, "{encoding:?}: {kept} pieces kept");
        }
    }
}
