//! The settler: drains the merchant's outbox onto the chain, from the merchant object's alarm.
//!
//! The round itself (follow, watch, send, scan: what to send, when, with how much gas, what a
//! receipt or a refusal means) is the core's (`ops::settle::round`), which the simulator runs
//! too. This is its adapter on a real chain: the ports over JSON-RPC (`chain.rs`, with
//! `receipts.rs` and `deposits.rs`), the ledger's SQLite transactions, and what only the EVM
//! knows: a batch's calldata and holders' signatures (`build.rs`), the relayer's signature.

use super::build::Builder;
use super::config::Evm;
use super::rpc::{Fail, Rpc};
use crate::adapters::sql::{SqlStore, Watch};
use crate::adapters::txn::transaction;
use crate::adapters::wallet::WalletMaker;
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::ops::settle::plan::Batch;
use tokenpad_core::ops::settle::round::port::{
    self as port, Ledger, Payload, Signed, Signer, Step, Stop, Unsigned,
};
use tokenpad_core::ops::settle::round::{Config, Report, Round};
use tokenpad_core::ops::Ctx;
use tokenpad_core::store::Store;
use tokenpad_core::wire::chain::redact_secret;
use tokenpad_core::{Error, Result};
use tokenpad_evm::rpc as r;
use tokenpad_evm::tx;

pub struct Settler<'a> {
    pub storage: worker::Storage,
    /// What the object keeps in memory: this round's writes raise its flags.
    pub watch: Watch,
    pub evm: &'a Evm,
    pub wallets: WalletMaker,
    pub ctx: Ctx,
    /// Scan for deposits this round.
    pub scan: bool,
    /// The base URL events render links with (`wire::event::seal`).
    pub base_url: String,
}

/// The round's ports over one settler and its node.
pub(super) struct Port<'a> {
    pub settler: &'a Settler<'a>,
    pub rpc: Rpc<'a>,
}

impl Settler<'_> {
    pub(super) fn store(&self) -> SqlStore {
        SqlStore::new(self.storage.sql()).watching(self.watch.clone())
    }

    pub(super) fn builder<'s>(&'s self, store: &'s SqlStore) -> Builder<'s> {
        Builder {
            evm: self.evm,
            merchant: &self.ctx.merchant,
            wallets: self.wallets,
            store,
        }
    }

    pub(super) fn relayer_address(&self) -> [u8; 20] {
        self.ctx.merchant.address.0
    }

    /// One round (`ops::settle::round`). Errors from the chain are recorded (the relayer's
    /// `error`, shown by the admin chain route and logged) and retried next round; the
    /// ledger's are returned, and so is a stop between signing and sending (an injected
    /// fault).
    pub async fn run(&self) -> Result<Report> {
        let port = Port {
            settler: self,
            rpc: Rpc::new(self.evm.rpc.as_str(), self.evm.rpc_timeout_ms),
        };
        let round = Round {
            chain: &port,
            signer: &port,
            ledger: &port,
            ctx: self.ctx.clone(),
            config: Config {
                chain_id: self.evm.chain.chain_id,
                per_batch: self.evm.batch,
                replace_after_ms: self.evm.replace_after_ms,
                poll_ms: self.evm.poll_ms,
                scan_ms: self.evm.scan_ms,
                confirmations: self.evm.confirmations,
                scan: self.scan,
            },
        };
        let report = round.run().await?;
        match report.halted {
            Some(why) => Err(Error::internal(why)),
            None => Ok(report),
        }
    }
}

impl Port<'_> {
    /// A failed call, as the round sees it: what a node said may name the endpoint's key,
    /// never kept, logged or shown.
    pub(super) fn fail(&self, f: Fail) -> Stop {
        let why = redact_secret(&f.to_string(), self.settler.evm.rpc.as_str());
        Stop::Node(match f {
            Fail::Transport(_) => port::Fail::Unreachable(why),
            Fail::Node(_) => port::Fail::Failing(why),
        })
    }

    pub(super) async fn call(&self, request: serde_json::Value) -> Step<serde_json::Value> {
        self.rpc.call(request).await.map_err(|f| self.fail(f))
    }

    pub(super) async fn batch(
        &self,
        requests: Vec<serde_json::Value>,
    ) -> Step<Vec<std::result::Result<serde_json::Value, r::RpcError>>> {
        self.rpc.batch(requests).await.map_err(|f| self.fail(f))
    }
}

/// What the EVM crate could not read or make, as the round sees it: the ledger's error.
pub(super) fn evm(e: tokenpad_evm::Error) -> Stop {
    Stop::Ledger(Error::internal(format!("settlement: {e}")))
}

impl Ledger for Port<'_> {
    fn read<T>(&self, f: impl FnOnce(&dyn Store) -> Result<T>) -> Result<T> {
        f(&self.settler.store())
    }

    fn commit<T: 'static>(
        &self,
        f: impl FnOnce(&mut dyn Store) -> Result<T> + 'static,
    ) -> Result<T> {
        let s = self.settler;
        let mut store = s.store();
        let base = s.base_url.clone();
        transaction(&s.storage, &s.watch, move || {
            let out = f(&mut store)?;
            // What the ledger wrote as it settled (transaction.confirmed, a job's token...),
            // its events rendered in the same transaction.
            tokenpad_core::wire::event::seal(&mut store, &base)?;
            Ok(out)
        })
    }
}

impl Signer for Port<'_> {
    fn batchable(&self, token: &TokenAddress) -> bool {
        !self.settler.evm.is_usdc(&token.address())
    }

    fn build(&self, batch: &Batch) -> Result<Payload> {
        let store = self.settler.store();
        let built = self.settler.builder(&store).build(batch)?;
        Ok(Payload {
            to: Address(built.to),
            data: built.data,
            floor: built.gas_limit,
        })
    }

    fn sign(&self, t: &Unsigned) -> Result<Signed> {
        let unsigned = tx::Eip1559 {
            chain_id: self.settler.evm.chain.chain_id,
            nonce: t.nonce,
            max_priority_fee_per_gas: t.tip,
            max_fee_per_gas: t.cap,
            gas_limit: t.gas_limit,
            to: Some(t.to.0),
            value: 0,
            data: r::parse_hex_data(&t.data)
                .map_err(|e| Error::internal(format!("stored calldata: {e}")))?,
        };
        let m = &self.settler.ctx.merchant;
        let secret = self.settler.wallets.open(&m.address, &m.sealed_key)?;
        let signed =
            tx::sign(&unsigned, &secret).map_err(|e| Error::internal(format!("signing: {e}")))?;
        Ok(Signed {
            hash: hex0x(&signed.hash),
            raw: hex0x(&signed.raw),
        })
    }
}
