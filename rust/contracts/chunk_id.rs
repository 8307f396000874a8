//! Content ids: the same embedded text gives the same id on every run and platform.
//!
//! Scheme `xxh3-128/v1` (`docs/incremental.md`): XXH3-128 (seed 0, the default secret)
//! over the UTF-8 bytes of exactly what is embedded, `context + text`, written as the 32
//! lowercase hex digits of its canonical (big-endian) form, as `xxhsum -H2` and Python's
//! `xxhash.xxh3_128_hexdigest` print it. XXH3 because it costs well under 1 % of
//! chunking (SHA-256 cost 5-6 % even with the CPU's SHA extensions); 128 bits keep an
//! accidental collision out of reach at any corpus size.

#![forbid(unsafe_code)]

use xxhash_rust::xxh3::Xxh3;

/// The version of the scheme, in the docs and in a ledger's header.
pub const SCHEME: &str = "xxh3-128/v1";

/// The id of the chunk whose embedded text is `context` followed by `text`.
pub fn chunk_id(context: &str, text: &str) -> [u8; 16] {
    if context.is_empty() {
        return bytes_id(text.as_bytes());
    }
    let mut state = Xxh3::new();
    state.update(context.as_bytes());
    state.update(text.as_bytes());
    state.digest128().to_be_bytes()
}

/// The scheme's hash of any bytes (a record id hashes its key with it).
pub fn bytes_id(data: &[u8]) -> [u8; 16] {
    xxhash_rust::xxh3::xxh3_128(data).to_be_bytes()
}

/// `id` as 32 lowercase hex digits.
pub fn hex(id: &[u8; 16]) -> [u8; 32] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 32];
    for (i, b) in id.iter().enumerate() {
        out[2 * i] = DIGITS[usize::from(b >> 4)];
        out[2 * i + 1] = DIGITS[usize::from(b & 15)];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_id(context: &str, text: &str) -> String {
        String::from_utf8_lossy(&hex(&chunk_id(context, text))).into_owned()
    }

    #[test]
    fn golden_ids() {
        // `printf %s "$text" | xxhsum -H2`
        assert_eq!(hex_id("", ""), "99aa06d3014798d86001c324468d497f");
        assert_eq!(hex_id("", "abc"), "06b05ab6733a618578af5f94892f3950");
    }

    #[test]
    fn context_and_text_hash_as_one_string() {
        let long = "context line. ".repeat(40);
        for (c, t) in [("# Title\n\n", "Body."), (long.as_str(), "x"), ("a", &long)] {
            assert_eq!(hex_id(c, t), hex_id("", &format!("{c}{t}")));
        }
        assert_ne!(hex_id("A\n", "body"), hex_id("", "body"));
    }
}
