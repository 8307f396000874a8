//! Content-defined boundaries (`boundaries="content"`).
//!
//! A *point* is a byte where a chunk may end, with a rank (lower is a better
//! break). Its key is `(rank, -H, position)`, smaller is better, where `H` is the
//! XXH3-128 of the [`HASH_BYTES`] bytes from the point (fewer where its segment
//! ends first). Positions are measured in tokens: `T(b)` is the number of tokens
//! that start before byte `b`.
//!
//! A point is an **anchor** when no other point of its segment within `reach`
//! tokens on either side has a smaller key, and it lies more than `reach` tokens
//! from both ends of its segment. Whether a point is an anchor reads only the
//! text within reach of it, so an edit moves only the anchors near it.
//! `reference/boundaries.py` is the twin, written from the same description.

use std::cmp::Reverse;
use std::collections::VecDeque;

/// The bytes from a point that its hash reads.
pub const HASH_BYTES: usize = 32;
/// A point that is not a cut moves forward over at most this many bytes of ASCII
/// white space to one.
pub const SKIP_SPACE: usize = 64;

/// One candidate cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    pub pos: usize,
    /// Tokens that start before `pos`.
    pub t: usize,
    pub rank: u32,
    pub hash: u128,
}

impl Point {
    /// `from` is the text from `pos` to the segment's end (or as far as it is known).
    pub fn new(pos: usize, t: usize, rank: u32, from: &[u8]) -> Self {
        let hash = xxhash_rust::xxh3::xxh3_128(&from[..from.len().min(HASH_BYTES)]);
        Point { pos, t, rank, hash }
    }

    /// Smaller is better.
    pub fn key(&self) -> (u32, Reverse<u128>, usize) {
        (self.rank, Reverse(self.hash), self.pos)
    }
}

/// `c` itself when a chunk may end there, else the first cut after ASCII white space:
/// `after` is the text from `c` to the segment's end.
pub fn moved(c: usize, after: &[u8], is_cut: impl Fn(usize) -> bool) -> Option<usize> {
    if is_cut(c) {
        return Some(c);
    }
    let skip = after
        .iter()
        .take(SKIP_SPACE)
        .take_while(|b| b.is_ascii_whitespace() || **b == 0x0b)
        .count();
    (skip > 0 && skip < after.len() && is_cut(c + skip)).then_some(c + skip)
}

/// The points strictly inside no unit that `fits` (`units` sorted by start).
pub fn outside(
    points: &[Point],
    units: &[(usize, usize)],
    fits: impl Fn(usize, usize) -> bool,
) -> Vec<Point> {
    let mut u = 0;
    let mut furthest = 0; // the furthest end of the units that fit and start before `q`
    let mut out = Vec::with_capacity(points.len());
    for q in points {
        while u < units.len() && units[u].0 < q.pos {
            let (a, b) = units[u];
            if fits(a, b) {
                furthest = furthest.max(b);
            }
            u += 1;
        }
        if furthest <= q.pos {
            out.push(*q);
        }
    }
    out
}

/// The positions of the anchors among `points` (sorted by position, one segment's),
/// where the segment starts at token `first` and ends at token `last` (`None`: not
/// yet known, so far away).
pub fn anchors(points: &[Point], first: usize, last: Option<usize>, reach: usize) -> Vec<usize> {
    let mut out = Vec::new();
    // Indices within reach, keys increasing from the front.
    let mut window: VecDeque<usize> = VecDeque::new();
    let mut right = 0;
    for (i, p) in points.iter().enumerate() {
        while right < points.len() && points[right].t <= p.t + reach {
            let key = points[right].key();
            while window.back().is_some_and(|&j| points[j].key() >= key) {
                window.pop_back();
            }
            window.push_back(right);
            right += 1;
        }
        while window.front().is_some_and(|&j| points[j].t + reach < p.t) {
            window.pop_front();
        }
        let inside = p.t - first > reach && last.is_none_or(|l| l - p.t > reach);
        if window.front() == Some(&i) && inside {
            out.push(p.pos);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(pos: usize, rank: u32, hash: u128) -> Point {
        Point {
            pos,
            t: pos,
            rank,
            hash,
        }
    }

    #[test]
    fn an_anchor_beats_every_point_within_reach() {
        let points = [
            point(10, 1, 5),
            point(20, 0, 1),
            point(25, 1, 9),
            point(40, 0, 7),
            point(70, 0, 2),
        ];
        // 20 loses to 40 within 20 tokens (same rank, higher hash); 70 is too near the end.
        assert_eq!(anchors(&points, 0, Some(85), 20), vec![40]);
        assert_eq!(anchors(&points, 0, None, 20), vec![40, 70]);
    }

    #[test]
    fn white_space_moves_a_point_to_a_cut() {
        let cut = |p: usize| p == 3;
        assert_eq!(moved(0, b"  \tx", cut), Some(3));
        assert_eq!(moved(0, b"   ", cut), None);
        assert_eq!(moved(3, b"x", cut), Some(3));
    }
}
