//! A small store, for the Code tests.

use std::collections::HashMap;

/// A key-value store.
#[derive(Debug, Default)]
pub struct Store {
    items: HashMap<String, u64>,
    hits: u64,
}

impl Store {
    /// Makes an empty store.
    pub fn new() -> Self {
        Store::default()
    }

    /// Reads a value, counting the hit.
    pub fn get(&mut self, key: &str) -> Option<u64> {
        let found = self.items.get(key).copied();
        if found.is_some() {
            self.hits += 1;
        }
        found
    }

    pub fn put(&mut self, key: &str, value: u64) {
        self.items.insert(key.to_owned(), value);
    }
}

pub trait Source {
    fn read(&self) -> Vec<u8>;

    fn len(&self) -> usize {
        self.read().len()
    }
}

mod tests {
    use super::*;

    #[test]
    fn counts_hits() {
        let mut s = Store::new();
        s.put("a", 1);
        assert_eq!(s.get("a"), Some(1));
        assert_eq!(s.hits, 1);
    }
}
