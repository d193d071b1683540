//! Running due work (`tokenpad_core::serve::due`: item by item, each in its own transaction,
//! a failing item recorded and retried or parked), from a request or the alarm.

use super::ports::Serving;
use super::MerchantObject;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::serve;

impl MerchantObject {
    /// Runs what is due at `now`; returns how many items ran.
    pub(super) fn run_due(&self, now: Millis, merchant: &Merchant) -> usize {
        let ran = serve::due::run(&Serving::new(self, self.base_url()), now, merchant);
        if ran > 0 {
            // Launches, unlocks and refunds change what holders and presales show.
            self.live.changed();
        }
        ran
    }
}
