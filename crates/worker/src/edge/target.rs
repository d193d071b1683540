//! The request's URL: its origin, path and query, split from the URL as the runtime already
//! serialized it (a WHATWG URL: an ASCII host, a path that starts with `/`, no fragment on a
//! request), with no second parse. Parsing it again with the `url` crate cost a few percent
//! of every request (its host parser and IDNA tables), for parts the runtime has already
//! checked. Query pairs are decoded by `form_urlencoded`, the parser behind
//! `url::Url::query_pairs`, so they read exactly as they did.

use std::borrow::Cow;

pub struct Target {
    origin: String,
    path: String,
    query: String,
}

impl Target {
    pub fn of(req: &super::incoming::Incoming) -> Target {
        Target::parse(&req.url())
    }

    /// Splits a serialized URL: `scheme://host[:port]`, then the path, then after `?` the
    /// query (what follows a `#` is dropped).
    pub fn parse(url: &str) -> Target {
        let url = url.split('#').next().unwrap_or_default();
        let host_start = url.find("://").map_or(0, |i| i + 3);
        let path_start = url[host_start..]
            .find(['/', '?'])
            .map_or(url.len(), |i| host_start + i);
        let (origin, rest) = url.split_at(path_start);
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        Target {
            origin: origin.to_string(),
            path: if path.is_empty() { "/" } else { path }.to_string(),
            query: query.to_string(),
        }
    }

    /// `scheme://host[:port]`, no trailing slash.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The path as sent (percent-encoded), from its leading `/`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The query string without its `?` (empty when there is none).
    pub fn query(&self) -> &str {
        &self.query
    }

    /// The query's name/value pairs, percent- and `+`-decoded, in order.
    pub fn query_pairs(&self) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, str>)> {
        form_urlencoded::parse(self.query.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::Target;

    #[test]
    fn splits_what_the_runtime_serialized() {
        let cases = [
            // url, origin, path, query
            (
                "http://127.0.0.1:8787/holder/h0?publicKey=pk_1",
                "http://127.0.0.1:8787",
                "/holder/h0",
                "publicKey=pk_1",
            ),
            (
                "https://api.example.com/",
                "https://api.example.com",
                "/",
                "",
            ),
            (
                "https://api.example.com",
                "https://api.example.com",
                "/",
                "",
            ),
            (
                "https://api.example.com?x=1",
                "https://api.example.com",
                "/",
                "x=1",
            ),
            (
                "https://a.example/p%2Fq?a=1&b=%20c#frag",
                "https://a.example",
                "/p%2Fq",
                "a=1&b=%20c",
            ),
            ("https://a.example/p?", "https://a.example", "/p", ""),
            (
                "https://a.example/p?q=a?b",
                "https://a.example",
                "/p",
                "q=a?b",
            ),
        ];
        for (url, origin, path, query) in cases {
            let t = Target::parse(url);
            assert_eq!(
                (t.origin(), t.path(), t.query()),
                (origin, path, query),
                "{url}"
            );
        }
    }

    #[test]
    fn query_pairs_decode_like_the_url_crate() {
        let t = Target::parse("https://a.example/p?publicKey=pk%5F1&x=a+b&x=2&empty=&flag");
        let pairs: Vec<(String, String)> = t
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let want = [
            ("publicKey", "pk_1"),
            ("x", "a b"),
            ("x", "2"),
            ("empty", ""),
            ("flag", ""),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(pairs, want);
    }
}
