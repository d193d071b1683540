//! The operator's calls (the edge's admin routes; the clock and the faucet only in local
//! runs and tests): creating the merchant (and the records of its first keys), moving the
//! service clock, funding an address with test USDC, and a deployment's public page. The test
//! faults are in `faults.rs`.

use super::MerchantObject;
use crate::adapters::txn::transaction;
use crate::adapters::wallet::WalletMaker;
use crate::hop::InitArgs;
use crate::http::Answer;
use tokenpad_core::model::account::Role;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Usdc;
use tokenpad_core::model::chain::ChainMode;
use tokenpad_core::model::decimal::Decimal;
use tokenpad_core::model::ids::DeploymentId;
use tokenpad_core::model::key::{ApiKey, KeyKind};
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::{iso8601, Millis};
use tokenpad_core::ops;
use tokenpad_core::store::Store;
use tokenpad_core::wire::admin::{FaucetResult, MerchantCreated};
use tokenpad_core::wire::deployment::DeploymentOverview;
use tokenpad_core::wire::settlement::Settlement;
use tokenpad_core::Result;

impl MerchantObject {
    #[inline(never)]
    pub(super) fn init(&self, args: InitArgs) -> Result<Answer> {
        let wallet = WalletMaker::from_env(&self.env).new_wallet()?;
        self.set_offset(args.offset_ms)?;
        let merchant = Merchant {
            id: args.id,
            name: args.name,
            address: wallet.address,
            sealed_key: wallet.sealed_key,
            created_at: self.now()?,
            private_mode: false,
        };
        let first = |kind, hash: &str, last4: Option<String>| ApiKey {
            last4,
            public_key: (kind == KeyKind::Public)
                .then(|| args.public_key.clone())
                .flatten(),
            ..ops::keys::migrated(kind, hash, merchant.created_at)
        };
        let keys = [
            first(
                KeyKind::Secret,
                &args.secret_key_hash,
                args.secret_key_last4,
            ),
            first(
                KeyKind::Public,
                &args.public_key_hash,
                args.public_key_last4,
            ),
        ];
        let mut store = self.store()?;
        let m = merchant.clone();
        let chain = self.chain.mode()?;
        let owner = args.owner;
        let created_at = merchant.created_at;
        transaction(&self.state.storage(), &self.watch, move || {
            ops::merchant::init(&mut store, &m, &keys, &chain)?;
            // The account that created it, its first owner, in the same transaction.
            match owner {
                Some(email) => super::members::put_member(&store, &email, Role::Owner, created_at),
                None => Ok(()),
            }
        })?;
        Answer::json(
            201,
            &MerchantCreated {
                id: merchant.id,
                name: merchant.name,
                merchant_address: merchant.address,
                secret_key: None,
                public_key: None,
            },
        )
    }

    pub(super) async fn advance(&self, offset_ms: Millis) -> Result<Answer> {
        self.set_offset(offset_ms)?;
        let now = self.now()?;
        if let Some(merchant) = self.store()?.merchant()? {
            self.run_due(now, &merchant);
        }
        // The clock moved: the relays learn it (a socket whose session the jump ended is
        // closed), and what the topics show now goes out.
        self.live.clock_moved(now);
        self.deliver_followups(now).await;
        // The clock moved and what came due ran: an alarm that cannot be written now is left
        // stale and written by the next request or call (`after_commit`), not this one's error.
        if let Err(e) = self.sync_alarm().await {
            worker::console_error!("time advance: the alarm: {}", e.message);
        }
        Answer::json(200, &serde_json::json!({ "now": iso8601(now) }))
    }

    pub(super) async fn faucet(&self, address: Address, usdc: Usdc) -> Result<Answer> {
        let merchant = self.merchant()?;
        let now = self.now()?;
        self.run_due(now, &merchant);
        let mut store = self.store()?;
        let ctx = self.ctx(now, merchant)?;
        let base = self.base_url();
        let stamp = transaction(&self.state.storage(), &self.watch, move || {
            let stamp = ops::ledger::deposit_usdc(&mut store, &ctx, &address, usdc)?;
            tokenpad_core::wire::event::seal(&mut store, &base)?;
            Ok(stamp)
        })?;
        self.settle_soon(now);
        self.after_commit(now).await;
        self.live.changed();
        Answer::json(
            200,
            &FaucetResult {
                success: true,
                settlement: Settlement::of(&stamp),
                address,
                usdc_amount: Decimal::of(usdc),
            },
        )
    }

    #[inline(never)]
    pub(super) fn page(&self, id: &DeploymentId, base_url: &str) -> Result<Answer> {
        self.merchant()?;
        let store = self.store()?;
        let d = ops::deployment::find(&store, id, None)?;
        let mut page = DeploymentOverview::read(&store, &d, base_url)?;
        if matches!(self.chain.mode(), Ok(ChainMode::Embedded)) {
            page = page.on_embedded_chain();
        }
        Answer::json(200, &page)
    }
}
