// The split patterns, shared by `build.rs` (which compiles them into dense DFAs) and the
// tests that check those DFAs against tiktoken's split.
//
// tiktoken's one look-ahead, `\s+(?!\S)`, is written as a second pattern `\s+\s` whose
// last character the pre-tokenizer drops (the trick bpe-openai uses), then the plain
// `\s+`: three patterns, matched leftmost-first in that order, so the split runs on a DFA.

/// tiktoken's `cl100k_base` split, without its look-ahead alternative.
pub const CL100K: &str = concat!(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+$"
);

/// tiktoken's `o200k_base` split, without its look-ahead alternative.
pub const O200K: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+$"
);

pub const LOOKAHEAD: &str = r"\s+\s";
pub const SPACES: &str = r"\s+";

/// ECMAScript WhiteSpace + LineTerminator: what `\s` means to js-tiktoken. It has
/// U+FEFF and lacks U+0085, unlike Unicode `White_Space`.
const JS_SPACE: &str = r"\t\n\x0B\x0C\r\x20\xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// A pattern with JavaScript's `\s`.
fn js(pattern: &str) -> String {
    pattern
        .replace(r"[^\s", &format!("[^{JS_SPACE}"))
        .replace(r"\s", &format!("[{JS_SPACE}]"))
}

/// The three patterns of each split: (name, [main, look-ahead, spaces]).
///
/// js-tiktoken's `cl100k_base` build spells `(?i:...)` out in ASCII case pairs (so `'ſ` is
/// no contraction) and JavaScript evaluates `\s`.
pub fn splits() -> [(&'static str, [String; 3]); 3] {
    let plain = |main: &str| [main.to_owned(), LOOKAHEAD.to_owned(), SPACES.to_owned()];
    let js_main = js(CL100K).replace(
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)",
        "'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]",
    );
    [
        ("cl100k", plain(CL100K)),
        ("o200k", plain(O200K)),
        ("cl100k_js", [js_main, js(LOOKAHEAD), js(SPACES)]),
    ]
}
