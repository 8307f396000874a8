//! Precomputes the tokenizer's tables at build time, so a process does not build them.
//!
//! For each embedded encoding: every token's bytes, an open-addressing table from token
//! bytes to id, a table from (left id, right id) to the id of the joined bytes (every split
//! of every token into two tokens: BPE's merge ranks), and the rank of every byte pair.
//! Written little-endian to `$OUT_DIR/<name>.tables`; `rust/tokenizer/tables.rs` reads it.
//! The split patterns (`rust/tokenizer/patterns.rs`) are compiled into dense DFAs and
//! serialized to `$OUT_DIR/<split>.dfa`, so no process compiles a Unicode regex.

use std::collections::HashMap;
use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

#[path = "rust/tokenizer/table_hash.rs"]
mod table_hash;

#[path = "rust/tokenizer/patterns.rs"]
#[allow(dead_code)]
mod patterns;

fn slots_for(n: usize) -> usize {
    (n * 2).next_power_of_two()
}

fn write_tables(out: &Path, name: &str, bpe: &bpe_openai::Tokenizer) -> std::io::Result<()> {
    let n = bpe.bpe.num_tokens();
    let tokens: Vec<&[u8]> = (0..n as u32).map(|id| bpe.bpe.token_bytes(id)).collect();
    let by_bytes: HashMap<&[u8], u32> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, i as u32))
        .collect();

    let mut offsets = Vec::with_capacity(n + 1);
    let mut all = Vec::new();
    for t in &tokens {
        offsets.push(all.len() as u32);
        all.extend_from_slice(t);
    }
    offsets.push(all.len() as u32);

    let vocab_slots = slots_for(n);
    let mut vocab = vec![u32::MAX; vocab_slots];
    for (id, t) in tokens.iter().enumerate() {
        let mut i = table_hash::hash_bytes(t) as usize & (vocab_slots - 1);
        while vocab[i] != u32::MAX {
            i = (i + 1) & (vocab_slots - 1);
        }
        vocab[i] = id as u32;
    }

    let mut pairs: Vec<(u64, u32)> = Vec::new();
    for (id, t) in tokens.iter().enumerate() {
        for k in 1..t.len() {
            if let (Some(&a), Some(&b)) = (by_bytes.get(&t[..k]), by_bytes.get(&t[k..])) {
                pairs.push(((u64::from(a) << 32) | u64::from(b), id as u32));
            }
        }
    }
    // Each slot is (right id, left id, joined id): one cache line holds a whole probe.
    let pair_slots = slots_for(pairs.len());
    let mut pair_table = vec![u32::MAX; pair_slots * 3];
    for &(key, id) in &pairs {
        let mut i = table_hash::hash_pair(key) as usize & (pair_slots - 1);
        while pair_table[3 * i] != u32::MAX || pair_table[3 * i + 1] != u32::MAX {
            i = (i + 1) & (pair_slots - 1);
        }
        pair_table[3 * i..3 * i + 3].copy_from_slice(&[key as u32, (key >> 32) as u32, id]);
    }

    let mut byte_ids = [u32::MAX; 256];
    let mut byte_pairs = vec![u32::MAX; 1 << 16];
    for (id, t) in tokens.iter().enumerate() {
        match t {
            [b] => byte_ids[*b as usize] = id as u32,
            [a, b] => byte_pairs[(usize::from(*a) << 8) | usize::from(*b)] = id as u32,
            _ => {}
        }
    }

    let file = std::fs::File::create(out.join(format!("{name}.tables")))?;
    let mut f = std::io::BufWriter::new(file);
    let mut put = |v: u32| f.write_all(&v.to_le_bytes());
    for v in [
        n as u32,
        all.len() as u32,
        vocab_slots as u32,
        pair_slots as u32,
    ] {
        put(v)?;
    }
    for v in offsets
        .iter()
        .chain(&vocab)
        .chain(&byte_ids)
        .chain(&byte_pairs)
        .chain(&pair_table)
    {
        put(*v)?;
    }
    f.write_all(&all)?;
    Ok(())
}

fn write_dfas(out: &Path) -> Result<(), Box<dyn Error>> {
    use regex_automata::dfa::{dense, StartKind};
    for (name, split) in patterns::splits() {
        let dfa = dense::Builder::new()
            .configure(dense::Config::new().start_kind(StartKind::Anchored))
            .build_many(&split)?;
        let (bytes, pad) = dfa.to_bytes_little_endian();
        std::fs::write(out.join(format!("{name}.dfa")), &bytes[pad..])?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=rust/tokenizer/table_hash.rs");
    println!("cargo::rerun-if-changed=rust/tokenizer/patterns.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    write_dfas(&out)?;
    write_tables(&out, "cl100k_base", bpe_openai::cl100k_base())?;
    write_tables(&out, "o200k_base", bpe_openai::o200k_base())?;
    Ok(())
}
