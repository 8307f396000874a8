//! Normalizers, on text that remembers where each byte came from.
//!
//! Alignment follows `tokenizers`' `NormalizedString`: a replaced character keeps the
//! original character's position, an inserted one takes the position of the character
//! before it, and a removed one is gone. Only starts are kept (token starts are all the
//! chunker needs), as absolute byte offsets into the original text.

use spm_precompiled::Precompiled;
use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::char::is_combining_mark;
use unicode_normalization_alignments::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use super::json::At;
use super::pattern::{Pattern, Run};
use crate::error::Result;

/// Text and, for each of its bytes, the original byte offset it came from.
#[derive(Clone, Debug, Default)]
pub struct Normalized {
    pub text: String,
    pub starts: Vec<u32>,
    /// Where this piece starts in the original text (`offsets_original().0`).
    pub origin: u32,
}

impl Normalized {
    /// `text` as is, its first byte at original offset `base`.
    pub fn new(text: &str, base: u32) -> Self {
        let mut starts = Vec::with_capacity(text.len());
        for (i, c) in text.char_indices() {
            let at = base + i as u32;
            starts.extend(std::iter::repeat_n(at, c.len_utf8()));
        }
        Normalized {
            text: text.to_owned(),
            starts,
            origin: base,
        }
    }

    /// Bytes `a..b`, a piece of its own.
    pub fn slice(&self, a: usize, b: usize) -> Self {
        Normalized {
            text: self.text[a..b].to_owned(),
            starts: self.starts[a..b].to_vec(),
            origin: self.starts.get(a).copied().unwrap_or(self.origin),
        }
    }

    /// Where an inserted character at the very start is aligned.
    fn first_start(&self) -> u32 {
        self.starts.first().copied().unwrap_or(self.origin)
    }

    /// Each character becomes what `ascii` (an ASCII byte: another, or `None` to remove
    /// it) or `other` (any other character: what it writes) makes of it; every written
    /// character is aligned to the one it replaces.
    pub fn map_ascii(
        &mut self,
        ascii: impl Fn(u8) -> Option<u8>,
        mut other: impl FnMut(char, &mut String),
    ) {
        let mut text = String::with_capacity(self.text.len());
        let mut starts = Vec::with_capacity(self.starts.len());
        for (i, c) in self.text.char_indices() {
            if c.is_ascii() {
                if let Some(b) = ascii(c as u8) {
                    text.push(char::from(b));
                    starts.push(self.starts[i]);
                }
                continue;
            }
            let before = text.len();
            other(c, &mut text);
            starts.extend(std::iter::repeat_n(self.starts[i], text.len() - before));
        }
        self.text = text;
        self.starts = starts;
    }

    /// Applies `tokenizers`' `(char, change)` stream over the whole text: `change` 0
    /// replaces the next original character, > 0 inserts, < 0 also removes that many.
    fn transform(&mut self, dest: impl Iterator<Item = (char, isize)>) {
        let old = std::mem::take(&mut self.text);
        let mut rest = old.chars();
        let mut offset = 0; // byte offset in `old` of the next replaced character
        let mut text = String::with_capacity(old.len());
        let mut starts = Vec::with_capacity(self.starts.len());
        for (c, change) in dest {
            let start = if change > 0 {
                // An inserted character shares the alignment of the byte before it.
                if offset == 0 {
                    self.origin
                } else {
                    self.starts[offset - 1]
                }
            } else {
                let at = self.starts.get(offset).copied().unwrap_or(self.origin);
                offset += rest.next().map_or(0, char::len_utf8);
                at
            };
            if change < 0 {
                for _ in 0..change.unsigned_abs() {
                    offset += rest.next().map_or(0, char::len_utf8);
                }
            }
            text.push(c);
            starts.extend(std::iter::repeat_n(start, c.len_utf8()));
        }
        self.text = text;
        self.starts = starts;
    }

    /// Inserts `s` before the text (nothing when the text is empty); aligned to its
    /// first character, as `NormalizedString::prepend`.
    pub fn prepend(&mut self, s: &str) {
        if self.text.is_empty() {
            return;
        }
        let at = self.first_start();
        self.text.insert_str(0, s);
        self.starts.splice(0..0, std::iter::repeat_n(at, s.len()));
    }

    /// Replaces each match of `pattern` with `content`, aligned to the match's last
    /// character (`NormalizedString::replace`).
    pub fn replace(&mut self, pattern: &Pattern, content: &str) {
        let matches = pattern.find(&self.text);
        if !matches.iter().any(|&(_, m)| m) {
            return;
        }
        let mut text = String::with_capacity(self.text.len());
        let mut starts = Vec::with_capacity(self.starts.len());
        for ((a, b), is_match) in matches {
            if is_match {
                // The previous byte of the match's end: its last character.
                let at = if b == 0 {
                    self.origin
                } else {
                    self.starts[b - 1]
                };
                text.push_str(content);
                starts.extend(std::iter::repeat_n(at, content.len()));
            } else {
                text.push_str(&self.text[a..b]);
                starts.extend_from_slice(&self.starts[a..b]);
            }
        }
        self.text = text;
        self.starts = starts;
    }

    /// One of the four Unicode normalization forms. ASCII away from other characters is
    /// already in all four, so only the rest goes through the normalizer.
    fn unicode(&mut self, form: Form) {
        if self.text.is_ascii() {
            return;
        }
        let mut changes = Vec::with_capacity(self.text.len());
        for (a, b, fast) in ascii_runs(&self.text) {
            let part = &self.text[a..b];
            if fast {
                changes.extend(part.chars().map(|c| (c, 0)));
                continue;
            }
            match form {
                Form::Nfc => changes.extend(part.nfc()),
                Form::Nfd => changes.extend(part.nfd()),
                Form::Nfkc => changes.extend(part.nfkc()),
                Form::Nfkd => changes.extend(part.nfkd()),
            }
        }
        self.transform(changes.into_iter());
    }

    fn lowercase(&mut self) {
        if self.text.is_ascii() {
            self.text.make_ascii_lowercase();
        } else {
            self.map_ascii(
                |b| Some(b.to_ascii_lowercase()),
                |c, out| out.extend(c.to_lowercase()),
            );
        }
    }

    /// Removes the characters `is_accent` picks: BERT's normalizer takes nonspacing marks
    /// (Mn) only, the `StripAccents` normalizer every combining mark (Mn, Mc, Me), as
    /// `tokenizers` does.
    fn strip_accents(&mut self, is_accent: fn(char) -> bool) {
        if !self.text.is_ascii() {
            self.map_ascii(Some, |c, out| {
                if !is_accent(c) {
                    out.push(c);
                }
            });
        }
    }

    fn strip(&mut self, left: bool, right: bool) {
        let start = if left {
            self.text.len() - self.text.trim_start().len()
        } else {
            0
        };
        let end = if right {
            self.text.trim_end().len()
        } else {
            self.text.len()
        };
        if start > 0 || end < self.text.len() {
            let end = end.max(start);
            self.text = self.text[start..end].to_owned();
            self.starts = self.starts[start..end].to_vec();
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Form {
    Nfc,
    Nfd,
    Nfkc,
    Nfkd,
}

/// One normalizer step.
#[derive(Debug)]
pub enum Normalizer {
    Bert {
        clean_text: bool,
        chinese: bool,
        strip_accents: bool,
        lowercase: bool,
    },
    Lowercase,
    StripAccents,
    Unicode(Form),
    Strip {
        left: bool,
        right: bool,
    },
    Replace {
        pattern: Pattern,
        content: String,
    },
    Prepend(String),
    /// SentencePiece's `precompiled_charsmap`, and its answer for each ASCII character.
    Precompiled(Box<Precompiled>, Box<[Option<String>]>),
}

impl Normalizer {
    /// The steps of `at` (a `Sequence` flattened), in order.
    pub fn parse(at: At<'_, '_>, out: &mut Vec<Normalizer>) -> Result<()> {
        let kind = at.kind()?;
        out.push(match kind {
            "Sequence" => {
                for item in at.req("normalizers")?.at().items()? {
                    Normalizer::parse(item.at(), out)?;
                }
                return Ok(());
            }
            "BertNormalizer" => {
                let lowercase = at.flag("lowercase", true)?;
                Normalizer::Bert {
                    clean_text: at.flag("clean_text", true)?,
                    chinese: at.flag("handle_chinese_chars", true)?,
                    // `null` strips accents when lowercasing, as BERT does.
                    strip_accents: at.flag("strip_accents", lowercase)?,
                    lowercase,
                }
            }
            "Lowercase" => Normalizer::Lowercase,
            "StripAccents" => Normalizer::StripAccents,
            "NFC" => Normalizer::Unicode(Form::Nfc),
            "NFD" => Normalizer::Unicode(Form::Nfd),
            "NFKC" => Normalizer::Unicode(Form::Nfkc),
            "NFKD" => Normalizer::Unicode(Form::Nfkd),
            "Strip" => Normalizer::Strip {
                left: at.flag("strip_left", true)?,
                right: at.flag("strip_right", true)?,
            },
            "Replace" => Normalizer::Replace {
                pattern: Pattern::parse(at.req("pattern")?.at())?,
                content: at.req("content")?.at().str()?.to_owned(),
            },
            "Prepend" => Normalizer::Prepend(at.req("prepend")?.at().str()?.to_owned()),
            "Precompiled" => {
                let map = at.req("precompiled_charsmap")?;
                let doc = format!("{{\"precompiled_charsmap\": {}}}", map.value);
                let p: Precompiled = serde_json::from_str(&doc)
                    .map_err(|_| map.at().invalid("must be a base64 SentencePiece charsmap"))?;
                let ascii = (0u8..128)
                    .map(|b| {
                        p.transform(char::from(b).encode_utf8(&mut [0; 4]))
                            .map(str::to_owned)
                    })
                    .collect();
                Normalizer::Precompiled(Box::new(p), ascii)
            }
            other => return Err(at.unsupported("type", format!("normalizer {other:?}"))),
        });
        Ok(())
    }

    /// A step that may join characters on both sides of a word boundary into one
    /// normalized piece: a `Replace` of more than one character.
    pub fn may_join(&self) -> bool {
        match self {
            Normalizer::Replace { pattern, .. } => match pattern {
                Pattern::Literal(s) => s.chars().nth(1).is_some(),
                Pattern::Regex { .. } => true,
            },
            _ => false,
        }
    }

    /// A `Replace` whose every match is a run of one character (`Pattern::run_of`), and
    /// whether it collapses every run of two or more into that one character
    /// (SentencePiece's `Replace(" {2,}", " ")`).
    pub fn run_of(&self) -> Option<(Run, bool)> {
        match self {
            Normalizer::Replace { pattern, content } => {
                let run = pattern.run_of()?;
                let mut one = [0; 4];
                Some((run, run.whole && content == run.c.encode_utf8(&mut one)))
            }
            _ => None,
        }
    }

    /// A `Replace` of a literal run of `k >= 2` copies of one character by that one
    /// character (`Replace("  ", " ")`): `(c, k)`.
    pub fn literal_run(&self) -> Option<(char, usize)> {
        let Normalizer::Replace {
            pattern: Pattern::Literal(s),
            content,
        } = self
        else {
            return None;
        };
        let c = s.chars().next()?;
        let k = s.chars().count();
        let one = content.chars().eq(std::iter::once(c));
        (k >= 2 && one && s.chars().all(|x| x == c)).then_some((c, k))
    }

    /// A step that acts on the ends of the text (`Prepend`, `Strip`).
    pub fn is_edge(&self) -> bool {
        matches!(self, Normalizer::Prepend(_) | Normalizer::Strip { .. })
    }

    pub fn apply(&self, n: &mut Normalized) {
        match self {
            Normalizer::Bert {
                clean_text,
                chinese,
                strip_accents,
                lowercase,
            } => {
                if *clean_text || *chinese {
                    bert_clean(n, *clean_text, *chinese);
                }
                if *strip_accents {
                    n.unicode(Form::Nfd);
                }
                match (*strip_accents, *lowercase) {
                    // One pass: marks are tested before lowercasing, as in two.
                    (true, true) if !n.text.is_ascii() => n.map_ascii(
                        |b| Some(b.to_ascii_lowercase()),
                        |c, out| {
                            if !c.is_mark_nonspacing() {
                                out.extend(c.to_lowercase());
                            }
                        },
                    ),
                    (true, false) => n.strip_accents(|c| c.is_mark_nonspacing()),
                    (_, true) => n.lowercase(),
                    (false, false) => {}
                }
            }
            Normalizer::Lowercase => n.lowercase(),
            Normalizer::StripAccents => n.strip_accents(is_combining_mark),
            Normalizer::Unicode(form) => n.unicode(*form),
            Normalizer::Strip { left, right } => n.strip(*left, *right),
            Normalizer::Replace { pattern, content } => n.replace(pattern, content),
            Normalizer::Prepend(s) => n.prepend(s),
            Normalizer::Precompiled(p, ascii) => precompiled(n, p, ascii),
        }
    }
}

/// Byte runs of `text` as `(start, end, fast)`: `fast` runs are ASCII characters whose
/// neighbours are ASCII too, so no composition, reordering or grapheme cluster crosses
/// into or out of them (a CR LF pair is never split between runs).
fn ascii_runs(text: &str) -> Vec<(usize, usize, bool)> {
    let b = text.as_bytes();
    let slow = |i: usize| {
        b[i] >= 0x80
            || (i > 0 && b[i - 1] >= 0x80)
            || (i + 1 < b.len() && b[i + 1] >= 0x80)
            // Keep CR LF together: each side follows its partner.
            || (b[i] == b'\r' && i + 2 < b.len() && b[i + 1] == b'\n' && b[i + 2] >= 0x80)
            || (b[i] == b'\n' && i >= 2 && b[i - 1] == b'\r' && b[i - 2] >= 0x80)
    };
    let mut runs: Vec<(usize, usize, bool)> = Vec::new();
    for i in 0..b.len() {
        let fast = !slow(i);
        match runs.last_mut() {
            Some((_, end, f)) if *f == fast => *end = i + 1,
            _ => runs.push((i, i + 1, fast)),
        }
    }
    runs
}

/// `tokenizers`' `Precompiled` normalizer: each grapheme (under 6 bytes) is looked up
/// whole, else each of its characters; a hit is replaced by the charsmap's string.
fn precompiled(n: &mut Normalized, p: &Precompiled, ascii: &[Option<String>]) {
    let mut changes: Vec<(char, isize)> = Vec::with_capacity(n.text.len());
    let mut modified = false;
    let replace = |changes: &mut Vec<(char, isize)>, old: &str, new: &str| {
        let diff = new.chars().count() as isize - old.chars().count() as isize;
        changes.extend(new.chars().map(|c| (c, 0)));
        if diff > 0 {
            for (_, change) in changes.iter_mut().rev().take(diff.unsigned_abs()) {
                *change = 1;
            }
        } else if diff < 0 {
            if let Some((_, change)) = changes.last_mut() {
                *change += diff;
            }
        }
    };
    let graphemes = ascii_runs(&n.text).into_iter().flat_map(|(a, b, fast)| {
        let part = &n.text[a..b];
        // An ASCII run splits into characters, CR LF kept as one grapheme.
        let (ascii, other) = if fast {
            (Some(ascii_graphemes(part)), None)
        } else {
            (None, Some(part.graphemes(true)))
        };
        ascii
            .into_iter()
            .flatten()
            .chain(other.into_iter().flatten())
    });
    for grapheme in graphemes {
        if let [b] = grapheme.as_bytes() {
            match ascii.get(*b as usize) {
                Some(Some(norm)) => {
                    modified = true;
                    replace(&mut changes, grapheme, norm);
                }
                _ => changes.push((char::from(*b), 0)),
            }
            continue;
        }
        if grapheme.len() < 6 {
            if let Some(norm) = p.transform(grapheme) {
                modified = true;
                replace(&mut changes, grapheme, norm);
                continue;
            }
        }
        for (i, c) in grapheme.char_indices() {
            let part = &grapheme[i..i + c.len_utf8()];
            match p.transform(part) {
                Some(norm) => {
                    modified = true;
                    replace(&mut changes, part, norm);
                }
                None => changes.push((c, 0)),
            }
        }
    }
    if modified {
        n.transform(changes.into_iter());
    }
}

/// BERT's `clean_text` (drop NUL, U+FFFD and controls; whitespace becomes a space) and
/// `handle_chinese_chars` (a space on each side of a CJK ideograph).
fn bert_clean(n: &mut Normalized, clean: bool, chinese: bool) {
    if n.text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return; // printable ASCII: nothing to clean, no ideographs
    }
    // ASCII: tab, newline and carriage return become a space; other controls go.
    let ascii = |b: u8| match b {
        b'\t' | b'\n' | b'\r' if clean => Some(b' '),
        0..=0x1f | 0x7f if clean => None,
        _ => Some(b),
    };
    n.map_ascii(ascii, |c, out| {
        if clean {
            if c == '\0' || c == '\u{fffd}' || is_control(c) {
                return;
            }
            if is_bert_whitespace(c) {
                out.push(' ');
                return;
            }
        }
        if chinese && is_chinese_char(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    });
}

/// The graphemes of ASCII text: single characters, and CR LF.
fn ascii_graphemes(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= b.len() {
            return None;
        }
        let len = if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        i += len;
        Some(&text[i - len..i])
    })
}

fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}
