//! When a merchant's settlement counts as stuck, and what is only waiting (`ops::stuck`): each
//! kind past the threshold and not before it, parked movements at once, releases the chain's
//! clock has not reached said apart with what waits behind them, and the relayer's trouble
//! timed from when its kind began, not from its latest text.

use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::{LockId, MerchantId, TokenAddress};
use tokenpad_core::model::intent::{
    Account, Action, Intent, IntentStatus, Owed, OwedSince, Reserve, Side,
};
use tokenpad_core::model::settlement::{ChainTx, TxState, TxVersion};
use tokenpad_core::model::time::{Millis, Timestamp};
use tokenpad_core::model::token::{Network, Token, USDC_ADDRESS};
use tokenpad_core::ops::settle::hold::Behind;
use tokenpad_core::ops::stuck::{IssueKind, Settling, Trouble, Unpaid};

const AFTER: Millis = 600_000;
const NOW: Millis = 1_900_000_000_000;

fn token(n: u8) -> TokenAddress {
    TokenAddress(Address([n; 20]))
}

fn reward(id: u64, to: u8, at: Millis) -> Intent {
    let mut i = Intent::new(
        token(1),
        Action::Transfer {
            from: Account::Treasury,
            to: Account::Wallet(Address([to; 20])),
            amount: Units::new(5),
        },
        at,
    );
    i.id = id;
    i
}

fn spend(id: u64, from: u8, at: Millis) -> Intent {
    let mut i = reward(id, 0, at);
    i.action = Action::Transfer {
        from: Account::Wallet(Address([from; 20])),
        to: Account::Treasury,
        amount: Units::new(1),
    };
    i
}

fn release(id: u64, to: u8, unlock_at: u64, at: Millis) -> Intent {
    let mut i = reward(id, to, at);
    i.action = Action::Release {
        beneficiary: Address([to; 20]),
        amount: Units::new(5),
        lock: LockId::new_unchecked(format!("p:{id}")),
        unlock_at,
    };
    i
}

fn tx(nonce: u64, at: Millis) -> ChainTx {
    let version = TxVersion {
        hash: format!("0x{}", "ab".repeat(32)),
        raw: "0x".into(),
        max_fee_per_gas: 2,
        max_priority_fee_per_gas: 1,
        signed_at: at,
    };
    let mut t = ChainTx::signed(
        nonce,
        vec![],
        Address([9; 20]),
        "0x".into(),
        21_000,
        version,
        at,
    );
    t.state = TxState::Sent;
    t.sent_at = Some(at);
    t
}

static MERCHANT: std::sync::LazyLock<MerchantId> =
    std::sync::LazyLock::new(|| MerchantId::new_unchecked("m_1"));
static NOTHING: Behind = Behind::new(USDC_ADDRESS);

/// What a reward of `token` to `to`, reverted in a block not final yet, was to bring.
fn reverted_reward(token: TokenAddress, to: u8) -> Behind {
    let mut r = reward(99, to, NOW);
    r.token = token;
    let mut b = Behind::new(USDC_ADDRESS);
    b.hold(&r);
    b
}

/// Merchant m_1's settlement at `NOW`: its open intents, transactions in flight, the
/// relayer's trouble, the chain's clock and what reverts not final yet were to bring.
fn settling<'a>(
    open: &'a [Intent],
    txs: &'a [ChainTx],
    trouble: Option<Trouble>,
    chain_time: Option<u64>,
    unarrived: &'a Behind,
) -> Settling<'a> {
    Settling {
        merchant: &MERCHANT,
        relayer: Address([7; 20]),
        chain_id: 31337,
        open,
        txs,
        trouble,
        chain_time,
        now: NOW,
        after: AFTER,
        unarrived,
        tokens: &[],
        unpaid: None,
    }
}

/// What waits, by kind and count. The report the object serves (one walk for both lists) says
/// the same as each list asked alone.
fn waits(s: &Settling) -> Vec<(IssueKind, u64)> {
    assert_eq!(s.report(), (s.stuck(), s.waiting()));
    s.waiting().iter().map(|i| (i.kind, i.count)).collect()
}

fn kinds(
    open: &[Intent],
    txs: &[ChainTx],
    trouble: Option<Trouble>,
    chain_time: Option<u64>,
) -> Vec<IssueKind> {
    settling(open, txs, trouble, chain_time, &NOTHING)
        .stuck()
        .iter()
        .map(|i| i.kind)
        .collect()
}

#[test]
fn nothing_is_stuck_before_the_threshold_and_each_kind_is_after_it() {
    let young = NOW - AFTER + 1_000;
    let old = NOW - AFTER - 1_000;
    assert_eq!(
        kinds(&[reward(1, 2, young)], &[tx(0, young)], None, None),
        vec![]
    );
    assert_eq!(
        kinds(&[reward(1, 2, old)], &[], None, None),
        vec![IssueKind::Queued]
    );
    assert_eq!(
        kinds(&[], &[tx(0, old)], None, None),
        vec![IssueKind::Unmined]
    );
    // A submitted movement is the transaction's, not queued.
    let mut sent = reward(1, 2, old);
    sent.status = IntentStatus::Submitted;
    assert_eq!(kinds(&[sent], &[], None, None), vec![]);
    let trouble = |kind, since| Some(Trouble { kind, since });
    assert_eq!(
        kinds(&[], &[], trouble(IssueKind::OutOfGas, young), None),
        vec![]
    );
    assert_eq!(
        kinds(&[], &[], trouble(IssueKind::OutOfGas, old), None),
        vec![IssueKind::OutOfGas]
    );
    assert_eq!(
        kinds(&[], &[], trouble(IssueKind::NodeFailing, old), None),
        vec![IssueKind::NodeFailing]
    );
}

#[test]
fn a_parked_movement_is_stuck_at_once_and_what_waits_behind_it_is_said_with_it() {
    let mut parked = reward(1, 2, NOW - 5_000);
    parked.parked = Some("reverted on chain: ERC20InsufficientBalance".into());
    parked.parked_at = Some(NOW - 1_000);
    // Holder 2 spends what the parked reward brings: held behind it, not queued on its own.
    let behind = spend(2, 2, NOW - AFTER - 1);
    let open = [parked, behind];
    let s = settling(&open, &[], None, None, &NOTHING);
    let stuck = s.stuck();
    assert_eq!(s.report(), (stuck.clone(), s.waiting()));
    assert_eq!(stuck.len(), 1, "{stuck:?}");
    assert_eq!(stuck[0].kind, IssueKind::Parked);
    assert_eq!(stuck[0].count, 1);
    assert_eq!(
        stuck[0].since,
        Timestamp::at(NOW - 1_000),
        "since it was parked"
    );
    assert!(
        stuck[0].what.contains("1 more wait behind them"),
        "{}",
        stuck[0].what
    );
    assert!(stuck[0].what.contains("ERC20InsufficientBalance"));
    assert!(stuck[0]
        .action
        .contains("POST /admin/merchants/m_1/chain/retry"));
}

#[test]
fn a_release_the_chain_clock_has_not_reached_waits_and_is_not_stuck() {
    let old = NOW - AFTER - 1_000;
    let chain = NOW / 1000 - 86_400; // the chain's clock a day behind the service's
    let early = release(1, 3, chain + 60, old);
    let behind = spend(2, 3, old); // its beneficiary's spend of that token waits behind it
    let due = release(3, 4, chain - 60, old); // due by the chain's clock: queued, stuck
    assert_eq!(
        kinds(&[early.clone(), behind.clone()], &[], None, Some(chain)),
        vec![]
    );
    assert_eq!(
        kinds(
            &[early.clone(), behind.clone(), due],
            &[],
            None,
            Some(chain)
        ),
        vec![IssueKind::Queued]
    );
    let open = [early, behind];
    let s = settling(&open, &[], None, Some(chain), &NOTHING);
    let waiting = s.waiting();
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        (waiting[0].kind, waiting[0].count),
        (IssueKind::ChainClock, 2)
    );
    assert!(waiting[0].what.contains("1 release(s)") && waiting[0].what.contains("1 movement(s)"));
}

#[test]
fn the_relayers_trouble_keeps_its_start_while_its_kind_stays() {
    let gas = |cost: u32| {
        format!("the relayer 0xabc is out of gas: it has 0 wei and the next transaction may cost up to {cost} wei")
    };
    let first = Trouble::now(Some(&gas(10)), None, 1_000).unwrap();
    assert_eq!((first.kind, first.since), (IssueKind::OutOfGas, 1_000));
    // The fees moved, so the text did: still the same trouble, since the same time.
    let later = Trouble::now(Some(&gas(12)), Some(first), 9_000).unwrap();
    assert_eq!(later, first);
    let node = Trouble::now(
        Some("the chain's RPC endpoint did not answer: network error"),
        Some(later),
        10_000,
    );
    assert_eq!(
        node,
        Some(Trouble {
            kind: IssueKind::NodeFailing,
            since: 10_000
        })
    );
    let missing = Trouble::now(Some("token 0x1 has no code on chain (its deployment failed or is not mined): its movements wait"), node, 11_000);
    assert_eq!(missing.map(|t| t.kind), Some(IssueKind::TokenMissing));
    let factory = Trouble::now(Some("CHAIN_FACTORY 0x2 does not deploy this release's token code (its TOKEN_CREATION_CODE_HASH is not 0x7f): token deployments wait"), missing, 11_500);
    assert_eq!(factory.map(|t| t.kind), Some(IssueKind::WrongFactory));
    assert_eq!(Trouble::now(None, factory, 12_000), None);
}

#[test]
fn what_waits_behind_a_revert_not_final_yet_is_not_stuck_and_is_said() {
    let old = NOW - AFTER - 1_000;
    // Holder 3's spend of token 1, queued past the threshold; a revert of ours not final yet
    // was to bring holder 3 token 1.
    let open = [spend(1, 3, old)];
    let s = settling(&open, &[], None, None, &NOTHING);
    assert_eq!(
        s.stuck().iter().map(|i| i.kind).collect::<Vec<_>>(),
        vec![IssueKind::Queued]
    );
    assert!(s.waiting().is_empty());
    let reverting = reverted_reward(token(1), 3);
    let s = settling(&open, &[], None, None, &reverting);
    assert!(s.stuck().is_empty(), "{:?}", s.stuck());
    assert_eq!(waits(&s), vec![(IssueKind::Finality, 1)]);
    // What another token's revert was to bring holds nothing of token 1.
    let other = reverted_reward(token(2), 3);
    assert_eq!(
        settling(&open, &[], None, None, &other)
            .stuck()
            .iter()
            .map(|i| i.kind)
            .collect::<Vec<_>>(),
        vec![IssueKind::Queued]
    );
}

/// A transfer from wallet `from` to wallet `to` of token 1.
fn transfer(id: u64, from: u8, to: u8, at: Millis) -> Intent {
    let mut i = reward(id, to, at);
    i.action = Action::Transfer {
        from: Account::Wallet(Address([from; 20])),
        to: Account::Wallet(Address([to; 20])),
        amount: Units::new(1),
    };
    i
}

#[test]
fn what_waits_behind_a_held_movement_in_turn_is_said_with_what_holds_it() {
    let old = NOW - AFTER - 1_000;
    // Holder 2 passes on what a parked reward brings it, and holder 3 spends that: both wait
    // behind the parked reward (as the plan holds them), none is queued on its own.
    let mut parked = reward(1, 2, NOW - 5_000);
    parked.parked = Some("reverted on chain: ERC20InsufficientBalance".into());
    let open = [parked, transfer(2, 2, 3, old), spend(3, 3, old)];
    let stuck = settling(&open, &[], None, None, &NOTHING).stuck();
    assert_eq!(
        stuck.iter().map(|i| i.kind).collect::<Vec<_>>(),
        vec![IssueKind::Parked],
        "{stuck:?}"
    );
    assert!(
        stuck[0].what.contains("2 more wait behind them"),
        "{}",
        stuck[0].what
    );
    // The same behind a release the chain's clock has not reached, and behind a revert not
    // final yet: each said with its cause.
    let chain = NOW / 1000 - 86_400;
    let open = [
        release(1, 2, chain + 60, old),
        transfer(2, 2, 3, old),
        spend(3, 3, old),
    ];
    let s = settling(&open, &[], None, Some(chain), &NOTHING);
    assert!(s.stuck().is_empty(), "{:?}", s.stuck());
    assert_eq!(waits(&s), vec![(IssueKind::ChainClock, 3)]);
    let reverting = reverted_reward(token(1), 2);
    let open = [transfer(2, 2, 3, old), spend(3, 3, old)];
    let s = settling(&open, &[], None, None, &reverting);
    assert!(s.stuck().is_empty(), "{:?}", s.stuck());
    assert_eq!(waits(&s), vec![(IssueKind::Finality, 2)]);
}

#[test]
fn a_parked_sell_holds_its_holders_spends_of_its_usdc_and_says_so() {
    let old = NOW - AFTER - 1_000;
    let mut sell = reward(1, 2, NOW - 5_000);
    sell.action = Action::Swap {
        holder: Address([2; 20]),
        buy: false,
        exact_in: true,
        amount: Units::new(5),
        limit: Units::new(1),
        booked_tokens: Units::new(5),
        booked_usdc: Units::new(5),
    };
    sell.parked = Some("reverted on chain".into());
    // Holder 2 spends USDC the parked sell was to bring it.
    let mut usdc = spend(2, 2, old);
    usdc.token = tokenpad_core::model::token::USDC_ADDRESS;
    let open = [sell, usdc];
    let stuck = settling(&open, &[], None, None, &NOTHING).stuck();
    assert_eq!(
        stuck.iter().map(|i| i.kind).collect::<Vec<_>>(),
        vec![IssueKind::Parked],
        "{stuck:?}"
    );
    assert!(
        stuck[0].what.contains("1 more wait behind them"),
        "{}",
        stuck[0].what
    );
}

/// The merchant's USDC, owing `debts` (base units) each from a holder to the supply.
fn owing(debts: &[u128]) -> Vec<Token> {
    let mut t = Token::usdc(USDC_ADDRESS, Network::Local, Address([7; 20]), 0);
    t.owed = debts
        .iter()
        .map(|n| Owed {
            by: Side::Row(Address([2; 20])),
            to: Side::Reserve(Reserve::Minted),
            amount: Units::new(*n),
            since: OwedSince::Intent(3),
            records: vec![],
        })
        .collect();
    vec![t]
}

/// Debts left with nothing open to pay them are stuck once they have stood past the
/// threshold, timed from when nothing was open (kept across rounds, as the relayer's
/// trouble); while anything is open they are not timed at all (it may pay them).
#[test]
fn debts_with_nothing_open_are_stuck_after_the_threshold() {
    let tokens = owing(&[1_500_000, 25]);
    let (young, old) = (NOW - AFTER + 1_000, NOW - AFTER - 1_000);
    assert_eq!(Unpaid::now(&tokens, &[], &[], None, NOW), Some(NOW));
    assert_eq!(Unpaid::now(&tokens, &[], &[], Some(old), NOW), Some(old));
    let open = [reward(1, 2, NOW)];
    assert_eq!(Unpaid::now(&tokens, &open, &[], Some(old), NOW), None);
    assert_eq!(
        Unpaid::now(&tokens, &[], &[tx(0, NOW)], Some(old), NOW),
        None
    );
    assert_eq!(Unpaid::now(&owing(&[]), &[], &[], Some(old), NOW), None);

    let with = |unpaid| Settling {
        tokens: &tokens,
        unpaid,
        ..settling(&[], &[], None, None, &NOTHING)
    };
    assert_eq!(with(Some(young)).stuck(), vec![]);
    let s = with(Some(old));
    let stuck = s.stuck();
    assert_eq!(s.report(), (stuck.clone(), vec![]));
    assert_eq!(
        stuck.iter().map(|i| (i.kind, i.count)).collect::<Vec<_>>(),
        vec![(IssueKind::Unpaid, 2)]
    );
    assert_eq!(stuck[0].since, Timestamp::at(old));
    let holder = Address([2; 20]).to_checksum();
    let first = format!("1.5 USDC owed by {holder} to the supply (new to the ledger)");
    assert!(stuck[0].what.contains(&first), "{}", stuck[0].what);
    assert!(stuck[0].what.contains("0.000025 USDC"), "{}", stuck[0].what);
    assert!(stuck[0]
        .action
        .contains("GET /admin/merchants/m_1/reconcile"));
}
