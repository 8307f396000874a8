//! Greedy merge of consecutive pieces by their token counts.
//!
//! The two strategies are RAGFlow's `_merge_paragraph_groups` (RAGFlow `b1b8cd6`,
//! `rag/nlp/__init__.py`). Groups are contiguous, so they are returned as index ranges;
//! nothing is split, reordered or dropped.

use std::ops::Range;

/// How the cap is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeStrategy {
    /// Never exceed the cap; a piece larger than the cap stands alone.
    UnderCap,
    /// Accumulate while the running total is within the threshold, then take
    /// one more (boundary-overflow) piece and close.
    OverCap,
}

/// A run of pieces merged into one chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub pieces: Range<usize>,
    pub tokens: u64,
    /// The group is one piece whose own count exceeds the cap.
    pub oversize: bool,
}

/// The greedy merge as a state machine: pieces arrive one at a time and each
/// closes at most two groups (the open one and an oversize piece on its own).
#[derive(Clone, Debug)]
pub struct Packer {
    cap: f64,
    threshold: f64,
    strategy: MergeStrategy,
    /// The open group: (first piece, running total).
    open: Option<(usize, u64)>,
    /// The index of the next piece.
    next: usize,
}

impl Packer {
    /// `threshold` only matters for [`MergeStrategy::OverCap`]: RAGFlow passes
    /// `cap * (100 - overlapped_percent) / 100`. The cap is a float because
    /// upstream accepts any number; every test is written as Python writes it
    /// (`t + s <= cap` to join, `t > cap` for oversize), so NaN behaves the same.
    /// Integers compare with floats exactly, as in Python (`2**53 + 1 > 2.0**53`).
    pub fn new(cap: f64, strategy: MergeStrategy, threshold: f64) -> Self {
        Packer {
            cap,
            threshold,
            strategy,
            open: None,
            next: 0,
        }
    }

    fn exceeds_cap(&self, t: u64) -> bool {
        greater(t, self.cap)
    }

    fn close(&self, first: usize, end: usize, tokens: u64, out: &mut Vec<Group>) {
        out.push(Group {
            pieces: first..end,
            tokens,
            oversize: end - first == 1 && self.exceeds_cap(tokens),
        });
    }

    /// Adds the next piece of `size` tokens, appending the groups it closes.
    pub fn push(&mut self, size: u64, out: &mut Vec<Group>) {
        let i = self.next;
        self.next += 1;
        match self.strategy {
            MergeStrategy::UnderCap => match self.open {
                Some((first, t)) if t.checked_add(size).is_some_and(|s| at_most(s, self.cap)) => {
                    self.open = Some((first, t + size));
                }
                _ => {
                    if let Some((first, t)) = self.open.take() {
                        self.close(first, i, t, out);
                    }
                    if self.exceeds_cap(size) {
                        self.close(i, i + 1, size, out);
                    } else {
                        self.open = Some((i, size));
                    }
                }
            },
            MergeStrategy::OverCap => {
                if self.exceeds_cap(size) {
                    if let Some((first, t)) = self.open.take() {
                        self.close(first, i, t, out);
                    }
                    self.close(i, i + 1, size, out);
                    return;
                }
                self.open = match self.open {
                    None => Some((i, size)),
                    Some((first, t)) if greater(t, self.threshold) => {
                        self.close(first, i, t, out);
                        Some((i, size))
                    }
                    Some((first, t)) => Some((first, t.saturating_add(size))),
                };
            }
        }
    }

    /// Closes the open group, if any.
    pub fn finish(&mut self, out: &mut Vec<Group>) {
        if let Some((first, t)) = self.open.take() {
            self.close(first, self.next, t, out);
        }
    }
}

/// `t <= x` with Python's exact int/float comparison (false for NaN).
pub fn at_most(t: u64, x: f64) -> bool {
    if x.is_nan() || x < 0.0 {
        return false;
    }
    // 2^64 as f64: every u64 is below it.
    if x >= 18_446_744_073_709_551_616.0 {
        return true;
    }
    t <= x.floor() as u64
}

/// `t > x` with Python's exact int/float comparison (false for NaN).
pub fn greater(t: u64, x: f64) -> bool {
    !x.is_nan() && !at_most(t, x)
}

/// Merges pieces with token counts `sizes` under `cap` (see [`Packer::new`]).
pub fn merge(sizes: &[u64], cap: f64, strategy: MergeStrategy, threshold: f64) -> Vec<Group> {
    let mut packer = Packer::new(cap, strategy, threshold);
    let mut groups = Vec::new();
    for &size in sizes {
        packer.push(size, &mut groups);
    }
    packer.finish(&mut groups);
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ranges(sizes: &[u64], cap: i64, strategy: MergeStrategy, overlap: f64) -> Vec<Vec<usize>> {
        let threshold = cap as f64 * (100.0 - overlap) / 100.0;
        merge(sizes, cap as f64, strategy, threshold)
            .into_iter()
            .map(|g| g.pieces.collect())
            .collect()
    }

    #[test]
    fn spec_table() {
        use MergeStrategy::*;
        // RAGFlow's merge examples.
        assert_eq!(
            ranges(&[150, 60, 50, 30], 100, OverCap, 0.0),
            vec![vec![0], vec![1, 2], vec![3]]
        );
        assert_eq!(
            ranges(&[150, 60, 50, 30], 100, UnderCap, 0.0),
            vec![vec![0], vec![1], vec![2, 3]]
        );
        assert_eq!(
            ranges(&[150, 60, 50, 30], 100, OverCap, 50.0),
            vec![vec![0], vec![1], vec![2, 3]]
        );
        assert_eq!(
            ranges(&[60, 60, 60, 60], 100, OverCap, 0.0),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(
            ranges(&[60, 60, 60, 60], 100, UnderCap, 0.0),
            vec![vec![0], vec![1], vec![2], vec![3]]
        );
        assert_eq!(
            ranges(&[10; 8], 128, OverCap, 0.0),
            vec![(0..8).collect::<Vec<_>>()]
        );
        assert_eq!(
            ranges(&[10, 200, 10, 10, 10], 128, OverCap, 0.0),
            vec![vec![0], vec![1], vec![2, 3, 4]]
        );
        assert_eq!(
            ranges(&[10, 200, 10, 10, 10], 128, UnderCap, 0.0),
            vec![vec![0], vec![1], vec![2, 3, 4]]
        );
        assert_eq!(
            ranges(&[0, 0, 5], 0, OverCap, 0.0),
            vec![vec![0, 1], vec![2]]
        );
        assert_eq!(
            ranges(&[0, 0, 5], 0, UnderCap, 0.0),
            vec![vec![0, 1], vec![2]]
        );
        // token_size 1 still pairs two 1-token paragraphs under OVER_CAP.
        assert_eq!(
            ranges(&[1, 1, 1], 1, OverCap, 0.0),
            vec![vec![0, 1], vec![2]]
        );
    }

    #[test]
    fn nan_cap_behaves_like_python() {
        // Python: `t + s <= nan` and `t > nan` are both false.
        let under = merge(&[1, 2, 3], f64::NAN, MergeStrategy::UnderCap, f64::NAN);
        let starts: Vec<usize> = under.iter().map(|g| g.pieces.start).collect();
        assert_eq!(starts, vec![0, 1, 2]);
        let over = merge(&[1, 2, 3], f64::NAN, MergeStrategy::OverCap, f64::NAN);
        assert_eq!(over.len(), 1);
    }

    #[test]
    fn big_counts_compare_exactly() {
        // Python: 2**53 - 1 + 2 <= 2.0**53 is False.
        let cap = 9_007_199_254_740_992.0;
        let g = merge(&[(1 << 53) - 1, 2], cap, MergeStrategy::UnderCap, cap);
        assert_eq!(g.len(), 2);
        assert!(at_most(u64::MAX, f64::INFINITY) && !at_most(0, f64::NAN));
        assert!(!greater(5, f64::NAN) && greater(6, 5.5) && !greater(5, 5.5));
    }

    #[test]
    fn oversize_is_flagged() {
        let g = merge(&[5, 300, 5], 100.0, MergeStrategy::UnderCap, 100.0);
        assert_eq!(
            g.iter().map(|g| g.oversize).collect::<Vec<_>>(),
            vec![false, true, false]
        );
    }

    proptest! {
        #[test]
        fn groups_tile_and_under_cap_holds(
            sizes in proptest::collection::vec(0u64..50, 0..40),
            cap in 0i64..120,
            overlap in 0.0f64..100.0,
        ) {
            let threshold = cap as f64 * (100.0 - overlap) / 100.0;
            for strategy in [MergeStrategy::UnderCap, MergeStrategy::OverCap] {
                let groups = merge(&sizes, cap as f64, strategy, threshold);
                let mut next = 0;
                for g in &groups {
                    prop_assert_eq!(g.pieces.start, next);
                    prop_assert!(g.pieces.end > g.pieces.start);
                    prop_assert_eq!(g.tokens, sizes[g.pieces.clone()].iter().sum::<u64>());
                    next = g.pieces.end;
                    if strategy == MergeStrategy::UnderCap {
                        prop_assert!(g.oversize || g.tokens as i64 <= cap);
                    } else {
                        // At most one boundary-overflow piece past the threshold.
                        let before_last: u64 = sizes[g.pieces.start..g.pieces.end - 1].iter().sum();
                        prop_assert!(g.pieces.len() == 1 || before_last as f64 <= threshold);
                    }
                }
                prop_assert_eq!(next, sizes.len());
            }
        }
    }
}
