//! The `threads` knob: `None` runs on rayon's global pool, `n` on a pool of `n` threads.

use crate::error::{Error, Result};

/// Runs `f` with the requested parallelism.
///
/// # Errors
/// [`Error::InvalidConfig`] for `threads == 0` or a pool that cannot start.
pub fn run<T: Send>(threads: Option<usize>, f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    match threads {
        None => f(),
        Some(0) => Err(Error::InvalidConfig {
            field: "threads",
            value: "0".into(),
            expected: "None or an integer >= 1",
        }),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| Error::InvalidConfig {
                field: "threads",
                value: format!("{n} ({e})"),
                expected: "a thread count the system can start",
            })?
            .install(f),
    }
}
