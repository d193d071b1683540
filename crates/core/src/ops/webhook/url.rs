//! Which URLs a webhook may call. Parsed as `fetch` parses them (WHATWG, the `url` crate), so
//! the host checked is the host called: `http://2130706433/` is 127.0.0.1 to both.
//!
//! Only http and https, with a host, without credentials (`user:pass@` would be shown in
//! every listing), at most 2048 bytes. Unless private URLs are allowed (a flag local runs and
//! tests turn on), hosts that name this machine or a private network are refused: loopback,
//! private, link-local, shared (CGNAT), unspecified, multicast and reserved addresses, and
//! the names `localhost`, `*.localhost`, `*.local`, `*.internal`, `*.home.arpa`; an IPv6
//! address is read for the IPv4 address it embeds in any of its forms (see `private_v6`). A public
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
    let mut url = Url::parse(text).map_err(|_| {
        // The Worker has no Unicode tables to map an internationalized host name (UTS 46)
        // as fetch would (`idna_adapter` in crates/core/Cargo.toml): its ASCII form is asked.
        if text.is_ascii() {
            bad("must be an absolute http(s) URL")
        } else {
            bad("must be an absolute http(s) URL with an ASCII host: write an internationalized domain name in its ASCII form (xn--...)")
        }
    })?;
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

/// Whether an IPv6 address names this machine or a private network, directly or through an
/// IPv4 address it embeds. Every form that reaches an IPv4 address is read for it: mapped
/// (`::ffff:a.b.c.d`), SIIT-translated (`::ffff:0:a.b.c.d`), compatible (`::a.b.c.d`), NAT64
/// (`64:ff9b::/96`, and the local-use `64:ff9b:1::/48` whole), 6to4 (`2002:AABB:CCDD::`)
/// and Teredo (`2001:0::/32`: its server and its client, whose address is stored inverted).
/// Deprecated site-local (`fec0::/10`), unique-local, link-local, loopback, unspecified,
/// multicast, discard-only (`100::/64`), benchmarking, ORCHID and documentation ranges are
/// refused too.
fn private_v6(ip: Ipv6Addr) -> bool {
    let [a, b, c, d, e, f, g, h] = ip.segments();
    let v4 = |hi: u16, lo: u16| {
        let [w, x] = hi.to_be_bytes();
        let [y, z] = lo.to_be_bytes();
        Ipv4Addr::new(w, x, y, z)
    };
    if let Some(mapped) = ip.to_ipv4_mapped() {
        return private_v4(mapped);
    }
    // ::/96 (unspecified, loopback, IPv4-compatible) and ::ffff:0:0/96 (SIIT): never public.
    if [a, b, c, d, e, f] == [0; 6] || [a, b, c, d, e, f] == [0, 0, 0, 0, 0xffff, 0] {
        return true;
    }
    match a {
        // NAT64: the well-known prefix and the local-use one.
        0x0064 if b == 0xff9b => return true,
        // Discard-only.
        0x0100 if [b, c, d] == [0; 3] => return true,
        0x2001 => {
            // Teredo: server IPv4 in bits 32..64, client IPv4 inverted in the last 32.
            if b == 0 {
                return private_v4(v4(c, d)) || private_v4(v4(!g, !h));
            }
            // Benchmarking, ORCHID (v1, v2), documentation.
            if b == 0x0002 && c == 0 || (b & 0xfff0) == 0x0010 || (b & 0xfff0) == 0x0020 {
                return true;
            }
            if b == 0x0db8 {
                return true;
            }
        }
        // 6to4: the IPv4 address in bits 16..48.
        0x2002 => return private_v4(v4(b, c)),
        // Documentation (RFC 9637).
        0x3fff if (b & 0xf000) == 0 => return true,
        _ => {}
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        // Unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10 (deprecated).
        || (a & 0xfe00) == 0xfc00
        || (a & 0xffc0) == 0xfe80
        || (a & 0xffc0) == 0xfec0
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
        // Public IPv4 addresses in 6to4 and Teredo forms are public still.
        assert!(check_url("https://[2002:808:808::1]/", false).is_ok());
        assert!(check_url("https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/", false).is_ok());
        assert!(check_url("https://[2a00:1450::1]/", false).is_ok());
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
    fn internationalized_host_names_are_asked_in_their_ascii_form() {
        // No Unicode tables in the Worker (idna_adapter 1.0): a non-ASCII host is refused with
        // what to send instead, and its ASCII (punycode) form is called as written.
        for idn in [
            "https://bücher.example/hook",
            "https://例え.jp/hook",
            "https://ｌｏｃａｌｈｏｓｔ/",
        ] {
            let e = check_url(idn, true).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidRequest, "{idn}");
            assert!(e.message.contains("xn--"), "{idn}: {}", e.message);
        }
        assert_eq!(
            check_url("https://xn--bcher-kva.example/hook", false).unwrap(),
            "https://xn--bcher-kva.example/hook"
        );
        // Non-ASCII in the path is percent-encoded, as fetch sends it.
        assert_eq!(
            check_url("https://example.com/hoök", false).unwrap(),
            "https://example.com/ho%C3%B6k"
        );
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
            // Every IPv6 form of a private IPv4 address, and IPv6's own private ranges.
            "http://[::ffff:0:7f00:1]/",
            "http://[::ffff:0:a00:1]/",
            "http://[::7f00:1]/",
            "http://[::ffff:7f00:1]/",
            "http://[64:ff9b::7f00:1]/",
            "http://[64:ff9b::808:808]/",
            "http://[64:ff9b:1::7f00:1]/",
            "http://[64:ff9b:1::808:808]/",
            "http://[2002:7f00:1::]/",
            "http://[2002:a00:1::1]/",
            "http://[2002:c0a8:101::]/",
            // Teredo: server 65.54.227.120, client 127.0.0.1 stored inverted (80ff:fffe).
            "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
            // Teredo: a private server.
            "http://[2001:0:a00:1::1]/",
            "http://[fec0::1]/",
            "http://[FEC0:1::1]/",
            "http://[feff::1]/",
            "http://[fc00::1]/",
            "http://[febf::1]/",
            "http://[100::1]/",
            "http://[2001:2::1]/",
            "http://[2001:10::1]/",
            "http://[2001:db8::1]/",
            "http://[3fff::1]/",
            "http://[::]/",
            "http://[::1]/",
            "http://[ff02::1]/",
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
