#![no_main]
//! See `ferrochunk::fuzzing::delimiter_merge` for the invariants this target asserts.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ferrochunk::fuzzing::delimiter_merge(data));
