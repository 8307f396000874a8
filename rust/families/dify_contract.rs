//! The `Recursive` contract: Dify's recursive splitter in real tokens, done right.
//!
//! A span's size is the number of tokens (from the one tokenization pass) that
//! overlap it. Spans that fit the content budget (`max_tokens - overlap_tokens`)
//! stay whole; others are cut at the first separator they contain (kept at the
//! end or the start of a piece), neighbouring pieces merge while they fit, and a
//! piece that does not fit recurses with the next separators; with none left it
//! is cut into whole-token windows at character boundaries. A fixed separator
//! first cuts segments that are never merged. Overlap extends a chunk backwards
//! by whole tokens within `max_tokens`. `reference/recursive.py` is the twin.

use std::ops::Range;

use crate::error::{Error, Result};

/// Where a separator goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    End,
    Start,
}

/// Validated `Recursive` sizes and separators.
#[derive(Clone, Debug)]
pub struct RecursiveConfig {
    pub max_tokens: usize,
    pub overlap_tokens: usize,
    pub fixed_separator: Option<String>,
    pub separators: Vec<String>,
    pub keep: Keep,
}

impl RecursiveConfig {
    /// # Errors
    /// [`Error::InvalidConfig`] when `max_tokens < 1` or the overlap is not below it.
    pub fn validate(&self) -> Result<()> {
        if self.max_tokens < 1 {
            return Err(Error::InvalidConfig {
                field: "max_tokens",
                value: self.max_tokens.to_string(),
                expected: "an integer >= 1",
            });
        }
        if self.overlap_tokens >= self.max_tokens {
            return Err(Error::InvalidConfig {
                field: "overlap_tokens",
                value: self.overlap_tokens.to_string(),
                expected: "an integer below max_tokens",
            });
        }
        Ok(())
    }
}

struct Tokens<'a> {
    data: &'a [u8],
    starts: Vec<usize>,
}

impl Tokens<'_> {
    fn first(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    fn end(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s < at)
    }

    fn count(&self, a: usize, b: usize) -> usize {
        if b > a && !self.starts.is_empty() {
            self.end(b) - self.first(a)
        } else {
            0
        }
    }

    fn boundary(&self, at: usize) -> bool {
        at >= self.data.len() || (self.data[at] & 0xC0) != 0x80
    }

    fn cuts(&self, a: usize, b: usize) -> Vec<usize> {
        let lo = self.starts.partition_point(|&s| s <= a);
        let hi = self.starts.partition_point(|&s| s < b);
        self.starts[lo..hi.max(lo)]
            .iter()
            .copied()
            .filter(|&s| self.boundary(s))
            .chain([b])
            .collect()
    }
}

fn find(data: &[u8], sep: &[u8], from: usize, to: usize) -> Option<usize> {
    memchr::memmem::find(&data[from..to], sep).map(|i| from + i)
}

fn pieces(data: &[u8], a: usize, b: usize, sep: &[u8], keep: Keep) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = a;
    let mut i = find(data, sep, a, b);
    while let Some(m) = i {
        let cut = if keep == Keep::End { m + sep.len() } else { m };
        if cut > at {
            out.push(at..cut);
            at = cut;
        }
        i = find(data, sep, m + sep.len(), b);
    }
    if b > at {
        out.push(at..b);
    }
    out
}

fn windows(tokens: &Tokens<'_>, a: usize, b: usize, budget: usize) -> Vec<Range<usize>> {
    let cuts = tokens.cuts(a, b);
    let mut out = Vec::new();
    let mut at = a;
    while at < b {
        // Counts grow with the cut, so the furthest fitting cut is a binary search.
        let lo = cuts.partition_point(|&c| c <= at);
        let fit = lo + cuts[lo..].partition_point(|&c| tokens.count(at, c) <= budget);
        let end = if fit > lo {
            cuts[fit - 1]
        } else {
            cuts.get(lo).copied().unwrap_or(b)
        };
        out.push(at..end);
        at = end;
    }
    out
}

fn split(
    tokens: &Tokens<'_>,
    span: Range<usize>,
    seps: &[Vec<u8>],
    budget: usize,
    keep: Keep,
) -> Vec<Range<usize>> {
    let (a, b) = (span.start, span.end);
    if tokens.count(a, b) <= budget {
        return vec![span];
    }
    for (i, sep) in seps.iter().enumerate() {
        if sep.is_empty() {
            break;
        }
        if find(tokens.data, sep, a, b).is_none() {
            continue;
        }
        let rest = &seps[i + 1..];
        let mut out = Vec::new();
        let mut cur: Option<Range<usize>> = None;
        for p in pieces(tokens.data, a, b, sep, keep) {
            if tokens.count(p.start, p.end) > budget {
                out.extend(cur.take());
                out.extend(split(tokens, p, rest, budget, keep));
            } else {
                cur = match cur {
                    Some(c) if tokens.count(c.start, p.end) <= budget => Some(c.start..p.end),
                    Some(c) => {
                        out.push(c);
                        Some(p)
                    }
                    None => Some(p),
                };
            }
        }
        out.extend(cur);
        return out;
    }
    windows(tokens, a, b, budget)
}

/// A chunk: its byte span, token range and whether it exceeds `max_tokens`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecursiveChunk {
    pub bytes: Range<usize>,
    pub token_start: usize,
    pub token_end: usize,
    pub oversize: bool,
}

/// Cuts `text` (tokens starting at `byte_starts`) by the `Recursive` contract.
pub fn recursive_chunks(
    text: &str,
    byte_starts: &[u32],
    config: &RecursiveConfig,
) -> Vec<RecursiveChunk> {
    let data = text.as_bytes();
    let mut starts: Vec<usize> = byte_starts.iter().map(|&s| s as usize).collect();
    if let Some(first) = starts.first_mut() {
        *first = 0;
    }
    let tokens = Tokens { data, starts };
    let budget = config.max_tokens - config.overlap_tokens;
    let seps: Vec<Vec<u8>> = config
        .separators
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let segments = match config.fixed_separator.as_deref() {
        Some(fixed) if !fixed.is_empty() => {
            pieces(data, 0, data.len(), fixed.as_bytes(), config.keep)
        }
        _ if data.is_empty() => Vec::new(),
        _ => std::iter::once(0..data.len()).collect(),
    };
    let content: Vec<Range<usize>> = segments
        .into_iter()
        .flat_map(|seg| split(&tokens, seg, &seps, budget, config.keep))
        .collect();
    let mut out = Vec::with_capacity(content.len());
    for (i, span) in content.iter().enumerate() {
        let mut start = span.start;
        if i > 0 && config.overlap_tokens > 0 {
            let room = config
                .max_tokens
                .saturating_sub(tokens.count(span.start, span.end));
            let k = config.overlap_tokens.min(room);
            let first = tokens.first(span.start);
            if k > 0 && first >= k {
                start = tokens.starts[first - k].max(content[i - 1].start);
                // Move later to a character boundary (never past the content start).
                while start < span.start && !tokens.boundary(start) {
                    let next = tokens.first(start) + 1;
                    start = tokens
                        .starts
                        .get(next)
                        .copied()
                        .unwrap_or(span.start)
                        .min(span.start);
                }
            }
        }
        let count = tokens.count(start, span.end);
        let token_start = if tokens.starts.is_empty() {
            0
        } else {
            tokens.first(start)
        };
        out.push(RecursiveChunk {
            bytes: start..span.end,
            token_start,
            token_end: token_start + count,
            oversize: count > config.max_tokens,
        });
    }
    out
}

/// Rows for the boundary: token_start, token_end, byte_start, byte_end,
/// char_start, char_end, oversize.
///
/// # Errors
/// Only if a chunk is off character boundaries, which the cuts rule out.
pub fn recursive_rows(text: &str, chunks: &[RecursiveChunk]) -> Result<Vec<[u64; 7]>> {
    let map = crate::offsets::CharMap::new(
        text,
        chunks.iter().flat_map(|c| [c.bytes.start, c.bytes.end]),
    )?;
    Ok(chunks
        .iter()
        .map(|c| {
            [
                c.token_start as u64,
                c.token_end as u64,
                c.bytes.start as u64,
                c.bytes.end as u64,
                map.char_of(c.bytes.start),
                map.char_of(c.bytes.end),
                u64::from(c.oversize),
            ]
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::Encoding;

    fn run(text: &str, max: usize, overlap: usize, seps: &[&str]) -> Vec<String> {
        let cfg = RecursiveConfig {
            max_tokens: max,
            overlap_tokens: overlap,
            fixed_separator: None,
            separators: seps.iter().map(|s| (*s).to_owned()).collect(),
            keep: Keep::End,
        };
        let starts = Encoding::Cl100kBase.encode(text).unwrap().byte_starts;
        recursive_chunks(text, &starts, &cfg)
            .into_iter()
            .map(|c| text[c.bytes].to_owned())
            .collect()
    }

    #[test]
    fn tiles_and_respects_the_cap() {
        let text = "one two three. four five six.\n\nseven eight nine ten eleven";
        let chunks = run(text, 4, 0, &["\n\n", ". ", " ", ""]);
        assert_eq!(chunks.concat(), text);
        for c in &chunks {
            assert!(Encoding::Cl100kBase.count(c) <= 4, "{c:?}");
        }
    }

    #[test]
    fn cjk_without_spaces_falls_to_token_windows() {
        let text = "人工智能正在改变世界的每一个角落";
        let chunks = run(text, 3, 1, &["\n\n", " ", ""]);
        assert!(chunks.len() > 1);
        assert!(chunks.iter().all(|c| !c.contains('\u{fffd}')));
    }
}
