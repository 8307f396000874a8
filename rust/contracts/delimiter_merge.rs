//! `DelimiterMerge`: RAGFlow's delimiter merge, done right.
//!
//! - Hard delimiters cut the text into segments; chunks never cross them.
//! - Soft delimiters cut segments into pieces; pieces merge by token count.
//! - Delimiter text never enters a chunk: a chunk is its pieces' byte spans,
//!   joined by `joiner` (so every span slices back into the text).
//! - Each piece is tokenized once, on its own; a chunk's tokens are its pieces'
//!   tokens, and token indices run over the concatenated piece tokenizations.
//! - UNDER_CAP never exceeds `token_size` (a lone oversize piece is flagged);
//!   OVER_CAP fills to `token_size * (100 - overlap) / 100` and takes one more.
//! - Overlap is the last whole tokens of the previous chunk's own pieces (never
//!   its overlap, so it does not cascade), cut only at a character boundary.
//!
//! Streaming: a delimiter match is final once the text holds the longest
//! delimiter's length past its start (a leftmost-longest match can only change
//! there); a piece is final once the match that ends it is. The carry is the
//! previous chunk's pieces (for the overlap), the open chunk and the piece being
//! read: a piece is never cut, so the longest piece bounds it.

use std::collections::VecDeque;
use std::ops::Range;

use super::merge::{Group, MergeStrategy, Packer};
use super::{Cutter, Input, PieceTokens, Row};
use crate::error::{Error, Result};
use crate::text::scan::{DelimiterPolicy, DelimiterSet};

/// Validated settings of a `DelimiterMerge`.
#[derive(Clone, Debug)]
pub struct DelimiterConfig {
    token_size: u64,
    strategy: MergeStrategy,
    overlap_percent: u64,
    hard: Vec<String>,
    soft: Vec<String>,
    child: Vec<String>,
    joiner: String,
}

impl DelimiterConfig {
    /// # Errors
    /// [`Error::InvalidConfig`] when `token_size < 1` or the overlap is outside 0..=90.
    pub fn new(
        token_size: u64,
        strategy: MergeStrategy,
        overlap_percent: u64,
        delimiters: [Vec<String>; 3],
        joiner: String,
    ) -> Result<Self> {
        if token_size < 1 {
            return Err(Error::InvalidConfig {
                field: "token_size",
                value: token_size.to_string(),
                expected: "an integer >= 1",
            });
        }
        if overlap_percent > 90 {
            return Err(Error::InvalidConfig {
                field: "overlap",
                value: overlap_percent.to_string(),
                expected: "a percentage from 0 to 90",
            });
        }
        let [hard, soft, child] = delimiters;
        Ok(DelimiterConfig {
            token_size,
            strategy,
            overlap_percent,
            hard,
            soft,
            child,
            joiner,
        })
    }
}

/// A final piece: its byte range and where its tokens start (relative to it).
#[derive(Clone, Debug)]
struct Piece {
    range: Range<usize>,
    token_starts: Vec<u32>,
    /// The index of its first token over all pieces.
    base: u64,
}

/// A scanned delimiter set and its longest literal, in bytes.
struct Scanner {
    set: DelimiterSet,
    longest: usize,
}

impl Scanner {
    fn new(delimiters: &[String]) -> Result<Self> {
        Ok(Scanner {
            set: DelimiterSet::new(delimiters)?,
            longest: delimiters.iter().map(String::len).max().unwrap_or(0),
        })
    }

    /// The first match in `input` from `from` that more text cannot change,
    /// searching up to `to`. `Ok(None)` means no match before `safe`, where
    /// `safe` is the first position whose match could still change.
    fn next(&self, input: &Input<'_>, from: usize, to: usize, final_to: bool) -> Found {
        let hay = input.slice(from, to);
        let mut safe = if final_to {
            to
        } else {
            (to + 1).saturating_sub(self.longest.max(1)).max(from)
        };
        while !input.is_char_boundary(safe) {
            safe -= 1; // still no match starts before it
        }
        match self.set.find(hay) {
            Some(m) if final_to || from + m.start + self.longest <= to => {
                Found::Match(from + m.start..from + m.end)
            }
            Some(_) => Found::NotBefore(safe),
            None if final_to => Found::None,
            None => Found::NotBefore(safe),
        }
    }
}

enum Found {
    Match(Range<usize>),
    /// No match is final yet; none starts before this byte.
    NotBefore(usize),
    None,
}

/// Finds the pieces: the text between soft delimiters, inside the segments
/// between hard delimiters.
struct PieceScanner {
    hard: Scanner,
    soft: Scanner,
    /// The next piece starts here, inside the segment that ends at `seg_end`
    /// (once its hard delimiter is found).
    piece_from: usize,
    seg_end: Option<Range<usize>>,
}

impl PieceScanner {
    fn new(cfg: &DelimiterConfig) -> Result<Self> {
        Ok(PieceScanner {
            hard: Scanner::new(&cfg.hard)?,
            soft: Scanner::new(&cfg.soft)?,
            piece_from: 0,
            seg_end: None,
        })
    }

    /// The next step of the scan: a final piece (possibly empty), the end of a
    /// segment, or nothing yet.
    fn next(&mut self, input: &Input<'_>) -> Scan {
        let end = input.end();
        let seg = match &self.seg_end {
            Some(r) => r.clone(),
            None => match self.hard.next(input, self.piece_from, end, input.done) {
                Found::Match(m) => {
                    self.seg_end = Some(m.clone());
                    m
                }
                Found::None => {
                    self.seg_end = Some(end..end);
                    end..end
                }
                // The segment goes on past what is known; soft matches before
                // `not_before` are final regardless.
                Found::NotBefore(not_before) => {
                    return match self.soft.next(input, self.piece_from, not_before, false) {
                        Found::Match(m) => Scan::Piece(self.piece_from..m.start, m.end),
                        _ => Scan::Wait,
                    };
                }
            },
        };
        match self.soft.next(input, self.piece_from, seg.start, true) {
            Found::Match(m) => Scan::Piece(self.piece_from..m.start, m.end),
            _ => Scan::SegmentEnd(self.piece_from..seg.start, seg.end),
        }
    }

    /// Moves past a piece (`Scan::Piece`) or a segment (`Scan::SegmentEnd`).
    fn advance(&mut self, next: usize, segment_ended: bool) {
        self.piece_from = next;
        if segment_ended {
            self.seg_end = None;
        }
    }
}

/// The non-empty pieces of a whole text, in order: what a Python tokenizer is
/// given to tokenize, one by one, for this contract.
///
/// # Errors
/// Delimiter sets too large to compile.
pub fn pieces(text: &str, cfg: &DelimiterConfig) -> Result<Vec<Range<usize>>> {
    let mut scanner = PieceScanner::new(cfg)?;
    let input = Input {
        text,
        base: 0,
        starts: &[],
        token_base: 0,
        tokens_end: text.len(),
        done: true,
        words: &[],
    };
    let mut out = Vec::new();
    loop {
        match scanner.next(&input) {
            Scan::Piece(piece, next) => {
                out.extend(Some(piece).filter(|p| !p.is_empty()));
                scanner.advance(next, false);
            }
            Scan::SegmentEnd(piece, next) => {
                out.extend(Some(piece).filter(|p| !p.is_empty()));
                scanner.advance(next, true);
                if next >= text.len() {
                    return Ok(out);
                }
            }
            Scan::Wait => return Ok(out), // unreachable with the whole text
        }
    }
}

/// The `DelimiterMerge` cutter.
pub struct DelimiterMerge {
    cfg: DelimiterConfig,
    scanner: PieceScanner,
    child: DelimiterSet,
    tokens: PieceTokens,
    /// Given token lists consumed so far: (lists, starts).
    given_at: (usize, usize),
    /// The previous chunk's pieces (for the overlap), then the open chunk's.
    pieces: VecDeque<Piece>,
    /// How many of `pieces` belong to the previous chunk, and its token count.
    prev: Option<(usize, u64)>,
    packer: Packer,
    /// The packer's index of `pieces[prev_len]` (the open chunk's first piece).
    packer_base: usize,
    tokens_total: u64,
    index: u64,
    finished: bool,
}

impl DelimiterMerge {
    /// # Errors
    /// Delimiter sets too large to compile.
    pub fn new(cfg: DelimiterConfig, tokens: PieceTokens) -> Result<Self> {
        let packer = new_packer(&cfg);
        Ok(DelimiterMerge {
            scanner: PieceScanner::new(&cfg)?,
            child: DelimiterSet::new(&cfg.child)?,
            cfg,
            tokens,
            given_at: (0, 0),
            pieces: VecDeque::new(),
            prev: None,
            packer,
            packer_base: 0,
            tokens_total: 0,
            index: 0,
            finished: false,
        })
    }

    /// The token starts of one piece.
    fn tokenize(&mut self, piece: &str) -> Result<Vec<u32>> {
        match &self.tokens {
            PieceTokens::Embedded(tok) => Ok(tok.token_starts(piece)?.into_iter().collect()),
            PieceTokens::Hf(tok) => Ok(tok.encode(piece)?.byte_starts.into_iter().collect()),
            PieceTokens::Given { starts, counts } => {
                let (list, at) = self.given_at;
                let Some(&count) = counts.get(list) else {
                    return Err(Error::InvalidOffsets {
                        index: list,
                        value: 0,
                        reason: format!(
                            "the tokenizer gave {} token lists but the text has more pieces",
                            counts.len()
                        ),
                    });
                };
                let end = at + count as usize;
                let Some(mine) = starts.get(at..end) else {
                    return Err(Error::InvalidOffsets {
                        index: list,
                        value: count.into(),
                        reason: format!(
                            "token counts add up past the {} starts given",
                            starts.len()
                        ),
                    });
                };
                crate::text::offsets::validate_starts(mine, piece.len())?;
                self.given_at = (list + 1, end);
                Ok(mine.to_vec())
            }
            PieceTokens::Counted(_) => Err(Error::InvalidConfig {
                field: "tokens",
                value: "a count without per-piece tokens".into(),
                expected: "per-piece starts and counts for a delimiter contract",
            }),
        }
    }

    fn add_piece(
        &mut self,
        input: &Input<'_>,
        range: Range<usize>,
        out: &mut Vec<Row>,
    ) -> Result<()> {
        if range.is_empty() {
            return Ok(());
        }
        let token_starts = self.tokenize(input.slice(range.start, range.end))?;
        let size = token_starts.len() as u64;
        self.pieces.push_back(Piece {
            range,
            token_starts,
            base: self.tokens_total,
        });
        self.tokens_total += size;
        let mut closed = Vec::new();
        self.packer.push(size, &mut closed);
        for group in closed {
            self.emit(input, &group, out);
        }
        Ok(())
    }

    fn end_segment(&mut self, input: &Input<'_>, out: &mut Vec<Row>) {
        let mut closed = Vec::new();
        self.packer.finish(&mut closed);
        for group in closed {
            self.emit(input, &group, out);
        }
        self.pieces.clear();
        self.prev = None;
        self.packer = new_packer(&self.cfg);
        self.packer_base = 0;
    }

    /// Emits a closed group (packer indices) and makes it the previous chunk.
    fn emit(&mut self, input: &Input<'_>, group: &Group, out: &mut Vec<Row>) {
        let prev_len = self.prev.map_or(0, |(len, _)| len);
        let own = prev_len + (group.pieces.start - self.packer_base)
            ..prev_len + (group.pieces.end - self.packer_base);
        let mut want = self
            .prev
            .map_or(0, |(_, tokens)| tokens * self.cfg.overlap_percent / 100);
        if self.cfg.strategy == MergeStrategy::UnderCap {
            want = want.min(self.cfg.token_size.saturating_sub(group.tokens));
        }
        let (mut spans, overlap) = if want > 0 && prev_len > 0 {
            overlap_spans(input, self.pieces.range(..prev_len), want)
        } else {
            (Vec::new(), 0)
        };
        let overlap_spans = spans.len() as u64;
        spans.extend(self.pieces.range(own.clone()).map(|p| p.range.clone()));
        let first = &self.pieces[own.start];
        let last = &self.pieces[own.end - 1];
        let token_end = last.base + last.token_starts.len() as u64;
        out.push(Row {
            index: self.index,
            token_start: first.base - overlap,
            token_end,
            byte_start: spans[0].start,
            byte_end: last.range.end,
            oversize: group.oversize,
            overlap_tokens: overlap,
            spans,
            overlap_spans,
            ..Row::default()
        });
        let mut child_index = 0;
        for piece in self.pieces.range(own.clone()) {
            children_of(input, piece, &self.child, self.index, &mut child_index, out);
        }
        self.index += 1;
        // The group becomes the previous chunk; older pieces are no longer needed.
        self.pieces.drain(..own.start);
        self.prev = Some((own.len(), group.tokens));
        self.packer_base = group.pieces.end;
    }
}

enum Scan {
    /// A final piece (possibly empty) and where the next one starts.
    Piece(Range<usize>, usize),
    /// The segment's last piece, and where the next segment starts.
    SegmentEnd(Range<usize>, usize),
    Wait,
}

fn new_packer(cfg: &DelimiterConfig) -> Packer {
    let cap = cfg.token_size as f64;
    let threshold = cap * (100 - cfg.overlap_percent) as f64 / 100.0;
    Packer::new(cap, cfg.strategy, threshold)
}

/// The last `want` tokens of `group` as byte spans, starting at a character
/// boundary (moving later, so never more than `want`), and how many they are.
fn overlap_spans<'p>(
    input: &Input<'_>,
    group: impl Iterator<Item = &'p Piece> + Clone,
    want: u64,
) -> (Vec<Range<usize>>, u64) {
    let total: u64 = group.clone().map(|p| p.token_starts.len() as u64).sum();
    let mut skip = total.saturating_sub(want);
    let mut spans = Vec::new();
    let mut taken = 0;
    for p in group {
        let n = p.token_starts.len() as u64;
        if spans.is_empty() {
            if skip >= n {
                skip -= n;
                continue;
            }
            // The first overlap token of this piece that starts a character.
            let from = p.token_starts[skip as usize..]
                .iter()
                .position(|&s| input.is_char_boundary(p.range.start + s as usize));
            let Some(k) = from else {
                skip = 0; // none here: the overlap starts with the next piece
                continue;
            };
            let at = p.range.start + p.token_starts[skip as usize + k] as usize;
            taken += n - skip - k as u64;
            spans.push(at..p.range.end);
            skip = 0;
        } else {
            taken += n;
            spans.push(p.range.clone());
        }
    }
    (spans, taken)
}

/// Children of one piece: its text between child-delimiter matches; a child's
/// tokens are the piece's tokens that start inside it.
fn children_of(
    input: &Input<'_>,
    piece: &Piece,
    child: &DelimiterSet,
    parent: u64,
    index: &mut u64,
    out: &mut Vec<Row>,
) {
    if child.is_empty() {
        return;
    }
    let local = input.slice(piece.range.start, piece.range.end);
    for r in child.scan(local, DelimiterPolicy::Drop).pieces {
        if r.is_empty() {
            continue;
        }
        let first = piece
            .token_starts
            .partition_point(|&s| (s as usize) < r.start);
        let end = piece
            .token_starts
            .partition_point(|&s| (s as usize) < r.end);
        out.push(Row {
            index: *index,
            parent: Some(parent),
            token_start: piece.base + first as u64,
            token_end: piece.base + end as u64,
            byte_start: piece.range.start + r.start,
            byte_end: piece.range.start + r.end,
            ..Row::default()
        });
        *index += 1;
    }
}

impl Cutter for DelimiterMerge {
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()> {
        while !self.finished {
            match self.scanner.next(input) {
                Scan::Wait => return Ok(()),
                Scan::Piece(piece, next) => {
                    self.add_piece(input, piece, out)?;
                    self.scanner.advance(next, false);
                }
                Scan::SegmentEnd(piece, next) => {
                    self.add_piece(input, piece, out)?;
                    self.end_segment(input, out);
                    self.scanner.advance(next, true);
                    if next >= input.end() && input.done {
                        self.finished = true;
                        if let PieceTokens::Given { counts, .. } = &self.tokens {
                            if self.given_at.0 != counts.len() {
                                return Err(Error::InvalidOffsets {
                                    index: self.given_at.0,
                                    value: counts.len() as u64,
                                    reason: "the tokenizer gave more token lists than the text has pieces".into(),
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn keep(&self) -> (usize, usize) {
        let byte = self.pieces.front().map_or(self.scanner.piece_from, |p| {
            p.range.start.min(self.scanner.piece_from)
        });
        (byte, 0)
    }

    fn wants_tokens(&self) -> bool {
        false
    }

    fn joiner(&self) -> &str {
        &self.cfg.joiner
    }
}
