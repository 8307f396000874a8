//! Bindings for `ferrochunk.DelimiterMerge` (the RAGFlow family's native contract).

use numpy::{PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::arrays::rows_array;
use super::errors::IntoPy;
use crate::error::Result;
use crate::families::ragflow::contract::{
    contract_rows, find_pieces, merge_pieces, tokenized_pieces, ContractConfig, ContractRows,
    Delimiters, Piece,
};
use crate::merge::MergeStrategy;
use crate::scan::DelimiterSet;
use crate::tokenize::{check_len, Encoding};

type RowArrays<'py> = (
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<i64>>,
);

fn delimiters(hard: &[String], soft: &[String], child: &[String]) -> Result<Delimiters> {
    Ok(Delimiters {
        hard: DelimiterSet::new(hard)?,
        soft: DelimiterSet::new(soft)?,
        child: DelimiterSet::new(child)?,
    })
}

fn config(token_size: i64, under_cap: bool, overlap_percent: i64) -> Result<ContractConfig> {
    let strategy = if under_cap {
        MergeStrategy::UnderCap
    } else {
        MergeStrategy::OverCap
    };
    ContractConfig::new(token_size, strategy, overlap_percent)
}

fn arrays(py: Python<'_>, rows: ContractRows) -> RowArrays<'_> {
    (
        rows_array(py, rows.chunks),
        rows_array(py, rows.spans),
        rows_array(py, rows.children),
    )
}

#[pyfunction]
#[pyo3(name = "delimiter_merge")]
#[allow(clippy::too_many_arguments)]
pub fn py_delimiter_merge<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    encoding: &str,
    hard: Vec<String>,
    soft: Vec<String>,
    child: Vec<String>,
    token_size: i64,
    under_cap: bool,
    overlap_percent: i64,
) -> PyResult<RowArrays<'py>> {
    let enc = Encoding::from_name(encoding).or_raise(py)?;
    let cfg = config(token_size, under_cap, overlap_percent).or_raise(py)?;
    let rows = py
        .detach(|| {
            let d = delimiters(&hard, &soft, &child)?;
            let pieces = tokenized_pieces(&text, &d, enc)?;
            contract_rows(&text, &merge_pieces(&text, &pieces, cfg, &d.child))
        })
        .or_raise(py)?;
    Ok(arrays(py, rows))
}

#[pyfunction]
#[pyo3(name = "delimiter_pieces")]
pub fn py_delimiter_pieces<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    hard: Vec<String>,
    soft: Vec<String>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let rows = py
        .detach(|| {
            check_len(&text)?;
            let d = delimiters(&hard, &soft, &[])?;
            Ok(find_pieces(&text, &d)
                .into_iter()
                .map(|(r, seg)| [r.start as u64, r.end as u64, seg as u64])
                .collect::<Vec<_>>())
        })
        .or_raise(py)?;
    Ok(rows_array(py, rows))
}

#[pyfunction]
#[pyo3(name = "delimiter_merge_pieces")]
#[allow(clippy::too_many_arguments)]
pub fn py_delimiter_merge_pieces<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    pieces: PyReadonlyArray2<'py, i64>,
    token_starts: PyReadonlyArray1<'py, u32>,
    token_counts: PyReadonlyArray1<'py, i64>,
    child: Vec<String>,
    token_size: i64,
    under_cap: bool,
    overlap_percent: i64,
) -> PyResult<RowArrays<'py>> {
    let cfg = config(token_size, under_cap, overlap_percent).or_raise(py)?;
    // Copied under the GIL: another Python thread may write to the arrays.
    let pieces = pieces.as_array().to_owned();
    let starts = token_starts.as_array().to_vec();
    let counts = token_counts.as_array().to_vec();
    let rows = py
        .detach(|| {
            let d = delimiters(&[], &[], &child)?;
            let mut built = Vec::with_capacity(pieces.nrows());
            let mut at = 0usize;
            for (i, (row, &n)) in pieces.rows().into_iter().zip(&counts).enumerate() {
                let n = usize::try_from(n).unwrap_or(0);
                let piece = Piece {
                    range: row[0].max(0) as usize..row[1].max(0) as usize,
                    segment: row[2].max(0) as usize,
                    token_starts: starts
                        .get(at..at + n)
                        .map(<[u32]>::to_vec)
                        .unwrap_or_default(),
                };
                piece.validate(&text, i)?;
                built.push(piece);
                at += n;
            }
            contract_rows(&text, &merge_pieces(&text, &built, cfg, &d.child))
        })
        .or_raise(py)?;
    Ok(arrays(py, rows))
}
