//! `ferrochunk._native`: a few pure functions over strings and numpy arrays.
//!
//! Every binding does three steps: extract (GIL held), `py.detach` (the work),
//! build the result. Docstrings live in `python/ferrochunk/_native.pyi`.

use pyo3::prelude::*;

mod arrays;
mod arrow;
mod batch;
mod clean;
mod dify;
mod errors;
mod grammar;
mod hf;
mod html;
mod id_list;
mod ids;
mod pipeline;
mod ragflow;
mod spec;
mod threads;
mod tokenize;
mod voltagent;

// The extension allocates through `crate::alloc` (why: there).
#[global_allocator]
static ALLOCATOR: crate::alloc::BySize = crate::alloc::BySize;

#[pymodule]
#[pyo3(name = "_native")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The row layout, defined once (`rust/contracts/stream.rs`): Python reads columns by
    // these names.
    let py = m.py();
    m.add(
        "ROW_COLUMNS",
        pyo3::types::PyTuple::new(py, crate::contracts::stream::COLUMNS)?,
    )?;
    m.add(
        "SPAN_ROW_COLUMNS",
        pyo3::types::PyTuple::new(py, crate::contracts::stream::SPAN_COLUMNS)?,
    )?;
    m.add_class::<batch::ChunkBatch>()?;
    m.add_class::<batch::RowMeta>()?;
    m.add_class::<batch::ArrowPart>()?;
    m.add_class::<batch::ArrowChunks>()?;
    m.add_function(wrap_pyfunction!(pipeline::py_chunk, m)?)?;
    m.add_function(wrap_pyfunction!(pipeline::py_chunk_many, m)?)?;
    m.add_function(wrap_pyfunction!(pipeline::py_chunk_many_iter, m)?)?;
    m.add_class::<pipeline::PyChunkManyIter>()?;
    m.add_function(wrap_pyfunction!(pipeline::py_delimiter_pieces, m)?)?;
    m.add_class::<pipeline::PyStream>()?;
    m.add_function(wrap_pyfunction!(arrow::py_chunk_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(ids::py_hash_ids, m)?)?;
    m.add_function(wrap_pyfunction!(errors::py_debug_panic, m)?)?;
    m.add_function(wrap_pyfunction!(grammar::py_grammar_abi, m)?)?;
    m.add_class::<hf::PyHfTokenizer>()?;
    m.add_function(wrap_pyfunction!(tokenize::py_encode, m)?)?;
    m.add_function(wrap_pyfunction!(tokenize::py_encode_list, m)?)?;
    m.add_function(wrap_pyfunction!(tokenize::py_encode_with_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(tokenize::py_count, m)?)?;
    m.add_function(wrap_pyfunction!(tokenize::py_count_batch, m)?)?;
    m.add_function(wrap_pyfunction!(tokenize::py_char_to_byte_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(clean::py_clean_rules, m)?)?;
    m.add_function(wrap_pyfunction!(html::py_html_render, m)?)?;
    m.add_function(wrap_pyfunction!(dify::py_merge_splits, m)?)?;
    m.add_function(wrap_pyfunction!(dify::py_dify_clean, m)?)?;
    m.add_function(wrap_pyfunction!(dify::py_split_text_with_regex, m)?)?;
    m.add_function(wrap_pyfunction!(dify::py_recursive_split, m)?)?;
    m.add_function(wrap_pyfunction!(dify::py_fixed_recursive_split, m)?)?;
    m.add_function(wrap_pyfunction!(dify::py_fixed_split, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_num_tokens_from_string, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_num_tokens_batch, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_parse_delimiter_field, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_has_wrapped_delimiter, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_normalize_text_newlines, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_remove_tag, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_compute_overlap_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_merge_groups, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_naive_merge, m)?)?;
    m.add_function(wrap_pyfunction!(ragflow::py_parser_txt, m)?)?;
    m.add_function(wrap_pyfunction!(voltagent::py_token_ends, m)?)?;
    m.add_function(wrap_pyfunction!(voltagent::py_token_values, m)?)?;
    m.add_function(wrap_pyfunction!(voltagent::py_counts, m)?)?;
    m.add_function(wrap_pyfunction!(voltagent::py_prefix_counts, m)?)?;
    m.add_function(wrap_pyfunction!(voltagent::py_chunks, m)?)?;
    Ok(())
}
