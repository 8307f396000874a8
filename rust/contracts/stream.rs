//! The one pipeline: text -> tokens -> cutter -> rows with every offset.
//!
//! [`Pipeline`] owns a buffer for text that arrives in pieces (strings or raw
//! UTF-8 bytes split anywhere); [`chunk_text`] runs a whole text through the
//! same steps without copying it, one block at a time, so that its token
//! buffer stays bounded too. Each step tokenizes what became final, lets the
//! cutter emit what can no longer change, converts the rows' byte offsets to
//! code points in one pass, copies the chunks' text out, and drops everything
//! before the cutter's keep point.

use std::sync::Arc;

use super::chunk_id::chunk_id;
use super::{delimiter_merge, ChunkMeta, Counter, Cutter, Input, PieceTokens, Row, Spec};
use crate::error::{Error, Result};
use crate::hf::stream::HfStream;
use crate::hf::HfTokenizer;
use crate::text::offsets::validate_starts;
use crate::tokenizer::stream::StreamEncoder;
use crate::tokenizer::Encoding;

/// The columns of [`Batch::table`], in order.
pub const COLUMNS: [&str; 14] = [
    "index",
    "parent",
    "token_start",
    "token_end",
    "byte_start",
    "byte_end",
    "char_start",
    "char_end",
    "oversize",
    "overlap_tokens",
    "overlap_chars",
    "overlap_spans",
    "span_start",
    "span_end",
];

/// The columns of [`Batch::spans`], in order.
pub const SPAN_COLUMNS: [&str; 4] = ["byte_start", "byte_end", "char_start", "char_end"];

/// A whole text is cut in blocks of this many bytes, so its tokens never pile up.
const BLOCK: usize = 1 << 20;

/// Rows as flat arrays: what the bindings hand to Python (and to Arrow).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// One row per chunk (children follow their parent), in [`COLUMNS`] order;
    /// `parent` is -1 for a top-level chunk.
    pub table: Vec<[i64; 14]>,
    /// `byte_start, byte_end, char_start, char_end` of joined chunks' spans;
    /// row `i` owns `spans[span_start..span_end]`.
    pub spans: Vec<[i64; 4]>,
    /// Every chunk's text, one after another.
    pub text: String,
    /// Where each row's text ends in `text`.
    pub text_ends: Vec<u64>,
    /// Each row's heading path and context, for a structure-aware contract
    /// (`Markdown`); empty for the others.
    pub meta: Vec<Arc<ChunkMeta>>,
    /// Each row's content id, over its context and text ([`chunk_id`]).
    pub ids: Vec<[u8; 16]>,
}

impl Batch {
    /// Appends another batch (row indices of spans shift along).
    pub fn extend(&mut self, other: Batch) {
        let (spans, text) = (self.spans.len() as i64, self.text.len() as u64);
        self.table.extend(other.table.into_iter().map(|mut r| {
            r[12] += spans;
            r[13] += spans;
            r
        }));
        self.spans.extend(other.spans);
        self.text.push_str(&other.text);
        self.text_ends
            .extend(other.text_ends.into_iter().map(|e| e + text));
        self.meta.extend(other.meta);
        self.ids.extend(other.ids);
    }
}

/// Where the whole text's tokens come from.
#[derive(Clone, Debug)]
pub enum Tokens {
    Embedded(Encoding),
    /// A Python tokenizer's token starts over the whole text (bytes), and whether each
    /// token begins a word (empty: no word information).
    Given {
        starts: Vec<u32>,
        words: Vec<bool>,
        /// Counts text a cutter builds itself (Markdown's context) in the same tokens.
        count: Option<Counter>,
    },
    /// A Python tokenizer's tokens for each piece of a piece-tokenizing contract.
    GivenPieces {
        starts: Vec<u32>,
        counts: Vec<u32>,
    },
    /// A native `tokenizer.json` engine, run over the whole text (or each piece).
    Hf(Arc<HfTokenizer>),
}

impl Tokens {
    /// A native `tokenizer.json` engine's output for `text` as given tokens: word starts
    /// for the whole text, or each piece's tokens for a piece-tokenizing contract.
    fn resolve(self, text: &str, spec: &Spec) -> Result<(Tokens, Option<Arc<HfTokenizer>>)> {
        let Tokens::Hf(tok) = self else {
            return Ok((self, None));
        };
        if let Spec::Delimiter(cfg) = spec {
            let (mut starts, mut counts) = (Vec::new(), Vec::new());
            for piece in delimiter_merge::pieces(text, cfg)? {
                let encoded = tok.encode(&text[piece])?;
                counts.push(encoded.byte_starts.len() as u32);
                starts.extend(encoded.byte_starts);
            }
            return Ok((Tokens::GivenPieces { starts, counts }, Some(tok)));
        }
        let (starts, words) = tok.chunk_tokens(text)?;
        let count = None; // the engine counts
        Ok((
            Tokens::Given {
                starts,
                words,
                count,
            },
            Some(tok),
        ))
    }
}

/// Tokenizes text that arrives in pieces: an embedded encoding or a `tokenizer.json`.
enum Encoder {
    Embedded(StreamEncoder),
    Hf(HfStream),
}

impl Encoder {
    /// Where the known tokens end (the next token starts).
    fn pos(&self) -> usize {
        match self {
            Encoder::Embedded(e) => e.pos(),
            Encoder::Hf(e) => e.pos(),
        }
    }

    /// The first byte the encoder still needs.
    fn keep(&self) -> usize {
        match self {
            Encoder::Embedded(e) => e.pos(),
            Encoder::Hf(e) => e.keep(),
        }
    }
}

/// Everything but the text: the tokenizer state, the cutter and the offsets.
struct Core {
    cutter: Box<dyn Cutter>,
    encoder: Option<Encoder>,
    starts: Vec<usize>,
    /// Whether each token in `starts` begins a word (empty: no word information).
    words: Vec<bool>,
    token_base: usize,
    /// The code-point offset of the first kept byte.
    base_char: u64,
    rows: Vec<Row>,
}

impl Core {
    /// `engine`: the `tokenizer.json` engine that produced given tokens, which also
    /// counts what a cutter measures itself (Markdown's context).
    fn new(spec: &Spec, tokens: Tokens, engine: Option<Arc<HfTokenizer>>) -> Result<Self> {
        let counted = matches!(tokens, Tokens::Given { count: Some(_), .. });
        if spec.counts_context()
            && !matches!(tokens, Tokens::Embedded(_) | Tokens::Hf(_))
            && engine.is_none()
            && !counted
        {
            // Markdown and Code count their context strings: given tokens need a count.
            return Err(Error::InvalidConfig {
                field: "tokenizer",
                value: "a Python tokenizer without a count".into(),
                expected: "an embedded encoding, a tokenizer.json, or token starts with a \
                           count for Markdown and Code on the native backend",
            });
        }
        let (pieces, encoder, starts) = match tokens {
            Tokens::Embedded(enc) => {
                let tok = enc.load()?;
                let encoder =
                    (!spec.tokenizes_pieces()).then(|| Encoder::Embedded(StreamEncoder::new(tok)));
                (
                    PieceTokens::Embedded(tok),
                    encoder,
                    (Vec::new(), Vec::new()),
                )
            }
            Tokens::Given {
                starts,
                words,
                count,
            } => {
                if spec.tokenizes_pieces() {
                    // A delimiter contract counts each piece: whole-text starts cannot say.
                    return Err(Error::InvalidConfig {
                        field: "tokens",
                        value: "token starts without per-piece counts".into(),
                        expected: "per-piece starts and counts for a delimiter contract",
                    });
                }
                // No other contract tokenizes text of its own here: Markdown, the one that
                // counts its context, is refused above without something to count with.
                let pieces = match (engine, count) {
                    (Some(tok), _) => PieceTokens::Hf(tok),
                    (None, Some(count)) => PieceTokens::Counted(count),
                    (None, None) => PieceTokens::Embedded(Encoding::Cl100kBase.load()?),
                };
                let mut starts: Vec<usize> = starts.into_iter().map(|s| s as usize).collect();
                if let Some(first) = starts.first_mut() {
                    *first = 0; // token 0 runs from the start of the text
                }
                (pieces, None, (starts, words))
            }
            Tokens::GivenPieces { starts, counts } => (
                PieceTokens::Given { starts, counts },
                None,
                (Vec::new(), Vec::new()),
            ),
            Tokens::Hf(tok) => {
                let encoder = (!spec.tokenizes_pieces())
                    .then(|| Encoder::Hf(HfStream::new(Arc::clone(&tok))));
                (PieceTokens::Hf(tok), encoder, (Vec::new(), Vec::new()))
            }
        };
        let (starts, words) = starts;
        Ok(Core {
            cutter: spec.cutter(pieces)?,
            encoder,
            starts,
            words,
            token_base: 0,
            base_char: 0,
            rows: Vec::new(),
        })
    }

    /// Runs the tokenizer and the cutter over `text` (from absolute byte `base`),
    /// appends the finished rows to `out`, and returns the first byte still needed.
    fn step(&mut self, text: &str, base: usize, done: bool, out: &mut Batch) -> Result<usize> {
        let end = base + text.len();
        match &mut self.encoder {
            Some(Encoder::Embedded(e)) => e.advance(text, base, done, &mut self.starts),
            Some(Encoder::Hf(e)) => {
                e.advance(text, base, done, &mut self.starts, &mut self.words)?
            }
            None => {}
        }
        // Without a stream encoder every token is known up front (or not used).
        let tokens_end = self.encoder.as_ref().map_or(end, Encoder::pos);
        let input = Input {
            text,
            base,
            starts: &self.starts,
            token_base: self.token_base,
            tokens_end,
            done,
            words: &self.words,
        };
        self.rows.clear();
        self.cutter.cut(&input, &mut self.rows)?;
        emit(
            &input,
            self.base_char,
            &self.rows,
            self.cutter.joiner(),
            out,
        )?;
        let (keep_byte, keep_token) = self.cutter.keep();
        let keep_byte = match &self.encoder {
            Some(encoder) => keep_byte.min(encoder.keep()),
            None => keep_byte,
        };
        // Drop consumed tokens once they are at least half the buffer (amortized).
        let drop = keep_token.saturating_sub(self.token_base);
        if self.cutter.wants_tokens() && drop > 0 && drop * 2 >= self.starts.len() {
            self.starts.drain(..drop);
            if !self.words.is_empty() {
                self.words.drain(..drop);
            }
            self.token_base += drop;
        }
        Ok(keep_byte.clamp(base, end))
    }

    /// Moves the first kept byte from `base` to `new_base`, counting the characters passed.
    fn advance_base(&mut self, text: &str, base: usize, new_base: usize) {
        let passed = &text.as_bytes()[..new_base - base];
        self.base_char += count_chars(passed);
    }
}

/// Code points in a UTF-8 slice: every byte that does not continue a character.
fn count_chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u64
}

/// Converts rows to the batch layout: code-point offsets and texts.
fn emit(
    input: &Input<'_>,
    base_char: u64,
    rows: &[Row],
    joiner: &str,
    out: &mut Batch,
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut positions: Vec<usize> = Vec::with_capacity(rows.len() * 2);
    for r in rows {
        positions.extend([r.byte_start, r.byte_end]);
        positions.extend(r.fresh_start);
        positions.extend(r.spans.iter().flat_map(|s| [s.start, s.end]));
    }
    positions.sort_unstable();
    positions.dedup();
    let chars = char_offsets(input, base_char, &positions)?;
    let char_of = |at: usize| -> i64 {
        // Every position was collected above, so the search always finds it.
        positions.binary_search(&at).map_or(-1, |i| chars[i] as i64)
    };
    for r in rows {
        let span_start = out.spans.len() as i64;
        for s in &r.spans {
            out.spans.push([
                s.start as i64,
                s.end as i64,
                char_of(s.start),
                char_of(s.end),
            ]);
        }
        let (cs, ce) = (char_of(r.byte_start), char_of(r.byte_end));
        let overlap_chars = r.fresh_start.map_or(0, |f| char_of(f) - cs);
        out.table.push([
            r.index as i64,
            r.parent.map_or(-1, |p| p as i64),
            r.token_start as i64,
            r.token_end as i64,
            r.byte_start as i64,
            r.byte_end as i64,
            cs,
            ce,
            i64::from(r.oversize),
            r.overlap_tokens as i64,
            overlap_chars,
            r.overlap_spans as i64,
            span_start,
            out.spans.len() as i64,
        ]);
        let text_start = out.text.len();
        if r.spans.is_empty() {
            out.text.push_str(input.slice(r.byte_start, r.byte_end));
        } else {
            for (k, s) in r.spans.iter().enumerate() {
                if k > 0 {
                    out.text.push_str(joiner);
                }
                out.text.push_str(input.slice(s.start, s.end));
            }
        }
        let context = r.meta.as_ref().map_or("", |m| m.context.as_str());
        out.ids.push(chunk_id(context, &out.text[text_start..]));
        out.text_ends.push(out.text.len() as u64);
        if let Some(meta) = &r.meta {
            out.meta.push(Arc::clone(meta));
        }
    }
    Ok(())
}

/// The code-point offsets of sorted byte positions, in one pass from `input.base`.
fn char_offsets(input: &Input<'_>, base_char: u64, positions: &[usize]) -> Result<Vec<u64>> {
    let bytes = input.bytes();
    let mut out = Vec::with_capacity(positions.len());
    let (mut at, mut chars) = (0usize, base_char);
    for &p in positions {
        let local = p.checked_sub(input.base).filter(|&l| l <= bytes.len());
        let Some(local) = local.filter(|&l| input.text.is_char_boundary(l)) else {
            return Err(Error::InvalidOffsets {
                index: out.len(),
                value: p as u64,
                reason: "a chunk boundary is outside the kept text or inside a character".into(),
            });
        };
        chars += count_chars(&bytes[at..local]);
        at = local;
        out.push(chars);
    }
    Ok(out)
}

/// Chunks a whole text. Equal to a [`Pipeline`] fed the text in any pieces.
///
/// # Errors
/// Invalid given tokens, or a spec that cannot be built.
pub fn chunk_text(text: &str, spec: &Spec, tokens: Tokens) -> Result<Batch> {
    let (tokens, engine) = tokens.resolve(text, spec)?;
    if let Tokens::Given { starts, words, .. } = &tokens {
        validate_starts(starts, text.len())?;
        if !words.is_empty() && words.len() != starts.len() {
            return Err(Error::InvalidOffsets {
                index: words.len(),
                value: starts.len() as u64,
                reason: "word flags must pair up with token starts".into(),
            });
        }
    }
    let one_block = !matches!(tokens, Tokens::Embedded(_));
    let mut core = Core::new(spec, tokens, engine)?;
    let mut out = Batch::default();
    let (mut base, mut end) = (0, 0);
    loop {
        end = if one_block {
            text.len()
        } else {
            (end + BLOCK).min(text.len())
        };
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let done = end == text.len();
        let keep = core.step(&text[base..end], base, done, &mut out)?;
        if done {
            return Ok(out);
        }
        core.advance_base(&text[base..end], base, keep);
        base = keep;
    }
}

/// A stream of text in pieces: strings, or UTF-8 bytes split anywhere.
pub struct Pipeline {
    core: Core,
    text: String,
    base: usize,
    /// Bytes of a character split across `push_bytes` calls.
    pending: Vec<u8>,
    finished: bool,
}

impl Pipeline {
    /// # Errors
    /// A spec that cannot be built, or an encoding that cannot load.
    pub fn new(spec: &Spec, encoding: Encoding) -> Result<Self> {
        Pipeline::with_tokens(spec, Tokens::Embedded(encoding))
    }

    /// A pipeline whose tokens come from `tokens`: an embedded encoding or a native
    /// `tokenizer.json` engine (given tokens cannot stream).
    ///
    /// # Errors
    /// A spec that cannot be built, an encoding that cannot load, or given tokens.
    pub fn with_tokens(spec: &Spec, tokens: Tokens) -> Result<Self> {
        if matches!(tokens, Tokens::Given { .. } | Tokens::GivenPieces { .. }) {
            return Err(Error::InvalidConfig {
                field: "tokens",
                value: "given token starts".into(),
                expected: "an encoding or a tokenizer.json engine for a stream",
            });
        }
        Ok(Pipeline {
            core: Core::new(spec, tokens, None)?,
            text: String::new(),
            base: 0,
            pending: Vec::new(),
            finished: false,
        })
    }

    /// The absolute byte offset of everything pushed so far (complete characters).
    pub fn bytes_seen(&self) -> usize {
        self.base + self.text.len()
    }

    fn check_open(&self) -> Result<()> {
        if self.finished {
            return Err(Error::InvalidConfig {
                field: "stream",
                value: "finished".into(),
                expected: "no input after finish()",
            });
        }
        Ok(())
    }

    /// Appends text and returns the chunks that became final.
    ///
    /// # Errors
    /// Input after [`Pipeline::finish`], or a text of bytes split inside a character.
    pub fn push_str(&mut self, piece: &str) -> Result<Batch> {
        self.check_open()?;
        if !self.pending.is_empty() {
            return Err(Error::InvalidUtf8 {
                byte_offset: self.bytes_seen() as u64,
                reason: "a str piece follows bytes that end inside a character".into(),
            });
        }
        self.text.push_str(piece);
        self.step(false)
    }

    /// Appends UTF-8 bytes (a character may be split across calls).
    ///
    /// # Errors
    /// [`Error::InvalidUtf8`] with the absolute offset of the first invalid byte.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<Batch> {
        self.check_open()?;
        let joined;
        let data: &[u8] = if self.pending.is_empty() {
            bytes
        } else {
            joined = [self.pending.as_slice(), bytes].concat();
            &joined
        };
        let at = self.bytes_seen() as u64;
        match std::str::from_utf8(data) {
            Ok(s) => {
                self.text.push_str(s);
                self.pending.clear();
            }
            Err(e) => {
                let valid = e.valid_up_to();
                if e.error_len().is_some() {
                    return Err(Error::InvalidUtf8 {
                        byte_offset: at + valid as u64,
                        reason: "invalid UTF-8".into(),
                    });
                }
                // The valid prefix is UTF-8 by the error's own account.
                self.text
                    .push_str(std::str::from_utf8(&data[..valid]).unwrap_or_default());
                self.pending = data[valid..].to_vec();
            }
        }
        self.step(false)
    }

    /// Ends the stream and returns the last chunks.
    ///
    /// # Errors
    /// [`Error::InvalidUtf8`] when the bytes end inside a character.
    pub fn finish(&mut self) -> Result<Batch> {
        self.check_open()?;
        if !self.pending.is_empty() {
            return Err(Error::InvalidUtf8 {
                byte_offset: self.bytes_seen() as u64,
                reason: "the input ends inside a character".into(),
            });
        }
        let out = self.step(true);
        self.finished = true;
        out
    }

    fn step(&mut self, done: bool) -> Result<Batch> {
        let mut out = Batch::default();
        let keep = self.core.step(&self.text, self.base, done, &mut out)?;
        let drop = keep - self.base;
        // Compact once the dead prefix is half the buffer: amortized linear.
        if drop > 0 && drop * 2 >= self.text.len() {
            self.core.advance_base(&self.text, self.base, keep);
            self.text.drain(..drop);
            self.base = keep;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::delimiter_merge::DelimiterConfig;
    use crate::contracts::merge::MergeStrategy;
    use crate::contracts::recursive::{Keep, RecursiveConfig};
    use crate::contracts::windows::WindowConfig;
    use crate::text::breaks::BreakClasses;
    use proptest::prelude::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn recursive(max: usize, overlap: usize, fixed: Option<&str>, keep: Keep) -> RecursiveConfig {
        RecursiveConfig {
            max_tokens: max,
            overlap_tokens: overlap,
            fixed_separator: fixed.map(str::to_owned),
            separators: strings(&["\n\n", "\n", "。", ". ", " ", ""]),
            keep,
            content: false,
        }
    }

    fn classes() -> BreakClasses {
        let class = |s: &[&str]| strings(s);
        BreakClasses::parse(&[
            class(&["\n"]),
            class(&["。", "！", "？", "!", "?", ". ", "… ", "； "]),
            class(&["，", "；", "：", ",", ";", ":", "、"]),
            class(&[" ", "\t"]),
        ])
        .unwrap()
    }

    /// One spec of every kind, small enough to cut short texts into many chunks.
    fn specs(size: usize) -> Vec<Spec> {
        let overlap = size / 3;
        vec![
            Spec::Windows(WindowConfig::new(size, overlap).unwrap()),
            Spec::Recursive(recursive(size, overlap, None, Keep::End)),
            Spec::Recursive(recursive(size, 0, Some("\n\n"), Keep::Start)),
            Spec::Sentences {
                safe_max: size,
                overlap_tokens: overlap,
                classes: classes(),
            },
            Spec::Delimiter(
                DelimiterConfig::new(
                    size as u64,
                    MergeStrategy::UnderCap,
                    30,
                    [
                        strings(&["##"]),
                        strings(&["\n", "。", ". "]),
                        strings(&[","]),
                    ],
                    "\n".into(),
                )
                .unwrap(),
            ),
            Spec::Delimiter(
                DelimiterConfig::new(
                    size as u64,
                    MergeStrategy::OverCap,
                    10,
                    [vec![], strings(&["\n", " "]), vec![]],
                    String::new(),
                )
                .unwrap(),
            ),
            Spec::ParentChild {
                parent: Some(recursive(size * 2, 1, None, Keep::End)),
                child: recursive(size, 0, None, Keep::End),
            },
            Spec::ParentChild {
                parent: None,
                child: recursive(size, 1, Some("\n"), Keep::End),
            },
        ]
    }

    fn streamed_str(text: &str, spec: &Spec, enc: Encoding, cuts: &[usize]) -> Batch {
        let mut points: Vec<usize> = cuts
            .iter()
            .map(|&c| {
                let mut c = c.min(text.len());
                while !text.is_char_boundary(c) {
                    c += 1;
                }
                c
            })
            .collect();
        points.sort_unstable();
        let mut p = Pipeline::new(spec, enc).unwrap();
        let mut out = Batch::default();
        let mut fed = 0;
        for c in points {
            out.extend(p.push_str(&text[fed..c]).unwrap());
            fed = c;
        }
        out.extend(p.push_str(&text[fed..]).unwrap());
        out.extend(p.finish().unwrap());
        out
    }

    fn streamed_bytes(text: &str, spec: &Spec, enc: Encoding, cuts: &[usize]) -> Batch {
        let mut points: Vec<usize> = cuts.iter().map(|&c| c.min(text.len())).collect();
        points.sort_unstable();
        let mut p = Pipeline::new(spec, enc).unwrap();
        let mut out = Batch::default();
        let mut fed = 0;
        for c in points {
            out.extend(p.push_bytes(&text.as_bytes()[fed..c]).unwrap());
            fed = c;
        }
        out.extend(p.push_bytes(&text.as_bytes()[fed..]).unwrap());
        out.extend(p.finish().unwrap());
        out
    }

    /// Every row's text is its source slice (or its spans joined), and the
    /// character offsets agree with the byte offsets.
    fn check_offsets(text: &str, batch: &Batch, joiner: &str) {
        let mut from = 0;
        for (row, &end) in batch.table.iter().zip(&batch.text_ends) {
            let got = &batch.text[from..end as usize];
            from = end as usize;
            let (bs, be, cs, ce) = (
                row[4] as usize,
                row[5] as usize,
                row[6] as usize,
                row[7] as usize,
            );
            let by_chars: String = text.chars().skip(cs).take(ce - cs).collect();
            assert_eq!(&text[bs..be], by_chars);
            let spans = &batch.spans[row[12] as usize..row[13] as usize];
            if spans.is_empty() {
                assert_eq!(got, &text[bs..be]);
            } else {
                let joined: Vec<&str> = spans
                    .iter()
                    .map(|s| &text[s[0] as usize..s[1] as usize])
                    .collect();
                assert_eq!(got, joined.join(joiner));
            }
        }
    }

    #[test]
    fn every_spec_streams_like_the_whole_text() {
        let text = "One two three. Four five six.\n\nSeven, eight ## nine ten.\n你好，世界。😀🧑\u{200d}🚀 café\r\n  end";
        for spec in specs(5) {
            for enc in [Encoding::Cl100kBase, Encoding::O200kBase] {
                let whole = chunk_text(text, &spec, Tokens::Embedded(enc)).unwrap();
                assert!(!whole.table.is_empty(), "{spec:?}");
                for cut in 0..=text.len() {
                    assert_eq!(
                        streamed_bytes(text, &spec, enc, &[cut]),
                        whole,
                        "{spec:?} {cut}"
                    );
                }
                let every: Vec<usize> = (0..text.len()).collect();
                assert_eq!(streamed_bytes(text, &spec, enc, &every), whole);
                assert_eq!(streamed_str(text, &spec, enc, &every), whole);
            }
        }
    }

    #[test]
    fn whole_texts_past_one_block_equal_streams() {
        let unit = "Lorem ipsum dolor sit amet, 你好世界。 consectetur.\n";
        let text = unit.repeat(3 * BLOCK / unit.len());
        for spec in specs(64) {
            let whole = chunk_text(&text, &spec, Tokens::Embedded(Encoding::Cl100kBase)).unwrap();
            let cuts: Vec<usize> = (1..40).map(|i| i * 77_777).collect();
            let joiner = if matches!(spec, Spec::Delimiter(_)) {
                "\n"
            } else {
                ""
            };
            if !matches!(&spec, Spec::Delimiter(c) if format!("{c:?}").contains("joiner: \"\"")) {
                check_offsets(&text, &whole, joiner);
            }
            assert_eq!(
                streamed_bytes(&text, &spec, Encoding::Cl100kBase, &cuts),
                whole
            );
        }
    }

    #[test]
    fn bytes_are_checked_and_errors_give_the_offset() {
        let spec = &specs(4)[0];
        let mut p = Pipeline::new(spec, Encoding::Cl100kBase).unwrap();
        p.push_bytes("ab".as_bytes()).unwrap();
        let err = p.push_bytes(b"c\xffd").unwrap_err();
        assert_eq!(
            err,
            Error::InvalidUtf8 {
                byte_offset: 3,
                reason: "invalid UTF-8".into()
            }
        );
        let mut p = Pipeline::new(spec, Encoding::Cl100kBase).unwrap();
        p.push_bytes(&"é".as_bytes()[..1]).unwrap();
        assert!(matches!(
            p.finish(),
            Err(Error::InvalidUtf8 { byte_offset: 0, .. })
        ));
    }

    #[test]
    fn empty_and_tokenless_texts() {
        for spec in specs(4) {
            let empty = chunk_text("", &spec, Tokens::Embedded(Encoding::Cl100kBase)).unwrap();
            assert!(empty.table.is_empty(), "{spec:?}");
        }
        // A user tokenizer that finds no tokens: windows keep the text whole.
        let text = "no tokens at all";
        for spec in specs(4).into_iter().filter(|s| !s.tokenizes_pieces()) {
            let b = chunk_text(
                text,
                &spec,
                Tokens::Given {
                    starts: Vec::new(),
                    words: Vec::new(),
                    count: None,
                },
            )
            .unwrap();
            let top: Vec<_> = b.table.iter().filter(|r| r[1] < 0).collect();
            let covered: usize = top.iter().map(|r| (r[5] - r[4]) as usize).sum();
            assert!(covered >= text.len(), "{spec:?} lost text: {b:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn random_splits_equal_the_whole_text(
            text in "[a-z .,!?\n\r#。你好😀\u{200d}é']{0,120}",
            cuts in proptest::collection::vec(0usize..140, 0..5),
            size in 2usize..9,
        ) {
            for spec in specs(size) {
                for enc in [Encoding::Cl100kBase, Encoding::O200kBase] {
                    let whole = chunk_text(&text, &spec, Tokens::Embedded(enc)).unwrap();
                    prop_assert_eq!(&streamed_bytes(&text, &spec, enc, &cuts), &whole);
                    prop_assert_eq!(&streamed_str(&text, &spec, enc, &cuts), &whole);
                }
            }
        }
    }
}
