//! The HTML tokenizer of `docs/html.md`, with source offsets.
//!
//! It follows the WHATWG tokenizer's states for everything that decides where text,
//! tags and comments begin and end, and what text they hold: data, RCDATA, RAWTEXT,
//! script data (with its escaped and double-escaped states), PLAINTEXT, CDATA, tags
//! and attributes, comments, doctypes and character references. Parse errors change
//! nothing, so none is reported. The consumer switches the text states after a start
//! tag ([`Tokenizer::switch`]), as the tree builder does, and says when the current
//! node is foreign ([`Tokenizer::foreign`]), which is where `<![CDATA[` opens a section.
//!
//! Offsets are bytes of the source; the syntax is ASCII, so the scan works on bytes.
//! `reference/html_tokenize.py` is the twin, written from the same description.

use memchr::{memchr, memchr2, memchr3, memmem};

use super::entities::ENTITIES;

/// The text states a start tag can switch to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Data,
    RcData,
    RawText,
    Script,
    PlainText,
}

/// Text that stands for source bytes it does not copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Str(&'static str),
    Char(char),
}

/// The attributes the rendering reads (the first of each name wins).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attrs {
    pub hidden: bool,
    pub class: Option<String>,
    pub id: Option<String>,
    pub start: Option<String>,
    /// `color`, `face` or `size` (a `font` that ends foreign content).
    pub font: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// Source bytes `start..end`, as they are.
    Text(usize, usize),
    /// One unit of text for source bytes `start..end`: a reference, CR LF, NUL.
    Unit(Unit, usize, usize),
    Start {
        name: String,
        attrs: Attrs,
        self_closing: bool,
    },
    End(String),
    /// A comment or a doctype: nothing the rendering reads.
    Other,
}

const C1: [u32; 32] = [
    0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
];

/// The longest name in the table of named references, `;` included.
const LONGEST_NAME: usize = 32;

pub fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

fn ends_name(b: u8) -> bool {
    is_space(b) || b == b'/' || b == b'>'
}

fn numeric(value: u32) -> char {
    if value == 0 || value > 0x10FFFF || (0xD800..=0xDFFF).contains(&value) {
        return '\u{FFFD}';
    }
    let value = match value {
        0x80..=0x9F => C1[(value - 0x80) as usize],
        _ => value,
    };
    char::from_u32(value).unwrap_or('\u{FFFD}')
}

/// A name as the tokenizer keeps it: ASCII letters lowered, NUL as U+FFFD.
fn name_of(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    for chunk in String::from_utf8_lossy(raw).chars() {
        match chunk {
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// The table's entries as `(name, text)`, split out of [`ENTITIES`] once.
fn entities() -> &'static [(&'static str, &'static str)] {
    static TABLE: std::sync::OnceLock<Vec<(&'static str, &'static str)>> =
        std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        ENTITIES
            .split_terminator('\u{2}')
            .filter_map(|e| e.split_once('\u{1}'))
            .collect()
    })
}

/// The named reference a table name gives, if `name` is one.
fn entity(name: &[u8]) -> Option<&'static str> {
    let table = entities();
    table
        .binary_search_by(|(n, _)| n.as_bytes().cmp(name))
        .ok()
        .map(|i| table[i].1)
}

/// Tokens of a whole source, one at a time.
pub struct Tokenizer<'a> {
    src: &'a str,
    s: &'a [u8],
    i: usize,
    state: State,
    last_start: String,
    /// Whether the current node is foreign (`svg`, `math`): CDATA sections open there.
    pub foreign: bool,
    /// Tokens found ahead (a text state's end tag after its text).
    queue: std::collections::VecDeque<Token>,
}

impl<'a> Tokenizer<'a> {
    pub fn new(src: &'a str) -> Self {
        Tokenizer {
            src,
            s: src.as_bytes(),
            i: 0,
            state: State::Data,
            last_start: String::new(),
            foreign: false,
            queue: std::collections::VecDeque::new(),
        }
    }

    /// Reads on in `state`, which the end tag `tag` closes.
    pub fn switch(&mut self, state: State, tag: &str) {
        self.state = state;
        tag.clone_into(&mut self.last_start);
    }

    pub fn source(&self) -> &'a str {
        self.src
    }

    /// The next token, or `None` at the end of the source.
    pub fn next_token(&mut self) -> Option<Token> {
        if let Some(t) = self.queue.pop_front() {
            return Some(t);
        }
        while self.i < self.s.len() {
            let found = match self.state {
                State::Data => self.data(),
                State::PlainText => {
                    let (a, b) = (self.i, self.s.len());
                    self.raw_text(a, b, '\u{FFFD}');
                    self.i = b;
                    None
                }
                _ => {
                    self.text_state();
                    None
                }
            };
            if found.is_some() {
                return found;
            }
            if let Some(t) = self.queue.pop_front() {
                return Some(t);
            }
        }
        self.queue.pop_front()
    }

    // -- text ----------------------------------------------------------------------

    /// Text `a..b` of a raw state into the queue: CR LF and CR as one LF, NUL as `nul`.
    fn raw_text(&mut self, a: usize, b: usize, nul: char) {
        let s = self.s;
        let mut i = a;
        while i < b {
            match memchr2(b'\r', 0, &s[i..b]) {
                None => {
                    self.queue.push_back(Token::Text(i, b));
                    return;
                }
                Some(k) => {
                    if k > 0 {
                        self.queue.push_back(Token::Text(i, i + k));
                    }
                    let at = i + k;
                    if s[at] == b'\r' {
                        let end = if at + 1 < b && s[at + 1] == b'\n' {
                            at + 2
                        } else {
                            at + 1
                        };
                        self.queue.push_back(Token::Unit(Unit::Char('\n'), at, end));
                        i = end;
                    } else {
                        self.queue
                            .push_back(Token::Unit(Unit::Char(nul), at, at + 1));
                        i = at + 1;
                    }
                }
            }
        }
    }

    fn newline(&self, i: usize) -> Token {
        let end = if self.s.get(i + 1) == Some(&b'\n') {
            i + 2
        } else {
            i + 1
        };
        Token::Unit(Unit::Char('\n'), i, end)
    }

    fn data(&mut self) -> Option<Token> {
        let s = self.s;
        let i = self.i;
        let run = s[i..]
            .iter()
            .position(|&b| matches!(b, b'<' | b'&' | b'\r' | 0))
            .unwrap_or(s.len() - i);
        if run > 0 {
            self.i = i + run;
            return Some(Token::Text(i, i + run));
        }
        match s[i] {
            b'\r' => {
                let t = self.newline(i);
                if let Token::Unit(_, _, end) = t {
                    self.i = end;
                }
                Some(t)
            }
            0 => {
                self.i = i + 1;
                Some(Token::Unit(Unit::Char('\0'), i, i + 1))
            }
            b'&' => {
                let (t, next) = self.reference(i, false, s.len());
                self.i = next;
                Some(t)
            }
            _ => self.tag_open(i),
        }
    }

    /// RCDATA, RAWTEXT and script data up to their appropriate end tag.
    fn text_state(&mut self) {
        let n = self.s.len();
        let refs = self.state == State::RcData;
        let end = if self.state == State::Script {
            self.script_end(self.i)
        } else {
            self.raw_end(self.i)
        };
        let stop = end.unwrap_or(n);
        let mut i = self.i;
        while refs && i < stop {
            let Some(k) = memchr(b'&', &self.s[i..stop]) else {
                break;
            };
            self.raw_text(i, i + k, '\u{FFFD}');
            let (t, next) = self.reference(i + k, false, stop);
            self.queue.push_back(t);
            i = next;
        }
        self.raw_text(i, stop, '\u{FFFD}');
        self.i = stop;
        if let Some(at) = end {
            self.state = State::Data;
            if let Some(t) = self.tag(at, at + 2, true) {
                self.queue.push_back(t);
            }
        }
    }

    /// The end of the ASCII letters from `j`.
    fn letters(&self, mut j: usize) -> usize {
        while j < self.s.len() && self.s[j].is_ascii_alphabetic() {
            j += 1;
        }
        j
    }

    /// Whether `</name` at `i` closes the text state: the last start tag's name,
    /// followed by white space, `/` or `>`.
    fn appropriate(&self, i: usize) -> bool {
        let j = self.letters(i + 2);
        j > i + 2
            && j < self.s.len()
            && ends_name(self.s[j])
            && self.s[i + 2..j].eq_ignore_ascii_case(self.last_start.as_bytes())
    }

    fn raw_end(&self, from: usize) -> Option<usize> {
        let finder = memmem::Finder::new(b"</");
        let mut i = from;
        loop {
            let k = i + finder.find(&self.s[i..])?;
            if self.appropriate(k) {
                return Some(k);
            }
            i = k + 2;
        }
    }

    /// Whether `name` (ASCII, any case) at `a..b` is `script` followed by white space,
    /// `/` or `>`.
    fn script_word(&self, a: usize, b: usize) -> bool {
        b < self.s.len() && ends_name(self.s[b]) && self.s[a..b].eq_ignore_ascii_case(b"script")
    }

    /// Where script data ends: the escape states decide which `</script` counts.
    fn script_end(&self, from: usize) -> Option<usize> {
        #[derive(Clone, Copy, PartialEq)]
        enum S {
            Data,
            Escaped,
            EscapedDash,
            EscapedDashDash,
            Double,
            DoubleDash,
            DoubleDashDash,
        }
        let s = self.s;
        let n = s.len();
        let mut state = S::Data;
        let mut i = from;
        while i < n {
            let c = s[i];
            match state {
                S::Data => {
                    // Only `<` matters here: jump to the next one.
                    let k = memchr(b'<', &s[i..])?;
                    i += k;
                    if s[i..].starts_with(b"</") && self.appropriate(i) {
                        return Some(i);
                    }
                    if s[i..].starts_with(b"<!--") {
                        state = S::EscapedDashDash;
                        i += 4;
                        continue;
                    }
                }
                S::Escaped | S::EscapedDash | S::EscapedDashDash => {
                    if c == b'-' {
                        state = if state == S::Escaped {
                            S::EscapedDash
                        } else {
                            S::EscapedDashDash
                        };
                    } else if c == b'<' {
                        if s[i..].starts_with(b"</") {
                            if self.appropriate(i) {
                                return Some(i);
                            }
                            state = S::Escaped;
                            i += 2;
                            continue;
                        }
                        if i + 1 < n && s[i + 1].is_ascii_alphabetic() {
                            let j = self.letters(i + 1);
                            if self.script_word(i + 1, j) {
                                state = S::Double;
                                i = j + 1;
                            } else {
                                state = S::Escaped;
                                i = j;
                            }
                            continue;
                        }
                        state = S::Escaped;
                    } else if c == b'>' && state == S::EscapedDashDash {
                        state = S::Data;
                    } else {
                        state = S::Escaped;
                    }
                }
                S::Double | S::DoubleDash | S::DoubleDashDash => {
                    if c == b'-' {
                        state = if state == S::Double {
                            S::DoubleDash
                        } else {
                            S::DoubleDashDash
                        };
                    } else if c == b'<' {
                        if s[i..].starts_with(b"</") {
                            let j = self.letters(i + 2);
                            if self.script_word(i + 2, j) {
                                state = S::Escaped;
                                i = j + 1;
                            } else {
                                state = S::Double;
                                i = j;
                            }
                            continue;
                        }
                        state = S::Double;
                    } else if c == b'>' && state == S::DoubleDashDash {
                        state = S::Data;
                    } else {
                        state = S::Double;
                    }
                }
            }
            i += 1;
        }
        None
    }

    // -- character references ------------------------------------------------------

    /// The character reference at `&` (`i`), read no further than `limit`: its token
    /// and where reading goes on.
    fn reference(&self, i: usize, in_attribute: bool, limit: usize) -> (Token, usize) {
        let s = &self.s[..limit];
        let n = limit;
        let j = i + 1;
        if j < n && s[j] == b'#' {
            let mut k = j + 1;
            let hex = k < n && (s[k] == b'x' || s[k] == b'X');
            if hex {
                k += 1;
            }
            let mut d = k;
            let mut value: u32 = 0;
            while d < n {
                let digit = if hex {
                    (s[d] as char).to_digit(16)
                } else {
                    (s[d] as char).to_digit(10)
                };
                let Some(digit) = digit else { break };
                value = (value * if hex { 16 } else { 10 } + digit).min(0x110000);
                d += 1;
            }
            if d == k {
                return (Token::Text(i, k), k);
            }
            if d < n && s[d] == b';' {
                d += 1;
            }
            return (Token::Unit(Unit::Char(numeric(value)), i, d), d);
        }
        let mut end = j;
        while end < n && end - j < LONGEST_NAME && s[end].is_ascii_alphanumeric() {
            end += 1;
        }
        if end == j {
            return (Token::Text(i, j), j);
        }
        if end < n && s[end] == b';' {
            if let Some(text) = entity(&s[j..=end]) {
                return (Token::Unit(Unit::Str(text), i, end + 1), end + 1);
            }
        }
        for k in (j + 1..=end).rev() {
            if let Some(text) = entity(&s[j..k]) {
                if in_attribute && k < n && (s[k] == b'=' || s[k].is_ascii_alphanumeric()) {
                    break;
                }
                return (Token::Unit(Unit::Str(text), i, k), k);
            }
        }
        (Token::Text(i, j), j)
    }

    // -- tags, comments, doctypes --------------------------------------------------

    fn tag_open(&mut self, i: usize) -> Option<Token> {
        let s = self.s;
        let n = s.len();
        let j = i + 1;
        let c = s.get(j).copied();
        match c {
            Some(c) if c.is_ascii_alphabetic() => self.tag(i, j, false),
            Some(b'/') => {
                let k = j + 1;
                match s.get(k).copied() {
                    Some(d) if d.is_ascii_alphabetic() => self.tag(i, k, true),
                    Some(b'>') => {
                        self.i = k + 1;
                        None
                    }
                    None => {
                        self.i = n;
                        Some(Token::Text(i, n))
                    }
                    Some(_) => Some(self.bogus(k)),
                }
            }
            Some(b'!') => self.declaration(i),
            Some(b'?') => Some(self.bogus(j)),
            _ => {
                self.i = j;
                Some(Token::Text(i, j))
            }
        }
    }

    /// A bogus comment from `j` to the next `>`.
    fn bogus(&mut self, j: usize) -> Token {
        self.i = memchr(b'>', &self.s[j..]).map_or(self.s.len(), |k| j + k + 1);
        Token::Other
    }

    fn declaration(&mut self, i: usize) -> Option<Token> {
        let s = self.s;
        let j = i + 2;
        if s[j..].starts_with(b"--") {
            self.i = self.comment_end(j + 2);
            return Some(Token::Other);
        }
        if s.len() >= j + 7 && s[j..j + 7].eq_ignore_ascii_case(b"doctype") {
            self.i = memchr(b'>', &s[j..]).map_or(s.len(), |k| j + k + 1);
            return Some(Token::Other);
        }
        if self.foreign && s[j..].starts_with(b"[CDATA[") {
            let from = j + 7;
            let (end, next) = match memmem::find(&s[from..], b"]]>") {
                Some(k) => (from + k, from + k + 3),
                None => (s.len(), s.len()),
            };
            self.i = next;
            self.raw_text(from, end, '\0');
            return None;
        }
        Some(self.bogus(j))
    }

    /// Where a comment that opened before `j` ends: the comment states end it at
    /// `-->`, `--!>` (after any run of two or more dashes), or at once at `>` / `->`.
    fn comment_end(&self, j: usize) -> usize {
        let s = self.s;
        let n = s.len();
        if s[j..].starts_with(b">") {
            return j + 1;
        }
        if s[j..].starts_with(b"->") {
            return j + 2;
        }
        let finder = memmem::Finder::new(b"--");
        let mut k = j;
        loop {
            let Some(f) = finder.find(&s[k..]) else {
                return n;
            };
            let k0 = k + f;
            let mut m = k0 + 2;
            while m < n && s[m] == b'-' {
                m += 1;
            }
            if m < n && s[m] == b'>' {
                return m + 1;
            }
            if s[m..].starts_with(b"!>") {
                return m + 2;
            }
            k = if m > k0 + 2 { m } else { k0 + 1 };
        }
    }

    /// A tag from its name's first letter (`j`); at the end of the input, nothing.
    fn tag(&mut self, _i: usize, j: usize, end: bool) -> Option<Token> {
        let s = self.s;
        let n = s.len();
        let mut k = j;
        while k < n && !ends_name(s[k]) {
            k += 1;
        }
        let name = name_of(&s[j..k]);
        let mut attrs = Attrs::default();
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut self_closing = false;
        loop {
            while k < n && is_space(s[k]) {
                k += 1;
            }
            if k >= n {
                self.i = n;
                return None;
            }
            match s[k] {
                b'>' => {
                    k += 1;
                    break;
                }
                b'/' => {
                    if k + 1 < n && s[k + 1] == b'>' {
                        self_closing = true;
                        k += 2;
                        break;
                    }
                    k += 1;
                    continue;
                }
                _ => {}
            }
            // An attribute name: its first character may be `=`.
            let a = k;
            k += 1;
            while k < n && !ends_name(s[k]) && s[k] != b'=' {
                k += 1;
            }
            let attr = &s[a..k];
            while k < n && is_space(s[k]) {
                k += 1;
            }
            let mut value = (0, 0);
            if k < n && s[k] == b'=' {
                k += 1;
                while k < n && is_space(s[k]) {
                    k += 1;
                }
                if k < n && (s[k] == b'"' || s[k] == b'\'') {
                    let Some(e) = memchr(s[k], &s[k + 1..]) else {
                        self.i = n;
                        return None;
                    };
                    value = (k + 1, k + 1 + e);
                    k = k + 2 + e;
                } else {
                    let a2 = k;
                    while k < n && !is_space(s[k]) && s[k] != b'>' {
                        k += 1;
                    }
                    value = (a2, k);
                }
            }
            if !end {
                self.attribute(attr, value, &mut attrs, &mut seen);
            }
        }
        self.i = k;
        Some(if end {
            Token::End(name)
        } else {
            Token::Start {
                name,
                attrs,
                self_closing,
            }
        })
    }

    /// Keeps attribute `raw` when the rendering reads it and no earlier one had its name.
    fn attribute(
        &self,
        raw: &[u8],
        value: (usize, usize),
        attrs: &mut Attrs,
        seen: &mut Vec<Vec<u8>>,
    ) {
        let lower: Vec<u8> = raw.to_ascii_lowercase();
        let wanted = matches!(
            lower.as_slice(),
            b"hidden" | b"class" | b"id" | b"start" | b"color" | b"face" | b"size"
        );
        if !wanted || seen.contains(&lower) {
            return;
        }
        match lower.as_slice() {
            b"hidden" => attrs.hidden = true,
            b"class" => attrs.class = Some(self.attribute_value(value)),
            b"id" => attrs.id = Some(self.attribute_value(value)),
            b"start" => attrs.start = Some(self.attribute_value(value)),
            _ => attrs.font = true,
        }
        seen.push(lower);
    }

    /// An attribute's value: references decoded, NUL as U+FFFD, CR LF and CR as LF.
    fn attribute_value(&self, (a, b): (usize, usize)) -> String {
        let mut out = String::new();
        let mut i = a;
        while i < b {
            let Some(k) = memchr3(b'&', b'\r', 0, &self.s[i..b]) else {
                out.push_str(&self.src[i..b]);
                break;
            };
            out.push_str(&self.src[i..i + k]);
            let at = i + k;
            match self.s[at] {
                b'&' => {
                    let (t, next) = self.reference(at, true, b);
                    match t {
                        Token::Unit(Unit::Str(text), ..) => out.push_str(text),
                        Token::Unit(Unit::Char(c), ..) => out.push(c),
                        _ => out.push_str(&self.src[at..next]),
                    }
                    i = next;
                }
                b'\r' => {
                    out.push('\n');
                    i = if self.s.get(at + 1) == Some(&b'\n') && at + 1 < b {
                        at + 2
                    } else {
                        at + 1
                    };
                }
                _ => {
                    out.push('\u{FFFD}');
                    i = at + 1;
                }
            }
        }
        out
    }
}
