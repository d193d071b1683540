//! Reading a source file as Rust's tokens (proc-macro2's tokenizer, so text in strings and
//! comments is never taken for code): the module paths it names.

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
pub fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        return vec![path.to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::").trim();
    let close = tree.rfind('}').filter(|&c| c > open).unwrap_or(tree.len());
    let inner = &tree[open + 1..close];
    // Split the inner list at top-level commas.
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| {
            if p == "self" {
                prefix.to_string()
            } else {
                format!("{prefix}::{p}")
            }
        })
        .collect()
}

/// Every path a file's `use` items name (`crate::`, `super::`, `self::`, a child module's name,
/// or another crate's, which [`resolve`] drops) and every `crate::`, `super::` or `self::` path
/// its code writes inline. A file that does not tokenize is an error (rustc would refuse it
/// too).
pub fn paths(text: &str) -> Result<Vec<String>, String> {
    let tokens: TokenStream = text.parse().map_err(|e| format!("{e:?}"))?;
    let mut out = Vec::new();
    walk(tokens, &mut out);
    Ok(out)
}

/// Reads one level of tokens (and every group in it): `use` trees, inline `crate::` paths,
/// items under `#[cfg(test)]` skipped.
fn walk(tokens: TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while let Some(t) = tokens.get(i) {
        match t {
            TokenTree::Punct(p) if p.as_char() == '#' && is_cfg_test(tokens.get(i + 1)) => {
                // The attribute, then its item: up to its body or its `;`.
                i += 2;
                while let Some(t) = tokens.get(i) {
                    i += 1;
                    match t {
                        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
                        TokenTree::Punct(p) if p.as_char() == ';' => break,
                        _ => {}
                    }
                }
            }
            TokenTree::Ident(id) if id == "use" => {
                let end = (i + 1..tokens.len())
                    .find(|&j| matches!(&tokens[j], TokenTree::Punct(p) if p.as_char() == ';'))
                    .unwrap_or(tokens.len());
                out.extend(expand(&text_of(&tokens[i + 1..end])));
                i = end + 1;
            }
            TokenTree::Punct(p) if p.as_char() == '#' => {
                // An attribute: paths it names in strings are code too (`schemars(with =
                // "crate::schema::TxHash")` is a path the derive writes out), but a
                // doc comment (`#[doc = "..."]` to the tokenizer) is prose.
                if let Some(TokenTree::Group(g)) = tokens.get(i + 1) {
                    let doc = matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "doc");
                    if !doc {
                        literal_paths(g.stream(), out);
                    }
                }
                i += 1;
            }
            TokenTree::Ident(id) if id == "crate" || id == "super" || id == "self" => {
                // `crate`, `super` or `self` followed by `::name` pairs (alone, as in
                // `pub(crate)`, `pub(super)` or a method's `self`, it names no module).
                let mut path = id.to_string();
                let mut j = i + 1;
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(n)),
                ) = (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
                {
                    if a.as_char() != ':' || b.as_char() != ':' {
                        break;
                    }
                    path.push_str("::");
                    path.push_str(&n.to_string());
                    j += 3;
                }
                if j > i + 1 {
                    out.push(path);
                }
                i = j;
            }
            TokenTree::Group(g) => {
                walk(g.stream(), out);
                i += 1;
            }
            _ => i += 1,
        }
    }
}

/// The `crate::` paths written inside the string literals among `tokens`.
fn literal_paths(tokens: TokenStream, out: &mut Vec<String>) {
    for t in tokens {
        match t {
            TokenTree::Group(g) => literal_paths(g.stream(), out),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                for (start, _) in text.match_indices("crate::") {
                    let path: String = text[start..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                        .collect();
                    out.push(path.trim_end_matches(':').to_string());
                }
            }
            _ => {}
        }
    }
}

/// Whether a token is the bracket group of `#[cfg(test)]`.
fn is_cfg_test(t: Option<&TokenTree>) -> bool {
    matches!(t, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket
        && g.stream().to_string().replace(' ', "") == "cfg(test)")
}

/// A use tree's tokens as text: `a::{b, c as d}` (words apart, punctuation together).
fn text_of(tokens: &[TokenTree]) -> String {
    let mut text = String::new();
    let mut last_word = false;
    for t in tokens {
        match t {
            TokenTree::Ident(id) => {
                if last_word {
                    text.push(' ');
                }
                text.push_str(&id.to_string());
                last_word = true;
            }
            TokenTree::Punct(p) => {
                text.push(p.as_char());
                last_word = false;
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let (open, close) = match g.delimiter() {
                    Delimiter::Brace => ('{', '}'),
                    Delimiter::Parenthesis => ('(', ')'),
                    Delimiter::Bracket => ('[', ']'),
                    Delimiter::None => (' ', ' '),
                };
                text.push(open);
                text.push_str(&text_of(&inner));
                text.push(close);
                last_word = false;
            }
            TokenTree::Literal(l) => {
                text.push_str(&l.to_string());
                last_word = false;
            }
        }
    }
    text
}
