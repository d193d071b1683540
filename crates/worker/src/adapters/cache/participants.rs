//! A presale's participants in the object's cache (`cache/mod.rs`): each buyer's row, and the
//! first participants a presale's payload lists (`wire::presale`, the first 100 of its events
//! other than a purchase's). A purchase reads its buyer's row (to add to it, then as its event
//! lists the buyer alone); a status change, a launch or a refund reads the first ones. Both
//! are read from memory once a purchase or a read brought them in.
//!
//! The first participants are kept as read (`First`: what a read with `limit` returned) and
//! kept up to date by each participant written: a participant on the list is replaced in place
//! (its place is its first purchase), and a new one joins the end of a list that held every
//! participant. A write to a presale whose list is not here marks it written, so a read inside
//! the same transaction (which sees the uncommitted write) is not kept as committed.
//!
//! A presale's whole list (its reads list every participant; a launch and a refund go through
//! them all) is kept too (`Whole`), up to `MAX_LIST` participants and `MAX_KEPT` in all: read
//! from SQLite, a 1,000-buyer presale's list was 40 % of its read (a row object each crossing
//! into wasm, then each row's JSON parsed). A transaction's participant writes wait beside it
//! and are applied in place when it commits (a position index finds a buyer again), so a
//! purchase never copies the list; while a transaction has written a presale's participants,
//! its whole list is read from SQLite, which shows those writes.

use super::table::{Pending, Table};
use std::collections::HashMap;
use tokenpad_core::model::ids::{PresaleId, UserId};
use tokenpad_core::model::presale::Participant;

const MAX_PARTICIPANTS: usize = 50_000;
const MAX_PRESALES: usize = 1_000;
/// The longest whole list kept (about 100 bytes a participant).
const MAX_LIST: usize = 20_000;
/// Participants kept in whole lists, all presales together: past it, every list is forgotten.
const MAX_KEPT: usize = 50_000;

/// Every participant of a presale in the order of their first purchase, and where each is.
#[derive(Default)]
struct Whole {
    list: Vec<Participant>,
    at: HashMap<UserId, usize>,
}

impl Whole {
    fn of(list: &[Participant]) -> Whole {
        let at = list
            .iter()
            .enumerate()
            .map(|(i, p)| (p.user_id.clone(), i))
            .collect();
        Whole {
            list: list.to_vec(),
            at,
        }
    }

    /// A participant written: in its place, or at the end when new.
    fn apply(&mut self, participant: &Participant) {
        match self.at.get(&participant.user_id).copied() {
            Some(i) => {
                if let Some(p) = self.list.get_mut(i) {
                    *p = participant.clone();
                }
            }
            None => {
                self.at.insert(participant.user_id.clone(), self.list.len());
                self.list.push(participant.clone());
            }
        }
    }
}

/// The first participants of a presale in order, as a read with `limit` returned them: all of
/// them when fewer than `limit`.
#[derive(Clone, Debug, PartialEq)]
pub struct First {
    pub limit: u32,
    pub list: Vec<Participant>,
}

impl First {
    fn complete(&self) -> bool {
        u32::try_from(self.list.len()).is_ok_and(|n| n < self.limit)
    }

    /// The first `limit`, when this holds them.
    fn first(&self, limit: u32) -> Option<Vec<Participant>> {
        let n = usize::try_from(limit).ok()?;
        if limit <= self.limit || self.complete() {
            return Some(self.list.iter().take(n).cloned().collect());
        }
        None
    }

    /// The list after `participant` is written.
    fn with(mut self, participant: &Participant) -> First {
        let complete = self.complete();
        match self
            .list
            .iter_mut()
            .find(|p| p.user_id == participant.user_id)
        {
            Some(p) => *p = participant.clone(),
            None if complete => self.list.push(participant.clone()),
            None => {}
        }
        self
    }
}

pub struct Participants {
    /// A buyer's row; `None`: it has none in this presale.
    rows: Table<(PresaleId, UserId), Option<Participant>>,
    /// `None`: written in this transaction without the list at hand (not known).
    first: Table<PresaleId, Option<First>>,
    /// Whole lists as committed, and how many participants they hold together.
    whole: HashMap<PresaleId, Whole>,
    kept: usize,
    /// The participants the transaction under way wrote, by presale, in order.
    written: HashMap<PresaleId, Vec<Participant>>,
}

impl Default for Participants {
    fn default() -> Self {
        Participants {
            rows: Table::new(MAX_PARTICIPANTS),
            first: Table::new(MAX_PRESALES),
            whole: HashMap::new(),
            kept: 0,
            written: HashMap::new(),
        }
    }
}

impl Participants {
    pub fn participant(&self, presale: &PresaleId, user: &UserId) -> Option<Option<Participant>> {
        self.rows.get(&(presale.clone(), user.clone()))
    }

    pub fn keep_participant(
        &mut self,
        presale: &PresaleId,
        user: &UserId,
        row: Option<&Participant>,
    ) {
        self.rows
            .keep((presale.clone(), user.clone()), row.cloned());
    }

    pub fn first(&self, presale: &PresaleId, limit: u32) -> Option<Vec<Participant>> {
        self.first.get(presale)??.first(limit)
    }

    pub fn keep_first(&mut self, presale: &PresaleId, limit: u32, list: &[Participant]) {
        let first = First {
            limit,
            list: list.to_vec(),
        };
        self.first.keep(presale.clone(), Some(first));
    }

    /// Every participant of `presale`, when its whole list is kept and the transaction under
    /// way wrote none of them.
    pub fn all(&self, presale: &PresaleId) -> Option<Vec<Participant>> {
        if self.written.contains_key(presale) {
            return None;
        }
        self.whole.get(presale).map(|w| w.list.clone())
    }

    /// Keeps what a read of every participant returned (not one the transaction under way
    /// wrote to, not a list longer than `MAX_LIST`).
    pub fn keep_all(&mut self, presale: &PresaleId, list: &[Participant]) {
        if self.written.contains_key(presale) || list.len() > MAX_LIST {
            return;
        }
        if let Some(was) = self.whole.remove(presale) {
            self.kept = self.kept.saturating_sub(was.list.len());
        }
        if self.kept.saturating_add(list.len()) > MAX_KEPT {
            self.whole.clear();
            self.kept = 0;
        }
        self.kept = self.kept.saturating_add(list.len());
        self.whole.insert(presale.clone(), Whole::of(list));
    }

    pub fn write(&mut self, presale: &PresaleId, participant: &Participant, open: bool) {
        if open {
            self.written
                .entry(presale.clone())
                .or_default()
                .push(participant.clone());
        } else if let Some(was) = self.whole.remove(presale) {
            self.kept = self.kept.saturating_sub(was.list.len());
        }
        let key = (presale.clone(), participant.user_id.clone());
        self.rows.write(key, Some(participant.clone()), open);
        let first = self
            .first
            .get(presale)
            .flatten()
            .map(|f| f.with(participant));
        self.first.write(presale.clone(), first, open);
    }
}

impl Pending for Participants {
    fn commit(&mut self) {
        self.rows.commit();
        self.first.commit();
        for (presale, written) in std::mem::take(&mut self.written) {
            let Some(whole) = self.whole.get_mut(&presale) else {
                continue;
            };
            let before = whole.list.len();
            for p in &written {
                whole.apply(p);
            }
            let after = whole.list.len();
            self.kept = self.kept.saturating_add(after - before);
            if after > MAX_LIST || self.kept > MAX_KEPT {
                self.kept = self.kept.saturating_sub(after);
                self.whole.remove(&presale);
            }
        }
    }

    fn roll_back(&mut self) {
        self.rows.roll_back();
        self.first.roll_back();
        self.written.clear();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use tokenpad_core::model::address::Address;
    use tokenpad_core::model::amount::Usdc;

    fn buyer(n: u8, usdc: u128) -> Participant {
        Participant {
            user_id: UserId::new_unchecked(format!("u{n}")),
            address: Address([n; 20]),
            usdc: Usdc::new(usdc),
        }
    }

    fn users(list: &[Participant]) -> Vec<(String, u128)> {
        list.iter()
            .map(|p| (p.user_id.as_str().to_string(), p.usdc.raw()))
            .collect()
    }

    #[test]
    fn purchases_keep_the_first_participants_in_order() {
        let p = PresaleId::new_unchecked("ps_1");
        let mut c = Participants::default();
        c.keep_first(&p, 3, &[buyer(1, 5)]);
        c.begin_commit(|c, open| {
            c.write(&p, &buyer(2, 1), open); // new: joins the end of a complete list
            c.write(&p, &buyer(1, 7), open); // again: in its place, its amount updated
        });
        let first = c.first(&p, 3).unwrap();
        assert_eq!(users(&first), [("u1".into(), 7), ("u2".into(), 1)]);
        assert_eq!(
            c.first(&p, 10).map(|l| l.len()),
            Some(2),
            "the list is every one"
        );
        c.begin_commit(|c, open| c.write(&p, &buyer(3, 1), open));
        c.begin_commit(|c, open| c.write(&p, &buyer(4, 1), open)); // fourth: past the first 3
        assert_eq!(users(&c.first(&p, 3).unwrap()).len(), 3);
        assert_eq!(
            c.first(&p, 2).map(|l| l.len()),
            Some(2),
            "a shorter page is its start"
        );
        assert_eq!(c.first(&p, 4), None, "a fourth is not known here");
        assert_eq!(
            c.participant(&p, &buyer(4, 0).user_id),
            Some(Some(buyer(4, 1)))
        );
    }

    #[test]
    fn the_whole_list_takes_each_committed_write_in_place() {
        let p = PresaleId::new_unchecked("ps_1");
        let mut c = Participants::default();
        c.keep_all(&p, &[buyer(1, 5), buyer(2, 1)]);
        c.write(&p, &buyer(3, 2), true);
        c.write(&p, &buyer(1, 6), true);
        // While the transaction is open, the list is not known here (SQLite shows its writes).
        assert_eq!(c.all(&p), None);
        c.keep_all(&p, &[buyer(9, 9)]);
        c.commit();
        let all = c.all(&p).unwrap();
        assert_eq!(
            users(&all),
            [("u1".into(), 6), ("u2".into(), 1), ("u3".into(), 2)]
        );
        // A rolled-back write leaves it as it was.
        c.write(&p, &buyer(4, 1), true);
        c.roll_back();
        assert_eq!(users(&c.all(&p).unwrap()).len(), 3);
        // A write outside a transaction forgets it.
        c.write(&p, &buyer(4, 1), false);
        assert_eq!(c.all(&p), None);
    }

    #[test]
    fn whole_lists_are_bounded() {
        let many = |n: usize, tag: &str| -> Vec<Participant> {
            (0..n)
                .map(|i| Participant {
                    user_id: UserId::new_unchecked(format!("{tag}{i}")),
                    address: Address([0; 20]),
                    usdc: Usdc::new(1),
                })
                .collect()
        };
        let (p, q) = (
            PresaleId::new_unchecked("ps_1"),
            PresaleId::new_unchecked("ps_2"),
        );
        let mut c = Participants::default();
        c.keep_all(&p, &many(MAX_LIST + 1, "x"));
        assert_eq!(c.all(&p), None, "longer than MAX_LIST: not kept");
        c.keep_all(&p, &many(MAX_LIST, "x"));
        assert_eq!(c.all(&p).map(|l| l.len()), Some(MAX_LIST));
        c.write(&p, &buyer(1, 1), true);
        c.commit();
        assert_eq!(c.all(&p), None, "grown past MAX_LIST: forgotten");
        assert_eq!(c.kept, 0);
        c.keep_all(&p, &many(MAX_LIST, "x"));
        c.keep_all(&q, &many(MAX_LIST, "y"));
        c.keep_all(&PresaleId::new_unchecked("ps_3"), &many(MAX_LIST, "z"));
        assert!(c.kept <= MAX_KEPT, "{}", c.kept);
        assert_eq!(c.all(&p), None, "past MAX_KEPT every list was forgotten");
    }

    #[test]
    fn a_write_without_the_list_keeps_no_read_of_its_own_transaction() {
        let p = PresaleId::new_unchecked("ps_1");
        let mut c = Participants::default();
        c.write(&p, &buyer(1, 5), true);
        // SQLite, read inside the transaction, shows the write that may still roll back.
        c.keep_first(&p, 100, &[buyer(1, 5)]);
        c.keep_participant(&p, &buyer(1, 0).user_id, Some(&buyer(1, 5)));
        assert_eq!(c.first(&p, 100), None);
        c.roll_back();
        assert_eq!(c.first(&p, 100), None);
        assert_eq!(c.participant(&p, &buyer(1, 0).user_id), None);
        c.keep_participant(&p, &buyer(1, 0).user_id, None);
        assert_eq!(c.participant(&p, &buyer(1, 0).user_id), Some(None));
    }

    impl Participants {
        /// Writes in a transaction that commits.
        fn begin_commit(&mut self, f: impl FnOnce(&mut Participants, bool)) {
            f(self, true);
            self.commit();
        }
    }
}
