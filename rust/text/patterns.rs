//! The cleaning patterns (Dify's `CleanProcessor`, and `CleanRules`), matched in linear time.
//!
//! Python's `re` backtracks: `[a-zA-Z0-9_.+-]+@` on 200 000 letters without an `@`
//! tries every start and takes quadratic time. These are the same patterns, with the same
//! leftmost-first, greedy (or lazy) preferences, on `regex-automata`, whose searches are
//! linear in the text. Python's `\s` is `str.isspace`, which also has U+001C..U+001F.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;

use crate::error::{Error, Result};

/// Python's `\S` for `str` patterns.
const PY_NON_SPACE: &str = r"[^\s\x1C-\x1F]";

/// A named pattern: built once, on first use.
pub struct Pattern {
    name: &'static str,
    regex: LazyLock<std::result::Result<Regex, String>>,
}

impl Pattern {
    const fn new(name: &'static str, build: fn() -> std::result::Result<Regex, String>) -> Self {
        Pattern {
            name,
            regex: LazyLock::new(build),
        }
    }

    /// The compiled regex.
    ///
    /// # Errors
    /// Only if a built-in pattern failed to compile (a unit test builds every one).
    pub fn regex(&self) -> Result<&Regex> {
        self.regex.as_ref().map_err(|e| Error::InvalidConfig {
            field: self.name,
            value: e.clone(),
            expected: "a pattern regex-automata compiles",
        })
    }

    /// Byte ranges of every non-overlapping, leftmost-first match.
    ///
    /// # Errors
    /// See [`Pattern::regex`].
    pub fn find_all(&self, text: &str) -> Result<Vec<(usize, usize)>> {
        Ok(self
            .regex()?
            .find_iter(text)
            .map(|m| (m.start(), m.end()))
            .collect())
    }
}

fn build(pattern: &str) -> std::result::Result<Regex, String> {
    Regex::new(pattern).map_err(|e| e.to_string())
}

/// Dify's email pattern (`remove_urls_emails`).
pub static EMAIL: Pattern = Pattern::new("email pattern", || {
    build(r"[a-zA-Z0-9_.+\-]+@[a-zA-Z0-9\-]+\.[a-zA-Z0-9\-.]+")
});
/// Dify's Markdown link: `[text](http...)`.
pub static DIFY_LINK: Pattern = Pattern::new("link pattern", || {
    build(r"\[([^\]]*)\]\((https?://[^)]+)\)")
});
/// Dify's Markdown image: `![...](http...)` with a lazy alt text (group 1 is the URL).
pub static DIFY_IMAGE: Pattern =
    Pattern::new("image pattern", || build(r"!\[.*?\]\((https?://[^)]+)\)"));
/// A bare URL: `https?://` and the non-space characters after it.
pub static URL: Pattern = Pattern::new("url pattern", || {
    build(&format!("https?://{PY_NON_SPACE}+"))
});
/// `CleanRules`' Markdown link or image, kept whole.
pub static LINK_OR_IMAGE: Pattern = Pattern::new("markdown link pattern", || {
    build(r"!?\[([^\]]*)\]\((https?://[^)]+)\)")
});

/// Characters Dify's cleaning deletes: C0 controls but tab, LF and CR, DEL, U+FFFE.
pub(crate) fn is_deleted_control(c: char) -> bool {
    matches!(c, '\x00'..='\x08' | '\x0b' | '\x0c' | '\x0e'..='\x1f' | '\x7f' | '\u{fffe}')
}

/// Dify's horizontal white space (`remove_extra_spaces` collapses runs of 2+ to one space).
pub(crate) fn is_dify_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\x0c' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{180e}' | '\u{2000}'
            ..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// The always-on part of `CleanProcessor.clean`: `<|` and `|>` to `<` and `>`, then
/// control characters and U+FFFE removed. Each step runs only when the text needs it:
/// most text needs none.
pub fn dify_base(text: &str) -> String {
    let mut out = Cow::Borrowed(text);
    if out.contains("<|") {
        out = Cow::Owned(out.replace("<|", "<"));
    }
    if out.contains("|>") {
        out = Cow::Owned(out.replace("|>", ">"));
    }
    // Blocks without an early exit, so the test runs on vectors.
    let has_control = out.as_bytes().chunks(64).any(|block| {
        block.iter().fold(false, |any, &b| {
            any | matches!(b, 0x00..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F)
        })
    });
    if has_control || memchr::memmem::find(out.as_bytes(), "\u{fffe}".as_bytes()).is_some() {
        out = Cow::Owned(out.chars().filter(|&c| !is_deleted_control(c)).collect());
    }
    out.into_owned()
}

/// `remove_extra_spaces`: 3+ newlines become two, then runs of 2+ spaces become one.
pub fn dify_extra_spaces(text: &str) -> String {
    collapse_spaces(&collapse_newlines(text))
}

/// Runs of three or more `\n` become two.
fn collapse_newlines(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out = String::new();
    let (mut copied, mut i) = (0, 0);
    while let Some(k) = memchr::memchr(b'\n', &b[i..]) {
        let start = i + k;
        let end = start + b[start..].iter().take_while(|&&c| c == b'\n').count();
        if end - start >= 3 {
            out.push_str(&text[copied..start]);
            out.push_str("\n\n");
            copied = end;
        }
        i = end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Runs of two or more Dify spaces become one `" "`; the text between runs is copied
/// in slices. A space is ASCII or starts with a lead byte (0xC2, 0xE1..=0xE3), which
/// never occurs inside another character, so bytes that cannot start one are skipped
/// one table lookup at a time.
fn collapse_spaces(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    loop {
        while i < b.len() && !MAY_START_SPACE[usize::from(b[i])] {
            i += 1;
        }
        if i == b.len() {
            break;
        }
        let start = i;
        let mut run = 0;
        while let Some(len) = space_at(text, i) {
            run += 1;
            i += len;
        }
        if run >= 2 {
            out.push_str(&text[copied..start]);
            out.push(' ');
            copied = i;
        } else if run == 0 {
            i += 1; // a lead byte of some other character
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Bytes a Dify space can start with.
static MAY_START_SPACE: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let starts = [b'\t', 0x0C, b'\r', b' ', 0xC2, 0xE1, 0xE2, 0xE3];
    while k < starts.len() {
        t[starts[k] as usize] = true;
        k += 1;
    }
    t
};

/// The byte length of the Dify space at `text[i..]`, if one starts there.
#[inline]
fn space_at(text: &str, i: usize) -> Option<usize> {
    match *text.as_bytes().get(i)? {
        b'\t' | 0x0C | b'\r' | b' ' => Some(1),
        0xC2 | 0xE1..=0xE3 => text[i..]
            .chars()
            .next()
            .filter(|&c| is_dify_space(c))
            .map(char::len_utf8),
        _ => None,
    }
}

/// Replaces every match of `pattern` with what `with` returns for it.
fn replace_all(
    text: &str,
    pattern: &Pattern,
    mut with: impl FnMut(&str, &Captures) -> String,
) -> Result<String> {
    let regex = pattern.regex()?;
    let mut caps = regex.create_captures();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for m in regex.find_iter(text) {
        regex.captures(
            regex_automata::Input::new(text).range(m.start()..),
            &mut caps,
        );
        out.push_str(&text[at..m.start()]);
        out.push_str(&with(text, &caps));
        at = m.end();
    }
    out.push_str(&text[at..]);
    Ok(out)
}

const MARKER: &str = "__MARKDOWN_PLACEHOLDER_";

/// `remove_urls_emails`: emails deleted; Markdown links, then images, swapped for
/// placeholders; bare URLs deleted; placeholders put back by string replacement (so a
/// URL's trailing punctuation goes with it, as upstream's does).
///
/// # Errors
/// Only if a built-in pattern failed to compile.
pub fn dify_urls_emails(text: &str) -> Result<String> {
    // Markers typed in the text (or in a kept link) make the order of replacement matter;
    // only then is it replayed one placeholder at a time.
    let typed = text.contains("PLACEHOLDER");
    let text = replace_all(text, &EMAIL, |_, _| String::new())?;
    let mut kept: Vec<String> = Vec::new();
    let text = replace_all(&text, &DIFY_LINK, |t, caps| {
        let whole = caps.get_match().map_or("", |m| &t[m.range()]);
        kept.push(whole.to_owned());
        format!("{MARKER}{}__", kept.len() - 1)
    })?;
    let text = replace_all(&text, &DIFY_IMAGE, |t, caps| {
        let url = caps.get_group(1).map_or("", |g| &t[g.range()]);
        kept.push(format!("![image]({url})"));
        format!("{MARKER}{}__", kept.len() - 1)
    })?;
    let text = replace_all(&text, &URL, |_, _| String::new())?;
    Ok(restore(&text, &kept, typed))
}

/// `text.replace(f"{MARKER}{i}__", kept[i])` for i in order.
fn restore(text: &str, kept: &[String], typed: bool) -> String {
    if kept.is_empty() {
        return text.to_owned();
    }
    if typed || kept.iter().any(|k| k.contains(MARKER)) {
        let mut out = text.to_owned();
        for (i, k) in kept.iter().enumerate() {
            out = out.replace(&format!("{MARKER}{i}__"), k);
        }
        return out;
    }
    // Every marker is one of ours, none overlapping and none brought in by a
    // replacement, so one pass gives the same text.
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (i, _) in text.match_indices(MARKER) {
        if i < at {
            continue;
        }
        let digits_end = text[i + MARKER.len()..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(text.len(), |d| i + MARKER.len() + d);
        let digits = &text[i + MARKER.len()..digits_end];
        if let Some(k) = digits.parse::<usize>().ok().filter(|&k| k < kept.len()) {
            if text[digits_end..].starts_with("__") {
                out.push_str(&text[at..i]);
                out.push_str(&kept[k]);
                at = digits_end + 2;
            }
        }
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for p in [&EMAIL, &DIFY_LINK, &DIFY_IMAGE, &URL, &LINK_OR_IMAGE] {
            assert!(p.regex().is_ok(), "{}", p.name);
        }
    }

    #[test]
    fn dify_examples() {
        let text = "Mail a.b@c.org, see [docs](https://x.io/a) and ![pic](http://y.io/p.png) \
                    or https://z.io/q?x=1. Bye";
        assert_eq!(
            dify_urls_emails(text).unwrap(),
            "Mail , see [docs](https://x.io/a) and ![pic](http://y.io/p.png) or  Bye"
        );
        // An alt text holding `]` is no link; the lazy image pattern takes it.
        assert_eq!(
            dify_urls_emails("![a]b](http://y.io/p.png)").unwrap(),
            "![image](http://y.io/p.png)"
        );
        assert_eq!(dify_base("a<|b|>c\x07\u{fffe}d"), "a<b>cd");
        assert_eq!(
            dify_extra_spaces("a\n\n\n\nb  \t c \u{3000}d"),
            "a\n\nb c d"
        );
        assert_eq!(dify_extra_spaces("x\n\ny\n"), "x\n\ny\n");
    }

    #[test]
    fn hostile_runs_finish() {
        let text = "a".repeat(200_000) + &"[".repeat(100_000) + &"![".repeat(50_000);
        assert_eq!(dify_urls_emails(&text).unwrap(), text);
    }

    #[test]
    fn literal_markers_are_restored_as_upstream_does() {
        // `__MARKDOWN_PLACEHOLDER_0__` typed in the text is replaced by the first link.
        let text = "__MARKDOWN_PLACEHOLDER_0__ [a](https://b.c) __MARKDOWN_PLACEHOLDER_7__";
        assert_eq!(
            dify_urls_emails(text).unwrap(),
            "[a](https://b.c) [a](https://b.c) __MARKDOWN_PLACEHOLDER_7__"
        );
        // Overlapping typed markers: replaced in index order, as str.replace does.
        let text =
            "[a](https://b.c) [d](https://e.f) __MARKDOWN_PLACEHOLDER_1__MARKDOWN_PLACEHOLDER_0__";
        assert_eq!(
            dify_urls_emails(text).unwrap(),
            "[a](https://b.c) [d](https://e.f) __MARKDOWN_PLACEHOLDER_1[a](https://b.c)"
        );
    }
}
