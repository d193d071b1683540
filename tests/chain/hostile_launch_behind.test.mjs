// A presale's launch on a chain where a buyer's purchase is held back: the buyer's test USDC
// came by a mint that succeeded and moved nothing (USDC had no code when it was mined), so the
// purchase (the buyer's USDC into the treasury) waits for that mint's receipt to be final and
// the mint to go again. The launch's pool opening pays with that USDC: sent meanwhile, it
// would revert for want of it. It waits behind the purchase (the chain's USDC is not Base's
// address here, as on Base Sepolia), and the launch completes with nothing reverted. Before,
// the opening went out, reverted, and was taken as the chain refusing the market: the launch
// failed and every buyer was refunded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import { eventually, finalityWorld, fundedByNothing } from './hostile.mjs';

const FINALITY = 6;
let h;
let c;
finalityWorld(FINALITY, (world) => {
  h = world;
  c = world.c;
});

/** Every transaction in blocks from..head, with its receipt. */
async function minedSince(from) {
  const out = [];
  for (let n = from; n <= await h.head(); n++) {
    const b = await h.node('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    for (const x of b.transactions) out.push(await h.canonicalReceipt(x));
  }
  return out;
}

test('a launch\'s pool opening waits behind a buyer\'s held purchase, and opens once it lands: the presale completes, nobody is refunded, nothing reverts', async () => {
  assert.notEqual(getAddress(h.base.usdc), getAddress('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'), 'the setup: the chain\'s USDC is not Base\'s');
  const M = await c.newMerchant('Launch behind');
  const q = await h.createPresale(M, { targetUsdcAmount: 10 });
  await c.settled(M);
  const { from } = await fundedByNothing(h, M, 'ann', 10);
  // ann's purchase reaches the target: the launch deploys the token and opens its pool while
  // the purchase waits behind the mint (no block is mined here but the relayer's own).
  await h.buy(M, 'ann', q.id, 10);
  const market = getAddress(h.base.market);
  await eventually('the token deployed, its opening waiting behind the purchase', async () => {
    const p = await h.presale(M, q.id);
    assert.ok(p.completionState.transactions?.tokenCreationTx, JSON.stringify(p.completionState));
    const v = await h.view(M);
    assert.equal(v.waiting.find((w) => w.kind === 'finality')?.count, 2, `the purchase and the opening: ${JSON.stringify(v.waiting)}`);
    assert.deepEqual(v.transactions, [], JSON.stringify(v.transactions));
  }, { timeoutMs: 30_000 });
  assert.ok(!(await minedSince(from)).some((r) => r.to && getAddress(r.to) === market), 'the opening went out ahead of the purchase');
  // The chain goes on: the mint's receipt is final, and the mint, the purchase and the opening go.
  const done = await eventually('the launch completed', async () => {
    const p = await h.presale(M, q.id);
    assert.ok(p.completionState.step === 'completed' || p.status === 'ended', JSON.stringify(p.completionState));
    return p;
  }, { timeoutMs: 90_000, every: 300, between: () => h.mine(1) });
  assert.equal(done.completionState.step, 'completed', `the launch failed: ${JSON.stringify(done.completionState)}`);
  const recs = await h.history(M, 'ann');
  assert.ok(!recs.some((r) => r.type === 'presale_refund'), `ann was refunded: ${JSON.stringify(recs)}`);
  assert.equal(recs.find((r) => r.type === 'presale_buy')?.chainStatus, 'confirmed', JSON.stringify(recs));
  const mined = await minedSince(from);
  assert.ok(mined.some((r) => r.to && getAddress(r.to) === market), 'the pool opened');
  assert.deepEqual(mined.filter((r) => r.status !== '0x1').map((r) => r.transactionHash), [], 'nothing reverted');
  assert.deepEqual((await h.view(M)).failed, [], 'nothing refused');
  await h.mine(FINALITY + 1);
  await h.endsClean(M);
});
