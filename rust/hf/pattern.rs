//! What `Split` and `Replace` look for: a literal string, or a regex that runs in
//! linear time (regex-automata: no lookaround, no backreferences).
//!
//! `tokenizers` runs these patterns with Oniguruma, whose `\w` is Alphabetic|M|Nd|Pc (the
//! `regex` crate's adds Join_Control) plus, outside brackets, the six Latin-1 No characters
//! `¹²³¼½¾`; its `$` is a line anchor, and so is its `^`, except that it never matches at
//! the end of a text that ends in a newline.
//! [`onig_source`] rewrites `\w` and `\W` to Oniguruma's classes and refuses what has no
//! linear-time equivalent (`^`, word boundaries, POSIX classes, flags whose letters mean
//! other things there), so a pattern either runs with Oniguruma's meaning or falls back.
//!
//! The one lookaround the common files use, `\s+(?!\S)` ("a whitespace run, less its
//! last character when a word follows"), is rewritten as a capture group and shortened
//! by hand, which is what the lookahead does.

use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input};
use regex_syntax::ast::{self, Ast, ClassPerlKind, ClassSetItem, Flag, FlagsItemKind};
use regex_syntax::hir::{Class, Hir, HirKind};

use super::json::At;
use crate::error::Result;

/// Only as an alternative followed by `|\s+`: a lone run of one then fails over to it.
const LOOKAHEAD_IDIOM: &str = r"\s+(?!\S)|\s+";
/// The name the idiom's rewritten group takes.
const IDIOM_GROUP: &str = "ferrochunk_idiom";

/// A pattern whose every match is a run of one character `c`. With `whole`, every run of
/// two or more `c` is matched whole (`c{2,}` or `c+`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub c: char,
    pub whole: bool,
}

#[derive(Debug)]
pub enum Pattern {
    Literal(String),
    Regex {
        regex: Regex,
        /// The pattern held `\s+(?!\S)`, now the group named `IDIOM_GROUP`.
        idiom: bool,
        /// The one character every match is made of, when that is so (`" {2,}"`).
        run: Option<Run>,
    },
}

impl Pattern {
    /// `{"String": s}` or `{"Regex": r}`.
    pub fn parse(at: At<'_, '_>) -> Result<Self> {
        if let Some(s) = at.get("String") {
            return Ok(Pattern::Literal(s.at().str()?.to_owned()));
        }
        let node = at
            .get("Regex")
            .ok_or_else(|| at.invalid("must be {\"String\": ...} or {\"Regex\": ...}"))?;
        let source = node.at().str()?;
        Pattern::regex(source).ok_or_else(|| {
            node.at().unsupported(
                "",
                format!("regex {source:?} (lookaround or syntax a linear-time engine cannot run)"),
            )
        })
    }

    /// A `Split` or `Replace` regex, which `tokenizers` runs with Oniguruma: with
    /// Oniguruma's meaning, or `None` when no linear-time engine gives it.
    pub fn regex(source: &str) -> Option<Self> {
        Self::compiled(source, true)
    }

    /// A regex that `tokenizers` itself runs with the `regex` crate (the `Whitespace`
    /// pre-tokenizer's `\w+|[^\w\s]+`): its meaning is this engine's own.
    pub fn regex_crate(source: &str) -> Option<Self> {
        Self::compiled(source, false)
    }

    fn compiled(source: &str, onig: bool) -> Option<Self> {
        let idiom = source.contains(LOOKAHEAD_IDIOM);
        // A named group, so the pattern's own groups cannot shift it.
        let rewritten = source.replace(LOOKAHEAD_IDIOM, &format!(r"(?P<{IDIOM_GROUP}>\s+)|\s+"));
        let (rewritten, config) = if onig {
            (onig_source(&rewritten)?, onig_syntax())
        } else {
            (rewritten, syntax::Config::new().unicode(true).utf8(true))
        };
        let regex = Regex::builder().syntax(config).build(&rewritten).ok()?;
        if idiom
            && regex
                .group_info()
                .group_len(regex_automata::PatternID::ZERO)
                < 2
        {
            return None;
        }
        let run = syntax::parse_with(&rewritten, &config)
            .ok()
            .and_then(|hir| {
                let nonempty = hir.properties().minimum_len().is_some_and(|n| n > 0);
                let c = run_char(&hir).filter(|_| nonempty)?;
                // `c{m,}` with m <= 2: a run of two or more is one match, whatever its length.
                let whole =
                    matches!(hir.kind(), HirKind::Repetition(r) if r.min <= 2 && r.max.is_none());
                Some(Run { c, whole })
            });
        Some(Pattern::Regex { regex, idiom, run })
    }

    /// The one character every match is made of (`" {2,}"`, or a literal `"  "`), when
    /// the pattern matches no empty string: a match that crosses a point then has that
    /// character on both sides of it.
    pub fn run_of(&self) -> Option<Run> {
        match self {
            Pattern::Literal(s) => {
                let c = s.chars().next()?;
                s.chars().all(|x| x == c).then_some(Run { c, whole: false })
            }
            Pattern::Regex { run, .. } => *run,
        }
    }

    /// The text cut into `((start, end), is_match)` pieces that cover it, as
    /// `tokenizers`' `Pattern::find_matches`.
    pub fn find(&self, text: &str) -> Vec<((usize, usize), bool)> {
        let mut out = Vec::new();
        self.find_into(text, &mut out);
        out
    }

    /// [`Pattern::find`] into `out`.
    pub fn find_into(&self, text: &str, out: &mut Vec<((usize, usize), bool)>) {
        if text.is_empty() {
            out.push(((0, 0), false));
            return;
        }
        let mut prev = 0;
        let push = |a: usize, b: usize, out: &mut Vec<_>, prev: &mut usize| {
            if *prev != a {
                out.push(((*prev, a), false));
            }
            out.push(((a, b), true));
            *prev = b;
        };
        match self {
            Pattern::Literal(s) if s.is_empty() => {}
            Pattern::Literal(s) => {
                for (a, m) in text.match_indices(s.as_str()) {
                    push(a, a + m.len(), out, &mut prev);
                }
            }
            Pattern::Regex { regex, idiom, .. } => {
                // Oniguruma's `find_iter`: an empty match that ends where the last match
                // ended is skipped, and the search goes on one character later.
                let (mut at, mut last_end) = (0, None);
                // GPT-2's split and its kind match at every position. A match anchored
                // at `at` is the one the unanchored search would find, without the
                // reverse scan that finds where it starts. Once one fails (a pattern
                // that skips text, such as `\w+|[^\w\s]+`), the rest of the text goes
                // unanchored.
                let mut anchored = true;
                while at <= text.len() {
                    let input = Input::new(text).range(at..);
                    let mut found = None;
                    if anchored {
                        found = regex.search(&input.clone().anchored(Anchored::Yes));
                        anchored = found.is_some();
                    }
                    let found = found.or_else(|| regex.search(&input));
                    let Some(m) = found else {
                        break;
                    };
                    let (a, mut b) = (m.start(), m.end());
                    if *idiom {
                        b = shorten(regex, text, a, b);
                    }
                    if a == b && last_end == Some(b) {
                        at += text[at..].chars().next().map_or(1, char::len_utf8);
                        continue;
                    }
                    push(a, b, out, &mut prev);
                    (at, last_end) = (b, Some(b));
                }
            }
        }
        if prev != text.len() {
            out.push(((prev, text.len()), false));
        }
    }
}

/// Oniguruma's (Ruby syntax's) `^` and `$` match at every line.
fn onig_syntax() -> syntax::Config {
    syntax::Config::new()
        .unicode(true)
        .utf8(true)
        .multi_line(true)
}

/// Oniguruma's Unicode `Word` class (measured over every code point against `tokenizers`).
/// Its bare `\w` also takes Latin-1's `¹²³¼½¾` from the single-byte ctype table; a class in
/// brackets does not. A nested class is valid inside brackets, so both rewrite in place.
macro_rules! word {
    () => {
        r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}"
    };
}

/// `source` with Oniguruma's meaning under the `regex` crate's syntax, or `None` when
/// it uses what the two read differently and no rewrite makes equal.
fn onig_source(source: &str) -> Option<String> {
    let tree = ast::parse::Parser::new().parse(source).ok()?;
    let words = ast::visit(&tree, OnigCheck::default()).ok()?;
    let mut out = String::with_capacity(source.len() + 32 * words.len());
    let mut prev = 0;
    for Word {
        a,
        b,
        negated,
        bracketed,
    } in words
    {
        out.push_str(&source[prev..a]);
        out.push_str(match (bracketed, negated) {
            (false, false) => concat!("[", word!(), r"\xB2\xB3\xB9\xBC-\xBE]"),
            (false, true) => concat!("[^", word!(), r"\xB2\xB3\xB9\xBC-\xBE]"),
            (true, false) => concat!("[", word!(), "]"),
            (true, true) => concat!("[^", word!(), "]"),
        });
        prev = b;
    }
    out.push_str(&source[prev..]);
    Some(out)
}

/// One `\w` or `\W` in the source: its span, and whether it sits in a bracket class.
struct Word {
    a: usize,
    b: usize,
    negated: bool,
    bracketed: bool,
}

/// The check's verdict: `Err` refuses the pattern.
type Check = std::result::Result<(), ()>;

/// Finds the spans of `\w`/`\W`, and fails on what cannot be rewritten: `^`, `\b` and `\B`
/// (Oniguruma's follow its `\w`), POSIX classes (Unicode there, ASCII here), and the
/// flags `m` (dot-all there), `s`, `U`, `u` and `R` (not Oniguruma's).
#[derive(Default)]
struct OnigCheck {
    words: Vec<Word>,
}

impl OnigCheck {
    fn perl(&mut self, class: &ast::ClassPerl, bracketed: bool) {
        if class.kind == ClassPerlKind::Word {
            self.words.push(Word {
                a: class.span.start.offset,
                b: class.span.end.offset,
                negated: class.negated,
                bracketed,
            });
        }
    }

    fn flags(flags: &ast::Flags) -> Check {
        let ok = flags.items.iter().all(|item| match item.kind {
            FlagsItemKind::Negation => true,
            FlagsItemKind::Flag(flag) => {
                matches!(flag, Flag::CaseInsensitive | Flag::IgnoreWhitespace)
            }
        });
        ok.then_some(()).ok_or(())
    }
}

impl ast::Visitor for OnigCheck {
    type Output = Vec<Word>;
    type Err = ();

    fn finish(self) -> std::result::Result<Self::Output, ()> {
        Ok(self.words)
    }

    fn visit_pre(&mut self, node: &Ast) -> Check {
        match node {
            Ast::ClassPerl(class) => self.perl(class, false),
            Ast::Assertion(a) => {
                // `^` is refused: the `regex` crate's line start also matches after a
                // final newline, and no assertion there says "not at the end".
                use ast::AssertionKind::{EndLine, EndText, StartText};
                if !matches!(a.kind, EndLine | StartText | EndText) {
                    return Err(());
                }
            }
            Ast::Flags(set) => Self::flags(&set.flags)?,
            Ast::Group(group) => {
                if let ast::GroupKind::NonCapturing(flags) = &group.kind {
                    Self::flags(flags)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Check {
        match item {
            ClassSetItem::Perl(class) => self.perl(class, true),
            ClassSetItem::Ascii(_) => return Err(()),
            _ => {}
        }
        Ok(())
    }
}

/// The character every string `hir` matches is made of, if there is one.
fn run_char(hir: &Hir) -> Option<char> {
    match hir.kind() {
        HirKind::Literal(lit) => {
            let text = std::str::from_utf8(&lit.0).ok()?;
            same(text.chars().map(Some))
        }
        HirKind::Class(Class::Unicode(class)) => match class.ranges() {
            [r] if r.start() == r.end() => Some(r.start()),
            _ => None,
        },
        HirKind::Repetition(rep) => run_char(&rep.sub),
        HirKind::Capture(cap) => run_char(&cap.sub),
        HirKind::Concat(subs) => same(subs.iter().map(run_char)),
        _ => None,
    }
}

/// The one character all of `chars` are (none may be `None`).
fn same(mut chars: impl Iterator<Item = Option<char>>) -> Option<char> {
    let first = chars.next()??;
    chars.all(|c| c == Some(first)).then_some(first)
}

/// `\s+(?!\S)`: when the idiom's group made the match and a non-space follows it, the run gives
/// back its last character (a run of one then fails over to the next alternative,
/// which for every file seen is `\s+`: the same one character).
fn shorten(regex: &Regex, text: &str, a: usize, b: usize) -> usize {
    if b >= text.len() {
        return b;
    }
    let run = &text[a..b];
    if !run.chars().all(char::is_whitespace) || run.chars().nth(1).is_none() {
        return b;
    }
    let mut caps = regex.create_captures();
    regex.search_captures(
        &Input::new(text).range(a..).anchored(Anchored::Yes),
        &mut caps,
    );
    match caps.get_group_by_name(IDIOM_GROUP) {
        Some(g) if g.start == a && g.end == b => {
            b - run.chars().next_back().map_or(0, char::len_utf8)
        }
        _ => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(p: &Pattern, text: &str) -> Vec<String> {
        p.find(text)
            .into_iter()
            .filter(|&(_, m)| m)
            .map(|((a, b), _)| text[a..b].to_owned())
            .collect()
    }

    #[test]
    fn the_lookahead_idiom_gives_back_a_runs_last_space_before_a_word() {
        // The pattern's own group comes first: the idiom's group is found by name.
        let p = Pattern::regex(r"(\p{L}+)|\s+(?!\S)|\s+").unwrap();
        assert_eq!(matches(&p, "a   b  "), ["a", "  ", " ", "b", "  "]);
        assert_eq!(matches(&p, "a b"), ["a", " ", "b"]);
        assert!(Pattern::regex(r"(?<=a)b").is_none());
    }

    /// `find` as it was before the anchored search: every match found unanchored.
    fn unanchored(p: &Pattern, text: &str) -> Vec<((usize, usize), bool)> {
        let Pattern::Regex { regex, idiom, .. } = p else {
            unreachable!()
        };
        let (mut out, mut prev, mut at, mut last) = (Vec::new(), 0, 0, None);
        while at <= text.len() && !text.is_empty() {
            let Some(m) = regex.search(&Input::new(text).range(at..)) else {
                break;
            };
            let (a, mut b) = (m.start(), m.end());
            if *idiom {
                b = shorten(regex, text, a, b);
            }
            if a == b && last == Some(b) {
                at += text[at..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            if prev != a {
                out.push(((prev, a), false));
            }
            out.push(((a, b), true));
            (prev, at, last) = (b, b, Some(b));
        }
        if prev != text.len() || text.is_empty() {
            out.push(((prev, text.len()), false));
        }
        out
    }

    proptest::proptest! {
        /// Patterns that match everywhere, skip text, or match empty strings cut any text
        /// as the unanchored search does.
        #[test]
        fn the_anchored_search_finds_what_the_unanchored_one_does(text in "[a1 \n'é漢.x]{0,40}") {
            for source in [
                r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
                r"\w+|[^\w\s]+",
                r"\d+",
                r"x*",
                r"(?i:'s|'t)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|\s*[\r\n]+|\s+(?!\S)|\s+",
            ] {
                let p = Pattern::regex(source).unwrap();
                proptest::prop_assert_eq!(p.find(&text), unanchored(&p, &text), "{}", source);
            }
        }
    }

    #[test]
    fn an_empty_match_where_the_last_match_ended_is_skipped() {
        // Oniguruma's find_iter on "xaxa": no empty match after either "x".
        let p = Pattern::regex("x*").unwrap();
        let found: Vec<_> = p.find("xaxa").into_iter().filter(|&(_, m)| m).collect();
        assert_eq!(found, [((0, 1), true), ((2, 3), true), ((4, 4), true)]);
    }

    #[test]
    fn word_classes_and_line_anchors_mean_what_oniguruma_means() {
        let p = Pattern::regex(r"\w+").unwrap();
        // A bare `\w` takes `²`, and the circled `Ⓐ` (So, but Alphabetic); ZWNJ is not one.
        assert_eq!(matches(&p, "x² Ⓐ a\u{200c}b ⁴"), ["x²", "Ⓐ", "a", "b"]);
        // In brackets `²` is not a word character.
        let p = Pattern::regex(r"[^\W\d]+").unwrap();
        assert_eq!(matches(&p, "ab1²c"), ["ab", "c"]);
        let p = Pattern::regex(r"\Aa|b$").unwrap();
        assert_eq!(matches(&p, "ab\nab\na"), ["a", "b", "b"]);
        for refused in [
            "^a",
            r"\bx",
            r"x\B",
            "[[:alpha:]]",
            "(?s).",
            "(?m).",
            "(?u)a",
            "(?U)a+",
        ] {
            assert!(Pattern::regex(refused).is_none(), "{refused}");
        }
        assert!(Pattern::regex("(?i:'s|'t)|(?x) a").is_some());
    }

    #[test]
    fn a_run_of_one_character_is_seen_through_the_regex_syntax() {
        let run = |s: &str| Pattern::regex(s).unwrap().run_of().map(|r| (r.c, r.whole));
        assert_eq!(run(" {2,}"), Some((' ', true)));
        assert_eq!(run(" +"), Some((' ', true)));
        assert_eq!(run("  +"), Some((' ', false)));
        assert_eq!(run(" {3,}"), Some((' ', false)));
        assert_eq!(run("(x)+"), Some(('x', true)));
        assert_eq!(run("[ ]{2}"), Some((' ', false)));
        // Two characters, a class, a choice, or an empty match: no run.
        for s in ["ab", " +a", r"\s{2,}", "(?i)a+", "a|b", " *", "a{0,3}"] {
            assert_eq!(run(s), None, "{s}");
        }
        assert_eq!(
            Pattern::Literal("  ".into()).run_of().map(|r| r.c),
            Some(' ')
        );
        assert_eq!(Pattern::Literal("ab".into()).run_of(), None);
    }
}
