//! The HTML structure scan: a WHATWG tokenizer with source offsets, and a rendering
//! of the visible text as light Markdown that the `Markdown` cutter then chunks
//! (`docs/html.md`). No tree of the document is built: the carry is the open-element
//! stack, bounded by [`render::MAX_DEPTH`].

#![forbid(unsafe_code)]

pub mod entities;
pub mod render;
pub mod tokenizer;

pub use render::{render, Rendered, Skip};

impl Rendered {
    /// The spans as code-point offsets of `src` (they are byte offsets until then).
    pub fn into_chars(mut self, src: &str) -> Self {
        to_chars(src, &mut self.starts);
        to_chars(src, &mut self.ends);
        self
    }
}

/// Byte offsets (`-1` kept) as code-point offsets of `src`. The rendering emits in
/// source order, so the offsets rise and one pass counts them; any that do not are
/// found by search.
fn to_chars(src: &str, positions: &mut [i64]) {
    let bytes = src.as_bytes();
    let (mut byte, mut chars) = (0usize, 0i64);
    let mut sorted: Option<Vec<usize>> = None;
    for p in positions.iter_mut() {
        if *p < 0 {
            continue;
        }
        let at = *p as usize;
        if at >= byte {
            chars += bytes[byte..at]
                .iter()
                .filter(|&&b| (b & 0xC0) != 0x80)
                .count() as i64;
            byte = at;
            *p = chars;
        } else {
            let starts = sorted.get_or_insert_with(|| {
                src.char_indices()
                    .map(|(i, _)| i)
                    .chain([src.len()])
                    .collect()
            });
            *p = starts.partition_point(|&s| s < at) as i64;
        }
    }
}
