//! `TokenChunker`, `SentenceChunker` and `RecursiveChunker` (`@voltagent/rag` 1.0.2)
//! for whole-number options and the default tokenizer, quirks included.
//!
//! Every chunk is a [`Row`] of numbers: its content is a range of the input's UTF-16
//! units, so Python slices the text itself (a drifted offset may cut a surrogate pair,
//! which a Rust `String` cannot hold) and builds upstream's dicts. Options that JS reads
//! in fractions, and injected tokenizers, stay on the general path in Python.

use super::js::{line_col, line_map, paragraphs, sentences, Segment};
use super::tokenizer::JsText;
use crate::error::Result;

/// What a row is, which decides the dict Python builds for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i64)]
pub enum Kind {
    /// A `TokenChunker` window: `a`, `b` are `tokenStart`, `tokenEnd`.
    Window = 0,
    /// A `SentenceChunker` group: `a`, `b` are `chunkIndex`, `sentenceCount`.
    Group = 1,
    /// A `RecursiveChunker` paragraph within budget.
    Paragraph = 2,
    /// A sentence group of an oversized paragraph (`a`, `b` as for `Group`).
    ParagraphGroup = 3,
    /// A token window of an oversized group (`a`, `b` as for `Window`).
    GroupWindow = 4,
    /// An overlap chunk between two recursive chunks; `id` is the left one's index.
    Overlap = 5,
}

/// One chunk, as numbers. `content` is a range of the input's units; `start` and `end`
/// are what upstream reports, which need not be the content's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub kind: Kind,
    pub id: i64,
    pub content: (usize, usize),
    pub start: u64,
    pub end: u64,
    pub tokens: i64,
    pub a: i64,
    pub b: i64,
    pub paragraph: i64,
    /// Line and column of `start`, then of `end`.
    pub position: [u64; 4],
}

impl Row {
    /// The row as the binding's array columns.
    pub fn columns(&self) -> [i64; 14] {
        let [sl, sc, el, ec] = self.position;
        [
            self.kind as i64,
            self.id,
            self.content.0 as i64,
            self.content.1 as i64,
            self.start as i64,
            self.end as i64,
            self.tokens,
            self.a,
            self.b,
            self.paragraph,
            sl as i64,
            sc as i64,
            el as i64,
            ec as i64,
        ]
    }
}

/// How `RecursiveChunker` measures the overlap it takes from the next chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlapUnit {
    Tokens,
    Chars,
}

fn position(start: u64, end: u64, map: &[usize]) -> [u64; 4] {
    let (sl, sc) = line_col(start, map);
    let (el, ec) = line_col(end, map);
    [sl, sc, el, ec]
}

/// `js_slice(text, a, b)` as a range of `text`, which begins at unit `base`.
fn slice(base: usize, len: usize, a: u64, b: u64) -> (usize, usize) {
    let a = a.min(len as u64) as usize;
    let b = b.min(len as u64) as usize;
    if a < b {
        (base + a, base + b)
    } else {
        (base, base)
    }
}

fn token_starts(ends: &[u64]) -> impl Fn(usize) -> u64 + '_ {
    move |i| if i == 0 { 0 } else { ends[i - 1] }
}

/// §5 windows of `size` tokens advancing by `size - overlap`, over a JS string's units
/// (`utf8`: its UTF-8 form, when the caller has it).
pub fn token_windows(
    units: &[u16],
    utf8: Option<&str>,
    max_tokens: i64,
    overlap: i64,
) -> Result<Vec<Row>> {
    windows(
        &JsText::new(units, utf8)?,
        (0, units.len()),
        max_tokens,
        overlap,
    )
}

/// [`token_windows`] over the units `range` of `js`.
fn windows(
    js: &JsText<'_>,
    range: (usize, usize),
    max_tokens: i64,
    overlap: i64,
) -> Result<Vec<Row>> {
    let (base, units) = (range.0, &js.units()[range.0..range.1]);
    let size = max_tokens.max(1);
    let overlap = overlap.min(size - 1).max(0);
    let ends = js.ends(range.0, range.1)?;
    let n = ends.len() as i64;
    if n == 0 {
        return Ok(Vec::new());
    }
    let map = line_map(units);
    let starts = token_starts(&ends);
    let step = (size - overlap).max(1);
    let mut rows = Vec::new();
    let mut first = 0i64;
    loop {
        let last = (n - 1).min(first.saturating_add(size - 1));
        let (start, end) = (starts(first as usize), ends[last as usize]);
        rows.push(Row {
            kind: Kind::Window,
            id: rows.len() as i64,
            content: slice(base, units.len(), start, end),
            start,
            end,
            tokens: last - first + 1,
            a: first,
            b: last,
            paragraph: 0,
            position: position(start, end, &map),
        });
        if last == n - 1 {
            return Ok(rows);
        }
        first += step;
    }
}

/// §6 step 4: greedy packing of sentences `[first, last]`. A sentence that pushes a
/// group over `size` starts the next group after the last `keep` sentences of this
/// one; the new group is not re-checked. Groups stay runs of consecutive sentences.
fn pack(tokens: &[i64], size: i64, keep: i64) -> Vec<(usize, usize)> {
    let mut sums = vec![0i64];
    for &t in tokens {
        sums.push(sums[sums.len() - 1] + t);
    }
    let mut groups = Vec::new();
    let mut first = 0usize;
    for i in 0..tokens.len() {
        if sums[i + 1] - sums[first] > size && i > first {
            groups.push((first, i - 1));
            let carried = if keep > 0 {
                (i - first).min(keep as usize)
            } else {
                0
            };
            first = i - carried;
        }
    }
    if !tokens.is_empty() {
        groups.push((first, tokens.len() - 1));
    }
    groups
}

/// §6 sentence groups under `max_tokens`, over a JS string's units (`utf8`: its UTF-8
/// form, when the caller has it). The content is the token range between the counts of
/// the text before the group's first sentence and through its last, so it need not
/// equal its `start..end`.
pub fn sentence_groups(
    units: &[u16],
    utf8: Option<&str>,
    max_tokens: i64,
    overlap_sentences: i64,
) -> Result<Vec<Row>> {
    let js = JsText::new(units, utf8)?;
    groups(&js, (0, units.len()), max_tokens, overlap_sentences)
}

/// [`sentence_groups`] over the units `range` of `js`.
fn groups(
    js: &JsText<'_>,
    range: (usize, usize),
    max_tokens: i64,
    overlap_sentences: i64,
) -> Result<Vec<Row>> {
    let (base, units) = (range.0, &js.units()[range.0..range.1]);
    let size = max_tokens.max(1);
    let keep = overlap_sentences.max(0);
    let segments: Vec<Segment> = sentences(units);
    if segments.is_empty() {
        return Ok(Vec::new());
    }
    let counts = segments
        .iter()
        .map(|s| {
            js.count(base + s.counted.0, base + s.counted.1)
                .map(|c| c as i64)
        })
        .collect::<Result<Vec<i64>>>()?;
    let ends = js.ends(range.0, range.1)?;
    let starts = token_starts(&ends);
    let map = line_map(units);
    let groups = pack(&counts, size, keep);
    // Both prefix counts of every group, in one pass over the text.
    let mut positions: Vec<usize> = groups
        .iter()
        .flat_map(|&(f, l)| [segments[f].start, segments[l].end])
        .collect();
    positions.sort_unstable();
    positions.dedup();
    let prefix = js.prefix_counts(range.0, range.1, &positions)?;
    let before = |k: usize| prefix[positions.partition_point(|&p| p < k)] as i64;
    let n = ends.len() as i64;
    let mut rows = Vec::with_capacity(groups.len());
    for (index, &(f, l)) in groups.iter().enumerate() {
        let (start, end) = (segments[f].start, segments[l].end);
        let (first_token, last_token) = (before(start), before(end) - 1);
        let content = if n == 0 {
            (base, base)
        } else {
            let a = if first_token < n {
                starts(first_token as usize)
            } else {
                0
            };
            let last = last_token.min(n - 1);
            let b = if last >= 0 {
                ends[last as usize]
            } else {
                units.len() as u64
            };
            slice(base, units.len(), a, b)
        };
        rows.push(Row {
            kind: Kind::Group,
            id: index as i64,
            content,
            start: start as u64,
            end: end as u64,
            tokens: counts[f..=l].iter().sum(),
            a: index as i64,
            b: (l - f + 1) as i64,
            paragraph: 0,
            position: position(start as u64, end as u64, &map),
        });
    }
    Ok(rows)
}

/// §7.1 paragraphs, then sentence groups (one sentence of overlap), then token windows,
/// then an overlap chunk between neighbours. Small paragraphs are never merged.
/// `utf8` is the units' UTF-8 form, when the caller has it.
pub fn recursive_chunks(
    units: &[u16],
    utf8: Option<&str>,
    max_tokens: i64,
    overlap_tokens: i64,
    unit: OverlapUnit,
) -> Result<Vec<Row>> {
    let js = JsText::new(units, utf8)?;
    let size = max_tokens.max(1);
    let overlap = overlap_tokens.max(0);
    let mut chunks: Vec<Row> = Vec::new();
    for (index, p) in paragraphs(units).into_iter().enumerate() {
        let index = index as i64;
        let tokens = js.count(p.start, p.end)? as i64;
        if tokens <= size {
            chunks.push(Row {
                kind: Kind::Paragraph,
                id: chunks.len() as i64,
                content: (p.start, p.end),
                start: p.start as u64,
                end: p.end as u64,
                tokens,
                a: 0,
                b: 0,
                paragraph: index,
                position: [0; 4],
            });
            continue;
        }
        // Ids restart at the paragraph's first for every group (§7.4), and window
        // offsets are relative to the group's content (the §7.1 offset bug).
        let first_id = chunks.len() as i64;
        let shift = |row: Row, kind: Kind, id: i64| Row {
            kind,
            id,
            start: p.start as u64 + row.start,
            end: p.start as u64 + row.end,
            paragraph: index,
            ..row
        };
        for group in groups(&js, (p.start, p.end), size, 1)? {
            if group.tokens <= size {
                chunks.push(shift(group, Kind::ParagraphGroup, first_id));
                continue;
            }
            let (a, b) = group.content;
            for (j, window) in windows(&js, (a, b), size, overlap)?.into_iter().enumerate() {
                chunks.push(shift(window, Kind::GroupWindow, first_id + j as i64));
            }
        }
    }
    if overlap == 0 || chunks.len() < 2 {
        return Ok(chunks);
    }
    let mut out = Vec::with_capacity(2 * chunks.len());
    for (i, pair) in chunks.windows(2).enumerate() {
        out.push(pair[0]);
        let next = pair[1];
        let (a, b) = next.content;
        let take = match unit {
            OverlapUnit::Chars => overlap as u64,
            OverlapUnit::Tokens => js.end_of_first(a, b, overlap as usize)?,
        };
        let content = slice(a, b - a, 0, take);
        if content.0 < content.1 {
            let len = (content.1 - content.0) as u64;
            out.push(Row {
                kind: Kind::Overlap,
                id: i as i64,
                content,
                start: next.start,
                end: next.start + len,
                tokens: 0,
                a: 0,
                b: 0,
                paragraph: 0,
                position: [0; 4],
            });
        }
    }
    out.extend(chunks.last().copied());
    Ok(out)
}
