//! Editing openapi.json as text. This crate's serde_json keeps an object's keys sorted (its
//! `preserve_order` feature would reach the worker's wasm through feature unification), while
//! the document's keys are in the order people wrote them: so what codegen adds is written
//! into the text itself, laid out as `JSON.stringify(doc, null, 2)` lays it out, and every
//! other byte is kept.

use serde::Serialize;
use serde_json::Value;

/// As `JSON.stringify(value, null, 2)` (an object's keys in serde_json's order, sorted: where
/// the order is read, [`object`] writes them in the order given).
pub fn pretty(value: &Value) -> Result<String, String> {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"  ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    value.serialize(&mut ser).map_err(|e| e.to_string())?;
    String::from_utf8(buf).map_err(|e| e.to_string())
}

/// `text` (a value laid out at the left margin) laid out `indent` spaces further in, after its
/// first line.
fn indented(text: &str, indent: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(indent)))
}

fn quoted(key: &str) -> Result<String, String> {
    serde_json::to_string(key).map_err(|e| e.to_string())
}

/// An object with its members in the order given, each value the text of a value laid out at
/// the left margin ([`pretty`], or another [`object`] or [`array`]).
pub fn object(members: &[(&str, String)]) -> Result<String, String> {
    if members.is_empty() {
        return Ok("{}".to_string());
    }
    let mut out = String::from("{\n");
    for (i, (key, value)) in members.iter().enumerate() {
        out.push_str(&format!("  {}: {}", quoted(key)?, indented(value, 2)));
        out.push_str(if i + 1 < members.len() { ",\n" } else { "\n" });
    }
    out.push('}');
    Ok(out)
}

/// An array of values given as text laid out at the left margin.
pub fn array(items: &[String]) -> String {
    if items.is_empty() {
        return "[]".to_string();
    }
    let items: Vec<String> = items
        .iter()
        .map(|v| format!("  {}", indented(v, 2)))
        .collect();
    format!("[\n{}\n]", items.join(",\n"))
}

/// One member of an object in a JSON text: its key, and the byte offsets where the member (its
/// key's quote) starts and where its value starts and ends.
#[derive(Debug)]
pub struct Member {
    pub key: String,
    pub start: usize,
    pub value: usize,
    pub end: usize,
}

/// An object in a JSON text: the offsets of its braces, and its members in the text's order.
#[derive(Debug)]
pub struct Object {
    pub open: usize,
    pub close: usize,
    pub members: Vec<Member>,
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        i += 1;
    }
    i
}

/// The offset just past the string whose quote is at `i`.
fn string_end(b: &[u8], i: usize) -> Result<usize, String> {
    let mut j = i + 1;
    loop {
        match b.get(j) {
            Some(b'"') => return Ok(j + 1),
            Some(b'\\') => j += 2,
            Some(_) => j += 1,
            None => return Err(format!("the string at byte {i} does not end")),
        }
    }
}

/// The offset just past the value that starts at `i`.
fn value_end(b: &[u8], i: usize) -> Result<usize, String> {
    match b.get(i) {
        Some(b'"') => string_end(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j) {
                    Some(b'"') => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    Some(b'{' | b'[') => depth += 1,
                    Some(b'}' | b']') => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Ok(j + 1);
                        }
                    }
                    Some(_) => {}
                    None => return Err(format!("the value at byte {i} does not end")),
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while !matches!(
                b.get(j),
                None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
            ) {
                j += 1;
            }
            if j == i {
                return Err(format!("no value at byte {i}"));
            }
            Ok(j)
        }
    }
}

impl Object {
    /// The object whose `{` is at `open`.
    pub fn at(text: &str, open: usize) -> Result<Object, String> {
        let b = text.as_bytes();
        if b.get(open) != Some(&b'{') {
            return Err(format!("no object at byte {open}"));
        }
        let mut i = skip_ws(b, open + 1);
        let mut members = Vec::new();
        if b.get(i) == Some(&b'}') {
            return Ok(Object {
                open,
                close: i,
                members,
            });
        }
        loop {
            if b.get(i) != Some(&b'"') {
                return Err(format!("a key expected at byte {i}"));
            }
            let key_end = string_end(b, i)?;
            let key = text
                .get(i..key_end)
                .ok_or_else(|| format!("the key at byte {i} is cut"))?;
            let key: String = serde_json::from_str(key).map_err(|e| e.to_string())?;
            let colon = skip_ws(b, key_end);
            if b.get(colon) != Some(&b':') {
                return Err(format!("a colon expected at byte {colon}"));
            }
            let value = skip_ws(b, colon + 1);
            let end = value_end(b, value)?;
            members.push(Member {
                key,
                start: i,
                value,
                end,
            });
            let next = skip_ws(b, end);
            match b.get(next) {
                Some(b',') => i = skip_ws(b, next + 1),
                Some(b'}') => {
                    return Ok(Object {
                        open,
                        close: next,
                        members,
                    })
                }
                _ => return Err(format!("a comma or a brace expected at byte {next}")),
            }
        }
    }

    /// The whole text's object.
    pub fn root(text: &str) -> Result<Object, String> {
        Object::at(text, skip_ws(text.as_bytes(), 0))
    }

    pub fn member(&self, key: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.key == key)
    }

    /// The object that is member `key`'s value, if there is that member.
    pub fn child(&self, text: &str, key: &str) -> Result<Option<Object>, String> {
        self.member(key)
            .map(|m| Object::at(text, m.value))
            .transpose()
    }
}

/// `text` with the member `"key": value` added to `obj`, whose members are laid out `indent`
/// spaces in: before the member `before` when `obj` has it, else after its last member.
/// `value` is the text of a value laid out at the left margin.
pub fn insert(
    text: &str,
    obj: &Object,
    indent: usize,
    key: &str,
    value: &str,
    before: Option<&str>,
) -> Result<String, String> {
    let pad = " ".repeat(indent);
    let member = format!("{}: {}", quoted(key)?, indented(value, indent));
    let (at, piece, resume) = match (before.and_then(|k| obj.member(k)), obj.members.last()) {
        (Some(next), _) => (next.start, format!("{member},\n{pad}"), next.start),
        (None, Some(last)) => (last.end, format!(",\n{pad}{member}"), last.end),
        (None, None) => {
            let outer = " ".repeat(indent.saturating_sub(2));
            (
                obj.open,
                format!("{{\n{pad}{member}\n{outer}}}"),
                obj.close + 1,
            )
        }
    };
    let head = text.get(..at).ok_or("insert: out of the text")?;
    let tail = text.get(resume..).ok_or("insert: out of the text")?;
    Ok(format!("{head}{piece}{tail}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn members_are_found_with_their_offsets() {
        let text = "{\n  \"a\": {\"x\": \"}\\\"\"},\n  \"b\": [1, {}],\n  \"c\": -1.5e3\n}\n";
        let obj = Object::root(text).unwrap();
        let keys: Vec<&str> = obj.members.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c"]);
        let c = obj.member("c").unwrap();
        assert_eq!(&text[c.value..c.end], "-1.5e3");
        let a = obj.child(text, "a").unwrap().unwrap();
        assert_eq!(
            a.member("x").map(|m| &text[m.value..m.end]),
            Some("\"}\\\"\"")
        );
        assert_eq!(&text[obj.close..], "}\n");
    }

    #[test]
    fn insert_lays_out_as_json_stringify() {
        let text = "{\n  \"a\": 1,\n  \"c\": {}\n}\n";
        let obj = Object::root(text).unwrap();
        let b = object(&[("y", "[]".into()), ("x", array(&["1".into(), "{}".into()]))]).unwrap();
        let text = insert(text, &obj, 2, "b", &b, Some("c")).unwrap();
        assert_eq!(
            text,
            "{\n  \"a\": 1,\n  \"b\": {\n    \"y\": [],\n    \"x\": [\n      1,\n      {}\n    ]\n  },\n  \"c\": {}\n}\n"
        );
        let obj = Object::root(&text).unwrap();
        let c = obj.child(&text, "c").unwrap().unwrap();
        let text = insert(&text, &c, 4, "d", "true", None).unwrap();
        let obj = Object::root(&text).unwrap();
        let text = insert(&text, &obj, 2, "e", "2", None).unwrap();
        assert!(text.ends_with("  \"c\": {\n    \"d\": true\n  },\n  \"e\": 2\n}\n"));
    }
}
