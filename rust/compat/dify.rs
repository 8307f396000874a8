//! Dify (`langgenius/dify` @ e738086), `api/core/rag/splitter/`: the character-length splitters.
//!
//! Lengths are code points and `strip` is Python's `str.strip` (which, unlike
//! Rust's `trim`, also strips U+001C..U+001F). Separators are literals, except
//! that the base recursive splitter reads them as regexes (§4.5); the caller
//! only sends "simple" patterns, whose one metacharacter is `.` (any character
//! but a newline).

use memchr::memmem;

use crate::error::{Error, Result};
use crate::tokenizer::Tokenizer;

/// Python's `str.isspace`.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

fn chars(s: &str) -> i64 {
    s.chars().count() as i64
}

/// What a length counts: code points (upstream's only real mode) or tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    Chars,
    /// Token counts; `strict` is tiktoken's `encode`, which refuses special-token
    /// text (a `ValueError`), otherwise `encode_ordinary`.
    Tokens {
        tok: &'static Tokenizer,
        strict: bool,
    },
}

impl Length {
    /// The length of `s`.
    ///
    /// # Errors
    /// [`Error::Upstream`] `ValueError` for special-token text under strict token counts.
    pub fn of(self, s: &str) -> Result<i64> {
        match self {
            Length::Chars => Ok(chars(s)),
            Length::Tokens { tok, strict } if strict && tok.contains_special_token(s) => {
                Err(Error::Upstream {
                    class: "ValueError",
                    message: format!(
                        "Encountered text corresponding to a disallowed special token: {s:?}"
                    ),
                })
            }
            Length::Tokens { tok, .. } => Ok(tok.count(s) as i64),
        }
    }
}

/// Sizes as upstream takes them (it only refuses an overlap larger than the size).
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub chunk_size: i64,
    pub chunk_overlap: i64,
    pub keep_separator: bool,
    pub length: Length,
}

/// §4.1 + §4.2 `_merge_splits`: greedy packing with a window of whole pieces as overlap.
///
/// # Errors
/// [`Error::Upstream`] `IndexError` where a negative overlap empties the window.
pub fn merge_splits(
    splits: &[&str],
    lengths: &[i64],
    separator: &str,
    sizes: Sizes,
) -> Result<Vec<String>> {
    // Python ints do not overflow: sums of i64 lengths are exact in i128.
    let (size, overlap) = (
        i128::from(sizes.chunk_size),
        i128::from(sizes.chunk_overlap),
    );
    let sep_len = i128::from(sizes.length.of(separator)?);
    let join = |cur: &[&str]| {
        let joined = cur.join(separator);
        let t = py_strip(&joined);
        (!t.is_empty()).then(|| t.to_owned())
    };
    let mut docs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut total = 0i128;
    for (&d, &n) in splits.iter().zip(lengths) {
        let n = i128::from(n);
        let gap = |cur: &Vec<&str>| if cur.is_empty() { 0 } else { sep_len };
        if total + n + gap(&current) > size && !current.is_empty() {
            if let Some(doc) = join(&current) {
                docs.push(doc);
            }
            while total > overlap || (total + n + gap(&current) > size && total > 0) {
                let Some(&first) = current.first() else {
                    return Err(Error::Upstream {
                        class: "IndexError",
                        message: "list index out of range".into(),
                    });
                };
                // Upstream measures the piece it drops again, whatever length it was given.
                let first_len = i128::from(sizes.length.of(first)?);
                total -= first_len + if current.len() > 1 { sep_len } else { 0 };
                current.remove(0);
            }
        }
        current.push(d);
        total += n + if current.len() > 1 { sep_len } else { 0 };
    }
    if let Some(doc) = join(&current) {
        docs.push(doc);
    }
    Ok(docs)
}

/// Matches a simple pattern (literals and `.`) at byte `at` of `text`; returns the end.
fn match_at(text: &str, at: usize, pattern: &str) -> Option<usize> {
    let mut it = text[at..].char_indices();
    for p in pattern.chars() {
        let (_, c) = it.next()?;
        if !(p == c || (p == '.' && c != '\n')) {
            return None;
        }
    }
    Some(it.next().map_or(text.len(), |(i, _)| at + i))
}

/// True when a simple pattern occurs in `text` (`re.search`).
fn occurs(text: &str, pattern: &str) -> bool {
    if !pattern.contains('.') {
        return memmem::find(text.as_bytes(), pattern.as_bytes()).is_some();
    }
    text.char_indices()
        .any(|(at, _)| match_at(text, at, pattern).is_some())
}

/// `text.split(separator)` for a non-empty separator, found with `memmem` (SIMD) rather
/// than `str`'s two-way search: the splitters search the same text for several
/// separators, and again in every piece they recurse into.
fn split_on<'t>(text: &'t str, separator: &str) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut start = 0;
    for at in memmem::find_iter(text.as_bytes(), separator.as_bytes()) {
        out.push(&text[start..at]);
        start = at + separator.len();
    }
    out.push(&text[start..]);
    out
}

/// Non-overlapping leftmost matches of a simple pattern, as byte ranges.
fn find_all(text: &str, pattern: &str) -> Vec<(usize, usize)> {
    if !pattern.contains('.') {
        // memmem's matches are non-overlapping and leftmost, as `str::match_indices`'s, and
        // a UTF-8 needle only matches on character boundaries.
        return memmem::find_iter(text.as_bytes(), pattern.as_bytes())
            .map(|at| (at, at + pattern.len()))
            .collect();
    }
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() {
        match match_at(text, at, pattern) {
            Some(end) if end > at => {
                out.push((at, end));
                at = end;
            }
            _ => at += text[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// §4.4 `_split_text_with_regex`.
pub fn split_text_with_regex<'t>(
    text: &'t str,
    separator: &str,
    keep_separator: bool,
) -> Vec<&'t str> {
    let splits: Vec<&str> = if separator.is_empty() {
        text.char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect()
    } else if keep_separator {
        let mut out = Vec::new();
        let mut start = 0;
        for at in memmem::find_iter(text.as_bytes(), separator.as_bytes()) {
            out.push(&text[start..at + separator.len()]);
            start = at + separator.len();
        }
        out.push(&text[start..]);
        out
    } else {
        let mut out = Vec::new();
        let mut start = 0;
        for (a, b) in find_all(text, separator) {
            out.push(&text[start..a]);
            start = b;
        }
        out.push(&text[start..]);
        out
    };
    splits
        .into_iter()
        .filter(|s| !s.is_empty() && *s != "\n")
        .collect()
}

/// The first separator that is `""` or `present`, and the separators after it; with
/// none, the last separator and nothing after it.
fn choose(separators: &[String], present: impl Fn(&str) -> bool) -> (&str, &[String]) {
    for (i, s) in separators.iter().enumerate() {
        if s.is_empty() {
            return ("", &[]);
        }
        if present(s) {
            return (s, &separators[i + 1..]);
        }
    }
    (separators.last().map_or("", String::as_str), &[])
}

/// §4.5 `RecursiveCharacterTextSplitter._split_text`: the separator is chosen by
/// regex search, then split, merged, and long pieces recursed into.
///
/// # Errors
/// As [`merge_splits`].
pub fn recursive_split(text: &str, separators: &[String], sizes: Sizes) -> Result<Vec<String>> {
    let (separator, rest) = choose(separators, |s| occurs(text, s));
    let splits = split_text_with_regex(text, separator, sizes.keep_separator);
    let joiner = if sizes.keep_separator { "" } else { separator };
    pack(&splits, joiner, rest, sizes, |piece| {
        recursive_split(piece, rest, sizes)
    })
}

/// The loop shared by §4.5 and §6.3: short pieces merge, long ones recurse (or stay whole).
fn pack(
    splits: &[&str],
    joiner: &str,
    rest: &[String],
    sizes: Sizes,
    recurse: impl Fn(&str) -> Result<Vec<String>>,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut good: Vec<&str> = Vec::new();
    let mut good_lengths: Vec<i64> = Vec::new();
    for &piece in splits {
        let n = sizes.length.of(piece)?;
        if n < sizes.chunk_size {
            good.push(piece);
            good_lengths.push(n);
            continue;
        }
        if !good.is_empty() {
            out.extend(merge_splits(&good, &good_lengths, joiner, sizes)?);
            good.clear();
            good_lengths.clear();
        }
        if rest.is_empty() {
            out.push(piece.to_owned());
        } else {
            out.extend(recurse(piece)?);
        }
    }
    if !good.is_empty() {
        out.extend(merge_splits(&good, &good_lengths, joiner, sizes)?);
    }
    Ok(out)
}

/// §6.3 the character packer: overlap is what went in during the last `overlap` units.
/// Newlines are dropped first, as upstream's filtered `list(text)` drops them.
fn pack_characters(text: &str, sizes: Sizes) -> Result<Vec<String>> {
    let (size, overlap) = (sizes.chunk_size, sizes.chunk_overlap);
    let mut out = Vec::new();
    let (mut cur, mut cur_len, mut ov, mut ov_len) = (String::new(), 0i64, String::new(), 0i64);
    let mut buf = [0u8; 4];
    for c in text.chars().filter(|&c| c != '\n') {
        let n = sizes.length.of(c.encode_utf8(&mut buf))?;
        if cur_len + n <= size - overlap {
            cur.push(c);
            cur_len += n;
        } else if cur_len + n <= size {
            cur.push(c);
            cur_len += n;
            ov.push(c);
            ov_len += n;
        } else {
            out.push(std::mem::take(&mut cur));
            cur = std::mem::take(&mut ov);
            cur.push(c);
            cur_len = n + ov_len;
            ov_len = 0;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

/// `re.split(r" +", text)`: every run of ASCII spaces is one boundary.
fn split_space_runs(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] == b' ' {
            let end = i + bytes[i..].iter().take_while(|&&b| b == b' ').count();
            out.push(&text[start..i]);
            start = end;
            i = end;
        } else {
            i += 1;
        }
    }
    out.push(&text[start..]);
    out
}

/// §6.3 `FixedRecursiveCharacterTextSplitter.recursive_split_text`.
///
/// # Errors
/// As [`merge_splits`].
pub fn fixed_recursive_split(
    text: &str,
    separators: &[String],
    sizes: Sizes,
) -> Result<Vec<String>> {
    let (separator, rest) = choose(separators, |s| {
        memmem::find(text.as_bytes(), s.as_bytes()).is_some()
    });
    if separator.is_empty() {
        return pack_characters(text, sizes);
    }
    let raw: Vec<&str> = if separator == " " {
        split_space_runs(text)
    } else {
        split_on(text, separator)
    };
    let mut splits: Vec<String> = raw.iter().map(|s| (*s).to_owned()).collect();
    if sizes.keep_separator {
        let last = splits.len().saturating_sub(1);
        for s in &mut splits[..last] {
            s.push_str(separator);
        }
    }
    splits.retain(|s| !s.is_empty() && (separator == "\n" || s != "\n"));
    let pieces: Vec<&str> = splits.iter().map(String::as_str).collect();
    let joiner = if sizes.keep_separator { "" } else { separator };
    pack(&pieces, joiner, rest, sizes, |piece| {
        recursive_split(piece, rest, sizes)
    })
}

/// §6.2 `FixedRecursiveCharacterTextSplitter.split_text`: chunks that fit are kept verbatim.
///
/// # Errors
/// As [`merge_splits`].
pub fn fixed_split(
    text: &str,
    fixed_separator: &str,
    separators: &[String],
    sizes: Sizes,
) -> Result<Vec<String>> {
    let chunks: Vec<&str> = if fixed_separator.is_empty() {
        vec![text]
    } else {
        split_on(text, fixed_separator)
    };
    // Every length first, as upstream's one batch call takes them: a refused special
    // token raises before any split can raise its own error.
    let lengths = chunks
        .iter()
        .map(|c| sizes.length.of(c))
        .collect::<Result<Vec<_>>>()?;
    let mut out = Vec::new();
    for (chunk, n) in chunks.into_iter().zip(lengths) {
        if n > sizes.chunk_size {
            out.extend(fixed_recursive_split(chunk, separators, sizes)?);
        } else {
            out.push(chunk.to_owned());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn memmem_splits_equal_str_splits(
            text in "[ab\n。. 你]{0,30}",
            separator in prop::sample::select(vec!["\n\n", "\n", "。", ". ", " ", "a", "ab"]),
        ) {
            let expected: Vec<&str> = text.split(separator).collect();
            prop_assert_eq!(split_on(&text, separator), expected);
            // find_all and occurs read `.` as a regex; literals are what memmem serves.
            if !separator.contains('.') {
                let ranges: Vec<(usize, usize)> =
                    text.match_indices(separator).map(|(a, m)| (a, a + m.len())).collect();
                prop_assert_eq!(find_all(&text, separator), ranges);
                prop_assert_eq!(occurs(&text, separator), text.contains(separator));
            }
        }
    }

    fn sizes(size: i64, overlap: i64) -> Sizes {
        Sizes {
            chunk_size: size,
            chunk_overlap: overlap,
            keep_separator: true,
            length: Length::Chars,
        }
    }

    fn p() -> Vec<String> {
        ["\n\n", "。", ". ", " ", ""].map(String::from).to_vec()
    }

    #[test]
    fn merge_examples() {
        let s = ["aa", "bb", "cc", "dd", "ee"];
        let l = [2; 5];
        assert_eq!(
            merge_splits(&s, &l, " ", sizes(5, 0)).unwrap(),
            vec!["aa bb", "cc dd", "ee"]
        );
        assert_eq!(
            merge_splits(&s, &l, " ", sizes(8, 3)).unwrap(),
            vec!["aa bb cc", "cc dd ee"]
        );
        let w = ["The ", "quick ", "brown ", "fox ", "jumps"];
        let wl: Vec<i64> = w.iter().map(|x| chars(x)).collect();
        assert_eq!(
            merge_splits(&w, &wl, "", sizes(12, 6)).unwrap(),
            vec!["The quick", "quick brown", "brown fox", "fox jumps"]
        );
        let neg = ["aa", "bb", "cc", "dd", "ee", "ff"];
        assert!(merge_splits(&neg, &[2; 6], " ", sizes(5, -1)).is_err());
    }

    #[test]
    fn fixed_examples() {
        let f = |t: &str, size, ov| fixed_split(t, "\n\n", &p(), sizes(size, ov)).unwrap();
        assert_eq!(
            f("the quick brown fox jumps over the lazy dog", 15, 0),
            vec!["the quick", "brown fox", "jumps over the", "lazy dog"]
        );
        assert_eq!(
            f("abcdefghijklmnopqrstuvwxyz", 10, 3),
            vec!["abcdefghij", "hijklmnopq", "opqrstuvwx", "vwxyz"]
        );
        assert_eq!(
            f("人工\n智能\n改变\n世界", 5, 0),
            vec!["人工智能改", "变世界"]
        );
        assert_eq!(
            f("aa   bb    cc  dd ee ff gg", 8, 0),
            vec!["aa bb", "cc dd", "ee ff gg"]
        );
        assert_eq!(f("   aa bb cc dd ee", 8, 0), vec!["aa bb", "cc dd ee"]);
        assert_eq!(f("a\n\n\n\nb\n\n\nc", 50, 0), vec!["a", "", "b", "\nc"]);
        assert_eq!(
            f("ab\u{1c} cd\u{1c} ef gh", 5, 0),
            vec!["ab", "cd", "ef gh"]
        );
    }

    #[test]
    fn regex_split_examples() {
        assert_eq!(
            split_text_with_regex("a\n\nb\n", "\n", true),
            vec!["a\n", "b\n"]
        );
        assert_eq!(
            split_text_with_regex("a. b. c", ". ", true),
            vec!["a. ", "b. ", "c"]
        );
        assert_eq!(split_text_with_regex("x. y", ". ", false), vec!["x", "y"]);
    }
}
