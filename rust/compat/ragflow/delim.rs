//! §2 delimiter fields and §4.1 tag removal.

use std::borrow::Cow;

/// §2.1: CRLF, then any lone CR, become LF.
pub fn normalize_text_newlines(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Byte ranges of the non-overlapping `` `([^`]+)` `` matches, scanning left to right.
fn wrapped_tokens(field: &str) -> Vec<(usize, usize)> {
    let bytes = field.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            if let Some(len) = memchr::memchr(b'`', &bytes[i + 1..]) {
                if len > 0 {
                    out.push((i, i + len + 2));
                    i += len + 2;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// §2.2: the raw field holds a backtick-wrapped token.
pub fn has_wrapped_delimiter(field: &str) -> bool {
    !wrapped_tokens(field).is_empty()
}

/// Pushes every character of `s` as its own string.
fn push_chars<'a>(s: &'a str, found: &mut Vec<&'a str>) {
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        found.push(&rest[..c.len_utf8()]);
        rest = &rest[c.len_utf8()..];
    }
}

/// §2.3: wrapped tokens whole, every other character alone; first occurrences,
/// longest (in code points) first, ties in order of appearance.
pub fn parse_delimiter_field(field: &str) -> Vec<String> {
    let field = normalize_text_newlines(field);
    let field: &str = &field;
    let mut found: Vec<&str> = Vec::new();
    let mut at = 0;
    for (start, end) in wrapped_tokens(field) {
        push_chars(&field[at..start], &mut found);
        found.push(&field[start + 1..end - 1]);
        at = end;
    }
    push_chars(&field[at..], &mut found);
    let mut unique: Vec<String> = Vec::with_capacity(found.len());
    for d in found {
        if !unique.iter().any(|u| u == d) {
            unique.push(d.to_owned());
        }
    }
    unique.sort_by_key(|d| std::cmp::Reverse(d.chars().count()));
    unique
}

/// §4.1: deletes every `@@[\t0-9.-]+?##` position tag.
pub fn remove_tag(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    if memchr::memmem::find(bytes, b"@@").is_none() {
        return Cow::Borrowed(text);
    }
    let allowed = |b: u8| b == b'\t' || b.is_ascii_digit() || b == b'.' || b == b'-';
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    let mut i = 0;
    while let Some(found) = memchr::memmem::find(&bytes[i..], b"@@") {
        let at = i + found;
        let run = bytes[at + 2..].iter().take_while(|&&b| allowed(b)).count();
        let end = at + 2 + run;
        if run > 0 && bytes[end..].starts_with(b"##") {
            // Every byte involved is ASCII, so these are character boundaries.
            out.push_str(&text[kept..at]);
            kept = end + 2;
            i = end + 2;
        } else {
            i = at + 1;
        }
    }
    out.push_str(&text[kept..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_tables() {
        let p = |f: &str| parse_delimiter_field(f);
        assert_eq!(p("\n。；！？"), vec!["\n", "。", "；", "！", "？"]);
        assert_eq!(p("##"), vec!["#"]);
        assert_eq!(p("`##`"), vec!["##"]);
        assert_eq!(p("\n`##`"), vec!["##", "\n"]);
        assert_eq!(p("`ab`c`de`"), vec!["ab", "de", "c"]);
        assert_eq!(p("`a`b`c`"), vec!["a", "b", "c"]);
        assert_eq!(p("``"), vec!["`"]);
        assert_eq!(p("```"), vec!["`"]);
        assert_eq!(p("\\n"), vec!["\\", "n"]);
        assert_eq!(p("\r\n"), vec!["\n"]);
        assert_eq!(p("aAa"), vec!["a", "A"]);
        assert!(p("").is_empty());
        assert!(has_wrapped_delimiter("x`#`"));
        assert!(!has_wrapped_delimiter("``"));
        assert_eq!(normalize_text_newlines("a\n\rb\r\nc"), "a\n\nb\nc");
    }

    #[test]
    fn tags() {
        assert_eq!(remove_tag("x@@1\t2\t3\t4\t5##y"), "xy");
        assert_eq!(remove_tag("@@1\t2##3##"), "3##");
        for unchanged in ["@@##", "@@a##", "a@@1\n2##b", "@@12345678"] {
            assert_eq!(remove_tag(unchanged), unchanged);
        }
        assert_eq!(remove_tag("@@@1##"), "@");
        assert_eq!(remove_tag("你@@1##好"), "你好");
    }
}
