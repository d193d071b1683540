//! The deployment overview page's HTML: a plain string with every dynamic value escaped,
//! no template engine, no script, readable on a phone.

use tokenpad_core::model::decimal::Decimal;
use tokenpad_core::model::deployment::{DeploymentKind, DeploymentStatus};
use tokenpad_core::model::token::Network;
use tokenpad_core::wire::deployment::DeploymentOverview;

/// Escapes text for HTML element content and double- or single-quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// An amount as text with thousands separators in its whole part: 1234567.5 -> 1,234,567.5.
pub fn amount(v: Option<&Decimal>) -> String {
    let Some(v) = v else {
        return "-".into();
    };
    let text = v.as_str().to_string();
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (text.clone(), None),
    };
    if !int.bytes().all(|b| b.is_ascii_digit()) {
        return escape(&text);
    }
    let mut grouped = String::with_capacity(int.len() + int.len() / 3);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{grouped}.{}", escape(&f)),
        None => grouped,
    }
}

fn network_label(network: Network) -> &'static str {
    match network {
        Network::Base => "Base",
        Network::BaseSepolia => "Base Sepolia (test network)",
        Network::Sepolia => "Sepolia (test network)",
        Network::Local => "a local development node",
    }
}

/// The network row: on the embedded chain, the network the token names is only a name.
fn network_row(v: &DeploymentOverview) -> String {
    let label = escape(network_label(v.network));
    if v.embedded {
        format!("{label} (as named: the service's embedded chain)")
    } else {
        label
    }
}

const STYLE: &str = "\
*{box-sizing:border-box}\
body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;background:#f5f6f8;color:#15171a}\
main{max-width:40rem;margin:0 auto;padding:1rem}\
header{margin:.5rem 0 1rem}\
.kind{margin:0;color:#5b616b;font-size:.875rem;text-transform:uppercase;letter-spacing:.04em}\
h1{margin:.25rem 0;font-size:1.5rem;line-height:1.25;overflow-wrap:anywhere}\
h2{margin:0 0 .75rem;font-size:1.125rem}\
.sym{color:#5b616b;font-weight:500}\
section{background:#fff;border:1px solid #e2e5ea;border-radius:.75rem;padding:1rem;margin:0 0 1rem}\
dl{margin:0}\
dt{color:#5b616b;font-size:.8125rem;margin-top:.75rem}\
dt:first-child{margin-top:0}\
dd{margin:.125rem 0 0;overflow-wrap:anywhere}\
code{font:.875rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}\
.status{display:inline-block;padding:.125rem .625rem;border-radius:999px;font-size:.875rem;font-weight:600}\
.status-pending{background:#fff4d6;color:#7a5300}\
.status-success{background:#dcf5e3;color:#17602f}\
.status-failed{background:#fde2e1;color:#8f1d18}\
.note{color:#5b616b;font-size:.875rem;margin:.5rem 0 0}\
.button{display:block;margin-top:1rem;padding:.75rem 1rem;border-radius:.5rem;background:#15171a;color:#fff;text-align:center;text-decoration:none;font-weight:600}\
ol{list-style:none;margin:0;padding:0}\
li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.25rem 1rem;padding:.5rem 0;border-top:1px solid #eef0f3}\
li:first-child{border-top:0}\
li code{flex:1 1 14rem;min-width:0}\
.bal{font-variant-numeric:tabular-nums;white-space:nowrap}\
footer{color:#5b616b;font-size:.8125rem;overflow-wrap:anywhere;padding:0 .25rem 1rem}\
";

fn document(title: &str, refresh: bool, body: &str) -> String {
    let refresh = if refresh {
        "<meta http-equiv=\"refresh\" content=\"5\">\n"
    } else {
        ""
    };
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"robots\" content=\"noindex\">\n{refresh}<title>{title}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
}

/// The overview page of a deployment.
pub fn page(v: &DeploymentOverview) -> String {
    let name = escape(&v.name);
    let symbol = escape(&v.symbol);
    let status = v.status.as_str();
    let kind = match v.kind {
        DeploymentKind::Airdrop => "Airdrop",
        DeploymentKind::Memecoin => "Memecoin",
    };
    let network = v.network;
    let tx = match &v.transaction_hash {
        Some(h) => format!("<code>{}</code>", escape(h)),
        None => "Not submitted".to_string(),
    };

    let mut body = String::new();
    body.push_str(&format!(
        "<header>\n<p class=\"kind\">{kind} deployment</p>\n\
         <h1>{name} <span class=\"sym\">{symbol}</span></h1>\n\
         <span class=\"status status-{status}\">{status}</span>\n</header>\n"
    ));

    body.push_str("<section>\n<h2>Token</h2>\n<dl>\n");
    let rows = [
        ("Name", name.clone()),
        ("Symbol", symbol.clone()),
        (
            "Token address",
            format!("<code>{}</code>", escape(&v.token_address.to_checksum())),
        ),
        ("Network", network_row(v)),
        (
            "Total supply",
            format!("{} {symbol}", amount(Some(&v.total_supply))),
        ),
        ("Price", format!("${} per token", amount(Some(&v.price)))),
        (
            "Status",
            format!("<span class=\"status status-{status}\">{status}</span>"),
        ),
        ("Transaction", tx),
    ];
    for (label, value) in rows {
        body.push_str(&format!("<dt>{label}</dt><dd>{value}</dd>\n"));
    }
    if let Some(e) = &v.error {
        body.push_str(&format!("<dt>Error</dt><dd>{}</dd>\n", escape(e)));
    }
    body.push_str("</dl>\n");
    match v.status {
        DeploymentStatus::Success if v.embedded => body.push_str(&format!(
            "<p class=\"note\">{symbol} exists only in this service's own ledger (its embedded \
             chain), not on {}: no exchange trades it.</p>\n",
            network_label(network)
        )),
        DeploymentStatus::Success => {
            if let Some(url) = &v.exchange_url {
                body.push_str(&format!(
                    "<a class=\"button\" href=\"{}\" rel=\"noopener noreferrer\">Trade {symbol} on Uniswap</a>\n",
                    escape(url)
                ));
                if network != Network::Base {
                    body.push_str(
                        "<p class=\"note\">Uniswap's swap page does not work as expected on a test network.</p>\n",
                    );
                }
            }
        }
        DeploymentStatus::Pending => body.push_str(
            "<p class=\"note\">The deployment transaction is being mined. This page refreshes by itself.</p>\n",
        ),
        DeploymentStatus::Failed | DeploymentStatus::Stuck => {}
    }
    body.push_str("</section>\n");

    body.push_str("<section>\n");
    if v.status == DeploymentStatus::Success {
        let holders = &v.holders;
        let count = v.holders_count;
        body.push_str(&format!("<h2>Holders ({count})</h2>\n"));
        if holders.is_empty() {
            body.push_str("<p class=\"note\">No address holds this token yet.</p>\n");
        } else {
            body.push_str("<ol>\n");
            for h in holders {
                body.push_str(&format!(
                    "<li><code>{}</code><span class=\"bal\">{} {symbol}</span></li>\n",
                    escape(&h.address.to_checksum()),
                    amount(Some(&h.balance))
                ));
            }
            body.push_str("</ol>\n");
            if count > holders.len() as u64 {
                body.push_str(&format!(
                    "<p class=\"note\">The {} largest of {count} holders.</p>\n",
                    holders.len()
                ));
            }
        }
        if let Some(l) = &v.liquidity_supply {
            body.push_str(&format!(
                "<p class=\"note\">Liquidity reserve: {} {symbol}</p>\n",
                amount(Some(l))
            ));
        }
    } else {
        body.push_str("<h2>Holders</h2>\n");
        body.push_str(
            "<p class=\"note\">Holders appear once the deployment transaction is mined.</p>\n",
        );
    }
    body.push_str("</section>\n");
    body.push_str(&format!(
        "<footer>Deployment {} &middot; created {}</footer>\n",
        escape(v.id.as_str()),
        escape(&v.created_at)
    ));
    let title = format!("{name} ({symbol}) &middot; tokenpad");
    document(&title, v.status == DeploymentStatus::Pending, &body)
}

pub fn not_found_page() -> String {
    document(
        "Deployment not found &middot; tokenpad",
        false,
        "<header>\n<h1>Deployment not found</h1>\n</header>\n<section>\n\
         <p>No deployment has this id. Check the link you were given.</p>\n</section>\n",
    )
}

pub fn error_page() -> String {
    document(
        "Something went wrong &middot; tokenpad",
        false,
        "<header>\n<h1>Something went wrong</h1>\n</header>\n<section>\n\
         <p>The page could not be shown just now. Try again in a moment.</p>\n</section>\n",
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// Page data from JSON, as the merchant object writes it.
    fn data(v: Value) -> DeploymentOverview {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape("<a href=\"x\" title='y'>&amp;</a>"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;"
        );
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
    }

    #[test]
    fn groups_thousands() {
        let n = |t: &str| Decimal::parse(t);
        assert_eq!(amount(n("0").as_ref()), "0");
        assert_eq!(amount(n("999").as_ref()), "999");
        assert_eq!(amount(n("1000").as_ref()), "1,000");
        assert_eq!(amount(n("1234567.0001").as_ref()), "1,234,567.0001");
        assert_eq!(amount(None), "-");
    }

    #[test]
    fn page_escapes_every_value_and_reads_on_a_phone() {
        let v = data(json!({
            "id": "d-1", "kind": "memecoin", "status": "success", "marketplace": false,
            "serviceBuildUrl": "https://t.example/deployments/d-1",
            "name": "<script>alert(1)</script>", "symbol": "X&Y",
            "network": "base-sepolia",
            "tokenAddress": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "totalSupply": 1000000, "price": 0.5,
            "transactionHash": "0xab", "createdAt": "2026-11-21T12:00:00.000Z",
            "exchangeUrl": "https://app.uniswap.org/swap?chain=base_sepolia&outputCurrency=0x5a",
            "holders": [{ "address": "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "balance": 2500 }],
            "holdersCount": 1, "liquiditySupply": 997500,
        }));
        let html = page(&v);
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("X&amp;Y"));
        assert!(html.contains("name=\"viewport\" content=\"width=device-width, initial-scale=1\""));
        assert!(html.contains("1,000,000 X&amp;Y"));
        assert!(html.contains("$0.5 per token"));
        assert!(html.contains("2,500 X&amp;Y"));
        assert!(html.contains("chain=base_sepolia&amp;outputCurrency=0x5a"));
        assert!(html.contains("Base Sepolia"));
        assert!(!html.contains("http-equiv=\"refresh\""));
    }

    #[test]
    fn a_token_of_the_embedded_chain_is_not_sent_to_an_exchange() {
        let v = data(json!({
            "id": "d-4", "kind": "memecoin", "status": "success", "marketplace": false,
            "serviceBuildUrl": "https://t.example/deployments/d-4", "name": "Local", "symbol": "LOC",
            "network": "base", "tokenAddress": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "totalSupply": 10, "price": 1, "transactionHash": "0xab",
            "createdAt": "2026-11-21T12:00:00.000Z", "holders": [], "holdersCount": 0,
            "exchangeUrl": "https://app.uniswap.org/swap?chain=base&outputCurrency=0x5a",
        }))
        .on_embedded_chain();
        let html = page(&v);
        assert!(!html.contains("Uniswap") && !html.contains("app.uniswap.org"));
        assert!(html.contains("exists only in this service's own ledger"));
        assert!(html.contains("Base (as named: the service's embedded chain)"));
    }

    #[test]
    fn pending_and_failed_pages() {
        let pending = page(&data(json!({
            "id": "d-2", "kind": "airdrop", "status": "pending", "name": "Drop", "symbol": "DROP",
            "network": "base", "tokenAddress": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "totalSupply": 10, "price": 1, "transactionHash": "0xab", "holders": [], "holdersCount": 0,
            "marketplace": false, "createdAt": "2026-11-21T12:00:00.000Z",
            "serviceBuildUrl": "https://t.example/deployments/d-2",
        })));
        assert!(pending.contains(">pending<"));
        assert!(pending.contains("http-equiv=\"refresh\""));
        assert!(pending.contains("Airdrop deployment"));
        assert!(!pending.contains("Uniswap"));
        let failed = page(&data(json!({
            "id": "d-3", "status": "failed", "name": "F", "symbol": "F", "network": "base",
            "tokenAddress": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "error": "reverted <x>",
            "kind": "memecoin", "totalSupply": 1, "price": 1, "marketplace": false,
            "transactionHash": null, "createdAt": "2026-11-21T12:00:00.000Z",
            "serviceBuildUrl": "https://t.example/deployments/d-3", "holders": [], "holdersCount": 0,
        })));
        assert!(failed.contains(">failed<"));
        assert!(failed.contains("reverted &lt;x&gt;"));
        assert!(failed.contains("Not submitted"));
        assert!(not_found_page().contains("Deployment not found"));
    }
}
