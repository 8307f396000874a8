//! Literal delimiter scanning with leftmost-longest semantics.
//!
//! One Aho-Corasick automaton finds every delimiter in a single pass. The
//! result always has exactly one more piece than matches: the gaps between
//! matches, empty ones included, so consecutive delimiters (`A####B` on `##`)
//! lose no text and every byte is either in a piece or in a match.

use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::error::{Error, Result};

/// What happens to the text of a delimiter match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelimiterPolicy {
    /// The match belongs to no piece.
    Drop,
    /// The match is appended to the piece before it.
    AttachPrevious,
    /// The match is prepended to the piece after it.
    AttachNext,
}

/// Pieces and delimiter matches as byte spans of the scanned text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// `matches.len() + 1` pieces, in order.
    pub pieces: Vec<Range<usize>>,
    /// The delimiter matches, in order, never overlapping.
    pub matches: Vec<Range<usize>>,
}

/// Delimiter sets with more bytes than this use an NFA (see [`DelimiterSet::new`]).
const LONG_PATTERNS: usize = 1024;

/// A compiled set of literal delimiters.
#[derive(Clone, Debug)]
pub struct DelimiterSet {
    automaton: Option<AhoCorasick>,
}

impl DelimiterSet {
    /// Compiles the delimiters. Empty strings are ignored; an empty set matches nothing.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when the automaton cannot be built (too large).
    pub fn new<S: AsRef<str>>(delimiters: &[S]) -> Result<Self> {
        // Duplicates change nothing but the automaton's size: drop them first.
        let mut literals: Vec<&str> = delimiters
            .iter()
            .map(AsRef::as_ref)
            .filter(|d| !d.is_empty())
            .collect();
        literals.sort_unstable();
        literals.dedup();
        if literals.is_empty() {
            return Ok(DelimiterSet { automaton: None });
        }
        // The DFA is fastest to search, but building it costs time per state and byte
        // class: long delimiters (a 100 000-character one) get the linear-to-build NFA.
        let total: usize = literals.iter().map(|d| d.len()).sum();
        let kind = (total > LONG_PATTERNS).then_some(AhoCorasickKind::ContiguousNFA);
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(kind)
            .build(&literals)
            .map_err(|e| Error::InvalidConfig {
                field: "delimiters",
                value: e.to_string(),
                expected: "a set of literals small enough to compile",
            })?;
        Ok(DelimiterSet {
            automaton: Some(automaton),
        })
    }

    /// True when the set has no delimiter (it matches nothing).
    pub fn is_empty(&self) -> bool {
        self.automaton.is_none()
    }

    /// The first leftmost-longest match, if any.
    pub fn find(&self, text: &str) -> Option<Range<usize>> {
        self.automaton
            .as_ref()
            .and_then(|ac| ac.find(text))
            .map(|m| m.range())
    }

    /// Byte spans of every non-overlapping, leftmost-longest match.
    pub fn find_all(&self, text: &str) -> Vec<Range<usize>> {
        match &self.automaton {
            Some(ac) => ac.find_iter(text).map(|m| m.range()).collect(),
            None => Vec::new(),
        }
    }

    /// Splits `text` at every match and places the match text by `policy`.
    pub fn scan(&self, text: &str, policy: DelimiterPolicy) -> Scan {
        let matches = self.find_all(text);
        let mut pieces = Vec::with_capacity(matches.len() + 1);
        let mut start = 0;
        for m in &matches {
            pieces.push(match policy {
                DelimiterPolicy::AttachPrevious => start..m.end,
                DelimiterPolicy::Drop | DelimiterPolicy::AttachNext => start..m.start,
            });
            start = match policy {
                DelimiterPolicy::AttachNext => m.start,
                DelimiterPolicy::Drop | DelimiterPolicy::AttachPrevious => m.end,
            };
        }
        pieces.push(start..text.len());
        Scan { pieces, matches }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn texts<'a>(text: &'a str, spans: &[Range<usize>]) -> Vec<&'a str> {
        spans.iter().map(|r| &text[r.clone()]).collect()
    }

    #[test]
    fn consecutive_delimiters_keep_an_empty_piece() {
        let set = DelimiterSet::new(&["##"]).unwrap();
        let s = set.scan("A####B", DelimiterPolicy::Drop);
        assert_eq!(texts("A####B", &s.pieces), vec!["A", "", "B"]);
        assert_eq!(s.matches, vec![1..3, 3..5]);
    }

    #[test]
    fn attach_policies() {
        let set = DelimiterSet::new(&["##"]).unwrap();
        let prev = set.scan("A####B", DelimiterPolicy::AttachPrevious);
        assert_eq!(texts("A####B", &prev.pieces), vec!["A##", "##", "B"]);
        let next = set.scan("A####B", DelimiterPolicy::AttachNext);
        assert_eq!(texts("A####B", &next.pieces), vec!["A", "##", "##B"]);
    }

    #[test]
    fn leftmost_longest_and_multibyte() {
        let set = DelimiterSet::new(&["\n", "\n\n", "。", "！"]).unwrap();
        let text = "一。二！\n\n三\n";
        let s = set.scan(text, DelimiterPolicy::Drop);
        assert_eq!(texts(text, &s.matches), vec!["。", "！", "\n\n", "\n"]);
        assert_eq!(texts(text, &s.pieces), vec!["一", "二", "", "三", ""]);
    }

    #[test]
    fn empty_set_and_empty_text() {
        let none = DelimiterSet::new::<&str>(&[]).unwrap();
        assert_eq!(none.scan("abc", DelimiterPolicy::Drop).pieces, vec![0..3]);
        let only_empty = DelimiterSet::new(&[""]).unwrap();
        assert!(only_empty.find_all("abc").is_empty());
        let set = DelimiterSet::new(&["x"]).unwrap();
        assert_eq!(set.scan("", DelimiterPolicy::Drop).pieces, vec![0..0]);
    }

    proptest! {
        #[test]
        fn pieces_and_matches_tile_the_text(
            text in "[ab#。\n]{0,40}",
            delims in proptest::collection::vec("[ab#。\n]{1,3}", 1..4),
        ) {
            let set = DelimiterSet::new(&delims).unwrap();
            let drop = set.scan(&text, DelimiterPolicy::Drop);
            prop_assert_eq!(drop.pieces.len(), drop.matches.len() + 1);
            let mut rebuilt = String::new();
            for (i, p) in drop.pieces.iter().enumerate() {
                rebuilt.push_str(&text[p.clone()]);
                if let Some(m) = drop.matches.get(i) {
                    prop_assert!(delims.iter().any(|d| d == &text[m.clone()]));
                    rebuilt.push_str(&text[m.clone()]);
                }
            }
            prop_assert_eq!(&rebuilt, &text);
            for policy in [DelimiterPolicy::AttachPrevious, DelimiterPolicy::AttachNext] {
                let joined: String = set
                    .scan(&text, policy)
                    .pieces
                    .iter()
                    .map(|p| &text[p.clone()])
                    .collect();
                prop_assert_eq!(&joined, &text);
            }
        }
    }
}
