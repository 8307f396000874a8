//! `Recursive`: Dify's recursive splitter in real tokens, with local decisions.
//!
//! A span's size is the number of tokens (of the one tokenization pass) that
//! overlap it. The content budget is `max_tokens - overlap_tokens`.
//!
//! 1. A fixed separator (if any) cuts the text into segments, kept at the end
//!    of the segment before it (or the start of the one after); chunks never
//!    cross a segment boundary and empty segments are skipped.
//! 2. Inside a segment, chunks are cut greedily from `at`. If the rest of the
//!    segment fits the budget it is the chunk. Otherwise the window is the
//!    longest span from `at` that fits; the chunk ends at the last occurrence,
//!    inside the window, of the first separator (in order) that occurs there.
//!    Occurrences are found left to right without overlap, starting at `at`;
//!    a separator ends its chunk (`"end"`) or starts the next (`"start"`).
//! 3. With no separator in the window (or after the empty separator), the chunk
//!    ends at the window's last token boundary that is a character boundary;
//!    only a window holding none runs to the next one (`oversize`).
//! 4. Overlap extends each chunk after the first backwards by whole tokens,
//!    within `max_tokens` and never before the previous chunk's content.
//!
//! Every decision reads only the window being cut, so a separator near the end
//! of a 2 GB file cannot change how its start is cut. `reference/recursive.py`
//! is the twin, written from the same description.
//!
//! With content-defined boundaries (`content`), a chunk ends instead at the first
//! anchor ([`super::boundaries`]) in its window. The points are every occurrence
//! of every separator in the segment, ranked by separator, and `reach` is half the
//! budget. With no anchor in the window, the rest of the segment is the chunk when
//! it fits; otherwise the chunk ends at the window's point of the smallest key
//! among those at least `reach` tokens from `at`, else among all of its points,
//! else as in 3.

use super::boundaries::{self, Point, HASH_BYTES, SKIP_SPACE};
use super::{check_cap, Cutter, Input, Row};
use crate::error::Result;

/// Where a separator goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    End,
    Start,
}

/// `Recursive` sizes and separators.
#[derive(Clone, Debug)]
pub struct RecursiveConfig {
    pub max_tokens: usize,
    pub overlap_tokens: usize,
    pub fixed_separator: Option<String>,
    pub separators: Vec<String>,
    pub keep: Keep,
    /// Content-defined boundaries instead of greedy ones.
    pub content: bool,
}

impl RecursiveConfig {
    /// # Errors
    /// [`InvalidConfig`](crate::error::Error::InvalidConfig) when `max_tokens < 1` or
    /// the overlap is not below it.
    pub fn validate(&self) -> Result<()> {
        check_cap(self.max_tokens, self.overlap_tokens, 1, "an integer >= 1")
    }
}

/// The end of the current segment: found, or not before some byte.
#[derive(Clone, Copy, Debug)]
enum SegmentEnd {
    At(usize),
    NotBefore(usize),
}

/// What the next step can do.
enum Step {
    Chunk(usize),
    Wait,
}

/// How far past a chunk's window one scan for points looks, in budgets: points are found
/// a stretch at a time, so their memory stays bounded whatever the text holds.
const SCAN_BUDGETS: usize = 8;

/// Points and anchors of a stretch of the current segment, for the input they were
/// found in.
struct Scan {
    /// The input's end, its tokens' end, the segment's start and end.
    seen: (usize, usize, usize, Option<usize>),
    /// Every point before this byte is found and final.
    complete: usize,
    points: Vec<Point>,
    anchors: Vec<usize>,
}

/// The `Recursive` cutter.
pub struct Recursive {
    cfg: RecursiveConfig,
    budget: usize,
    /// The separators tried in order, up to (not including) the empty one.
    seps: Vec<Vec<u8>>,
    fixed: Option<Vec<u8>>,
    /// The next chunk's content starts here.
    at: usize,
    /// The current segment's end, once found, and where to look for it.
    seg_end: Option<usize>,
    fixed_from: usize,
    /// The previous chunk's content start and the token holding it.
    prev: Option<(usize, usize)>,
    index: u64,
    finished: bool,
    /// Content-defined boundaries: the current segment's start and the tokens before
    /// it, the text to keep for the points within reach, the last scan, and how far
    /// from the known tokens' end a point may still change.
    seg_start: usize,
    seg_t: usize,
    look: (usize, usize),
    scan: Option<Scan>,
    margin: usize,
}

impl Recursive {
    /// # Errors
    /// Invalid sizes.
    pub fn new(cfg: RecursiveConfig) -> Result<Self> {
        cfg.validate()?;
        let seps: Vec<Vec<u8>> = cfg
            .separators
            .iter()
            .take_while(|s| !s.is_empty())
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let fixed = cfg
            .fixed_separator
            .as_ref()
            .filter(|f| !f.is_empty())
            .map(|f| f.as_bytes().to_vec());
        let longest = cfg.separators.iter().map(String::len).max().unwrap_or(0);
        let fixed_len = cfg.fixed_separator.as_ref().map_or(0, String::len);
        Ok(Recursive {
            budget: cfg.max_tokens - cfg.overlap_tokens,
            cfg,
            seps,
            fixed,
            at: 0,
            seg_end: None,
            fixed_from: 0,
            prev: None,
            index: 0,
            finished: false,
            seg_start: 0,
            seg_t: 0,
            look: (0, 0),
            scan: None,
            margin: SKIP_SPACE + HASH_BYTES + longest + fixed_len,
        })
    }

    /// The current segment's end, searching the fixed separator as far as the text goes.
    fn segment_end(&mut self, input: &Input<'_>) -> SegmentEnd {
        if let Some(end) = self.seg_end {
            return SegmentEnd::At(end);
        }
        let end = input.end();
        let Some(fixed) = &self.fixed else {
            return if input.done {
                SegmentEnd::At(end)
            } else {
                SegmentEnd::NotBefore(end)
            };
        };
        let bytes = input.bytes();
        while let Some(i) = memchr::memmem::find(&bytes[self.fixed_from - input.base..], fixed) {
            let m = self.fixed_from + i;
            self.fixed_from = m + fixed.len();
            let cut = match self.cfg.keep {
                Keep::End => m + fixed.len(),
                Keep::Start => m,
            };
            if cut > self.at {
                self.seg_end = Some(cut);
                return SegmentEnd::At(cut);
            }
        }
        if input.done {
            self.fixed_from = end;
            self.seg_end = Some(end);
            return SegmentEnd::At(end);
        }
        // An occurrence not yet seen starts after `end - len(fixed)`; nothing before
        // that needs searching again (the scan is left to right without overlap).
        self.fixed_from = (end + 1).saturating_sub(fixed.len()).max(self.fixed_from);
        let first = self.fixed_from;
        SegmentEnd::NotBefore(match self.cfg.keep {
            Keep::End => first + fixed.len(),
            Keep::Start => first,
        })
    }

    /// The end of the next content chunk, which starts at `self.at`.
    fn next_end(&mut self, input: &Input<'_>) -> Step {
        if self.cfg.content {
            return self.content_end(input);
        }
        let at = self.at;
        if !input.done && at >= input.tokens_end {
            return Step::Wait; // the token holding `at` is not known yet
        }
        let first = input.token_at(at);
        let overflow = first + self.budget; // the first token that does not fit
        let n = input.n();
        let window = if overflow < n {
            Some(input.bound(overflow))
        } else if input.done || n == 0 {
            None // everything left fits
        } else {
            return match self.segment_end(input) {
                // The segment ends among known tokens, and they all fit.
                SegmentEnd::At(end) if end <= input.tokens_end => Step::Chunk(end),
                _ => Step::Wait,
            };
        };
        let segment = self.segment_end(input);
        let Some(x) = window else {
            return match segment {
                SegmentEnd::At(end) => Step::Chunk(end),
                SegmentEnd::NotBefore(_) => Step::Wait,
            };
        };
        match segment {
            SegmentEnd::At(end) if end <= x => return Step::Chunk(end),
            SegmentEnd::NotBefore(lower) if lower <= x => return Step::Wait,
            _ => {}
        }
        let limit = match segment {
            SegmentEnd::At(end) => end,
            SegmentEnd::NotBefore(_) => input.end(),
        };
        if let Some(cut) = self.separator_cut(input, at, x) {
            return Step::Chunk(cut);
        }
        // No separator: whole tokens, cut at a character boundary.
        // A cut inside the window is final; one past it only when more text is known.
        match input.char_cut(at, first, overflow) {
            Some(b) if b <= input.bound(overflow) || b < limit => Step::Chunk(b),
            _ if matches!(segment, SegmentEnd::At(_)) => Step::Chunk(limit),
            _ => Step::Wait,
        }
    }

    /// [`Recursive::next_end`] with content-defined boundaries.
    fn content_end(&mut self, input: &Input<'_>) -> Step {
        let at = self.at;
        if !input.done && at >= input.tokens_end {
            return Step::Wait;
        }
        let first = input.token_at(at);
        let overflow = first + self.budget;
        let reach = self.budget / 2;
        let seg_end = match self.segment_end(input) {
            SegmentEnd::At(end) => Some(end),
            SegmentEnd::NotBefore(_) => None,
        };
        // Points before `fin` can no longer change; an anchor in the window needs every
        // point within reach of it.
        let final_all = input.done || seg_end.is_some_and(|e| e <= input.tokens_end);
        let fin = input.tokens_end.saturating_sub(self.margin);
        let need = input.bound(overflow + reach);
        if !final_all && need >= fin {
            return Step::Wait;
        }
        let fits = overflow >= input.n() || seg_end.is_some_and(|e| e <= input.bound(overflow));
        let x = match seg_end {
            Some(e) if fits => e,
            _ => input.bound(overflow),
        };
        let fin_all = if final_all { usize::MAX } else { fin };
        let scan = self.scan(input, seg_end, first, need, fin_all);
        let k = scan.anchors.partition_point(|&a| a <= at);
        if let Some(&a) = scan.anchors.get(k).filter(|&&a| a <= x) {
            return Step::Chunk(a);
        }
        if let (true, Some(e)) = (fits, seg_end) {
            return Step::Chunk(e);
        }
        let lo = scan.points.partition_point(|p| p.pos <= at);
        let hi = scan.points.partition_point(|p| p.pos <= x);
        let window = &scan.points[lo..hi];
        let late = window.iter().filter(|p| p.t >= first + reach);
        let best = late
            .min_by_key(|p| p.key())
            .or_else(|| window.iter().min_by_key(|p| p.key()));
        if let Some(p) = best {
            return Step::Chunk(p.pos);
        }
        match (input.char_cut(at, first, overflow), seg_end) {
            (Some(b), Some(e)) => Step::Chunk(b.min(e)),
            (Some(b), None) if b < fin => Step::Chunk(b),
            (None, Some(e)) => Step::Chunk(e),
            _ => Step::Wait,
        }
    }

    /// Points and anchors from `reach` tokens (and the bytes a point may move over) before
    /// token `first` to [`SCAN_BUDGETS`] budgets past the window, found again when the
    /// input has grown or a decision needs points past `complete`; every point before
    /// `need` must be final, and those before `fin` are (given the input).
    fn scan(
        &mut self,
        input: &Input<'_>,
        seg_end: Option<usize>,
        first: usize,
        need: usize,
        fin: usize,
    ) -> &Scan {
        let seen = (input.end(), input.tokens_end, self.seg_start, seg_end);
        let scan = match self.scan.take() {
            Some(scan) if scan.seen == seen && need < scan.complete => scan,
            _ => {
                let reach = self.budget / 2;
                let back = first.saturating_sub(reach + 1 + self.margin);
                let lo = self.seg_start.max(input.bound(back.max(input.token_base)));
                let lo = lo.max(input.base);
                let end = seg_end.unwrap_or(input.end()).min(input.end());
                let ahead = first + self.budget + reach + SCAN_BUDGETS * self.budget;
                // At least a margin past `need`, however many tokens share a byte.
                let far = (ahead < input.n()).then(|| input.bound(ahead));
                let far = far.map(|hi| hi.max(need.saturating_add(2 * self.margin)));
                let (hi, complete) = match far {
                    Some(hi) if hi < end => (hi, (hi - self.margin).min(fin)),
                    _ => (end, fin),
                };
                let points = self.points(input, lo, hi, end);
                let last = seg_end.map(|e| input.tokens_before(e));
                let anchors = boundaries::anchors(&points, self.seg_t, last, reach);
                Scan {
                    seen,
                    complete,
                    points,
                    anchors,
                }
            }
        };
        self.scan.insert(scan)
    }

    /// The points of `lo..hi` that can make a difference, found separator by separator
    /// (`end`: where the segment, or the known text, ends).
    /// A point can change an anchor or a window's best point only where no point of a
    /// better rank is within reach of it on both sides, so each separator after the
    /// first is looked for only in the gaps of more than `reach` tokens between the
    /// points found before it (and at the ends). `reference/recursive.py` finds every
    /// point: the differential tests hold the two equal.
    fn points(&self, input: &Input<'_>, lo: usize, hi: usize, end: usize) -> Vec<Point> {
        let bytes = input.bytes();
        let reach = self.budget / 2;
        let longest = self.seps.iter().map(Vec::len).max().unwrap_or(0);
        let pad = SKIP_SPACE + longest;
        let mut points: Vec<Point> = Vec::new();
        let mut regions: Vec<(usize, usize)> = Vec::new();
        for (rank, sep) in (0u32..).zip(&self.seps) {
            regions.clear();
            // Skip each run of points whose gaps are all at most `reach` tokens, less
            // the bytes at its ends where a match may start or end, or move to a point.
            let mut from = lo;
            let mut i = 0;
            while i < points.len() {
                let mut j = i;
                while j + 1 < points.len() && points[j + 1].t - points[j].t <= reach {
                    j += 1;
                }
                let (a, b) = (points[i].pos + longest, points[j].pos.saturating_sub(pad));
                if a < b {
                    if from < a {
                        regions.push((from, a));
                    }
                    from = from.max(b);
                }
                i = j + 1;
            }
            if from < hi {
                regions.push((from, hi));
            }
            let finder = memchr::memmem::Finder::new(sep);
            let mut found: Vec<(usize, u32)> = Vec::new();
            for &(a, b) in &regions {
                let hay = &bytes[a - input.base..b.min(hi) - input.base];
                let mut at = 0;
                while let Some(i) = finder.find(&hay[at..]) {
                    let m = a + at + i;
                    at += i + 1;
                    let c = match self.cfg.keep {
                        Keep::End => m + sep.len(),
                        Keep::Start => m,
                    };
                    if c > self.seg_start && c < end {
                        let after = &bytes[c - input.base..end - input.base];
                        if let Some(p) = boundaries::moved(c, after, |q| input.is_cut(q)) {
                            found.push((p, rank));
                        }
                    }
                }
            }
            if found.is_empty() {
                continue;
            }
            found.sort_unstable();
            found.dedup_by_key(|f| f.0);
            let fresh = found.into_iter().map(|(p, rank)| {
                let after = &bytes[p - input.base..end - input.base];
                Point::new(p, input.tokens_before(p), rank, after)
            });
            // Merge by position; a position found before keeps its better rank.
            let mut merged = Vec::with_capacity(points.len() + 16);
            let mut old = std::mem::take(&mut points).into_iter().peekable();
            for q in fresh {
                while let Some(o) = old.next_if(|o| o.pos <= q.pos) {
                    merged.push(o);
                }
                if merged.last().is_none_or(|o: &Point| o.pos != q.pos) {
                    merged.push(q);
                }
            }
            merged.extend(old);
            points = merged;
        }
        points
    }

    /// The last cut of the first separator that has one in `(at, x]`.
    fn separator_cut(&self, input: &Input<'_>, at: usize, x: usize) -> Option<usize> {
        let bytes = input.bytes();
        for sep in &self.seps {
            // Occurrences starting at or before `x` lie within `x + len`.
            let hi = (x + sep.len()).min(input.end());
            let hay = &bytes[at - input.base..hi - input.base];
            let mut best = None;
            let mut from = 0;
            while let Some(i) = memchr::memmem::find(&hay[from..], sep) {
                let m = at + from + i;
                let cut = match self.cfg.keep {
                    Keep::End => m + sep.len(),
                    Keep::Start => m,
                };
                if cut > x {
                    break;
                }
                if let Some(cut) = input.word_cut(cut, at, x).filter(|&c| c > at) {
                    best = Some(cut);
                }
                from += i + sep.len();
            }
            if best.is_some() {
                return best;
            }
        }
        None
    }

    /// Emits the content `at..cut` with its overlap.
    fn emit(&mut self, input: &Input<'_>, cut: usize, out: &mut Vec<Row>) {
        let at = self.at;
        let mut start = at;
        if let Some((prev_at, prev_token)) = self.prev {
            let room = self.cfg.max_tokens.saturating_sub(input.count(at, cut));
            let k = self.cfg.overlap_tokens.min(room);
            let first = input.token_at(at);
            if k > 0 && first >= k {
                start = if first - k < prev_token {
                    prev_at
                } else {
                    input.bound(first - k).max(prev_at)
                };
                start = input.char_start(start, at);
            }
        }
        let count = input.count(start, cut);
        let token_start = if input.n() == 0 {
            0
        } else {
            input.token_at(start)
        };
        out.push(Row {
            index: self.index,
            token_start: token_start as u64,
            token_end: (token_start + count) as u64,
            byte_start: start,
            byte_end: cut,
            oversize: count > self.cfg.max_tokens,
            ..Row::default()
        });
        self.index += 1;
        self.prev = Some((at, input.token_at(at)));
        self.at = cut;
        if self.seg_end == Some(cut) {
            self.seg_end = None;
            self.fixed_from = self.fixed_from.max(cut);
            self.seg_start = cut;
            self.seg_t = input.tokens_before(cut);
        }
    }

    /// Runs the cutter over an input, appending rows (also used for `ParentChild`'s children).
    pub(crate) fn run(&mut self, input: &Input<'_>, out: &mut Vec<Row>) {
        while !self.finished {
            if self.at >= input.end() {
                if input.done {
                    self.finished = true;
                }
                break;
            }
            match self.next_end(input) {
                Step::Chunk(cut) => self.emit(input, cut, out),
                Step::Wait => break,
            }
        }
        if self.cfg.content && input.n() > 0 {
            // Keep the text of every point within reach of the next chunk's first token,
            // and the white space a point may move over, on a character boundary.
            let back = self.budget / 2 + 1 + self.margin;
            let t = input
                .token_at(self.at.min(input.end()))
                .saturating_sub(back);
            let t = t.max(input.token_base);
            let mut b = input.bound(t).min(input.end());
            while b > input.base && !input.is_char_boundary(b) {
                b -= 1;
            }
            self.look = (b, t);
        }
    }

    /// Starts the cutter at byte `at` (a child cutter starts at its parent's start).
    pub(crate) fn starting_at(mut self, at: usize) -> Self {
        self.at = at;
        self.fixed_from = at;
        self.seg_start = at;
        self
    }
}

impl Cutter for Recursive {
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()> {
        self.run(input, out);
        Ok(())
    }

    fn keep(&self) -> (usize, usize) {
        let (byte, token) = match self.prev {
            Some((prev_at, prev_token)) => (prev_at, prev_token),
            None => (self.at, 0),
        };
        if self.cfg.content {
            (byte.min(self.look.0), token.min(self.look.1))
        } else {
            (byte, token)
        }
    }
}
