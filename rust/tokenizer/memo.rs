//! A bounded memo of multi-token pieces.
//!
//! Multi-token pieces repeat a lot inside one document ("Shakespeare's", CJK
//! runs). The memo lives for one call over one text, so it needs no lock, and
//! it is reset when full, so it cannot grow without limit.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::engine::Engine;

/// Memo entries kept before the memo is reset.
pub(crate) const MEMO_CAPACITY: usize = 1 << 16;

/// Piece -> range of its tokens in `store`.
pub(crate) struct Memo<'t> {
    ranges: HashMap<&'t [u8], (u32, u32), RandomState>,
    store: Vec<u32>,
}

impl<'t> Memo<'t> {
    pub(crate) fn new() -> Self {
        Memo {
            ranges: HashMap::with_hasher(RandomState::default()),
            store: Vec::new(),
        }
    }

    /// The tokens of `piece`: one vocabulary lookup, the memo, or a merge.
    pub(crate) fn tokens<'m>(
        &'m mut self,
        engine: &Engine,
        piece: &'t [u8],
        one: &'m mut [u32; 1],
    ) -> &'m [u32] {
        if let Some(id) = engine.lookup(piece) {
            one[0] = id;
            return &one[..];
        }
        if let Some(&(a, b)) = self.ranges.get(piece) {
            return &self.store[a as usize..b as usize];
        }
        if self.ranges.len() >= MEMO_CAPACITY {
            self.ranges.clear();
            self.store.clear();
        }
        let a = self.store.len();
        engine.encode_piece(piece, &mut self.store);
        let b = self.store.len();
        self.ranges.insert(piece, (a as u32, b as u32));
        &self.store[a..b]
    }
}
