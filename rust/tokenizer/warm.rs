//! Reading memory in order before a call's lookups need it.
//!
//! A first pass over new text looks its pieces up at random in tables of megabytes (the
//! vocabulary's and the pairs' buckets, the memo's caches, the rank cache, the shared
//! ints of a list). When other work has run since the last large call, those lines are
//! gone from the CPU's caches and each lookup waits on memory, a few at a time. Read in
//! order, the same lines stream in at memory bandwidth (1.7 MB in 30-75 µs here). That
//! pays only for a call with many lookups ahead, and only when the lines are gone: a call
//! that starts right after the last large one finds them where that call left them, and
//! one that reads them again anyway loses a few percent.

use std::time::{Duration, Instant};

/// A call that starts sooner than this after the last large one finds the memory that
/// call read still cached: nothing else ran long enough to push it out. At one read per
/// millisecond at most, a needless read (about 30 µs when the lines are still cached)
/// costs a few percent of the time at worst.
const GAP: Duration = Duration::from_millis(1);

/// Reads one value of every 64-byte line of `data`, in order.
pub(crate) fn read_in_order<T: Copy>(data: &[T]) {
    read_lines_by(data, |&value| value);
}

/// Reads `read(value)` of one value of every 64-byte line of `data`, in order (for values
/// that are not `Copy`, `read` loads part of them).
pub(crate) fn read_lines_by<T, R>(data: &[T], read: impl Fn(&T) -> R) {
    const LINE: usize = 64;
    let step = (LINE / std::mem::size_of::<T>().max(1)).max(1);
    for value in data.iter().step_by(step) {
        std::hint::black_box(read(value));
    }
}

/// When the last large call (one worth reading tables in order for) ended.
pub(crate) struct Gate {
    large_call_ended: Option<Instant>,
}

impl Gate {
    pub(crate) const fn new() -> Self {
        Gate {
            large_call_ended: None,
        }
    }

    /// Whether a call starting at `now` should read its tables in order: no large call
    /// has ended yet, or the last one ended `GAP` or more before `now`.
    pub(crate) fn cold(&self, now: Instant) -> bool {
        self.large_call_ended
            .is_none_or(|ended| now.saturating_duration_since(ended) >= GAP)
    }

    /// Notes that a large call ended at `now`.
    pub(crate) fn large_call_ended(&mut self, now: Instant) {
        self.large_call_ended = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_until_a_large_call_and_again_a_gap_after_it() {
        let mut gate = Gate::new();
        let start = Instant::now();
        assert!(gate.cold(start), "no large call yet");
        gate.large_call_ended(start);
        assert!(!gate.cold(start));
        assert!(!gate.cold(start + GAP / 2));
        assert!(gate.cold(start + GAP));
        // A clock read before the call ended is not a gap.
        gate.large_call_ended(start + GAP);
        assert!(!gate.cold(start));
    }
}
