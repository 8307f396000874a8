//! The `DelimiterMerge` contract: RAGFlow's delimiter merge, done right.
//!
//! - Hard delimiters cut the text into segments; chunks never cross them.
//! - Soft delimiters cut segments into pieces; pieces merge by token count.
//! - Delimiter text never enters a chunk: a chunk is the concatenation of its
//!   pieces, given as byte spans (so every span slices back into the text).
//! - Each piece is tokenized once; a chunk's tokens are its pieces' tokens, and
//!   token indices run over the concatenated piece tokenizations.
//! - UNDER_CAP never exceeds `token_size` (a lone oversize piece is flagged);
//!   OVER_CAP fills to `token_size * (100 - overlap) / 100` and takes one more.
//! - Overlap is the last whole tokens of the previous chunk's own pieces (never
//!   its overlap, so it does not cascade), cut only at a character boundary.

use std::ops::Range;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::merge::{merge, MergeStrategy};
use crate::offsets::CharMap;
use crate::scan::{DelimiterPolicy, DelimiterSet};
use crate::tokenize::{check_len, Encoding};

/// Validated sizes of a `DelimiterMerge`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContractConfig {
    token_size: u64,
    strategy: MergeStrategy,
    overlap_percent: u64,
}

impl ContractConfig {
    /// # Errors
    /// [`Error::InvalidConfig`] when `token_size < 1` or the overlap is outside 0..=90.
    pub fn new(token_size: i64, strategy: MergeStrategy, overlap_percent: i64) -> Result<Self> {
        if token_size < 1 {
            return Err(Error::InvalidConfig {
                field: "token_size",
                value: token_size.to_string(),
                expected: "an integer >= 1",
            });
        }
        if !(0..=90).contains(&overlap_percent) {
            return Err(Error::InvalidConfig {
                field: "overlap",
                value: overlap_percent.to_string(),
                expected: "a percentage from 0 to 90",
            });
        }
        Ok(ContractConfig {
            token_size: token_size as u64,
            strategy,
            overlap_percent: overlap_percent as u64,
        })
    }
}

/// The delimiter sets of a `DelimiterMerge`.
pub struct Delimiters {
    pub hard: DelimiterSet,
    pub soft: DelimiterSet,
    pub child: DelimiterSet,
}

/// A non-empty piece: its byte range, its hard segment, and where its tokens start
/// (byte offsets relative to the piece).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub range: Range<usize>,
    pub segment: usize,
    pub token_starts: Vec<u32>,
}

/// A child chunk: one byte span inside a piece of its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Child {
    pub range: Range<usize>,
    pub token_start: u64,
    pub token_end: u64,
}

/// A chunk: byte spans in the text (overlap first), its token range, and its children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractChunk {
    pub spans: Vec<Range<usize>>,
    /// How many leading spans are overlap (the rest are the chunk's own pieces).
    pub overlap_spans: usize,
    pub token_start: u64,
    pub token_end: u64,
    pub overlap_tokens: u64,
    pub oversize: bool,
    pub children: Vec<Child>,
}

impl Piece {
    /// Checks a piece handed in from outside (a user tokenizer's encoding).
    ///
    /// # Errors
    /// [`Error::InvalidOffsets`] for a range off character boundaries or token
    /// starts that decrease or leave the piece.
    pub fn validate(&self, text: &str, index: usize) -> Result<()> {
        let r = &self.range;
        if r.start > r.end || !text.is_char_boundary(r.start) || !text.is_char_boundary(r.end) {
            return Err(Error::InvalidOffsets {
                index,
                value: r.start as u64,
                reason: format!(
                    "piece {}..{} is not a character range of the text",
                    r.start, r.end
                ),
            });
        }
        crate::slice::validate_starts(&self.token_starts, r.len())
    }
}

/// Non-empty pieces between delimiter matches, with their hard segment index.
pub fn find_pieces(text: &str, delims: &Delimiters) -> Vec<(Range<usize>, usize)> {
    let mut out = Vec::new();
    for (segment, seg) in delims
        .hard
        .scan(text, DelimiterPolicy::Drop)
        .pieces
        .into_iter()
        .enumerate()
    {
        for piece in delims
            .soft
            .scan(&text[seg.clone()], DelimiterPolicy::Drop)
            .pieces
        {
            if !piece.is_empty() {
                out.push((seg.start + piece.start..seg.start + piece.end, segment));
            }
        }
    }
    out
}

/// Pieces found and tokenized with an embedded encoding, in parallel.
///
/// # Errors
/// [`Error::TextTooLarge`] for texts of 4 GiB or more.
pub fn tokenized_pieces(text: &str, delims: &Delimiters, encoding: Encoding) -> Result<Vec<Piece>> {
    check_len(text)?;
    find_pieces(text, delims)
        .into_par_iter()
        .map(|(range, segment)| {
            let token_starts = encoding.encode(&text[range.clone()])?.byte_starts;
            Ok(Piece {
                range,
                segment,
                token_starts,
            })
        })
        .collect()
}

/// Where each piece's tokens start in the document-wide token index space.
fn token_bases(pieces: &[Piece]) -> Vec<u64> {
    let mut bases = Vec::with_capacity(pieces.len() + 1);
    let mut at = 0u64;
    for p in pieces {
        bases.push(at);
        at += p.token_starts.len() as u64;
    }
    bases.push(at);
    bases
}

/// The last `want` tokens of `group` as byte spans, starting at a character
/// boundary (moving later, so never more than `want`), and how many they are.
fn overlap_spans(
    text: &str,
    pieces: &[Piece],
    group: Range<usize>,
    want: u64,
) -> (Vec<Range<usize>>, u64) {
    let tokens: Vec<(usize, usize)> = pieces[group.clone()]
        .iter()
        .enumerate()
        .flat_map(|(j, p)| {
            p.token_starts
                .iter()
                .map(move |&s| (group.start + j, p.range.start + s as usize))
        })
        .collect();
    let mut first = tokens.len().saturating_sub(want as usize);
    while first < tokens.len() && !text.is_char_boundary(tokens[first].1) {
        first += 1;
    }
    let Some(&(piece, at)) = tokens.get(first) else {
        return (Vec::new(), 0);
    };
    let spans = std::iter::once(at..pieces[piece].range.end)
        .chain(pieces[piece + 1..group.end].iter().map(|p| p.range.clone()))
        .collect();
    (spans, (tokens.len() - first) as u64)
}

/// Children of one piece: its text between child-delimiter matches; a child's
/// tokens are the piece's tokens that start inside it.
fn children_of(text: &str, piece: &Piece, base: u64, child: &DelimiterSet) -> Vec<Child> {
    if child.is_empty() {
        return Vec::new();
    }
    let local = &text[piece.range.clone()];
    child
        .scan(local, DelimiterPolicy::Drop)
        .pieces
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| {
            let first = piece
                .token_starts
                .partition_point(|&s| (s as usize) < r.start);
            let end = piece
                .token_starts
                .partition_point(|&s| (s as usize) < r.end);
            Child {
                range: piece.range.start + r.start..piece.range.start + r.end,
                token_start: base + first as u64,
                token_end: base + end as u64,
            }
        })
        .collect()
}

/// Merges tokenized pieces into chunks by the contract.
pub fn merge_pieces(
    text: &str,
    pieces: &[Piece],
    config: ContractConfig,
    child: &DelimiterSet,
) -> Vec<ContractChunk> {
    let bases = token_bases(pieces);
    let cap = config.token_size as f64;
    let threshold = cap * (100 - config.overlap_percent) as f64 / 100.0;
    let mut out = Vec::new();
    let mut seg_start = 0;
    while seg_start < pieces.len() {
        let segment = pieces[seg_start].segment;
        let seg_end = seg_start
            + pieces[seg_start..]
                .iter()
                .take_while(|p| p.segment == segment)
                .count();
        let sizes: Vec<u64> = pieces[seg_start..seg_end]
            .iter()
            .map(|p| p.token_starts.len() as u64)
            .collect();
        let mut prev: Option<(Range<usize>, u64)> = None;
        for group in merge(&sizes, cap, config.strategy, threshold) {
            let range = seg_start + group.pieces.start..seg_start + group.pieces.end;
            let mut want = prev
                .as_ref()
                .map_or(0, |(_, tokens)| tokens * config.overlap_percent / 100);
            if config.strategy == MergeStrategy::UnderCap {
                want = want.min(config.token_size.saturating_sub(group.tokens));
            }
            let (mut spans, overlap) = match &prev {
                Some((prev_range, _)) if want > 0 => {
                    overlap_spans(text, pieces, prev_range.clone(), want)
                }
                _ => (Vec::new(), 0),
            };
            let overlap_spans = spans.len();
            spans.extend(pieces[range.clone()].iter().map(|p| p.range.clone()));
            let children = pieces[range.clone()]
                .iter()
                .zip(&bases[range.clone()])
                .flat_map(|(p, &base)| children_of(text, p, base, child))
                .collect();
            out.push(ContractChunk {
                spans,
                overlap_spans,
                token_start: bases[range.start] - overlap,
                token_end: bases[range.end],
                overlap_tokens: overlap,
                oversize: group.oversize,
                children,
            });
            prev = Some((range, group.tokens));
        }
        seg_start = seg_end;
    }
    out
}

/// Chunks flattened for the boundary, with code-point offsets added:
/// `chunks` rows are `token_start, token_end, overlap_tokens, oversize, overlap_spans`;
/// `spans` rows `chunk, byte_start, byte_end, char_start, char_end`;
/// `children` rows `chunk, byte_start, byte_end, char_start, char_end, token_start, token_end`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContractRows {
    pub chunks: Vec<[u64; 5]>,
    pub spans: Vec<[u64; 5]>,
    pub children: Vec<[u64; 7]>,
}

/// Flattens chunks into [`ContractRows`], converting every offset in one pass.
///
/// # Errors
/// Only if a span is not on character boundaries, which the merge rules out.
pub fn contract_rows(text: &str, chunks: &[ContractChunk]) -> Result<ContractRows> {
    let map = CharMap::new(
        text,
        chunks.iter().flat_map(|c| {
            c.spans
                .iter()
                .chain(c.children.iter().map(|k| &k.range))
                .flat_map(|r| [r.start, r.end])
        }),
    )?;
    let mut rows = ContractRows::default();
    for (i, c) in chunks.iter().enumerate() {
        let i = i as u64;
        rows.chunks.push([
            c.token_start,
            c.token_end,
            c.overlap_tokens,
            u64::from(c.oversize),
            c.overlap_spans as u64,
        ]);
        for r in &c.spans {
            let (a, b) = (r.start, r.end);
            rows.spans
                .push([i, a as u64, b as u64, map.char_of(a), map.char_of(b)]);
        }
        for k in &c.children {
            let (a, b) = (k.range.start, k.range.end);
            rows.children.push([
                i,
                a as u64,
                b as u64,
                map.char_of(a),
                map.char_of(b),
                k.token_start,
                k.token_end,
            ]);
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delims(hard: &[&str], soft: &[&str], child: &[&str]) -> Delimiters {
        Delimiters {
            hard: DelimiterSet::new(hard).unwrap(),
            soft: DelimiterSet::new(soft).unwrap(),
            child: DelimiterSet::new(child).unwrap(),
        }
    }

    fn run(
        text: &str,
        d: &Delimiters,
        size: i64,
        strategy: MergeStrategy,
        overlap: i64,
    ) -> Vec<String> {
        let pieces = tokenized_pieces(text, d, Encoding::Cl100kBase).unwrap();
        let cfg = ContractConfig::new(size, strategy, overlap).unwrap();
        merge_pieces(text, &pieces, cfg, &d.child)
            .iter()
            .map(|c| c.spans.iter().map(|s| &text[s.clone()]).collect())
            .collect()
    }

    #[test]
    fn consecutive_delimiters_lose_no_text() {
        let d = delims(&["##"], &[], &[]);
        assert_eq!(
            run("A####B", &d, 10, MergeStrategy::OverCap, 0),
            vec!["A", "B"]
        );
        let d = delims(&[], &["##"], &[]);
        assert_eq!(run("A####B", &d, 10, MergeStrategy::OverCap, 0), vec!["AB"]);
    }

    #[test]
    fn whitespace_delimiters_are_honoured() {
        let d = delims(&[], &[" "], &[]);
        assert_eq!(
            run(" a  b ", &d, 1, MergeStrategy::UnderCap, 0),
            vec!["a", "b"]
        );
    }

    #[test]
    fn under_cap_is_a_cap_and_overlap_does_not_cascade() {
        let d = delims(&[], &["\n"], &[]);
        let text = "one two three\nfour five six\nseven eight nine";
        assert_eq!(
            run(text, &d, 4, MergeStrategy::UnderCap, 0),
            vec!["one two three", "four five six", "seven eight nine"]
        );
        // Threshold 6 * 50% = 3: the second piece still joins (3 is not > 3).
        assert_eq!(
            run(text, &d, 6, MergeStrategy::OverCap, 50),
            vec![
                "one two threefour five six",
                "four five sixseven eight nine"
            ]
        );
        // One overlap token (3 * 34 / 100), taken from the previous chunk's own piece.
        assert_eq!(
            run(text, &d, 3, MergeStrategy::OverCap, 34),
            vec![
                "one two three",
                " threefour five six",
                " sixseven eight nine"
            ]
        );
        // UNDER_CAP leaves no room for overlap when the content fills the cap.
        assert_eq!(
            run(text, &d, 3, MergeStrategy::UnderCap, 34),
            vec!["one two three", "four five six", "seven eight nine"]
        );
    }

    #[test]
    fn children_are_inside_their_parent() {
        let d = delims(&[], &["\n"], &["|"]);
        let text = "a|b\nc";
        let pieces = tokenized_pieces(text, &d, Encoding::Cl100kBase).unwrap();
        let cfg = ContractConfig::new(100, MergeStrategy::OverCap, 0).unwrap();
        let chunks = merge_pieces(text, &pieces, cfg, &d.child);
        let kids: Vec<&str> = chunks[0]
            .children
            .iter()
            .map(|c| &text[c.range.clone()])
            .collect();
        assert_eq!(kids, vec!["a", "b", "c"]);
    }
}
