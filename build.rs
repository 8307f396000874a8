//! Precomputes the tokenizer's tables at build time, so a process does not build them.
//!
//! For each embedded encoding: every token's bytes, a perfect-hash table from token bytes
//! to id, one from (left id, right id) to the id of the joined bytes (every split of every
//! token into two tokens: BPE's merge ranks), and the rank of every byte pair.
//! Written little-endian to `$OUT_DIR/<name>.tables`; `rust/tokenizer/tables.rs` reads it.
//! The split patterns (`rust/tokenizer/patterns.rs`) are compiled into DFAs and
//! serialized twice, dense and deflated to `$OUT_DIR/<split>.dfa.deflate` and sparse to
//! `$OUT_DIR/<split>.sparse.dfa`, so no process compiles a Unicode regex.

use std::collections::{HashMap, HashSet};
use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

#[path = "rust/tokenizer/table_hash.rs"]
#[allow(dead_code)]
mod table_hash;

#[path = "rust/tokenizer/patterns.rs"]
#[allow(dead_code)]
mod patterns;

/// Slots for keys by their hashes under the perfect-hash layout (`table_hash.rs`):
/// (bucket words, slot of each key, slot count). Buckets are placed largest first, each
/// with the first pilot that puts all its keys in free slots; a bucket's word is its pilot
/// and, above it, the mask of its keys' `bucket_bit`s.
fn perfect_layout(hashes: &[u64]) -> std::io::Result<(Vec<u32>, Vec<usize>, usize)> {
    let n = hashes.len();
    let (buckets, slots) = table_hash::perfect_sizes(n);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); buckets];
    for (k, &h) in hashes.iter().enumerate() {
        members[table_hash::perfect_bucket(h, buckets)].push(k);
    }
    let mut order: Vec<usize> = (0..buckets).filter(|&b| !members[b].is_empty()).collect();
    order.sort_by_key(|&b| std::cmp::Reverse(members[b].len()));
    let mut taken = vec![false; slots];
    let mut pilots = vec![0u16; buckets];
    let mut place = vec![usize::MAX; n];
    let mut got = Vec::new();
    for b in order {
        let pilot = (0..=u16::MAX).find(|&p| {
            got.clear();
            members[b].iter().all(|&k| {
                let s = table_hash::perfect_slot(hashes[k], p, slots);
                let free = !taken[s] && !got.contains(&s);
                got.push(s);
                free
            })
        });
        let pilot = pilot.ok_or_else(|| {
            std::io::Error::other(format!("no pilot for bucket {b} (two keys hash alike?)"))
        })?;
        for (&k, &s) in members[b].iter().zip(&got) {
            taken[s] = true;
            place[k] = s;
        }
        pilots[b] = pilot;
    }
    let mut words: Vec<u32> = pilots.iter().map(|&p| u32::from(p)).collect();
    for &h in hashes {
        words[table_hash::perfect_bucket(h, buckets)] |= table_hash::bucket_bit(h) << 16;
    }
    Ok((words, place, slots))
}

/// Tokens per block of the token-start table (`Tables::token`).
const TOKEN_BLOCK: usize = 16;

fn write_tables(out: &Path, name: &str, bpe: &bpe_openai::Tokenizer) -> std::io::Result<()> {
    let n = bpe.bpe.num_tokens();
    let tokens: Vec<&[u8]> = (0..n as u32).map(|id| bpe.bpe.token_bytes(id)).collect();
    let by_bytes: HashMap<&[u8], u32> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, i as u32))
        .collect();

    // Token bytes back to back; a byte of length per token and the start of every
    // `TOKEN_BLOCK`-th token (a quarter of the space of a start per token).
    let mut all = Vec::new();
    let mut block_starts = Vec::with_capacity(n / TOKEN_BLOCK + 1);
    for (id, t) in tokens.iter().enumerate() {
        if id % TOKEN_BLOCK == 0 {
            block_starts.push(all.len() as u32);
        }
        all.extend_from_slice(t);
    }
    let mut lengths: Vec<u8> = tokens.iter().map(|t| t.len() as u8).collect();
    lengths.resize(n.div_ceil(4) * 4, 0);
    let length_words: Vec<u32> = lengths
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();

    // Each slot is (first eight bytes, zero-padded, as two words; id | length << 24): a
    // piece of up to eight bytes is found without reading the token's bytes. An empty
    // slot's last word is u32::MAX.
    let hashes: Vec<u64> = tokens.iter().map(|t| table_hash::hash_bytes(t)).collect();
    let (vocab_buckets, place, vocab_slots) = perfect_layout(&hashes)?;
    let mut vocab = vec![u32::MAX; vocab_slots * 3];
    for (id, t) in tokens.iter().enumerate() {
        assert!(
            id < 1 << 24 && t.len() < 255,
            "token {id} does not fit a vocabulary slot"
        );
        let (i, word) = (place[id], table_hash::prefix_word(t));
        vocab[3 * i..3 * i + 3].copy_from_slice(&[
            word as u32,
            (word >> 32) as u32,
            id as u32 | (t.len() as u32) << 24,
        ]);
    }

    let mut pairs: Vec<(u64, u32)> = Vec::new();
    for (id, t) in tokens.iter().enumerate() {
        for k in 1..t.len() {
            if let (Some(&a), Some(&b)) = (by_bytes.get(&t[..k]), by_bytes.get(&t[k..])) {
                pairs.push(((u64::from(a) << 32) | u64::from(b), id as u32));
            }
        }
    }
    // Each slot is one word, left id << 42 | right id << 21 | joined id (ids under 2^21),
    // written as two u32s; u64::MAX is empty.
    let hashes: Vec<u64> = pairs
        .iter()
        .map(|&(key, _)| table_hash::hash_pair(key))
        .collect();
    let (pair_buckets, place, pair_slots) = perfect_layout(&hashes)?;
    let mut slots = vec![u64::MAX; pair_slots];
    for (&(key, id), &i) in pairs.iter().zip(&place) {
        let (left, right) = (key >> 32, key & 0xFFFF_FFFF);
        assert!(
            left.max(right).max(u64::from(id)) < (1 << 21) - 1,
            "ids fit 21 bits"
        );
        slots[i] = left << 42 | right << 21 | u64::from(id);
    }
    let edge_pairs = edge_pair_filter(&tokens, &pairs);
    let pair_table = u64_words(slots);

    let mut byte_ids = [u32::MAX; 256];
    let mut byte_pairs = vec![u32::MAX; 1 << 16];
    for (id, t) in tokens.iter().enumerate() {
        match t {
            [b] => byte_ids[*b as usize] = id as u32,
            [a, b] => byte_pairs[(usize::from(*a) << 8) | usize::from(*b)] = id as u32,
            _ => {}
        }
    }

    let mut hazards = Hazards::new(&tokens, &by_bytes);
    let chars = char_table(&mut hazards);
    let spaced = spaced_hangul_table(&mut hazards);
    let char_masks = hazards.mask_words();

    let file = std::fs::File::create(out.join(format!("{name}.tables")))?;
    let mut f = std::io::BufWriter::new(file);
    let mut put = |v: u32| f.write_all(&v.to_le_bytes());
    for v in [
        n as u32,
        all.len() as u32,
        vocab_slots as u32,
        vocab_buckets.len() as u32,
        pair_slots as u32,
        pair_buckets.len() as u32,
        (char_masks.len() / 4) as u32,
        *HANGUL.start(),
        spaced.len() as u32 / 2,
        edge_pairs.len() as u32 / 2,
    ] {
        put(v)?;
    }
    for v in block_starts
        .iter()
        .chain(&length_words)
        .chain(&vocab)
        .chain(&vocab_buckets)
        .chain(&byte_ids)
        .chain(&byte_pairs)
        .chain(&pair_table)
        .chain(&pair_buckets)
        .chain(&chars)
        .chain(&spaced)
        .chain(&char_masks)
        .chain(&edge_pairs)
    {
        put(*v)?;
    }
    f.write_all(&all)?;
    Ok(())
}

/// The longest part an entry's merges pass through: a space and a three-byte character
/// (`spaced_hangul_table`). `Hazards::before` and `after` must cover every part, or a token
/// that forms across an edge goes unseen.
const AFFIX: usize = 4;

/// A table entry's second id when its bytes merge into one token.
const NO_SECOND: u64 = (1 << 21) - 1;

/// Bytes merged on their own (`Hazards::merge`): their one or two tokens and their
/// (left, right) hazard masks.
struct Merged {
    first: u64,
    second: u64,
    masks: (u64, u64),
}

/// What the hazard proofs of `char_table` and `spaced_hangul_table` read of a vocabulary.
struct Hazards<'t> {
    rank: &'t HashMap<&'t [u8], u32>,
    /// For each token suffix (prefix) of up to `AFFIX` bytes: the byte before (after) it
    /// in some longer token, with the lowest rank of such a token.
    before: HashMap<&'t [u8], HashMap<u8, u32>>,
    after: HashMap<&'t [u8], HashMap<u8, u32>>,
    /// Tokens that join a token starting with a lead byte on their right, and tokens that
    /// join a token ending with a continuation byte on their left.
    joins_lead: HashSet<&'t [u8]>,
    joins_continuation: HashSet<&'t [u8]>,
    /// The distinct (left, right) mask pairs, and the index of each.
    masks: Vec<(u64, u64)>,
    mask_index: HashMap<(u64, u64), u64>,
}

impl<'t> Hazards<'t> {
    fn new(tokens: &[&'t [u8]], by_bytes: &'t HashMap<&'t [u8], u32>) -> Self {
        let mut before: HashMap<&[u8], HashMap<u8, u32>> = HashMap::new();
        let mut after: HashMap<&[u8], HashMap<u8, u32>> = HashMap::new();
        for (id, t) in tokens.iter().enumerate() {
            let id = id as u32;
            for k in 1..t.len() {
                if t.len() - k <= AFFIX {
                    let low = before
                        .entry(&t[k..])
                        .or_default()
                        .entry(t[k - 1])
                        .or_insert(id);
                    *low = (*low).min(id);
                }
                if k <= AFFIX {
                    let low = after.entry(&t[..k]).or_default().entry(t[k]).or_insert(id);
                    *low = (*low).min(id);
                }
            }
        }
        let mut joins_lead: HashSet<&[u8]> = HashSet::new();
        let mut joins_continuation: HashSet<&[u8]> = HashSet::new();
        for t in tokens {
            for k in 1..t.len() {
                let (a, b) = t.split_at(k);
                if by_bytes.contains_key(a) && by_bytes.contains_key(b) {
                    if b[0] >= 0xC0 {
                        joins_lead.insert(a);
                    }
                    if (0x80..0xC0).contains(&a[a.len() - 1]) {
                        joins_continuation.insert(b);
                    }
                }
            }
        }
        Hazards {
            rank: by_bytes,
            before,
            after,
            joins_lead,
            joins_continuation,
            masks: Vec::new(),
            mask_index: HashMap::new(),
        }
    }

    /// `bytes` merged on their own, tiktoken's way (lowest rank first, leftmost on ties),
    /// into at most two tokens, with their hazard masks; `None` when nothing merges or
    /// more than two tokens are left.
    fn merge(&self, bytes: &[u8]) -> Option<Merged> {
        assert!(
            bytes.len() <= AFFIX,
            "the hazard maps cover parts of up to AFFIX bytes"
        );
        let mut parts: Vec<&[u8]> = bytes.chunks(1).collect();
        let mut states = vec![parts.clone()];
        let mut highest = None;
        loop {
            let best = (0..parts.len() - 1)
                .filter_map(|i| {
                    let joined = [parts[i], parts[i + 1]].concat();
                    self.rank.get(joined.as_slice()).map(|&r| (r, i))
                })
                .min();
            let Some((r, i)) = best else { break };
            highest = Some(r);
            let len = parts[i].len() + parts[i + 1].len();
            let start = parts[..i].iter().map(|p| p.len()).sum::<usize>();
            parts.splice(i..i + 2, [&bytes[start..start + len]]);
            states.push(parts.clone());
        }
        let highest = highest?;
        if parts.len() > 2 {
            return None;
        }
        let (mut left, mut right) = (0u64, 0u64);
        for state in &states {
            for (&p, &r) in self.before.get(state[0]).into_iter().flatten() {
                if r <= highest {
                    match p {
                        0x00..=0x7F => right |= 2,
                        0x80..=0xBF => left |= 1 << (p - 0x80),
                        _ => {} // a lead byte never ends the character before
                    }
                }
            }
            for (&q, &r) in self.after.get(state[state.len() - 1]).into_iter().flatten() {
                if r <= highest {
                    match q {
                        0x00..=0x7F => right |= 1,
                        0xC2..=0xFF => right |= 1 << (q - 0xC0),
                        _ => {} // a continuation byte never starts the character after
                    }
                }
            }
        }
        let alone_right = !self.joins_lead.contains(parts[parts.len() - 1]);
        let alone_left = !self.joins_continuation.contains(parts[0]);
        right |= u64::from(alone_right) << 62 | u64::from(alone_left) << 63;
        let ids: Vec<u32> = parts
            .iter()
            .map(|p| self.rank.get(p).copied())
            .collect::<Option<_>>()?;
        let first = u64::from(ids[0]);
        let second = ids.get(1).map_or(NO_SECOND, |&id| u64::from(id));
        assert!(first.max(second) <= NO_SECOND, "ids fit 21 bits");
        Some(Merged {
            first,
            second,
            masks: (left, right),
        })
    }

    /// A merge's table entry, `first << 43 | second << 22 | mask index`; its masks join the
    /// distinct ones here.
    fn entry(&mut self, merged: Merged) -> u64 {
        let masks = &mut self.masks;
        let m = *self.mask_index.entry(merged.masks).or_insert_with(|| {
            masks.push(merged.masks);
            masks.len() as u64 - 1
        });
        assert!(m < 1 << 22, "mask indices fit 22 bits");
        merged.first << 43 | merged.second << 22 | m
    }

    /// The mask pairs, four words each: left, right.
    fn mask_words(&self) -> Vec<u32> {
        self.masks
            .iter()
            .flat_map(|&(l, r)| [l as u32, (l >> 32) as u32, r as u32, (r >> 32) as u32])
            .collect()
    }
}

/// 64-bit values as little-endian pairs of words.
fn u64_words(values: impl IntoIterator<Item = u64>) -> Vec<u32> {
    values
        .into_iter()
        .flat_map(|v| [v as u32, (v >> 32) as u32])
        .collect()
}

/// Entries as two words each; all ones for none.
fn entry_words(entries: impl Iterator<Item = Option<u64>>) -> Vec<u32> {
    u64_words(entries.map(|e| e.unwrap_or(u64::MAX)))
}

/// For every three-byte UTF-8 character: the tokens its bytes merge into on their own,
/// and the neighbouring bytes next to which that merge is not certain to happen first.
/// Returns the entries (two words each: `first << 43 | second << 22 | mask index`, with
/// 0x1F_FFFF for no second token, all ones for no entry); the masks they index go to
/// `hazards` (four words each: left, right), which a few hundred characters' classes share
/// (read by `Tables::char_parts`).
///
/// BPE merges the lowest-ranked pair first. A character's own merges all come before any
/// merge across its edges when every token that could form across an edge, while the
/// character is in any of its intermediate states, ranks above all of its own merges. The
/// byte beside the character is known when a piece is merged, so the hazards are kept per
/// neighbouring byte: bit `p - 0x80` of the left mask for a continuation byte `p` before
/// it, bit `q - 0xC0` of the right mask for a lead byte `q` after it; bits 0 and 1 of the
/// right mask (0xC0 and 0xC1 never occur in UTF-8) stand for an ASCII byte after and
/// before it. Over-approximating the tokens that could form keeps this exact.
///
/// Bit 62 of the right mask: the last token of the character joins no token that starts
/// with a lead byte; bit 63: its first token joins no token that ends with a continuation
/// byte. Most pairs of CJK characters are no token, and these bits say so without a
/// lookup.
fn char_table(hazards: &mut Hazards<'_>) -> Vec<u32> {
    entry_words((0..1u32 << 16).map(|index| {
        let bytes = [
            0xE0 | (index >> 12) as u8,
            0x80 | ((index >> 6) & 0x3F) as u8,
            0x80 | (index & 0x3F) as u8,
        ];
        hazards.merge(&bytes).map(|m| hazards.entry(m))
    }))
}

/// The Hangul syllables, which `spaced_hangul_table` covers.
const HANGUL: std::ops::RangeInclusive<u32> = 0xAC00..=0xD7A3;

/// The same entries as `char_table`'s for a space and a Hangul syllable at the start of a
/// piece (` 한국어`: Korean puts spaces between words). A space before a character is a
/// hazard for most syllables (` \xeb` ranks below most of their own merges), so
/// `char_table` cannot take them whole; at a piece's start the space has no left
/// neighbour, and the four bytes merge on their own first whenever the right mask allows.
///
/// Empty unless most syllables take an entry: o200k's take 64 %, cl100k's, whose Korean is
/// mostly byte tokens, 30 %, which is too little for 0.09 MB under the package's 20 MB.
fn spaced_hangul_table(hazards: &mut Hazards<'_>) -> Vec<u32> {
    let merged: Vec<Option<Merged>> = HANGUL
        .map(|c| {
            let mut bytes = [b' '; 4];
            char::from_u32(c)?.encode_utf8(&mut bytes[1..]);
            hazards.merge(&bytes)
        })
        .collect();
    if merged.iter().flatten().count() * 2 < merged.len() {
        return Vec::new(); // before any of their masks is kept
    }
    entry_words(merged.into_iter().map(|m| m.map(|m| hazards.entry(m))))
}

/// The filter of pairs across a character edge (`table_hash.rs`) as little-endian words:
/// every pair of the pair table of such a left and right token is in it, so such a pair
/// that the filter rules out is certain to be no token.
fn edge_pair_filter(tokens: &[&[u8]], pairs: &[(u64, u32)]) -> Vec<u32> {
    let keys: Vec<(u32, u32)> = pairs
        .iter()
        .map(|&(key, _)| ((key >> 32) as u32, key as u32))
        .filter(|&(a, b)| {
            table_hash::ends_in_character(tokens[a as usize])
                && table_hash::starts_three_byte_character(tokens[b as usize])
        })
        .collect();
    let words = (keys.len() * table_hash::FILTER_BITS_PER_KEY).div_ceil(64);
    let mut filter = vec![0u64; words];
    for (a, b) in keys {
        let (word, bits) = table_hash::filter_bits(a, b, words);
        filter[word] |= bits;
    }
    u64_words(filter)
}

fn write_dfas(out: &Path) -> Result<(), Box<dyn Error>> {
    use regex_automata::dfa::{dense, StartKind};
    for (name, split) in patterns::splits() {
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .start_kind(StartKind::Anchored)
                    .minimize(true),
            )
            .build_many(&split)?;
        // A dense DFA is mostly repeated rows: deflated it is 1-2 % of its size, and
        // inflating it takes a few milliseconds. The sparse form (67-116 KB) is read in
        // place, for a process's first pieces (`pretokenize.rs`).
        let (bytes, pad) = dfa.to_bytes_little_endian();
        let packed = miniz_oxide::deflate::compress_to_vec(&bytes[pad..], 9);
        std::fs::write(out.join(format!("{name}.dfa.deflate")), packed)?;
        let sparse = dfa.to_sparse()?.to_bytes_little_endian();
        std::fs::write(out.join(format!("{name}.sparse.dfa")), sparse)?;
    }
    Ok(())
}

/// Three bitmaps over the three-byte characters (bit `c` for code point `c`): `\p{L}`,
/// `\p{N}`, and `[\p{Lo}\p{Lm}\p{M}]` (in both of o200k's letter classes), by the same
/// Unicode tables the split DFAs were compiled with.
fn write_classes(out: &Path) -> Result<(), Box<dyn Error>> {
    let mut bits = vec![0u8; 3 << 13];
    let classes = [r"\A\p{L}\z", r"\A\p{N}\z", r"\A[\p{Lo}\p{Lm}\p{M}]\z"];
    for (k, class) in classes.into_iter().enumerate() {
        let re = regex_automata::meta::Regex::new(class)?;
        for c in (0x800..=0xFFFF).filter_map(char::from_u32) {
            if re.is_match(c.encode_utf8(&mut [0; 4]).as_bytes()) {
                let c = c as usize;
                bits[(k << 13) + c / 8] |= 1 << (c % 8);
            }
        }
    }
    std::fs::write(out.join("classes3.bits"), bits)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=rust/tokenizer/table_hash.rs");
    println!("cargo::rerun-if-changed=rust/tokenizer/patterns.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    write_dfas(&out)?;
    write_classes(&out)?;
    write_tables(&out, "cl100k_base", bpe_openai::cl100k_base())?;
    write_tables(&out, "o200k_base", bpe_openai::o200k_base())?;
    Ok(())
}
