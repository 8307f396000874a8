//! js-tiktoken's `cl100k_base`, as `@voltagent/rag` runs it.
//!
//! Same vocabulary as `cl100k_base`; only the split differs (`patterns.rs`): ASCII-only
//! case folding for contractions, and JavaScript's `\s` (it has U+FEFF and lacks U+0085,
//! unlike Unicode `White_Space`).

/// ECMAScript white space that Unicode `White_Space` lacks (U+FEFF); the rest of
/// the JavaScript set is Unicode white space too.
pub(crate) fn is_js_space(c: char) -> bool {
    c == '\u{feff}'
}
