//! The extension's allocator: mimalloc for blocks under 1 MB, the system's for larger ones
//! (`python/mod.rs` installs it; `cargo test` keeps the system's).
//!
//! With `chunk_many(threads=n)` the caller frees what helpers allocated while they
//! allocate more, and glibc's malloc locks an arena per free from another thread;
//! mimalloc's per-thread heaps free across threads without a lock and allocate small
//! blocks faster. Large blocks stay with the system: glibc grows a mapped block with
//! `mremap` (no copy, no new pages for what is already there), where mimalloc copies,
//! which made a first `encode` of 30 MB twice as slow. mimalloc 2, not 3: 3 made a first
//! pass of the tokenizer over new text about 4 % slower. Built with `no_thp`: where THP is
//! madvise-only, mimalloc's request for huge pages made the first touch of each 2 MB zero
//! all of it, a 30-40 ms stall where a VM's host backs memory lazily.
//!
//! `GlobalAlloc` is an unsafe trait: this is the one module in the crate that allows
//! `unsafe`. Rust passes `dealloc` and `realloc` the layout a block was allocated with,
//! so a block's size always says which allocator owns it.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;

/// Blocks of this many bytes or more go to the system allocator.
const LARGE: usize = 1 << 20;

pub struct BySize;

// SAFETY: each call goes to the allocator that owns the block (see the module comment);
// both allocators uphold `GlobalAlloc`'s contract.
unsafe impl GlobalAlloc for BySize {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= LARGE {
            unsafe { System.alloc(layout) }
        } else {
            unsafe { MiMalloc.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= LARGE {
            unsafe { System.alloc_zeroed(layout) }
        } else {
            unsafe { MiMalloc.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() >= LARGE {
            unsafe { System.dealloc(ptr, layout) }
        } else {
            unsafe { MiMalloc.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (layout.size() >= LARGE, new_size >= LARGE) {
            (true, true) => unsafe { System.realloc(ptr, layout, new_size) },
            (false, false) => unsafe { MiMalloc.realloc(ptr, layout, new_size) },
            // Across the line: the block moves to the other allocator.
            _ => {
                // SAFETY: the caller guarantees `new_size`, rounded up to the alignment,
                // does not overflow `isize`.
                let new_layout =
                    unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                new
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block grown and shrunk across the line keeps its bytes each way.
    #[test]
    fn realloc_across_the_line_keeps_the_bytes() {
        let small = Layout::from_size_align(1000, 8).unwrap();
        unsafe {
            let p = BySize.alloc(small);
            assert!(!p.is_null());
            for i in 0..1000 {
                *p.add(i) = (i % 251) as u8;
            }
            let big = BySize.realloc(p, small, 3 * LARGE);
            assert!(!big.is_null());
            *big.add(3 * LARGE - 1) = 7;
            let grown = Layout::from_size_align(3 * LARGE, 8).unwrap();
            let bigger = BySize.realloc(big, grown, 5 * LARGE);
            assert!(!bigger.is_null());
            let bigger_layout = Layout::from_size_align(5 * LARGE, 8).unwrap();
            assert_eq!(*bigger.add(3 * LARGE - 1), 7);
            let back = BySize.realloc(bigger, bigger_layout, 500);
            assert!(!back.is_null());
            assert!((0..500).all(|i| *back.add(i) == (i % 251) as u8));
            BySize.dealloc(back, Layout::from_size_align(500, 8).unwrap());
            let zeroed = BySize.alloc_zeroed(grown);
            assert!(!zeroed.is_null());
            assert!((0..3 * LARGE).step_by(4096).all(|i| *zeroed.add(i) == 0));
            BySize.dealloc(zeroed, grown);
        }
    }
}
