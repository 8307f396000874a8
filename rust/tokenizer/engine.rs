//! The BPE tables and the merge of one pre-tokenized piece.
//!
//! - The rank tables are compiled into the binary by `bpe-openai`, so nothing is
//!   downloaded at build or run time.
//! - Pieces up to 128 bytes are merged with tiktoken's own algorithm (lowest
//!   rank first, leftmost on ties), with ranks looked up by (left id, right id):
//!   a linear scan for a few parts, a min-heap over a linked list for longer
//!   ones (CJK runs). Longer pieces (a 5 MB run of letters is one piece) keep
//!   bpe's linear-time backtracking encoder.

use std::collections::HashMap;

use bpe_openai::Tokenizer as Bpe;
use foldhash::fast::RandomState;

/// Pieces longer than this merge with a heap instead of a linear scan.
const HEAP_FROM: usize = 24;

/// Pieces up to this many bytes use the quadratic-but-tight `merge_short`.
pub(crate) const SHORT_PIECE: usize = 128;

pub(crate) struct Engine {
    pub(crate) bpe: &'static Bpe,
    /// Token bytes -> id. Ids are tiktoken's merge ranks, so this is also the rank table.
    pub(crate) vocab: HashMap<&'static [u8], u32, RandomState>,
    /// The id of each single byte.
    byte_ids: [u32; 256],
    /// (left id, right id) -> id of the joined bytes, for every split of every token
    /// into two tokens. BPE parts are always tokens, so this answers every merge rank.
    pairs: HashMap<u64, u32, RandomState>,
    /// The rank of every byte pair (`u32::MAX` if it does not merge): the first
    /// round of every merge, without hashing.
    byte_pairs: Vec<u32>,
}

impl Engine {
    pub(crate) fn new(bpe: &'static Bpe) -> Self {
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
            vocab,
            byte_ids,
            pairs,
            byte_pairs,
        }
    }

    /// The byte length of a token (ids come from this engine, so they are in range).
    pub(crate) fn token_len(&self, id: u32) -> usize {
        self.bpe.bpe.token_len(id)
    }

    /// The merge rank (= id) of two adjacent tokens, or `u32::MAX` if they do not merge.
    fn pair_rank(&self, left: u32, right: u32) -> u32 {
        self.pairs
            .get(&pair_key(left, right))
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Appends the tokens of one pre-tokenized piece to `out`.
    pub(crate) fn encode_piece(&self, piece: &[u8], out: &mut Vec<u32>) {
        if piece.len() > SHORT_PIECE {
            out.extend(self.bpe.bpe.encode_via_backtracking(piece));
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn engines() -> [Engine; 2] {
        [
            Engine::new(bpe_openai::cl100k_base()),
            Engine::new(bpe_openai::o200k_base()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn short_merge_equals_backtracking(piece in proptest::collection::vec(any::<u8>(), 0..130)) {
            for engine in engines() {
                let mut ours = Vec::new();
                engine.merge_short(&piece, &mut ours);
                prop_assert_eq!(ours, engine.bpe.bpe.encode_via_backtracking(&piece));
            }
        }
    }
}
