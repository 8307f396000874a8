//! `CleanRules`: Dify's cleaning before segmentation, with a map back to the original.
//!
//! Each cleaned character carries the span of original characters it stands for: itself
//! for a kept character; for a replacement, one original character each, the last one
//! reaching the end of what was replaced; deleted characters map nowhere. The steps run
//! in upstream's order (Dify's `CleanProcessor.clean`, langgenius/dify
//! `api/core/rag/cleaner/clean_processor.py`), each on the previous step's output, and a
//! URL inside a Markdown link or image stays (the link is kept whole). Offsets are in
//! characters (code points), as Python indexes a `str`.
//!
//! The reference (`ferrochunk/reference/clean.py`) does the same with Python's `re` and
//! numpy; the two are compared on hypothesis text in `tests/test_clean_and_rules.py`.

use super::patterns::{is_deleted_control, is_dify_space, Pattern, EMAIL, LINK_OR_IMAGE, URL};
use crate::error::Result;

/// Which optional steps run (the fixed ones always do).
#[derive(Clone, Copy, Debug, Default)]
pub struct CleanRules {
    pub remove_extra_spaces: bool,
    pub remove_urls_emails: bool,
}

/// A cleaned text and, for each of its characters, the original `[start, end)`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Cleaned {
    pub text: String,
    pub starts: Vec<u64>,
    pub ends: Vec<u64>,
}

/// The text being cleaned, one entry per character.
struct Work {
    chars: Vec<char>,
    starts: Vec<u64>,
    ends: Vec<u64>,
}

impl Work {
    /// Replaces each `[a, b)` (in characters; sorted, not overlapping) with `with`.
    fn substitute(self, matches: &[(usize, usize)], with: &str) -> Work {
        if matches.is_empty() {
            return self;
        }
        let with: Vec<char> = with.chars().collect();
        let n = self.chars.len();
        let mut out = Work {
            chars: Vec::with_capacity(n),
            starts: Vec::with_capacity(n),
            ends: Vec::with_capacity(n),
        };
        let mut at = 0;
        for &(a, b) in matches {
            out.keep(&self, at, a);
            let (start, end) = (self.starts[a], self.ends[b - 1]);
            for (k, &c) in with.iter().enumerate() {
                let s = (start + k as u64).min(end - 1);
                out.chars.push(c);
                out.starts.push(s);
                out.ends.push(if k + 1 == with.len() { end } else { s + 1 });
            }
            at = b;
        }
        out.keep(&self, at, n);
        out
    }

    /// Appends `from`'s characters `a..b` as they are.
    fn keep(&mut self, from: &Work, a: usize, b: usize) {
        self.chars.extend_from_slice(&from.chars[a..b]);
        self.starts.extend_from_slice(&from.starts[a..b]);
        self.ends.extend_from_slice(&from.ends[a..b]);
    }

    /// Every non-overlapping `[a, b)` where `hit` holds for `min..` characters in a row
    /// (`min` 1: each such character on its own).
    fn runs(&self, min: usize, hit: impl Fn(char) -> bool) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        let mut i = 0;
        while i < self.chars.len() {
            if !hit(self.chars[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < self.chars.len() && hit(self.chars[i]) && (min > 1 || i == start) {
                i += 1;
            }
            if i - start >= min {
                found.push((start, i));
            }
        }
        found
    }

    /// Every non-overlapping, leftmost occurrence of the two characters `pair`.
    fn pairs(&self, pair: [char; 2]) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        let mut i = 0;
        while i + 1 < self.chars.len() {
            if self.chars[i] == pair[0] && self.chars[i + 1] == pair[1] {
                found.push((i, i + 2));
                i += 2;
            } else {
                i += 1;
            }
        }
        found
    }

    /// The matches of a pattern, in characters.
    fn find(&self, pattern: &Pattern) -> Result<Vec<(usize, usize)>> {
        let text: String = self.chars.iter().collect();
        let bytes = pattern.find_all(&text)?;
        // Byte offsets to character offsets, in one pass (both are sorted).
        let mut char_of = Vec::with_capacity(bytes.len() * 2);
        let mut wanted = bytes.iter().flat_map(|&(a, b)| [a, b]).peekable();
        for (k, (byte, _)) in text.char_indices().chain([(text.len(), ' ')]).enumerate() {
            while wanted.peek() == Some(&byte) {
                wanted.next();
                char_of.push(k);
            }
        }
        Ok(char_of.chunks(2).map(|p| (p[0], p[1])).collect())
    }

    /// Deletes bare URLs, leaving Markdown links and images (text and URL) whole; a URL
    /// that runs into a link stops where the link starts.
    fn remove_urls(self) -> Result<Work> {
        let links = self.find(&LINK_OR_IMAGE)?;
        let mut cuts = Vec::new();
        for (start, mut end) in self.find(&URL)? {
            let after = links.partition_point(|&(a, _)| a <= start);
            if after > 0 && start < links[after - 1].1 {
                continue; // inside a link
            }
            if let Some(&(next, _)) = links.get(after) {
                if next < end {
                    end = next;
                }
            }
            cuts.push((start, end));
        }
        Ok(self.substitute(&cuts, ""))
    }
}

/// Cleans `text` by `rules`.
///
/// # Errors
/// Only if a built-in pattern failed to compile.
pub fn clean(text: &str, rules: CleanRules) -> Result<Cleaned> {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len() as u64;
    let mut w = Work {
        chars,
        starts: (0..n).collect(),
        ends: (1..=n).collect(),
    };
    let found = w.pairs(['<', '|']);
    w = w.substitute(&found, "<");
    let found = w.pairs(['|', '>']);
    w = w.substitute(&found, ">");
    let found = w.runs(1, is_deleted_control);
    w = w.substitute(&found, "");
    if rules.remove_extra_spaces {
        let found = w.runs(3, |c| c == '\n');
        w = w.substitute(&found, "\n\n");
        let found = w.runs(2, is_dify_space);
        w = w.substitute(&found, " ");
    }
    if rules.remove_urls_emails {
        let found = w.find(&EMAIL)?;
        w = w.substitute(&found, "");
        w = w.remove_urls()?;
    }
    Ok(Cleaned {
        text: w.chars.iter().collect(),
        starts: w.starts,
        ends: w.ends,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, spaces: bool, urls: bool) -> Cleaned {
        clean(
            text,
            CleanRules {
                remove_extra_spaces: spaces,
                remove_urls_emails: urls,
            },
        )
        .unwrap()
    }

    #[test]
    fn replacements_map_to_what_they_replaced() {
        let c = run("a<|b|>\n\n\n\nc  d\x01e", true, false);
        assert_eq!(c.text, "a<b>\n\nc de");
        // "<" stands for "<|" (1..3), "\n\n" for the four newlines (6..10).
        assert_eq!((c.starts[1], c.ends[1]), (1, 3));
        assert_eq!((c.starts[4], c.ends[4]), (6, 7));
        assert_eq!((c.starts[5], c.ends[5]), (7, 10));
        // The control character is gone; "e" is still original character 15.
        assert_eq!((c.starts[9], c.ends[9]), (15, 16));
    }

    #[test]
    fn urls_go_and_links_stay() {
        let c = run(
            "see https://x.y/z and [t](https://a.b) or me@x.io ok",
            false,
            true,
        );
        assert_eq!(c.text, "see  and [t](https://a.b) or  ok");
        let c = run("https://x.y[t](https://a.b)", false, true);
        assert_eq!(c.text, "[t](https://a.b)");
        assert_eq!(c.starts[0], 11);
    }

    #[test]
    fn multibyte_characters_index_as_characters() {
        let c = run("é  ü https://ä.b", true, true);
        assert_eq!(c.text, "é ü ");
        assert_eq!((c.starts[1], c.ends[1]), (1, 3));
        assert_eq!((c.starts[2], c.ends[2]), (3, 4));
    }
}
