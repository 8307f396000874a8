//! `ParentChild`: Dify's parent-child segmentation over one tokenization.
//!
//! Parents are `Recursive` chunks (or, for `"full-doc"`, the whole text); the
//! children of a parent are `Recursive` chunks of the parent's own span, cut
//! over the parent's tokens (the token that holds the parent's first byte is
//! taken to start there). Each parent is followed by its children (rows with
//! `parent` set), so the work per parent is its own size: linear overall.
//!
//! `"full-doc"` has one parent, the text itself, so it holds the whole text
//! until the end; its children still stream.

use super::recursive::{Recursive, RecursiveConfig};
use super::{Cutter, Input, Row};
use crate::error::Result;

/// The `ParentChild` cutter.
pub struct ParentChild {
    /// `None` for `"full-doc"`.
    parent: Option<Recursive>,
    child: RecursiveConfig,
    /// `"full-doc"`: the children cut so far, over the whole stream.
    doc_children: Option<(Recursive, Vec<Row>)>,
    finished: bool,
}

impl ParentChild {
    /// # Errors
    /// Invalid parent or child sizes.
    pub fn new(parent: Option<RecursiveConfig>, child: RecursiveConfig) -> Result<Self> {
        let doc_children = match parent {
            None => Some((Recursive::new(child.clone())?, Vec::new())),
            Some(_) => None,
        };
        Ok(ParentChild {
            parent: parent.map(Recursive::new).transpose()?,
            child,
            doc_children,
            finished: false,
        })
    }

    /// The children of one parent row, appended after it.
    fn children(&self, input: &Input<'_>, parent: &Row, out: &mut Vec<Row>) -> Result<()> {
        let (bs, be) = (parent.byte_start, parent.byte_end);
        let (ts, te) = (parent.token_start as usize, parent.token_end as usize);
        // The parent's tokens, the first one moved to the parent's first byte.
        let mut starts: Vec<usize> = (ts..te).map(|i| input.bound(i)).collect();
        let words: Vec<bool> = if input.words.is_empty() {
            Vec::new()
        } else {
            (ts..te)
                .map(|i| input.words[i - input.token_base])
                .collect()
        };
        if let Some(first) = starts.first_mut() {
            *first = bs;
        }
        let sub = Input {
            text: input.slice(bs, be),
            base: bs,
            starts: &starts,
            token_base: ts,
            tokens_end: be,
            done: true,
            words: &words,
        };
        let mut kids = Vec::new();
        Recursive::new(self.child.clone())?
            .starting_at(bs)
            .run(&sub, &mut kids);
        out.extend(kids.into_iter().map(|mut k| {
            k.parent = Some(parent.index);
            k
        }));
        Ok(())
    }
}

impl Cutter for ParentChild {
    fn cut(&mut self, input: &Input<'_>, out: &mut Vec<Row>) -> Result<()> {
        if let Some(parent) = &mut self.parent {
            let mut parents = Vec::new();
            parent.run(input, &mut parents);
            for p in parents {
                out.push(p.clone());
                self.children(input, &p, out)?;
            }
            return Ok(());
        }
        let Some((cutter, kids)) = &mut self.doc_children else {
            return Ok(());
        };
        cutter.run(input, kids);
        if input.done && !self.finished {
            self.finished = true;
            if input.end() > 0 {
                out.push(Row {
                    token_start: 0,
                    token_end: input.n() as u64,
                    byte_start: 0,
                    byte_end: input.end(),
                    ..Row::default()
                });
                out.extend(kids.drain(..).map(|mut k| {
                    k.parent = Some(0);
                    k
                }));
            }
        }
        Ok(())
    }

    fn keep(&self) -> (usize, usize) {
        match (&self.parent, &self.doc_children) {
            (Some(parent), _) => parent.keep(),
            // The one parent is the whole text.
            (None, Some((cutter, _))) => (0, cutter.keep().1),
            (None, None) => (0, 0),
        }
    }
}
