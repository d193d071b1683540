// A sandwich around a holder's buy, on anvil through the Worker (tests/chain/hostile.mjs). The
// buyer's swap is held on its way to the node; an outsider buys first and takes from the pool
// tokens the ledger had booked to the buyer, so the ledger's pool owes the outsider the
// difference; the outsider then sells everything back, and the buyer's swap is mined after
// both. Found by the simulator (hostile seed 23461): the ledger followed the sale back with
// only what it knew the outsider had, the refilled pool paid its debt to the outsider, and the
// pool ended short of the chain's by that much, the outsider's row long by it, while nothing
// else looked wrong. What the outsider sent beyond what the ledger knew it had is that claim
// (crates/core/src/ops/settle/claims.rs): sold back into the pool that owed it, the debt is
// settled. The case ends with reconciliation at zero differences, the pool matching.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import { artifact, balanceOf } from './anvil.mjs';
import { E6, OUTSIDER, eventually, fileWorld, marketToken, units } from './hostile.mjs';

let h;
let c;
fileWorld((world) => {
  h = world;
  c = world.c;
});

test('hostile seed 23461: an outsider buys ahead of a held buy, past what the ledger left in the pool, then sells it all back: the buy is topped up and the pool ends as the chain\'s', async () => {
  const M = await c.newMerchant('Sandwiched');
  const T = await marketToken(h, M, 'SAND');
  await h.holder(M, 'buyer', 100);
  await c.settled(M);
  const pool = (await h.pool(T.address)).address;
  const market = artifact('TokenpadMarket').abi;
  const hold = h.holdSends(market, ({ tx, call }) => getAddress(tx.to) === getAddress(h.base.market) && call.functionName.startsWith('swap'));
  let drained;
  try {
    // The ledger books the buy's bound (half its quote, some 1,000 tokens) out of its pool of
    // 10,000; the swap is held.
    c.ok(await c.call('POST', '/holder/buyer/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 20, slippageBps: 5_000 } }));
    await eventually('the buyer\'s swap sent', () => assert.equal(hold.held.length, 1));
    // The outsider all but drains the pool: about 1,000 tokens more than the ledger had left.
    await h.outsiderSwap(T.address, { buy: true, usdc: 1_000_000n * E6 });
    await h.mine(1);
    await h.scannedTo(M);
    drained = await balanceOf(h.rpcUrl, T.address, pool);
    const bought = await balanceOf(h.rpcUrl, T.address, OUTSIDER.address);
    assert.ok(bought > 9_000n * 10n ** 18n, `the setup: the outsider took ${bought} of the pool's tokens`);
    // It sells them all back (the 2 it had before too), and the ledger follows that too.
    await h.outsiderSwap(T.address, { buy: false, tokens: bought });
    await h.mine(1);
    await h.scannedTo(M);
    await hold.release();
  } finally {
    h.proxy.intercept = null;
  }
  const legs = await eventually('the buy confirmed', async () => {
    const buys = (await h.history(M, 'buyer')).filter((r) => r.type === 'buy');
    assert.equal(buys.length, 2, JSON.stringify(buys));
    assert.ok(buys.every((r) => r.chainStatus === 'confirmed'), JSON.stringify(buys));
    return buys;
  }, { timeoutMs: 45_000 });
  const tokenLeg = legs.find((r) => getAddress(r.tokenAddress) === getAddress(T.address));
  const buyer = await h.holder(M, 'buyer');
  assert.equal(units(tokenLeg.amount), await balanceOf(h.rpcUrl, T.address, buyer), 'the buyer holds what its record says');
  assert.ok(units(tokenLeg.amount) > drained, `the setup: the buy (${tokenLeg.amount}) took more than the drained pool held (${drained})`);
  assert.equal(await balanceOf(h.rpcUrl, T.address, OUTSIDER.address), 0n, 'the outsider sold all it had');
  await h.endsClean(M); // reconcile: every balance, the outsider's and the pool's included
});
