//! Added tokens (`[SEP]`, `<mask>`, ...) are cut out of the text before the model sees
//! it: those marked `normalized: false` from the original text, the others from each
//! normalized piece, longest match first, as `tokenizers`' `AddedVocabulary` does.

use aho_corasick::{AhoCorasick, MatchKind};

use super::json::At;
use super::normalize::{Normalized, Normalizer};
use crate::error::{Error, Result};

#[derive(Debug, Clone)]
struct Added {
    id: u32,
    single_word: bool,
    lstrip: bool,
    rstrip: bool,
}

#[derive(Debug)]
struct Matcher {
    automaton: AhoCorasick,
    tokens: Vec<Added>,
}

/// A piece of text, or an added token already decided.
pub enum Piece {
    Text(Normalized),
    Token { id: u32, start: u32 },
}

#[derive(Debug, Default)]
pub struct AddedTokens {
    raw: Option<Matcher>,
    normalized: Option<Matcher>,
}

fn matcher(patterns: Vec<String>, tokens: Vec<Added>) -> Result<Option<Matcher>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let automaton = AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(&patterns)
        .map_err(|e| Error::TokenizerJson {
            path: "added_tokens".into(),
            reason: e.to_string(),
        })?;
    Ok(Some(Matcher { automaton, tokens }))
}

impl AddedTokens {
    pub fn parse(at: Option<At<'_, '_>>, normalizers: &[Normalizer]) -> Result<Self> {
        let Some(at) = at else {
            return Ok(AddedTokens::default());
        };
        let (mut raw, mut raw_tokens) = (Vec::new(), Vec::new());
        let (mut norm, mut norm_tokens) = (Vec::new(), Vec::new());
        for item in at.items()? {
            let a = item.at();
            let content = a.req("content")?.at().str()?;
            if content.is_empty() {
                continue;
            }
            let token = Added {
                id: a.req("id")?.at().u32()?,
                single_word: a.flag("single_word", false)?,
                lstrip: a.flag("lstrip", false)?,
                rstrip: a.flag("rstrip", false)?,
            };
            // `normalized` defaults to "not special", as `AddedToken` does.
            let special = a.flag("special", false)?;
            if a.flag("normalized", !special)? {
                let mut n = Normalized::new(content, 0);
                for step in normalizers {
                    step.apply(&mut n);
                }
                norm.push(n.text);
                norm_tokens.push(token);
            } else {
                raw.push(content.to_owned());
                raw_tokens.push(token);
            }
        }
        Ok(AddedTokens {
            raw: matcher(raw, raw_tokens)?,
            normalized: matcher(norm, norm_tokens)?,
        })
    }

    /// Cuts the original `piece` by the raw tokens.
    pub fn split_raw(&self, piece: Normalized, out: &mut Vec<Piece>) {
        split(self.raw.as_ref(), piece, out);
    }

    /// Cuts a normalized `piece` by the normalized tokens.
    pub fn split_normalized(&self, piece: Normalized, out: &mut Vec<Piece>) {
        split(self.normalized.as_ref(), piece, out);
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn split(matcher: Option<&Matcher>, piece: Normalized, out: &mut Vec<Piece>) {
    let Some(m) = matcher else {
        out.push(Piece::Text(piece));
        return;
    };
    let text = piece.text.as_str();
    let mut last = 0;
    for hit in m.automaton.find_iter(text) {
        let token = &m.tokens[hit.pattern().as_usize()];
        let (mut start, mut stop) = (hit.start(), hit.end());
        if token.single_word {
            let before = text[..start].chars().next_back().is_some_and(is_word_char);
            let after = text[stop..].chars().next().is_some_and(is_word_char);
            if before || after {
                continue;
            }
        }
        if token.lstrip {
            let trimmed = text[..start].trim_end_matches(char::is_whitespace).len();
            start = trimmed.max(last);
        }
        if token.rstrip {
            stop = text.len() - text[stop..].trim_start_matches(char::is_whitespace).len();
        }
        if last < start {
            out.push(Piece::Text(piece.slice(last, start)));
        }
        let at = piece.starts.get(start).copied().unwrap_or(piece.origin);
        out.push(Piece::Token {
            id: token.id,
            start: at,
        });
        last = stop;
    }
    if last == 0 {
        out.push(Piece::Text(piece));
    } else if last < text.len() {
        out.push(Piece::Text(piece.slice(last, text.len())));
    }
}
