//! Greedy merge of consecutive pieces by their token counts.
//!
//! The two strategies are RAGFlow's `_merge_paragraph_groups` (spec
//! `ragflow.md` §5). Groups are contiguous, so they are returned as index
//! ranges; nothing is split, reordered or dropped.

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

/// Merges pieces with token counts `sizes` under `cap`.
///
/// `threshold` only matters for [`MergeStrategy::OverCap`]: RAGFlow passes
/// `cap * (100 - overlapped_percent) / 100`. The cap is a float because
/// upstream accepts any number; every test is written as Python writes it
/// (`t + s <= cap` to join, `t > cap` for oversize), so NaN behaves the same.
/// Counts convert to `f64` exactly below 2^53.
pub fn merge(sizes: &[u64], cap: f64, strategy: MergeStrategy, threshold: f64) -> Vec<Group> {
    let exceeds_cap = |t: u64| (t as f64) > cap;
    let mut groups = Vec::new();
    let mut open: Option<(usize, u64)> = None; // (first piece, running total)
    let close = |groups: &mut Vec<Group>, first: usize, end: usize, tokens: u64| {
        groups.push(Group {
            pieces: first..end,
            tokens,
            oversize: end - first == 1 && exceeds_cap(tokens),
        });
    };
    for (i, &size) in sizes.iter().enumerate() {
        match strategy {
            MergeStrategy::UnderCap => match open {
                Some((first, t)) if ((t + size) as f64) <= cap => open = Some((first, t + size)),
                _ => {
                    if let Some((first, t)) = open.take() {
                        close(&mut groups, first, i, t);
                    }
                    if exceeds_cap(size) {
                        close(&mut groups, i, i + 1, size);
                    } else {
                        open = Some((i, size));
                    }
                }
            },
            MergeStrategy::OverCap => {
                if exceeds_cap(size) {
                    if let Some((first, t)) = open.take() {
                        close(&mut groups, first, i, t);
                    }
                    close(&mut groups, i, i + 1, size);
                    continue;
                }
                open = match open {
                    None => Some((i, size)),
                    Some((first, t)) if (t as f64) > threshold => {
                        close(&mut groups, first, i, t);
                        Some((i, size))
                    }
                    Some((first, t)) => Some((first, t + size)),
                };
            }
        }
    }
    if let Some((first, t)) = open {
        close(&mut groups, first, sizes.len(), t);
    }
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
        // ragflow.md §5 examples.
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
