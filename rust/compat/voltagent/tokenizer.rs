//! VoltAgent's default tokenizer as `@voltagent/rag` sees it (1.0.2).
//!
//! js-tiktoken's `tokenize` places each token by the running UTF-16 length of its
//! bytes decoded on their own (a leading BOM dropped, broken UTF-8 read as U+FFFD),
//! not by matching the input. A character split across tokens therefore makes
//! offsets drift. This module reproduces that from one encoding pass: the ids come
//! from the js-tiktoken split (`Encoding::Cl100kJs`), the lengths from a per-id
//! table. The `*_units` functions take JS strings as UTF-16 code units, for the
//! chunkers (`chunkers.rs`); a lone surrogate reads as U+FFFD, as `TextEncoder` does.

use std::borrow::Cow;
use std::sync::LazyLock;

use rayon::prelude::*;

use super::js::inside_pair;
use crate::error::{Error, Result};
use crate::text::offsets::{convert_sorted, Unit};
use crate::tokenizer::{check_len, Encoding, Tokenizer};

const ENCODING: Encoding = Encoding::Cl100kJs;

fn tokenizer() -> Result<&'static Tokenizer> {
    ENCODING.load()
}

/// A token's text as WHATWG `TextDecoder` gives it.
fn decoded(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
}

/// The UTF-16 length of every token's decoded text, by id.
static DECODED_LEN: LazyLock<Result<Vec<u32>>> = LazyLock::new(|| {
    let tok = tokenizer()?;
    Ok((0u32..)
        .map_while(|id| tok.token_bytes(id))
        .map(|bytes| decoded(bytes).encode_utf16().count() as u32)
        .collect())
});

/// js-tiktoken refuses text holding a special-token string (its `encode` default).
fn check_special(tok: &Tokenizer, text: &str) -> Result<()> {
    match tok.first_special_token(text) {
        Some(token) => Err(Error::Upstream {
            class: "ValueError",
            message: format!("The text contains a special token that is not allowed: {token}"),
        }),
        None => Ok(()),
    }
}

/// The end of every token, in UTF-16 units: the running sum of decoded lengths.
///
/// # Errors
/// [`Error::Upstream`] (`ValueError`) for special-token text.
pub fn token_ends(text: &str) -> Result<Vec<u64>> {
    let tok = tokenizer()?;
    check_special(tok, text)?;
    let lengths = DECODED_LEN.as_ref().map_err(Clone::clone)?;
    let mut at = 0u64;
    // Ids come from the same vocabulary the table was built from, so every id has a length.
    Ok(tok
        .encode_ids(text)
        .into_iter()
        .filter_map(|id| lengths.get(id as usize))
        .map(|&len| {
            at += u64::from(len);
            at
        })
        .collect())
}

/// Every token's decoded text (the `value` of js-tiktoken's tokens).
///
/// # Errors
/// [`Error::Upstream`] (`ValueError`) for special-token text.
pub fn token_values(text: &str) -> Result<Vec<String>> {
    let tok = tokenizer()?;
    check_special(tok, text)?;
    Ok(tok
        .encode_ids(text)
        .into_iter()
        .filter_map(|id| tok.token_bytes(id))
        .map(|b| decoded(b).into_owned())
        .collect())
}

/// A JS string as the encoder sees it: lone surrogates as U+FFFD (one unit each).
fn lossy(units: &[u16]) -> String {
    String::from_utf16_lossy(units)
}

/// True when the JS string holds a special-token string (the chunkers then leave the
/// error to the general path, which raises it where upstream does).
pub fn has_special_units(units: &[u16]) -> Result<bool> {
    // Every special token starts with "<|": most texts are cleared without a copy.
    if !units.windows(2).any(|w| w == [0x3C, 0x7C]) {
        return Ok(false);
    }
    Ok(tokenizer()?.contains_special_token(&lossy(units)))
}

/// A JS string's units with their UTF-8 form, made once per call. The chunkers count,
/// encode and prefix-count many ranges of one text; each range is read in place from
/// the UTF-8 rather than converted again, except where a bound cuts a surrogate pair
/// (the range then holds a lone half, which reads as U+FFFD).
pub(super) struct JsText<'a> {
    units: &'a [u16],
    utf8: Cow<'a, str>,
    /// Where each unit's character starts in `utf8`, and its length at the end.
    byte: Vec<u32>,
}

impl<'a> JsText<'a> {
    /// `units`, whose UTF-8 form is `utf8` when the caller has it (a `str` input).
    ///
    /// # Errors
    /// [`Error::TextTooLarge`] for 4 GiB of UTF-8 or more.
    pub(super) fn new(units: &'a [u16], utf8: Option<&'a str>) -> Result<Self> {
        let utf8 = utf8.map_or_else(|| Cow::Owned(lossy(units)), Cow::Borrowed);
        check_len(&utf8)?;
        // The UTF-8 holds one character per unit, or per surrogate pair (four bytes);
        // both units of a pair get the character's start (no range starts at the second).
        let bytes = utf8.as_bytes();
        let mut byte = Vec::with_capacity(units.len() + 1);
        let mut at = 0;
        while at < bytes.len() {
            let (len, units) = match bytes[at] {
                0x00..=0x7F => (1, 1),
                0xC0..=0xDF => (2, 1),
                0xE0..=0xEF => (3, 1),
                _ => (4, 2),
            };
            byte.extend(std::iter::repeat_n(at as u32, units));
            at += len;
        }
        byte.push(at as u32);
        Ok(JsText { units, utf8, byte })
    }

    /// All the units.
    pub(super) fn units(&self) -> &'a [u16] {
        self.units
    }

    /// The text of units `a..b` as the encoder reads it.
    fn text(&self, a: usize, b: usize) -> Cow<'_, str> {
        if inside_pair(self.units, a) || inside_pair(self.units, b) {
            Cow::Owned(lossy(&self.units[a..b]))
        } else {
            Cow::Borrowed(&self.utf8[self.byte[a] as usize..self.byte[b] as usize])
        }
    }

    /// [`token_ends`] of units `a..b`, without the special-token check.
    pub(super) fn ends(&self, a: usize, b: usize) -> Result<Vec<u64>> {
        let tok = tokenizer()?;
        let lengths = DECODED_LEN.as_ref().map_err(Clone::clone)?;
        let mut at = 0u64;
        let mut ends = Vec::with_capacity((b - a) / 3 + 1);
        tok.for_each_piece(&self.text(a, b), |_, tokens| {
            for &id in tokens {
                at += u64::from(lengths.get(id as usize).copied().unwrap_or(0));
                ends.push(at);
            }
        });
        Ok(ends)
    }

    /// The end of the first `n` tokens of units `a..b` (their whole length in tokens'
    /// terms when they have fewer), or 0 for none: [`JsText::ends`]`[n - 1]` without
    /// encoding the rest.
    pub(super) fn end_of_first(&self, a: usize, b: usize, n: usize) -> Result<u64> {
        let tok = tokenizer()?;
        let lengths = DECODED_LEN.as_ref().map_err(Clone::clone)?;
        Ok(tok
            .first_ids(&self.text(a, b), n)
            .iter()
            .map(|&id| u64::from(lengths.get(id as usize).copied().unwrap_or(0)))
            .sum())
    }

    /// `countTokens` of units `a..b`, without the special-token check.
    pub(super) fn count(&self, a: usize, b: usize) -> Result<usize> {
        Ok(tokenizer()?.count(&self.text(a, b)))
    }

    /// `countTokens` of units `a..a + k` for every sorted `k`, from one pass over `a..b`.
    pub(super) fn prefix_counts(&self, a: usize, b: usize, sorted: &[usize]) -> Result<Vec<usize>> {
        let text = self.text(a, b);
        if sorted.iter().any(|&k| inside_pair(self.units, a + k)) {
            // A prefix that ends inside a surrogate pair keeps a lone half: each prefix on
            // its own, as upstream counts them.
            return sorted.iter().map(|&k| self.count(a, a + k)).collect();
        }
        let bytes: Vec<usize> = if let Cow::Borrowed(_) = text {
            let base = self.byte[a];
            sorted
                .iter()
                .map(|&k| (self.byte[a + k] - base) as usize)
                .collect()
        } else {
            // A lone half at either end became U+FFFD, one unit as before.
            let positions: Vec<u64> = sorted.iter().map(|&k| k as u64).collect();
            convert_sorted(&text, &positions, Unit::Utf16, Unit::Byte)?
                .into_iter()
                .map(|b| b as usize)
                .collect()
        };
        tokenizer()?.prefix_counts(&text, &bytes)
    }
}

/// `countTokens` of many texts, in parallel.
///
/// # Errors
/// [`Error::Upstream`] (`ValueError`) naming the first text's special token.
pub fn counts(texts: &[&str]) -> Result<Vec<usize>> {
    let tok = tokenizer()?;
    let each: Vec<Result<usize>> = texts
        .par_iter()
        .map(|t| {
            check_special(tok, t)?;
            Ok(tok.count(t))
        })
        .collect();
    // In order, so the first failing text raises, as counting one by one would.
    each.into_iter().collect()
}

/// `countTokens(text.slice(0, k))` for every UTF-16 position `k`, in any order.
///
/// # Errors
/// [`Error::Upstream`] for special-token text; [`Error::InvalidOffsets`] for a
/// position past the end or inside a surrogate pair.
pub fn prefix_counts(text: &str, positions: &[u64]) -> Result<Vec<usize>> {
    let tok = tokenizer()?;
    check_special(tok, text)?;
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_unstable_by_key(|&i| positions[i]);
    let sorted: Vec<u64> = order.iter().map(|&i| positions[i]).collect();
    let bytes = convert_sorted(text, &sorted, Unit::Utf16, Unit::Byte)?;
    let bytes: Vec<usize> = bytes.into_iter().map(|b| b as usize).collect();
    let found = tok.prefix_counts(text, &bytes)?;
    let mut out = vec![0; positions.len()];
    for (slot, count) in order.into_iter().zip(found) {
        out[slot] = count;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_characters_drift() {
        // Spec §2.2, vector token-1428: "世" is two tokens that decode to U+FFFD each.
        assert_eq!(
            token_ends("你好，世界。").unwrap(),
            vec![1, 2, 3, 4, 5, 6, 7]
        );
        assert_eq!(token_values("ab").unwrap(), vec!["ab"]);
    }

    #[test]
    fn special_tokens_are_refused() {
        let err = token_ends("a <|endoftext|> <|fim_prefix|>").unwrap_err();
        assert_eq!(
            err.to_string(),
            "The text contains a special token that is not allowed: <|endoftext|>"
        );
        assert!(counts(&["ok", "<|endofprompt|>"]).is_err());
    }

    #[test]
    fn prefix_counts_take_any_order() {
        let text = "First part. Second 😀 part. Third.";
        let positions = [34u64, 0, 12, 21];
        let direct: Vec<usize> = [34usize, 0, 12, 21]
            .iter()
            .map(|&k| {
                let units: Vec<u16> = text.encode_utf16().take(k).collect();
                tokenizer()
                    .unwrap()
                    .count(&String::from_utf16(&units).unwrap())
            })
            .collect();
        assert_eq!(prefix_counts(text, &positions).unwrap(), direct);
        assert!(
            prefix_counts(text, &[20]).is_err(),
            "inside the emoji's surrogate pair"
        );
    }
}
