//! Text primitives shared by the contracts and the compat families.

pub mod breaks;
pub mod offsets;
pub mod patterns;
pub mod scan;
