// tokenpad-evm against a real node (anvil): everything a settler signs, builds and parses is
// done by the Rust crate (through examples/evm_json.rs, one JSON command a line); this file
// only plays the Worker's part (HTTP to the node) and checks the chain's state with viem.
//
//   node --test crates/evm/tests/anvil.test.mjs
//
// Needs anvil and the contracts from the contracts branch: tests/chain/anvil.mjs and
// contracts/build/*.json (CHAIN_HELPERS=/path/to/tests/chain/anvil.mjs points elsewhere).
// Builds the example with cargo first (CARGO_TARGET_DIR is honoured).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getAddress, getContractAddress, keccak256, toBytes, toHex } from 'viem';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const HELPERS = process.env.CHAIN_HELPERS ?? join(ROOT, 'tests', 'chain', 'anvil.mjs');
const skip = existsSync(HELPERS) ? false : `${HELPERS} missing (merge the contracts branch or set CHAIN_HELPERS)`;
const chain = skip ? null : await import(pathToFileURL(HELPERS).href);

// Public anvil development keys (#1 relays; #0 deployed the base contracts) and derived holders.
const RELAYER = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const holderKey = (name) => keccak256(toBytes(`tokenpad-evm anvil test ${name}`));
const nonceOf = (name) => keccak256(toBytes(`nonce ${name}`));
const lower = (a) => a.toLowerCase();

let node; // { rpcUrl, chainId, stop }
let base; // { usdc, factory }
let rust; // (command) => answer
let stopRust;
let id = 0;

/** Starts the example binary once; commands go one a line, answers come back in order. */
function startRust() {
  execFileSync('cargo', ['build', '-q', '-p', 'tokenpad-evm', '--example', 'evm_json'], { cwd: ROOT, stdio: 'inherit' });
  const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target');
  const child = spawn(join(target, 'debug', 'examples', 'evm_json'), [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let queue = Promise.resolve();
  const ask = (command) => {
    const answer = queue.then(async () => {
      child.stdin.write(`${JSON.stringify(command)}\n`);
      const { value, done } = await lines.next();
      if (done) throw new Error('evm_json exited');
      const out = JSON.parse(value);
      if (out.failed) throw new Error(`evm_json ${command.op}: ${out.failed}`);
      return out;
    });
    queue = answer.catch(() => {});
    return answer;
  };
  return { ask, stop: () => child.stdin.end() };
}

/** A request built by the crate, sent as the Worker would, parsed by the crate (`parse`: more of the parse command, e.g. a receipt's locker). */
async function call(method, args, kind, parse = {}) {
  const { request } = await rust({ op: 'request', method, id: ++id, args });
  const res = await fetch(node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
  return rust({ op: 'parse', kind, response: await res.json(), ...parse });
}
async function ok(method, args, kind, parse) {
  const out = await call(method, args, kind, parse);
  assert.ok(!out.error, `${method}: ${JSON.stringify(out.error)}`);
  return out.result;
}

async function addressOf(secret) {
  return (await rust({ op: 'address', secret })).address;
}

/** A fee-market transaction from `secret`, nonce from the node's pending count. */
async function txFor(secret, { to, data = '0x', value = '0', gasLimit, nonce, fees } = {}) {
  const from = await addressOf(secret);
  const block = await ok('eth_get_block_by_number', { block: 'latest' }, 'block');
  const tip = BigInt(await ok('eth_max_priority_fee_per_gas', {}, 'u128'));
  const maxFee = 2n * BigInt(block.baseFeePerGas) + tip;
  const gas = gasLimit ?? (await ok('eth_estimate_gas', { from, to, data }, 'u64'));
  return {
    chainId: String(node.chainId),
    nonce: nonce ?? (await ok('eth_get_transaction_count', { address: from, block: 'pending' }, 'u64')),
    maxPriorityFeePerGas: String(fees?.tip ?? tip),
    maxFeePerGas: String(fees?.maxFee ?? maxFee),
    gasLimit: String(gas),
    to: to ?? null,
    value,
    data,
  };
}

/** Signs with the crate, sends, and returns { hash, sent } (sent: the parsed send answer). */
async function send(secret, tx) {
  const { raw, hash } = await rust({ op: 'sign_tx', secret, tx });
  const sent = await call('eth_send_raw_transaction', { raw }, 'hash');
  return { raw, hash, sent };
}

/** Sends and returns the crate-parsed receipt (anvil mines each transaction at once). */
async function settle(secret, txFields) {
  const tx = await txFor(secret, txFields);
  const { hash, sent } = await send(secret, tx);
  assert.equal(sent.result, hash, 'the node names the transaction by the hash the crate computed');
  // Anvil mines each transaction at once, but its receipt can lag the send by a moment.
  let receipt = null;
  for (let i = 0; i < 100 && !receipt; i++) {
    receipt = await ok('eth_get_transaction_receipt', { hash }, 'receipt');
    if (!receipt) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(receipt, `no receipt for ${hash}`);
  return { hash, tx, receipt };
}

const calldata = async (name, args) => (await rust({ op: 'calldata', call: name, args })).data;
const balance = async (token, owner) => ok('eth_call', { to: token, data: await calldata('balance_of', { owner }) }, 'balance');
const latestTimestamp = async () => BigInt((await ok('eth_get_block_by_number', { block: 'latest' }, 'block')).timestamp);

async function authorize(domain, secret, to, value, { validBefore, nonce, receive = false } = {}) {
  const from = await addressOf(secret);
  const authorization = {
    from,
    to,
    value: String(value),
    validAfter: '0',
    validBefore: String(validBefore ?? (await latestTimestamp()) + 3600n),
    nonce: nonce ?? nonceOf(`${from} ${to} ${value} ${++id}`),
  };
  return (await rust({ op: 'sign_auth', secret, domain, authorization, receive })).signed;
}

describe('tokenpad-evm on anvil', { skip }, () => {
  let moon; // { token, domain }
  const holders = ['alice', 'bob'].map(holderKey);

  before(async () => {
    ({ ask: rust, stop: stopRust } = startRust());
    node = await chain.startAnvil();
    base = await chain.deployBase(node.rpcUrl);
  });
  after(async () => {
    stopRust?.();
    await node?.stop();
  });

  test('chain id, head block and fee suggestion parse', async () => {
    assert.equal(await ok('eth_chain_id', {}, 'u64'), String(node.chainId));
    const block = await ok('eth_get_block_by_number', { block: 'latest' }, 'block');
    assert.ok(BigInt(block.baseFeePerGas) > 0n);
    assert.equal(block.number, await ok('eth_block_number', {}, 'u64'));
    assert.ok(BigInt(await ok('eth_get_balance', { address: await addressOf(RELAYER) }, 'u128')) > 10n ** 18n);
  });

  test('a crate-signed contract creation (to: None) deploys TestUSDC', async () => {
    const from = await addressOf(RELAYER);
    const { tx, receipt } = await settle(RELAYER, { data: chain.artifact('TestUSDC').bytecode, gasLimit: 3_000_000n });
    assert.equal(receipt.status, true);
    assert.equal(receipt.contractAddress, lower(getContractAddress({ from, nonce: BigInt(tx.nonce) })));
    const name = await chain.read(node.rpcUrl, { address: getAddress(receipt.contractAddress), abi: chain.artifact('TestUSDC').abi, functionName: 'name' });
    assert.equal(name, 'USD Coin');
  });

  test('factory deploy: the token lands at the predicted address and mints to the treasury', async () => {
    const relayer = await addressOf(RELAYER);
    const salt = keccak256(toBytes('moon'));
    const supply = 1_000_000n * 10n ** 18n;
    const data = await calldata('factory_deploy', { salt, name: 'Moon', symbol: 'MOON', supply: String(supply), treasury: relayer });
    const { receipt } = await settle(RELAYER, { to: base.factory, data });
    assert.equal(receipt.status, true);
    const token = lower(chain.tokenAddress(base.factory, getAddress(relayer), salt));
    const mint = receipt.logs.find((l) => l.transfer);
    assert.deepEqual(mint.transfer, { token, from: `0x${'0'.repeat(40)}`, to: relayer, value: String(supply) });
    assert.equal(await balance(token, relayer), String(supply));
    moon = { token, domain: { name: 'Moon', version: '1', chainId: String(node.chainId), verifyingContract: token } };
    const { domainSeparator } = await rust({ op: 'sign_auth', secret: holders[0], domain: moon.domain, authorization: { from: relayer, to: relayer, value: '0', validAfter: '0', validBefore: '1', nonce: nonceOf('x') } });
    const onChain = await chain.read(node.rpcUrl, { address: getAddress(token), abi: chain.artifact('TokenpadToken').abi, functionName: 'DOMAIN_SEPARATOR' });
    assert.equal(domainSeparator, onChain);
  });

  test('holders sign, the relayer settles them in one batch; logs and state agree', async () => {
    const [alice, bob] = await Promise.all(holders.map(addressOf));
    for (const h of [alice, bob]) {
      const { receipt } = await settle(RELAYER, { to: moon.token, data: await calldata('transfer', { to: h, amount: String(100n * 10n ** 18n) }) });
      assert.equal(receipt.status, true);
    }
    const carol = lower(getAddress(toHex(toBytes('carol', { size: 20 }))));
    const signed = [
      await authorize(moon.domain, holders[0], carol, 25n * 10n ** 18n),
      await authorize(moon.domain, holders[0], bob, 5n * 10n ** 18n),
      await authorize(moon.domain, holders[1], carol, 1n),
    ];
    const data = await calldata('batch_transfer_with_authorization', { signed });
    assert.equal(await ok('eth_call', { to: moon.token, data }, 'data'), '0x', 'the batch simulates cleanly');
    const { receipt } = await settle(RELAYER, { to: moon.token, data });
    assert.equal(receipt.status, true);

    const block = receipt.blockNumber;
    const logs = await ok('eth_get_logs', { fromBlock: block, toBlock: block, addresses: [moon.token], topics: [[keccak256(toBytes('Transfer(address,address,uint256)'))]] }, 'logs');
    assert.deepEqual(
      logs.map((l) => [l.transfer.from, l.transfer.to, l.transfer.value]),
      [[alice, carol, String(25n * 10n ** 18n)], [alice, bob, String(5n * 10n ** 18n)], [bob, carol, '1']],
    );
    assert.deepEqual(logs.map((l) => l.logIndex), receipt.logs.filter((l) => l.transfer).map((l) => l.logIndex));
    assert.equal(await balance(moon.token, carol), String(25n * 10n ** 18n + 1n));
    assert.equal(await balance(moon.token, alice), String(70n * 10n ** 18n));
    const used = await calldata('authorization_state', { authorizer: alice, nonce: signed[0].authorization.nonce });
    assert.equal(await ok('eth_call', { to: moon.token, data: used }, 'bool'), true);

    // The same batch again: the node's revert data names the contract's error.
    const again = await call('eth_call', { to: moon.token, data }, 'data');
    assert.equal(again.error.code, 3);
    assert.match(again.revertReason, /^EIP3009AuthorizationUsedOrCanceled: nonce 0x[0-9a-f]{64} of 0x[0-9a-fA-F]{40} is already used or canceled$/);
  });

  test('the packed batch calls: the treasury pays, then holders sign consecutive nonces; the contract reads what the crate packed', async () => {
    const [alice, bob] = await Promise.all(holders.map(addressOf));
    const treasury = await addressOf(RELAYER);
    const dave = lower(getAddress(toHex(toBytes('dave', { size: 20 }))));
    const top = (1n << 96n) - 1n; // the largest value the packed form carries
    const big = (1n << 79n) + 0x1234n; // most of the supply (10^24): the value's upper bytes are set
    const pay = await calldata('batch_transfer_packed', { transfers: [{ to: alice, amount: String(10n ** 18n) }, { to: dave, amount: String(big) }] });
    const paid = (await settle(RELAYER, { to: moon.token, data: pay })).receipt;
    assert.equal(paid.status, true);
    assert.deepEqual(paid.logs.filter((l) => l.transfer).map((l) => [l.transfer.from, l.transfer.to, l.transfer.value]), [
      [treasury, alice, String(10n ** 18n)],
      [treasury, dave, String(big)],
    ]);
    assert.equal(await balance(moon.token, dave), String(big));
    await assert.rejects(calldata('batch_transfer_packed', { transfers: [{ to: dave, amount: String(top + 1n) }] }), /does not fit the packed form/);

    // two holders, three consecutive nonces each (a counter, as the settler signs them)
    const nonce = (n) => toHex(BigInt(n), { size: 32 });
    const signed = [];
    for (let n = 100; n < 103; n++) {
      signed.push(await authorize(moon.domain, holders[0], dave, BigInt(n), { nonce: nonce(n) }));
      signed.push(await authorize(moon.domain, holders[1], alice, 1n, { nonce: nonce(n) }));
    }
    const before = { alice: BigInt(await balance(moon.token, alice)), bob: BigInt(await balance(moon.token, bob)) };
    const data = await calldata('batch_transfer_with_authorization_packed', { signed });
    const { receipt } = await settle(RELAYER, { to: moon.token, data });
    assert.equal(receipt.status, true);
    const transfers = receipt.logs.filter((l) => l.transfer).map((l) => [l.transfer.from, l.transfer.to, l.transfer.value]);
    assert.deepEqual(transfers, signed.map((x) => [x.authorization.from, x.authorization.to, x.authorization.value]));
    assert.equal(receipt.logs.length, signed.length, 'Transfer events only: no AuthorizationUsed from the packed batch');
    assert.equal(BigInt(await balance(moon.token, alice)), before.alice - (100n + 101n + 102n) + 3n);
    assert.equal(BigInt(await balance(moon.token, bob)), before.bob - 3n);
    for (const x of signed) {
      const state = await calldata('authorization_state', { authorizer: x.authorization.from, nonce: x.authorization.nonce });
      assert.equal(await ok('eth_call', { to: moon.token, data: state }, 'bool'), true);
    }
    const next = await calldata('authorization_state', { authorizer: alice, nonce: nonce(103) });
    assert.equal(await ok('eth_call', { to: moon.token, data: next }, 'bool'), false, 'the next nonce is still free');
    const again = await call('eth_call', { to: moon.token, data }, 'data');
    assert.match(again.revertReason, /^EIP3009AuthorizationUsedOrCanceled: nonce 0x0{62}64 of /);
  });

  test('revert reasons for an overdraft and an expired authorization', async () => {
    const carol = lower(getAddress(toHex(toBytes('carol', { size: 20 }))));
    const tooMuch = await authorize(moon.domain, holders[1], carol, 10n ** 30n);
    const overdraft = await call('eth_call', { to: moon.token, data: await calldata('batch_transfer_with_authorization', { signed: [tooMuch] }) }, 'data');
    assert.match(overdraft.revertReason, /^ERC20InsufficientBalance: 0x[0-9a-fA-F]{40} has \d+, needs 1000000000000000000000000000000$/);
    const expired = await authorize(moon.domain, holders[1], carol, 1n, { validBefore: 1n });
    const late = await call('eth_call', { to: moon.token, data: await calldata('transfer_with_authorization', { signed: expired }) }, 'data');
    assert.equal(late.revertReason, 'EIP3009AuthorizationExpired: valid only before 1');
  });

  test('USDC: mint, then a holder-signed transferWithAuthorization under version "2"', async () => {
    const [alice, bob] = await Promise.all(holders.map(addressOf));
    await settle(RELAYER, { to: base.usdc, data: await calldata('mint', { to: alice, amount: '60000000' }) });
    const domain = { name: 'USD Coin', version: '2', chainId: String(node.chainId), verifyingContract: lower(base.usdc) };
    const signed = await authorize(domain, holders[0], bob, 40_000_000n);
    const { receipt } = await settle(RELAYER, { to: base.usdc, data: await calldata('transfer_with_authorization', { signed }) });
    assert.equal(receipt.status, true);
    assert.equal(await balance(base.usdc, alice), '20000000');
    assert.equal(await balance(base.usdc, bob), '40000000');
  });

  test('locker: the crate\'s lock key is the contract\'s lockKey; a lock by the crate\'s calldata, released by key, read back by released()', async () => {
    const treasury = await addressOf(RELAYER); // holds Moon's supply, signs its own pull
    const lockerAbi = chain.artifact('TokenpadLocker').abi;
    const now = await latestTimestamp();
    const locks = ['a', 'b'].map((x, i) => ({
      id: keccak256(toBytes(`tokenpad-evm lock ${x}`)),
      beneficiary: lower(getAddress(toHex(toBytes(`buyer ${x}`, { size: 20 })))),
      amount: String(BigInt(i + 1) * 10n ** 18n),
      unlockAt: String(i === 0 ? 0n : now + 3600n),
    }));
    const keys = [];
    for (const l of locks) {
      const { key } = await rust({ op: 'lock_key', owner: treasury, id: l.id });
      const onChain = await chain.read(node.rpcUrl, { address: base.locker, abi: lockerAbi, functionName: 'lockKey', args: [treasury, l.id] });
      assert.equal(key, onChain);
      keys.push(key);
    }
    const signed = await authorize(moon.domain, RELAYER, lower(base.locker), 3n * 10n ** 18n, { receive: true });
    const lockData = await calldata('locker_lock', { token: moon.token, signed, locks });
    const { receipt: locked } = await settle(RELAYER, { to: base.locker, data: lockData });
    assert.equal(locked.status, true);
    for (const [i, l] of locks.entries()) {
      const [token, amount, beneficiary, unlockAt, released] = await chain.read(node.rpcUrl, { address: base.locker, abi: lockerAbi, functionName: 'locks', args: [keys[i]] });
      assert.deepEqual([lower(token), String(amount), lower(beneficiary), String(unlockAt), released], [moon.token, l.amount, l.beneficiary, l.unlockAt, false]);
    }
    // the first is due at once, the second in an hour: a release of both releases the first
    const releaseData = await calldata('locker_release', { keys });
    const { hash } = await settle(RELAYER, { to: base.locker, data: releaseData, gasLimit: 200_000n });
    const receipt = await ok('eth_get_transaction_receipt', { hash }, 'receipt', { locker: lower(base.locker) });
    assert.deepEqual(receipt.released, [keys[0]]);
    assert.equal(await balance(moon.token, locks[0].beneficiary), locks[0].amount);
    // ids are not keys: the node's revert data names the missing key
    const wrong = await call('eth_call', { to: base.locker, data: await calldata('locker_release', { keys: [locks[0].id] }) }, 'data');
    assert.equal(wrong.revertReason, `TokenpadLockerUnknownLock: no lock has key ${locks[0].id}`);
  });

  test('send errors, in anvil\'s words, classify', async (t) => {
    const said = (r) => t.diagnostic(`${r.sendError}: ${JSON.stringify(r.error)}`);
    // No ETH at all.
    const broke = holderKey('broke');
    const poor = await send(broke, await txFor(broke, { to: await addressOf(RELAYER), gasLimit: 21_000n }));
    said(poor.sent);
    assert.equal(poor.sent.sendError, 'InsufficientFunds', poor.sent.error?.message);

    // A fee cap under the base fee.
    const cheap = await txFor(RELAYER, { to: await addressOf(RELAYER), gasLimit: 21_000n, fees: { tip: 0n, maxFee: 1n } });
    const low = await send(RELAYER, cheap);
    said(low.sent);
    assert.equal(low.sent.sendError, 'Underpriced', low.sent.error?.message);

    // With mining paused: a duplicate, an unbumped replacement, a bumped one, then a stale nonce.
    await chain.rpc(node.rpcUrl, 'evm_setAutomine', [false]);
    try {
      const first = await txFor(RELAYER, { to: await addressOf(RELAYER), gasLimit: 21_000n });
      const a = await send(RELAYER, first);
      assert.equal(a.sent.result, a.hash);
      const dup = await call('eth_send_raw_transaction', { raw: a.raw }, 'hash');
      said(dup);
      assert.equal(dup.sendError, 'AlreadyKnown', dup.error?.message);
      const same = await send(RELAYER, { ...first, value: '1' });
      said(same.sent);
      assert.equal(same.sent.sendError, 'Underpriced', same.sent.error?.message);
      const { tx: bumped } = await rust({ op: 'bump', tx: first, percent: 10 });
      const b = await send(RELAYER, bumped);
      assert.equal(b.sent.result, b.hash, JSON.stringify(b.sent.error));
      const pending = await ok('eth_get_transaction_by_hash', { hash: b.hash }, 'transaction');
      assert.deepEqual(pending, { hash: b.hash, nonce: first.nonce, blockNumber: null });
      await chain.rpc(node.rpcUrl, 'evm_mine', []);
      assert.equal((await ok('eth_get_transaction_receipt', { hash: b.hash }, 'receipt')).status, true);
      assert.equal(await ok('eth_get_transaction_receipt', { hash: a.hash }, 'receipt'), null, 'the replaced one never lands');
      const stale = await send(RELAYER, { ...first, value: '2' });
      said(stale.sent);
      assert.equal(stale.sent.sendError, 'NonceTooLow', stale.sent.error?.message);
    } finally {
      await chain.rpc(node.rpcUrl, 'evm_setAutomine', [true]);
    }
  });
});
