#![no_main]
//! See `ferrochunk::fuzzing::sentence_windows` for the invariants this target asserts.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ferrochunk::fuzzing::sentence_windows(data));
