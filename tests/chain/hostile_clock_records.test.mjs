// Issue 40, findings 6 and 7: releases wait for the chain's own clock, and records tell the
// truth (a job's block is its receipt's; presale records name the wallet that holds the money
// on chain). The chain's clock is put behind the service's by keeping the service's time
// travel from the node: the proxy answers the worker's evm_increaseTime itself (as a node
// restarted from an older state would have forgotten it). Each case ends with ledger ==
// chain, no relayer halted, and the holders' histories saying what happened.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeEventLog, getAddress, toEventSelector } from 'viem';
import { artifact, latestTimestamp, send } from './anvil.mjs';
import { LOCKER_ABI, OUTSIDER, eventually, fileWorld, sleep } from './hostile.mjs';

let h;
let c;
fileWorld((world) => {
  h = world;
  c = world.c;
});

const TRANSFER = toEventSelector(artifact('TestUSDC').abi.find((x) => x.type === 'event' && x.name === 'Transfer'));
/** The ERC-20 Transfer logs of `token` in a receipt: [{ from, to, value }]. */
function transfers(receipt, token) {
  return receipt.logs
    .filter((l) => getAddress(l.address) === getAddress(token) && l.topics[0] === TRANSFER)
    .map((l) => decodeEventLog({ abi: artifact('TestUSDC').abi, data: l.data, topics: l.topics }).args);
}

/** A launched presale of `M` (two buyers, 10 USDC each): { p, token, bought, buyers }. */
async function launched(M, overrides = {}) {
  const buyers = { a: await h.holder(M, 'a', 10), b: await h.holder(M, 'b', 10) };
  const p = await h.presale(M, (await h.createPresale(M, { targetUsdcAmount: 20, ...overrides })).id);
  for (const u of Object.keys(buyers)) await h.buy(M, u, p.id, 10);
  const done = await h.presaleOutcome(M, p.id);
  assert.equal(done.completionState.step, 'completed', JSON.stringify(done.completionState));
  await c.settled(M);
  return { p: done, token: done.tokenDeploymentInfo.tokenAddress, bought: BigInt(done.tokenDeploymentInfo.amountTokensBought), buyers };
}

test('finding 7: a token-creation job reports the block and the hash of its deployment\'s receipt', async () => {
  const M = await c.newMerchant('Job');
  const job = c.ok(await c.call('POST', '/merchant/create-token', { key: M.secretKey, body: { name: 'Jobbed', symbol: 'JOB' } }), 201);
  const done = await eventually('the job done', async () => {
    const j = c.ok(await c.call('GET', `/jobs/${job.jobId}`, { key: M.secretKey }));
    assert.equal(j.status, 'success', JSON.stringify(j));
    return j;
  });
  assert.match(done.transactionHash ?? '', /^0x[0-9a-f]{64}$/, JSON.stringify(done));
  const receipt = await h.canonicalReceipt(done.transactionHash, 'the deployment');
  assert.equal(receipt.status, '0x1');
  assert.equal(getAddress(receipt.to), getAddress(h.base.factory), 'deployed through the factory');
  assert.equal(done.blockNumber, Number(receipt.blockNumber), `the job says block ${done.blockNumber}; its transaction is in block ${Number(receipt.blockNumber)} (the head is ${await h.head()})`);
  await h.endsClean(M);
});

test('finding 7: presale buy, refund and allocation records name the merchant\'s wallet, which holds the money on chain, not the presale\'s signer', async () => {
  const M = await c.newMerchant('Counterparty');
  const wallet = getAddress(M.merchantAddress);
  const { p, buyers } = await launched(M);
  const signer = getAddress(p.signerAddress);
  assert.notEqual(signer, wallet, 'the setup: the presale has a signer address of its own');
  // A second presale that ends below 70 %: its buyer is refunded.
  const refundee = await h.holder(M, 'c', 10);
  const now = Number(c.ok(await c.call('GET', '/admin/time', { adminKey: h.w.adminKey })).nowUnix);
  const q = await h.createPresale(M, { targetUsdcAmount: 100, endTimestamp: now + 30 });
  await h.buy(M, 'c', q.id, 10);
  await c.settled(M);
  await c.advance(60);
  const ended = await h.presaleOutcome(M, q.id);
  assert.equal(ended.status, 'ended');
  await c.settled(M);

  const recordOf = async (userId, type) => {
    const r = (await h.history(M, userId)).find((x) => x.type === type);
    assert.ok(r, `${userId} has no ${type} record`);
    assert.equal(r.chainStatus, 'confirmed', JSON.stringify(r));
    return r;
  };
  const signers = { a: signer, b: signer, c: getAddress((await h.presale(M, q.id)).signerAddress) };
  const named = (u, r, side) => `${u}'s ${r.type} record names ${side} ${r[side]}: the merchant's wallet is ${wallet}, the presale's signer ${signers[u]}`;
  for (const [u, address] of [...Object.entries(buyers), ['c', refundee]]) {
    const buy = await recordOf(u, 'presale_buy');
    assert.equal(getAddress(buy.to), wallet, named(u, buy, 'to'));
    // On chain the buyer's USDC went to that wallet.
    const moved = transfers(await h.canonicalReceipt(buy.transactionHash, `${u}'s buy`), h.base.usdc);
    assert.ok(moved.some((t) => getAddress(t.from) === getAddress(address) && getAddress(t.to) === wallet), `${u}'s buy moved USDC to ${JSON.stringify(moved.map((t) => t.to))}`);
  }
  for (const u of Object.keys(buyers)) {
    const alloc = await recordOf(u, 'presale_allocation');
    assert.equal(getAddress(alloc.from), wallet, named(u, alloc, 'from'));
  }
  const refund = await recordOf('c', 'presale_refund');
  assert.equal(getAddress(refund.from), wallet, named('c', refund, 'from'));
  const back = transfers(await h.canonicalReceipt(refund.transactionHash, 'the refund'), h.base.usdc);
  assert.ok(back.some((t) => getAddress(t.from) === wallet && getAddress(t.to) === getAddress(refundee)), 'the refund came from the merchant\'s wallet on chain');
  await h.endsClean(M);
});

test('finding 6: with the chain\'s clock behind the service\'s, no release is sent before the chain\'s unlock time; once the chain passes it, one release lands', async () => {
  const M = await c.newMerchant('Clock');
  const { token, bought, buyers } = await launched(M, { lockDuration: 1 });
  const locks = await h.assertLocked(token, buyers, bought);
  const unlockAt = locks.reduce((t, l) => (BigInt(l.unlockAt) > t ? BigInt(l.unlockAt) : t), 0n);

  // The service's clock moves a day and a minute on; the node's does not.
  h.proxy.intercept = (call) => (call.method === 'evm_increaseTime' ? { result: '0x0' } : undefined);
  try {
    await c.advance(86_400 + 60);
  } finally {
    h.proxy.intercept = null;
  }
  const chainNow = await latestTimestamp(h.rpcUrl);
  assert.ok(chainNow < unlockAt, `the setup: the chain's time ${chainNow} is before the unlock time ${unlockAt}`);
  await sleep(500); // the service's unlocks come due
  const n0 = await h.nonce(M, 'pending');
  await sleep(6_000);
  const sentEarly = (await h.nonce(M, 'pending')) - n0;
  assert.equal(sentEarly, 0, `the relayer sent ${sentEarly} transactions in 6 s while the chain's time (${chainNow}) was before the unlock time (${unlockAt})`);
  assert.deepEqual(await h.lockerEvents('Released', token), [], 'nothing released early');

  // The chain's own clock passes the unlock time: the release goes out once, and lands.
  const n1 = await h.nonce(M, 'pending');
  await h.node('evm_increaseTime', [Number(unlockAt - chainNow) + 60]);
  await h.mine(1);
  await eventually('the shares released on chain', async () => {
    const released = await h.lockerEvents('Released', token);
    assert.equal(released.length, Object.keys(buyers).length, JSON.stringify(released.map((e) => e.beneficiary)));
    for (const u of Object.keys(buyers)) {
      const r = (await h.history(M, u)).find((x) => x.type === 'unlock');
      assert.equal(r?.chainStatus, 'confirmed', JSON.stringify(r));
      await h.canonicalReceipt(r.transactionHash, `${u}'s release`);
    }
  });
  await c.settled(M);
  assert.equal((await h.nonce(M, 'pending')) - n1, 1, 'one release transaction, sent once');
  assert.equal(await h.lockerBalance(token), 0n, 'the lock contract holds none of it');
  for (const u of Object.keys(buyers)) await h.noReversal(M, u);
  // The shares are the buyers' to move: one goes out.
  c.ok(await c.call('POST', '/holder/a/withdraw', { key: M.secretKey, body: { tokenAddress: token, amount: 1, toAddress: OUTSIDER.address } }));
  await h.endsClean(M);
});

test('a lock someone else released first: the settler\'s own release, skipped by the contract, counts as done and is not sent again', async () => {
  const M = await c.newMerchant('Released first');
  const { token, bought, buyers } = await launched(M, { lockDuration: 1 });
  const locks = await h.assertLocked(token, buyers, bought);
  const unlockAt = locks.reduce((t, l) => (BigInt(l.unlockAt) > t ? BigInt(l.unlockAt) : t), 0n);

  // The chain's clock passes the unlock time before the service's does, and an outsider
  // releases both locks (anyone may, once due: the tokens go to the buyers).
  await h.node('evm_increaseTime', [Number(unlockAt - (await latestTimestamp(h.rpcUrl))) + 60]);
  await h.mine(1);
  await send(h.rpcUrl, { address: h.base.locker, abi: LOCKER_ABI(), functionName: 'release', args: [locks.map((l) => l.key)], account: OUTSIDER, gas: 500_000n });
  assert.equal((await h.lockerEvents('Released', token)).length, 2, 'the outsider released both');

  // Then the service's clock reaches the unlock time (the node's is ahead already): its one
  // release transaction finds them released, and that is the release done.
  const n0 = await h.nonce(M, 'pending');
  h.proxy.intercept = (call) => (call.method === 'evm_increaseTime' ? { result: '0x0' } : undefined);
  try {
    await c.advance(86_400 + 60);
  } finally {
    h.proxy.intercept = null;
  }
  await eventually('each unlock confirmed', async () => {
    for (const u of Object.keys(buyers)) {
      const r = (await h.history(M, u)).find((x) => x.type === 'unlock');
      assert.equal(r?.chainStatus, 'confirmed', JSON.stringify(r));
    }
  });
  await c.settled(M);
  await sleep(2_000);
  assert.equal((await h.nonce(M, 'pending')) - n0, 1, 'one release transaction, not sent again and again');
  assert.equal((await h.lockerEvents('Released', token)).length, 2, 'released once each');
  for (const u of Object.keys(buyers)) await h.noReversal(M, u);
  await h.endsClean(M);
});
