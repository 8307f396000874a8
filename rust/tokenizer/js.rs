//! js-tiktoken's `cl100k_base` split, as `@voltagent/rag` runs it.
//!
//! Same vocabulary as `cl100k_base`; only the pre-tokenizer differs. js-tiktoken's
//! build spells `(?i:...)` out in ASCII case pairs (so `'ſ` is no contraction) and
//! JavaScript evaluates `\s` (it has U+FEFF and lacks U+0085, unlike Unicode
//! `White_Space`).

use super::pretokenize::{Pretokenizer, CL100K, LOOKAHEAD, SPACES};
use crate::error::Result;

/// ECMAScript WhiteSpace + LineTerminator: what `\s` means to js-tiktoken.
const JS_SPACE: &str = r"\t\n\x0B\x0C\r\x20\xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// The js-tiktoken split, with the ASCII fast path (ASCII white space is the same set).
///
/// # Errors
/// Only if the built-in pattern failed to compile (a unit test builds it).
pub(crate) fn cl100k_js() -> Result<Pretokenizer> {
    let js = |pattern: &str| {
        pattern
            .replace(r"[^\s", &format!("[^{JS_SPACE}"))
            .replace(r"\s", &format!("[{JS_SPACE}]"))
    };
    let main = js(CL100K).replace(
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)",
        "'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]",
    );
    Pretokenizer::with_spaces(&main, &js(LOOKAHEAD), &js(SPACES), true)
}

/// ECMAScript white space that Unicode `White_Space` lacks (U+FEFF); the rest of
/// the JavaScript set is Unicode white space too.
pub(crate) fn is_js_space(c: char) -> bool {
    c == '\u{feff}'
}
