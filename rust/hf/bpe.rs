//! BPE from a vocabulary and a merge list: merges applied lowest rank first (leftmost
//! on ties) with a heap, so a long word costs O(n log n).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use foldhash::HashMap;

use super::byte_tokens;
use super::json::At;
use crate::error::{Error, Result};

#[derive(Debug)]
pub struct Bpe {
    vocab: HashMap<String, u32>,
    /// (left, right) -> (rank, merged id).
    merges: HashMap<(u32, u32), (u32, u32)>,
    unk: Option<String>,
    prefix: Option<String>,
    suffix: Option<String>,
    fuse_unk: bool,
    byte_fallback: bool,
    ignore_merges: bool,
}

#[derive(Clone, Copy)]
struct Symbol {
    id: u32,
    start: u32,
    len: u32,
    prev: i32,
    next: i32,
}

impl Bpe {
    pub fn parse(at: At<'_, '_>, vocab: HashMap<String, u32>) -> Result<Self> {
        if let Some(d) = at.get("dropout") {
            if d.at().f64()? != 0.0 {
                return Err(at.unsupported("dropout", "BPE dropout (random merges)"));
            }
        }
        let prefix = at.opt_str("continuing_subword_prefix")?.map(str::to_owned);
        let prefix_len = prefix.as_ref().map_or(0, String::len);
        let mut merges = HashMap::default();
        let list = at.req("merges")?;
        for (rank, item) in list.at().items()?.iter().enumerate() {
            let (a, b) = match item.value.as_str() {
                Some(s) => s.split_once(' ').ok_or_else(|| {
                    item.at()
                        .invalid(format!("{s:?} must be two tokens separated by a space"))
                })?,
                None => {
                    let pair = item.at().items()?;
                    match pair.as_slice() {
                        [a, b] => (a.at().str()?, b.at().str()?),
                        _ => return Err(item.at().invalid("must be a pair of tokens")),
                    }
                }
            };
            let id = |t: &str| {
                vocab.get(t).copied().ok_or_else(|| {
                    item.at()
                        .invalid(format!("merge token {t:?} is not in the vocabulary"))
                })
            };
            let merged = format!("{a}{}", b.get(prefix_len..).unwrap_or(""));
            merges.insert((id(a)?, id(b)?), (rank as u32, id(&merged)?));
        }
        Ok(Bpe {
            unk: at.opt_str("unk_token")?.map(str::to_owned),
            prefix,
            suffix: at.opt_str("end_of_word_suffix")?.map(str::to_owned),
            fuse_unk: at.flag("fuse_unk", false)?,
            byte_fallback: at.flag("byte_fallback", false)?,
            ignore_merges: at.flag("ignore_merges", false)?,
            vocab,
            merges,
        })
    }

    fn unk_id(&self, unk: &str) -> Result<u32> {
        self.vocab
            .get(unk)
            .copied()
            .ok_or_else(|| Error::Tokenizer {
                message: format!("Unk token `{unk}` not found in the vocabulary"),
            })
    }

    pub fn vocab(&self) -> &HashMap<String, u32> {
        &self.vocab
    }

    /// Appends `(id, byte start in word)` for `word`.
    pub fn tokenize(&self, word: &str, out: &mut Vec<(u32, u32)>) -> Result<()> {
        if word.is_empty() {
            return Ok(());
        }
        if self.ignore_merges {
            if let Some(&id) = self.vocab.get(word) {
                out.push((id, 0));
                return Ok(());
            }
        }
        let mut symbols: Vec<Symbol> = Vec::with_capacity(word.len());
        // Offsets are a running sum of lengths, as `Word::add` keeps them.
        let add = |symbols: &mut Vec<Symbol>, id: u32, _start: usize, len: usize| {
            let i = symbols.len() as i32;
            let start = symbols.last().map_or(0, |s| s.start + s.len);
            symbols.push(Symbol {
                id,
                start,
                len: len as u32,
                prev: i - 1,
                next: i + 1,
            });
        };
        let mut unk: Option<(u32, usize, usize)> = None;
        let mut key = String::new();
        let mut chars = word.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let len = c.len_utf8();
            key.clear();
            if i > 0 {
                if let Some(p) = &self.prefix {
                    key.push_str(p);
                }
            }
            key.push(c);
            if chars.peek().is_none() {
                if let Some(s) = &self.suffix {
                    key.push_str(s);
                }
            }
            if let Some(&id) = self.vocab.get(key.as_str()) {
                if let Some((u, s, l)) = unk.take() {
                    add(&mut symbols, u, s, l);
                }
                add(&mut symbols, id, i, len);
                continue;
            }
            if self.byte_fallback {
                if let Some(bytes) = byte_tokens(&self.vocab, &key) {
                    for id in bytes {
                        add(&mut symbols, id, i, 1);
                    }
                    continue;
                }
            }
            if let Some(u) = &self.unk {
                unk = match unk {
                    Some((id, s, l)) if self.fuse_unk => Some((id, s, l + len)),
                    Some((id, s, l)) => {
                        add(&mut symbols, id, s, l);
                        Some((self.unk_id(u)?, i, len))
                    }
                    None => Some((self.unk_id(u)?, i, len)),
                };
            }
        }
        if let Some((u, s, l)) = unk {
            add(&mut symbols, u, s, l);
        }
        if let Some(last) = symbols.last_mut() {
            last.next = -1;
        }
        self.merge_all(&mut symbols);
        out.extend(
            symbols
                .iter()
                .filter(|s| s.len > 0)
                .map(|s| (s.id, s.start)),
        );
        Ok(())
    }

    fn merge_all(&self, symbols: &mut [Symbol]) {
        let mut queue: BinaryHeap<Reverse<(u32, usize, u32)>> = BinaryHeap::new();
        for (pos, w) in symbols.windows(2).enumerate() {
            if let Some(&(rank, new)) = self.merges.get(&(w[0].id, w[1].id)) {
                queue.push(Reverse((rank, pos, new)));
            }
        }
        while let Some(Reverse((_, pos, new))) = queue.pop() {
            let cur = symbols[pos];
            if cur.len == 0 || cur.next < 0 {
                continue;
            }
            let next = cur.next as usize;
            let right = symbols[next];
            if self
                .merges
                .get(&(cur.id, right.id))
                .is_none_or(|&(_, n)| n != new)
            {
                continue; // stale entry
            }
            symbols[pos].id = new;
            symbols[pos].len += right.len;
            symbols[pos].next = right.next;
            symbols[next].len = 0;
            if right.next >= 0 {
                symbols[right.next as usize].prev = pos as i32;
            }
            let cur = symbols[pos];
            if cur.prev >= 0 {
                let prev = cur.prev as usize;
                if let Some(&(rank, n)) = self.merges.get(&(symbols[prev].id, cur.id)) {
                    queue.push(Reverse((rank, prev, n)));
                }
            }
            if cur.next >= 0 {
                if let Some(&(rank, n)) = self.merges.get(&(cur.id, symbols[cur.next as usize].id))
                {
                    queue.push(Reverse((rank, pos, n)));
                }
            }
        }
    }
}
