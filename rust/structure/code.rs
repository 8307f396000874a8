//! The code structure scan: a tree-sitter tree as ranked cut points, the units
//! never cut while they fit, and the scopes (definitions) with their headers.
//!
//! The walk uses a tree cursor and an explicit stack, never recursion, and stops
//! at `ERROR` nodes and below [`MAX_DEPTH`], so broken or absurdly nested code
//! falls back to lines. `reference/code.py` is the twin, written from the same
//! description (`docs/code.md`); offsets are byte offsets.

use tree_sitter::{Language, Node, Parser, TreeCursor};

use crate::error::{Error, Result};

/// A header is reported cut to this many characters (and flagged).
pub const HEADER_CHARS: usize = 1000;
/// The walk looks at the children of nodes up to this depth (the root is 0).
pub const MAX_DEPTH: usize = 256;

/// A line longer than this (in bytes) may be cut inside, so the walk reads the nodes
/// within it; within a shorter line it reads no deeper than the line's first nodes.
pub const LONG_LINE: usize = 1000;

/// Cut ranks, best first.
pub const TOP: u8 = 1;
pub const MEMBER: u8 = 2;
pub const STATEMENT: u8 = 3;
pub const LINE: u8 = 4;

/// Node kinds that are scopes when they have a `body` field: one list for every
/// grammar (the union of docs/code.md's rows; no kind means two things).
const SCOPE_KINDS: &[&str] = &[
    // Python
    "class_definition",
    "function_definition",
    // JavaScript, TypeScript
    "class_declaration",
    "function_declaration",
    "generator_function_declaration",
    "method_definition",
    "abstract_class_declaration",
    "interface_declaration",
    "enum_declaration",
    "internal_module",
    "module",
    // Rust
    "function_item",
    "impl_item",
    "trait_item",
    "mod_item",
    "struct_item",
    "enum_item",
    "union_item",
    // Go, Java, C#
    "method_declaration",
    "record_declaration",
    "annotation_type_declaration",
    "constructor_declaration",
    "namespace_declaration",
    "struct_declaration",
    // C, C++
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "class_specifier",
    "namespace_definition",
    // Ruby
    "class",
    "method",
    "singleton_method",
    // PHP
    "trait_declaration",
];

/// Scope kinds whose body holds statements, not members: their body's children
/// rank as statements.
const FUNCTION_KINDS: &[&str] = &[
    "function_definition",
    "function_declaration",
    "generator_function_declaration",
    "method_definition",
    "function_item",
    "method_declaration",
    "constructor_declaration",
    "method",
    "singleton_method",
];

/// Python's wrapper of a decorated function or class: one unit and one scope with it.
const DECORATED: &str = "decorated_definition";

/// A definition that encloses code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The start of its first line (of the node itself when code stands before it
    /// there), and its end.
    pub start: usize,
    pub end: usize,
    pub kind: String,
    pub name: String,
    /// Its text up to the body, right-trimmed, cut to [`HEADER_CHARS`], with a `\n`.
    pub header: String,
    /// Where that text ends in the source (before any cut): an overlap that carries the
    /// header in its context reaches back no further.
    pub head_end: usize,
    pub truncated: bool,
}

/// What the scan found.
#[derive(Clone, Debug, Default)]
pub struct Outline {
    /// Cut points sorted by position, each with its best rank.
    pub cuts: Vec<(usize, u8)>,
    /// Units `(start, end)`, sorted by start (then the longest first); they nest.
    pub units: Vec<(usize, usize)>,
    /// Scopes sorted by `(start, end descending, node start)`: outermost first.
    pub scopes: Vec<Scope>,
}

/// A grammar and what the scan looks up in it (kinds, fields), read once and shared
/// by every document and thread of a config.
#[derive(Debug)]
pub struct Grammar {
    language: Language,
    kinds: Kinds,
    fields: Fields,
}

impl Grammar {
    /// # Errors
    /// A grammar of an ABI the runtime does not read.
    pub fn new(language: Language) -> Result<Self> {
        // Checked here, so that a parser's `set_language` cannot fail later.
        Parser::new()
            .set_language(&language)
            .map_err(|e| Error::InvalidConfig {
                field: "language",
                value: e.to_string(),
                expected: "a grammar of ABI 13 to 15 (tree-sitter 0.25)",
            })?;
        let field = |name: &str| language.field_id_for_name(name).map(u16::from);
        let fields = Fields {
            body: field("body"),
            name: field("name"),
            declarator: field("declarator"),
            type_: field("type"),
            definition: field("definition"),
        };
        Ok(Grammar {
            kinds: Kinds::new(&language),
            fields,
            language,
        })
    }
}

thread_local! {
    /// Each thread's parser, kept between documents (its grammar set per call).
    static PARSER: std::cell::RefCell<Parser> = std::cell::RefCell::new(Parser::new());
}

/// Parses `text` with `grammar` and scans it.
///
/// # Errors
/// A parse that failed (tree-sitter returns no tree only when cancelled).
pub fn scan(grammar: &Grammar, text: &str) -> Result<Outline> {
    let tree = PARSER.with(|p| {
        let mut parser = p.borrow_mut();
        if parser.language().is_none_or(|l| *l != grammar.language) {
            parser.set_language(&grammar.language).ok()?;
        }
        parser.parse(text, None)
    });
    let tree = tree.ok_or_else(|| Error::Internal {
        message: "tree-sitter returned no tree".into(),
    })?;
    Ok(Scanner::new(grammar, text).run(tree.walk()))
}

/// What the walk keeps for the node whose children it is reading.
struct Frame {
    /// The rank of its children's points (0: they get none).
    rank: u8,
    /// It is a scope other than a function: its `body` child holds members.
    scope: bool,
    /// The attached run before the next named child: its first start and last end.
    run: Option<(usize, usize)>,
}

/// What each node kind id of the grammar is.
#[derive(Debug)]
struct Kinds {
    scope: Vec<bool>,
    function: Vec<bool>,
    attached: Vec<bool>,
    decorated: Vec<bool>,
}

impl Kinds {
    fn new(language: &Language) -> Self {
        let n = language.node_kind_count();
        let table = |named: &dyn Fn(&str) -> bool| -> Vec<bool> {
            (0..n)
                .map(|id| {
                    let id = u16::try_from(id).unwrap_or(u16::MAX);
                    language.node_kind_is_named(id)
                        && language.node_kind_for_id(id).is_some_and(named)
                })
                .collect()
        };
        Kinds {
            scope: table(&|k| SCOPE_KINDS.contains(&k)),
            function: table(&|k| FUNCTION_KINDS.contains(&k)),
            attached: table(&attached),
            decorated: table(&|k| k == DECORATED),
        }
    }

    fn of(table: &[bool], node: Node<'_>) -> bool {
        table
            .get(usize::from(node.kind_id()))
            .copied()
            .unwrap_or(false)
    }
}

/// Field ids of the grammar.
#[derive(Debug)]
struct Fields {
    body: Option<u16>,
    name: Option<u16>,
    declarator: Option<u16>,
    type_: Option<u16>,
    definition: Option<u16>,
}

struct Scanner<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
    fields: &'a Fields,
    kinds: &'a Kinds,
    out: Outline,
    /// Each scope's node start, to order scopes that share a first line.
    scope_starts: Vec<usize>,
}

fn child<'t>(node: Node<'t>, field: Option<u16>) -> Option<Node<'t>> {
    field.and_then(|f| node.child_by_field_id(f))
}

fn attached(kind: &str) -> bool {
    kind.ends_with("comment") || kind == "decorator" || kind == "attribute_item"
}

impl<'a> Scanner<'a> {
    fn new(grammar: &'a Grammar, text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Scanner {
            text,
            line_starts,
            fields: &grammar.fields,
            kinds: &grammar.kinds,
            out: Outline::default(),
            scope_starts: Vec::new(),
        }
    }

    /// The start of the line that holds byte `p`.
    fn ls(&self, p: usize) -> usize {
        let k = self.line_starts.partition_point(|&s| s <= p);
        self.line_starts[k.saturating_sub(1)]
    }

    /// Only spaces, tabs, `\r` or form feeds stand between its line start and `p`
    /// (read backwards, so many nodes on one long line cost no more than the line).
    fn clean(&self, p: usize) -> bool {
        let before = &self.text.as_bytes()[..p];
        match before
            .iter()
            .rposition(|&b| !matches!(b, b' ' | b'\t' | b'\r' | 0x0c))
        {
            None => true,
            Some(i) => before[i] == b'\n',
        }
    }

    /// More than one line end between `a` and `b`: a blank line.
    fn blank_between(&self, a: usize, b: usize) -> bool {
        memchr::memchr_iter(b'\n', &self.text.as_bytes()[a..b])
            .nth(1)
            .is_some()
    }

    /// A scope-kind node with a body; for Python's `decorated_definition`, the
    /// definition it wraps. Returns the node that names it and its body.
    fn scope_of<'t>(&self, node: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
        let inner = if Kinds::of(&self.kinds.decorated, node) {
            child(node, self.fields.definition)?
        } else {
            node
        };
        if !Kinds::of(&self.kinds.scope, inner) {
            return None;
        }
        child(inner, self.fields.body).map(|body| (inner, body))
    }

    fn name_of(&self, node: Node<'_>) -> String {
        let f = &self.fields;
        let named = child(node, f.name).or_else(|| {
            // C and C++: `int *A::f(...)`, `double& at(...)`: down to the innermost name.
            let mut d = child(node, f.declarator)?;
            loop {
                d = match child(d, f.declarator) {
                    Some(next) => next,
                    None if d.kind().ends_with("_declarator") && d.named_child_count() > 0 => {
                        match d.named_child(0) {
                            Some(next) => next,
                            None => break,
                        }
                    }
                    None => break,
                };
            }
            Some(d)
        });
        named
            .or_else(|| child(node, f.type_))
            .map_or_else(String::new, |n| {
                self.text[n.start_byte()..n.end_byte()].to_owned()
            })
    }

    fn add_scope(&mut self, node: Node<'_>, inner: Node<'_>, body: Node<'_>) {
        // From its line's start, with the indentation, when it starts the line.
        let start = if self.clean(node.start_byte()) {
            self.ls(node.start_byte())
        } else {
            node.start_byte()
        };
        let head = self.text[start..body.start_byte().max(start)]
            .trim_end_matches([' ', '\t', '\r', '\n']);
        let (header, truncated) = match head.char_indices().nth(HEADER_CHARS) {
            Some((cut, _)) => (&head[..cut], true),
            None => (head, false),
        };
        self.out.scopes.push(Scope {
            start,
            end: node.end_byte(),
            kind: inner.kind().to_owned(),
            name: self.name_of(inner),
            header: format!("{header}\n"),
            head_end: start + head.len(),
            truncated,
        });
        self.scope_starts.push(node.start_byte());
    }

    /// Whether the walk reads inside a node: when it spans lines, or its line is long.
    /// Inside a short line nothing starts a line, and no chunk starts (a chunk starts
    /// inside a line only where the line runs over a window), so most of a tree's
    /// nodes, the expressions within one line, are never visited.
    fn worth_reading(&self, start: usize, end: usize) -> bool {
        let k = self.line_starts.partition_point(|&s| s <= start);
        let line_end = self.line_starts.get(k).copied().unwrap_or(self.text.len());
        end > line_end || line_end - self.line_starts[k - 1] > LONG_LINE
    }

    /// A cut point at the line of `from`, and a unit from there to `end`, when `from`
    /// starts its line.
    fn point(&mut self, from: usize, end: usize, rank: u8) {
        if self.clean(from) {
            let at = self.ls(from);
            self.out.cuts.push((at, rank));
            self.out.units.push((at, end));
        }
    }

    /// Reads `node`, a child of the top frame's node; returns the frame for its own
    /// children when the walk should look at them.
    fn visit(&mut self, node: Node<'_>, field: Option<u16>, parent: &mut Frame) -> Option<Frame> {
        if !node.is_named() {
            return None;
        }
        let (start, end) = (node.start_byte(), node.end_byte());
        if start == end || node.is_missing() {
            return None;
        }
        if node.is_error() {
            parent.run = None;
            return None;
        }
        if Kinds::of(&self.kinds.attached, node) {
            parent.run = match parent.run {
                _ if !self.clean(start) => None,
                Some((first, last)) if !self.blank_between(last, start) => Some((first, end)),
                _ => Some((start, end)),
            };
            return None;
        }
        let first = match parent.run.take() {
            Some((first, last)) if !self.blank_between(last, start) => first,
            _ => start,
        };
        if parent.rank > 0 {
            // With its comments or attributes, and alone (where they cannot stay together).
            self.point(first, end, parent.rank);
            if first != start {
                self.point(start, end, parent.rank);
            }
        }
        let scope = self.scope_of(node);
        let decorated = Kinds::of(&self.kinds.decorated, node);
        // The definition inside a decorated_definition is its scope already.
        let wrapped = parent.rank == 0;
        if let (Some((inner, body)), false) = (scope, wrapped) {
            self.add_scope(node, inner, body);
        }
        if !self.worth_reading(start, end) {
            return None;
        }
        Some(Frame {
            rank: if decorated {
                0
            } else if parent.scope && field == self.fields.body && field.is_some() {
                MEMBER
            } else {
                STATEMENT
            },
            scope: scope.is_some() && !decorated && !Kinds::of(&self.kinds.function, node),
            run: None,
        })
    }

    fn run(mut self, mut cursor: TreeCursor<'_>) -> Outline {
        let mut stack = vec![Frame {
            rank: TOP,
            scope: false,
            run: None,
        }];
        if !cursor.goto_first_child() {
            return self.finish();
        }
        loop {
            let node = cursor.node();
            let Some(top) = stack.last_mut() else {
                return self.finish();
            };
            // Only a scope's body is told apart by its field (a lookup per node otherwise).
            let field = if top.scope {
                cursor.field_id().map(u16::from)
            } else {
                None
            };
            let frame = self.visit(node, field, top);
            // `stack.len()` is the node's depth plus one.
            if let Some(frame) = frame.filter(|_| stack.len() < MAX_DEPTH) {
                if cursor.goto_first_child() {
                    stack.push(frame);
                    continue;
                }
            }
            while !cursor.goto_next_sibling() {
                if stack.len() <= 1 || !cursor.goto_parent() {
                    return self.finish();
                }
                stack.pop();
            }
        }
    }

    /// Line points, then every list sorted.
    fn finish(mut self) -> Outline {
        let data = self.text.as_bytes();
        for k in 1..self.line_starts.len() {
            let a = self.line_starts[k];
            let b = self.line_starts.get(k + 1).copied().unwrap_or(data.len());
            if data[a..b]
                .iter()
                .any(|&c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0c))
            {
                self.out.cuts.push((a, LINE));
            }
        }
        let cuts = &mut self.out.cuts;
        cuts.sort_unstable();
        cuts.dedup_by_key(|c| c.0); // the first of a position has its best rank
        self.out
            .units
            .sort_unstable_by_key(|&(a, b)| (a, std::cmp::Reverse(b)));
        self.out.units.dedup();
        let mut order: Vec<usize> = (0..self.out.scopes.len()).collect();
        let (scopes, starts) = (&self.out.scopes, &self.scope_starts);
        order.sort_by_key(|&i| (scopes[i].start, std::cmp::Reverse(scopes[i].end), starts[i]));
        let mut sorted: Vec<Scope> = Vec::with_capacity(order.len());
        for i in order {
            sorted.push(self.out.scopes[i].clone());
        }
        self.out.scopes = sorted;
        self.out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn python() -> Grammar {
        Grammar::new(tree_sitter_python::LANGUAGE.into()).unwrap()
    }

    fn rust() -> Grammar {
        Grammar::new(tree_sitter_rust::LANGUAGE.into()).unwrap()
    }

    const PY: &str = "import os\n\n@wrap\nclass A(B):\n    \"\"\"Doc.\"\"\"\n\n    # note\n    def f(self,\n          x):\n        if x:\n            return 1\n        return 2\n";

    #[test]
    fn scopes_have_names_headers_and_nest_outermost_first() {
        let out = scan(&python(), PY).unwrap();
        let got: Vec<(&str, &str, &str)> = out
            .scopes
            .iter()
            .map(|s| (s.kind.as_str(), s.name.as_str(), s.header.as_str()))
            .collect();
        // The method's header starts at its own line: the comment above is a sibling.
        assert_eq!(
            got,
            [
                ("class_definition", "A", "@wrap\nclass A(B):\n"),
                (
                    "function_definition",
                    "f",
                    "    def f(self,\n          x):\n"
                ),
            ]
        );
        assert_eq!(out.scopes[0].start, PY.find("@wrap").unwrap());
        assert_eq!(out.scopes[0].end, PY.len() - 1);
    }

    #[test]
    fn cut_points_rank_top_level_members_and_statements() {
        let out = scan(&python(), PY).unwrap();
        let rank = |needle: &str| {
            let at = PY.find(needle).unwrap();
            let line = PY[..at].rfind('\n').map_or(0, |i| i + 1);
            out.cuts.iter().find(|c| c.0 == line).map(|c| c.1)
        };
        assert_eq!(rank("@wrap"), Some(TOP));
        // The comment is attached: the member's point is at the comment's line.
        assert_eq!(rank("# note"), Some(MEMBER));
        assert_eq!(rank("def f"), Some(MEMBER)); // alone, where the two cannot stay together
        assert_eq!(rank("class A"), Some(LINE)); // decorators and def are one unit
        assert_eq!(rank("return 2"), Some(STATEMENT)); // a function's body holds statements
        assert!(out
            .units
            .contains(&(PY.find("    # note").unwrap(), PY.len() - 1)));
    }

    #[test]
    fn rust_impl_is_named_by_its_type() {
        let src =
            "/// A store.\nstruct S { a: u8 }\n\nimpl Show for S {\n    fn show(&self) {}\n}\n";
        let out = scan(&rust(), src).unwrap();
        let names: Vec<(&str, &str)> = out
            .scopes
            .iter()
            .map(|s| (s.kind.as_str(), s.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("struct_item", "S"),
                ("impl_item", "S"),
                ("function_item", "show")
            ]
        );
        assert_eq!(out.scopes[1].header, "impl Show for S\n");
    }

    #[test]
    fn deep_nesting_falls_back_to_lines_without_recursion() {
        let depth = 20_000;
        let src = format!("x = {}{}\ny = 1\n", "[".repeat(depth), "]".repeat(depth));
        let out = scan(&python(), &src).unwrap();
        assert!(out
            .cuts
            .iter()
            .any(|&(p, _)| p == src.find("y = 1").unwrap()));
    }

    #[test]
    fn long_headers_are_cut_and_flagged() {
        let src = format!("def f({}):\n    pass\n", "a, ".repeat(600));
        let out = scan(&python(), &src).unwrap();
        assert!(out.scopes[0].truncated);
        assert_eq!(out.scopes[0].header.chars().count(), HEADER_CHARS + 1);
    }
}
