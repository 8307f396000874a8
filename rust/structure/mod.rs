//! Structure scanners: a format's blocks as ranked cut points, the units never
//! cut while they fit, and the context each chunk carries. Markdown's is a line
//! scanner; code's walks a tree-sitter tree; HTML's renders the page as Markdown.

#![forbid(unsafe_code)]

pub mod code;
pub mod html;
pub mod markdown;
