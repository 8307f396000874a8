//! Invariant checks for the fuzz targets (`fuzz/`), behind the `fuzzing` cargo feature.
//!
//! Each function takes raw fuzzer bytes, builds an input from them, runs one part of the
//! core and panics when an invariant breaks (that is what the fuzzer looks for). Errors
//! the core reports for the input are fine; panics and wrong output are not.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::contracts::delimiter_merge::DelimiterConfig;
use crate::contracts::markdown::{MarkdownConfig, MIN_TOKENS};
use crate::contracts::merge::{merge, MergeStrategy};
use crate::contracts::recursive::{Keep, RecursiveConfig};
use crate::contracts::stream::{chunk_text, Batch, Pipeline, Tokens};
use crate::contracts::windows::WindowConfig;
use crate::contracts::Spec;
use crate::text::breaks::BreakClasses;
use crate::text::scan::{DelimiterPolicy, DelimiterSet};
use crate::tokenizer::stream::StreamEncoder;
use crate::tokenizer::Encoding;

/// Bytes read front to back: small numbers, then the rest as text.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn text(self) -> String {
        String::from_utf8_lossy(self.0).into_owned()
    }
}

const PIECES: [&str; 12] = [
    "\n", "\n\n", "。", ". ", " ", ",", "##", "a", "é", "😀", "\r\n", "",
];

fn strings(picks: u8, count: usize) -> Vec<String> {
    (0..count)
        .map(|k| PIECES[(usize::from(picks) + k * 5) % PIECES.len()].to_owned())
        .collect()
}

fn cut_points(text: &str, seed: u8) -> Vec<usize> {
    let step = usize::from(seed % 13) + 1;
    (step..text.len()).step_by(step).collect()
}

/// Feeds `text` to a pipeline as UTF-8 bytes split at `cuts` (inside characters too).
fn streamed(text: &str, spec: &Spec, enc: Encoding, cuts: &[usize]) -> Batch {
    let mut p = Pipeline::new(spec, enc).expect("spec");
    let mut out = Batch::default();
    let mut at = 0;
    for &c in cuts {
        out.extend(p.push_bytes(&text.as_bytes()[at..c]).expect("valid UTF-8"));
        at = c;
    }
    out.extend(p.push_bytes(&text.as_bytes()[at..]).expect("valid UTF-8"));
    out.extend(p.finish().expect("finish"));
    out
}

/// Rows' texts are their slices (or joined spans); byte and char offsets agree.
fn check_rows(text: &str, batch: &Batch, joiner: &str) {
    let chars: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let mut from = 0;
    for (row, &end) in batch.table.iter().zip(&batch.text_ends) {
        let got = &batch.text[from..end as usize];
        from = end as usize;
        let (bs, be) = (row[4] as usize, row[5] as usize);
        assert!(bs <= be && be <= text.len(), "row {row:?} outside the text");
        assert_eq!(
            chars[row[6] as usize], bs,
            "char_start disagrees with byte_start"
        );
        assert_eq!(
            chars[row[7] as usize], be,
            "char_end disagrees with byte_end"
        );
        assert!(row[2] <= row[3], "token range reversed");
        let spans = &batch.spans[row[12] as usize..row[13] as usize];
        if spans.is_empty() {
            assert_eq!(got, &text[bs..be]);
        } else {
            let joined: Vec<&str> = spans
                .iter()
                .map(|s| &text[s[0] as usize..s[1] as usize])
                .collect();
            assert_eq!(got, joined.join(joiner));
        }
    }
}

/// A contract spec of `kind` (0..5) with settings from the fuzzer's bytes.
fn spec(kind: u8, b: &mut Bytes<'_>) -> (Spec, &'static str) {
    let size = usize::from(b.byte() % 16) + 1;
    let overlap = usize::from(b.byte()) % size;
    let picks = b.byte();
    let recursive = |max: usize, overlap: usize| RecursiveConfig {
        max_tokens: max,
        overlap_tokens: overlap,
        fixed_separator: (picks % 3 == 0).then(|| "\n\n".to_owned()),
        separators: strings(picks, 4),
        keep: if picks % 2 == 0 {
            Keep::End
        } else {
            Keep::Start
        },
        content: false,
    };
    match kind {
        0 => (Spec::Windows(WindowConfig::new(size, overlap).unwrap()), ""),
        1 => {
            let content = picks % 5 < 2; // content-defined boundaries as well as greedy ones
            let cfg = RecursiveConfig {
                content,
                ..recursive(size, overlap)
            };
            (Spec::Recursive(cfg), "")
        }
        2 => {
            let chars = ["\n", "。", ",", "! ", "é", ". ", "😀"];
            let pick = |k: usize| chars[(usize::from(picks) + k * 3) % chars.len()].to_owned();
            let classes = BreakClasses::parse(&[vec![pick(0), pick(1)], vec![" ".into()]]).unwrap();
            let spec = Spec::Sentences {
                safe_max: size,
                overlap_tokens: overlap,
                classes,
            };
            (spec, "")
        }
        3 => {
            let strategy = if picks % 2 == 0 {
                MergeStrategy::UnderCap
            } else {
                MergeStrategy::OverCap
            };
            let delims = [
                strings(picks, 1),
                strings(picks / 3, 3),
                strings(picks / 7, 1),
            ];
            let cfg = DelimiterConfig::new(
                size as u64,
                strategy,
                u64::from(picks % 91),
                delims,
                "|".into(),
            )
            .unwrap();
            (Spec::Delimiter(cfg), "|")
        }
        5 => {
            let cfg = MarkdownConfig {
                max_tokens: MIN_TOKENS + size * 4,
                overlap_tokens: overlap,
                context: picks % 5 != 0,
                content: picks % 3 == 0,
            };
            (Spec::Markdown(cfg), "")
        }
        _ => (
            Spec::ParentChild {
                parent: (picks % 4 != 0).then(|| recursive(size * 3, overlap)),
                child: recursive(size, 0),
            },
            "",
        ),
    }
}

/// A contract on fuzzed text: rows check out, and streaming at fuzzed splits (bytes
/// split inside characters) gives the whole text's result.
fn contract(kind: u8, data: &[u8]) {
    let mut b = Bytes(data);
    let (spec, joiner) = spec(kind, &mut b);
    let enc = if b.byte() % 2 == 0 {
        Encoding::Cl100kBase
    } else {
        Encoding::O200kBase
    };
    let seed = b.byte();
    let text = b.text();
    let whole = chunk_text(&text, &spec, Tokens::Embedded(enc)).expect("chunk");
    check_rows(&text, &whole, joiner);
    assert_eq!(
        streamed(&text, &spec, enc, &cut_points(&text, seed)),
        whole,
        "stream != whole"
    );
}

/// `Markdown`: the contract checks, plus the cap counting the context, chunks that
/// cover the text in order, and heading paths that are paths (levels rise).
pub fn markdown(data: &[u8]) {
    contract(5, data);
    let mut b = Bytes(data);
    let (spec, _) = spec(5, &mut b);
    let Spec::Markdown(cfg) = spec else {
        unreachable!("kind 5 is Markdown")
    };
    let enc = if b.byte() % 2 == 0 {
        Encoding::Cl100kBase
    } else {
        Encoding::O200kBase
    };
    let _seed = b.byte();
    let text = b.text();
    let tok = enc.load().expect("embedded");
    let batch = chunk_text(&text, &spec, Tokens::Embedded(enc)).expect("chunk");
    assert_eq!(batch.meta.len(), batch.table.len(), "one meta per row");
    let mut covered = 0;
    let mut from = 0;
    for ((row, &end), meta) in batch.table.iter().zip(&batch.text_ends).zip(&batch.meta) {
        let chunk = &batch.text[from..end as usize];
        from = end as usize;
        let (bs, be) = (row[4] as usize, row[5] as usize);
        assert!(
            bs <= covered && covered < be,
            "chunks leave a gap or go back"
        );
        covered = be;
        if row[8] == 0 {
            let joined = format!("{}{chunk}", meta.context);
            assert!(
                tok.count(&joined) <= cfg.max_tokens,
                "context + text over the cap"
            );
        }
        if !cfg.context {
            assert!(meta.context.is_empty(), "context when it is off");
        }
        let levels: Vec<u8> = meta.headings.iter().map(|h| h.0).collect();
        assert!(
            levels.windows(2).all(|w| w[0] < w[1]),
            "path levels must rise"
        );
        assert!(
            levels.iter().all(|&l| (1..=6).contains(&l)),
            "heading level"
        );
    }
    assert_eq!(covered, text.len(), "the chunks end before the text");
}

/// `Code` over `language` (the fuzz target's grammar): the chunks cover the text in
/// order, every chunk that is not oversize keeps the cap with its context, the context
/// is off when it is off, and a stream gives the same rows (the cutter holds the whole
/// text). The scan must never panic, whatever tree-sitter makes of the bytes.
pub fn code(data: &[u8], language: &tree_sitter::Language) {
    use crate::contracts::code::CodeConfig;
    let mut b = Bytes(data);
    let max = 16 + usize::from(b.byte() % 48);
    let cfg = CodeConfig {
        max_tokens: max,
        overlap_tokens: usize::from(b.byte()) % max,
        context: b.byte() % 4 != 0,
        content: b.byte() % 3 == 0,
    };
    let seed = b.byte();
    let text = b.text();
    let grammar = crate::structure::code::Grammar::new(language.clone()).expect("grammar");
    let spec = Spec::Code(cfg, std::sync::Arc::new(grammar));
    let enc = Encoding::Cl100kBase;
    let tok = enc.load().expect("embedded");
    let batch = chunk_text(&text, &spec, Tokens::Embedded(enc)).expect("chunk");
    assert_eq!(batch.meta.len(), batch.table.len(), "one meta per row");
    let (mut covered, mut from) = (0, 0);
    for ((row, &end), meta) in batch.table.iter().zip(&batch.text_ends).zip(&batch.meta) {
        let chunk = &batch.text[from..end as usize];
        from = end as usize;
        let (bs, be) = (row[4] as usize, row[5] as usize);
        assert!(
            bs <= covered && covered < be,
            "chunks leave a gap or go back"
        );
        assert_eq!(chunk, &text[bs..be], "text is not the source's slice");
        covered = be;
        if row[8] == 0 {
            let joined = format!("{}{chunk}", meta.context);
            assert!(tok.count(&joined) <= max, "context + text over the cap");
        }
        if !cfg.context {
            assert!(meta.context.is_empty(), "context when it is off");
        }
    }
    assert_eq!(covered, text.len(), "the chunks end before the text");
    assert_eq!(
        streamed(&text, &spec, enc, &cut_points(&text, seed)),
        batch,
        "stream != whole"
    );
}

/// `TokenWindows`.
pub fn windows(data: &[u8]) {
    contract(0, data);
}

/// `Recursive`.
pub fn recursive(data: &[u8]) {
    contract(1, data);
}

/// `SentenceWindows`.
pub fn sentence_windows(data: &[u8]) {
    contract(2, data);
}

/// `DelimiterMerge`.
pub fn delimiter_merge(data: &[u8]) {
    contract(3, data);
}

/// `ParentChild` (paragraph parents, or one full-document parent).
pub fn parent_child(data: &[u8]) {
    contract(4, data);
}

/// The streaming tokenizer equals the whole-text tokenizer at fuzzed splits.
pub fn stream_tokenizer(data: &[u8]) {
    let mut b = Bytes(data);
    let enc = [
        Encoding::Cl100kBase,
        Encoding::O200kBase,
        Encoding::Cl100kJs,
    ][usize::from(b.byte() % 3)];
    let seed = b.byte();
    let text = b.text();
    let tok = enc.load().expect("load");
    let whole: Vec<usize> = tok
        .token_starts(&text)
        .expect("starts")
        .into_iter()
        .map(|s| s as usize)
        .collect();
    let mut s = StreamEncoder::new(tok);
    let mut starts = Vec::new();
    for c in cut_points(&text, seed)
        .into_iter()
        .filter(|&c| text.is_char_boundary(c))
    {
        s.advance(&text[..c], 0, false, &mut starts);
    }
    s.advance(&text, 0, true, &mut starts);
    assert_eq!(starts, whole);
}

/// The tokenizer's fast paths against the general ones: the ASCII pre-tokenizer against
/// the regex, the short merge against backtracking BPE, the memo against no memo.
pub fn tokenizer_paths(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for enc in [
        Encoding::Cl100kBase,
        Encoding::O200kBase,
        Encoding::Cl100kJs,
    ] {
        let tok = enc.load().expect("load");
        assert!(
            tok.fast_paths_agree(&text),
            "{enc:?} fast path disagrees on {text:?}"
        );
    }
}

/// The delimiter scanner: pieces and matches tile the text, and matches are delimiters.
pub fn scan(data: &[u8]) {
    let mut b = Bytes(data);
    let picks = b.byte();
    let delims = strings(picks, usize::from(b.byte() % 4) + 1);
    let text = b.text();
    let set = DelimiterSet::new(&delims).expect("set");
    let s = set.scan(&text, DelimiterPolicy::Drop);
    assert_eq!(s.pieces.len(), s.matches.len() + 1);
    let mut rebuilt = String::new();
    for (i, p) in s.pieces.iter().enumerate() {
        rebuilt.push_str(&text[p.clone()]);
        if let Some(m) = s.matches.get(i) {
            assert!(delims.iter().any(|d| d == &text[m.clone()]));
            rebuilt.push_str(&text[m.clone()]);
        }
    }
    assert_eq!(rebuilt, text);
}

/// The merge: groups tile the pieces; UNDER_CAP keeps the cap unless a lone piece is oversize.
pub fn packing(data: &[u8]) {
    let mut b = Bytes(data);
    let cap = u64::from(b.byte());
    let percent = u64::from(b.byte() % 100);
    let sizes: Vec<u64> = b.0.iter().map(|&x| u64::from(x % 64)).collect();
    let threshold = cap as f64 * (100 - percent) as f64 / 100.0;
    for strategy in [MergeStrategy::UnderCap, MergeStrategy::OverCap] {
        let groups = merge(&sizes, cap as f64, strategy, threshold);
        let mut next = 0;
        for g in &groups {
            assert_eq!(g.pieces.start, next);
            assert!(g.pieces.end > g.pieces.start);
            assert_eq!(g.tokens, sizes[g.pieces.clone()].iter().sum::<u64>());
            if strategy == MergeStrategy::UnderCap {
                assert!(g.oversize || g.tokens <= cap);
            }
            next = g.pieces.end;
        }
        assert_eq!(next, sizes.len());
    }
}

/// Dify's cleaning never panics; its always-on part leaves no control character and
/// never lengthens the text, `remove_extra_spaces` equals a character-by-character
/// reading of its two regexes, and the URL pass only removes or keeps text.
pub fn cleaning(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let base = crate::text::patterns::dify_base(&text);
    assert!(base.len() <= text.len());
    assert!(!base
        .chars()
        .any(|c| matches!(c, '\x00'..='\x08' | '\x0b' | '\x0c' | '\x0e'..='\x1f' | '\x7f')));
    let spaced = crate::text::patterns::dify_extra_spaces(&base);
    assert_eq!(spaced, extra_spaces_by_chars(&base));
    let _ = crate::text::patterns::dify_urls_emails(&spaced).expect("patterns compile");
}

/// `re.sub(r"\n{3,}", "\n\n")` then runs of 2+ Dify spaces to one `" "`, one character
/// at a time: the oracle for the sliced version in `patterns.rs`.
fn extra_spaces_by_chars(text: &str) -> String {
    let is_space = |c: char| {
        matches!(
            c,
            '\t' | '\x0c' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{180e}' | '\u{2000}'
                ..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
        )
    };
    // Collapses a run of `class` characters: `with` for `min` or more, else the run.
    let collapse = |text: &str, class: &dyn Fn(char) -> bool, min: usize, with: &str| {
        let (mut out, mut run) = (String::new(), String::new());
        for c in text.chars() {
            if class(c) {
                run.push(c);
                continue;
            }
            out.push_str(if run.chars().count() >= min {
                with
            } else {
                &run
            });
            run.clear();
            out.push(c);
        }
        out.push_str(if run.chars().count() >= min {
            with
        } else {
            &run
        });
        out
    };
    let lines = collapse(text, &|c| c == '\n', 3, "\n\n");
    collapse(&lines, &is_space, 2, " ")
}
