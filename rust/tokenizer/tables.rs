//! The tables `build.rs` precomputed, read in place from the binary: loading copies and
//! hashes nothing, and only the pages a text needs are ever touched.

use super::table_hash::{
    bucket_bit, filter_bits, hash_pair, hash_with_prefix, perfect_bucket, perfect_slot,
    prefix_word_at,
};
use super::warm::read_in_order;

/// A little-endian `u32` array inside the binary.
#[derive(Clone, Copy)]
struct Words(&'static [u8]);

impl Words {
    #[inline]
    fn get(self, i: usize) -> u32 {
        let b = &self.0[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Words `2i` and `2i + 1` as one little-endian `u64`.
    #[inline]
    fn get64(self, i: usize) -> u64 {
        let b = &self.0[i * 8..i * 8 + 8];
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
}

/// Token bytes, the vocabulary and the merge ranks of one encoding.
pub(crate) struct Tables {
    tokens: usize,
    /// The byte offset of every `TOKEN_BLOCK`-th token in `bytes`.
    block_starts: Words,
    /// Each token's length in bytes.
    lengths: &'static [u8],
    bytes: &'static [u8],
    /// Vocabulary slots of three words: the token's first eight bytes (zero-padded, two
    /// words), then its id | its length << 24; placed by a perfect hash (`table_hash.rs`).
    vocab: Perfect,
    /// Pair slots of two words, one `u64`: left id << 42 | right id << 21 | joined id;
    /// `u64::MAX` is empty; placed by a perfect hash.
    pairs: Perfect,
    byte_ids: Words,
    byte_pairs: Words,
    /// Two words per three-byte character: its parts and the index of its hazard masks
    /// in `char_masks` (`build.rs`, `char_table`).
    chars: Words,
    /// The same for a space and a Hangul syllable at a piece's start, by the syllable's
    /// code point from `spaced_first` (`build.rs`, `spaced_hangul_table`).
    spaced: Words,
    spaced_first: u32,
    spaced_count: u32,
    /// Four words per distinct (left, right) hazard mask pair.
    char_masks: Words,
    /// The filter of pairs across a character edge (`table_hash.rs`): two words per
    /// 64-bit word.
    edge_pairs: Words,
    edge_pair_words: usize,
}

/// A table whose slots a perfect hash assigns: the slots, and a word per bucket (its pilot,
/// and its keys' mask above it).
struct Perfect {
    slots: Words,
    slot_count: usize,
    buckets: Words,
    bucket_count: usize,
}

impl Perfect {
    /// The slot a key's hash may be in (the caller compares the key), or `None` when the
    /// bucket's key mask rules the key out.
    #[inline(always)]
    fn slot(&self, h: u64) -> Option<usize> {
        let word = self.buckets.get(perfect_bucket(h, self.bucket_count));
        (word >> 16 & bucket_bit(h) != 0).then(|| perfect_slot(h, word as u16, self.slot_count))
    }
}

/// Tokens per block of `Tables::block_starts` (`build.rs` writes it).
const TOKEN_BLOCK: usize = 16;

/// Splits `count` words off the front of `data`.
fn take(data: &mut &'static [u8], count: usize) -> Words {
    let (head, rest) = data.split_at(count * 4);
    *data = rest;
    Words(head)
}

impl Tables {
    /// Reads the bucket words of both perfect-hash tables, the token lengths, the block
    /// starts and the pair filter in order (0.95 MB for o200k, 0.46 MB for cl100k), so the
    /// lookups of a text new to the caches find them cached instead of missing on a line
    /// each (`Memo` decides when: `warm.rs`). Out of line: it runs once per call at most.
    #[cold]
    #[inline(never)]
    pub(crate) fn warm(&self) {
        read_in_order(self.vocab.buckets.0);
        read_in_order(self.pairs.buckets.0);
        read_in_order(self.lengths);
        read_in_order(self.block_starts.0);
        read_in_order(self.edge_pairs.0);
    }

    /// Views a table file (its layout is `build.rs`'s).
    pub(crate) fn parse(mut data: &'static [u8]) -> Self {
        // The tables are read in place from the extension's file: the kernel maps a page
        // on first touch, so a process maps only the pages its text needs. (Reading them
        // all here, in order, cost 0.6 / 1.2 ms of start-up and earned nothing that nine
        // `ab.py` runs could tell from noise: docs/design.md.)
        let header = take(&mut data, 10);
        let (n, total) = (header.get(0) as usize, header.get(1) as usize);
        let (vocab_slots, vocab_buckets) = (header.get(2) as usize, header.get(3) as usize);
        let (pair_slots, pair_buckets) = (header.get(4) as usize, header.get(5) as usize);
        let masks = header.get(6) as usize;
        let (spaced_first, spaced_count) = (header.get(7), header.get(8));
        let edge_pair_words = header.get(9) as usize;
        let block_starts = take(&mut data, n.div_ceil(TOKEN_BLOCK));
        let lengths = &take(&mut data, n.div_ceil(4)).0[..n];
        let vocab = Perfect {
            slots: take(&mut data, vocab_slots * 3),
            slot_count: vocab_slots,
            buckets: take(&mut data, vocab_buckets),
            bucket_count: vocab_buckets,
        };
        let byte_ids = take(&mut data, 256);
        let byte_pairs = take(&mut data, 1 << 16);
        let pairs = Perfect {
            slots: take(&mut data, pair_slots * 2),
            slot_count: pair_slots,
            buckets: take(&mut data, pair_buckets),
            bucket_count: pair_buckets,
        };
        let chars = take(&mut data, 2 << 16);
        let spaced = take(&mut data, 2 * spaced_count as usize);
        let char_masks = take(&mut data, masks * 4);
        let edge_pairs = take(&mut data, 2 * edge_pair_words);
        Tables {
            tokens: n,
            block_starts,
            lengths,
            bytes: &data[..total],
            vocab,
            pairs,
            byte_ids,
            byte_pairs,
            chars,
            spaced,
            spaced_first,
            spaced_count,
            char_masks,
            edge_pairs,
            edge_pair_words,
        }
    }

    pub(crate) fn num_tokens(&self) -> usize {
        self.tokens
    }

    /// The bytes of a token id (ids come from these tables, so they are in range).
    #[inline]
    pub(crate) fn token(&self, id: u32) -> &'static [u8] {
        let id = id as usize;
        let first = id & !(TOKEN_BLOCK - 1);
        let start = self.block_starts.get(id / TOKEN_BLOCK) as usize
            + self.lengths[first..id]
                .iter()
                .map(|&l| usize::from(l))
                .sum::<usize>();
        &self.bytes[start..start + usize::from(self.lengths[id])]
    }

    #[inline]
    pub(crate) fn token_len(&self, id: u32) -> usize {
        usize::from(self.lengths[id as usize])
    }

    /// The id of a single byte.
    #[inline]
    pub(crate) fn byte_id(&self, b: u8) -> u32 {
        self.byte_ids.get(usize::from(b))
    }

    /// The rank of merging two bytes, or `u32::MAX`.
    #[inline]
    pub(crate) fn byte_pair(&self, a: u8, b: u8) -> u32 {
        self.byte_pairs.get((usize::from(a) << 8) | usize::from(b))
    }

    /// The id of the piece `text[a..b]` if it is one token. Its first eight bytes are read
    /// with one load where the text has them; a piece of up to eight bytes (most words) is
    /// then one compare, a longer one also compares its other bytes.
    #[inline]
    pub(crate) fn lookup_in(&self, text: &[u8], a: usize, b: usize) -> Option<u32> {
        self.lookup_word(&text[a..b], prefix_word_at(text, a, b - a))
    }

    #[inline(always)]
    fn lookup_word(&self, piece: &[u8], word: u64) -> Option<u32> {
        let n = piece.len();
        if n >= 255 {
            return None; // no token is this long (build.rs checks)
        }
        let (lo, hi, len) = (word as u32, (word >> 32) as u32, n as u32);
        let i = self.vocab.slot(hash_with_prefix(word, piece))?;
        let slots = self.vocab.slots;
        let meta = slots.get(3 * i + 2);
        if meta >> 24 == len && slots.get(3 * i) == lo && slots.get(3 * i + 1) == hi {
            let id = meta & 0x00FF_FFFF;
            // An empty slot's meta is all ones: length 255, which no piece here has.
            if n <= 8 || self.token(id)[8..] == piece[8..] {
                return Some(id);
            }
        }
        None
    }

    /// The id of two adjacent tokens' joined bytes (their merge rank), or `u32::MAX`.
    #[inline]
    pub(crate) fn pair_rank(&self, left: u32, right: u32) -> u32 {
        const ID: u64 = (1 << 21) - 1;
        if u64::from(left.max(right)) >= ID {
            return u32::MAX; // no token has such an id, and the key below needs 21 bits each
        }
        let key = u64::from(left) << 21 | u64::from(right);
        let Some(i) = self
            .pairs
            .slot(hash_pair((u64::from(left) << 32) | u64::from(right)))
        else {
            return u32::MAX;
        };
        let slot = self.pairs.slots.get64(i);
        if slot >> 21 == key {
            (slot & ID) as u32
        } else {
            u32::MAX // an empty slot is all ones, and no key is
        }
    }

    /// Whether two tokens across a character edge (`table_hash::ends_in_character` on the
    /// left, `starts_three_byte_character` on the right) may join into a token. `false` is
    /// certain: `build.rs` puts every such pair of the pair table in the filter.
    #[inline]
    pub(crate) fn edge_pair_may_join(&self, left: u32, right: u32) -> bool {
        if self.edge_pair_words == 0 {
            return true;
        }
        let (word, bits) = filter_bits(left, right, self.edge_pair_words);
        self.edge_pairs.get64(word) & bits == bits
    }

    /// The tokens the three-byte character at `piece[i..i + 3]` merges into, when BPE is
    /// certain to make those merges before any across its edges: its bytes are one
    /// character, and neither neighbouring byte (none at the piece's edges) is a hazard.
    #[inline]
    pub(crate) fn char_parts(&self, piece: &[u8], i: usize) -> Option<CharParts> {
        let (b1, b2, b3) = (piece[i], *piece.get(i + 1)?, *piece.get(i + 2)?);
        let index = three_byte_char(b1, b2, b3)?;
        let before = i.checked_sub(1).map(|k| piece[k]);
        self.parts_of(
            self.chars.get64(index as usize),
            before,
            piece.get(i + 3).copied(),
        )
    }

    /// The same for a piece that starts with a space and a Hangul syllable (` 한국어`),
    /// whose four bytes merge on their own first unless the byte after them is a hazard.
    #[inline]
    pub(crate) fn spaced_char_parts(&self, piece: &[u8]) -> Option<CharParts> {
        let [b' ', b1, b2, b3, ..] = *piece else {
            return None;
        };
        let k = three_byte_char(b1, b2, b3)?.checked_sub(self.spaced_first)?;
        if k >= self.spaced_count {
            return None;
        }
        self.parts_of(self.spaced.get64(k as usize), None, piece.get(4).copied())
    }

    /// An entry of `chars` or `spaced`, when neither the byte before nor the byte after
    /// its bytes is a hazard for it.
    #[inline(always)]
    fn parts_of(&self, entry: u64, before: Option<u8>, after: Option<u8>) -> Option<CharParts> {
        const NO_SECOND: u64 = (1 << 21) - 1;
        if entry == u64::MAX {
            return None;
        }
        let (first, second) = ((entry >> 43) as u32, (entry >> 22) & NO_SECOND);
        let m = (entry & ((1 << 22) - 1)) as usize;
        let left =
            u64::from(self.char_masks.get(4 * m)) | u64::from(self.char_masks.get(4 * m + 1)) << 32;
        let right = u64::from(self.char_masks.get(4 * m + 2))
            | u64::from(self.char_masks.get(4 * m + 3)) << 32;
        let safe_left = match before {
            None => true,
            Some(0x00..=0x7F) => right & 2 == 0,
            Some(p @ 0x80..=0xBF) => left >> (p - 0x80) & 1 == 0,
            Some(_) => false, // not UTF-8: no hazards were worked out for it
        };
        let safe_right = match after {
            None => true,
            Some(0x00..=0x7F) => right & 1 == 0,
            Some(q @ 0xC2..=0xF4) => right >> (q - 0xC0) & 1 == 0,
            Some(_) => false,
        };
        (safe_left && safe_right).then_some(CharParts {
            first,
            second: if second == NO_SECOND {
                u32::MAX
            } else {
                second as u32
            },
            alone_right: right >> 62 & 1 == 1,
            alone_left: right >> 63 & 1 == 1,
        })
    }
}

/// The index of the three-byte UTF-8 sequence `b1 b2 b3` (its code point), or `None`.
#[inline(always)]
fn three_byte_char(b1: u8, b2: u8, b3: u8) -> Option<u32> {
    (b1 & 0xF0 == 0xE0 && b2 & 0xC0 == 0x80 && b3 & 0xC0 == 0x80)
        .then(|| u32::from(b1 & 0x0F) << 12 | u32::from(b2 & 0x3F) << 6 | u32::from(b3 & 0x3F))
}

/// What `Tables::char_parts` knows of a character.
pub(crate) struct CharParts {
    pub(crate) first: u32,
    /// `u32::MAX` when the character is one token.
    pub(crate) second: u32,
    /// Its last token joins no token that starts with a lead byte.
    pub(crate) alone_right: bool,
    /// Its first token joins no token that ends with a continuation byte.
    pub(crate) alone_left: bool,
}

#[cfg(test)]
mod tests {
    use super::hash_pair;
    use crate::tokenizer::table_hash::{
        ends_in_character, hash_bytes, starts_three_byte_character,
    };
    use crate::tokenizer::Encoding;

    /// The masks filter: most absent keys (about 78 % at four keys to a bucket and one bit
    /// of sixteen each) stop at their bucket's word, without a slot read.
    #[test]
    fn bucket_masks_rule_out_most_absent_keys() {
        for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
            let tables = encoding.load().unwrap().engine().tables();
            let (mut absent, mut ruled_out) = (0, 0);
            for left in (0..tables.num_tokens() as u32).step_by(97) {
                for right in (0..tables.num_tokens() as u32).step_by(4099) {
                    if tables.pair_rank(left, right) == u32::MAX {
                        absent += 1;
                        let h = hash_pair(u64::from(left) << 32 | u64::from(right));
                        ruled_out += usize::from(tables.pairs.slot(h).is_none());
                    }
                }
            }
            for n in 0..20_000u32 {
                let piece = format!("zq{n}xj");
                if tables.lookup_in(piece.as_bytes(), 0, piece.len()).is_none() {
                    absent += 1;
                    let h = hash_bytes(piece.as_bytes());
                    ruled_out += usize::from(tables.vocab.slot(h).is_none());
                }
            }
            assert!(absent > 20_000, "{encoding:?}: {absent} absent keys");
            assert!(
                ruled_out * 10 >= absent * 7,
                "{encoding:?}: {ruled_out} of {absent}"
            );
        }
    }

    /// Every pair of the pair table across a character edge passes the filter (one it ruled
    /// out would skip a merge), and the filter rules out most such pairs that are no token.
    #[test]
    fn edge_pair_filter_keeps_every_pair_and_rules_out_most_others() {
        for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
            let tables = encoding.load().unwrap().engine().tables();
            let ids = 0..tables.num_tokens() as u32;
            let lefts: Vec<u32> = ids
                .clone()
                .filter(|&id| ends_in_character(tables.token(id)))
                .collect();
            let rights: Vec<u32> = ids
                .clone()
                .filter(|&id| starts_three_byte_character(tables.token(id)))
                .collect();
            let mut kept = 0;
            for id in ids {
                let bytes = tables.token(id);
                for k in 1..bytes.len() {
                    let halves = (
                        tables.lookup_in(bytes, 0, k),
                        tables.lookup_in(bytes, k, bytes.len()),
                    );
                    if let (Some(left), Some(right)) = halves {
                        if lefts.binary_search(&left).is_ok()
                            && rights.binary_search(&right).is_ok()
                        {
                            assert!(tables.edge_pair_may_join(left, right), "{encoding:?} {id}");
                            kept += 1;
                        }
                    }
                }
            }
            let (mut absent, mut ruled_out) = (0, 0);
            for &left in lefts.iter().step_by(13) {
                for &right in rights.iter().step_by(101) {
                    if tables.pair_rank(left, right) == u32::MAX {
                        absent += 1;
                        ruled_out += usize::from(!tables.edge_pair_may_join(left, right));
                    }
                }
            }
            assert!(
                kept > 700 && absent > 5_000,
                "{encoding:?}: {kept}, {absent}"
            );
            assert!(
                ruled_out * 100 >= absent * 95,
                "{encoding:?}: {ruled_out} of {absent}"
            );
        }
    }

    /// Every token is found by its bytes, and every split of a token into two tokens by its
    /// pair: the buckets' key masks must never rule out a key that is there.
    #[test]
    fn every_key_is_found_past_its_bucket_mask() {
        for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
            let tables = encoding.load().unwrap().engine().tables();
            for id in 0..tables.num_tokens() as u32 {
                let bytes = tables.token(id);
                assert_eq!(tables.lookup_in(bytes, 0, bytes.len()), Some(id));
                for k in 1..bytes.len() {
                    let halves = (
                        tables.lookup_in(bytes, 0, k),
                        tables.lookup_in(bytes, k, bytes.len()),
                    );
                    if let (Some(left), Some(right)) = halves {
                        assert_eq!(tables.pair_rank(left, right), id, "{encoding:?} {id}");
                    }
                }
            }
        }
    }
}
