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

use std::cell::RefCell;
use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::engine::Engine;
use super::table_hash::hash_bytes;

/// Memo entries kept before the memo is emptied.
pub(crate) const MEMO_CAPACITY: usize = 1 << 15;
/// Key bytes plus token bytes kept before the memo is emptied.
const MEMO_BYTES: usize = 2 << 20;
/// Longer pieces rarely repeat; they are merged without being kept.
const KEY_MAX: usize = 256;
/// Slots of the table of pieces seen once (a tag of 4 bytes each). Fewer slots lose
/// pieces of a warm corpus to collisions before they are ever kept.
const SEEN_SLOTS: usize = 1 << 16;

/// Piece -> range of its tokens in `store`.
pub(crate) struct Memo {
    owner: usize,
    ranges: HashMap<Box<[u8]>, (u32, u32), RandomState>,
    store: Vec<u32>,
    bytes: usize,
    spill: Vec<u32>,
    /// A hash tag of a piece merged once and not kept, per slot (0: none).
    seen: Vec<u32>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::new());
}

/// Runs `f` with this thread's memo for `engine`, or with a fresh one when the
/// thread's memo is already in use (a caller's callback tokenizing again).
pub(crate) fn with_memo<R>(engine: &Engine, f: impl FnOnce(&mut Memo) -> R) -> R {
    let free = MEMO
        .try_with(|cell| cell.try_borrow_mut().is_ok())
        .unwrap_or(false);
    if free {
        MEMO.with_borrow_mut(|memo| {
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
            ranges: HashMap::with_hasher(RandomState::default()),
            store: Vec::new(),
            bytes: 0,
            spill: Vec::new(),
            seen: vec![0; SEEN_SLOTS],
        }
    }

    fn clear(&mut self) {
        self.ranges.clear();
        self.store.clear();
        self.bytes = 0;
    }

    /// Empties the memo if it last served another engine.
    fn serve(&mut self, engine: &Engine) {
        let owner = std::ptr::from_ref(engine) as usize;
        if self.owner != owner {
            self.clear();
            self.owner = owner;
        }
    }

    /// The tokens of the piece `text[a..b]`: one vocabulary lookup, the memo, or a merge.
    #[inline]
    pub(crate) fn tokens<'m>(
        &'m mut self,
        engine: &Engine,
        text: &[u8],
        (a, b): (usize, usize),
        one: &'m mut [u32; 1],
    ) -> &'m [u32] {
        // Most pieces are one token: this stays inline in the caller's loop.
        if let Some(id) = engine.lookup_in(text, a, b) {
            one[0] = id;
            return &one[..];
        }
        self.multi_token(engine, &text[a..b])
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
