//! The BPE tables and the merge of one pre-tokenized piece.
//!
//! - The rank tables come from `bpe-openai` (compiled into the binary, nothing is
//!   downloaded); `build.rs` turns them into ready-to-read tables (`tables.rs`).
//! - Pieces up to `SHORT_PIECE` bytes are merged with tiktoken's own algorithm
//!   (lowest rank first, leftmost on ties), with ranks looked up by (left id,
//!   right id): a linear scan for a few parts, a min-heap over a linked list for
//!   longer ones (CJK runs). Longer pieces (a 5 MB run of letters is one piece)
//!   use bpe's linear-time backtracking encoder.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::LazyLock;

use bpe_openai::Tokenizer as Bpe;

use super::tables::Tables;

/// Pieces longer than this merge with a heap instead of a linear scan.
const HEAP_FROM: usize = 48;

/// Pieces up to this many bytes merge in `merge_short` (a scan, then a heap). Longer
/// ones (a 5 MB run of letters is one piece) use bpe's linear-time backtracking
/// encoder, whose tables load on first use only.
pub(crate) const SHORT_PIECE: usize = 4096;

pub(crate) struct Engine {
    tables: Tables,
    bpe: &'static LazyLock<&'static Bpe>,
}

impl Engine {
    pub(crate) fn new(tables: &'static [u8], bpe: &'static LazyLock<&'static Bpe>) -> Self {
        Engine {
            tables: Tables::parse(tables),
            bpe,
        }
    }

    /// bpe-openai's encoder (loaded on first use).
    pub(crate) fn bpe(&self) -> &'static Bpe {
        self.bpe
    }

    pub(crate) fn num_tokens(&self) -> usize {
        self.tables.num_tokens()
    }

    /// The bytes of a token (ids come from this engine, so they are in range).
    pub(crate) fn token_bytes(&self, id: u32) -> &'static [u8] {
        self.tables.token(id)
    }

    /// The byte length of a token.
    #[inline]
    pub(crate) fn token_len(&self, id: u32) -> usize {
        self.tables.token_len(id)
    }

    /// The id of a piece that is one token.
    #[inline]
    pub(crate) fn lookup(&self, piece: &[u8]) -> Option<u32> {
        self.tables.lookup(piece)
    }

    /// Appends the tokens of one pre-tokenized piece to `out`.
    pub(crate) fn encode_piece(&self, piece: &[u8], out: &mut Vec<u32>) {
        if piece.len() > SHORT_PIECE {
            out.extend(self.bpe().bpe.encode_via_backtracking(piece));
        } else {
            self.merge_short(piece, out);
        }
    }

    /// tiktoken's `byte_pair_merge`: repeatedly merge the adjacent pair whose
    /// joined bytes have the lowest rank. Parts are always tokens, so a rank is a
    /// lookup of two ids (`pairs`) rather than of a byte slice.
    pub(crate) fn merge_short(&self, piece: &[u8], out: &mut Vec<u32>) {
        SCRATCH.with_borrow_mut(|scratch| {
            let ranks = scratch.ranks.for_tables(&self.tables);
            // A scan over a few parts beats a heap; long pieces (CJK runs) want the heap.
            if piece.len() <= HEAP_FROM {
                merge_scan(&self.tables, ranks, piece, out);
            } else {
                merge_heap(&self.tables, ranks, &mut scratch.heap, piece, out);
            }
        });
    }
}

thread_local! {
    /// Per-thread buffers for merges: nothing is allocated per piece.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

#[derive(Default)]
struct Scratch {
    ranks: RankCache,
    heap: HeapBuffers,
}

/// A direct-mapped cache in front of the pair table. The table is megabytes and every
/// lookup misses the CPU caches; the pairs a text merges repeat (a few thousand CJK
/// characters, common word parts), so a small cache that fits in L2 answers most of
/// them. Entries hold the whole key, so a hit is exact; it is flushed when the thread
/// switches encodings.
#[derive(Default)]
struct RankCache {
    owner: usize,
    slots: Vec<[u32; 3]>,
}

const RANK_CACHE_SLOTS: usize = 1 << 14;
const EMPTY: [u32; 3] = [u32::MAX, u32::MAX, u32::MAX];

impl RankCache {
    /// The cache, emptied if it last served other tables.
    fn for_tables<'c>(&'c mut self, tables: &'c Tables) -> Ranks<'c> {
        let owner = std::ptr::from_ref(tables) as usize;
        if self.owner != owner || self.slots.is_empty() {
            self.slots.clear();
            self.slots.resize(RANK_CACHE_SLOTS, EMPTY);
            self.owner = owner;
        }
        Ranks {
            tables,
            slots: &mut self.slots,
        }
    }
}

/// Rank lookups through the cache.
struct Ranks<'c> {
    tables: &'c Tables,
    slots: &'c mut [[u32; 3]],
}

impl Ranks<'_> {
    #[inline]
    fn get(&mut self, left: u32, right: u32) -> u32 {
        let h = (u64::from(left) << 32 | u64::from(right)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = &mut self.slots[(h >> 50) as usize];
        if slot[0] == left && slot[1] == right {
            return slot[2];
        }
        let rank = self.tables.pair_rank(left, right);
        *slot = [left, right, rank];
        rank
    }
}

/// `parts[i] = (token of part i, rank of merging it with part i + 1)`, on the stack.
fn merge_scan(tables: &Tables, mut ranks: Ranks<'_>, piece: &[u8], out: &mut Vec<u32>) {
    let mut parts = [(0u32, u32::MAX); HEAP_FROM];
    let mut n = piece.len();
    for (i, &b) in piece.iter().enumerate() {
        parts[i].0 = tables.byte_id(b);
    }
    for (i, w) in piece.windows(2).enumerate() {
        parts[i].1 = tables.byte_pair(w[0], w[1]);
    }
    loop {
        let mut best = (u32::MAX, 0);
        for (i, part) in parts[..n].iter().enumerate() {
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
        parts.copy_within(i + 2..n, i + 1);
        n -= 1;
        parts[i].1 = if i + 1 < n {
            ranks.get(rank, parts[i + 1].0)
        } else {
            u32::MAX
        };
        if i > 0 {
            parts[i - 1].1 = ranks.get(parts[i - 1].0, rank);
        }
    }
    out.extend(parts[..n].iter().map(|p| p.0));
}

/// The heap merge's buffers, reused across pieces.
#[derive(Default)]
struct HeapBuffers {
    token: Vec<u32>,
    rank: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

fn merge_heap(
    tables: &Tables,
    mut ranks: Ranks<'_>,
    buf: &mut HeapBuffers,
    piece: &[u8],
    out: &mut Vec<u32>,
) {
    // Parts form a linked list over byte positions; a min-heap of (rank, position)
    // picks the lowest rank, leftmost first, as tiktoken's scan does. Stale heap
    // entries (a part that merged or whose rank changed) are skipped when popped.
    // Positions fit in u32: pieces here are at most SHORT_PIECE bytes.
    const NONE: u32 = u32::MAX;
    let n = piece.len() as u32;
    let HeapBuffers {
        token,
        rank,
        next,
        prev,
        heap,
    } = buf;
    token.clear();
    token.extend(piece.iter().map(|&b| tables.byte_id(b)));
    rank.clear();
    rank.resize(piece.len(), NONE);
    next.clear();
    next.extend(1..=n);
    prev.clear();
    prev.extend((0..n).map(|i| i.wrapping_sub(1)));
    heap.clear();
    for (i, w) in piece.windows(2).enumerate() {
        rank[i] = tables.byte_pair(w[0], w[1]);
        if rank[i] != NONE {
            heap.push(Reverse((rank[i], i as u32)));
        }
    }
    while let Some(Reverse((r, i))) = heap.pop() {
        let iu = i as usize;
        if token[iu] == NONE || rank[iu] != r {
            continue;
        }
        let j = next[iu] as usize;
        token[iu] = r;
        token[j] = NONE;
        next[iu] = next[j];
        let after = next[iu];
        if after < n {
            prev[after as usize] = i;
            rank[iu] = ranks.get(r, token[after as usize]);
            if rank[iu] != NONE {
                heap.push(Reverse((rank[iu], i)));
            }
        } else {
            rank[iu] = NONE;
        }
        let p = prev[iu];
        if p < n {
            let pu = p as usize;
            rank[pu] = ranks.get(token[pu], r);
            if rank[pu] != NONE {
                heap.push(Reverse((rank[pu], p)));
            }
        }
    }
    out.extend(token.iter().copied().filter(|&t| t != NONE));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn engines() -> [&'static Engine; 2] {
        [
            crate::tokenizer::Encoding::Cl100kBase
                .load()
                .unwrap()
                .engine(),
            crate::tokenizer::Encoding::O200kBase
                .load()
                .unwrap()
                .engine(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn long_merges_equal_backtracking(
            piece in "[你好世界人工智能改变每一个角落의한국어です]{40,400}|[a-z]{100,1500}|[ -~]{100,600}"
        ) {
            for engine in engines() {
                let mut ours = Vec::new();
                engine.merge_short(piece.as_bytes(), &mut ours);
                prop_assert_eq!(ours, engine.bpe().bpe.encode_via_backtracking(piece.as_bytes()));
            }
        }

        #[test]
        fn short_merge_equals_backtracking(piece in proptest::collection::vec(any::<u8>(), 0..130)) {
            for engine in engines() {
                let mut ours = Vec::new();
                engine.merge_short(&piece, &mut ours);
                prop_assert_eq!(ours, engine.bpe().bpe.encode_via_backtracking(&piece));
            }
        }
    }
}
