//! Text primitives shared by the contracts and the compat families.

#![forbid(unsafe_code)]

pub mod breaks;
pub mod clean;
pub mod offsets;
pub mod patterns;
pub mod scan;
