//! Structure scanners: a format's blocks as ranked cut points, the units never
//! cut while they fit, and a heading outline. Each is a line scanner, not a tree.

#![forbid(unsafe_code)]

pub mod markdown;
