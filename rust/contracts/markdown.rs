//! `Markdown`: chunks that keep code, tables and sections whole, each with its
//! heading path, under one cap that counts the context.
//!
//! The structure comes from [`crate::structure::markdown`]. Chunks are cut one
//! after another from `at`, over the tokens of the one pass (a span's size is
//! the number of tokens overlapping it):
//!
//! 1. The chunk's context is its heading path (less the heading the chunk opens
//!    with) and a continued table's header and delimiter rows, shortened to
//!    half of `max_tokens` (outermost headings go first, then the table rows),
//!    and to `max_tokens` less an opening unit that fits (a heading at the start
//!    and the unit after it count as one).
//! 2. The content budget is `max_tokens - overlap_tokens - tokens(context)`, at
//!    least 1, and the room `max_tokens - tokens(context)`. If the rest of the
//!    text fits the budget, the rest is the chunk; otherwise the window is the
//!    longest span from `at` that fits, and the chunk ends at the best allowed
//!    cut point in it: the best rank (before a heading, higher levels first;
//!    after a thematic break; between blocks; between list items or table rows;
//!    at a line), then a sentence end, then a word start; the last of that rank.
//!    No cut falls inside a unit (fence, front matter, list item, table row,
//!    heading) that fits the room, nor where the chunk would end on a heading
//!    followed only by blank lines. With no allowed point the window widens to
//!    the room (less overlap follows), then the heading rule drops (units stay
//!    whole), and last the chunk ends at the window's last token boundary that
//!    is a character boundary.
//! 3. The cap: `tokens(context + text) <= max_tokens`, counted as one string;
//!    when it is over, the budget shrinks by the excess and the chunk is cut
//!    again.
//! 4. Overlap extends a chunk backwards by whole tokens within the cap, never
//!    before the previous chunk's start or its own section's heading, and never
//!    from inside a unit that ends by the chunk's start (it begins at that
//!    unit's end); a chunk that opens a section takes none.
//!
//! Streaming: the cutter keeps the text from the start of a top-level block at
//! or before the last chunk's start, with the section path there. Each time it
//! scans that text again and cuts every chunk whose decisions only read text
//! that can no longer change: before the block that holds the second-to-last
//! complete line (more text may still extend it, turn it into a setext heading,
//! or make its line a table header) and before the tokens still open. So memory is about the longest top-level block plus a few windows, and
//! the chunks are the same for every split of the input. When a try cuts
//! nothing, the next waits until the kept text has doubled, which keeps the
//! scans linear. `reference/markdown.py` is the twin, written from the same
//! description (`docs/markdown.md`).
//!
//! With content-defined boundaries (`content`, [`super::boundaries`]), the points
//! are the cut points strictly inside no unit that fits `max_tokens` and not where
//! a chunk would end on a heading; `reach` is half of `max_tokens - overlap_tokens`.
//! A chunk ends at the first anchor in its budget's window; with none, the best
//! allowed cut point is the one of the smallest key, from `reach` tokens after `at`
//! if one is allowed there. The decision reads `max_tokens` tokens past the window
//! (every point within reach, and every unit that fits), and the kept text reaches
//! `reach` tokens before the next chunk.

use std::cmp::Reverse;
use std::sync::Arc;

use super::boundaries::{self, Point, HASH_BYTES};
use super::{check_cap, Blocked, ChunkMeta, Counter, Cutter, HeadingPath, Input, Row};
use crate::error::Result;
use crate::structure::markdown::{scan_from, Heading, Outline};

/// The smallest cap: room for a heading path and some text.
pub const MIN_TOKENS: usize = 16;

/// `Markdown` settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkdownConfig {
    pub max_tokens: usize,
    pub overlap_tokens: usize,
    pub context: bool,
    /// Content-defined boundaries instead of greedy ones.
    pub content: bool,
}

impl MarkdownConfig {
    /// # Errors
    /// [`InvalidConfig`](crate::error::Error::InvalidConfig) for a cap below
    /// [`MIN_TOKENS`] or an overlap not below it.
    pub fn validate(&self) -> Result<()> {
        check_cap(
            self.max_tokens,
            self.overlap_tokens,
            MIN_TOKENS,
            "an integer >= 16",
        )
    }
}

/// The `Markdown` cutter.
pub struct Markdown {
    cfg: MarkdownConfig,
    tok: Counter,
    /// Where the kept text starts: the document's start or a top-level block's,
    /// at or before the last chunk's start; and the token that holds it.
    from: usize,
    from_token: usize,
    /// Whether no block came before `from`.
    first_block: bool,
    /// The section path at `from`.
    path: Vec<Heading>,
    /// The next chunk's start, the last chunk's start, and the next row's index.
    at: usize,
    prev: Option<usize>,
    index: u64,
    /// The kept text's length when the last try cut nothing.
    tried: usize,
}

impl Markdown {
    /// # Errors
    /// Invalid settings.
    pub fn new(cfg: MarkdownConfig, tok: Counter) -> Result<Self> {
        cfg.validate()?;
        Ok(Markdown {
            cfg,
            tok,
            from: 0,
            from_token: 0,
            first_block: true,
            path: Vec::new(),
            at: 0,
            prev: None,
            index: 0,
            tried: 0,
        })
    }
}

impl Cutter for Markdown {
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()> {
        let kept = input.end().saturating_sub(self.from);
        if self.at >= input.end() && input.done || !input.done && kept < 2 * self.tried {
            return Ok(());
        }
        let before = out.len();
        let mut run = Run::new(self, input);
        run.chunks(self, out);
        // Keep from the last block start at or before the last chunk's start (its
        // overlap may reach back to it), with the section path there; with content-
        // defined boundaries, at or before every point within reach of the next chunk.
        let mut keep = self.prev.unwrap_or(0);
        if self.cfg.content && input.n() > 0 {
            let t = input.token_at(self.at.min(input.end()));
            let back = t.saturating_sub(run.reach() + 1).max(input.token_base);
            keep = keep.min(input.bound(back));
        }
        let blocks = &run.outline.blocks;
        let k = blocks.partition_point(|&b| b <= keep);
        if k > 0 && blocks[k - 1] > self.from {
            let from = blocks[k - 1];
            for h in run.outline.headings.iter().take_while(|h| h.start < from) {
                enter_path(&mut self.path, h);
            }
            self.first_block = false;
            self.from = from;
            self.from_token = input.token_at(from);
        }
        self.tried = if out.len() == before { kept } else { 0 };
        Ok(())
    }

    fn keep(&self) -> (usize, usize) {
        (self.from, self.from_token)
    }
}

/// Adds heading `h` to a section path: it closes the open ones of its level and deeper.
fn enter_path(path: &mut Vec<Heading>, h: &Heading) {
    while path.last().is_some_and(|p| p.level >= h.level) {
        path.pop();
    }
    path.push(h.clone());
}

/// One try: the kept text's outline, and the section path as `at` moves on.
struct Run<'a> {
    cfg: MarkdownConfig,
    tok: Counter,
    input: &'a Input<'a>,
    data: &'a [u8],
    base: usize,
    outline: Outline,
    /// Units sorted by start, and by end.
    units: Vec<(usize, usize)>,
    by_end: Vec<(usize, usize)>,
    /// The section path at the current chunk start, and the next heading to enter.
    path: Vec<Heading>,
    next_heading: usize,
    /// The path shared by the chunks of one section.
    shared_path: Option<Arc<HeadingPath>>,
    /// Decisions may read text before this byte (more input cannot change it).
    limit: usize,
    /// Content-defined boundaries: every cut point with its key, and the anchors.
    points: Vec<Point>,
    anchors: Vec<usize>,
}

impl<'a> Run<'a> {
    fn new(state: &Markdown, input: &'a Input<'a>) -> Self {
        let text = &input.text[state.from - input.base..];
        let outline = scan_from(text, state.from, state.from == 0, state.first_block);
        let mut units = outline.units.clone();
        units.sort_unstable();
        let mut by_end = units.clone();
        by_end.sort_unstable_by_key(|&(a, b)| (b, a));
        // The last blocks may still grow (or become a setext heading, or a table),
        // and the last tokens may still change.
        let limit = if input.done {
            usize::MAX
        } else if outline.open_front_matter {
            state.from // a closing `---` later would make it all front matter
        } else {
            outline.settled.max(state.from).min(input.tokens_end)
        };
        Run {
            cfg: state.cfg,
            tok: state.tok.clone(),
            input,
            data: input.bytes(),
            base: input.base,
            outline,
            units,
            by_end,
            path: state.path.clone(),
            next_heading: 0,
            shared_path: None,
            limit,
            points: Vec::new(),
            anchors: Vec::new(),
        }
        .with_anchors()
    }

    fn reach(&self) -> usize {
        (self.cfg.max_tokens - self.cfg.overlap_tokens) / 2
    }

    /// The points' keys and the anchors, with content-defined boundaries.
    fn with_anchors(mut self) -> Self {
        if !self.cfg.content {
            return self;
        }
        let input = self.input;
        let end = input.end();
        self.points = self
            .outline
            .cuts
            .iter()
            .map(|&(p, (rank, level))| {
                let rank = u32::from(rank) << 8 | u32::from(level);
                Point::new(p, input.tokens_before(p), rank, self.bytes(p, end))
            })
            .collect();
        let on_heading: Vec<(usize, usize)> = self
            .outline
            .headings
            .iter()
            .map(|h| (h.end, h.end + self.blank_after(h.end)))
            .collect();
        let max = self.cfg.max_tokens;
        let mut eligible =
            boundaries::outside(&self.points, &self.units, |a, b| input.count(a, b) <= max);
        eligible.retain(|q| {
            let h = on_heading.partition_point(|z| z.0 <= q.pos);
            h == 0 || q.pos > on_heading[h - 1].1 // not where a chunk would end on a heading
        });
        let last = input.done.then(|| input.tokens_before(input.end()));
        self.anchors = boundaries::anchors(&eligible, 0, last, self.reach());
        self
    }

    /// The bytes `a..b` of the document.
    fn bytes(&self, a: usize, b: usize) -> &'a [u8] {
        &self.data[a - self.base..b - self.base]
    }

    /// Moves the section path to byte `at` (which only grows).
    fn enter(&mut self, at: usize) {
        let mut changed = false;
        while let Some(h) = self.outline.headings.get(self.next_heading) {
            if h.start > at {
                break;
            }
            enter_path(&mut self.path, h);
            self.next_heading += 1;
            changed = true;
        }
        if changed {
            self.shared_path = None;
        }
    }

    fn count(&self, s: &str) -> usize {
        self.tok.count(s)
    }

    fn opens(&self, at: usize) -> bool {
        self.path.last().is_some_and(|h| h.start == at)
    }

    /// The context of a chunk starting at `at` (the path is the one at `at`).
    fn context(&self, at: usize) -> String {
        if !self.cfg.context {
            return String::new();
        }
        let shown = if self.opens(at) {
            &self.path[..self.path.len() - 1]
        } else {
            &self.path[..]
        };
        let lines: Vec<String> = shown
            .iter()
            // A setext title's lines are joined with spaces: one heading, one context line.
            .map(|h| {
                let title = h.title.replace('\n', " ");
                format!("{} {title}\n", "#".repeat(usize::from(h.level)))
            })
            .collect();
        let tables = &self.outline.tables;
        let t = tables.partition_point(|t| t.body <= at);
        let table = match t.checked_sub(1).map(|t| tables[t]) {
            Some(t) if at < t.end => self.input.slice(t.start, t.body).to_owned(),
            _ => String::new(),
        };
        let max = self.cfg.max_tokens;
        let mut limit = max / 2;
        // A unit opening the chunk that fits max_tokens alone gets room beside its context.
        if let Some((_, tokens)) = self.opening_unit(at) {
            limit = limit.min(max - tokens);
        }
        // The outermost headings give way first; the table's header rows, which a
        // continued table needs most, only when no heading is left.
        let tables = if table.is_empty() {
            vec![String::new()]
        } else {
            vec![table, String::new()]
        };
        for rows in &tables {
            for from in 0..=lines.len() {
                let mut context = lines[from..].concat();
                if !context.is_empty() {
                    context.push('\n');
                }
                context.push_str(rows);
                if context.is_empty() || self.count(&context) <= limit {
                    return context;
                }
            }
        }
        String::new()
    }

    /// The largest unit starting at `at` that fits `max_tokens` alone: its end and
    /// tokens. A heading at `at` and the unit after it (past blank lines) count as one,
    /// so that they share a chunk whenever they fit together beside a shorter context.
    fn opening_unit(&self, at: usize) -> Option<(usize, usize)> {
        let starting = |from: usize| {
            let lo = self.units.partition_point(|u| u.0 < from);
            let hi = self.units.partition_point(|u| u.0 <= from);
            &self.units[lo..hi]
        };
        let hs = &self.outline.headings;
        let after = hs
            .get(hs.partition_point(|h| h.start < at))
            .filter(|h| h.start == at)
            .map_or(&[][..], |h| starting(h.end + self.blank_after(h.end)));
        starting(at)
            .iter()
            .chain(after)
            .map(|&(_, b)| (b, self.input.count(at, b)))
            .filter(|&(_, n)| n <= self.cfg.max_tokens)
            .max_by_key(|&(b, n)| (n, b))
    }

    /// The length of the run of spaces, tabs and line ends from `p`.
    fn blank_after(&self, p: usize) -> usize {
        self.bytes(p, self.input.end())
            .iter()
            .take_while(|&&c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
            .count()
    }

    fn joined(&self, context: &str, a: usize, b: usize) -> usize {
        self.tok.joined(context, self.input.slice(a, b))
    }

    /// The best allowed cut point in `(at, window_end]`, and how far the search
    /// read. Units that fit `room` stay whole; `strict`: no chunk ends on a
    /// heading either.
    fn best(
        &self,
        at: usize,
        window_end: usize,
        room: usize,
        strict: bool,
    ) -> (Option<usize>, usize) {
        let input = self.input;
        let first = input.token_at(at);
        // A unit that fits the room and holds a point after `at` starts at most `room`
        // tokens before `at`'s token.
        let lo = input.bound(first.saturating_sub(room));
        let from = self.units.partition_point(|u| u.0 < lo);
        let to = self.units.partition_point(|u| u.0 < window_end);
        // A unit starting after `at` that fits max_tokens gets its own chunk, whose
        // context is shortened to make room for it (see `context`).
        let blocked = Blocked::new(&self.units[from..to], input, at, room, self.cfg.max_tokens);
        // Points where the chunk would end on a heading: from a heading's end through
        // the blank lines after it.
        let mut read = window_end;
        let mut after_heading: Vec<(usize, usize)> = Vec::new();
        if strict {
            let hs = &self.outline.headings;
            let h_from = hs.partition_point(|h| h.start < at);
            for h in hs[h_from..].iter().take_while(|h| h.start < window_end) {
                if h.end <= window_end {
                    let blank = self.blank_after(h.end);
                    after_heading.push((h.end, h.end + blank));
                    read = read.max(h.end + blank + 1);
                }
            }
        }
        let allowed = |p: usize| -> bool {
            if !blocked.allows(p) {
                return false;
            }
            let k = after_heading.partition_point(|z| z.0 <= p);
            !(k > 0 && p <= after_heading[k - 1].1)
        };
        let cuts = &self.outline.cuts;
        let c_from = cuts.partition_point(|c| c.0 <= at);
        let c_to = cuts.partition_point(|c| c.0 <= window_end);
        if self.cfg.content {
            let late = first + self.reach();
            let best = self.points[c_from..c_to]
                .iter()
                .filter(|q| allowed(q.pos))
                .min_by_key(|q| (Reverse(q.t >= late), q.key()));
            if let Some(q) = best {
                return (Some(q.pos), read);
            }
        } else {
            let mut ranked: Vec<(usize, (u8, u8))> = cuts[c_from..c_to].to_vec();
            ranked.sort_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)));
            if let Some(&(p, _)) = ranked.iter().find(|&&(p, _)| allowed(p)) {
                return (Some(p), read);
            }
        }
        // Sentences and words are looked for only when no structural point will do.
        let window = self.bytes(at, window_end);
        for found in [sentence_ends(window), word_starts(window)] {
            if let Some(p) = found.iter().rev().map(|&p| at + p).find(|&p| allowed(p)) {
                return (Some(p), read);
            }
        }
        (None, read)
    }

    /// Where the chunk from `at` ends, and how far the decision read; None while it
    /// needs text that has not come yet. `budget` is the room for content with the
    /// overlap reserved, `room` without it: a unit that fits `room` but not the
    /// budget is kept whole by taking the overlap's room (less overlap follows).
    fn chunk_end(&self, at: usize, budget: usize, room: usize) -> Option<(usize, usize)> {
        let input = self.input;
        let end = input.end();
        let first = input.token_at(at);
        let mut read = at;
        if self.cfg.content {
            // The first anchor in the window, decided from every point within reach of
            // it and every unit that fits.
            let x = if first + budget < input.n() {
                input.bound(first + budget)
            } else if input.done {
                end
            } else {
                return None;
            };
            let ahead = first + budget + self.cfg.max_tokens + 1;
            read = if ahead < input.n() {
                input.bound(ahead) + HASH_BYTES
            } else if input.done {
                end
            } else {
                return None;
            };
            let k = self.anchors.partition_point(|&a| a <= at);
            if let Some(&a) = self.anchors.get(k).filter(|&&a| a <= x) {
                return Some((a, read));
            }
        }
        // Before a heading may end a chunk, the wider window is tried; before units
        // may be cut, the heading rule is dropped.
        let sizes: &[usize] = if room > budget {
            &[budget, room]
        } else {
            &[budget]
        };
        for strict in [true, false] {
            for &size in sizes {
                if first + size >= input.n() {
                    // The rest fits, if nothing more comes.
                    return input.done.then_some((end, end));
                }
                let (p, seen) = self.best(at, input.bound(first + size), room, strict);
                read = read.max(seen);
                if let Some(p) = p {
                    return Some((p, read));
                }
            }
        }
        input
            .char_cut(at, first, first + budget)
            .map(|b| (b, read.max(b)))
            .or(input.done.then_some((end, end)))
    }

    /// `start` moved forward past every unit that holds it strictly and ends at or
    /// before `at`: an overlap never begins inside a fence, a table row or a list item.
    fn past_units(&self, mut start: usize, at: usize) -> usize {
        loop {
            let lo = self.by_end.partition_point(|u| u.1 <= start);
            let hi = self.by_end.partition_point(|u| u.1 <= at);
            let end = self.by_end[lo..hi]
                .iter()
                .filter(|u| u.0 < start)
                .map(|u| u.1)
                .max();
            match end {
                Some(end) => start = end,
                None => return start,
            }
        }
    }

    /// `at` moved back by `k` whole tokens, not before `lower`, then forward to a
    /// character boundary.
    fn back(&self, at: usize, k: usize, lower: usize) -> usize {
        let input = self.input;
        let first = input.token_at(at);
        let target = if first >= k {
            input.bound(first - k)
        } else {
            0
        };
        input.char_start(target.max(lower), at)
    }

    fn meta(&mut self, context: String) -> Arc<ChunkMeta> {
        let path = match &self.shared_path {
            Some(p) => Arc::clone(p),
            None => {
                let p: Arc<HeadingPath> = Arc::new(
                    self.path
                        .iter()
                        .map(|h| (h.level, h.title.clone()))
                        .collect(),
                );
                self.shared_path = Some(Arc::clone(&p));
                p
            }
        };
        let truncated = self.path.iter().any(|h| h.truncated);
        Arc::new(ChunkMeta {
            headings: path,
            headings_truncated: truncated,
            context,
            ..ChunkMeta::default()
        })
    }

    /// Cuts chunks from `state.at` while their decisions only read settled text.
    fn chunks(&mut self, state: &mut Markdown, out: &mut Vec<Row>) {
        let input = self.input;
        let (max, overlap) = (self.cfg.max_tokens, self.cfg.overlap_tokens);
        let end = input.end();
        while state.at < end {
            let at = state.at;
            self.enter(at);
            let mut context = self.context(at);
            let context_tokens = self.count(&context);
            let mut budget = max.saturating_sub(overlap + context_tokens).max(1);
            let mut room = budget.max(max.saturating_sub(context_tokens));
            // The context depends on the whole of a unit that opens the chunk.
            let mut read = self.opening_unit(at).map_or(at, |(b, _)| b);
            // Each count of context + text is a tokenization: keep the one that holds.
            let (cut, mut joined) = loop {
                let Some((cut, seen)) = self.chunk_end(at, budget, room) else {
                    return;
                };
                read = read.max(seen);
                let joined = self.joined(&context, at, cut);
                if joined <= max || room == 1 {
                    break (cut, joined);
                }
                budget = budget.saturating_sub(joined - max).max(1);
                room = budget.max(room.saturating_sub(joined - max));
            };
            let mut start = at;
            if let Some(prev) = state.prev.filter(|_| overlap > 0 && !self.opens(at)) {
                let section = self.path.last().map_or(0, |h| h.start);
                let lower = prev.max(section);
                let mut k = overlap.min(max.saturating_sub(input.count(at, cut)));
                while k > 0 {
                    start = self.past_units(self.back(at, k, lower), at);
                    if start == at {
                        break;
                    }
                    let ctx = self.context(start);
                    read = read.max(self.opening_unit(start).map_or(at, |(b, _)| b));
                    let with_overlap = self.joined(&ctx, start, cut);
                    if with_overlap <= max {
                        (context, joined) = (ctx, with_overlap);
                        break;
                    }
                    k -= 1;
                }
                if k == 0 {
                    start = at;
                }
            }
            if read >= self.limit || cut >= self.limit {
                return; // more text could change this chunk
            }
            let count = input.count(start, cut);
            let oversize = count > max || joined > max;
            let token_start = if input.n() == 0 {
                0
            } else {
                input.token_at(start)
            };
            let meta = self.meta(context);
            out.push(Row {
                index: state.index,
                token_start: token_start as u64,
                token_end: (token_start + count) as u64,
                byte_start: start,
                byte_end: cut,
                oversize,
                meta: Some(meta),
                ..Row::default()
            });
            state.index += 1;
            state.prev = Some(at);
            state.at = cut;
        }
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn starts_text(b: u8) -> bool {
    !matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Where sentences start in `data`: after `.`, `!` or `?` and their spaces, or
/// after `。`, `！`, `？` and any spaces, before a character that is not white space.
fn sentence_ends(data: &[u8]) -> Vec<usize> {
    const CJK: [&[u8]; 3] = ["。".as_bytes(), "！".as_bytes(), "？".as_bytes()];
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        let after =
            if matches!(b, b'.' | b'!' | b'?') && data.get(i + 1).is_some_and(|&c| is_space(c)) {
                Some(i + 1)
            } else {
                CJK.iter()
                    .find(|m| data[i..].starts_with(m))
                    .map(|m| i + m.len())
            };
        let Some(mut j) = after else {
            i += 1;
            continue;
        };
        while j < data.len() && is_space(data[j]) {
            j += 1;
        }
        if j < data.len() && starts_text(data[j]) {
            out.push(j);
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Where words start in `data`: after a run of spaces or tabs, before a
/// character that is not white space.
fn word_starts(data: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if !is_space(data[i]) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < data.len() && is_space(data[j]) {
            j += 1;
        }
        if j < data.len() && starts_text(data[j]) {
            out.push(j);
        }
        i = j;
    }
    out
}
