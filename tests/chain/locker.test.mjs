// TokenpadLocker on a real local node (anvil): a treasury locks a presale's allocations for
// several buyers with one EIP-3009 pull of the total, under ids of its own namespace (each lock
// is stored under lockKey(treasury, id), so a squatter who locks under the same id first changes
// nothing), anyone releases what is due by key (what is not due, or already released, is
// skipped), and every refusal; a batch of 200 locks and of 200 releases, with their gas.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEventLog, decodeFunctionData, encodeAbiParameters, getAddress, keccak256, toBytes, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  DEV_ACCOUNTS,
  DEV_KEYS,
  artifact,
  balanceOf,
  clients,
  codeAt,
  deployBase,
  deployToken,
  latestTimestamp,
  mintUsdc,
  read,
  rpc,
  send,
  setNextBlockTimestamp,
  signPull,
  startAnvil,
} from './anvil.mjs';

const RELAYER = DEV_ACCOUNTS[1]; // anyone: releases locks, deploys the token
const TREASURY_KEY = DEV_KEYS[2]; // a merchant's treasury: locks its own tokens, pays its own gas
const TREASURY = DEV_ACCOUNTS[2];
const SQUATTER_KEY = DEV_KEYS[3]; // an outsider who sees the treasury's ids (mempool, a reverted batch)
const SQUATTER = DEV_ACCOUNTS[3];

const LOCKER_ABI = artifact('TokenpadLocker').abi;
const TOKEN_ABI = artifact('TokenpadToken').abi;
// The locker's calls can also revert with the tokens' own errors (a bad signature, ...).
const CALL_ABI = [...LOCKER_ABI, ...TOKEN_ABI.filter((i) => i.type === 'error')];

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const UINT96_MAX = (1n << 96n) - 1n;
const EIP7825_TX_GAS_CAP = 1n << 24n; // 16,777,216
const ZERO = '0x0000000000000000000000000000000000000000';

let node;
let base; // deployBase's addresses
let token; // a TokenpadToken whose whole supply is the treasury's
const gas = {}; // gas used, reported at the end

// ------------------------------------------------------------------ helpers

const id32 = (s) => keccak256(toBytes(s));
const randomNonce = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const bal = (t, owner) => balanceOf(node.rpcUrl, t, owner);
/** The key the locker stores the treasury's (or `owner`'s) lock `id` under, as its lockKey: keccak256(abi.encode(owner, id)). */
const keyOf = (id, owner = TREASURY.address) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [owner, id]));
/** locks(key), by the treasury's id (or `owner`'s). */
const lockOf = async (id, owner = TREASURY.address) => {
  const [tok, amount, beneficiary, unlockAt, released] = await read(node.rpcUrl, { address: base.locker, abi: LOCKER_ABI, functionName: 'locks', args: [keyOf(id, owner)] });
  return { token: tok, amount, beneficiary, unlockAt, released };
};
const now = () => latestTimestamp(node.rpcUrl);
/** Moves the node's clock `seconds` forward and mines a block there. */
async function timeTravel(seconds) {
  await rpc(node.rpcUrl, 'evm_increaseTime', [Number(seconds)]);
  await rpc(node.rpcUrl, 'evm_mine');
}

/** The custom error (name and args) a call reverts with, decoded with CALL_ABI. */
async function revertOf(promise) {
  try {
    await promise;
  } catch (e) {
    for (let c = e; c; c = c.cause) if (c.data?.errorName) return { name: c.data.errorName, args: c.data.args ?? [] };
    throw e;
  }
  assert.fail('expected a revert');
}

/** eth_call of a locker function as `account` (a simulation); resolves to { result }. */
async function simulate(functionName, args, account = TREASURY) {
  const { publicClient } = await clients(node.rpcUrl, account);
  return publicClient.simulateContract({ address: base.locker, abi: CALL_ABI, functionName, args, account });
}

/**
 * Sends a locker call; returns { result, receipt }: `result` is what the call returned in an
 * eth_call just before (against the latest block), and for a release the number of Released
 * events in the receipt, which must agree. Fixed gas limits, not estimates: a release estimated
 * against one block skips a lock that comes due in the next, and then runs out of gas.
 * `simulated: false` skips the check (when the next block's time is set ahead).
 */
async function locker(functionName, args, { account = TREASURY, gas: limit = 2_000_000n, simulated = true } = {}) {
  const { result } = await simulate(functionName, args, account);
  const receipt = await send(node.rpcUrl, { address: base.locker, abi: LOCKER_ABI, functionName, args, account, gas: limit });
  if (functionName !== 'release') return { result, receipt };
  const released = BigInt(eventsOf(receipt, 'Released').length);
  if (simulated) assert.equal(released, result, 'release returned what it released');
  return { result: released, receipt };
}

/** The locker's events of one kind in a receipt, decoded (other contracts' skipped). */
function eventsOf(receipt, eventName) {
  const out = [];
  for (const log of receipt.logs) {
    if (getAddress(log.address) !== base.locker) continue;
    const ev = decodeEventLog({ abi: LOCKER_ABI, data: log.data, topics: log.topics });
    if (ev.eventName === eventName) out.push(ev.args);
  }
  return out;
}

const domains = new Map();
async function domainOf(t) {
  if (!domains.has(t)) {
    const d = await read(node.rpcUrl, { address: t, abi: TOKEN_ABI, functionName: 'eip712Domain' });
    domains.set(t, { name: d[1], version: d[2] });
  }
  return domains.get(t);
}

/** `privateKey`'s ReceiveWithAuthorization of `value` of `t` to the locker. */
async function pull(t, value, privateKey = TREASURY_KEY) {
  return signPull({
    privateKey, token: t, ...(await domainOf(t)), chainId: node.chainId, to: base.locker, value, nonce: randomNonce(),
    validBefore: (await now()) + 3600n,
  });
}

/**
 * The args of lock() for `locks` ([{ id, beneficiary, amount, unlockAt }]) of `t`, with a pull of
 * their total (or of `value`) signed by the treasury (or by `privateKey`).
 */
async function lockArgs(t, locks, { value, privateKey = TREASURY_KEY } = {}) {
  const total = locks.reduce((sum, l) => sum + l.amount, 0n);
  return [
    t,
    await pull(t, value ?? total, privateKey),
    locks.map((l) => l.id),
    locks.map((l) => l.beneficiary),
    locks.map((l) => l.amount),
    locks.map((l) => l.unlockAt),
  ];
}

// ------------------------------------------------------------------ setup

before(async () => {
  node = await startAnvil();
  base = await deployBase(node.rpcUrl);
  const salt = id32('locked-token');
  ({ token } = await deployToken(node.rpcUrl, base.factory, {
    salt, name: 'Locked', symbol: 'LOCK', supply: 10n ** 9n * E18, treasury: TREASURY.address, account: RELAYER,
  }));
});

after(async () => {
  await node?.stop();
});

// ------------------------------------------------------------------ deployment

describe('deployment', () => {
  test('deployBase deploys the locker after the market (account 0\'s nonce 10 on a fresh anvil), with the build\'s code', async () => {
    assert.equal(base.locker, '0x610178dA211FEF7D417bC0e6FeD39F05609AD788');
    // no constructor arguments and no immutables: the code on chain is the artifact's runtime code,
    // byte for byte, so anyone can match it against this source
    assert.equal(await codeAt(node.rpcUrl, base.locker), artifact('TokenpadLocker').deployedBytecode);
    assert.deepEqual(LOCKER_ABI.find((i) => i.type === 'constructor')?.inputs ?? [], []);
    gas['deploying the locker'] = BigInt(await rpc(node.rpcUrl, 'eth_estimateGas', [{ from: RELAYER.address, data: artifact('TokenpadLocker').bytecode }]));
  });

  test('no owner, no admin, no way out but release: its functions are these', () => {
    const fns = LOCKER_ABI.filter((i) => i.type === 'function').map((i) => `${i.name}:${i.stateMutability}`).sort();
    assert.deepEqual(fns, ['lock:nonpayable', 'lockKey:pure', 'locks:view', 'release:nonpayable']);
    assert.ok(!LOCKER_ABI.some((i) => i.type === 'receive' || i.type === 'fallback'));
  });
});

// ------------------------------------------------------------------ lock and release

describe('a presale\'s locks', () => {
  const buyers = Array.from({ length: 4 }, newAddress);
  let locks; // [{ id, beneficiary, amount, unlockAt }], unlocking in this order
  let keys; // their keys: lockKey(treasury, id)
  let total;

  test('the treasury locks for several buyers, with different unlock times, in one call', async () => {
    const t0 = await now();
    locks = buyers.map((beneficiary, i) => ({
      id: id32(`presale-1/buyer-${i}`),
      beneficiary,
      amount: BigInt(i + 1) * 1000n * E18 + BigInt(i),
      unlockAt: t0 + [100n, 200n, 1000n, 5000n][i],
    }));
    keys = locks.map((l) => keyOf(l.id));
    total = locks.reduce((s, l) => s + l.amount, 0n);
    const treasuryBefore = await bal(token, TREASURY.address);

    const { receipt } = await locker('lock', await lockArgs(token, locks));
    gas['lock (4 locks, one pull)'] = receipt.gasUsed;

    const locked = eventsOf(receipt, 'Locked');
    assert.deepEqual(locked, locks.map((l) => ({
      key: keyOf(l.id), token, beneficiary: l.beneficiary, owner: TREASURY.address, id: l.id, amount: l.amount, unlockAt: l.unlockAt,
    })));
    for (const l of locks) {
      assert.deepEqual(await lockOf(l.id), { token, amount: l.amount, beneficiary: l.beneficiary, unlockAt: l.unlockAt, released: false });
      assert.equal(await bal(token, l.beneficiary), 0n, 'a buyer holds nothing before its unlock');
    }
    assert.equal(await bal(token, base.locker), total, 'the locker holds the total');
    assert.equal(await bal(token, TREASURY.address), treasuryBefore - total);
  });

  test('a release before any unlock time releases nothing (and does not revert)', async () => {
    const { result, receipt } = await locker('release', [keys], { account: RELAYER });
    assert.equal(result, 0n);
    assert.deepEqual(eventsOf(receipt, 'Released'), []);
    assert.equal(await bal(token, base.locker), total);
    for (const l of locks) assert.equal((await lockOf(l.id)).released, false);
  });

  test('past two unlock times, anyone\'s release of every id releases exactly the two due locks', async () => {
    await timeTravel(locks[1].unlockAt - (await now()) + 10n);
    const { result, receipt } = await locker('release', [keys], { account: RELAYER });
    assert.equal(result, 2n);
    const due = locks.slice(0, 2);
    assert.deepEqual(eventsOf(receipt, 'Released'), due.map((l) => ({ key: keyOf(l.id), token, beneficiary: l.beneficiary, amount: l.amount })));
    for (const [i, l] of locks.entries()) {
      const isDue = i < 2;
      assert.equal(await bal(token, l.beneficiary), isDue ? l.amount : 0n);
      assert.deepEqual(await lockOf(l.id), { token, amount: l.amount, beneficiary: l.beneficiary, unlockAt: l.unlockAt, released: isDue });
    }
    assert.equal(await bal(token, base.locker), locks[2].amount + locks[3].amount);
  });

  test('a second release of the same ids releases nothing more', async () => {
    const { result, receipt } = await locker('release', [keys], { account: RELAYER });
    assert.equal(result, 0n);
    assert.deepEqual(eventsOf(receipt, 'Released'), []);
    assert.equal(await bal(token, locks[0].beneficiary), locks[0].amount);
    assert.equal(await bal(token, base.locker), locks[2].amount + locks[3].amount);
  });

  test('a lock is due at its unlock time exactly: one second before it is skipped', async () => {
    const l = locks[2];
    // (the eth_call before each send runs in the latest block, before the time set here)
    await setNextBlockTimestamp(node.rpcUrl, l.unlockAt - 1n);
    assert.equal((await locker('release', [[keyOf(l.id)]], { account: RELAYER, simulated: false })).result, 0n);
    await setNextBlockTimestamp(node.rpcUrl, l.unlockAt);
    const { result, receipt } = await locker('release', [[keyOf(l.id), keyOf(l.id)]], { account: RELAYER, simulated: false });
    assert.equal(result, 1n, 'an id twice in one batch is released once');
    assert.equal(eventsOf(receipt, 'Released').length, 1);
    assert.equal(await bal(token, l.beneficiary), l.amount);
  });

  test('the last one later, whoever calls; then the locker holds none of the token', async () => {
    await timeTravel(locks[3].unlockAt - (await now()));
    const { result } = await locker('release', [keys], { account: TREASURY });
    assert.equal(result, 1n);
    for (const l of locks) assert.equal(await bal(token, l.beneficiary), l.amount);
    assert.equal(await bal(token, base.locker), 0n);
  });

  test('locks of different tokens (USDC) in the same locker are paid in their own token', async () => {
    await mintUsdc(node.rpcUrl, base.usdc, TREASURY.address, 1000n * E6);
    const t0 = await now();
    const usdcLock = { id: id32('usdc/0'), beneficiary: buyers[0], amount: 250n * E6, unlockAt: t0 + 30n };
    const tokenLock = { id: id32('token/9'), beneficiary: buyers[0], amount: 7n * E18, unlockAt: t0 + 30n };
    await locker('lock', await lockArgs(base.usdc, [usdcLock]));
    await locker('lock', await lockArgs(token, [tokenLock]));
    assert.equal((await lockOf(usdcLock.id)).token, base.usdc);
    assert.equal(await bal(base.usdc, base.locker), usdcLock.amount);
    await timeTravel(60);
    const before = await bal(token, buyers[0]);
    const { result } = await locker('release', [[keyOf(usdcLock.id), keyOf(tokenLock.id)]], { account: RELAYER });
    assert.equal(result, 2n);
    assert.equal(await bal(base.usdc, buyers[0]), usdcLock.amount);
    assert.equal(await bal(token, buyers[0]), before + tokenLock.amount);
    assert.equal(await bal(base.usdc, base.locker), 0n);
  });

  test('an unlock time in the past makes a lock releasable at once', async () => {
    const l = { id: id32('already-due'), beneficiary: newAddress(), amount: 5n, unlockAt: 0n };
    await locker('lock', await lockArgs(token, [l]));
    assert.equal((await locker('release', [[keyOf(l.id)]], { account: RELAYER })).result, 1n);
    assert.equal(await bal(token, l.beneficiary), 5n);
  });
});

// ------------------------------------------------------------------ squatters

describe('ids are the caller\'s own: nobody can squat them', () => {
  let junk; // the squatter's own token, worthless

  before(async () => {
    ({ token: junk } = await deployToken(node.rpcUrl, base.factory, {
      salt: id32('junk'), name: 'Junk', symbol: 'JUNK', supply: 10n ** 6n * E18, treasury: SQUATTER.address, account: SQUATTER,
    }));
  });

  test('lockKey(owner, id) is keccak256(abi.encode(owner, id)), as computed off chain', async () => {
    for (const [owner, id] of [[TREASURY.address, id32('a')], [SQUATTER.address, id32('a')], [ZERO, `0x${'00'.repeat(32)}`], [base.locker, `0x${'ff'.repeat(32)}`]]) {
      const onChain = await read(node.rpcUrl, { address: base.locker, abi: LOCKER_ABI, functionName: 'lockKey', args: [owner, id] });
      assert.equal(onChain, keyOf(id, owner));
    }
    assert.notEqual(keyOf(id32('a'), TREASURY.address), keyOf(id32('a'), SQUATTER.address));
  });

  test('a squatter takes the ids of the treasury\'s reverted batch first; the treasury\'s batch under the same ids still succeeds', async () => {
    const unlockAt = (await now()) + 60n;
    const locks = [0, 1, 2].map((i) => ({ id: id32(`squatted/${i}`), beneficiary: newAddress(), amount: BigInt(i + 1) * E18, unlockAt }));
    // 1. The treasury's batch reverts on chain (here: a pull of the wrong value); its ids are now public.
    const bad = await lockArgs(token, locks, { value: 1n });
    await assert.rejects(
      send(node.rpcUrl, { address: base.locker, abi: LOCKER_ABI, functionName: 'lock', args: bad, account: TREASURY, gas: 1_000_000n }),
      /lock reverted in 0x/,
    );
    const block = await rpc(node.rpcUrl, 'eth_getBlockByNumber', ['latest', true]);
    const { args: seen } = decodeFunctionData({ abi: LOCKER_ABI, data: block.transactions.at(-1).input });
    assert.deepEqual(seen[2], locks.map((l) => l.id), 'the ids are in the reverted transaction for anyone to read');
    // 2. The squatter locks its own worthless token under every one of those ids, for itself.
    const squatted = seen[2].map((id) => ({ id, beneficiary: SQUATTER.address, amount: 1n, unlockAt: 0n }));
    const taken = await locker('lock', await lockArgs(junk, squatted, { privateKey: SQUATTER_KEY }), { account: SQUATTER });
    assert.deepEqual(eventsOf(taken.receipt, 'Locked').map((e) => [e.key, e.owner, e.id]), squatted.map((l) => [keyOf(l.id, SQUATTER.address), SQUATTER.address, l.id]));
    // 3. The treasury sends the same ids again: its locks are its own, under its own keys.
    const { receipt } = await locker('lock', await lockArgs(token, locks));
    assert.deepEqual(eventsOf(receipt, 'Locked').map((e) => [e.key, e.owner, e.id, e.beneficiary]), locks.map((l) => [keyOf(l.id), TREASURY.address, l.id, l.beneficiary]));
    for (const l of locks) {
      assert.deepEqual(await lockOf(l.id), { token, amount: l.amount, beneficiary: l.beneficiary, unlockAt: l.unlockAt, released: false });
      assert.deepEqual(await lockOf(l.id, SQUATTER.address), { token: junk, amount: 1n, beneficiary: SQUATTER.address, unlockAt: 0n, released: false });
    }
    // 4. Each namespace refuses its own id again, and only its own.
    assert.deepEqual(await revertOf(simulate('lock', await lockArgs(token, [locks[0]]))), { name: 'TokenpadLockerLockExists', args: [locks[0].id] });
    const again = await lockArgs(junk, [squatted[0]], { privateKey: SQUATTER_KEY });
    assert.deepEqual(await revertOf(simulate('lock', again, SQUATTER)), { name: 'TokenpadLockerLockExists', args: [locks[0].id] });
    // 5. Released by key, each pays its own beneficiary in its own token, and no one else.
    await timeTravel(120);
    const all = [...locks.map((l) => keyOf(l.id)), ...squatted.map((l) => keyOf(l.id, SQUATTER.address))];
    const squatterBefore = await bal(token, SQUATTER.address);
    const { result } = await locker('release', [all], { account: RELAYER });
    assert.equal(result, 6n);
    for (const l of locks) {
      assert.equal(await bal(token, l.beneficiary), l.amount);
      assert.equal(await bal(junk, l.beneficiary), 0n);
    }
    assert.equal(await bal(token, SQUATTER.address), squatterBefore, 'the squatter got none of the treasury\'s token');
    assert.equal(await bal(junk, base.locker), 0n);
  });
});

// ------------------------------------------------------------------ refusals

describe('refusals', () => {
  const later = async () => (await now()) + 3600n;
  const one = async (overrides = {}) => ({ id: id32(`refusal/${randomNonce()}`), beneficiary: newAddress(), amount: 10n * E18, unlockAt: await later(), ...overrides });

  test('a pull signed by someone other than the caller: TokenpadLockerPullNotFromCaller', async () => {
    // the treasury's genuine authorization, submitted by someone else with locks of their own
    const args = await lockArgs(token, [await one({ beneficiary: RELAYER.address })]);
    assert.deepEqual(await revertOf(simulate('lock', args, RELAYER)), { name: 'TokenpadLockerPullNotFromCaller', args: [TREASURY.address, RELAYER.address] });
  });

  test('a used pull cannot be replayed, even by the treasury: the token refuses the nonce', async () => {
    const args = await lockArgs(token, [await one()]);
    await locker('lock', args);
    const replay = [args[0], args[1], [id32(`replay/${randomNonce()}`)], args[3], args[4], args[5]];
    assert.equal((await revertOf(simulate('lock', replay))).name, 'EIP3009AuthorizationUsedOrCanceled');
  });

  test('an id used before, or twice in one call: TokenpadLockerLockExists', async () => {
    const first = await one();
    await locker('lock', await lockArgs(token, [first]));
    const again = await one({ id: first.id });
    assert.deepEqual(await revertOf(simulate('lock', await lockArgs(token, [await one(), again]))), { name: 'TokenpadLockerLockExists', args: [first.id] });
    const fresh = await one();
    assert.deepEqual(await revertOf(simulate('lock', await lockArgs(token, [fresh, { ...(await one()), id: fresh.id }]))), { name: 'TokenpadLockerLockExists', args: [fresh.id] });
    // a released lock's id stays used
    const due = await one({ unlockAt: 0n });
    await locker('lock', await lockArgs(token, [due]));
    await locker('release', [[keyOf(due.id)]], { account: RELAYER });
    assert.deepEqual(await revertOf(simulate('lock', await lockArgs(token, [{ ...(await one()), id: due.id }]))), { name: 'TokenpadLockerLockExists', args: [due.id] });
  });

  test('arrays of different lengths: TokenpadLockerLengthMismatch; no locks at all: TokenpadLockerNoLocks', async () => {
    const args = await lockArgs(token, [await one(), await one()]);
    for (const k of [2, 3, 4, 5]) {
      const bad = [...args];
      bad[k] = args[k].slice(1);
      assert.deepEqual(await revertOf(simulate('lock', bad)), { name: 'TokenpadLockerLengthMismatch', args: [] }, `array ${k}`);
    }
    assert.deepEqual(await revertOf(simulate('lock', [token, await pull(token, 0n), [], [], [], []])), { name: 'TokenpadLockerNoLocks', args: [] });
  });

  test('a pull whose value is not the sum of the amounts: TokenpadLockerValueMismatch', async () => {
    const locks = [await one(), await one({ amount: 3n })];
    const total = 10n * E18 + 3n;
    for (const value of [total - 1n, total + 1n]) {
      assert.deepEqual(await revertOf(simulate('lock', await lockArgs(token, locks, { value }))), { name: 'TokenpadLockerValueMismatch', args: [value, total] });
    }
  });

  test('an amount of 0 or of 2^96 or more: TokenpadLockerBadAmount; 2^96 - 1 is fine', async () => {
    for (const amount of [0n, UINT96_MAX + 1n]) {
      const l = await one({ amount });
      assert.deepEqual(await revertOf(simulate('lock', await lockArgs(token, [l]))), { name: 'TokenpadLockerBadAmount', args: [l.id] });
    }
    await mintUsdc(node.rpcUrl, base.usdc, TREASURY.address, UINT96_MAX);
    const max = await one({ amount: UINT96_MAX });
    await locker('lock', await lockArgs(base.usdc, [max]));
    assert.equal((await lockOf(max.id)).amount, UINT96_MAX);
  });

  test('the zero address as beneficiary: TokenpadLockerBadBeneficiary', async () => {
    const l = await one({ beneficiary: ZERO });
    assert.deepEqual(await revertOf(simulate('lock', await lockArgs(token, [await one(), l]))), { name: 'TokenpadLockerBadBeneficiary', args: [l.id] });
  });

  test('an unknown key in a release: TokenpadLockerUnknownLock (the whole batch); an id is not a key', async () => {
    const due = await one({ unlockAt: 0n });
    await locker('lock', await lockArgs(token, [due]));
    const unknown = keyOf(id32('never-locked'));
    assert.deepEqual(await revertOf(simulate('release', [[keyOf(due.id), unknown]], RELAYER)), { name: 'TokenpadLockerUnknownLock', args: [unknown] });
    // the treasury's id itself (rather than its key) names no lock
    assert.deepEqual(await revertOf(simulate('release', [[due.id]], RELAYER)), { name: 'TokenpadLockerUnknownLock', args: [due.id] });
    assert.deepEqual(await lockOf(id32('never-locked')), { token: ZERO, amount: 0n, beneficiary: ZERO, unlockAt: 0n, released: false });
    assert.equal((await lockOf(due.id)).released, false);
  });

  test('a pull short of the treasury\'s balance reverts with the token\'s error, and nothing is locked', async () => {
    const poor = DEV_KEYS[3];
    const from = DEV_ACCOUNTS[3];
    const l = await one();
    const p = await pull(token, l.amount, poor);
    const args = [token, p, [l.id], [l.beneficiary], [l.amount], [l.unlockAt]];
    assert.equal((await revertOf(simulate('lock', args, from))).name, 'ERC20InsufficientBalance');
    assert.equal((await lockOf(l.id, from.address)).beneficiary, ZERO);
  });
});

// ------------------------------------------------------------------ batches of 200

describe('a batch of 200', () => {
  const N = 200;
  const beneficiaries = Array.from({ length: N }, newAddress);
  const batch = (label, unlockAt) => beneficiaries.map((beneficiary, i) => ({ id: id32(`${label}/${i}`), beneficiary, amount: BigInt(i + 1) * E18, unlockAt }));
  let first;
  let second;

  test('200 locks fit in one transaction, well under a block and EIP-7825\'s 2^24 gas per transaction', async () => {
    const unlockAt = (await now()) + 60n;
    first = batch('batch-1', unlockAt);
    second = batch('batch-2', unlockAt);
    const { receipt } = await locker('lock', await lockArgs(token, first), { gas: 15_000_000n });
    const block = await rpc(node.rpcUrl, 'eth_getBlockByNumber', [toHex(receipt.blockNumber), false]);
    assert.ok(receipt.gasUsed < EIP7825_TX_GAS_CAP && receipt.gasUsed < BigInt(block.gasLimit), `${receipt.gasUsed}`);
    assert.equal(eventsOf(receipt, 'Locked').length, N);
    gas['lock, 200 locks'] = receipt.gasUsed;
    gas['lock, per lock in a batch of 200'] = receipt.gasUsed / BigInt(N);
    const one = await locker('lock', await lockArgs(token, [{ ...first[0], id: id32('batch-single') }]));
    gas['lock, 1 lock'] = one.receipt.gasUsed;
    gas['lock, each lock beyond the first'] = (receipt.gasUsed - one.receipt.gasUsed) / BigInt(N - 1);
    await locker('lock', await lockArgs(token, second), { gas: 15_000_000n });
  });

  test('200 releases fit in one transaction: to buyers without the token, then to buyers holding some', async () => {
    await timeTravel(120);
    const firstKeys = first.map((l) => keyOf(l.id));
    const { result, receipt } = await locker('release', [firstKeys], { account: RELAYER, gas: 15_000_000n });
    assert.equal(result, BigInt(N));
    assert.ok(receipt.gasUsed < EIP7825_TX_GAS_CAP);
    gas['release, 200 locks (new holders)'] = receipt.gasUsed;
    gas['release, per lock in a batch of 200 (new holders)'] = receipt.gasUsed / BigInt(N);
    const again = await locker('release', [second.map((l) => keyOf(l.id))], { account: RELAYER, gas: 15_000_000n });
    assert.equal(again.result, BigInt(N));
    gas['release, per lock in a batch of 200 (holders already holding the token)'] = again.receipt.gasUsed / BigInt(N);
    const skipped = await locker('release', [firstKeys], { account: RELAYER, gas: 15_000_000n });
    assert.equal(skipped.result, 0n);
    gas['release, per lock skipped (already released), batch of 200'] = skipped.receipt.gasUsed / BigInt(N);
    for (const i of [0, 99, 199]) assert.equal(await bal(token, beneficiaries[i]), first[i].amount + second[i].amount);
  });
});

test('gas used (anvil, cancun code)', (t) => {
  for (const [k, v] of Object.entries(gas)) t.diagnostic(`${k}: ${v}`);
  assert.ok(gas['lock, per lock in a batch of 200'] && gas['release, per lock in a batch of 200 (new holders)']);
});
