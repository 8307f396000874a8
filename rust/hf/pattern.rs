//! What `Split` and `Replace` look for: a literal string, or a regex that runs in
//! linear time (regex-automata: no lookaround, no backreferences).
//!
//! The one lookaround the common files use, `\s+(?!\S)` ("a whitespace run, less its
//! last character when a word follows"), is rewritten as a capture group and shortened
//! by hand, which is what the lookahead does.

use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input};
use regex_syntax::hir::{Class, Hir, HirKind};

use super::json::At;
use crate::error::Result;

const LOOKAHEAD_IDIOM: &str = r"\s+(?!\S)";
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

    /// A regex pattern, or `None` when it needs a backtracking engine.
    pub fn regex(source: &str) -> Option<Self> {
        let idiom = source.contains(LOOKAHEAD_IDIOM);
        // A named group, so the pattern's own groups cannot shift it.
        let rewritten = source.replace(LOOKAHEAD_IDIOM, &format!(r"(?P<{IDIOM_GROUP}>\s+)"));
        let regex = Regex::builder()
            .syntax(syntax::Config::new().unicode(true).utf8(true))
            .build(&rewritten)
            .ok()?;
        if idiom
            && regex
                .group_info()
                .group_len(regex_automata::PatternID::ZERO)
                < 2
        {
            return None;
        }
        let run = syntax::parse(source).ok().and_then(|hir| {
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
                let mut at = 0;
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
                    if a == b {
                        // An empty match: step over one character, as find_iter does.
                        push(a, b, out, &mut prev);
                        at = b + text[b..].chars().next().map_or(1, char::len_utf8);
                        continue;
                    }
                    push(a, b, out, &mut prev);
                    at = b;
                }
            }
        }
        if prev != text.len() {
            out.push(((prev, text.len()), false));
        }
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
        let (mut out, mut prev, mut at) = (Vec::new(), 0, 0);
        while at <= text.len() && !text.is_empty() {
            let Some(m) = regex.search(&Input::new(text).range(at..)) else {
                break;
            };
            let (a, mut b) = (m.start(), m.end());
            if *idiom {
                b = shorten(regex, text, a, b);
            }
            if prev != a {
                out.push(((prev, a), false));
            }
            out.push(((a, b), true));
            prev = b;
            at = if a == b {
                b + text[b..].chars().next().map_or(1, char::len_utf8)
            } else {
                b
            };
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
