//! The cache keeps only what SQLite committed: each case a short story of transactions.

use super::*;
use tokenpad_core::model::amount::Units;

fn addr(n: u8) -> Address {
    Address([n; 20])
}

fn token(n: u8) -> Token {
    let mut t = Token::usdc(
        tokenpad_core::model::token::USDC_ADDRESS,
        tokenpad_core::model::token::Network::Base,
        addr(100),
        0,
    );
    t.address = TokenAddress(addr(n));
    t
}

fn bal(active: u128) -> Balance {
    Balance {
        active: Units::new(active),
        locked: Units::ZERO,
    }
}

fn holder(user: &str, n: u8) -> Holder {
    Holder {
        user_id: UserId::new_unchecked(user),
        address: addr(n),
        sealed_key: "sealed".into(),
        created_at: 0,
    }
}

#[test]
fn a_committed_write_is_what_later_reads_see() {
    let (mut c, t, o) = (Cache::default(), TokenAddress(addr(1)), addr(2));
    c.keep_balance(&t, &o, bal(5));
    c.begin();
    c.write_balance(&t, &o, bal(7));
    assert_eq!(
        c.balance(&t, &o),
        Some(bal(7)),
        "read back inside its transaction"
    );
    c.end(true);
    assert_eq!(c.balance(&t, &o), Some(bal(7)));
}

#[test]
fn a_rolled_back_write_is_forgotten_with_the_row_it_replaced() {
    let (mut c, t, o) = (Cache::default(), TokenAddress(addr(1)), addr(2));
    c.keep_balance(&t, &o, bal(5));
    c.begin();
    c.write_balance(&t, &o, bal(7));
    c.end(false);
    assert_eq!(c.balance(&t, &o), None, "SQLite answers the next read");
    let mut s = ChainState::default();
    c.keep_chain_state(&s, 0);
    c.begin();
    s.tx_count = 9;
    c.write_chain_state(&s, 64);
    c.end(false);
    assert_eq!(c.chain_state(), None);
}

#[test]
fn a_rows_number_is_known_once_committed_and_forgotten_otherwise() {
    use Numbered::{History as H, Intents as I};
    let mut c = Cache::default();
    c.begin();
    c.write_seq(I, 3);
    c.write_seq(H, 7);
    assert_eq!(
        c.last_seq(H),
        Some(7),
        "the transaction numbers its next row"
    );
    c.end(true);
    assert_eq!(c.last_seq(H), Some(7));
    c.begin();
    c.write_seq(H, 8);
    c.end(false);
    assert_eq!(c.last_seq(I), Some(3), "each table its own");
    assert_eq!(c.last_seq(H), None, "rolled back: SQLite numbers the next");
    c.write_seq(H, 9);
    assert_eq!(c.last_seq(H), None, "outside a transaction: not kept");
}

#[test]
fn the_relayer_is_kept_as_committed() {
    let (mut c, mut r) = (Cache::default(), Relayer::default());
    c.keep_relayer(&r);
    r.error = Some("out of gas".into());
    c.begin();
    c.write_relayer(&r);
    c.end(true);
    assert_eq!(c.relayer(), Some(r.clone()), "settlement reads as stopped");
    c.begin();
    c.write_relayer(&Relayer::default());
    c.end(false);
    assert_eq!(
        c.relayer(),
        None,
        "rolled back: SQLite answers the next read"
    );
}

#[test]
fn a_write_outside_a_transaction_forgets_the_row() {
    let (mut c, t, o) = (Cache::default(), TokenAddress(addr(1)), addr(2));
    c.keep_balance(&t, &o, bal(5));
    c.write_balance(&t, &o, bal(7));
    assert_eq!(c.balance(&t, &o), None);
}

#[test]
fn a_read_inside_a_transaction_never_replaces_its_own_write() {
    let (mut c, t, o) = (Cache::default(), TokenAddress(addr(1)), addr(2));
    c.begin();
    c.write_balance(&t, &o, bal(7));
    c.keep_balance(&t, &o, bal(5));
    assert_eq!(c.balance(&t, &o), Some(bal(7)));
    c.end(true);
    assert_eq!(c.balance(&t, &o), Some(bal(7)));
}

#[test]
fn a_transaction_inside_another_leaves_nothing_kept() {
    let (mut c, t, o) = (Cache::default(), TokenAddress(addr(1)), addr(2));
    c.begin();
    c.begin();
    c.write_balance(&t, &o, bal(7));
    c.end(true);
    c.end(true);
    assert_eq!(c.balance(&t, &o), None);
    c.begin();
    c.write_balance(&t, &o, bal(8));
    c.end(true);
    assert_eq!(
        c.balance(&t, &o),
        Some(bal(8)),
        "the next one is kept again"
    );
}

#[test]
fn holders_are_found_by_user_and_by_address_once_committed() {
    let mut c = Cache::default();
    c.begin();
    c.write_holder(&holder("alice", 3));
    c.end(false);
    assert_eq!(c.holder_at(&addr(3)), None);
    c.begin();
    c.write_holder(&holder("alice", 3));
    c.end(true);
    assert_eq!(
        c.holder_at(&addr(3)).flatten().map(|h| h.user_id),
        Some(UserId::new_unchecked("alice"))
    );
    assert!(c.holder(&UserId::new_unchecked("alice")).is_some());
}

#[test]
fn an_address_known_to_be_no_holders_stays_so_until_a_holder_is_committed_there() {
    let mut c = Cache::default();
    c.keep_no_holder_at(&addr(4));
    assert_eq!(c.holder_at(&addr(4)), Some(None));
    c.begin();
    c.write_holder(&holder("dave", 4));
    assert!(
        matches!(c.holder_at(&addr(4)), Some(Some(_))),
        "seen inside its transaction"
    );
    c.end(false);
    assert_eq!(c.holder_at(&addr(4)), None, "rolled back: SQLite answers");
    c.keep_no_holder_at(&addr(4));
    c.write_holder(&holder("dave", 4));
    assert_eq!(
        c.holder_at(&addr(4)),
        None,
        "written outside a transaction: forgotten"
    );
}

#[test]
fn holdings_follow_committed_balances_and_are_never_read_inside_a_transaction() {
    let (mut c, o) = (Cache::default(), addr(2));
    let (a, b) = (token(10), token(11));
    c.keep_holdings(&o, &[(a.clone(), bal(5)), (b.clone(), bal(1))]);
    assert_eq!(c.holdings(&o).map(|h| h.len()), Some(2));

    c.begin();
    c.write_balance(&a.address, &o, bal(6));
    assert_eq!(c.holdings(&o), None, "inside a transaction SQLite answers");
    c.end(true);
    let held = c.holdings(&o).unwrap_or_default();
    assert_eq!(
        held.first().map(|(t, b)| (t.address, *b)),
        Some((a.address, bal(6)))
    );

    c.begin();
    c.write_balance(&b.address, &o, bal(0));
    c.end(true);
    assert_eq!(
        c.holdings(&o),
        None,
        "a token left the list: it is read again"
    );

    c.keep_holdings(&o, &[(a.clone(), bal(6))]);
    c.begin();
    c.write_balance(&a.address, &o, bal(9));
    c.end(false);
    assert_eq!(
        c.holdings(&o),
        None,
        "its balance rolled back, so the list is incomplete"
    );
}

#[test]
fn lists_are_forgotten_when_what_they_show_is_written() {
    let (mut c, o) = (Cache::default(), addr(2));
    let user = UserId::new_unchecked("alice");
    c.keep_locks(&o, &[]);
    c.keep_positions(&user, &[]);
    assert_eq!(c.locks(&o), Some(vec![]));
    c.write_lock(&o);
    assert_eq!(c.locks(&o), None);
    c.keep_locks(&o, &[]);
    c.remove_lock();
    assert_eq!(c.locks(&o), None);
    assert_eq!(c.positions(&user), Some(vec![]));
    let presale: Presale = serde_json::from_value(presale_json()).unwrap();
    c.write_presale(&presale);
    assert_eq!(c.positions(&user), None);
    c.keep_positions(&user, &[]);
    let buyer = Participant {
        user_id: user.clone(),
        address: o,
        usdc: tokenpad_core::model::amount::Usdc::new(1),
    };
    c.write_participant(&presale.id, &buyer);
    assert_eq!(c.positions(&user), None);
    c.begin();
    c.keep_locks(&o, &[]);
    c.end(true);
    assert_eq!(
        c.locks(&o),
        None,
        "a list read inside a transaction is not kept"
    );
}

#[test]
fn a_full_table_is_emptied_before_it_grows() {
    let mut t: Table<u8, u8> = Table::new(2);
    t.keep(1, 1);
    t.keep(2, 2);
    t.keep(2, 3);
    assert_eq!(
        (t.get(&1), t.get(&2)),
        (Some(1), Some(3)),
        "a row replaced in place"
    );
    t.keep(3, 3);
    assert_eq!((t.get(&1), t.get(&3)), (None, Some(3)));
}

fn event(seq: u64) -> EventRecord {
    EventRecord {
        seq,
        kind: tokenpad_core::model::event::EventType::ALL[0],
        at: 0,
        resource: format!("transaction:{seq}"),
        subject: tokenpad_core::model::event::Subject::Transaction { seq },
        data: None,
    }
}

#[test]
fn a_seal_reads_nothing_back_once_every_event_is_known_rendered() {
    let mut c = Cache::default();
    assert_eq!(c.unsealed_events(), None, "not known: SQLite answers");
    c.begin();
    assert_eq!(c.unsealed_events(), None);
    c.keep_unsealed_events(&[event(1)]);
    c.append_event(&event(2));
    assert_eq!(c.unsealed_events().map(|v| v.len()), Some(2));
    c.seal_event(1);
    c.seal_event(2);
    assert_eq!(c.unsealed_events(), Some(vec![]));
    c.end(true);
    assert_eq!(
        c.unsealed_events(),
        Some(vec![]),
        "committed with none left"
    );

    c.begin();
    c.append_event(&event(3));
    assert_eq!(c.unsealed_events(), Some(vec![event(3)]));
    c.end(false);
    assert_eq!(c.unsealed_events(), Some(vec![]), "rolled back: as before");

    c.begin();
    c.append_event(&event(4));
    c.end(true);
    assert_eq!(
        c.unsealed_events(),
        None,
        "committed unrendered: SQLite answers"
    );

    c.keep_unsealed_events(&[]);
    c.append_event(&event(5));
    assert_eq!(c.unsealed_events(), None, "appended outside a transaction");
}

/// One of alice's history records.
fn record(id: &str) -> TxRecord {
    serde_json::from_value(serde_json::json!({
        "id": id, "hash": null, "kind": "distribute", "user_id": "alice",
        "token": "0x0101010101010101010101010101010101010101", "symbol": "T", "decimals": 18,
        "amount": 1, "from": "0x0101010101010101010101010101010101010101",
        "to": "0x0202020202020202020202020202020202020202", "at": 0
    }))
    .unwrap_or_else(|e| panic!("record: {e}"))
}

#[test]
fn history_records_a_transaction_wrote_are_read_back_only_inside_it() {
    let mut c = Cache::default();
    let record = record("0xab-out");
    c.write_history(7, &record);
    assert_eq!(
        c.history_at(7),
        None,
        "outside a transaction nothing is kept"
    );
    c.begin();
    c.write_history(7, &record);
    assert_eq!(c.history_at(7), Some(record));
    c.end(true);
    assert_eq!(c.history_at(7), None);
}

#[test]
fn pages_are_kept_outside_transactions_and_forgotten_by_any_write_under_them() {
    use tokenpad_core::model::token::HolderRow;
    let (mut c, t, o) = (Cache::default(), TokenAddress(addr(1)), addr(2));
    let rows = vec![HolderRow {
        owner: o,
        balance: Units::new(5),
        user_id: None,
    }];
    let alice = UserId::new_unchecked("alice");
    let keep = |c: &mut Cache| {
        let pages = c
            .keep_pages()
            .unwrap_or_else(|| panic!("outside a transaction"));
        pages.keep_top_holders(&t, 100, &rows, 1);
        pages.keep_history(&alice, None, 51, &[]);
    };
    let page = |c: &Cache| c.pages().and_then(|p| p.top_holders(&t, 100));
    let history = |c: &Cache| c.pages().and_then(|p| p.history(&alice, None, 51));
    keep(&mut c);
    assert_eq!(page(&c), Some((rows.clone(), 1)));
    assert_eq!(history(&c), Some(vec![]));

    c.begin();
    assert!(
        c.keep_pages().is_none() && page(&c).is_none(),
        "inside a transaction SQLite answers"
    );
    c.write_balance(&t, &o, bal(7));
    c.end(false);
    assert_eq!(
        page(&c),
        None,
        "a write forgets the page, even one rolled back"
    );
    assert_eq!(
        history(&c),
        Some(vec![]),
        "a balance is not in a history page"
    );

    keep(&mut c);
    c.write_holder(&holder("bob", 3));
    assert_eq!(page(&c), None, "a new holder may be named on any page");

    let record = record("0xab-in");
    keep(&mut c);
    c.begin();
    c.write_history(8, &record);
    c.end(true);
    assert_eq!(history(&c), None, "a record of alice's forgets her pages");
    assert_eq!(page(&c), Some((rows, 1)));
}

fn presale_json() -> serde_json::Value {
    serde_json::json!({
        "id": "p1", "name": "P", "description": "d", "start": 0, "end": 1, "target": 10,
        "purchased": 0, "token_info": { "name": "T", "symbol": "T", "image_url": "https://x/y.png", "metadata": {}, "lockup_percentage": 20 },
        "lock_days": 1, "auto_launch": false, "signer": "0x0101010101010101010101010101010101010101",
        "token_address": "0x0202020202020202020202020202020202020202", "phase": "open",
        "completion": { "step": "pending", "transactions": {}, "retry_count": 0, "last_error": null }, "distributed": false, "distribute_tx": null, "created_at": 0, "updated_at": 0
    })
}

#[test]
fn presales_and_pools_are_kept_as_committed() {
    let mut c = Cache::default();
    let mut p: Presale = serde_json::from_value(presale_json()).unwrap();
    c.keep_presale(&p);
    c.begin();
    p.purchased = tokenpad_core::model::amount::Usdc::new(5);
    c.write_presale(&p);
    assert_eq!(c.presale(&p.id).map(|x| x.purchased), Some(p.purchased));
    c.end(false);
    assert_eq!(c.presale(&p.id), None, "rolled back: SQLite answers");
    let t = TokenAddress(addr(9));
    c.keep_pool(&t, None);
    assert_eq!(c.pool(&t), Some(None), "known to have none");
}

#[test]
fn events_are_held_back_and_numbered_next_only_inside_a_transaction_once_the_number_is_known() {
    let mut c = Cache::default();
    c.begin();
    assert_eq!(
        c.hold_event(&event(0)),
        None,
        "no number known yet: inserted"
    );
    c.append_event(&event(5));
    assert_eq!(c.hold_event(&event(0)), Some(6));
    assert_eq!(c.hold_event(&event(0)), Some(7));
    assert_eq!(
        c.unsealed_events()
            .map(|v| v.iter().map(|e| e.seq).collect::<Vec<_>>()),
        None,
        "not exact: SQLite answers (and gets the held events first)"
    );
    // Sealing 6 inserts it rendered; 7 is inserted unrendered as the transaction ends.
    assert_eq!(c.take_held_event(6).map(|e| e.seq), Some(6));
    assert_eq!(c.take_held_event(6), None, "taken once");
    c.seal_event(6);
    assert_eq!(
        c.take_held_events()
            .iter()
            .map(|e| e.seq)
            .collect::<Vec<_>>(),
        vec![7]
    );
    assert_eq!(c.take_held_events(), vec![]);
    c.end(true);
    assert_eq!(
        c.hold_event(&event(0)),
        None,
        "outside a transaction: inserted"
    );

    c.begin();
    assert_eq!(
        c.hold_event(&event(0)),
        Some(8),
        "committed: the number goes on"
    );
    c.end(false);
    c.begin();
    assert_eq!(
        c.hold_event(&event(0)),
        None,
        "rolled back: not known, inserted"
    );
    assert_eq!(
        c.take_held_events(),
        vec![],
        "and nothing is held from before"
    );
    c.append_event(&event(8));
    c.begin();
    assert_eq!(c.hold_event(&event(0)), Some(9));
    c.end(true);
    c.end(true);
    c.begin();
    assert_eq!(
        c.hold_event(&event(0)),
        None,
        "after a nested transaction: not known"
    );
    c.end(true);
}
