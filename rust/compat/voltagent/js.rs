//! JS strings as UTF-16 code units (as `@voltagent/rag` runs on Node): trimming,
//! line positions, and the sentence and paragraph segments. Offsets are code units,
//! as upstream's are.

/// `String.prototype.trim`'s set: ECMAScript WhiteSpace and LineTerminator.
fn is_js_space(u: u16) -> bool {
    matches!(
        u,
        0x09..=0x0D
            | 0x20
            | 0xA0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// `units[start..end]` trimmed, as a range.
pub fn trim(units: &[u16], start: usize, end: usize) -> (usize, usize) {
    let mut a = start;
    let mut b = end;
    while a < b && is_js_space(units[a]) {
        a += 1;
    }
    while b > a && is_js_space(units[b - 1]) {
        b -= 1;
    }
    (a, b)
}

/// §1.2 line starts: 0, then after every `\r\n`, lone `\r` and `\n`.
pub fn line_map(units: &[u16]) -> Vec<usize> {
    let mut map = vec![0];
    let mut i = 0;
    while i < units.len() {
        match units[i] {
            0x0D if units.get(i + 1) == Some(&0x0A) => {
                i += 2;
                map.push(i);
            }
            0x0A | 0x0D => {
                i += 1;
                map.push(i);
            }
            _ => i += 1,
        }
    }
    map
}

/// §1.2 `offsetToLineCol` of a non-negative offset: 1-based line and column.
pub fn line_col(offset: u64, map: &[usize]) -> (u64, u64) {
    let line = map.partition_point(|&s| s as u64 <= offset);
    (line as u64, offset - map[line - 1] as u64 + 1)
}

/// True when unit offset `k` falls between the two halves of a surrogate pair.
pub fn inside_pair(units: &[u16], k: usize) -> bool {
    k > 0
        && k < units.len()
        && (0xD800..0xDC00).contains(&units[k - 1])
        && (0xDC00..0xE000).contains(&units[k])
}

/// The code-point index of each sorted unit offset (none inside a pair) of a JS string
/// that has no lone surrogates, as a Rust `str` gives it: every high surrogate starts a
/// pair, so a code point index is the unit offset less the pairs before it.
pub fn code_points_at(units: &[u16], sorted: &[u64]) -> Vec<u64> {
    let (mut pairs, mut at) = (0u64, 0usize);
    sorted
        .iter()
        .map(|&k| {
            let k = (k as usize).clamp(at, units.len());
            pairs += units[at..k]
                .iter()
                .filter(|&&u| (0xD800..0xDC00).contains(&u))
                .count() as u64;
            at = k;
            k as u64 - pairs
        })
        .collect()
}

/// A sentence or paragraph: its offsets and the range whose tokens it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub start: usize,
    pub end: usize,
    pub counted: (usize, usize),
}

fn is_terminator(u: u16) -> bool {
    matches!(u, 0x21 | 0x2E | 0x3F) // ! . ?
}

/// §3.2 matches of `[^.!?]+[.!?]+|[^.!?]+\Z` whose trimmed text is not empty, each
/// counted trimmed. Text made only of terminators is one segment, counted untrimmed.
pub fn sentences(units: &[u16]) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < units.len() {
        if is_terminator(units[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < units.len() && !is_terminator(units[i]) {
            i += 1;
        }
        while i < units.len() && is_terminator(units[i]) {
            i += 1;
        }
        let counted = trim(units, start, i);
        if counted.0 < counted.1 {
            out.push(Segment {
                start,
                end: i,
                counted,
            });
        }
    }
    let whole = trim(units, 0, units.len());
    if out.is_empty() && whole.0 < whole.1 {
        out.push(Segment {
            start: 0,
            end: units.len(),
            counted: (0, units.len()),
        });
    }
    out
}

/// §3.3 the parts between runs of two or more `\n`, trimmed, empty ones dropped.
/// Upstream finds each with `indexOf` from the previous end; only white space lies
/// before a part, so that is where it starts.
pub fn paragraphs(units: &[u16]) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut push = |a: usize, b: usize| {
        let (start, end) = trim(units, a, b);
        if start < end {
            out.push(Segment {
                start,
                end,
                counted: (start, end),
            });
        }
    };
    let mut from = 0;
    let mut i = 0;
    while i < units.len() {
        if units[i] != 0x0A {
            i += 1;
            continue;
        }
        let run = i;
        while i < units.len() && units[i] == 0x0A {
            i += 1;
        }
        if i - run >= 2 {
            push(from, run);
            from = i;
        }
    }
    push(from, units.len());
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn code_points_skip_the_second_half_of_each_pair() {
        let text = "a😀b\u{10000}\u{10FFFF}c 你";
        let units: Vec<u16> = text.encode_utf16().collect();
        let sorted: Vec<u64> = (0..=units.len())
            .filter(|&k| !super::inside_pair(&units, k))
            .map(|k| k as u64)
            .collect();
        let expected = crate::text::offsets::convert_sorted(
            text,
            &sorted,
            crate::text::offsets::Unit::Utf16,
            crate::text::offsets::Unit::Char,
        )
        .unwrap();
        assert_eq!(super::code_points_at(&units, &sorted), expected);
    }

    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn line_map_counts_crlf_once() {
        assert_eq!(line_map(&u("a\r\nb\rc\nd")), vec![0, 3, 5, 7]);
        assert_eq!(line_col(4, &[0, 3, 5, 7]), (2, 2));
    }

    #[test]
    fn only_the_middle_of_a_pair_is_inside_it() {
        let mut text = u("a😀b");
        text.extend([0xD800, u16::from(b'c')]); // a lone high surrogate is no pair
        let inside: Vec<usize> = (0..=text.len())
            .filter(|&k| inside_pair(&text, k))
            .collect();
        assert_eq!(inside, vec![2]);
    }

    #[test]
    fn sentences_keep_leading_space_and_count_trimmed() {
        let text = u("..Hi there. Bye!? tail");
        let got: Vec<_> = sentences(&text).iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(got, vec![(2, 11), (11, 17), (17, 22)]);
        assert_eq!(
            sentences(&u("...  ")),
            vec![Segment {
                start: 0,
                end: 5,
                counted: (0, 5)
            }]
        );
    }

    #[test]
    fn paragraphs_split_on_double_newlines_only() {
        let text = u(" a\nb \n\n\n\n c\n\n \n\n");
        let got: Vec<_> = paragraphs(&text).iter().map(|p| (p.start, p.end)).collect();
        assert_eq!(got, vec![(1, 4), (10, 11)]);
    }
}
