//! The outside world's own transactions, each mined in a block of its own: a trader
//! swapping in a pool, a wallet sending tokens to a holder, and someone else using the
//! relayer's key (its next nonce taken).

use super::gas::Meter;
use super::{SentTx, SimChain};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;

impl SimChain {
    /// An outside trader buys `token` with `usdc` of its own (minted to it first), or sells
    /// tokens it holds, in the token's pool; mined in the current block. Refused (nothing
    /// happens) when the pool cannot fill it.
    pub fn outside_trade(
        &mut self,
        trader: Address,
        token: &TokenAddress,
        buy: bool,
        amount: u128,
    ) -> Result<(), String> {
        let token = token.address();
        if buy {
            let have = self.balance(&self.usdc, &trader);
            if have < amount {
                self.mint(self.usdc, trader, amount - have);
            }
        }
        let before = (self.state.clone(), self.logs.len());
        let tx = self.outside_hash();
        let mut gas = Meter::unlimited(100);
        match self.swap(&tx, (token, trader), (buy, true, amount), &mut gas) {
            Ok(traded) => {
                self.swap_event(&tx, token, &traded);
                self.seal();
                Ok(())
            }
            Err(e) => {
                self.state = before.0;
                self.logs.truncate(before.1);
                Err(e)
            }
        }
    }

    /// An outside wallet sends `amount` of `token` to `to` (a deposit, when `to` is a holder).
    pub fn outside_send(
        &mut self,
        token: &TokenAddress,
        from: Address,
        to: Address,
        amount: u128,
    ) -> Result<(), String> {
        let tx = self.outside_hash();
        let mut gas = Meter::unlimited(100);
        self.moved(&tx, token.address(), (from, to), amount, &mut gas)?;
        self.seal();
        Ok(())
    }
}

impl SimChain {
    /// Someone else signs with the relayer's key (it is used elsewhere) and takes its next
    /// nonce: a transfer of nothing, mined at once in a block of its own. The relayer's
    /// pending transactions of that nonce can never be mined now (the node forgets them: their
    /// nonce is too low), and every later one moves up a nonce.
    pub fn outside_nonce(&mut self) {
        let hash = self.outside_hash();
        let tx = SentTx {
            nonce: self.nonce,
            hash,
            intents: Vec::new(),
            auth_nonces: std::collections::BTreeMap::new(),
            gas_limit: super::gas::TX_BASE,
        };
        // Its movements go out again later, after newer ones that may need what they bring,
        // as if a fault had reverted them.
        for lost in self.mempool.remove(&self.nonce).unwrap_or_default() {
            for (id, token, action) in &lost.intents {
                self.send_back(*id, *token, action);
            }
        }
        // And so do those of the node dropped at that nonce (the relayer had not sent them
        // again yet).
        for lost in self.dropped.remove(&self.nonce).unwrap_or_default() {
            self.reverted_open.insert(lost);
        }
        self.execute(&tx, false);
        self.blocks.mined(self.block, tx);
        self.nonce += 1;
        self.seal();
    }
}
