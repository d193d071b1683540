// A holder's buy topped up out of a pool the ledger has emptied, then removed by a reorg, on
// anvil through the Worker (tests/chain/hostile.mjs). The worker waits CHAIN_FINALITY=6 blocks
// before a receipt is final and scans others' transfers CHAIN_CONFIRMATIONS=2 blocks behind
// the head, so it acts on the buy's receipt before it follows the outsider's sale mined just
// before it. Found by the simulator (`--whales`, hostile seed 55): the outsider drains the pool
// and the buy is booked at the drained price; the outsider sells everything back and the buy
// is mined after it, far above its booking. The ledger's pool has only what the drain left,
// so it pays that and owes the buyer the rest of the top-up. A reorg then removes the sale and
// the buy, and the buy is mined again at the drained price. Undoing the top-up took all of it
// back from the buyer: what the buyer had received went to the pool, which paid it straight
// back as its debt, and the buyer kept tokens the chain never gave. Now the pool's debt of the
// removed top-up is forgiven; the case ends with reconciliation at zero differences.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import { artifact, balanceOf } from './anvil.mjs';
import { E6, OUTSIDER, eventually, finalityWorld, marketToken, units } from './hostile.mjs';

const FINALITY = 6;
let h;
let c;
finalityWorld(FINALITY, (world) => {
  h = world;
  c = world.c;
});

/** `userId`'s buy records, once both legs say `status`. */
async function buyLegs(M, userId, status) {
  const buys = (await h.history(M, userId)).filter((r) => r.type === 'buy');
  assert.equal(buys.length, 2, JSON.stringify(buys));
  assert.ok(buys.every((r) => r.chainStatus === status), JSON.stringify(buys));
  return buys;
}

test('hostile seed 55: a buy topped up out of a drained pool, the rest owed by the pool, then reorganized away: the debt goes with it and the buyer holds what the chain gave', async () => {
  const M = await c.newMerchant('Whaled');
  const T = await marketToken(h, M, 'WHAL');
  const buyer = await h.holder(M, 'buyer', 100);
  await c.settled(M);
  // The outsider all but drains the pool, and the ledger follows that.
  await h.outsiderSwap(T.address, { buy: true, usdc: 1_000_000n * E6 });
  await h.mine(2);
  await h.scannedTo(M);
  const bought = await balanceOf(h.rpcUrl, T.address, OUTSIDER.address);
  const market = artifact('TokenpadMarket').abi;
  const hold = h.holdSends(market, ({ tx, call }) => getAddress(tx.to) === getAddress(h.base.market) && call.functionName.startsWith('swap'));
  let sale;
  try {
    // The buy is booked at the drained price (a small fraction of a token) and held.
    c.ok(await c.call('POST', '/holder/buyer/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 20, slippageBps: 5_000 } }));
    await eventually('the buyer\'s swap sent', () => assert.equal(hold.held.length, 1));
    // The outsider sells it all back (mined at once, in a block of its own), then the buy.
    sale = await h.outsiderSwap(T.address, { buy: false, tokens: bought });
    await hold.release();
  } finally {
    h.proxy.intercept = null;
  }
  const legs = await eventually('the buy confirmed, above its booking', () => buyLegs(M, 'buyer', 'confirmed'), { timeoutMs: 45_000 });
  const tokenLeg = legs.find((r) => getAddress(r.tokenAddress) === getAddress(T.address));
  const mined = units(tokenLeg.amount);
  assert.equal(await balanceOf(h.rpcUrl, T.address, buyer), mined, 'the setup: the chain gave the buyer what its record says');
  // (The balance reads as a JSON number: close enough for this comparison.)
  const held = units(c.ok(await c.call('GET', `/holder/buyer/token/${T.address}`, { key: M.secretKey })).balance);
  assert.ok(held < mined, `the setup: the ledger's pool could not pay all of the top-up (the buyer holds ${held} of ${mined}), the sale not followed yet`);

  // The sale and the buy go. The buy is sent again and mined at the drained price.
  const head = await h.head();
  assert.equal(head, Number(sale.blockNumber) + 1, 'the setup: the buy is in the block after the sale');
  await h.reorg(2);
  await eventually('the buy confirmed again on the new chain', async () => {
    const again = await buyLegs(M, 'buyer', 'confirmed');
    const leg = again.find((r) => getAddress(r.tokenAddress) === getAddress(T.address));
    assert.ok(units(leg.amount) < mined, JSON.stringify(leg));
  }, { timeoutMs: 45_000, every: 300, between: () => h.mine(1) });
  await h.mine(FINALITY + 1);
  await h.endsClean(M); // reconcile, exact: every balance, the buyer's and the pool's included
  const [leg] = (await buyLegs(M, 'buyer', 'confirmed')).filter((r) => getAddress(r.tokenAddress) === getAddress(T.address));
  assert.equal(units(leg.amount), await balanceOf(h.rpcUrl, T.address, buyer), 'the buyer\'s record says what the chain gave');
  assert.equal(await balanceOf(h.rpcUrl, T.address, OUTSIDER.address), bought, 'the outsider holds its tokens again');
});
