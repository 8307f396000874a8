// The hash of the precomputed tables: shared, byte for byte, by `build.rs` (which writes
// the tables) and `tables.rs` (which reads them), so the two can never disagree.
// FxHash over 8-byte words, then a murmur-style finish so the low bits spread.

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
    let mut h = (word ^ (bytes.len() as u64).rotate_right(8)).wrapping_mul(K);
    if bytes.len() > 8 {
        let mut chunks = bytes[8..].chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        if !chunks.remainder().is_empty() {
            h = (h.rotate_left(5) ^ prefix_word(chunks.remainder())).wrapping_mul(K);
        }
    }
    finish(h)
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
