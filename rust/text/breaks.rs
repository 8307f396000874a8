//! Ranked break points at token boundaries (the `SentenceWindows` contract).
//!
//! A break character ends a break after itself. Its break is credited to the
//! start of the token that holds that position, so breaks always fall on token
//! boundaries. Crediting backwards never cuts a word: a token that holds a
//! break character inside it starts with punctuation or white space. A boundary
//! inside a UTF-8 character is never a break. A boundary's class is the best
//! (lowest) class credited to it.

use crate::error::{Error, Result};

/// One break character: after `ch`, or after `ch` only when white space or the
/// end of the text follows (`3.14` is no sentence end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakChar {
    pub ch: char,
    pub needs_space: bool,
}

/// Break classes, best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BreakClasses(Vec<Vec<BreakChar>>);

/// "No break here".
pub const NONE: u8 = u8::MAX;

impl BreakClasses {
    /// Parses classes given as strings: `"x"` is the character, `"x "` the character
    /// when white space or the end follows.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for an entry of another shape, or more than 254 classes.
    pub fn parse(classes: &[Vec<String>]) -> Result<Self> {
        if classes.len() >= usize::from(NONE) {
            return Err(Error::InvalidConfig {
                field: "break_classes",
                value: format!("{} classes", classes.len()),
                expected: "fewer than 255 classes",
            });
        }
        let parse_one = |entry: &String| {
            let mut chars = entry.chars();
            match (chars.next(), chars.next(), chars.next()) {
                (Some(ch), None, _) => Ok(BreakChar {
                    ch,
                    needs_space: false,
                }),
                (Some(ch), Some(' '), None) => Ok(BreakChar {
                    ch,
                    needs_space: true,
                }),
                _ => Err(Error::InvalidConfig {
                    field: "break_classes",
                    value: format!("{entry:?}"),
                    expected: "entries of one character, optionally followed by a space",
                }),
            }
        };
        classes
            .iter()
            .map(|class| class.iter().map(parse_one).collect())
            .collect::<Result<_>>()
            .map(BreakClasses)
    }

    /// The best class of `c` followed by `next`, or [`NONE`].
    fn class_of(&self, c: char, next: Option<char>) -> u8 {
        let spaced = next.is_none_or(char::is_whitespace);
        self.0
            .iter()
            .position(|class| {
                class
                    .iter()
                    .any(|b| b.ch == c && (spaced || !b.needs_space))
            })
            .map_or(NONE, |k| k as u8)
    }
}

/// The classes of token boundaries `0..k` of a window, where `k = starts.len() - 1`.
///
/// `text` is a slice that begins at `starts[0]` (offsets are relative to it) and
/// holds at least one character past `starts[k]` when the text goes on; the
/// last entry only bounds token `k - 1`. Boundary 0 is reported as [`NONE`]: the
/// character before the window is not in it, and no caller asks.
pub fn classify_window(text: &str, starts: &[usize], classes: &BreakClasses) -> Vec<u8> {
    let Some(k) = starts.len().checked_sub(1) else {
        return Vec::new();
    };
    let mut out = vec![NONE; k];
    let limit = starts[k];
    let mut token = 0; // the token holding the position after the current character
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        let next = chars.peek().copied();
        let after = next.map_or(text.len(), |(i, _)| i);
        if after >= limit {
            break; // credited to boundary k or later, outside the window
        }
        let class = classes.class_of(c, next.map(|(_, ch)| ch));
        if class == NONE {
            continue;
        }
        while token + 1 < k && starts[token + 1] <= after {
            token += 1;
        }
        let at = starts[token];
        if token > 0 && text.is_char_boundary(at) {
            out[token] = out[token].min(class);
        }
    }
    out
}

/// The class of every token boundary `0..=starts.len()` of a whole text (boundary
/// `i` is where token `i` starts; the ends of the text are [`NONE`]).
pub fn classify(text: &str, starts: &[u32], classes: &BreakClasses) -> Vec<u8> {
    let mut bounds: Vec<usize> = starts.iter().map(|&s| s as usize).collect();
    if let Some(first) = bounds.first_mut() {
        *first = 0;
    }
    bounds.push(text.len());
    let mut out = classify_window(text, &bounds, classes);
    out.push(NONE);
    out
}

/// The token-aware plan's classes (as `ferrochunk.config.BREAK_CLASSES`), for tests.
#[cfg(test)]
pub fn default_classes() -> BreakClasses {
    let class = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect();
    BreakClasses::parse(&[
        class(&["\n"]),
        class(&["。", "！", "？", "!", "?", ". ", "… ", "； "]),
        class(&["，", "；", "：", ",", ";", ":", "、"]),
        class(&[" ", "\t"]),
    ])
    .unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::Encoding;

    fn breaks(text: &str) -> Vec<(String, u8)> {
        let starts = Encoding::Cl100kBase
            .load()
            .unwrap()
            .token_starts(text)
            .unwrap();
        let classes = classify(text, &starts, &default_classes());
        (1..starts.len())
            .filter(|&i| classes[i] != NONE)
            .map(|i| (text[..starts[i] as usize].to_owned(), classes[i]))
            .collect()
    }

    #[test]
    fn punctuation_and_spaces_rank() {
        assert_eq!(
            breaks("Hello, world! How are you?"),
            // The space after "," is credited to where " world" starts.
            vec![
                ("Hello,".into(), 2),
                ("Hello, world!".into(), 1),
                ("Hello, world! How".into(), 3),
                ("Hello, world! How are".into(), 3),
            ]
        );
        // A decimal point is no sentence end.
        assert!(breaks("pi is 3.14 ok").iter().all(|(_, c)| *c != 1));
    }

    #[test]
    fn bad_entries_are_rejected() {
        assert!(BreakClasses::parse(&[vec!["ab".into()]]).is_err());
        assert!(BreakClasses::parse(&[vec![String::new()]]).is_err());
    }
}
