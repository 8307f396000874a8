//! §6 `naive_merge` (and the §7 image variant's grouping) and §9 `parser_txt`.
//!
//! Pieces are found in one Aho-Corasick pass per section (leftmost-longest,
//! the same as upstream's longest-first regex alternation), counted in
//! parallel, merged by `merge.rs`, and only then assembled into strings.

use std::borrow::Cow;

use crate::contracts::merge::{merge, MergeStrategy};
use crate::error::Result;
use crate::text::scan::{DelimiterPolicy, DelimiterSet};

use super::delim::{has_wrapped_delimiter, normalize_text_newlines, parse_delimiter_field};
use super::num_tokens_batch;
use super::overlap::{apply_overlap, Percent};

/// A section: its text and its position tag (`""` for none).
#[derive(Clone, Copy, Debug)]
pub struct Section<'a> {
    pub text: &'a str,
    pub pos: &'a str,
}

/// The sizing knobs, already computed the way upstream computes them.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// `chunk_token_num` as a float (upstream compares ints and floats exactly).
    pub cap: f64,
    /// `cap * (100 - overlapped_percent) / 100.0`.
    pub threshold: f64,
    pub strategy: MergeStrategy,
    /// The raw `overlapped_percent`.
    pub percent: Percent,
}

/// Chunks and, for each, the sections its paragraphs came from (in order, repeats kept).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    pub chunks: Vec<String>,
    pub sections: Vec<Vec<usize>>,
}

/// The non-empty pieces between delimiter matches.
fn pieces<'t>(set: &DelimiterSet, text: &'t str) -> impl Iterator<Item = &'t str> {
    set.scan(text, DelimiterPolicy::Drop)
        .pieces
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(move |r| &text[r])
}

/// §6: split on the delimiter field, then merge by token count.
///
/// # Errors
/// [`crate::Error::Upstream`] where upstream's overlap arithmetic raises (NaN/Inf).
pub fn naive_merge(sections: &[Section<'_>], delimiter: &str, budget: Budget) -> Result<Merged> {
    let texts: Vec<Cow<'_, str>> = sections
        .iter()
        .map(|s| normalize_text_newlines(s.text))
        .collect();
    let dels = parse_delimiter_field(delimiter);
    let set = DelimiterSet::new(&dels)?;
    // (paragraph text with its "\n", section index)
    let mut paragraphs: Vec<(String, usize)> = Vec::new();
    for (k, text) in texts.iter().enumerate() {
        if dels.is_empty() {
            paragraphs.push((format!("\n{text}"), k));
        } else {
            paragraphs.extend(pieces(&set, text).map(|p| (format!("\n{p}"), k)));
        }
    }
    let sizes = num_tokens_batch(&paragraphs.iter().map(|p| &p.0).collect::<Vec<_>>())?;

    if has_wrapped_delimiter(delimiter) {
        // §6.2: one chunk per piece; the pos only on pieces of 8 tokens or more.
        let mut out = Merged::default();
        for ((mut text, k), size) in paragraphs.into_iter().zip(sizes) {
            let pos = sections[k].pos;
            if size >= 8 && !pos.is_empty() && !text.contains(pos) {
                text.push_str(pos);
            }
            out.chunks.push(text);
            out.sections.push(vec![k]);
        }
        return Ok(out);
    }

    // §6.3: merge, rebuild with each pos after the first paragraph that brings it, overlap.
    let mut out = Merged::default();
    for group in merge(&sizes, budget.cap, budget.strategy, budget.threshold) {
        let mut text = String::new();
        let mut from = Vec::with_capacity(group.pieces.len());
        for (para, k) in &paragraphs[group.pieces] {
            text.push_str(para);
            let pos = sections[*k].pos;
            if !pos.is_empty() && !text.contains(pos) {
                text.push_str(pos);
            }
            from.push(*k);
        }
        out.chunks.push(text);
        out.sections.push(from);
    }
    apply_overlap(&mut out.chunks, budget.percent)?;
    Ok(out)
}

/// §9 `RAGFlowTxtParser.parser_txt`: pieces (delimiters kept only after a
/// non-empty segment), merged OVER_CAP by their own counts, joined by `\n`.
///
/// # Errors
/// Only if the delimiter automaton cannot be built.
pub fn parser_txt(
    txt: &str,
    delimiter: &str,
    keep_delimiters: bool,
    cap: f64,
    threshold: f64,
) -> Result<Vec<String>> {
    let txt = normalize_text_newlines(txt);
    let set = DelimiterSet::new(&parse_delimiter_field(delimiter))?;
    let scan = set.scan(&txt, DelimiterPolicy::Drop);
    let pieces: Vec<&str> = scan
        .pieces
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(i, r)| match scan.matches.get(i) {
            Some(m) if keep_delimiters => &txt[r.start..m.end],
            _ => &txt[r.clone()],
        })
        .collect();
    let sizes = num_tokens_batch(&pieces)?;
    Ok(merge(&sizes, cap, MergeStrategy::OverCap, threshold)
        .into_iter()
        .map(|g| pieces[g.pieces].join("\n"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(cap: f64, percent: i64, strategy: MergeStrategy) -> Budget {
        Budget {
            cap,
            threshold: cap * (100 - percent) as f64 / 100.0,
            strategy,
            percent: Percent::Int(percent),
        }
    }

    fn run(texts: &[(&str, &str)], delimiter: &str, b: Budget) -> Vec<String> {
        let secs: Vec<Section<'_>> = texts
            .iter()
            .map(|&(text, pos)| Section { text, pos })
            .collect();
        naive_merge(&secs, delimiter, b).unwrap().chunks
    }

    #[test]
    fn spec_examples() {
        let over = |cap| budget(cap, 0, MergeStrategy::OverCap);
        assert_eq!(
            run(&[("A####B", "")], "`##`", over(128.0)),
            vec!["\nA", "\nB"]
        );
        assert!(run(&[("####", "")], "`##`", over(128.0)).is_empty());
        assert_eq!(run(&[("A####B", "")], "##", over(128.0)), vec!["\nA\nB"]);
        assert_eq!(run(&[("A####B", "")], "##", over(1.0)), vec!["\nA", "\nB"]);
        assert_eq!(
            run(
                &[("first part。second part。third part", "")],
                "\n!?。；！？",
                over(128.0)
            ),
            vec!["\nfirst part\nsecond part\nthird part"]
        );
        assert_eq!(
            run(&[("a\n\nb", ""), ("c", "")], "\n", over(128.0)),
            vec!["\na\nb\nc"]
        );
        assert_eq!(
            run(&[("x\n\ny\n\n\nz", "")], "`\n\n`", over(1.0)),
            vec!["\nx", "\ny", "\n\nz"]
        );
        assert_eq!(
            run(&[("a\nb\nc", "P1"), ("d\ne", "P2")], "\n", over(128.0)),
            vec!["\naP1\nb\nc\ndP2\ne"]
        );
        assert_eq!(
            run(
                &[
                    ("one two three four five", ""),
                    ("six seven eight nine ten", "")
                ],
                "\n",
                budget(4.0, 50, MergeStrategy::OverCap)
            ),
            vec![
                "\none two three four five",
                "ee four five\nsix seven eight nine ten"
            ]
        );
        assert_eq!(run(&[("", "")], "", over(128.0)), vec!["\n"]);
        assert!(run(&[("", "")], "\n", over(128.0)).is_empty());
    }

    #[test]
    fn parser_txt_examples() {
        let p = |txt: &str, cap: f64, delim: &str, keep: bool| {
            parser_txt(txt, delim, keep, cap, cap).unwrap()
        };
        assert_eq!(p("A####B", 128.0, "`##`", false), vec!["A\nB"]);
        assert_eq!(p("A####B", 128.0, "`##`", true), vec!["A##\nB"]);
        assert_eq!(p("x\r\ny\rz", 1.0, "\n", false), vec!["x\ny", "z"]);
        assert_eq!(p("\n\nA\n\nB\n", 1.0, "\n", true), vec!["A\n", "B\n"]);
        assert!(p("", 128.0, "\n", false).is_empty());
        assert_eq!(
            p("# Heading\n\nBody text.\n\n## Sub", 1.0, "\n`##`", true),
            vec!["# Heading\n", "Body text.\n", " Sub"]
        );
    }
}
