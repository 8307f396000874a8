//! The HTML rendering of `docs/html.md`: visible text as light Markdown.
//!
//! Tokens come from [`super::tokenizer`]. An open-element stack (at most
//! [`MAX_DEPTH`] deep; deeper elements are read as text of their parent) applies the
//! tree builder's rules that change text or structure: implied end tags (`p`, `li`,
//! `dd`/`dt`, table rows and cells, headings), the raw text elements, `pre`'s leading
//! newline and foreign content. Each element gets one [`Effect`] when it opens, chosen
//! from the mode it opens in, and undoes it when it is popped, by an end tag or
//! implicitly.
//!
//! Each rendered character keeps its source span (bytes), `-1` where the rendering adds
//! it (markers, separators, collapsed white space, escapes) or it is white space.
//! `reference/html_render.py` is the twin, written from the same description.

use super::tokenizer::{is_space, Attrs, State, Token, Tokenizer, Unit};

pub const MAX_DEPTH: usize = 512;

/// What `skip=` drops beyond the fixed set: tag names, classes and ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skip {
    pub tags: Vec<String>,
    pub classes: Vec<String>,
    pub ids: Vec<String>,
}

/// The rendered text, each character's source span in bytes (`-1`: none), the title.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub starts: Vec<i64>,
    pub ends: Vec<i64>,
    pub title: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    None,
    Title,
    Drop,
    Space,
    Block,
    Heading,
    Pre,
    InnerTable,
    Table,
    Row,
    Cell,
    /// A list, a list item or a block quote: a container.
    Container,
}

struct Entry {
    name: String,
    effect: Effect,
    foreign: bool,
}

/// A list (no prefix), a list item (its marker, then as many spaces), a block quote.
struct Container {
    marker: String,
    rest: String,
    emitted: bool,
    counter: i64,
    ordered: bool,
}

type Span = (i64, i64);
const NONE: Span = (-1, -1);

fn is_ws(c: char) -> bool {
    c.is_ascii() && is_space(c as u8)
}

fn void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

fn dropped(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "template"
            | "noscript"
            | "svg"
            | "iframe"
            | "object"
            | "noembed"
            | "noframes"
            | "frameset"
    )
}

fn raw(name: &str) -> Option<State> {
    Some(match name {
        "title" | "textarea" => State::RcData,
        "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => State::RawText,
        "script" => State::Script,
        "plaintext" => State::PlainText,
        _ => return None,
    })
}

fn heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

fn block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "header"
            | "hgroup"
            | "legend"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "optgroup"
            | "option"
            | "p"
            | "search"
            | "section"
            | "summary"
            | "ul"
            | "li"
            | "table"
            | "caption"
            | "tbody"
            | "thead"
            | "tfoot"
            | "tr"
            | "td"
            | "th"
    )
}

fn pre(name: &str) -> bool {
    matches!(name, "pre" | "listing" | "xmp" | "plaintext")
}

fn closes_p(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "center"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "header"
            | "hgroup"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "search"
            | "section"
            | "summary"
            | "ul"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "pre"
            | "listing"
            | "form"
            | "li"
            | "dd"
            | "dt"
            | "plaintext"
            | "table"
            | "hr"
            | "xmp"
    )
}

fn special(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "applet"
            | "area"
            | "article"
            | "aside"
            | "base"
            | "basefont"
            | "bgsound"
            | "blockquote"
            | "body"
            | "br"
            | "button"
            | "caption"
            | "center"
            | "col"
            | "colgroup"
            | "dd"
            | "details"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "embed"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "frame"
            | "frameset"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "iframe"
            | "img"
            | "input"
            | "keygen"
            | "li"
            | "link"
            | "listing"
            | "main"
            | "marquee"
            | "menu"
            | "meta"
            | "nav"
            | "noembed"
            | "noframes"
            | "noscript"
            | "object"
            | "ol"
            | "p"
            | "param"
            | "plaintext"
            | "pre"
            | "script"
            | "search"
            | "section"
            | "select"
            | "source"
            | "style"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "template"
            | "textarea"
            | "tfoot"
            | "th"
            | "thead"
            | "title"
            | "tr"
            | "track"
            | "ul"
            | "wbr"
            | "xmp"
    )
}

fn scope(name: &str) -> bool {
    matches!(
        name,
        "applet" | "caption" | "html" | "table" | "td" | "th" | "marquee" | "object" | "template"
    )
}

fn table_scope(name: &str) -> bool {
    matches!(name, "html" | "table" | "template")
}

fn table_part(name: &str) -> bool {
    matches!(
        name,
        "caption" | "col" | "colgroup" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr"
    )
}

fn section(name: &str) -> bool {
    matches!(name, "tbody" | "thead" | "tfoot")
}

fn list(name: &str) -> bool {
    matches!(name, "ul" | "ol" | "menu" | "dir")
}

/// Start tags that end foreign content (and `font` with color, face or size).
fn breakout(name: &str) -> bool {
    matches!(
        name,
        "b" | "big"
            | "blockquote"
            | "body"
            | "br"
            | "center"
            | "code"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "em"
            | "embed"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "hr"
            | "i"
            | "img"
            | "li"
            | "listing"
            | "menu"
            | "meta"
            | "nobr"
            | "ol"
            | "p"
            | "pre"
            | "ruby"
            | "s"
            | "small"
            | "span"
            | "strong"
            | "strike"
            | "sub"
            | "sup"
            | "table"
            | "tt"
            | "u"
            | "ul"
            | "var"
    )
}

/// A line of a paragraph starting with one of these gets a backslash before it, so the
/// Markdown scan reads it as text.
fn escaped(c: char) -> bool {
    matches!(
        c,
        '#' | '>' | '-' | '+' | '*' | '=' | '_' | '~' | '`' | '|' | '<' | ':'
    )
}

fn split_ws(value: &str) -> impl Iterator<Item = &str> {
    value.split(is_ws).filter(|w| !w.is_empty())
}

/// The HTML rules for parsing an integer: white space, a sign, then digits.
fn integer(value: &str) -> Option<i64> {
    let s = value.trim_start_matches(is_ws);
    let (sign, s) = match s.as_bytes().first() {
        Some(b'-') => (-1, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let digits: String = s
        .chars()
        .take_while(char::is_ascii_digit)
        .take(12)
        .collect();
    digits.parse::<i64>().ok().map(|v| sign * v)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Para,
    Heading,
}

struct Renderer<'s> {
    skip: &'s Skip,
    out: String,
    spans: Vec<Span>,
    stack: Vec<Entry>,
    containers: Vec<Container>,
    open: Option<Open>,
    level: usize,
    pending_space: bool,
    pending_break: bool,
    /// Digits of the line so far while it is only digits, else -1.
    line_digits: i32,
    at_line_start: bool,
    drop: usize,
    cells: usize,
    tables: usize,
    headings: usize,
    pres: usize,
    pre: Vec<(char, Span)>,
    row: Option<Vec<Vec<(char, Span)>>>,
    header_done: bool,
    cell: Vec<(char, Span)>,
    cell_space: bool,
    skip_lf: bool,
    title: Option<String>,
    title_done: bool,
}

impl<'s> Renderer<'s> {
    fn new(skip: &'s Skip) -> Self {
        Renderer {
            skip,
            out: String::new(),
            spans: Vec::new(),
            stack: Vec::new(),
            containers: Vec::new(),
            open: None,
            level: 0,
            pending_space: false,
            pending_break: false,
            line_digits: -1,
            at_line_start: false,
            drop: 0,
            cells: 0,
            tables: 0,
            headings: 0,
            pres: 0,
            pre: Vec::new(),
            row: None,
            header_done: false,
            cell: Vec::new(),
            cell_space: false,
            skip_lf: false,
            title: None,
            title_done: false,
        }
    }

    // -- output --------------------------------------------------------------------

    fn put(&mut self, c: char, span: Span) {
        self.out.push(c);
        self.spans.push(span);
    }

    fn emit(&mut self, text: &str) {
        for c in text.chars() {
            self.put(c, NONE);
        }
    }

    fn prefix(&mut self) {
        for k in 0..self.containers.len() {
            let c = &self.containers[k];
            let text = if c.emitted {
                c.rest.clone()
            } else {
                c.marker.clone()
            };
            self.emit(&text);
            self.containers[k].emitted = true;
        }
    }

    /// Starts a block: its separator, then the containers' prefix.
    fn begin(&mut self) {
        if self.containers.iter().any(|c| c.emitted) {
            self.emit("\n");
        } else if !self.out.is_empty() {
            self.emit("\n\n");
        }
        self.prefix();
    }

    fn new_line(&mut self) {
        self.emit("\n");
        self.prefix();
    }

    // -- paragraphs and headings ---------------------------------------------------

    fn boundary(&mut self) {
        self.open = None;
        self.pending_space = false;
        self.pending_break = false;
    }

    fn inline(&mut self, c: char, span: Span) {
        if is_ws(c) {
            if self.open.is_some() {
                self.pending_space = true;
            }
            return;
        }
        if self.open.is_none() {
            self.begin();
            if self.headings > 0 {
                self.open = Some(Open::Heading);
                let marker = "#".repeat(self.level) + " ";
                self.emit(&marker);
                self.at_line_start = false;
            } else {
                self.open = Some(Open::Para);
                self.at_line_start = true;
                self.line_digits = 0;
            }
        } else if self.pending_break {
            self.new_line();
            self.at_line_start = true;
            self.line_digits = 0;
        } else if self.pending_space {
            self.emit(" ");
            self.at_line_start = false;
            self.line_digits = -1;
        }
        self.pending_space = false;
        self.pending_break = false;
        if self.open == Some(Open::Para) {
            if (self.at_line_start && escaped(c))
                || (0 < self.line_digits && self.line_digits <= 9 && (c == '.' || c == ')'))
            {
                self.emit("\\");
            }
            self.line_digits = if c.is_ascii_digit() && self.line_digits >= 0 {
                self.line_digits + 1
            } else {
                -1
            };
            self.at_line_start = false;
        }
        self.put(c, span);
    }

    fn line_break(&mut self) {
        if self.cells > 0 {
            self.cell_space = !self.cell.is_empty();
        } else if self.pres > 0 {
            self.pre.push(('\n', NONE));
        } else if self.headings > 0 {
            if self.open.is_some() {
                self.pending_space = true;
            }
        } else if self.open.is_some() {
            self.pending_break = true;
            self.pending_space = false;
        }
    }

    /// A block boundary where only a space can go: in a cell or a heading.
    fn space(&mut self) {
        if self.cells > 0 {
            self.cell_space = !self.cell.is_empty();
        } else if self.open.is_some() {
            self.pending_space = true;
        }
    }

    // -- pre -----------------------------------------------------------------------

    fn flush_pre(&mut self) {
        let chars = std::mem::take(&mut self.pre);
        let Some(&(last, _)) = chars.last() else {
            return;
        };
        let (mut longest, mut run) = (0, 0);
        for &(c, _) in &chars {
            run = if c == '`' { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        let fence = "`".repeat(longest.max(2) + 1);
        self.boundary();
        self.begin();
        self.emit(&fence);
        self.new_line();
        for &(c, span) in &chars {
            if c == '\n' {
                self.new_line();
            } else {
                self.put(c, span);
            }
        }
        if last != '\n' {
            self.new_line();
        }
        self.emit(&fence);
        self.boundary();
    }

    // -- tables --------------------------------------------------------------------

    fn cell_char(&mut self, c: char, span: Span) {
        if is_ws(c) {
            self.cell_space = !self.cell.is_empty();
            return;
        }
        if self.cell_space {
            self.cell.push((' ', NONE));
            self.cell_space = false;
        }
        if c == '|' {
            self.cell.push(('\\', NONE));
        }
        self.cell.push((c, span));
    }

    fn end_cell(&mut self) {
        let cell = std::mem::take(&mut self.cell);
        self.row.get_or_insert_with(Vec::new).push(cell);
        self.cell_space = false;
    }

    fn flush_row(&mut self) {
        let Some(row) = self.row.take() else {
            return;
        };
        if row.is_empty() {
            return;
        }
        if self.header_done {
            self.new_line();
        } else {
            self.boundary();
            self.begin();
        }
        self.emit("|");
        for cell in &row {
            self.emit(" ");
            for &(c, span) in cell {
                self.put(c, span);
            }
            self.emit(" |");
        }
        if !self.header_done {
            self.new_line();
            let delimiter = "|".to_owned() + &" --- |".repeat(row.len());
            self.emit(&delimiter);
            self.header_done = true;
        }
    }

    /// The rows so far are one table: what follows starts another (with a header).
    fn end_table_run(&mut self) {
        self.flush_row();
        if self.header_done {
            self.boundary();
        }
        self.header_done = false;
    }

    // -- the stack -----------------------------------------------------------------

    /// The index of the nearest open element `names` accepts before a boundary
    /// (foreign elements are neither).
    fn in_scope(
        &self,
        names: impl Fn(&str) -> bool,
        boundary: impl Fn(&str) -> bool,
    ) -> Option<usize> {
        for (i, e) in self.stack.iter().enumerate().rev() {
            if e.foreign {
                continue;
            }
            if names(&e.name) {
                return Some(i);
            }
            if boundary(&e.name) {
                return None;
            }
        }
        None
    }

    fn pop_to(&mut self, i: usize) {
        while self.stack.len() > i {
            if let Some(e) = self.stack.pop() {
                self.close(&e);
            }
        }
    }

    fn close_p(&mut self) {
        if let Some(i) = self.in_scope(|n| n == "p", |n| scope(n) || n == "button") {
            self.pop_to(i);
        }
    }

    fn container(&mut self, marker: String, counter: i64, ordered: bool) {
        let rest = if marker == "> " {
            marker.clone()
        } else {
            " ".repeat(marker.len())
        };
        self.containers.push(Container {
            marker,
            rest,
            emitted: false,
            counter,
            ordered,
        });
    }

    /// What opening `name` does here, applied now; [`Renderer::close`] undoes it.
    fn open_effect(&mut self, name: &str, attrs: &Attrs) -> Effect {
        if self.drop > 0 {
            return Effect::None;
        }
        if name == "title" {
            if self.title.is_none() && !self.title_done {
                self.title = Some(String::new());
            }
            self.drop += 1;
            return Effect::Title;
        }
        if dropped(name) || attrs.hidden || self.skipped(name, attrs) {
            self.drop += 1;
            return Effect::Drop;
        }
        let structural = block(name) || heading(name) || pre(name);
        if self.cells > 0 {
            if name == "table" {
                self.tables += 1;
                return Effect::InnerTable;
            }
            return if structural {
                Effect::Space
            } else {
                Effect::None
            };
        }
        if self.pres > 0 {
            return Effect::None;
        }
        if self.headings > 0 {
            return if structural {
                Effect::Space
            } else {
                Effect::None
            };
        }
        if heading(name) {
            self.boundary();
            self.headings += 1;
            self.level = usize::from(name.as_bytes()[1] - b'0');
            return Effect::Heading;
        }
        if pre(name) {
            self.boundary();
            self.pres += 1;
            return Effect::Pre;
        }
        if name == "table" {
            if self.tables > 0 {
                self.end_table_run();
            }
            self.boundary();
            self.tables += 1;
            self.header_done = false;
            return Effect::Table;
        }
        if self.tables > 0 {
            if name == "tr" {
                self.flush_row();
                self.row = Some(Vec::new());
                return Effect::Row;
            }
            if name == "td" || name == "th" {
                self.cells += 1;
                return Effect::Cell;
            }
            if section(name) || name == "col" || name == "colgroup" {
                return Effect::None;
            }
            if name == "caption" || block(name) {
                self.end_table_run();
                self.boundary();
                return Effect::Block;
            }
        }
        if list(name) {
            self.boundary();
            let ordered = name == "ol";
            let start = if ordered {
                attrs.start.as_deref().and_then(integer)
            } else {
                None
            };
            let counter = start.map_or(1, |s| s.clamp(0, 999_999_999));
            self.container(String::new(), counter, ordered);
            return Effect::Container;
        }
        if name == "li" {
            self.boundary();
            let marker = match self.containers.last_mut() {
                Some(p) if p.marker.is_empty() && p.ordered => {
                    let m = format!("{}. ", p.counter);
                    p.counter += 1;
                    m
                }
                _ => "- ".to_owned(),
            };
            self.container(marker, 1, false);
            return Effect::Container;
        }
        if name == "blockquote" {
            self.boundary();
            self.container("> ".to_owned(), 1, false);
            return Effect::Container;
        }
        if block(name) {
            self.boundary();
            return Effect::Block;
        }
        Effect::None
    }

    fn close(&mut self, e: &Entry) {
        match e.effect {
            Effect::Drop => self.drop -= 1,
            Effect::Title => {
                self.drop -= 1;
                if self.title.is_some() {
                    self.title_done = true;
                }
            }
            Effect::Space => self.space(),
            Effect::Block => self.boundary(),
            Effect::Heading => {
                self.headings -= 1;
                self.boundary();
            }
            Effect::Pre => {
                self.pres -= 1;
                self.flush_pre();
            }
            Effect::InnerTable => {
                self.tables -= 1;
                self.space();
            }
            Effect::Table => {
                self.tables -= 1;
                self.end_table_run();
                self.boundary();
            }
            Effect::Row => self.flush_row(),
            Effect::Cell => {
                self.cells -= 1;
                self.end_cell();
            }
            Effect::Container => {
                self.containers.pop();
                self.boundary();
            }
            Effect::None => {}
        }
    }

    fn skipped(&self, name: &str, attrs: &Attrs) -> bool {
        let s = self.skip;
        if s.tags.iter().any(|t| t == name) {
            return true;
        }
        if let Some(id) = &attrs.id {
            if s.ids.iter().any(|i| i == id) {
                return true;
            }
        }
        if let Some(class) = &attrs.class {
            if !s.classes.is_empty() {
                return split_ws(class).any(|c| s.classes.iter().any(|k| k == c));
            }
        }
        false
    }

    // -- tokens --------------------------------------------------------------------

    fn pop_foreign(&mut self) {
        while self.stack.last().is_some_and(|e| e.foreign) {
            if let Some(e) = self.stack.pop() {
                self.close(&e);
            }
        }
    }

    fn current_is(&self, f: impl Fn(&str) -> bool) -> bool {
        self.stack.last().is_some_and(|e| f(&e.name))
    }

    fn start(&mut self, name: String, attrs: &Attrs, self_closing: bool, tok: &mut Tokenizer<'_>) {
        let n = name.as_str();
        if self.stack.last().is_some_and(|e| e.foreign) {
            let breaks = breakout(n) || (n == "font" && attrs.font);
            if !breaks {
                if !self_closing {
                    self.push(Entry {
                        name,
                        effect: Effect::None,
                        foreign: true,
                    });
                }
                return;
            }
            self.pop_foreign();
        }
        if matches!(n, "html" | "body" | "head") {
            return;
        }
        if table_part(n) && !self.in_table() {
            return;
        }
        if let Some(state) = raw(n) {
            tok.switch(state, n);
        }
        if closes_p(n) {
            self.close_p();
        }
        if heading(n) && self.current_is(heading) {
            self.pop_to(self.stack.len() - 1);
        } else if n == "li" {
            self.close_item(|x| x == "li");
        } else if n == "dd" || n == "dt" {
            self.close_item(|x| x == "dd" || x == "dt");
        } else if n == "td" || n == "th" {
            self.close_in_table(|x| x == "td" || x == "th");
        } else if n == "tr" {
            self.close_in_table(|x| matches!(x, "tr" | "td" | "th"));
        } else if section(n) {
            self.close_in_table(|x| matches!(x, "tr" | "td" | "th") || section(x));
        } else if n == "table" && self.current_is(|x| x == "table" || x == "tr" || section(x)) {
            self.close_in_table(|x| x == "table");
        } else if (n == "option" || n == "optgroup") && self.current_is(|x| x == "option") {
            self.pop_to(self.stack.len() - 1);
        }
        if n == "svg" || n == "math" {
            if !self_closing {
                let effect = self.open_effect(n, attrs);
                self.push(Entry {
                    name,
                    effect,
                    foreign: true,
                });
            }
            return;
        }
        if void(n) {
            if self.drop == 0 {
                if n == "br" {
                    self.line_break();
                } else if n == "hr" {
                    if self.cells > 0 || self.headings > 0 {
                        self.space();
                    } else if self.pres == 0 {
                        if self.tables > 0 {
                            self.end_table_run();
                        }
                        self.boundary();
                    }
                }
            }
            return;
        }
        if self.stack.len() >= MAX_DEPTH {
            return;
        }
        let effect = self.open_effect(n, attrs);
        let skip_lf = matches!(n, "pre" | "listing" | "textarea");
        self.push(Entry {
            name,
            effect,
            foreign: false,
        });
        if skip_lf {
            self.skip_lf = true;
        }
    }

    fn push(&mut self, e: Entry) {
        if self.stack.len() < MAX_DEPTH {
            self.stack.push(e);
        } else {
            self.close(&e);
        }
    }

    fn in_table(&self) -> bool {
        self.in_scope(|n| n == "table", table_scope).is_some()
    }

    fn close_item(&mut self, names: impl Fn(&str) -> bool) {
        for i in (0..self.stack.len()).rev() {
            let e = &self.stack[i];
            if names(&e.name) {
                self.pop_to(i);
                return;
            }
            if special(&e.name) && !matches!(e.name.as_str(), "address" | "div" | "p") {
                return;
            }
        }
    }

    fn close_in_table(&mut self, names: impl Fn(&str) -> bool) {
        if let Some(i) = self.in_scope(names, table_scope) {
            self.pop_to(i);
        }
    }

    fn end(&mut self, name: &str) {
        if self.stack.last().is_some_and(|e| e.foreign) && name != "p" && name != "br" {
            for i in (0..self.stack.len()).rev() {
                let e = &self.stack[i];
                if !e.foreign {
                    break;
                }
                if e.name == name {
                    self.pop_to(i);
                    return;
                }
            }
        }
        if name == "p" || name == "br" {
            self.pop_foreign();
        }
        match name {
            "html" | "body" | "head" => return,
            "br" => {
                if self.drop == 0 {
                    self.line_break();
                }
                return;
            }
            "p" => {
                self.close_p();
                return;
            }
            _ => {}
        }
        let found = if heading(name) {
            self.in_scope(heading, scope)
        } else if name == "li" {
            self.in_scope(|n| n == "li", |n| scope(n) || list(n))
        } else if table_part(name) || name == "table" {
            self.in_scope(|n| n == name, table_scope)
        } else if special(name) {
            self.in_scope(|n| n == name, scope)
        } else {
            let mut found = None;
            for (k, e) in self.stack.iter().enumerate().rev() {
                if e.name == name {
                    found = Some(k);
                    break;
                }
                if special(&e.name) {
                    break;
                }
            }
            found
        };
        if let Some(i) = found {
            self.pop_to(i);
        }
    }

    fn text(&mut self, src: &str, token: &Token) {
        match *token {
            Token::Text(mut a, b) => {
                if std::mem::take(&mut self.skip_lf) && src.as_bytes().get(a) == Some(&b'\n') {
                    a += 1;
                }
                for (k, c) in src[a..b].char_indices() {
                    let at = (a + k) as i64;
                    self.char(c, (at, at + c.len_utf8() as i64));
                }
            }
            Token::Unit(unit, a, b) => {
                let span = (a as i64, b as i64);
                let lf = std::mem::take(&mut self.skip_lf);
                match unit {
                    Unit::Char(c) => {
                        if !(lf && c == '\n') {
                            self.char(c, span);
                        }
                    }
                    Unit::Str(text) => {
                        if lf && text.starts_with('\n') {
                            return;
                        }
                        for c in text.chars() {
                            self.char(c, span);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn char(&mut self, c: char, span: Span) {
        if self.drop > 0 {
            if !self.title_done && self.stack.last().is_some_and(|e| e.effect == Effect::Title) {
                if let Some(t) = self.title.as_mut() {
                    t.push(c);
                }
            }
            return;
        }
        if c == '\0' {
            return;
        }
        if self.cells > 0 {
            self.cell_char(c, span);
        } else if self.tables > 0 {
            if is_ws(c) {
                return;
            }
            self.end_table_run();
            self.inline(c, span);
        } else if self.pres > 0 {
            self.pre.push((c, span));
        } else {
            self.inline(c, span);
        }
    }
}

/// The rendering of `src`: its text, each character's source span in bytes (`-1`
/// where the rendering adds it, and for white space), and the page's title.
pub fn render(src: &str, skip: &Skip) -> Rendered {
    let mut r = Renderer::new(skip);
    let mut tok = Tokenizer::new(src);
    while let Some(t) = tok.next_token() {
        match t {
            Token::Text(..) | Token::Unit(..) => r.text(src, &t),
            Token::Start {
                name,
                attrs,
                self_closing,
            } => {
                r.skip_lf = false;
                r.start(name, &attrs, self_closing, &mut tok);
            }
            Token::End(name) => {
                r.skip_lf = false;
                r.end(&name);
            }
            Token::Other => r.skip_lf = false,
        }
        tok.foreign = r.stack.last().is_some_and(|e| e.foreign);
    }
    r.pop_to(0);
    let (mut starts, mut ends) = (
        Vec::with_capacity(r.spans.len()),
        Vec::with_capacity(r.spans.len()),
    );
    for (c, &(a, b)) in r.out.chars().zip(&r.spans) {
        let visible = !is_ws(c);
        starts.push(if visible { a } else { -1 });
        ends.push(if visible { b } else { -1 });
    }
    let title = r.title.map(|t| split_ws(&t).collect::<Vec<_>>().join(" "));
    Rendered {
        text: r.out,
        starts,
        ends,
        title,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(src: &str) -> String {
        render(src, &Skip::default()).text
    }

    #[test]
    fn blocks_lists_tables_and_pre() {
        assert_eq!(text("<h2>A <b>b</b></h2><p>x<br>- y"), "## A b\n\nx\n\\- y");
        assert_eq!(text("<ol start=2><li>a<li>b</ol>"), "2. a\n3. b");
        assert_eq!(
            text("<table><tr><th>h<td>a|b</table>"),
            "| h | a\\|b |\n| --- | --- |"
        );
        assert_eq!(text("<pre>\n``x``</pre>"), "```\n``x``\n```");
    }

    #[test]
    fn drops_and_title() {
        let r = render(
            "<title> T  t </title><script>a</p></script><p hidden>b</p><p>c",
            &Skip::default(),
        );
        assert_eq!((r.text.as_str(), r.title.as_deref()), ("c", Some("T t")));
    }

    #[test]
    fn spans_are_source_bytes_then_chars() {
        let src = "<p>é&amp;</p>";
        let r = render(src, &Skip::default());
        assert_eq!(r.text, "é&");
        assert_eq!(
            (r.starts.clone(), r.ends.clone()),
            (vec![3, 5], vec![5, 10])
        );
        let chars = r.into_chars(src);
        assert_eq!((chars.starts, chars.ends), (vec![3, 4], vec![4, 9]));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let src = "<div>".repeat(100_000) + "x";
        assert_eq!(text(&src), "x");
    }
}
