//! The `threads` knob over shared rayon pools.
//!
//! `None` runs on rayon's global pool (one thread per CPU, or `RAYON_NUM_THREADS`).
//! `n` is clamped to the number of CPUs: more threads than cores only adds
//! contention, and a request for a million threads must not try to start them.
//! `n` gets exactly `n` threads: the global pool when it has that many, else a
//! pool of that size, kept and shared by later calls of the same size (one such
//! pool at a time, so varying sizes do not pile up threads). [`spawn`] starts
//! background jobs on the same terms.

use std::sync::{Arc, Mutex};

use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::error::{Error, Result};

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The one pool kept besides rayon's global pool: the last size asked for. A call for
/// another size replaces it (calls still running keep theirs through the `Arc`).
static POOL: Mutex<Option<(usize, Arc<ThreadPool>)>> = Mutex::new(None);

/// The shared pool of `n` threads (`1 <= n <= cpus`).
fn pool(n: usize) -> Result<Arc<ThreadPool>> {
    let mut kept = POOL.lock().map_err(|_| Error::Internal {
        message: "threads: an earlier failure left the thread pool unusable".into(),
    })?;
    if let Some((size, p)) = kept.as_ref() {
        if *size == n {
            return Ok(Arc::clone(p));
        }
    }
    let built = Arc::new(
        ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| Error::InvalidConfig {
                field: "threads",
                value: format!("{n} ({e})"),
                expected: "a thread count the system can start",
            })?,
    );
    *kept = Some((n, Arc::clone(&built)));
    Ok(built)
}

/// How many threads `run(threads, ..)` runs on.
pub fn count(threads: Option<usize>) -> usize {
    match threads {
        None => rayon::current_num_threads(),
        Some(n) => n.clamp(1, cpus()),
    }
}

/// `threads` itself, unless it is `Some(0)`.
///
/// # Errors
/// [`Error::InvalidConfig`] for `threads == 0`.
pub fn checked(threads: Option<usize>) -> Result<Option<usize>> {
    match threads {
        Some(0) => Err(Error::InvalidConfig {
            field: "threads",
            value: "0".into(),
            expected: "None or an integer >= 1",
        }),
        _ => Ok(threads),
    }
}

/// Runs `f` with at most `threads` threads.
///
/// # Errors
/// [`Error::InvalidConfig`] for `threads == 0` or a pool that cannot start.
pub fn run<T: Send>(threads: Option<usize>, f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    match checked(threads)? {
        None => f(),
        Some(n) => {
            let n = count(Some(n));
            // The global pool is sized by RAYON_NUM_THREADS when that is set.
            if n == rayon::current_num_threads() {
                f()
            } else {
                pool(n)?.install(f)
            }
        }
    }
}

/// Starts `job` `n` times in the background, each on its own thread: rayon's global
/// pool when it has at least `n`, else the kept pool of `n` (so `RAYON_NUM_THREADS`
/// below `n` does not leave jobs queued behind each other).
///
/// # Errors
/// [`Error::InvalidConfig`] for a pool that cannot start.
pub fn spawn(n: usize, job: impl Fn() + Send + Sync + 'static) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let job = Arc::new(job);
    let own = if n <= rayon::current_num_threads() {
        None
    } else {
        Some(pool(n)?)
    };
    for _ in 0..n {
        let job = Arc::clone(&job);
        match &own {
            None => rayon::spawn(move || job()),
            Some(p) => p.spawn(move || job()),
        }
    }
    Ok(())
}
