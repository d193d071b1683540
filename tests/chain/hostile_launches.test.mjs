// Issue 40, findings 3 and 4: launches that an outsider cannot block or misbook. A pool the
// outsider created first (empty, at a price far from the presale's) neither blocks the launch
// nor moves its price; one with outside liquidity in the way makes the launch fail openly,
// every buyer refunded on chain; lock ids read from the treasury's pending transaction and
// taken first by an outsider do not stop the treasury's locks. Each case ends with ledger ==
// chain, no relayer halted, and the holders' histories saying what happened.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import { balanceOf, send } from './anvil.mjs';
import { E6, E18, LOCKER_ABI, OUTSIDER, eventually, fileWorld, ppm, presaleSqrt, v3 } from './hostile.mjs';
import { usdc as usdcUnits } from '../http/amounts.mjs';

let h;
let c;
fileWorld((world) => {
  h = world;
  c = world.c;
});

/** The tokens a presale's buyers get: its lockup share of the launch supply (1,000,000,000 tokens). */
const boughtOf = (p) => (10n ** 9n * E18) / 100n * BigInt(p.lockupPercentage);

/**
 * A merchant, two buyers with 10 USDC each, and a presale of 20 USDC not bought yet (its
 * token's address is known: the merchant form has it from the start).
 */
async function presaleToCome(name) {
  const M = await c.newMerchant(name);
  const buyers = { a: await h.holder(M, 'a', 10), b: await h.holder(M, 'b', 10) };
  const p = await h.presale(M, (await h.createPresale(M, { targetUsdcAmount: 20, lockDuration: 7 })).id);
  assert.match(p.tokenAddress ?? '', /^0x[0-9a-fA-F]{40}$/, 'the merchant form names the token\'s address before the launch');
  await c.settled(M);
  return { M, buyers, p, token: p.tokenAddress, bought: boughtOf(p), sqrtP: presaleSqrt(p.tokenAddress, h.base.usdc, 20n * E6, boughtOf(p)) };
}
const buyAll = async (M, p) => {
  for (const u of ['a', 'b']) await h.buy(M, u, p.id, 10);
};

/** The sqrtPriceX96 at which the token costs 10^6 times (`up`) or 10^-6 times the presale's price. */
function timesPrice(token, sqrtP, up) {
  const tokenIs0 = BigInt(token) < BigInt(h.base.usdc);
  // The pool's price is token1 per token0: the token's USD price rises with it when the token is token0.
  return tokenIs0 === up ? sqrtP * 1000n : sqrtP / 1000n; // the token's price x 10^6 or / 10^6
}

/** The launch completed; the pool trades at the presale's price; each buyer's lock is on chain; nothing undone. */
async function launchedDespite(s, what) {
  const done = await h.presaleOutcome(s.M, s.p.id);
  assert.equal(done.completionState.step, 'completed', `${what}: the launch did not complete: ${JSON.stringify(done.completionState)}`);
  await c.settled(s.M);
  const p = await h.presale(s.M, s.p.id);
  assert.equal(p.completionState.lastError ?? null, null, `${what}: ${p.completionState.lastError}`);
  const swapTx = p.completionState.transactions.swapTx;
  assert.match(swapTx ?? '', /^0x[0-9a-f]{64}$/, `${what}: the launch names no pool opening (swapTx): ${JSON.stringify(p.completionState)}`);
  assert.equal((await h.canonicalReceipt(swapTx, 'the pool opening')).status, '0x1', `${what}: the pool opening ${swapTx} reverted`);
  const pool = await h.pool(s.token);
  // Within 0.5 % in sqrt price: 1 % in price.
  assert.ok(ppm(pool.sqrtPriceX96, s.sqrtP) < 5_000,
    `${what}: the pool trades at sqrtPriceX96 ${pool.sqrtPriceX96}, the presale's price is ${s.sqrtP} (${ppm(pool.sqrtPriceX96, s.sqrtP)} ppm off)`);
  assert.ok(pool.liquidity > 0n, 'the pool has the launch\'s liquidity');
  const t = c.ok(await c.call('GET', `/token/${s.token}`, { key: s.M.secretKey }));
  assert.equal(t.pool?.status, 'open', JSON.stringify(t.pool));
  assert.equal(getAddress(t.pool.address), getAddress(pool.address), 'the API\'s pool is the outsider\'s pool');
  await h.assertLocked(s.token, s.buyers, s.bought);
  for (const u of Object.keys(s.buyers)) await h.noReversal(s.M, u);
  const r = await h.endsClean(s.M);
  const entry = r.pools.find((x) => getAddress(x.tokenAddress) === getAddress(s.token));
  assert.ok(entry, `reconcile compares no pool of ${s.token}: ${JSON.stringify(r.pools)}`);
  assert.equal(entry.matches, true, JSON.stringify(entry));
}

for (const [side, up] of [['above', true], ['below', false]]) {
  test(`finding 3: an outsider's empty pool initialized far ${side} the presale's price first does not block the launch, which trades at the presale's price`, async () => {
    const s = await presaleToCome(`Pool first ${side}`);
    await h.createPoolFirst(s.token, timesPrice(s.token, s.sqrtP, up));
    await buyAll(s.M, s.p);
    await launchedDespite(s, `a pool first at 10^${up ? 6 : -6} x the price`);
  });
}

test('finding 3: an outsider\'s pool with USDC-only liquidity in the way: the launch fails openly and every buyer is refunded on chain, nothing booked to the merchant', async () => {
  const s = await presaleToCome('Pool in the way');
  const sqrtI = timesPrice(s.token, s.sqrtP, true);
  await h.createPoolFirst(s.token, sqrtI);
  // 5 USDC of outside liquidity halfway between the two prices: moving the price down to the
  // presale's must take it (the position is all USDC, on the USDC side of the price).
  const mid = Math.round((v3.tickAt(s.sqrtP) + v3.tickAt(sqrtI)) / 2 / 60) * 60;
  await h.mintOutside(s.token, [[mid - 600, mid + 600, 0n, 5n * E6]]);
  const usdcRead = async () => c.ok(await c.call('GET', `/token/${h.base.usdc}`, { key: s.M.secretKey }));
  const supplyBefore = (await usdcRead()).merchantSupply;
  const usdcOf = (address) => balanceOf(h.rpcUrl, h.base.usdc, address);
  const treasuryBefore = await usdcOf(s.M.merchantAddress);
  await buyAll(s.M, s.p);

  // A launch may retry its opening a few times (with backoff) before it gives up: 2 minutes at most.
  const out = await h.presaleOutcome(s.M, s.p.id, 120_000);
  assert.equal(out.status, 'ended', `the launch did not fail openly: status ${out.status}, ${JSON.stringify(out.completionState)}`);
  assert.notEqual(out.completionState.step, 'completed');
  assert.match(out.completionState.lastError ?? '', /\w/, 'completionState.lastError says why');
  const events = await h.presaleEvents(s.M, s.p.id);
  assert.ok(events.some((e) => e.type === 'presale.refunded'), `no presale.refunded event: ${events.map((e) => e.type)}`);
  await c.settled(s.M);

  for (const [u, address] of Object.entries(s.buyers)) {
    const recs = await h.noReversal(s.M, u);
    const refund = recs.find((r) => r.type === 'presale_refund');
    assert.ok(refund, `${u} has no presale_refund record: ${JSON.stringify(recs)}`);
    assert.equal(refund.chainStatus, 'confirmed');
    assert.equal(usdcUnits(refund.amount), 10n * E6);
    await h.canonicalReceipt(refund.transactionHash, `${u}'s refund`);
    assert.equal(await usdcOf(address), 10n * E6, `${u}'s USDC is back in its wallet`);
    const bal = c.ok(await c.call('GET', `/holder/${u}/token/${h.base.usdc}`, { key: s.M.secretKey }));
    assert.equal(usdcUnits(bal.balance), 10n * E6, `${u}'s USDC is back in the ledger`);
    const hr = c.ok(await c.call('GET', `/holder/${u}`, { key: s.M.secretKey }));
    assert.deepEqual(hr.locks ?? [], [], `${u} holds no lock`);
  }
  assert.deepEqual(await h.lockerEvents('Locked', s.token), [], 'no lock on chain');
  assert.equal((await usdcRead()).merchantSupply, supplyBefore, 'nothing of the raise is booked to the merchant');
  assert.equal(await usdcOf(s.M.merchantAddress), treasuryBefore, 'the treasury\'s USDC on chain is what it was before the buys');
  await h.endsClean(s.M);
});

test('finding 4: an outsider who takes the launch\'s lock ids first (read from the treasury\'s pending lock transaction) cannot stop the treasury\'s locks', async () => {
  const s = await presaleToCome('Squatted');
  const abi = LOCKER_ABI();
  const lockFn = abi.find((x) => x.type === 'function' && x.name === 'lock');
  const hold = h.holdSends(abi, ({ tx, call }) => getAddress(tx.to) === getAddress(h.base.locker) && call.functionName === 'lock');
  try {
    await buyAll(s.M, s.p);
    await eventually('the treasury\'s lock transaction sent', async () => assert.equal(hold.held.length, 1), { timeoutMs: 60_000 });
    // The outsider reads the ids from the pending transaction and locks under them first,
    // with a token of its own (1 unit per lock, for itself).
    const [pending] = hold.decoded();
    const named = Object.fromEntries(lockFn.inputs.map((inp, i) => [inp.name, pending.args[i]]));
    assert.ok(Array.isArray(named.ids) && named.ids.length === 2, `two lock ids in ${JSON.stringify(named, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    const own = await h.outsiderToken('SQT');
    const mine = {
      token: own, pull: await h.outsiderPull(own, BigInt(named.ids.length)), ids: named.ids,
      beneficiaries: named.ids.map(() => OUTSIDER.address), amounts: named.ids.map(() => 1n), unlockAts: named.unlockAts,
    };
    const squat = await send(h.rpcUrl, {
      address: h.base.locker, abi, functionName: 'lock', args: lockFn.inputs.map((inp) => mine[inp.name] ?? named[inp.name]), account: OUTSIDER, gas: 2_000_000n,
    });
    assert.equal(squat.status, 'success', 'the outsider\'s locks landed first');
    await hold.release(); // the treasury's transaction reaches the node after the outsider's
  } finally {
    h.proxy.intercept = null;
  }
  const done = await h.presaleOutcome(s.M, s.p.id);
  assert.equal(done.completionState.step, 'completed', JSON.stringify(done.completionState));
  await c.settled(s.M);
  for (const u of Object.keys(s.buyers)) await h.noReversal(s.M, u);
  await h.assertLocked(s.token, s.buyers, s.bought);
  await h.endsClean(s.M);
});
