// Issue 40, item 4: no loss that goes unseen. What an operator sees and can do, over HTTP on a
// real node (anvil, behind the hostile suites' proxy), with settlement counted as stuck after
// 3 s (CHAIN_STUCK_AFTER_MS):
// - a refund the chain refuses (the treasury's USDC gone from its balance on chain) is parked:
//   the merchant's chain view lists it, says settlement is stuck and what to do; /health counts
//   it without naming the merchant; GET /admin/chain lists the merchant; a retry before the
//   repair parks it again, and after the repair it settles and the stuck report clears;
// - the merchant's own view (GET /merchant/chain, its secret key) shows its relayer and the ETH
//   balance a settler round read (the node's eth_getBalance once nothing is in flight), and the
//   same parked movement as the operator's view;
// - a transaction the node never mines is stuck past the threshold, and clears once mined;
// - a debt left in the books with nothing open to pay it (planted: `orphan_debt`, as a
//   settlement bug would leave one) is stuck past the threshold, said with its amount and
//   sides, and where to look;
// - reconcile's step checks agree with a launched presale (its locks, its pool, its raise) and
//   name a lock released on chain (by anyone, after its time on chain) that the ledger still
//   holds locked.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { encodeAbiParameters, getAddress, keccak256, toHex } from 'viem';
import { artifact, balanceOf, latestTimestamp, send } from './anvil.mjs';
import { LOCKER_ABI, OUTSIDER, eventually, hostileWorld } from './hostile.mjs';
import { api } from '../http/harness.mjs';
import { assertMatches } from '../http/openapi.mjs';

const STUCK_AFTER_MS = 3000;
let h;
let c;
before(async () => {
  h = await hostileWorld({ env: { CHAIN_STUCK_AFTER_MS: String(STUCK_AFTER_MS) } });
  c = h.c;
});
after(async () => {
  await h?.stop();
});

const admin = async (method, path, status = 200) => c.ok(await h.admin(method, path), status);
/** /health as it answers, checked against openapi.json. */
async function health() {
  const r = await api(h.w, 'GET', '/health');
  assertMatches('GET', '/health', r.status, r.json);
  return r;
}
/** The storage slot of `owner`'s balance in TestUSDC (OpenZeppelin's ERC20: `_balances` is slot 0). */
const balanceSlot = (owner) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 0n]));

test('a refund the chain refuses is parked: the chain view, /health and GET /admin/chain say so with what to do; retried once repaired, it settles and the report clears', async () => {
  const M = await c.newMerchant('Parked');
  const wallet = getAddress(M.merchantAddress);
  const usdc = h.base.usdc;
  const buyer = await h.holder(M, 'a', 10);
  const now = Number(c.ok(await c.call('GET', '/admin/time', { adminKey: h.w.adminKey })).nowUnix);
  const q = await h.createPresale(M, { targetUsdcAmount: 100, endTimestamp: now + 30 });
  await h.buy(M, 'a', q.id, 10);
  await c.settled(M);

  // The merchant's own view (GET /merchant/chain, its secret key): its relayer, and the ETH
  // balance a settler round read in the batch that reads the chain's head. Nothing is in
  // flight now, so the next rounds read what the node has.
  const mine = async () => c.ok(await c.call('GET', '/merchant/chain', { key: M.secretKey }));
  const own = await eventually('the relayer\'s balance read by a round after settling', async () => {
    const x = await mine();
    assert.match(x.relayer?.balanceWei ?? '', /^[0-9]+$/, JSON.stringify(x));
    assert.equal(x.relayer.balanceWei, BigInt(await h.node('eth_getBalance', [wallet, 'latest'])).toString());
    return x;
  });
  assertMatches('GET', '/merchant/chain', 200, own);
  assert.equal(own.kind, 'evm');
  assert.equal(own.chainId, Number(await h.node('eth_chainId')));
  assert.equal(getAddress(own.relayer.address), wallet);
  assert.ok(BigInt(own.relayer.balanceWei) > 0n, own.relayer.balanceWei);
  assert.ok(Date.parse(own.relayer.balanceAt) > 0, own.relayer.balanceAt);
  assert.equal(own.relayer.stopped, false);
  assert.equal(own.relayer.error, null);
  assert.deepEqual([own.openMovements, own.transactions, own.parked], [0, [], []]);
  const operators = await h.view(M);
  assert.equal(own.relayer.nextNonce, operators.relayer.nextNonce);

  // The treasury's USDC leaves it on chain (as if its key moved it away): its balance slot is
  // emptied, so the refund the presale's end makes is a transfer the token refuses.
  const slot = balanceSlot(wallet);
  const held = await h.node('eth_getStorageAt', [usdc, slot, 'latest']);
  assert.equal(BigInt(held), 10_000_000n, 'the setup: the slot is the treasury\'s balance of the 10 USDC raised');
  await h.node('anvil_setStorageAt', [usdc, slot, toHex(0n, { size: 32 })]);
  assert.equal(await balanceOf(h.rpcUrl, usdc, wallet), 0n);
  await c.advance(60); // the presale ends below its target: its buyer is refunded

  let v = await eventually('the refund parked in the chain view', async () => {
    const x = await h.view(M);
    assert.equal(x.parked.length, 1, JSON.stringify(x));
    return x;
  });
  const [p] = v.parked;
  // The merchant sees the same parked movement, mapped as the operator's view maps it.
  assert.deepEqual((await mine()).parked, v.parked);
  assert.equal(p.movement, 'transfer');
  assert.equal(getAddress(p.tokenAddress), getAddress(usdc));
  assert.match(p.why, /^reverted on chain/, p.why);
  assert.ok(Date.parse(p.since) > 0, p.since);
  assert.equal(v.stuckAfterMs, STUCK_AFTER_MS);
  const parked = v.stuck.find((i) => i.kind === 'parked');
  assert.ok(parked, `not stuck: ${JSON.stringify(v.stuck)}`);
  assert.equal(parked.count, 1);
  assert.ok(parked.action.includes(`POST /admin/merchants/${M.id}/chain/retry`), parked.action);
  assert.ok(parked.action.includes(wallet), `the action names the treasury to fund: ${parked.action}`);
  const refund = (await h.history(M, 'a')).find((x) => x.type === 'presale_refund');
  assert.equal(refund?.chainStatus, 'pending', `the refund is kept, not undone: ${JSON.stringify(refund)}`);

  // /health counts it and says so, naming no merchant; ok stays true.
  const hr = await eventually('/health to count a stuck merchant', async () => {
    const r = await health();
    assert.ok(r.json.chain.relayers.stuck >= 1, r.text);
    return r;
  });
  assert.equal(hr.status, 200);
  assert.equal(hr.json.ok, true);
  assert.match(hr.json.warning, /GET \/admin\/chain/);
  assert.ok(!hr.text.includes(M.id) && !hr.text.toLowerCase().includes(wallet.toLowerCase()), `/health names the merchant: ${hr.text}`);
  // GET /admin/chain lists it, with why and what to do.
  const o = await admin('GET', '/admin/chain');
  assert.equal(o.kind, 'evm');
  assert.equal(o.node.status, 'reachable');
  const listed = o.stuck.find((s) => s.merchantId === M.id);
  assert.ok(listed, JSON.stringify(o));
  assert.equal(listed.issues[0].kind, 'parked');
  assert.ok(listed.issues[0].action.includes(`/admin/merchants/${M.id}/chain/retry`));

  // A retry before the repair sends it again: the chain refuses it again, and it is parked again.
  assert.deepEqual(await admin('POST', `/admin/merchants/${M.id}/chain/retry`), { success: true, merchantId: M.id, retried: 1 });
  v = await eventually('the refund sent again and parked again', async () => {
    const x = await h.view(M);
    assert.equal(x.parked[0]?.attempts, 2, JSON.stringify(x.parked));
    return x;
  });
  // Repaired (the treasury's USDC back), retried: the refund lands and nothing is stuck.
  await h.node('anvil_setStorageAt', [usdc, slot, toHex(10_000_000n, { size: 32 })]);
  assert.equal((await admin('POST', `/admin/merchants/${M.id}/chain/retry`)).retried, 1);
  await c.settled(M);
  assert.equal(await balanceOf(h.rpcUrl, usdc, buyer), 10_000_000n, 'the buyer has its USDC back on chain');
  const back = (await h.history(M, 'a')).find((x) => x.type === 'presale_refund');
  assert.equal(back.chainStatus, 'confirmed', JSON.stringify(back));
  await h.canonicalReceipt(back.transactionHash, 'the refund');
  v = await h.view(M);
  assert.deepEqual([v.parked, v.stuck], [[], []]);
  assert.equal((await admin('POST', `/admin/merchants/${M.id}/chain/retry`)).retried, 0, 'nothing parked: nothing to retry');
  await eventually('GET /admin/chain to drop the merchant', async () => {
    const x = await admin('GET', '/admin/chain');
    assert.ok(!x.stuck.some((s) => s.merchantId === M.id), JSON.stringify(x.stuck));
  });
  const r = await h.endsClean(M);
  assert.deepEqual(r.steps, []);

  // The route's refusals: an unknown merchant, no admin key.
  c.fails(await h.admin('POST', `/admin/merchants/${'0'.repeat(32)}/chain/retry`), 404, 'merchant_not_found');
  c.fails(await h.admin('POST', '/admin/merchants/not-a-merchant/chain/retry'), 404, 'merchant_not_found');
  c.fails(await c.call('POST', `/admin/merchants/${M.id}/chain/retry`), 401, 'invalid_admin_key');
});

test('a transaction the node never mines is stuck past the threshold, with what to do; mined, it clears', async () => {
  const M = await c.newMerchant('Unmined');
  const t = await c.newToken(M, { name: 'Held', symbol: 'HELD', canDistribute: true });
  await h.holder(M, 'ann');
  const hold = h.holdSends(artifact('TokenpadToken').abi, ({ call }) => ['batchTransfer', 'batchTransferPacked', 'transfer'].includes(call.functionName));
  try {
    c.ok(await c.call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { sendToId: 'ann', amount: 1 } }));
    const v = await eventually('the held transaction stuck', async () => {
      const x = await h.view(M);
      assert.ok(x.stuck.some((i) => i.kind === 'unmined'), JSON.stringify(x.stuck));
      return x;
    }, { timeoutMs: 20_000 });
    const unmined = v.stuck.find((i) => i.kind === 'unmined');
    assert.ok(hold.held.length >= 1, 'the setup: the node never saw it');
    assert.match(unmined.action, /GET \/health/);
    // `since` is on the service's clock (which the first test moved on).
    const serviceMs = Date.parse(c.ok(await c.call('GET', '/admin/time', { adminKey: h.w.adminKey })).now);
    assert.ok(serviceMs - Date.parse(unmined.since) > STUCK_AFTER_MS, `${unmined.since} is not ${STUCK_AFTER_MS} ms before ${new Date(serviceMs).toISOString()}`);
  } finally {
    await hold.release();
  }
  await c.settled(M);
  assert.deepEqual((await h.view(M)).stuck, []);
  await h.endsClean(M);
});

test('a debt left in the books with nothing open to pay it is stuck past the threshold, with what it is and where to look', async () => {
  const M = await c.newMerchant('Unpaid');
  await h.holder(M, 'a', 1);
  await c.settled(M);
  assert.deepEqual((await h.view(M)).stuck, []);
  const planted = c.ok(await h.admin('POST', '/admin/faults', { kind: 'orphan_debt', merchantId: M.id }));
  assert.equal(planted.kind, 'orphan_debt');
  const v = await eventually('the debt stuck', async () => {
    const x = await h.view(M);
    assert.ok(x.stuck.some((i) => i.kind === 'unpaid'), JSON.stringify(x.stuck));
    return x;
  }, { timeoutMs: 20_000 });
  assertMatches('GET', `/admin/merchants/${M.id}/chain`, 200, v);
  const unpaid = v.stuck.find((i) => i.kind === 'unpaid');
  assert.equal(unpaid.count, 1);
  assert.match(unpaid.what, /0\.000001 USDC owed by 0x[dDeE]{40} to the supply/, unpaid.what);
  assert.ok(unpaid.action.includes(`GET /admin/merchants/${M.id}/reconcile`), unpaid.action);
  const serviceMs = Date.parse(c.ok(await c.call('GET', '/admin/time', { adminKey: h.w.adminKey })).now);
  assert.ok(serviceMs - Date.parse(unpaid.since) > STUCK_AFTER_MS, `${unpaid.since} is not ${STUCK_AFTER_MS} ms before ${new Date(serviceMs).toISOString()}`);
  // GET /admin/chain lists the merchant with it (the settler's report to the registry).
  await eventually('GET /admin/chain to list the merchant', async () => {
    const x = await admin('GET', '/admin/chain');
    const listed = x.stuck.find((s) => s.merchantId === M.id);
    assert.ok(listed?.issues.some((i) => i.kind === 'unpaid'), JSON.stringify(x.stuck));
  });
  // The balances are untouched: reconciliation agrees.
  const r = await admin('GET', `/admin/merchants/${M.id}/reconcile`);
  assert.deepEqual(r.differences, []);
});

test('reconcile checks what each completed step did: a launch\'s locks, pool and raise agree; a lock released on chain while the ledger holds it is named', async () => {
  const M = await c.newMerchant('Steps');
  const buyers = { a: await h.holder(M, 'a', 10), b: await h.holder(M, 'b', 10) };
  const p = await h.createPresale(M, { targetUsdcAmount: 20, lockDuration: 1 });
  for (const u of Object.keys(buyers)) await h.buy(M, u, p.id, 10);
  const done = await h.presaleOutcome(M, p.id);
  assert.equal(done.completionState.step, 'completed', JSON.stringify(done.completionState));
  const token = done.tokenDeploymentInfo.tokenAddress;
  const r = await h.endsClean(M);
  assert.deepEqual(r.steps, [], JSON.stringify(r.steps));
  assert.equal(r.stepsChecked, 4, 'two locks, the pool, the raise');

  // The chain's clock passes the unlock time (the service's does not), and an outsider
  // releases buyer a's lock: anyone may, and its tokens go to a.
  const [lock] = (await h.lockerEvents('Locked', token)).filter((e) => getAddress(e.beneficiary) === getAddress(buyers.a));
  assert.ok(lock, 'the setup: a\'s lock is on chain');
  const chainNow = await latestTimestamp(h.rpcUrl);
  await h.node('evm_increaseTime', [Number(BigInt(lock.unlockAt) - chainNow) + 60]);
  await h.mine(1);
  await send(h.rpcUrl, { address: h.base.locker, abi: LOCKER_ABI(), functionName: 'release', args: [[lock.key]], account: OUTSIDER, gas: 300_000n });
  assert.equal((await h.lockerEvents('Released', token)).length, 1, 'the setup: released on chain');

  const after = c.ok(await c.call('GET', `/admin/merchants/${M.id}/reconcile`, { adminKey: h.w.adminKey }));
  assert.equal(after.steps.length, 1, JSON.stringify(after.steps));
  const [m] = after.steps;
  assert.equal(m.kind, 'lock');
  assert.equal(getAddress(m.tokenAddress), getAddress(token));
  assert.ok(m.what.includes(lock.key.toLowerCase()) && m.what.includes(getAddress(buyers.a)), m.what);
  assert.match(m.ledger, /^locked: /);
  assert.match(m.chain, /^released: /);
  // The balances say it too: a holds on chain what the ledger keeps in the lock contract.
  assert.ok(after.differences.some((d) => getAddress(d.owner) === getAddress(buyers.a)), JSON.stringify(after.differences));
});

test('a CHAIN_FACTORY that deploys another token code: no token is deployed where the ledger does not look, and the chain view says why and what to do', async () => {
  // The lock contract stands in for a factory of another release: it deploys no tokenpad token.
  const wrong = await hostileWorld({ env: { CHAIN_FACTORY: h.base.locker, CHAIN_STUCK_AFTER_MS: String(STUCK_AFTER_MS) } });
  try {
    const w = wrong.c;
    const M = await w.newMerchant('Wrong factory');
    const job = w.ok(await w.call('POST', '/merchant/create-token', { key: M.secretKey, body: { name: 'Nowhere', symbol: 'NOWH' } }), 201);
    const v = await eventually('the chain view says why deployments wait', async () => {
      const view = w.ok(await w.call('GET', `/admin/merchants/${M.id}/chain`, { adminKey: wrong.w.adminKey }));
      assert.match(view.relayer?.error ?? '', /CHAIN_FACTORY .* does not deploy this release's token code.*deploy-contracts/, JSON.stringify(view));
      return view;
    });
    assert.equal(v.openMovements, 1, 'the deployment waits');
    const stuck = await eventually('stuck past the threshold, with what to do', async () => {
      const view = w.ok(await w.call('GET', `/admin/merchants/${M.id}/chain`, { adminKey: wrong.w.adminKey }));
      const issue = view.stuck.find((s) => s.kind === 'wrong_factory');
      assert.ok(issue, JSON.stringify(view.stuck));
      return issue;
    });
    assert.match(stuck.action, /deploy-contracts\.mjs.*CHAIN_FACTORY/);
    assert.equal(await wrong.nonce(M, 'pending'), 0, 'the relayer sent nothing');
    const j = w.ok(await w.call('GET', `/jobs/${job.jobId}`, { key: M.secretKey }));
    assert.equal(j.status, 'pending', JSON.stringify(j));
  } finally {
    await wrong.stop();
  }
});
