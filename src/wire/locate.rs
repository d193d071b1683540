//! The path of the value a serde_json error is about (`locks[0].balance`), found from the
//! error's position in the text. Generic over JSON: it knows no shape.
//!
//! Why not `serde_path_to_error`: it wraps the deserializer, so every shape's `Deserialize` is
//! instantiated over the wrapper, which cost 18 KB of the gzipped wasm. Errors are rare; the
//! text is at hand; scanning it once more on an error is free.
//!
//! Where serde_json puts the position of a data error (its `fix_position`):
//! - a wrong JSON type: at the start of an object or array, or just after a scalar;
//! - an error raised by the field's own `Deserialize` (an amount, an address): after the
//!   value and the whitespace that follows it, and after the closing `}` of its object when
//!   it is the object's last member;
//! - a missing field: just after the closing `}` of the object that lacks it.
//!
//! So: just after a closing bracket, the error is about that container's missing field, or
//! its last member; anywhere else, about the innermost value that spans the position
//! (trailing whitespace included).

/// A value of the document: its path and its bytes `start..end`.
struct Span {
    path: String,
    start: usize,
    end: usize,
    /// A container's last member (an index into the spans).
    last_child: Option<usize>,
}

/// An open container while scanning.
struct Open {
    span: usize,
    array: bool,
    count: usize,
    key: Option<String>,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The index just after the string starting at `i` (at its opening quote).
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while let Some(&c) = b.get(j) {
        match c {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// The index just after the number or literal starting at `i`.
fn scalar_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while let Some(&c) = b.get(j) {
        if is_ws(c) || matches!(c, b',' | b':' | b'{' | b'}' | b'[' | b']' | b'"') {
            break;
        }
        j += 1;
    }
    j
}

/// Every value of `text`, in document order (containers before their members).
fn spans(text: &str) -> Vec<Span> {
    let b = text.as_bytes();
    let mut out: Vec<Span> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if is_ws(c) || c == b':' || c == b',' {
            i += 1;
            continue;
        }
        if c == b'}' || c == b']' {
            if let Some(span) = stack.pop().and_then(|o| out.get_mut(o.span)) {
                span.end = i + 1;
            }
            i += 1;
            continue;
        }
        // In an object, a string with no key pending is the next key.
        if c == b'"' {
            if let Some(open) = stack.last_mut().filter(|o| !o.array && o.key.is_none()) {
                let end = string_end(b, i);
                open.key = Some(text.get(i + 1..end - 1).unwrap_or_default().to_string());
                i = end;
                continue;
            }
        }
        let index = out.len();
        let path = match stack.last_mut() {
            None => String::new(),
            Some(open) => {
                let parent = out.get_mut(open.span);
                let parent_path = parent.as_ref().map_or("", |p| p.path.as_str());
                let path = match open.key.take() {
                    _ if open.array => format!("{parent_path}[{}]", open.count),
                    Some(key) if parent_path.is_empty() => key,
                    Some(key) => format!("{parent_path}.{key}"),
                    None => parent_path.to_string(),
                };
                open.count += 1;
                if let Some(p) = parent {
                    p.last_child = Some(index);
                }
                path
            }
        };
        let end = match c {
            b'{' | b'[' => {
                stack.push(Open {
                    span: index,
                    array: c == b'[',
                    count: 0,
                    key: None,
                });
                b.len()
            }
            b'"' => string_end(b, i),
            _ => scalar_end(b, i),
        };
        out.push(Span {
            path,
            start: i,
            end,
            last_child: None,
        });
        i = if c == b'{' || c == b'[' { i + 1 } else { end };
    }
    out
}

/// The byte offset of serde_json's `line` (from 1) and `column` (bytes into the line).
pub fn offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = text
        .match_indices('\n')
        .nth(line.saturating_sub(2))
        .map_or(0, |(i, _)| i + 1);
    if line <= 1 {
        column
    } else {
        line_start + column
    }
}

/// The path of the value an error at byte `at` is about; `missing` for a missing-field error
/// (then the path of the object that lacks it). `""` for the whole document.
pub fn path_at(text: &str, at: usize, missing: bool) -> String {
    let spans = spans(text);
    let before = text.get(..at).unwrap_or(text).trim_end_matches(is_ws_char);
    if before.ends_with(['}', ']']) {
        let closed = spans
            .iter()
            .filter(|s| s.end == before.len())
            .min_by_key(|s| s.start);
        if let Some(c) = closed {
            let about = match c.last_child {
                Some(last) if !missing => spans.get(last).unwrap_or(c),
                _ => c,
            };
            return about.path.clone();
        }
    }
    let ws_after = |end: usize| {
        text.get(end..).map_or(0, |rest| {
            rest.len() - rest.trim_start_matches(is_ws_char).len()
        })
    };
    spans
        .iter()
        .filter(|s| s.start <= at && at <= s.end + ws_after(s.end))
        .max_by_key(|s| s.start)
        .map(|s| s.path.clone())
        .unwrap_or_default()
}

fn is_ws_char(c: char) -> bool {
    u8::try_from(c).is_ok_and(is_ws)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn paths_of_positions() {
        let text = r#"{"a": [1, {"b": "x", "c": {}}], "d": null}"#;
        let at = |needle: &str| text.find(needle).unwrap();
        // Just after a scalar, or in the whitespace after it: that value.
        assert_eq!(path_at(text, at("1,") + 1, false), "a[0]");
        assert_eq!(path_at(text, at(r#""x""#) + 3, false), "a[1].b");
        assert_eq!(path_at(text, at("null") + 4, false), "d");
        // At the start of a container: that container.
        assert_eq!(path_at(text, at("[1"), false), "a");
        assert_eq!(path_at(text, at("{}"), false), "a[1].c");
        // Just after a closing bracket: its last member, or itself for a missing field.
        let after = at("}}]") + 2;
        assert_eq!(path_at(text, after, false), "a[1].c");
        assert_eq!(path_at(text, after, true), "a[1]");
        assert_eq!(path_at(text, text.len(), true), "");
        assert_eq!(path_at(text, text.len(), false), "d");
    }

    #[test]
    fn keys_with_escapes_and_lines() {
        let text = "{\n  \"k\\\"y\": \"v}\",\n  \"n\": 5\n}";
        assert_eq!(offset(text, 3, 8), text.find('5').unwrap() + 1);
        assert_eq!(path_at(text, offset(text, 3, 8), false), "n");
        assert_eq!(
            path_at(text, text.find("\",").unwrap() + 1, false),
            "k\\\"y"
        );
        assert_eq!(offset("abc", 1, 2), 2);
    }
}
