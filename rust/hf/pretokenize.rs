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

static WHITESPACE: LazyLock<Option<Pattern>> = LazyLock::new(|| Pattern::regex(r"\w+|[^\w\s]+"));
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

    /// Splits every piece of `pieces` (pieces that come out empty are dropped).
    pub fn apply(&self, pieces: Vec<Normalized>) -> Vec<Normalized> {
        let mut out = Vec::with_capacity(pieces.len() * 2);
        for mut piece in pieces {
            match self {
                PreTokenizer::Bert => {
                    let mut words = Vec::new();
                    split(
                        &piece,
                        &char_matches(&piece.text, char::is_whitespace),
                        Behavior::Removed,
                        &mut words,
                    );
                    for w in words {
                        split(
                            &w,
                            &char_matches(&w.text, is_punctuation),
                            Behavior::Isolated,
                            &mut out,
                        );
                    }
                }
                PreTokenizer::Whitespace => {
                    let Some(re) = WHITESPACE.as_ref() else {
                        continue;
                    };
                    let mut m = re.find(&piece.text);
                    for (_, is_match) in &mut m {
                        *is_match = !*is_match;
                    }
                    split(&piece, &m, Behavior::Removed, &mut out);
                }
                PreTokenizer::WhitespaceSplit => {
                    split(
                        &piece,
                        &char_matches(&piece.text, char::is_whitespace),
                        Behavior::Removed,
                        &mut out,
                    );
                }
                PreTokenizer::CharDelimiter(d) => {
                    split(
                        &piece,
                        &char_matches(&piece.text, |c| c == *d),
                        Behavior::Removed,
                        &mut out,
                    );
                }
                PreTokenizer::Metaspace {
                    replacement,
                    prepend,
                    split: cut,
                } => {
                    let r = *replacement;
                    piece.map_chars(|c, o| o.push(if c == ' ' { r } else { c }));
                    let add = match prepend {
                        Prepend::Always => true,
                        Prepend::First => piece.origin == 0,
                        Prepend::Never => false,
                    };
                    if add && !piece.text.starts_with(r) {
                        piece.prepend(r.encode_utf8(&mut [0; 4]));
                    }
                    if *cut {
                        split(
                            &piece,
                            &char_matches(&piece.text, |c| c == r),
                            Behavior::MergedWithNext,
                            &mut out,
                        );
                    } else if !piece.text.is_empty() {
                        out.push(piece);
                    }
                }
                PreTokenizer::ByteLevel {
                    add_prefix_space,
                    use_regex,
                } => {
                    if *add_prefix_space && !piece.text.starts_with(' ') {
                        piece.prepend(" ");
                    }
                    let mut words = Vec::new();
                    match GPT2.as_ref() {
                        Some(re) if *use_regex => split(
                            &piece,
                            &re.find(&piece.text),
                            Behavior::Isolated,
                            &mut words,
                        ),
                        _ if !piece.text.is_empty() => words.push(piece),
                        _ => {}
                    }
                    for mut w in words {
                        to_byte_chars(&mut w);
                        out.push(w);
                    }
                }
                PreTokenizer::Split {
                    pattern,
                    behavior,
                    invert,
                } => {
                    let mut m = pattern.find(&piece.text);
                    if *invert {
                        for (_, is_match) in &mut m {
                            *is_match = !*is_match;
                        }
                    }
                    split(&piece, &m, *behavior, &mut out);
                }
                PreTokenizer::Digits { individual } => {
                    let b = if *individual {
                        Behavior::Isolated
                    } else {
                        Behavior::Contiguous
                    };
                    split(
                        &piece,
                        &char_matches(&piece.text, char::is_numeric),
                        b,
                        &mut out,
                    );
                }
                PreTokenizer::Punctuation(b) => {
                    split(
                        &piece,
                        &char_matches(&piece.text, is_punctuation),
                        *b,
                        &mut out,
                    );
                }
            }
        }
        out
    }
}

/// BERT's punctuation: ASCII punctuation or a Unicode `P*` character.
pub fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

/// `tokenizers`' `Fn(char) -> bool` pattern: each matching character is one match.
fn char_matches(text: &str, pred: impl Fn(char) -> bool) -> Vec<((usize, usize), bool)> {
    if text.is_empty() {
        return vec![((0, 0), false)];
    }
    let mut out = Vec::new();
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
    out
}

/// `NormalizedString::split`: pieces of `n` by `matches` and `behavior`, empty ones dropped.
fn split(
    n: &Normalized,
    matches: &[((usize, usize), bool)],
    behavior: Behavior,
    out: &mut Vec<Normalized>,
) {
    let mut spans: Vec<((usize, usize), bool)> = Vec::with_capacity(matches.len());
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
    out.extend(
        spans
            .into_iter()
            .filter(|&((a, b), removed)| !removed && a < b)
            .map(|((a, b), _)| n.slice(a, b)),
    );
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

fn to_byte_chars(n: &mut Normalized) {
    let table = &*BYTE_CHARS;
    n.map_chars(|c, out| {
        for b in c.encode_utf8(&mut [0; 4]).bytes() {
            out.push(table[b as usize]);
        }
    });
}
