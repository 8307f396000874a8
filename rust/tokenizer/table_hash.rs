// The hash of the precomputed tables: shared, byte for byte, by `build.rs` (which writes
// the tables) and `tables.rs` (which reads them), so the two can never disagree.
// FxHash over 8-byte words, then a murmur-style finish so the low bits spread.

/// Hashes a byte string (a token, or a piece looked up as one).
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let mut tail = 0u64;
    for (i, &b) in chunks.remainder().iter().enumerate() {
        tail |= u64::from(b) << (8 * i);
    }
    h = (h.rotate_left(5) ^ tail).wrapping_mul(K);
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
