//! The Markdown structure scan: a line scanner, not a tree.
//!
//! It reads the text a line at a time with a small state for the open
//! top-level block (the strategy of the CommonMark spec's appendix), so nesting
//! depth cannot overflow anything, and reports what the Markdown cutter needs:
//! the top-level headings (ATX and setext), ranked cut points at line starts,
//! the units never cut while they fit (fences, front matter, list items, table
//! rows, headings) and the tables. Headings inside block quotes, list items,
//! code and HTML blocks are not section headings.
//!
//! `reference/markdown_scan.py` is the twin, written from the same description
//! (`docs/markdown.md`); offsets are byte offsets, and Markdown's syntax is
//! ASCII, so the scan works on bytes.

/// A heading title is reported cut to this many characters (and flagged).
pub const TITLE_CHARS: usize = 1000;

/// Cut ranks, best first.
pub const HEADING: u8 = 1;
pub const BREAK: u8 = 2;
pub const BLOCK: u8 = 3;
pub const ITEM: u8 = 4;
pub const LINE: u8 = 5;

/// A top-level heading: its lines `start..end` (setext: from the paragraph's
/// first line through the underline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    pub start: usize,
    pub end: usize,
    pub level: u8,
    pub title: String,
    pub truncated: bool,
}

/// A table: header and delimiter rows `start..body`, body rows `body..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    pub start: usize,
    pub body: usize,
    pub end: usize,
}

/// What the scan found.
#[derive(Clone, Debug, Default)]
pub struct Outline {
    pub headings: Vec<Heading>,
    /// Cut points, sorted by position, each with its best rank `(rank, level)`.
    pub cuts: Vec<(usize, (u8, u8))>,
    pub units: Vec<(usize, usize)>,
    pub tables: Vec<Table>,
    /// Where each top-level block starts: points where the scan can start again with
    /// nothing open, so a stream can drop what came before.
    pub blocks: Vec<usize>,
    /// The document opens with `---` that nothing has closed yet: more text may
    /// still make it front matter, so nothing after it is settled.
    pub open_front_matter: bool,
    /// Where what more text could change begins, for a text that may go on: the
    /// start of the block holding the second-to-last complete line. A line's kind
    /// can depend on the line after it (a table's delimiter row), and the last line
    /// may be incomplete, so everything before that block is final.
    pub settled: usize,
}

impl Outline {
    /// Every position moved `offset` bytes on.
    fn shift(mut self, offset: usize) -> Self {
        for h in &mut self.headings {
            h.start += offset;
            h.end += offset;
        }
        for c in &mut self.cuts {
            c.0 += offset;
        }
        for u in &mut self.units {
            *u = (u.0 + offset, u.1 + offset);
        }
        for t in &mut self.tables {
            *t = Table {
                start: t.start + offset,
                body: t.body + offset,
                end: t.end + offset,
            };
        }
        for b in &mut self.blocks {
            *b += offset;
        }
        self.settled += offset;
        self
    }
}

#[derive(Clone, Copy, Debug)]
struct Line {
    start: usize,
    /// After the line ending.
    end: usize,
    /// Where the body (the line without its ending) ends.
    body_end: usize,
    /// Columns of leading white space (tabs to the next multiple of 4).
    indent: usize,
    /// Bytes of leading white space.
    lead: usize,
}

impl Line {
    fn body<'a>(&self, data: &'a [u8]) -> &'a [u8] {
        &data[self.start..self.body_end]
    }
    fn rest<'a>(&self, data: &'a [u8]) -> &'a [u8] {
        &data[self.start + self.lead..self.body_end]
    }
    fn blank(&self) -> bool {
        self.start + self.lead == self.body_end
    }
}

/// A line body seen on its own (inside a container).
#[derive(Clone, Copy)]
struct Leaf<'a> {
    body: &'a [u8],
    indent: usize,
    lead: usize,
}

impl<'a> Leaf<'a> {
    fn new(body: &'a [u8]) -> Self {
        let (indent, lead) = indent_of(body, 0);
        Leaf { body, indent, lead }
    }
    fn rest(&self) -> &'a [u8] {
        &self.body[self.lead..]
    }
    fn blank(&self) -> bool {
        self.lead == self.body.len()
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `(columns, bytes)` of the leading spaces and tabs, counted from `column`.
fn indent_of(body: &[u8], column: usize) -> (usize, usize) {
    let (mut col, mut i) = (column, 0);
    while i < body.len() && is_space(body[i]) {
        col = if body[i] == b'\t' {
            col + 4 - col % 4
        } else {
            col + 1
        };
        i += 1;
    }
    (col - column, i)
}

/// How many bytes of leading white space make up at most `columns` columns.
fn indent_bytes(body: &[u8], columns: usize) -> usize {
    let (mut col, mut i) = (0, 0);
    while i < body.len() && is_space(body[i]) && col < columns {
        col = if body[i] == b'\t' {
            col + 4 - col % 4
        } else {
            col + 1
        };
        i += 1;
    }
    i
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let a = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let b = s.iter().rposition(|&b| !is_space(b)).map_or(a, |p| p + 1);
    &s[a..b.max(a)]
}

fn trim_end_spaces(s: &[u8]) -> &[u8] {
    let b = s.iter().rposition(|&b| !is_space(b)).map_or(0, |p| p + 1);
    &s[..b]
}

fn is_blank(s: &[u8]) -> bool {
    s.iter().all(|&b| is_space(b))
}

/// Lines ending at CR, LF or CRLF; the last may have no ending.
fn split_lines(data: &[u8]) -> Vec<Line> {
    let mut out = Vec::new();
    let (mut at, mut i) = (0, 0);
    while i < data.len() {
        let b = data[i];
        if b == b'\n' || b == b'\r' {
            let end = if b == b'\r' && data.get(i + 1) == Some(&b'\n') {
                i + 2
            } else {
                i + 1
            };
            let (indent, lead) = indent_of(&data[at..i], 0);
            out.push(Line {
                start: at,
                end,
                body_end: i,
                indent,
                lead,
            });
            at = end;
            i = end;
        } else {
            i += 1;
        }
    }
    if at < data.len() {
        let (indent, lead) = indent_of(&data[at..], 0);
        out.push(Line {
            start: at,
            end: data.len(),
            body_end: data.len(),
            indent,
            lead,
        });
    }
    out
}

// -- what a line starts (at the top level: indent < 4) ---------------------------

/// `(level, raw title)` of an ATX heading.
fn atx(indent: usize, rest: &[u8]) -> Option<(u8, &[u8])> {
    if indent > 3 {
        return None;
    }
    let hashes = rest.iter().take_while(|&&b| b == b'#').count();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    if let Some(&b) = rest.get(hashes) {
        if !is_space(b) {
            return None;
        }
    }
    let mut text = trim_end_spaces(&rest[hashes..]);
    let tail_len = text.iter().rev().take_while(|&&b| b == b'#').count();
    if tail_len > 0 {
        let tail = &text[..text.len() - tail_len];
        if tail.is_empty() || tail.last().is_some_and(|&b| is_space(b)) {
            text = tail;
        }
    }
    Some((hashes as u8, trim_spaces(text)))
}

/// `=` (level 1) or `-` (level 2) for a setext underline.
fn setext(indent: usize, rest: &[u8]) -> Option<u8> {
    if indent > 3 {
        return None;
    }
    let marker = *rest.first()?;
    if marker != b'=' && marker != b'-' {
        return None;
    }
    let run = rest.iter().take_while(|&&b| b == marker).count();
    is_blank(&rest[run..]).then_some(if marker == b'=' { 1 } else { 2 })
}

fn thematic(indent: usize, rest: &[u8]) -> bool {
    if indent > 3 {
        return false;
    }
    let Some(&marker) = rest.first() else {
        return false;
    };
    if marker != b'*' && marker != b'-' && marker != b'_' {
        return false;
    }
    let mut count = 0;
    for &b in rest {
        if b == marker {
            count += 1;
        } else if !is_space(b) {
            return false;
        }
    }
    count >= 3
}

/// The opening fence's marker run.
fn fence(indent: usize, rest: &[u8]) -> Option<&[u8]> {
    if indent > 3 {
        return None;
    }
    let marker = *rest.first()?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let run = rest.iter().take_while(|&&b| b == marker).count();
    if run < 3 || (marker == b'`' && rest[run..].contains(&b'`')) {
        return None;
    }
    Some(&rest[..run])
}

fn closes(indent: usize, rest: &[u8], marker: &[u8]) -> bool {
    let Some(&m) = marker.first() else {
        return false;
    };
    if indent > 3 {
        return false;
    }
    let run = rest.iter().take_while(|&&b| b == m).count();
    run >= marker.len() && is_blank(&rest[run..])
}

/// A list marker at the start of `rest`: `(marker end, kind, ordered value)`;
/// `kind` is the bullet character or the ordered delimiter.
fn list_marker(rest: &[u8]) -> Option<(usize, u8, Option<u64>)> {
    let first = *rest.first()?;
    let (end, kind, value) = if first == b'-' || first == b'+' || first == b'*' {
        (1, first, None)
    } else {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        let delim = *rest.get(digits)?;
        if delim != b'.' && delim != b')' {
            return None;
        }
        let value = rest[..digits]
            .iter()
            .fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
        (digits + 1, delim, Some(value))
    };
    match rest.get(end) {
        None => Some((end, kind, value)),
        Some(&b) if is_space(b) => Some((end, kind, value)),
        _ => None,
    }
}

/// Where the marker's separating white space ends (the regexes' `m.end()`).
fn marker_match_end(rest: &[u8], marker_end: usize) -> usize {
    if rest.len() > marker_end {
        marker_end + 1
    } else {
        marker_end
    }
}

/// The item's content column; `interrupting` a paragraph, an item must not be
/// empty and an ordered one must start at 1.
fn list_item(indent: usize, rest: &[u8], interrupting: bool) -> Option<usize> {
    if indent > 3 {
        return None;
    }
    let (marker_end, _, value) = list_marker(rest)?;
    let after = &rest[marker_end..];
    if interrupting && (is_blank(after) || value.is_some_and(|v| v != 1)) {
        return None;
    }
    let base = indent + marker_end;
    let (mut gap, _) = indent_of(after, base);
    if is_blank(after) || gap > 4 {
        gap = 1;
    }
    Some(base + gap)
}

/// An HTML block's end: a marker to search for, or the next blank line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HtmlEnd {
    /// Any of `</script>`, `</pre>`, `</style>`, `</textarea>`: CommonMark does not require
    /// the end tag to match the start tag.
    RawText,
    Marker(&'static [u8]),
    Blank,
}

const BLOCK_NAMES: [&[u8]; 62] = [
    b"address",
    b"article",
    b"aside",
    b"base",
    b"basefont",
    b"blockquote",
    b"body",
    b"caption",
    b"center",
    b"col",
    b"colgroup",
    b"dd",
    b"details",
    b"dialog",
    b"dir",
    b"div",
    b"dl",
    b"dt",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"frame",
    b"frameset",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"header",
    b"hr",
    b"html",
    b"iframe",
    b"legend",
    b"li",
    b"link",
    b"main",
    b"menu",
    b"menuitem",
    b"nav",
    b"noframes",
    b"ol",
    b"optgroup",
    b"option",
    b"p",
    b"param",
    b"search",
    b"section",
    b"summary",
    b"table",
    b"tbody",
    b"td",
    b"tfoot",
    b"th",
    b"thead",
    b"title",
    b"tr",
    b"track",
    b"ul",
];

fn is_html_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn contains_ci(s: &[u8], needle: &[u8]) -> bool {
    s.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// A complete open or closing tag followed only by white space (block kind 7).
fn lone_tag(s: &[u8]) -> bool {
    let mut i = 1; // past '<'
    let closing = s.get(1) == Some(&b'/');
    if closing {
        i += 1;
    }
    if !s.get(i).is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    while s
        .get(i)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'-')
    {
        i += 1;
    }
    if !closing {
        // Attributes: white space, a name, and an optional `= value`.
        loop {
            let save = i;
            let ws = s[i..].iter().take_while(|&&b| is_html_space(b)).count();
            let name_at = i + ws;
            let starts_name = s
                .get(name_at)
                .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b':');
            if ws == 0 || !starts_name {
                i = save;
                break;
            }
            i = name_at + 1;
            while s.get(i).is_some_and(|&b| {
                b.is_ascii_alphanumeric() || matches!(b, b':' | b'.' | b'_' | b'-')
            }) {
                i += 1;
            }
            let after_name = i;
            let mut j = i + s[i..].iter().take_while(|&&b| is_html_space(b)).count();
            if s.get(j) == Some(&b'=') {
                j += 1;
                j += s[j..].iter().take_while(|&&b| is_html_space(b)).count();
                match s.get(j) {
                    Some(&q) if q == b'"' || q == b'\'' => {
                        let Some(close) = s[j + 1..].iter().position(|&b| b == q) else {
                            return false;
                        };
                        i = j + 1 + close + 1;
                    }
                    Some(_) => {
                        let len = s[j..]
                            .iter()
                            .take_while(|&&b| {
                                !matches!(b, b'"' | b'\'' | b'=' | b'<' | b'>' | b'`') && b > 0x20
                            })
                            .count();
                        if len == 0 {
                            return false;
                        }
                        i = j + len;
                    }
                    None => return false,
                }
            } else {
                i = after_name;
            }
        }
    }
    i += s[i..].iter().take_while(|&&b| is_html_space(b)).count();
    if !closing && s.get(i) == Some(&b'/') {
        i += 1;
    }
    if s.get(i) != Some(&b'>') {
        return false;
    }
    s[i + 1..].iter().all(|&b| is_html_space(b))
}

/// The HTML block a line starts, if any.
fn html(indent: usize, rest: &[u8], interrupting: bool) -> Option<HtmlEnd> {
    if indent > 3 || rest.first() != Some(&b'<') {
        return None;
    }
    for tag in [&b"script"[..], b"pre", b"style", b"textarea"] {
        if starts_with_ci(&rest[1..], tag) {
            let next = rest.get(1 + tag.len());
            if next.is_none_or(|&b| is_html_space(b) || b == b'>') {
                return Some(HtmlEnd::RawText);
            }
        }
    }
    if rest.starts_with(b"<!--") {
        return Some(HtmlEnd::Marker(b"-->"));
    }
    if rest.starts_with(b"<?") {
        return Some(HtmlEnd::Marker(b"?>"));
    }
    if rest.starts_with(b"<!") && rest.get(2).is_some_and(u8::is_ascii_alphabetic) {
        return Some(HtmlEnd::Marker(b">"));
    }
    if rest.starts_with(b"<![CDATA[") {
        return Some(HtmlEnd::Marker(b"]]>"));
    }
    let name_at = if rest.get(1) == Some(&b'/') { 2 } else { 1 };
    let run = rest[name_at..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let name = &rest[name_at..name_at + run];
    if run > 0 && BLOCK_NAMES.iter().any(|n| n.eq_ignore_ascii_case(name)) {
        let next = &rest[name_at + run..];
        let ok = match next.first() {
            None => true,
            Some(&b) if is_html_space(b) || b == b'>' => true,
            Some(&b'/') => next.get(1) == Some(&b'>'),
            _ => false,
        };
        if ok {
            return Some(HtmlEnd::Blank);
        }
    }
    (!interrupting && lone_tag(rest)).then_some(HtmlEnd::Blank)
}

fn ends_html(end: HtmlEnd, body: &[u8]) -> bool {
    match end {
        HtmlEnd::RawText => [&b"</script>"[..], b"</pre>", b"</style>", b"</textarea>"]
            .iter()
            .any(|m| contains_ci(body, m)),
        HtmlEnd::Marker(m) => body.windows(m.len()).any(|w| w == m),
        HtmlEnd::Blank => false,
    }
}

/// Cells of a table row split at unescaped `|`, outer empty cells dropped.
fn cells(row: &[u8]) -> usize {
    let row = trim_spaces(row);
    let mut parts = Vec::new();
    let mut from = 0;
    for i in 0..row.len() {
        if row[i] == b'|' && (i == 0 || row[i - 1] != b'\\') {
            parts.push(&row[from..i]);
            from = i + 1;
        }
    }
    parts.push(&row[from..]);
    let mut n = parts.len();
    if parts.first().is_some_and(|p| p.is_empty()) {
        n -= 1;
    }
    if n > 0 && parts.last().is_some_and(|p| p.is_empty()) {
        n -= 1;
    }
    n
}

fn delimiter_cells(indent: usize, rest: &[u8], body: &[u8]) -> usize {
    let trimmed = trim_end_spaces(rest);
    if indent > 3 || trimmed.len() < 2 {
        return 0;
    }
    let (a, b) = (trimmed[0], trimmed[1]);
    if !matches!(a, b'|' | b'-' | b':') || !(matches!(b, b'|' | b'-' | b':') || is_space(b)) {
        return 0;
    }
    if a == b'-' && is_space(b) {
        return 0;
    }
    if !trimmed
        .iter()
        .all(|&c| matches!(c, b'|' | b'-' | b':') || is_space(c))
    {
        return 0;
    }
    let columns: Vec<&[u8]> = body.split(|&c| c == b'|').collect();
    let last = columns.len().saturating_sub(1);
    let mut n = 0;
    for (i, column) in columns.iter().enumerate() {
        let t = trim_spaces(column);
        if t.is_empty() {
            if i == 0 || i == last {
                continue;
            }
            return 0;
        }
        let inner = t.strip_prefix(b":").unwrap_or(t);
        let inner = inner.strip_suffix(b":").unwrap_or(inner);
        if inner.is_empty() || !inner.iter().all(|&c| c == b'-') {
            return 0;
        }
        n += 1;
    }
    n
}

struct Scanner<'a> {
    data: &'a [u8],
    lines: Vec<Line>,
    /// Cut points as found (a position may come more than once; the best rank wins).
    cuts: Vec<(usize, (u8, u8))>,
    out: Outline,
}

/// Inside a container, a block whose lines are not Markdown.
#[derive(Clone, Copy, Debug)]
enum Raw<'a> {
    Fence(&'a [u8]),
    Html(HtmlEnd),
}

impl<'a> Scanner<'a> {
    fn line(&self, i: usize) -> Line {
        self.lines[i]
    }
    fn rest(&self, i: usize) -> &'a [u8] {
        self.lines[i].rest(self.data)
    }
    fn body(&self, i: usize) -> &'a [u8] {
        self.lines[i].body(self.data)
    }

    fn cut(&mut self, at: usize, rank: (u8, u8)) {
        self.cuts.push((at, rank));
    }

    fn table_at(&self, i: usize) -> bool {
        if i + 1 >= self.lines.len() {
            return false;
        }
        let (header, delimiter) = (self.line(i), self.line(i + 1));
        if header.indent > 3 || !trim_spaces(self.rest(i)).contains(&b'|') {
            return false;
        }
        let n = delimiter_cells(delimiter.indent, self.rest(i + 1), self.body(i + 1));
        n > 0 && cells(self.rest(i)) == n
    }

    /// Whether line `i` starts a block that ends a paragraph. `lazy`: the line is
    /// less indented than the container's paragraph, where any list item ends it.
    fn interrupts(&self, i: usize, lazy: bool) -> bool {
        let (line, rest) = (self.line(i), self.rest(i));
        atx(line.indent, rest).is_some()
            || thematic(line.indent, rest)
            || fence(line.indent, rest).is_some()
            || (line.indent <= 3 && rest.first() == Some(&b'>'))
            || list_item(line.indent, rest, !lazy).is_some()
            || html(line.indent, rest, true).is_some()
            || self.table_at(i)
    }

    /// Whether line `i` ends a table or a block quote's lazy lines.
    fn ends_table(&self, i: usize) -> bool {
        let (line, rest) = (self.line(i), self.rest(i));
        atx(line.indent, rest).is_some()
            || thematic(line.indent, rest)
            || fence(line.indent, rest).is_some()
            || rest.first() == Some(&b'>')
            || list_item(line.indent, rest, false).is_some()
            || html(line.indent, rest, true).is_some()
    }

    fn content_lines(&mut self, a: usize, b: usize) {
        for k in a..b {
            let line = self.line(k);
            if !line.blank() {
                self.cut(line.start, (LINE, 0));
            }
        }
    }

    fn heading(&mut self, start: usize, end: usize, level: u8, raw: &[u8]) {
        let text = String::from_utf8_lossy(raw);
        let truncated = text.chars().nth(TITLE_CHARS).is_some();
        let title = if truncated {
            text.chars().take(TITLE_CHARS).collect()
        } else {
            text.into_owned()
        };
        self.out.headings.push(Heading {
            start,
            end,
            level,
            title,
            truncated,
        });
        self.cut(start, (HEADING, level));
        self.out.units.push((start, end));
    }

    /// `document_start`: the text opens the document (front matter may open it);
    /// `first_block`: no block came before the text.
    fn run(mut self, document_start: bool, first_block: bool) -> Outline {
        let n = self.lines.len();
        let mut i = 0;
        let mut first_block = first_block;
        if document_start && n > 0 && trim_end_spaces(self.body(0)) == b"---" {
            let close = (1..n).find(|&k| {
                let b = trim_end_spaces(self.body(k));
                b == b"---" || b == b"..."
            });
            if let Some(close) = close {
                self.out.units.push((0, self.line(close).end));
                first_block = false;
                i = close + 1;
            } else {
                self.out.open_front_matter = true;
            }
        }
        while i < n {
            let line = self.line(i);
            if line.blank() {
                i += 1;
                continue;
            }
            if !first_block {
                self.cut(line.start, (BLOCK, 0));
            }
            first_block = false;
            self.out.blocks.push(line.start);
            let rest = self.rest(i);
            if line.indent > 3 {
                let mut j = i + 1;
                while j < n && (self.line(j).blank() || self.line(j).indent > 3) {
                    j += 1;
                }
                self.content_lines(i, j);
                i = j;
                continue;
            }
            if self.table_at(i) {
                // The header and delimiter rows stay together, and each row stays whole.
                let delimiter = self.line(i + 1);
                self.out.units.push((line.start, delimiter.end));
                self.out.units.push((line.start, line.end));
                self.out.units.push((delimiter.start, delimiter.end));
                let mut j = i + 2;
                while j < n {
                    let row = self.line(j);
                    if row.blank() || row.indent > 3 || self.ends_table(j) {
                        break;
                    }
                    self.cut(row.start, (ITEM, 0));
                    self.out.units.push((row.start, row.end));
                    j += 1;
                }
                self.out.tables.push(Table {
                    start: line.start,
                    body: self.line(i + 1).end,
                    end: self.line(j - 1).end,
                });
                i = j;
                continue;
            }
            if let Some(marker) = fence(line.indent, rest) {
                let mut j = i + 1;
                while j < n && !closes(self.line(j).indent, self.rest(j), marker) {
                    j += 1;
                }
                let end = self.line(j.min(n - 1)).end;
                self.out.units.push((line.start, end));
                self.content_lines(i, (j + 1).min(n));
                i = j + 1;
                continue;
            }
            if rest.first() == Some(&b'>') {
                i = self.container(i, None);
                continue;
            }
            if thematic(line.indent, rest) {
                let mut next = i + 1;
                while next < n && self.line(next).blank() {
                    next += 1;
                }
                if next < n {
                    let at = self.line(next).start;
                    self.cut(at, (BREAK, 0));
                }
                i += 1;
                continue;
            }
            if let Some(column) = list_item(line.indent, rest, false) {
                i = self.container(i, Some(column));
                continue;
            }
            if let Some(end) = html(line.indent, rest, false) {
                let mut j = i;
                if end == HtmlEnd::Blank {
                    while j < n && !self.line(j).blank() {
                        j += 1;
                    }
                } else {
                    while j < n && !ends_html(end, self.body(j)) {
                        j += 1;
                    }
                    j = (j + 1).min(n);
                }
                self.content_lines(i, j);
                i = j;
                continue;
            }
            if let Some((level, raw)) = atx(line.indent, rest) {
                self.heading(line.start, line.end, level, raw);
                i += 1;
                continue;
            }
            // A paragraph, which a setext underline turns into a heading.
            let mut j = i + 1;
            let mut is_heading = false;
            while j < n {
                let next = self.line(j);
                if next.blank() {
                    break;
                }
                if let Some(level) = setext(next.indent, self.rest(j)) {
                    let mut raw = Vec::new();
                    for k in i..j {
                        if k > i {
                            raw.push(b'\n');
                        }
                        raw.extend_from_slice(self.body(k));
                    }
                    let a = raw.iter().position(|&b| !is_space(b) && b != b'\n');
                    let b = raw.iter().rposition(|&b| !is_space(b) && b != b'\n');
                    let title = match (a, b) {
                        (Some(a), Some(b)) => raw[a..=b].to_vec(),
                        _ => Vec::new(),
                    };
                    self.heading(line.start, next.end, level, &title);
                    is_heading = true;
                    j += 1;
                    break;
                }
                if next.indent <= 3 && self.interrupts(j, false) {
                    break;
                }
                j += 1;
            }
            if !is_heading {
                self.content_lines(i, j);
            }
            i = j;
        }
        // The lines before `unknown` are complete; the kind of the line before it may
        // still depend on it.
        let ends_line = self.lines.last().is_some_and(|l| l.end > l.body_end);
        let unknown = if ends_line { n } else { n.saturating_sub(1) };
        self.out.settled = match unknown.checked_sub(2) {
            Some(k) => {
                let at = self.line(k).start;
                let b = self.out.blocks.partition_point(|&b| b <= at);
                b.checked_sub(1).map_or(0, |b| self.out.blocks[b])
            }
            None => 0,
        };
        // Sorted by position then rank, the first of each position is its best rank.
        self.cuts.sort_unstable();
        self.cuts.dedup_by_key(|c| c.0);
        self.out.cuts = self.cuts;
        self.out
    }

    /// Scans the list (`column`: the first item's content column) or block quote
    /// (`column` None) that starts at line `i`; returns the line after it.
    fn container(&mut self, i: usize, column: Option<usize>) -> usize {
        let n = self.lines.len();
        let quote = column.is_none();
        let mut column = column.unwrap_or(0);
        let first_rest = self.rest(i);
        let mut empty = quote && is_blank(&first_rest[1..]);
        let (mut first_content, mut dead) = (true, false);
        let mut item_start = i;
        let mut kind = 0u8;
        let (mut para, mut raw) = if quote {
            inner_leaf(&first_rest[1..], None, false)
        } else {
            let Some((marker_end, k, _)) = list_marker(first_rest) else {
                return i + 1;
            };
            kind = k;
            let after = &first_rest[marker_match_end(first_rest, marker_end)..];
            first_content = !is_blank(after);
            inner_leaf(after, None, false)
        };
        // A fenced block inside the container is a unit too, from its opening line to
        // its closing one (or the container's end).
        let first_line = self.line(i);
        let mut fence_start = track(&mut self.out.units, None, None, raw, first_line);
        let mut last = i;
        let mut j = i + 1;
        while j < n {
            let line = self.line(j);
            let rest = self.rest(j);
            if line.blank() {
                if quote {
                    break;
                }
                para = false;
                if matches!(raw, Some(Raw::Html(HtmlEnd::Blank))) {
                    raw = None;
                }
                if j == item_start + 1 && !first_content {
                    dead = true; // an item that starts empty ends at a blank line
                }
                j += 1;
                continue;
            }
            let mut inside = false;
            if quote {
                if line.indent <= 3 && rest.first() == Some(&b'>') {
                    inside = true;
                    empty = is_blank(&rest[1..]);
                    let before = raw;
                    (para, raw) = inner_leaf(&rest[1..], raw, para);
                    fence_start = track(&mut self.out.units, fence_start, before, raw, line);
                } else if !empty && para && raw.is_none() && !self.ends_table(j) {
                    inside = true; // a lazy continuation of the quote's paragraph
                }
            } else if line.indent >= column && !dead {
                inside = true;
                let body = self.body(j);
                let before = raw;
                (para, raw) = inner_leaf(&body[indent_bytes(body, column)..], raw, para);
                fence_start = track(&mut self.out.units, fence_start, before, raw, line);
            } else if let Some((marker_end, k, _)) = list_marker(rest)
                .filter(|&(_, k, _)| line.indent <= 3 && k == kind && !thematic(line.indent, rest))
            {
                // The next item of the same list.
                let (a, b) = (self.line(item_start).start, self.line(last).end);
                if let Some(f) = fence_start {
                    self.out.units.push((f, b));
                }
                self.out.units.push((a, b));
                self.cut(line.start, (ITEM, 0));
                item_start = j;
                kind = k;
                if let Some(c) = list_item(line.indent, rest, false) {
                    column = c;
                }
                let after = &rest[marker_match_end(rest, marker_end)..];
                first_content = !is_blank(after);
                (para, raw) = inner_leaf(after, None, false);
                fence_start = track(&mut self.out.units, None, None, raw, line);
                dead = false;
                last = j;
                j += 1;
                continue;
            } else if !self.line(j - 1).blank() && para && raw.is_none() && line.indent <= 3 {
                inside = !self.interrupts(j, true); // a lazy continuation line
            }
            if !inside {
                break;
            }
            if !quote {
                let body = self.body(j);
                let inner = Leaf::new(&body[indent_bytes(body, column)..]);
                if list_item(inner.indent, inner.rest(), false).is_some() {
                    self.cut(line.start, (ITEM, 0));
                }
            }
            self.cut(line.start, (LINE, 0));
            last = j;
            j += 1;
        }
        let (a, b) = (self.line(item_start).start, self.line(last).end);
        if let Some(f) = fence_start {
            self.out.units.push((f, b));
        }
        // An item, or a whole block quote, stays whole while it fits.
        self.out.units.push((a, b));
        if quote {
            j
        } else {
            last + 1
        }
    }
}

/// Where an open fenced block inside a container starts: set when `line` opens
/// one; when it closes one, the block is added to `units`.
fn track(
    units: &mut Vec<(usize, usize)>,
    start: Option<usize>,
    before: Option<Raw<'_>>,
    after: Option<Raw<'_>>,
    line: Line,
) -> Option<usize> {
    let opened = matches!(after, Some(Raw::Fence(_)));
    let was = matches!(before, Some(Raw::Fence(_)));
    if opened && !was {
        return Some(line.start);
    }
    if was && !opened {
        if let Some(s) = start {
            units.push((s, line.end));
        }
        return None;
    }
    start
}

/// After a container line whose content is `rest`: (a paragraph is open, the
/// raw block still open inside the container). `para`: one was open before.
fn inner_leaf<'a>(rest: &'a [u8], raw: Option<Raw<'a>>, para: bool) -> (bool, Option<Raw<'a>>) {
    let mut stripped = rest;
    if raw.is_none() && !para {
        // Container markers nest: peel quote and list markers to reach the leaf
        // (an empty item leaves a blank leaf: no paragraph). A thematic break is no
        // list item; which suffixes are breaks is worked out once, so a deep line
        // stays linear.
        let breaks = thematic_suffixes(rest);
        loop {
            let lead = stripped.iter().take_while(|&&b| is_space(b)).count();
            let s = &stripped[lead..];
            if s.first() == Some(&b'>') {
                stripped = &s[1..];
                continue;
            }
            if let Some((marker_end, _, _)) = list_marker(s) {
                if !breaks[rest.len() - s.len()] {
                    stripped = &s[marker_match_end(s, marker_end)..];
                    continue;
                }
            }
            break;
        }
    }
    let leaf = Leaf::new(stripped);
    if let Some(open) = raw {
        return match open {
            Raw::Fence(marker) => (
                false,
                (!closes(leaf.indent, leaf.rest(), marker)).then_some(open),
            ),
            Raw::Html(HtmlEnd::Blank) => (false, (!leaf.blank()).then_some(open)),
            Raw::Html(end) => (false, (!ends_html(end, leaf.body)).then_some(open)),
        };
    }
    if leaf.blank() {
        return (false, None);
    }
    if para && (leaf.indent > 3 || setext(leaf.indent, leaf.rest()).is_some()) {
        // An indented line continues a paragraph; an underline makes it a heading.
        return (leaf.indent > 3, None);
    }
    if let Some(marker) = fence(leaf.indent, leaf.rest()) {
        return (false, Some(Raw::Fence(marker)));
    }
    if let Some(end) = html(leaf.indent, leaf.rest(), para) {
        let closed = ends_html(end, leaf.body);
        return (false, (!closed).then_some(Raw::Html(end)));
    }
    if leaf.indent > 3
        || atx(leaf.indent, leaf.rest()).is_some()
        || thematic(leaf.indent, leaf.rest())
    {
        return (false, None);
    }
    (true, None)
}

/// For each start `k`, whether `s[k..]` (starting at a non-space) is a thematic
/// break: one of `*`, `-`, `_` at least three times, with spaces or tabs only.
fn thematic_suffixes(s: &[u8]) -> Vec<bool> {
    let mut out = vec![false; s.len() + 1];
    let (mut kind, mut mixed, mut count) = (None, false, 0usize);
    for k in (0..s.len()).rev() {
        let b = s[k];
        if matches!(b, b'*' | b'-' | b'_') {
            mixed |= kind.is_some_and(|c| c != b);
            kind = Some(b);
            count += 1;
        } else if !is_space(b) {
            mixed = true;
        }
        out[k] = !mixed && count >= 3;
    }
    out
}

/// The structure of `text` (see the module docs).
pub fn scan(text: &str) -> Outline {
    scan_from(text, 0, true, true)
}

/// The structure of `text`, which starts at byte `offset` of its document at a
/// point where a top-level block starts (or the document's start): positions are
/// the document's. `first_block`: no block came before `text`.
pub fn scan_from(text: &str, offset: usize, document_start: bool, first_block: bool) -> Outline {
    let data = text.as_bytes();
    Scanner {
        data,
        lines: split_lines(data),
        cuts: Vec::new(),
        out: Outline::default(),
    }
    .run(document_start, first_block)
    .shift(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headings(text: &str) -> Vec<(u8, String)> {
        scan(text)
            .headings
            .into_iter()
            .map(|h| (h.level, h.title))
            .collect()
    }

    fn h(level: u8, title: &str) -> (u8, String) {
        (level, title.to_owned())
    }

    #[test]
    fn atx_titles_lose_markers_and_closing_sequences() {
        assert_eq!(
            headings("# a #\n## b ##  \n### c#\n####### no\n#no\n"),
            [h(1, "a"), h(2, "b"), h(3, "c#")]
        );
        assert_eq!(headings("    # code\n   # yes\n"), [h(1, "yes")]);
    }

    #[test]
    fn setext_turns_a_whole_paragraph_into_a_heading() {
        assert_eq!(
            headings("one\ntwo\n===\n\nthree\n---\n"),
            [h(1, "one\ntwo"), h(2, "three")]
        );
        assert_eq!(headings("---\n\npara\n\n---\n"), []);
    }

    #[test]
    fn code_html_quotes_and_lists_hide_headings() {
        let text =
            "```\n# in fence\n```\n<div>\n# in html\n\n> # quoted\n- item\n  # nested\n# top\n";
        assert_eq!(headings(text), [h(1, "top")]);
        // An unclosed fence runs to the end.
        assert_eq!(headings("~~~\n# a\n# b\n"), []);
    }

    #[test]
    fn raw_html_blocks_end_at_any_raw_end_tag() {
        // CommonMark: `<pre>` ends at `</script>` too (the end tag need not match).
        assert_eq!(headings("<pre>\nx\n</SCRIPT>\n# after\n"), [h(1, "after")]);
        assert_eq!(
            headings("<style>\n# hidden\n</pre>\n# seen\n"),
            [h(1, "seen")]
        );
    }

    #[test]
    fn front_matter_is_no_heading() {
        assert_eq!(headings("---\ntitle: x\n---\n# real\n"), [h(1, "real")]);
    }

    #[test]
    fn tables_are_units_and_rows_are_item_cuts() {
        let text = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n";
        let outline = scan(text);
        assert_eq!(
            outline.tables,
            [Table {
                start: 0,
                body: 20,
                end: text.len()
            }]
        );
        assert!(outline.cuts.contains(&(30, (ITEM, 0))));
        assert!(outline.units.contains(&(0, 20)));
    }

    #[test]
    fn line_endings_of_every_kind() {
        assert_eq!(
            headings("# a\r\nb\r===\r\n## c\r"),
            [h(1, "a"), h(1, "b"), h(2, "c")]
        );
    }

    #[test]
    fn deep_nesting_is_a_loop_not_recursion() {
        let text = format!("{} x\n# top\n", ">".repeat(100_000));
        assert_eq!(headings(&text), [h(1, "top")]);
        let text = format!("{}x\n# top\n", "- ".repeat(100_000));
        assert_eq!(headings(&text), [h(1, "top")]);
    }

    #[test]
    fn long_titles_are_cut_and_flagged() {
        let outline = scan(&format!("# {}\n", "é".repeat(5000)));
        assert_eq!(outline.headings[0].title.chars().count(), TITLE_CHARS);
        assert!(outline.headings[0].truncated);
    }
}
