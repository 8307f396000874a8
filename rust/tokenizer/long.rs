//! Pieces longer than `SHORT_PIECE` bytes (a 5 MB run of letters is one piece): the
//! same tokens as tiktoken's merge, in linear time and a bit per input byte.
//!
//! For these encodings (a token's id is its merge rank, and every token is the merge of
//! two tokens) a sequence of tokens is the BPE encoding of its bytes exactly when each
//! adjacent pair is: when BPE on the two tokens' bytes alone gives those two tokens. So
//! the encoder walks forward taking the longest token at each position that forms a valid
//! pair with the previous one, tries shorter prefixes when none does, and backs up past
//! positions proven to lead nowhere (one bit each). This is the backtracking encoder of the
//! `bpe` crate (github.com/github/rust-gems, crates/bpe); the tables here are our own and
//! built from `Tables` on first use.

use aho_corasick::{AhoCorasick, AhoCorasickKind, Anchored, Input, MatchKind, StartKind};

use super::tables::Tables;

const NONE: u32 = u32::MAX;

/// Entries of the per-piece cache of pair checks (a power of two: `h >> 52` indexes it).
const VALID_CACHE: usize = 1 << 12;

/// What long pieces need beyond `Tables`, built the first time one is met.
pub(crate) struct Long {
    /// The last merge that forms each token on its own bytes: `(left, right)`; a byte is
    /// `(id, id)`. Tokens their own bytes do not merge into are `(NONE, NONE)`: no
    /// encoding holds them.
    splits: Vec<(u32, u32)>,
    /// The longest token that is a proper prefix of each token, or `NONE` for a byte.
    shorter: Vec<u32>,
    /// The longest token at a position: an anchored leftmost-longest automaton.
    longest: AhoCorasick,
    /// The token of each pattern of `longest`.
    pattern_token: Vec<u32>,
}

impl Long {
    pub(crate) fn new(tables: &Tables) -> Result<Long, aho_corasick::BuildError> {
        let n = tables.num_tokens() as u32;
        let splits: Vec<(u32, u32)> = (0..n).map(|id| last_merge(tables, id)).collect();
        let reachable = |id: &u32| splits[*id as usize].0 != NONE;
        let shorter = (0..n)
            .map(|id| {
                let bytes = tables.token(id);
                (1..bytes.len())
                    .rev()
                    .find_map(|k| tables.lookup_in(bytes, 0, k).filter(reachable))
                    .unwrap_or(NONE)
            })
            .collect();
        let pattern_token: Vec<u32> = (0..n).filter(reachable).collect();
        let longest = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .match_kind(MatchKind::LeftmostLongest)
            .start_kind(StartKind::Anchored)
            .prefilter(false)
            .build(pattern_token.iter().map(|&id| tables.token(id)))?;
        Ok(Long {
            splits,
            shorter,
            longest,
            pattern_token,
        })
    }

    /// The longest token at `piece[at..]` (`None` only at the end: every byte is a token).
    fn longest_at(&self, piece: &[u8], at: usize) -> Option<u32> {
        let input = Input::new(piece).range(at..).anchored(Anchored::Yes);
        let found = self.longest.try_find(input).ok()??;
        Some(self.pattern_token[found.pattern().as_usize()])
    }

    /// Appends the tokens of `piece` to `out`; `false` (and `out` as it was) if the walk
    /// ends before the piece does, which these encodings never do.
    pub(crate) fn encode(&self, tables: &Tables, piece: &[u8], out: &mut Vec<u32>) -> bool {
        let from = out.len();
        // Bit `p`: position `p` may still end a valid prefix.
        let mut open = vec![u64::MAX; (piece.len() + 1).div_ceil(64)];
        let is_open = |open: &[u64], p: usize| open[p / 64] >> (p % 64) & 1 == 1;
        // Runs (of spaces, dashes) test the same few pairs again and again: remember them.
        let mut seen = vec![(NONE, NONE, false); VALID_CACHE];
        let mut pos = 0;
        let mut next = self.longest_at(piece, 0);
        while let Some(mut token) = next {
            let last = out[from..].last().copied();
            loop {
                let end = pos + tables.token_len(token);
                if is_open(&open, end)
                    && last.is_none_or(|l| self.valid_cached(tables, &mut seen, l, token))
                {
                    out.push(token);
                    pos = end;
                    next = self.longest_at(piece, end);
                    break;
                }
                let shorter = self.shorter[token as usize];
                if shorter != NONE {
                    token = shorter;
                    continue;
                }
                // Nothing fits after `last`: `pos` leads nowhere; back up and retry `last`
                // (its end is now closed, so a shorter one).
                open[pos / 64] &= !(1 << (pos % 64));
                if let Some(l) = last {
                    out.pop();
                    pos -= tables.token_len(l);
                }
                next = last;
                break;
            }
        }
        if pos != piece.len() {
            out.truncate(from);
            return false;
        }
        true
    }

    fn valid_cached(
        &self,
        tables: &Tables,
        seen: &mut [(u32, u32, bool)],
        left: u32,
        right: u32,
    ) -> bool {
        let h = (u64::from(left) << 32 | u64::from(right)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = &mut seen[(h >> 52) as usize];
        if slot.0 != left || slot.1 != right {
            *slot = (left, right, self.valid_pair(tables, left, right));
        }
        slot.2
    }

    /// Whether BPE on `left`'s bytes followed by `right`'s ends in exactly those two
    /// tokens. The merges that formed each are undone, latest (highest rank) first; at
    /// each step the two parts that meet at the boundary must not merge before the merge
    /// being undone (ties go to the leftmost pair, hence the `+ 1` on the right side).
    fn valid_pair(&self, tables: &Tables, mut left: u32, mut right: u32) -> bool {
        let mut limit = NONE;
        loop {
            let joined = tables.pair_rank(left, right);
            if joined != NONE && joined < limit {
                return false;
            }
            let undo_left = |left: &mut u32, limit: &mut u32| {
                *limit = *left;
                *left = self.splits[*left as usize].1;
                *left != *limit
            };
            let undo_right = |right: &mut u32, limit: &mut u32| {
                *limit = *right + 1;
                *right = self.splits[*right as usize].0;
                *right + 1 != *limit
            };
            // The side with the later merge first; when it is a byte, the other side.
            let left_first = left > right;
            for undo_on_left in [left_first, !left_first] {
                let undone = if undo_on_left {
                    undo_left(&mut left, &mut limit)
                } else {
                    undo_right(&mut right, &mut limit)
                };
                if undone {
                    break;
                }
                if undo_on_left != left_first {
                    return true; // both sides are bytes
                }
            }
        }
    }
}

/// The two tokens whose merge forms `id` when BPE runs on its bytes alone; `(id, id)` for
/// a byte, `(NONE, NONE)` when those bytes do not merge into `id`.
fn last_merge(tables: &Tables, id: u32) -> (u32, u32) {
    let bytes = tables.token(id);
    if bytes.len() == 1 {
        return (id, id);
    }
    let mut parts: Vec<u32> = bytes.iter().map(|&b| tables.byte_id(b)).collect();
    while parts.len() > 2 {
        let best = parts
            .windows(2)
            .enumerate()
            .map(|(i, w)| (tables.pair_rank(w[0], w[1]), i))
            .min();
        match best {
            Some((rank, i)) if rank != NONE => {
                parts[i] = rank;
                parts.remove(i + 1);
            }
            _ => return (NONE, NONE),
        }
    }
    if tables.pair_rank(parts[0], parts[1]) == id {
        (parts[0], parts[1])
    } else {
        (NONE, NONE)
    }
}
