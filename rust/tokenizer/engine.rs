//! The BPE tables and the merge of one pre-tokenized piece.
//!
//! - The rank tables come from `bpe-openai` (compiled into the binary, nothing is
//!   downloaded); `build.rs` turns them into ready-to-read tables (`tables.rs`).
//! - Pieces up to `SHORT_PIECE` bytes are merged with tiktoken's own algorithm
//!   (lowest rank first, leftmost on ties), with ranks looked up by (left id,
//!   right id): a linear scan for a few parts, a min-heap over a linked list for
//!   longer ones (CJK runs). Longer pieces (a 5 MB run of letters is one piece)
//!   use bpe's linear-time backtracking encoder.

use std::sync::LazyLock;

use bpe_openai::Tokenizer as Bpe;

use super::tables::Tables;

/// Pieces longer than this merge with a heap instead of a linear scan.
const HEAP_FROM: usize = 24;

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

    /// The merge rank (= id) of two adjacent tokens, or `u32::MAX` if they do not merge.
    #[inline]
    fn pair_rank(&self, left: u32, right: u32) -> u32 {
        self.tables.pair_rank(left, right)
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
        // A scan over a few parts beats a heap; long pieces (CJK runs) want the heap.
        if piece.len() <= HEAP_FROM {
            self.merge_scan(piece, out);
        } else {
            self.merge_heap(piece, out);
        }
    }

    /// `parts[i] = (token of part i, rank of merging it with part i + 1)`.
    fn merge_scan(&self, piece: &[u8], out: &mut Vec<u32>) {
        let mut parts: Vec<(u32, u32)> = piece
            .iter()
            .map(|&b| (self.tables.byte_id(b), u32::MAX))
            .collect();
        for (i, w) in piece.windows(2).enumerate() {
            parts[i].1 = self.tables.byte_pair(w[0], w[1]);
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
        let mut token: Vec<u32> = piece.iter().map(|&b| self.tables.byte_id(b)).collect();
        let mut rank = vec![u32::MAX; n];
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut heap = std::collections::BinaryHeap::with_capacity(n);
        for (i, w) in piece.windows(2).enumerate() {
            rank[i] = self.tables.byte_pair(w[0], w[1]);
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
