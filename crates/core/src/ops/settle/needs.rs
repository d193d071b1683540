//! What a movement needs of the chain, for judging its revert (`receipt`) and for holding it
//! back (`hold`): the tokens whose balances it spends ([`needs`](needs())), and whether an older
//! movement of one of them is still open, so the revert may have been for want of what that
//! one brings (a swap right after the test-USDC mint that funds it, a launch's pool opening
//! behind a buyer's USDC on its way to the treasury): then it goes again rather than being
//! refused.

use super::intents::intent;
use crate::error::Result;
use crate::model::ids::TokenAddress;
use crate::model::intent::{Action, Intent};
use crate::model::settlement::ChainTx;
use crate::model::token::on_chain;
use crate::store::Store;

/// How far into the outbox `behind_open` looks (the planner's lookahead).
const OPEN_LOOKAHEAD: u32 = 5_000;

/// The intents of `tx` behind an older open movement of their token (`behind_open`).
pub(super) fn behind(store: &dyn Store, usdc: TokenAddress, tx: &ChainTx) -> Result<Vec<u64>> {
    let open = store.open_intents(OPEN_LOOKAHEAD)?;
    let mut out = Vec::new();
    for id in &tx.intents {
        let i = intent(store, *id)?;
        if older_open(usdc, &open, &i) {
            out.push(i.id);
        }
    }
    Ok(out)
}

/// The tokens whose balances on chain a movement of `own` (its intent's token) may need: its
/// own, and USDC too for a swap (a buy pays with it) and a pool's opening (it pays in the
/// USDC a presale raised). A movement that reverts for want of funds while an older movement
/// of one of them is open may have needed what that one brings (a swap right after the
/// test-USDC mint that funds it; a launch's pool opening behind a buyer's USDC on its way to
/// the treasury). `usdc` is the chain's USDC (`ChainMode::usdc`): a ledger's USDC movements
/// are of it, or of Base's address in ledgers made before USDC followed the chain, which
/// counts as the same token here.
pub fn needs(usdc: TokenAddress, own: TokenAddress, action: &Action) -> [TokenAddress; 2] {
    let own = on_chain(usdc, own);
    match action {
        Action::Swap { .. } | Action::OpenPool { .. } => [own, usdc],
        _ => [own, own],
    }
}

fn older_open(usdc: TokenAddress, open: &[Intent], i: &Intent) -> bool {
    let needs_i = needs(usdc, i.token, &i.action);
    // What an older movement moves is what it needs: a swap moves USDC as well as its token
    // (a sell brings its holder the USDC a buy behind it may spend).
    open.iter().take_while(|o| o.id < i.id).any(|o| {
        needs(usdc, o.token, &o.action)
            .iter()
            .any(|t| needs_i.contains(t))
    })
}

/// Whether an older movement of a token `i` needs (its own; USDC for a swap) is still open
/// (queued or sent); a swap and a pool's opening move USDC too.
pub(super) fn behind_open(store: &dyn Store, usdc: TokenAddress, i: &Intent) -> Result<bool> {
    Ok(older_open(usdc, &store.open_intents(OPEN_LOOKAHEAD)?, i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::address::Address;
    use crate::model::amount::Units;
    use crate::model::intent::Account;
    use crate::model::token::USDC_ADDRESS;

    fn intent(id: u64, token: TokenAddress, action: Action) -> Intent {
        let mut i = Intent::new(token, action, 0);
        i.id = id;
        i
    }

    #[test]
    fn an_opening_is_behind_an_older_payment_of_the_chains_usdc_whichever_address_it_is_kept_under()
    {
        // A local node's or Base Sepolia's USDC: not Base's address (`USDC_ADDRESS`).
        let usdc = TokenAddress(Address([0x0c; 20]));
        let token = TokenAddress(Address([0x11; 20]));
        let pay = |id, kept_as| {
            let action = Action::Transfer {
                from: Account::Wallet(Address([3; 20])),
                to: Account::Treasury,
                amount: Units::new(10),
            };
            intent(id, kept_as, action)
        };
        let opening = intent(
            9,
            token,
            Action::OpenPool {
                tokens: Units::new(1),
                usdc: Units::new(10),
                sqrt_price_x96: "1".into(),
                tick_lower: -60,
                tick_upper: 60,
            },
        );
        assert!(older_open(usdc, &[pay(1, usdc)], &opening));
        assert!(older_open(usdc, &[pay(1, USDC_ADDRESS)], &opening));
        let other = TokenAddress(Address([0x22; 20]));
        assert!(!older_open(usdc, &[pay(1, other)], &opening));
        // Only an older one.
        assert!(!older_open(usdc, &[pay(10, usdc)], &opening));
    }
}
