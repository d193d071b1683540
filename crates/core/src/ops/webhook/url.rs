//! Which URLs a webhook may call. Parsed as `fetch` parses them (WHATWG, the `url` crate), so
//! the host checked is the host called: `http://2130706433/` is 127.0.0.1 to both.
//!
//! Only http and https, with a host, without credentials (`user:pass@` would be shown in
//! every listing), at most 2048 bytes. Unless private URLs are allowed (a flag local runs and
//! tests turn on), hosts that name this machine or a private network are refused: loopback,
//! private, link-local, shared (CGNAT), unspecified, multicast and reserved addresses, and
//! the names `localhost`, `*.localhost`, `*.local`, `*.internal`, `*.home.arpa`. A public
//! name that resolves to a private address is not caught here; on Cloudflare a Worker's
//! `fetch` cannot reach private networks.

use crate::error::{Error, ErrorCode, Result};
use std::net::{Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

pub const MAX_URL: usize = 2048;

fn bad(why: &str) -> Error {
    Error::new(ErrorCode::InvalidRequest, why.to_string()).at_field("url")
}

/// The URL as it will be called (normalized, without a fragment), or why it may not be.
pub fn check_url(text: &str, allow_private: bool) -> Result<String> {
    if text.len() > MAX_URL {
        return Err(bad(&format!("must be at most {MAX_URL} bytes")));
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("must not contain spaces or control characters"));
    }
    let mut url = Url::parse(text).map_err(|_| bad("must be an absolute http(s) URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("must be an http(s) URL"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("must not carry credentials (user:password@)"));
    }
    let host = url.host().ok_or_else(|| bad("must have a host"))?;
    if !allow_private && private(&host) {
        return Err(Error::new(
            ErrorCode::UrlNotAllowed,
            "url points at this machine or a private network: webhooks call public addresses only",
        )
        .with("field", "url"));
    }
    url.set_fragment(None);
    Ok(url.into())
}

fn private(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost"
                || [".localhost", ".local", ".internal", ".home.arpa"]
                    .iter()
                    .any(|s| d.ends_with(s))
        }
        Host::Ipv4(ip) => private_v4(*ip),
        Host::Ipv6(ip) => private_v6(*ip),
    }
}

fn private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || a >= 240
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0)
        || (a == 198 && (b == 18 || b == 19))
}

fn private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return private_v4(v4);
    }
    let first = ip.segments().first().copied().unwrap_or(0);
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || first == 0x2001 && ip.segments().get(1) == Some(&0x0db8)
        || ip.segments().get(..6) == Some(&[0x64, 0xff9b, 0, 0, 0, 0])
        || ip.segments().get(..6) == Some(&[0, 0, 0, 0, 0, 0])
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn public_http_urls_pass_normalized() {
        assert_eq!(
            check_url("HTTPS://Example.com/hooks?a=1#frag", false).unwrap(),
            "https://example.com/hooks?a=1"
        );
        assert_eq!(
            check_url("http://8.8.8.8:8080/x", false).unwrap(),
            "http://8.8.8.8:8080/x"
        );
        assert!(check_url("https://[2606:4700::1111]/", false).is_ok());
    }

    #[test]
    fn malformed_urls_are_invalid_requests() {
        for bad in [
            "",
            "example.com/hook",
            "ftp://example.com/",
            "javascript:alert(1)",
            "https://user:pw@example.com/",
            "https://exa mple.com/",
            "https://example.com/\n",
        ] {
            let e = check_url(bad, false).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidRequest, "{bad}");
            assert_eq!(e.details.unwrap()["field"], "url");
        }
        assert!(check_url(&format!("https://a.com/{}", "x".repeat(2048)), true).is_err());
    }

    #[test]
    fn private_and_loopback_hosts_are_refused_unless_allowed() {
        for private in [
            "http://localhost:8080/",
            "http://LOCALHOST./",
            "http://api.localhost/",
            "http://printer.local/",
            "http://metadata.google.internal/",
            "http://127.0.0.1/",
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0.0.0.0/",
            "http://10.1.2.3/",
            "http://172.16.0.1/",
            "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data",
            "http://100.64.0.1/",
            "http://[::1]/",
            "http://[::]/",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:10.0.0.1]/",
            "http://224.0.0.1/",
            "http://255.255.255.255/",
        ] {
            let e = check_url(private, false).unwrap_err();
            assert_eq!(e.code, ErrorCode::UrlNotAllowed, "{private}");
            assert!(
                check_url(private, true).is_ok(),
                "{private} allowed by the flag"
            );
        }
    }
}
