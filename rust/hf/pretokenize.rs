//! Pre-tokenizers: a normalized piece into words, as `tokenizers` splits them.

use std::sync::LazyLock;

use unicode_categories::UnicodeCategories;

use super::json::At;
use super::normalize::Normalized;
use super::pattern::Pattern;
use crate::error::Result;

/// How a split treats what it matched (`SplitDelimiterBehavior`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behavior {
    Removed,
    Isolated,
    MergedWithPrevious,
    MergedWithNext,
    Contiguous,
}

impl Behavior {
    fn parse(at: At<'_, '_>, key: &str, default: Behavior) -> Result<Self> {
        let Some(node) = at.get(key) else {
            return Ok(default);
        };
        Ok(match node.at().str()? {
            "Removed" => Behavior::Removed,
            "Isolated" => Behavior::Isolated,
            "MergedWithPrevious" => Behavior::MergedWithPrevious,
            "MergedWithNext" => Behavior::MergedWithNext,
            "Contiguous" => Behavior::Contiguous,
            other => return Err(node.at().invalid(format!("unknown behavior {other:?}"))),
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prepend {
    Always,
    First,
    Never,
}

#[derive(Debug)]
pub enum PreTokenizer {
    Bert,
    Whitespace,
    WhitespaceSplit,
    Metaspace {
        replacement: char,
        prepend: Prepend,
        split: bool,
    },
    ByteLevel {
        add_prefix_space: bool,
        use_regex: bool,
    },
    Split {
        pattern: Pattern,
        behavior: Behavior,
        invert: bool,
    },
    Digits {
        individual: bool,
    },
    Punctuation(Behavior),
    CharDelimiter(char),
}

/// `tokenizers` runs it with the `regex` crate, not Oniguruma (ZWJ is a word character).
static WHITESPACE: LazyLock<Option<Pattern>> =
    LazyLock::new(|| Pattern::regex_crate(r"\w+|[^\w\s]+"));
/// GPT-2's split, which `ByteLevel` uses.
static GPT2: LazyLock<Option<Pattern>> = LazyLock::new(|| {
    Pattern::regex(r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+")
});

fn one_char(at: At<'_, '_>, key: &str) -> Result<char> {
    let node = at.req(key)?;
    let s = node.at().str()?;
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(node
            .at()
            .invalid(format!("must be one character, got {s:?}"))),
    }
}

impl PreTokenizer {
    /// The steps of `at` (a `Sequence` flattened), in order.
    pub fn parse(at: At<'_, '_>, out: &mut Vec<PreTokenizer>) -> Result<()> {
        let kind = at.kind()?;
        out.push(match kind {
            "Sequence" => {
                for item in at.req("pretokenizers")?.at().items()? {
                    PreTokenizer::parse(item.at(), out)?;
                }
                return Ok(());
            }
            "BertPreTokenizer" => PreTokenizer::Bert,
            "Whitespace" => PreTokenizer::Whitespace,
            "WhitespaceSplit" => PreTokenizer::WhitespaceSplit,
            "Metaspace" => {
                let prepend = match at.opt_str("prepend_scheme")? {
                    Some("always") => Prepend::Always,
                    Some("first") => Prepend::First,
                    Some("never") => Prepend::Never,
                    Some(other) => {
                        return Err(at
                            .req("prepend_scheme")?
                            .at()
                            .invalid(format!("unknown prepend_scheme {other:?}")))
                    }
                    // Files written before prepend_scheme had add_prefix_space.
                    None if at.flag("add_prefix_space", true)? => Prepend::Always,
                    None => Prepend::Never,
                };
                PreTokenizer::Metaspace {
                    replacement: one_char(at, "replacement")?,
                    prepend,
                    split: at.flag("split", true)?,
                }
            }
            "ByteLevel" => PreTokenizer::ByteLevel {
                add_prefix_space: at.flag("add_prefix_space", true)?,
                use_regex: at.flag("use_regex", true)?,
            },
            "Split" => PreTokenizer::Split {
                pattern: Pattern::parse(at.req("pattern")?.at())?,
                behavior: Behavior::parse(at, "behavior", Behavior::Removed)?,
                invert: at.flag("invert", false)?,
            },
            "Digits" => PreTokenizer::Digits {
                individual: at.flag("individual_digits", false)?,
            },
            "Punctuation" => {
                PreTokenizer::Punctuation(Behavior::parse(at, "behavior", Behavior::Isolated)?)
            }
            "CharDelimiterSplit" => PreTokenizer::CharDelimiter(one_char(at, "delimiter")?),
            other => return Err(at.unsupported("type", format!("pre-tokenizer {other:?}"))),
        });
        Ok(())
    }

    /// Splits every word of `words` (words that come out empty are dropped).
    pub fn apply(&self, words: &mut Words, scratch: &mut Scratch) {
        match self {
            PreTokenizer::Bert => {
                words.split_by(
                    scratch,
                    |t, m| char_matches(t, char::is_whitespace, m),
                    Behavior::Removed,
                );
                words.split_by(
                    scratch,
                    |t, m| char_matches(t, is_punctuation, m),
                    Behavior::Isolated,
                );
            }
            PreTokenizer::Whitespace => {
                let Some(re) = WHITESPACE.as_ref() else {
                    return;
                };
                words.split_by(
                    scratch,
                    |t, m| {
                        re.find_into(t, m);
                        for (_, is_match) in m.iter_mut() {
                            *is_match = !*is_match;
                        }
                    },
                    Behavior::Removed,
                );
            }
            PreTokenizer::WhitespaceSplit => {
                words.split_by(
                    scratch,
                    |t, m| char_matches(t, char::is_whitespace, m),
                    Behavior::Removed,
                );
            }
            PreTokenizer::CharDelimiter(d) => {
                let d = *d;
                words.split_by(
                    scratch,
                    |t, m| char_matches(t, |c| c == d, m),
                    Behavior::Removed,
                );
            }
            PreTokenizer::Metaspace {
                replacement,
                prepend,
                split,
            } => {
                let r = *replacement;
                let at_start = words.at_start;
                let mut rep = [0; 4];
                let rep: &str = r.encode_utf8(&mut rep);
                words.rebuild(|piece, first, out| {
                    let add = match prepend {
                        Prepend::Always => true,
                        Prepend::First => first == 0 && at_start,
                        Prepend::Never => false,
                    };
                    let replaced_first = piece.text.starts_with(' ');
                    if add && !replaced_first && !piece.text.starts_with(r) {
                        out.push_str(rep, piece.starts.first().copied().unwrap_or(piece.origin));
                    }
                    out.push_map(piece, |c, o| o.push(if c == ' ' { r } else { c }));
                });
                if *split {
                    words.split_by(
                        scratch,
                        |t, m| char_matches(t, |c| c == r, m),
                        Behavior::MergedWithNext,
                    );
                }
            }
            PreTokenizer::ByteLevel {
                add_prefix_space,
                use_regex,
            } => {
                if *add_prefix_space {
                    words.rebuild(|piece, _, out| {
                        if !piece.text.starts_with(' ') {
                            out.push_str(
                                " ",
                                piece.starts.first().copied().unwrap_or(piece.origin),
                            );
                        }
                        out.push_map(piece, |c, o| o.push(c));
                    });
                }
                if *use_regex {
                    if let Some(re) = GPT2.as_ref() {
                        words.split_by(scratch, |t, m| re.find_into(t, m), Behavior::Isolated);
                    }
                }
                let table = &*BYTE_CHARS;
                words.rebuild(|piece, _, out| {
                    out.push_map(piece, |c, o| {
                        for b in c.encode_utf8(&mut [0; 4]).bytes() {
                            o.push(table[b as usize]);
                        }
                    });
                });
            }
            PreTokenizer::Split {
                pattern,
                behavior,
                invert,
            } => {
                let invert = *invert;
                words.split_by(
                    scratch,
                    |t, m| {
                        pattern.find_into(t, m);
                        if invert {
                            for (_, is_match) in m.iter_mut() {
                                *is_match = !*is_match;
                            }
                        }
                    },
                    *behavior,
                );
            }
            PreTokenizer::Digits { individual } => {
                let b = if *individual {
                    Behavior::Isolated
                } else {
                    Behavior::Contiguous
                };
                words.split_by(scratch, |t, m| char_matches(t, char::is_numeric, m), b);
            }
            PreTokenizer::Punctuation(b) => {
                words.split_by(scratch, |t, m| char_matches(t, is_punctuation, m), *b);
            }
        }
    }
}

/// Reusable buffers for splitting.
#[derive(Default)]
pub struct Scratch {
    matches: Vec<((usize, usize), bool)>,
    spans: Vec<((usize, usize), bool)>,
    out: Vec<(usize, usize)>,
}

/// Words as byte ranges of one normalized buffer: splitting moves no text.
#[derive(Debug, Default)]
pub struct Words {
    pub n: Normalized,
    pub spans: Vec<(usize, usize)>,
    /// The buffer opens the whole text (not a later piece of a stream).
    pub at_start: bool,
}

/// A word's text and original offsets, for [`Words::rebuild`].
pub struct Piece<'a> {
    pub text: &'a str,
    pub starts: &'a [u32],
    pub origin: u32,
}

/// The buffer [`Words::rebuild`] writes.
pub struct Builder {
    text: String,
    starts: Vec<u32>,
}

impl Builder {
    /// Appends `s`, every byte aligned to `at`.
    fn push_str(&mut self, s: &str, at: u32) {
        self.text.push_str(s);
        self.starts.extend(std::iter::repeat_n(at, s.len()));
    }

    /// Appends what `f` writes for each character of `piece`, aligned to that character.
    fn push_map(&mut self, piece: &Piece<'_>, mut f: impl FnMut(char, &mut String)) {
        for (i, c) in piece.text.char_indices() {
            let before = self.text.len();
            f(c, &mut self.text);
            self.starts.extend(std::iter::repeat_n(
                piece.starts[i],
                self.text.len() - before,
            ));
        }
    }
}

impl Words {
    pub fn new(n: Normalized, at_start: bool) -> Self {
        let spans = if n.text.is_empty() {
            Vec::new()
        } else {
            vec![(0, n.text.len())]
        };
        Words { n, spans, at_start }
    }

    /// The text of word `i` and its original offsets.
    pub fn word(&self, i: usize) -> (&str, &[u32]) {
        let (a, b) = self.spans[i];
        (&self.n.text[a..b], &self.n.starts[a..b])
    }

    /// `NormalizedString::split` on every word: `find` fills the `(range, is_match)`
    /// pieces that cover a word's text.
    fn split_by(
        &mut self,
        scratch: &mut Scratch,
        mut find: impl FnMut(&str, &mut Vec<((usize, usize), bool)>),
        behavior: Behavior,
    ) {
        scratch.out.clear();
        for &(a, b) in &self.spans {
            scratch.matches.clear();
            find(&self.n.text[a..b], &mut scratch.matches);
            split(&scratch.matches, behavior, &mut scratch.spans);
            scratch.out.extend(
                scratch
                    .spans
                    .iter()
                    .filter(|&&((s, e), removed)| !removed && s < e)
                    .map(|&((s, e), _)| (a + s, a + e)),
            );
        }
        std::mem::swap(&mut self.spans, &mut scratch.out);
    }

    /// Rewrites every word through `f` (given the word and its original start), into a
    /// fresh buffer; words that come out empty are dropped.
    fn rebuild(&mut self, mut f: impl FnMut(&Piece<'_>, u32, &mut Builder)) {
        let mut out = Builder {
            text: String::with_capacity(self.n.text.len() + self.spans.len()),
            starts: Vec::with_capacity(self.n.starts.len() + self.spans.len()),
        };
        let mut spans = Vec::with_capacity(self.spans.len());
        for &(a, b) in &self.spans {
            let piece = Piece {
                text: &self.n.text[a..b],
                starts: &self.n.starts[a..b],
                origin: self.n.starts.get(a).copied().unwrap_or(self.n.origin),
            };
            let first = piece.origin;
            let start = out.text.len();
            f(&piece, first, &mut out);
            if out.text.len() > start {
                spans.push((start, out.text.len()));
            }
        }
        self.n.text = out.text;
        self.n.starts = out.starts;
        self.spans = spans;
    }
}

/// BERT's punctuation: ASCII punctuation or a Unicode `P*` character.
pub fn is_punctuation(c: char) -> bool {
    // ASCII punctuation includes every ASCII `P*` character, so ASCII needs no table.
    if c.is_ascii() {
        c.is_ascii_punctuation()
    } else {
        c.is_punctuation()
    }
}

/// `tokenizers`' `Fn(char) -> bool` pattern: each matching character is one match.
fn char_matches(text: &str, pred: impl Fn(char) -> bool, out: &mut Vec<((usize, usize), bool)>) {
    if text.is_empty() {
        out.push(((0, 0), false));
        return;
    }
    let mut last = 0;
    for (b, c) in text.char_indices() {
        if pred(c) {
            if last < b {
                out.push(((last, b), false));
            }
            let e = b + c.len_utf8();
            out.push(((b, e), true));
            last = e;
        }
    }
    if last < text.len() {
        out.push(((last, text.len()), false));
    }
}

/// The `SplitDelimiterBehavior` step of `NormalizedString::split`: `(range, removed)`.
fn split(
    matches: &[((usize, usize), bool)],
    behavior: Behavior,
    spans: &mut Vec<((usize, usize), bool)>,
) {
    spans.clear();
    match behavior {
        Behavior::Isolated => spans.extend(matches.iter().map(|&(o, _)| (o, false))),
        Behavior::Removed => spans.extend_from_slice(matches),
        Behavior::Contiguous => {
            let mut previous = false;
            for &(o, is_match) in matches {
                match spans.last_mut() {
                    Some(((_, end), _)) if is_match == previous => *end = o.1,
                    _ => spans.push((o, false)),
                }
                previous = is_match;
            }
        }
        Behavior::MergedWithPrevious => {
            let mut previous = false;
            for &(o, is_match) in matches {
                match spans.last_mut() {
                    Some(((_, end), _)) if is_match && !previous => *end = o.1,
                    _ => spans.push((o, false)),
                }
                previous = is_match;
            }
        }
        Behavior::MergedWithNext => {
            let mut previous = false;
            for &(o, is_match) in matches.iter().rev() {
                match spans.last_mut() {
                    Some(((start, _), _)) if is_match && !previous => *start = o.0,
                    _ => spans.push((o, false)),
                }
                previous = is_match;
            }
            spans.reverse();
        }
    }
}

/// GPT-2's byte-to-character map: each UTF-8 byte becomes one printable character.
static BYTE_CHARS: LazyLock<[char; 256]> = LazyLock::new(|| {
    let mut table = ['\0'; 256];
    let mut n = 0;
    for b in 0..=255u8 {
        let printable = matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        table[b as usize] = if printable {
            char::from(b)
        } else {
            n += 1;
            char::from_u32(255 + n).unwrap_or('\0')
        };
    }
    table
});
