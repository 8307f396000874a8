//! `Code`: source code cut between definitions, members and statements, each
//! chunk with the headers of the definitions it sits in, under one cap that
//! counts them.
//!
//! The structure comes from [`crate::structure::code`] (a tree-sitter parse, so
//! the cutter waits for the whole text). Chunks are cut one after another from
//! `at`, over the tokens of the one pass (a span's size is the number of tokens
//! overlapping it), as `docs/code.md` says:
//!
//! 1. The context is the headers of the scopes holding `at` that start before
//!    it, kept to half of `max_tokens` and to `max_tokens` less a unit that
//!    opens the chunk and fits; the outermost give way first.
//! 2. The content budget is `max_tokens - overlap_tokens - tokens(context)` (the
//!    first chunk, which takes no overlap, reserves none), at least 1, and the room
//!    `max_tokens - tokens(context)`. If the rest fits the
//!    budget it is the chunk; otherwise the chunk ends at the best allowed point
//!    in the window (the lowest rank, the last of it). No point falls strictly
//!    inside a unit that fits (`max_tokens` for one starting after `at`, the room
//!    for one holding it). With none, the window widens to the room, then the
//!    chunk ends at the window's last token boundary that is a character boundary.
//! 3. The cap: `tokens(context + text) <= max_tokens`, counted as one string;
//!    when it is over, the budget shrinks by the excess and the chunk is cut again.
//! 4. Overlap reaches back by whole tokens to a line start, never before the
//!    previous chunk's own start nor into a header the context carries, within the cap.
//!
//! With content-defined boundaries (`content`, [`super::boundaries`]), the points
//! are the cut points strictly inside no unit that fits `max_tokens`, `reach` is
//! half of `max_tokens - overlap_tokens`, and a chunk ends at the first anchor in
//! its budget's window; with none, the best allowed point is the one of the
//! smallest key, from `reach` tokens after `at` if one is allowed there.
//!
//! `reference/code.py` is the twin, written from the same description.

use std::cmp::Reverse;
use std::sync::Arc;

use super::boundaries::{self, Point};
use super::{check_cap, Blocked, ChunkMeta, Counter, Cutter, Input, Row};
use crate::error::Result;
use crate::structure::code::{scan, Grammar, Outline};

/// The smallest cap: room for a header and some code.
pub const MIN_TOKENS: usize = 16;

/// The context holds at most this many headers, the innermost.
pub const MAX_HEADERS: usize = 32;

/// `Code` settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeConfig {
    pub max_tokens: usize,
    pub overlap_tokens: usize,
    pub context: bool,
    /// Content-defined boundaries instead of greedy ones.
    pub content: bool,
}

impl CodeConfig {
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

/// The `Code` cutter: it cuts once the whole text has come.
pub struct Code {
    cfg: CodeConfig,
    grammar: Arc<Grammar>,
    tok: Counter,
}

impl Code {
    /// # Errors
    /// Invalid settings.
    pub fn new(cfg: CodeConfig, grammar: Arc<Grammar>, tok: Counter) -> Result<Self> {
        cfg.validate()?;
        Ok(Code { cfg, grammar, tok })
    }
}

impl Cutter for Code {
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()> {
        if !input.done || input.base != 0 {
            return Ok(()); // tree-sitter needs the whole text: keep it all
        }
        let outline = scan(&self.grammar, input.text)?;
        let mut run = Run {
            cfg: self.cfg,
            tok: &self.tok,
            input,
            outline,
            active: Vec::new(),
            next_scope: 0,
            points: Vec::new(),
            anchors: Vec::new(),
        };
        if self.cfg.content {
            run.find_anchors();
        }
        run.chunks(out);
        Ok(())
    }

    fn keep(&self) -> (usize, usize) {
        (0, 0)
    }
}

struct Run<'a> {
    cfg: CodeConfig,
    tok: &'a Counter,
    input: &'a Input<'a>,
    outline: Outline,
    /// The scopes holding the current `at`, outermost first, and the next to enter.
    active: Vec<usize>,
    next_scope: usize,
    /// Content-defined boundaries: every cut point with its key, and the anchors.
    points: Vec<Point>,
    anchors: Vec<usize>,
}

impl Run<'_> {
    fn reach(&self) -> usize {
        (self.cfg.max_tokens - self.cfg.overlap_tokens) / 2
    }

    fn find_anchors(&mut self) {
        let input = self.input;
        let bytes = input.bytes();
        self.points = self
            .outline
            .cuts
            .iter()
            .map(|&(p, rank)| Point::new(p, input.tokens_before(p), rank.into(), &bytes[p..]))
            .collect();
        let max = self.cfg.max_tokens;
        let eligible = boundaries::outside(&self.points, &self.outline.units, |a, b| {
            input.count(a, b) <= max
        });
        let last = input.tokens_before(input.end());
        self.anchors = boundaries::anchors(&eligible, 0, Some(last), self.reach());
    }

    /// Moves the active scopes to byte `at` (which only grows).
    fn enter(&mut self, at: usize) {
        let scopes = &self.outline.scopes;
        while let Some(s) = scopes.get(self.next_scope) {
            if s.start > at {
                break;
            }
            self.active.push(self.next_scope);
            self.next_scope += 1;
        }
        self.active.retain(|&i| scopes[i].end > at);
    }

    /// The tokens of the largest unit starting at `at` that fits `max_tokens`.
    fn opening_unit(&self, at: usize) -> Option<usize> {
        let units = &self.outline.units;
        let lo = units.partition_point(|u| u.0 < at);
        let hi = units.partition_point(|u| u.0 <= at);
        units[lo..hi]
            .iter()
            .map(|&(a, b)| self.input.count(a, b))
            .filter(|&n| n <= self.cfg.max_tokens)
            .max()
    }

    /// The context of a chunk starting at `at` (the active scopes are those at `at`),
    /// and where the innermost header it carries ends (0 with none): the overlap's floor.
    fn context(&self, at: usize) -> (String, usize) {
        if !self.cfg.context {
            return (String::new(), 0);
        }
        let scopes = &self.outline.scopes;
        let held: Vec<_> = self
            .active
            .iter()
            .map(|&i| &scopes[i])
            .filter(|s| s.start < at)
            .collect();
        let floor = held.last().map_or(0, |s| s.head_end);
        let mut headers: Vec<&str> = held.iter().map(|s| s.header.as_str()).collect();
        // The innermost few at most: each try below counts the rest again, so deep
        // nesting would cost the square of the depth on every chunk.
        headers.drain(..headers.len().saturating_sub(MAX_HEADERS));
        let max = self.cfg.max_tokens;
        let mut limit = max / 2;
        if let Some(tokens) = self.opening_unit(at) {
            limit = limit.min(max - tokens);
        }
        for from in 0..headers.len() {
            let context = headers[from..].concat();
            if self.tok.count(&context) <= limit {
                return (context, floor);
            }
        }
        (String::new(), 0)
    }

    fn joined(&self, context: &str, a: usize, b: usize) -> usize {
        self.tok.joined(context, self.input.slice(a, b))
    }

    /// The best allowed point in `(at, window_end]`: units that fit stay whole.
    fn best(&self, at: usize, window_end: usize, room: usize) -> Option<usize> {
        let input = self.input;
        let first = input.token_at(at);
        // A unit that fits the room and holds a point after `at` starts at most `room`
        // tokens before `at`'s token.
        let lo = input.bound(first.saturating_sub(room));
        let units = &self.outline.units;
        let from = units.partition_point(|u| u.0 < lo);
        let to = units.partition_point(|u| u.0 < window_end);
        let blocked = Blocked::new(&units[from..to], input, at, room, self.cfg.max_tokens);
        let cuts = &self.outline.cuts;
        let c_from = cuts.partition_point(|c| c.0 <= at);
        let c_to = cuts.partition_point(|c| c.0 <= window_end);
        if self.cfg.content {
            let late = first + self.reach();
            return self.points[c_from..c_to]
                .iter()
                .filter(|q| blocked.allows(q.pos))
                .min_by_key(|q| (Reverse(q.t >= late), q.key()))
                .map(|q| q.pos);
        }
        cuts[c_from..c_to]
            .iter()
            .rev()
            .filter(|&&(p, _)| blocked.allows(p))
            .min_by_key(|&&(_, rank)| rank)
            .map(|&(p, _)| p)
    }

    /// Where the chunk from `at` ends.
    fn chunk_end(&self, at: usize, budget: usize, room: usize) -> usize {
        let input = self.input;
        let end = input.end();
        let first = input.token_at(at);
        if self.cfg.content {
            let x = if first + budget >= input.n() {
                end
            } else {
                input.bound(first + budget)
            };
            let k = self.anchors.partition_point(|&a| a <= at);
            if let Some(&a) = self.anchors.get(k).filter(|&&a| a <= x) {
                return a;
            }
        }
        for size in [budget, room] {
            if first + size >= input.n() {
                return end; // the rest fits
            }
            if let Some(p) = self.best(at, input.bound(first + size), room) {
                return p;
            }
        }
        input.char_cut(at, first, first + budget).unwrap_or(end)
    }

    /// The start of the line at or after `p`, and not past `at`.
    fn next_line(&self, p: usize, at: usize) -> usize {
        let data = self.input.bytes();
        if p == 0 || data[p - 1] == b'\n' {
            return p;
        }
        memchr::memchr(b'\n', &data[p..at]).map_or(at, |i| p + i + 1)
    }

    fn meta(&self, context: String) -> Arc<ChunkMeta> {
        let scopes = &self.outline.scopes;
        Arc::new(ChunkMeta {
            scopes: Arc::new(
                self.active
                    .iter()
                    .map(|&i| (scopes[i].kind.clone(), scopes[i].name.clone()))
                    .collect(),
            ),
            headings_truncated: self.active.iter().any(|&i| scopes[i].truncated),
            context,
            ..ChunkMeta::default()
        })
    }

    fn chunks(&mut self, out: &mut Vec<Row>) {
        let input = self.input;
        let (max, overlap) = (self.cfg.max_tokens, self.cfg.overlap_tokens);
        let end = input.end();
        let (mut at, mut prev, mut index) = (0, None::<usize>, 0u64);
        while at < end {
            self.enter(at);
            let (mut context, floor) = self.context(at);
            let context_tokens = self.tok.count(&context);
            let reserve = if prev.is_some() { overlap } else { 0 };
            let mut budget = max.saturating_sub(reserve + context_tokens).max(1);
            let mut room = budget.max(max.saturating_sub(context_tokens));
            let (cut, mut joined) = loop {
                let cut = self.chunk_end(at, budget, room);
                let joined = self.joined(&context, at, cut);
                if joined <= max || room == 1 {
                    break (cut, joined);
                }
                budget = budget.saturating_sub(joined - max).max(1);
                room = budget.max(room.saturating_sub(joined - max));
            };
            let mut start = at;
            if let Some(lower) = prev.filter(|_| overlap > 0) {
                let first = input.token_at(at);
                let mut k = overlap.min(max.saturating_sub(input.count(at, cut)));
                let mut tried = at;
                while k > 0 {
                    // A chunk that starts inside its header's text takes no overlap.
                    let back = input.bound(first.saturating_sub(k)).max(lower).max(floor);
                    let back = back.min(at);
                    let s = self.next_line(back, at);
                    if s >= at {
                        break;
                    }
                    if s != tried {
                        tried = s;
                        let with_overlap = self.joined(&context, s, cut);
                        if with_overlap <= max {
                            (start, joined) = (s, with_overlap);
                            break;
                        }
                    }
                    k -= 1;
                }
            }
            let count = input.count(start, cut);
            let token_start = if input.n() == 0 {
                0
            } else {
                input.token_at(start)
            };
            let meta = self.meta(std::mem::take(&mut context));
            out.push(Row {
                index,
                token_start: token_start as u64,
                token_end: (token_start + count) as u64,
                byte_start: start,
                byte_end: cut,
                oversize: count > max || joined > max,
                meta: Some(meta),
                ..Row::default()
            });
            index += 1;
            prev = Some(at);
            at = cut;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::contracts::stream::{chunk_text, Tokens};
    use crate::contracts::Spec;
    use crate::tokenizer::Encoding;

    fn chunks(src: &str, max: usize, overlap: usize) -> Vec<(String, Arc<ChunkMeta>, bool)> {
        let cfg = CodeConfig {
            max_tokens: max,
            overlap_tokens: overlap,
            context: true,
            content: false,
        };
        let grammar = Grammar::new(tree_sitter_python::LANGUAGE.into()).unwrap();
        let spec = Spec::Code(cfg, Arc::new(grammar));
        let batch = chunk_text(src, &spec, Tokens::Embedded(Encoding::Cl100kBase)).unwrap();
        let mut from = 0;
        let mut out = Vec::new();
        for ((row, &end), meta) in batch.table.iter().zip(&batch.text_ends).zip(&batch.meta) {
            out.push((
                batch.text[from..end as usize].to_owned(),
                Arc::clone(meta),
                row[8] != 0,
            ));
            from = end as usize;
        }
        out
    }

    fn source() -> String {
        let mut s = String::from("import os\n\n");
        for c in 0..3 {
            s += &format!("class C{c}:\n");
            for m in 0..4 {
                s += &format!(
                    "    def m{m}(self, x):\n        y = x * {m}\n        return y + {c}\n\n"
                );
            }
        }
        s
    }

    #[test]
    fn chunks_cover_the_source_and_hold_the_cap_with_context() {
        let src = source();
        let tok = Encoding::Cl100kBase.load().unwrap();
        for max in [16, 24, 40, 100] {
            let got = chunks(&src, max, 0);
            assert_eq!(got.iter().map(|c| c.0.as_str()).collect::<String>(), src);
            for (text, meta, oversize) in &got {
                assert!(*oversize || tok.count(&format!("{}{text}", meta.context)) <= max);
            }
        }
    }

    #[test]
    fn a_method_that_fits_is_never_cut_and_carries_its_class() {
        let src = source();
        for (text, meta, _) in chunks(&src, 40, 0) {
            // Every chunk starts at a line, and no method is split across chunks.
            assert!(text.ends_with('\n'), "{text:?}");
            let defs = text.matches("    def ").count();
            let returns = text.matches("return").count();
            assert_eq!(defs, returns, "{text:?}");
            if text.starts_with("    def") {
                assert!(meta.context.starts_with("class C"), "{:?}", meta.context);
                assert_eq!(meta.scopes.len(), 2);
            }
        }
    }

    #[test]
    fn overlap_starts_at_a_line_and_stays_within_the_cap() {
        let src = source();
        let tok = Encoding::Cl100kBase.load().unwrap();
        for (text, meta, oversize) in chunks(&src, 48, 8) {
            assert!(src.contains(&text));
            let at = src.find(&text).unwrap();
            assert!(at == 0 || src.as_bytes()[at - 1] == b'\n');
            assert!(oversize || tok.count(&format!("{}{text}", meta.context)) <= 48);
        }
    }

    #[test]
    fn empty_and_broken_text_work() {
        assert!(chunks("", 16, 0).is_empty());
        let broken = "class A(:\n    def f(self\n        return [1, 2\n\ndef g():\n    pass\n";
        let got = chunks(broken, 16, 0);
        assert_eq!(got.iter().map(|c| c.0.as_str()).collect::<String>(), broken);
    }
}
