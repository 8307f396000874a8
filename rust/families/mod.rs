//! One file per upstream family: the compat algorithms, built from the core primitives.

pub mod dify;
pub mod dify_contract;
pub mod ragflow;
pub mod voltagent;
