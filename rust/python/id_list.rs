//! Token ids as a Python list, with one shared int object per id.
//!
//! Allocating an int object per id is most of what `encode(text).tolist()` costs. Here
//! each id's int is made the first time a list needs it and kept, so a later list takes
//! a reference instead. Ints made in the order a text first needs them sit together in
//! memory, so the frequent ones stay in the CPU's caches.

use std::sync::{Mutex, TryLockError};

use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList};

use crate::tokenizer::Tokenizer;

/// One encoding's shared ints, indexed by id: at most one int per vocabulary entry.
type Ints = Vec<Option<Py<PyInt>>>;

static INTS: [Mutex<Ints>; 3] = [const { Mutex::new(Vec::new()) }; 3];

/// `ids` (ids of `tokenizer`) as a list of ints. The caller holds the GIL, so the lock is
/// only ever busy if making the list starts a garbage collection whose callback encodes
/// again on this thread; that inner call makes fresh ints instead of waiting. A table left
/// by a panic is still whole (each slot holds an int or nothing), so poisoning is ignored.
pub(crate) fn id_list<'py>(
    py: Python<'py>,
    tokenizer: &Tokenizer,
    ids: &[u32],
) -> PyResult<Bound<'py, PyList>> {
    let mut table = match INTS[tokenizer.encoding() as usize].try_lock() {
        Ok(ints) => ints,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => return PyList::new(py, ids),
    };
    let vocab = tokenizer.engine().num_tokens();
    if table.len() < vocab {
        table.resize_with(vocab, || None);
    }
    // The references first, then the list. On a first pass the slots miss the CPU's
    // caches; filled in the same loop as the list, whose calls take room in the CPU's
    // window, few loads were in flight at once, and 80 % of this function (Korean) waited
    // on them. This loop keeps more of them in flight (`make bench-ab`: 1.02-1.05×).
    let refs: Vec<Bound<'py, PyInt>> = ids
        .iter()
        .map(|&id| match table.get_mut(id as usize) {
            Some(Some(int)) => int.bind(py).clone(),
            Some(slot) => slot.insert(to_int(py, id).unbind()).bind(py).clone(),
            None => to_int(py, id),
        })
        .collect();
    PyList::new(py, refs)
}

fn to_int(py: Python<'_>, id: u32) -> Bound<'_, PyInt> {
    match id.into_pyobject(py) {
        Ok(int) => int,
        Err(never) => match never {},
    }
}
