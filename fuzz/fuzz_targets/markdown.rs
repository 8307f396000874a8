#![no_main]
//! See `ferrochunk::fuzzing::markdown` for the invariants this target asserts.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ferrochunk::fuzzing::markdown(data));
