// The hash of the precomputed tables: shared, byte for byte, by `build.rs` (which writes
// the tables) and `tables.rs` (which reads them), so the two can never disagree.
// The first eight bytes and the length, multiplied; later words folded in with a 128-bit
// multiply; then a murmur-style finish so the low bits spread.

const K: u64 = 0x517c_c1b7_2722_0a95;

/// The first eight bytes of `bytes` as a little-endian word, zero-padded: the key the
/// vocabulary table compares, so a piece of up to eight bytes is found by comparing one
/// word. Short strings are read with overlapping loads rather than byte by byte; an
/// overlapping byte lands where it belongs, so the word is exact.
#[inline(always)]
pub fn prefix_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let u32_at = |i: usize| {
        u64::from(u32::from_le_bytes([
            bytes[i],
            bytes[i + 1],
            bytes[i + 2],
            bytes[i + 3],
        ]))
    };
    if n >= 8 {
        u64::from_le_bytes([
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        ])
    } else if n >= 4 {
        u32_at(0) | (u32_at(n - 4) << (8 * (n - 4)))
    } else if n > 0 {
        let byte_at = |i: usize| u64::from(bytes[i]) << (8 * i);
        byte_at(0) | byte_at(n / 2) | byte_at(n - 1)
    } else {
        0
    }
}

/// The first eight bytes of a piece of `text` that starts at `at` and is `n` bytes long,
/// as [`prefix_word`] reads them, with one load where eight bytes are there to read.
#[inline(always)]
pub fn prefix_word_at(text: &[u8], at: usize, n: usize) -> u64 {
    match text.get(at..at + 8) {
        Some(w) => {
            let word = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            if n >= 8 {
                word
            } else {
                word & ((1u64 << (8 * n)) - 1)
            }
        }
        None => prefix_word(&text[at..at + n]),
    }
}

/// Hashes a byte string (a token, or a piece looked up as one).
#[inline(always)]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    hash_with_prefix(prefix_word(bytes), bytes)
}

/// [`hash_bytes`] of `bytes`, given their [`prefix_word`].
#[inline(always)]
pub fn hash_with_prefix(word: u64, bytes: &[u8]) -> u64 {
    // The length goes in after the multiply, into the low bits: XORed into the word, it
    // would meet a long token's eighth byte, and two tokens could hash alike (the perfect
    // layout needs distinct hashes).
    let mut h = word.wrapping_mul(K) ^ bytes.len() as u64;
    if bytes.len() > 8 {
        // The later words go through a folded 128-bit multiply: a plain multiply-and-
        // rotate chain let two tokens that differ in their eighth and ninth bytes
        // (" contente", " contendo") cancel out.
        let mut chunks = bytes[8..].chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = fold(h ^ w);
        }
        if !chunks.remainder().is_empty() {
            h = fold(h ^ prefix_word(chunks.remainder()));
        }
    }
    finish(h)
}

/// The high and low halves of a 128-bit product, XORed (wyhash's mix).
#[inline(always)]
fn fold(x: u64) -> u64 {
    let p = u128::from(x) * 0x9e37_79b9_7f4a_7c15_u128;
    (p as u64) ^ (p >> 64) as u64
}

/// Hashes a pair of token ids.
#[inline]
pub fn hash_pair(key: u64) -> u64 {
    finish(key.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

#[inline]
fn finish(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h
}

// The perfect-hash layout of the vocabulary and pair tables (PTHash's idea): a key's hash
// picks a bucket of about four keys, and the bucket's 16-bit pilot, mixed into the hash,
// picks the key's slot. `build.rs` finds pilots that give every key a slot of its own, so
// a lookup reads one bucket word and, unless the bucket's key mask (below) rules the key
// out, one slot: no probing. Slots are 1.6 % more than keys, where pilots are still quick
// to find.
//
// Beside its pilot, each bucket keeps a 16-bit mask of its keys' `bucket_bit`s, in the same
// word. Most pair lookups while merging CJK text find no pair (76-85 % on a first pass), and
// the slots are megabytes, so reading one is a cache miss; about three quarters of those
// lookups end at the bucket's word instead, which they read anyway.

/// Keys per bucket, on average.
#[allow(dead_code)] // build.rs lays the tables out; the library only reads them
pub const KEYS_PER_BUCKET: usize = 4;

/// (buckets, slots) for `n` keys.
#[allow(dead_code)] // build.rs lays the tables out; the library only reads them
pub fn perfect_sizes(n: usize) -> (usize, usize) {
    (n / KEYS_PER_BUCKET + 1, n + n / 64 + 1)
}

/// The bucket of a key's hash: from its low 32 bits.
#[inline(always)]
pub fn perfect_bucket(h: u64, buckets: usize) -> usize {
    (((h & 0xFFFF_FFFF) * buckets as u64) >> 32) as usize
}

/// The slot of a key's hash under its bucket's pilot: from its high 32 bits, XORed with
/// the pilot's own hash (keys of one bucket share the top of their low half, not these).
#[inline(always)]
pub fn perfect_slot(h: u64, pilot: u16, slots: usize) -> usize {
    let x = (h ^ (u64::from(pilot) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)) >> 32;
    ((x * slots as u64) >> 32) as usize
}

/// The bit a key sets in its bucket's key mask: from the hash's lowest bits, which the
/// bucket (the top of the low half) and the slot (the high half) hardly depend on.
#[inline(always)]
pub fn bucket_bit(h: u64) -> u32 {
    1 << (h & 15)
}

// The filter of pairs across a character edge: a Bloom filter of the pair table's keys
// whose left token ends with a UTF-8 continuation byte (or is a space) and whose right
// token starts with the lead byte of a three-byte character (`中`+`国`, ` `+`参考`,
// `\xec\x9d`+... the parts of CJK text meet like this). Most such pairs met while merging
// are no token, and on a first pass the lookups that say so miss the CPU caches twice
// (bucket, slot); the filter says it from tens of kilobytes. A key sets `FILTER_PROBES`
// bits of one 64-bit word, so a query reads one word.

/// Bits of filter per key.
#[allow(dead_code)] // build.rs sizes the filter; the library only reads it
pub const FILTER_BITS_PER_KEY: usize = 12;
const FILTER_PROBES: u32 = 4;

/// A pair's word in a filter of `words` words, and the bits it sets there.
#[inline(always)]
pub fn filter_bits(left: u32, right: u32, words: usize) -> (usize, u64) {
    let h = hash_pair(u64::from(left) << 32 | u64::from(right));
    let bits = (0..FILTER_PROBES).fold(0, |m, k| m | 1 << (h >> (6 * k) & 63));
    ((((h >> 32) * words as u64) >> 32) as usize, bits)
}

/// A left token of the filter's pairs: it ends with a continuation byte, or is a space.
/// `build.rs` picks the filter's keys with these two; the merge marks its parts with them.
#[inline(always)]
pub fn ends_in_character(token: &[u8]) -> bool {
    matches!(token, [.., 0x80..=0xBF] | [b' '])
}

/// A right token of the filter's pairs: it starts with a three-byte character's lead byte.
#[inline(always)]
pub fn starts_three_byte_character(token: &[u8]) -> bool {
    matches!(token, [0xE0..=0xEF, ..])
}
