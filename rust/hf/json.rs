//! Reading `tokenizer.json` with the JSON path of every value, so a malformed or
//! unsupported component is reported where it is (`normalizer.normalizers[2].type`).

use serde_json::Value;

use crate::error::{Error, Result};

/// A JSON value and the path that led to it.
#[derive(Clone, Copy)]
pub struct At<'a, 'p> {
    pub value: &'a Value,
    path: &'p str,
}

/// Owns the path strings of nested values (an `At` borrows one).
pub struct Node<'a> {
    pub value: &'a Value,
    pub path: String,
}

impl<'a> Node<'a> {
    pub fn at(&self) -> At<'a, '_> {
        At {
            value: self.value,
            path: &self.path,
        }
    }
}

impl<'a, 'p> At<'a, 'p> {
    pub fn root(value: &'a Value) -> Self {
        At { value, path: "" }
    }

    fn join(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    pub fn invalid(&self, reason: impl Into<String>) -> Error {
        Error::TokenizerJson {
            path: if self.path.is_empty() {
                "(root)".into()
            } else {
                self.path.to_owned()
            },
            reason: reason.into(),
        }
    }

    /// The member `key`, absent when missing or `null`.
    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        match self.value.get(key) {
            None | Some(Value::Null) => None,
            Some(value) => Some(Node {
                value,
                path: self.join(key),
            }),
        }
    }

    pub fn req(&self, key: &str) -> Result<Node<'a>> {
        if !self.value.is_object() {
            return Err(self.invalid("must be an object"));
        }
        self.get(key).ok_or_else(|| Error::TokenizerJson {
            path: self.join(key),
            reason: "is missing".into(),
        })
    }

    pub fn str(&self) -> Result<&'a str> {
        self.value
            .as_str()
            .ok_or_else(|| self.invalid(format!("must be a string, got {}", kind(self.value))))
    }

    pub fn bool(&self) -> Result<bool> {
        self.value
            .as_bool()
            .ok_or_else(|| self.invalid(format!("must be a boolean, got {}", kind(self.value))))
    }

    pub fn u32(&self) -> Result<u32> {
        self.value
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| {
                self.invalid(format!(
                    "must be an id in [0, 2**32), got {}",
                    short(self.value)
                ))
            })
    }

    pub fn usize(&self) -> Result<usize> {
        self.value
            .as_u64()
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| self.invalid(format!("must be a count >= 0, got {}", short(self.value))))
    }

    pub fn f64(&self) -> Result<f64> {
        self.value
            .as_f64()
            .ok_or_else(|| self.invalid(format!("must be a number, got {}", kind(self.value))))
    }

    /// The elements of an array, each with its `[i]` path.
    pub fn items(&self) -> Result<Vec<Node<'a>>> {
        let items = self
            .value
            .as_array()
            .ok_or_else(|| self.invalid(format!("must be an array, got {}", kind(self.value))))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, value)| Node {
                value,
                path: format!("{}[{i}]", self.path),
            })
            .collect())
    }

    /// `key` as a boolean, `default` when absent.
    pub fn flag(&self, key: &str, default: bool) -> Result<bool> {
        self.get(key).map_or(Ok(default), |n| n.at().bool())
    }

    /// `key` as a string, if present.
    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(n) => n.at().str().map(Some),
        }
    }

    /// The component's `type`.
    pub fn kind(&self) -> Result<&'a str> {
        self.req("type")?.at().str()
    }

    /// An unsupported component or option: the caller may fall back to `tokenizers`.
    pub fn unsupported(&self, key: &str, what: impl Into<String>) -> Error {
        Error::UnsupportedTokenizer {
            path: self.join(key),
            what: what.into(),
        }
    }
}

/// `v` as JSON, cut to a readable length for an error message.
pub fn short(v: &Value) -> String {
    let mut s = v.to_string();
    if s.len() > 60 {
        let mut end = 57;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push_str("...");
    }
    s
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
