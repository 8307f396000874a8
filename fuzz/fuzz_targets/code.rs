#![no_main]
//! See `ferrochunk::fuzzing::code` for the invariants this target asserts.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
    ferrochunk::fuzzing::code(data, &language)
});
