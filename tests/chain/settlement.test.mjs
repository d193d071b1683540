// Settlement on a real EVM node (anvil from npm): tokenpad's ledger movements land on chain
// exactly once, whatever fails on the way. The worker talks to anvil through a proxy
// (rpc_proxy.mjs) so the tests can make the RPC fail, hang, or lose answers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { encodeAbiParameters, encodeFunctionData, keccak256, toFunctionSelector, toHex } from 'viem';
import { setTimeout as sleep } from 'node:timers/promises';
import { artifact, balanceOf, chainConfig, deployBase, DEV_ACCOUNTS, read, rpc, send, startAnvil } from './anvil.mjs';
import { startProxy } from './rpc_proxy.mjs';
import { startWorker } from '../http/harness.mjs';
import { checkedClient, eventLog, until as waitFor } from '../http/check.mjs';

let anvil;
let proxy;
let w;
const c = checkedClient(() => w);
const { call, ok, newMerchant, newToken, settled, reconciled } = c;
let M;
let T;
const E18 = 10n ** 18n;
const OUT = '0x00000000000000000000000000000000000a11ce';

const chainView = async () => ok(await call('GET', `/admin/merchants/${M.id}/chain`, { adminKey: w.adminKey }));
const nonce = async () => BigInt(await rpc(anvil.rpcUrl, 'eth_getTransactionCount', [M.merchantAddress, 'latest']));
const onChain = (owner, token = T.address) => balanceOf(anvil.rpcUrl, token, owner);
async function holder(userId) {
  const r = await call('PUT', `/holder/${userId}`, { key: M.secretKey });
  assert.ok([200, 201].includes(r.status), r.text);
  return r.json.address ?? ok(await call('GET', `/holder/${userId}`, { key: M.secretKey })).address;
}
const distribute = async (userId, amount) => c.assertMovement(ok(await call('POST', `/token/${T.address}/distribute`, {
  key: M.secretKey, body: { sendToId: userId, amount },
})));
const history = async (userId) => ok(await call('GET', `/holder/${userId}/transactions`, { key: M.secretKey })).data;
/** The transaction.* events of one history record, oldest first (every page of the log). */
async function eventsOf(rec) {
  return (await eventLog(w, M, { types: 'transaction.*' })).filter((e) => e.resource === `transaction:${rec.id}`);
}
/** check.mjs's `until`, polling a real node: every 50 ms, for up to 30 s. */
const until = (what, check) => waitFor(what, check, { timeoutMs: 30_000, every: 50 });
async function receipt(hash) {
  return rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash]);
}

before(async () => {
  anvil = await startAnvil();
  const base = await deployBase(anvil.rpcUrl);
  proxy = await startProxy(anvil.rpcUrl);
  w = await startWorker({
    chain: chainConfig(base, proxy.url, anvil.chainId),
    env: { CHAIN_REPLACE_AFTER_MS: '1500', CHAIN_RPC_TIMEOUT_MS: '1000' },
  });
  M = await newMerchant('Settlement');
  T = await newToken(M, { name: 'Settled', symbol: 'SET', canDistribute: true });
});
after(async () => {
  await w?.stop();
  await proxy?.stop();
  await anvil?.stop();
});

test('a token is deployed by the factory at the address the API gave, from the merchant relayer', async () => {
  const code = await rpc(anvil.rpcUrl, 'eth_getCode', [T.address, 'latest']);
  assert.ok(code.length > 2, 'the token has code');
  assert.equal(await onChain(M.merchantAddress), 10n ** 9n * E18, 'the whole supply is the treasury\'s');
  await reconciled(M);
});

test('a withdrawal lands real tokens at an outside address', async () => {
  const alice = await holder('alice');
  await distribute('alice', 10);
  const r = c.assertMovement(ok(await call('POST', '/holder/alice/withdraw', {
    key: M.secretKey, body: { tokenAddress: T.address, amount: 4, toAddress: OUT },
  })));
  assert.equal(r.to.toLowerCase(), OUT);
  await settled(M);
  assert.equal(await onChain(OUT), 4n * E18);
  assert.equal(await onChain(alice), 6n * E18);
  const [rec] = await history('alice');
  assert.equal(rec.type, 'withdraw');
  assert.equal(rec.chainStatus, 'confirmed');
  const mined = await receipt(rec.transactionHash);
  assert.equal(mined.status, '0x1');
  assert.equal(Number(mined.blockNumber), rec.blockNumber);
  // The settler's outcome is an event: created (pending) then confirmed, with the hash.
  const events = await eventsOf(rec);
  assert.deepEqual(events.map((e) => [e.type, e.data.object.chainStatus]),
    [['transaction.created', 'pending'], ['transaction.confirmed', 'confirmed']]);
  assert.equal(events[1].data.object.transactionHash, rec.transactionHash);
  assert.equal(events[1].data.userId, 'alice');
  await reconciled(M);
});

test('a burst of 500 distributions settles in far fewer than 500 transactions', async () => {
  const users = Array.from({ length: 50 }, (_, i) => `burst-${i}`);
  const addresses = [];
  for (const u of users) addresses.push(await holder(u));
  const before_ = await nonce();
  const jobs = [];
  for (let round = 0; round < 10; round++) for (const u of users) jobs.push(u);
  // 25 at a time, as a busy app would send them.
  for (let i = 0; i < jobs.length; i += 25) await Promise.all(jobs.slice(i, i + 25).map((u) => distribute(u, 1)));
  await settled(M, 120_000);
  const txs = Number((await nonce()) - before_);
  assert.ok(txs <= 25, `500 distributions took ${txs} transactions`);
  for (const a of addresses) assert.equal(await onChain(a), 10n * E18);
  const records = await history('burst-7');
  assert.equal(records.length, 10);
  assert.ok(records.every((r) => r.chainStatus === 'confirmed' && /^0x[0-9a-f]{64}$/.test(r.transactionHash)));
  await reconciled(M);
});

test('fault: killed between signing and broadcasting, it sends the same bytes once after the restart', async () => {
  const bob = await holder('bob');
  ok(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'halt_after_signing', merchantId: M.id, count: 1 } }));
  const n0 = await nonce();
  const sends0 = proxy.sends;
  await distribute('bob', 3);
  const signed = await until('a signed, unsent transaction', async () => (await chainView()).transactions.find((t) => t.state === 'signed'));
  assert.equal(proxy.sends, sends0, 'nothing was broadcast');
  assert.equal(await receipt(signed.hashes[0]), null);
  await w.crashAndRestart();
  await settled(M);
  const [rec] = await history('bob');
  assert.equal(rec.transactionHash, signed.hashes[0], 'the stored transaction is the one that landed');
  assert.equal((await receipt(rec.transactionHash)).status, '0x1');
  assert.equal(await nonce(), n0 + 1n, 'one transaction');
  assert.equal(await onChain(bob), 3n * E18, 'one transfer');
  await reconciled(M);
});

test("fault: a holder's own transfers, one killed between signing and broadcasting, one dropped once sent, land once each, signed with its nonces 0, 1, 2 in the packed call", async () => {
  const ines = await holder('ines');
  await distribute('ines', 10);
  await settled(M);
  const n0 = await nonce();
  const out0 = await onChain(OUT);
  const withdraw = async (amount) => c.assertMovement(ok(await call('POST', '/holder/ines/withdraw', {
    key: M.secretKey, body: { tokenAddress: T.address, amount, toAddress: OUT },
  })));
  // killed between signing and broadcasting: the same bytes (the same nonce) after the restart
  ok(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'halt_after_signing', merchantId: M.id, count: 1 } }));
  await withdraw(1);
  const signed = await until('a signed, unsent transaction', async () => (await chainView()).transactions.find((t) => t.state === 'signed'));
  await w.crashAndRestart();
  await settled(M);
  // dropped by the node once sent: the same bytes again
  await rpc(anvil.rpcUrl, 'evm_setAutomine', [false]);
  let sent;
  try {
    await withdraw(2);
    sent = await until('a sent transaction', async () => (await chainView()).transactions.find((t) => t.state === 'sent'));
    await rpc(anvil.rpcUrl, 'anvil_dropAllTransactions', []);
    await until('the same transaction back in the pool', async () => (await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [sent.hashes[0]])) !== null);
    await rpc(anvil.rpcUrl, 'evm_mine', []);
  } finally {
    await rpc(anvil.rpcUrl, 'evm_setAutomine', [true]);
  }
  await settled(M);
  await withdraw(3);
  await settled(M);
  assert.equal(await onChain(ines), 4n * E18, 'each once');
  assert.equal(await onChain(OUT), out0 + 6n * E18);
  assert.equal(await nonce(), n0 + 3n, 'three transactions');
  const records = (await history('ines')).filter((r) => r.type === 'withdraw').reverse();
  assert.deepEqual(records.map((r) => r.transactionHash), [signed.hashes[0], sent.hashes[0], records[2].transactionHash]);
  const packed = toFunctionSelector(artifact('TokenpadToken').abi.find((x) => x.name === 'batchTransferWithAuthorizationPacked'));
  for (const r of records) {
    assert.equal(r.chainStatus, 'confirmed');
    const tx = await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [r.transactionHash]);
    assert.equal(tx.input.slice(0, 10), packed, 'the packed call');
  }
  const used = (n) => read(anvil.rpcUrl, { address: T.address, abi: artifact('TokenpadToken').abi, functionName: 'authorizationState', args: [ines, toHex(n, { size: 32 })] });
  assert.deepEqual([await used(0), await used(1), await used(2), await used(3)], [true, true, true, false], 'her nonces 0, 1, 2');
  await reconciled(M);
});

test('after a restart, movements never reuse an id handed out before it', async () => {
  // Movement numbers are reserved in blocks (adapters/sql/rows.rs): the block in memory is
  // lost with the process, and numbering resumes past every number it may have handed out.
  await holder('renumbered');
  for (let i = 0; i < 3; i++) await distribute('renumbered', 1);
  const number = (r) => Number(/^mv(\d+)-\d+$/.exec(r.id)?.[1] ?? NaN);
  const before = [...await history('bob'), ...await history('renumbered')].map(number);
  assert.ok(before.length >= 4 && before.every(Number.isInteger), `${before}`);
  await w.crashAndRestart();
  for (let i = 0; i < 3; i++) await distribute('renumbered', 1);
  await settled(M);
  const after = (await history('renumbered')).map(number).filter((n) => !before.includes(n));
  assert.equal(after.length, 3, `renumbered's records: ${(await history('renumbered')).map((r) => r.id)}`);
  assert.ok(Math.min(...after) > Math.max(...before), `before ${before}, after ${after}`);
  await reconciled(M);
});

test('fault: the RPC failing, hanging, or losing the answer to a send: nothing lost, nothing doubled', async () => {
  const carol = await holder('carol');
  const n0 = await nonce();
  let expected = 0n;
  for (const mode of ['fail', 'hang', 'lose-sends']) {
    proxy.mode = mode;
    await distribute('carol', 2);
    expected += 2n;
    if (mode === 'lose-sends') {
      // The send reaches the node; the worker hears nothing back and keeps watching.
      await until('the transaction mined', async () => (await onChain(carol)) === expected * E18);
    } else {
      await sleep(2_500);
      proxy.mode = 'pass';
      const v = await chainView();
      assert.ok(v.openMovements >= 1, JSON.stringify(v));
      assert.match(v.relayer.error ?? '', /RPC endpoint did not answer/, JSON.stringify(v));
      assert.doesNotMatch(JSON.stringify(v), new RegExp(proxy.url.replace(/[.:/]/g, '.')), 'the RPC URL is never shown');
    }
    proxy.mode = 'pass';
    await settled(M);
    assert.equal(await onChain(carol), expected * E18, `${mode}: each movement once`);
  }
  assert.equal(await nonce(), n0 + 3n);
  // The error clears once it works again: at the end of the first whole round that goes
  // through (watch, send, scan), which can end just after the movements read as settled.
  await until('the relayer error cleared', async () => (await chainView()).relayer.error === undefined);
  await reconciled(M);
});

test('fault: a dropped transaction is sent again; a stuck one is replaced with a higher fee', async () => {
  const dave = await holder('dave');
  await rpc(anvil.rpcUrl, 'evm_setAutomine', [false]);
  try {
    const n0 = await nonce();
    // Dropped: the node forgets it; the settler sends the same bytes again.
    await distribute('dave', 1);
    const sent = await until('a sent transaction', async () => (await chainView()).transactions.find((t) => t.state === 'sent'));
    await rpc(anvil.rpcUrl, 'anvil_dropAllTransactions', []);
    assert.equal(await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [sent.hashes[0]]), null);
    await until('the same transaction back in the pool', async () => (await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [sent.hashes[0]])) !== null);
    await rpc(anvil.rpcUrl, 'evm_mine', []);
    await settled(M);
    assert.equal((await history('dave'))[0].transactionHash, sent.hashes[0]);
    // Stuck: still unmined after CHAIN_REPLACE_AFTER_MS, replaced (same nonce, higher fee).
    await distribute('dave', 1);
    const replaced = await until('a replacement', async () => (await chainView()).transactions.find((t) => t.hashes.length >= 2));
    const [first, second] = replaced.hashes;
    const fee = async (h) => BigInt((await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [h]))?.maxFeePerGas ?? 0);
    assert.ok((await fee(second)) > 0n);
    await rpc(anvil.rpcUrl, 'evm_mine', []);
    await settled(M);
    const [rec] = await history('dave');
    assert.ok(replaced.hashes.includes(rec.transactionHash), 'the record names the version that was mined');
    assert.equal(await receipt(first === rec.transactionHash ? second : first), null, 'the other version never landed');
    assert.equal(await nonce(), n0 + 2n);
    assert.equal(await onChain(dave), 2n * E18);
  } finally {
    await rpc(anvil.rpcUrl, 'evm_setAutomine', [true]);
  }
  await reconciled(M);
});

test('fault: a revert is a visible, compensated ledger entry; the rest of its batch settles', async () => {
  const erin = await holder('erin');
  const frank = await holder('frank');
  await distribute('erin', 5);
  await settled(M);
  // Someone moved erin's tokens behind the ledger's back: her next transfer reverts on chain.
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [erin, 0n]));
  await rpc(anvil.rpcUrl, 'anvil_setStorageAt', [T.address, slot, toHex(0n, { size: 32 })]);
  assert.equal(await onChain(erin), 0n);
  c.assertMovement(ok(await call('POST', '/holder/erin/withdraw', {
    key: M.secretKey, body: { tokenAddress: T.address, amount: 2, toAddress: OUT },
  })));
  await distribute('frank', 1);
  await settled(M);
  const records = await history('erin');
  const reversal = records.find((r) => r.type === 'reversal');
  const failed = records.find((r) => r.type === 'withdraw');
  assert.equal(failed.chainStatus, 'failed');
  assert.ok(reversal, JSON.stringify(records));
  assert.equal(reversal.amount, 2);
  assert.deepEqual((await eventsOf(failed)).map((e) => [e.type, e.data.object.chainStatus]),
    [['transaction.created', 'pending'], ['transaction.failed', 'failed']]);
  // The ledger gave erin her 2 back: as if the withdrawal had not happened.
  const bal = ok(await call('GET', `/holder/erin/token/${T.address}`, { key: M.secretKey }));
  assert.equal(bal.balance, 5);
  const v = await chainView();
  assert.match(v.failed[0].error, /ERC20InsufficientBalance/);
  assert.equal(await onChain(frank), E18, 'the other movement settled');
  // Reconciliation shows exactly the tampering: nothing lost or doubled.
  const r = ok(await call('GET', `/admin/merchants/${M.id}/reconcile`, { adminKey: w.adminKey }));
  assert.deepEqual(r.differences.map((d) => [d.owner, d.ledger, d.chain]), [[erin, 5, 0]]);
  await rpc(anvil.rpcUrl, 'anvil_setStorageAt', [T.address, slot, toHex(5n * E18, { size: 32 })]);
  await reconciled(M);
});

test('a relayer out of gas stops with the address to fund, and resumes once funded', async () => {
  const gina = await holder('gina');
  await rpc(anvil.rpcUrl, 'anvil_setBalance', [M.merchantAddress, '0x0']);
  await distribute('gina', 1);
  const v = await until('the out-of-gas error', async () => {
    const x = await chainView();
    return x.relayer.error?.includes('out of gas') ? x : null;
  });
  assert.ok(v.relayer.error.includes(M.merchantAddress), v.relayer.error);
  // The real cause, not the RPC endpoint.
  assert.doesNotMatch(v.relayer.error, /RPC endpoint/);
  assert.equal(v.openMovements, 1);
  assert.equal(await onChain(gina), 0n);
  // The holder's history says why its movement waits, and so does a job waiting to deploy.
  const page = ok(await call('GET', '/holder/gina/transactions', { key: M.secretKey }));
  assert.match(page.waiting ?? '', /out of gas.*Send ETH to/, JSON.stringify(page));
  const job = ok(await call('POST', '/merchant/create-token', { key: M.secretKey, body: { name: 'Waits', symbol: 'WAIT' } }), 201);
  const pending = ok(await call('GET', `/jobs/${job.jobId}`, { key: M.secretKey }));
  assert.equal(pending.status, 'pending');
  assert.match(pending.waiting ?? '', new RegExp(`out of gas.*${M.merchantAddress}`), JSON.stringify(pending));
  await rpc(anvil.rpcUrl, 'anvil_setBalance', [M.merchantAddress, '0x3635c9adc5dea00000']);
  await settled(M);
  assert.equal(await onChain(gina), E18);
  assert.equal(ok(await call('GET', '/holder/gina/transactions', { key: M.secretKey })).waiting, undefined);
  await reconciled(M);
});

test('a merchant the admin creates on a local node has gas for its relayer, and its first token deploys with no manual step', async () => {
  const created = ok(await call('POST', '/admin/merchants', { adminKey: w.adminKey, body: { name: 'Unfunded by hand' } }), 201);
  assert.ok(BigInt(await rpc(anvil.rpcUrl, 'eth_getBalance', [created.merchantAddress, 'latest'])) > 0n);
  const job = ok(await call('POST', '/merchant/create-token', { key: created.secretKey, body: { name: 'First', symbol: 'FIRST' } }), 201);
  const done = await until('the first token deployed', async () => {
    const j = ok(await call('GET', `/jobs/${job.jobId}`, { key: created.secretKey }));
    return j.status === 'pending' ? null : j;
  });
  assert.equal(done.status, 'success', JSON.stringify(done));
});

test('deposits from outside are noticed in the Transfer logs and credited once', async () => {
  const hana = await holder('hana');
  const outsider = DEV_ACCOUNTS[1];
  // USDC sent to a holder by someone else (test USDC: anyone can mint it).
  const { transactionHash: hash } = await send(anvil.rpcUrl, {
    address: w.chain.usdc, abi: artifact('TestUSDC').abi, functionName: 'mint', args: [hana, 7_000_000n], account: outsider,
  });
  const dep = await until('the USDC deposit', async () => (await history('hana')).find((r) => r.type === 'deposit'));
  assert.equal(dep.transactionHash, hash);
  assert.equal(dep.chainStatus, 'confirmed');
  assert.equal(dep.amount, 7);
  // The merchant's token, from an outside wallet it was withdrawn to.
  await distribute('hana', 3);
  ok(await call('POST', '/holder/hana/withdraw', { key: M.secretKey, body: { tokenAddress: T.address, amount: 3, toAddress: outsider.address } }));
  await settled(M);
  const back = await send(anvil.rpcUrl, {
    address: T.address, abi: artifact('TokenpadToken').abi, functionName: 'transfer', args: [hana, E18], account: outsider,
  });
  const tokenDep = await until('the token deposit', async () => (await history('hana')).find((r) => r.type === 'deposit' && r.tokenAddress === T.address));
  assert.equal(tokenDep.transactionHash, back.transactionHash);
  assert.equal(tokenDep.amount, 1);
  await sleep(1_000); // more scans: still once
  assert.equal((await history('hana')).filter((r) => r.type === 'deposit').length, 2);
  await reconciled(M);
});

test('a reorganization undoes a deposit it removed, and the same transfer in the new chain credits it again', async () => {
  const rita = await holder('rita');
  await settled(M);
  const outsider = DEV_ACCOUNTS[2];
  // The outsider's USDC transfer, signed once: the same bytes go out again after the reorg.
  const data = encodeFunctionData({ abi: artifact('TestUSDC').abi, functionName: 'mint', args: [rita, 4_000_000n] });
  const nonce = Number(BigInt(await rpc(anvil.rpcUrl, 'eth_getTransactionCount', [outsider.address, 'latest'])));
  const raw = await outsider.signTransaction({
    to: w.chain.usdc, data, nonce, gas: 120_000n, maxFeePerGas: 50_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n,
    chainId: 31337, type: 'eip1559',
  });
  const hash = await rpc(anvil.rpcUrl, 'eth_sendRawTransaction', [raw]);
  const dep = await until('the deposit', async () => (await history('rita')).find((r) => r.type === 'deposit'));
  assert.equal(dep.transactionHash, hash);
  const usdcOf = async () => ok(await call('GET', `/holder/rita/token/${w.chain.usdc}`, { key: M.secretKey })).balance;
  assert.equal(await usdcOf(), 4);
  // Let the scans pass the block (a checkpoint after it), then replace it and the rest.
  await rpc(anvil.rpcUrl, 'evm_mine');
  await sleep(1_000);
  const head = Number(BigInt(await rpc(anvil.rpcUrl, 'eth_blockNumber')));
  await rpc(anvil.rpcUrl, 'anvil_reorg', [head - dep.blockNumber + 1, []]);
  assert.equal(await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash]), null, 'the deposit is gone from the chain');
  const undone = await until('the deposit undone', async () => (await history('rita')).find((r) => r.type === 'reversal'));
  assert.equal(undone.amount, 4);
  assert.equal(await usdcOf(), 0);
  await reconciled(M);
  // The same transfer, mined in the new chain: credited again, once.
  await rpc(anvil.rpcUrl, 'eth_sendRawTransaction', [raw]);
  await until('the deposit again', async () => (await history('rita')).filter((r) => r.type === 'deposit').length === 2);
  assert.equal(await usdcOf(), 4);
  await sleep(1_000); // more scans: still once
  assert.equal((await history('rita')).filter((r) => r.type === 'deposit').length, 2);
  await reconciled(M);
});

test('a token with no code on chain holds its movements back and says so, instead of "settling" them', async () => {
  const ivy = await holder('ivy');
  const code = await rpc(anvil.rpcUrl, 'eth_getCode', [T.address, 'latest']);
  // As if its deployment had not happened: a call to an address without code succeeds and moves nothing.
  await rpc(anvil.rpcUrl, 'anvil_setCode', [T.address, '0x']);
  try {
    await distribute('ivy', 1);
    const v = await until('the held movement', async () => {
      const x = await chainView();
      return x.relayer.error?.includes('has no code') ? x : null;
    });
    assert.equal(v.openMovements, 1);
    assert.equal(v.transactions.length, 0, 'nothing was sent');
  } finally {
    await rpc(anvil.rpcUrl, 'anvil_setCode', [T.address, code]);
  }
  await settled(M);
  assert.equal(await onChain(ivy), E18);
  await reconciled(M);
});
