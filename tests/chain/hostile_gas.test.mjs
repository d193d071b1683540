// Issue 40, findings 1 and 2 and "an out-of-gas receipt is never a refusal": gas limits come
// from the chain, and a transaction that ran out of gas is ours to send again, never a
// refusal that undoes a holder's value. Each case ends with ledger == chain, no relayer
// halted, and the holder's history saying what happened (tests/chain/hostile.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeEventLog, getAddress, keccak256, toEventSelector } from 'viem';
import { artifact, clients, uniswapArtifact } from './anvil.mjs';
import { E6, eventually, fileWorld, marketToken, narrowPositions, POOL_ABI, sleep, units } from './hostile.mjs';
import { usdc } from '../http/amounts.mjs';

let h;
let c;
fileWorld((world) => {
  h = world;
  c = world.c;
});

const SWAP = toEventSelector(POOL_ABI.find((x) => x.type === 'event' && x.name === 'Swap'));

/** `userId`'s buy of `T`, once settled: its two legs (token and USDC), each confirmed, never failed or undone. */
async function settledBuy(M, userId, T) {
  const legs = await eventually(`${userId}'s buy settled`, async () => {
    const recs = (await h.history(M, userId)).filter((r) => r.type === 'buy');
    assert.equal(recs.length, 2, JSON.stringify(recs));
    assert.ok(recs.every((r) => ['confirmed', 'failed'].includes(r.chainStatus)), JSON.stringify(recs));
    return recs;
  }, { timeoutMs: 45_000 });
  const view = await h.view(M);
  for (const r of legs) {
    assert.equal(r.chainStatus, 'confirmed', `the buy's ${r.symbol} leg was refused (${JSON.stringify(r)}); the chain view says ${JSON.stringify(view.failed)}`);
  }
  await h.noReversal(M, userId);
  const tokenLeg = legs.find((r) => getAddress(r.tokenAddress) === getAddress(T.address));
  const usdcLeg = legs.find((r) => getAddress(r.tokenAddress) === getAddress(h.base.usdc));
  assert.ok(tokenLeg && usdcLeg, JSON.stringify(legs));
  assert.equal(tokenLeg.transactionHash, usdcLeg.transactionHash, 'one swap');
  return { tokenLeg, usdcLeg };
}

/** The pool's Swap event in a receipt: the pool's deltas of the token and of USDC (> 0: paid in). */
function swapOf(receipt, pool, tokenIs0) {
  const log = receipt.logs.find((l) => getAddress(l.address) === getAddress(pool) && l.topics[0] === SWAP);
  assert.ok(log, `no Swap of ${pool} in ${receipt.transactionHash}`);
  const { args } = decodeEventLog({ abi: POOL_ABI, data: log.data, topics: log.topics });
  return tokenIs0 ? { token: args.amount0, usdc: args.amount1, tick: args.tick } : { token: args.amount1, usdc: args.amount0, tick: args.tick };
}

test('finding 1: a presale whose one buyer buys the whole target launches, and the whole share is locked on chain for that buyer', async () => {
  const M = await c.newMerchant('One buyer');
  const solo = await h.holder(M, 'solo', 10);
  const p = await h.createPresale(M, { targetUsdcAmount: 10, lockDuration: 7 });
  await h.buy(M, 'solo', p.id, 10);
  const done = await h.presaleOutcome(M, p.id);
  assert.equal(done.completionState.step, 'completed', `the launch did not complete: ${JSON.stringify(done.completionState)}`);
  const token = done.tokenDeploymentInfo.tokenAddress;
  const bought = BigInt(done.tokenDeploymentInfo.amountTokensBought);
  await c.settled(M);

  // The history says the share went into a lock, and nothing was undone.
  const recs = await h.noReversal(M, 'solo');
  const alloc = recs.find((r) => r.type === 'presale_allocation');
  assert.ok(alloc, `solo has no presale_allocation record: ${JSON.stringify(recs)}`);
  assert.equal(alloc.chainStatus, 'confirmed', JSON.stringify(alloc));
  assert.equal(units(alloc.amount), bought, 'the allocation is the whole share');
  const receipt = await h.canonicalReceipt(alloc.transactionHash, 'the lock transaction');
  assert.equal(receipt.status, '0x1', `the lock transaction ${alloc.transactionHash} reverted (gas limit ${BigInt((await h.node('eth_getTransactionByHash', [alloc.transactionHash])).gas)}, used ${BigInt(receipt.gasUsed)})`);

  // On chain: the locker's Locked event for the buyer, and the locker holds the share.
  await h.assertLocked(token, { solo }, bought);
  const held = c.ok(await c.call('GET', `/holder/solo/token/${token}`, { key: M.secretKey }));
  assert.equal(units(held.lockedBalance ?? 0), bought, 'the ledger holds the share locked for the buyer');
  const again = await h.presale(M, p.id);
  assert.equal(again.completionState.step, 'completed');
  assert.equal(again.completionState.lastError ?? null, null);
  await h.endsClean(M);
});

test('finding 2: a buy through 20 narrow outside positions (21 initialized ticks) settles confirmed, with its mined amounts in the history', async () => {
  const M = await c.newMerchant('Ticks');
  const T = await marketToken(h, M, 'TICK');
  const { pool, tokenIs0, edge } = await narrowPositions(h, T);
  // The chain's own quoter: the buy crosses 21 initialized ticks, and needs far more gas than a plain swap.
  const { publicClient } = await clients(h.rpcUrl);
  const { result: [, , crossed, gasEstimate] } = await publicClient.simulateContract({
    address: h.base.quoter, abi: uniswapArtifact('QuoterV2').abi, functionName: 'quoteExactInputSingle',
    args: [{ tokenIn: h.base.usdc, tokenOut: T.address, amountIn: 20n * E6, fee: 3000, sqrtPriceLimitX96: 0n }],
  });
  assert.ok(crossed >= 21, `the setup: the buy crosses the 21 initialized ticks of the positions (QuoterV2: ${crossed})`);
  assert.ok(gasEstimate > 450_000n, `the setup: the pool's swap alone needs ${gasEstimate} gas, more than the 450,000 a swap is sent with today`);
  await sleep(1_000); // a few scans: the service follows the new positions' Mint events
  await h.holder(M, 'trader', 50);
  c.ok(await c.call('POST', '/holder/trader/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 20 } }));
  const { tokenLeg, usdcLeg } = await settledBuy(M, 'trader', T);

  // The records are the swap as mined: the pool's Swap event, to the unit.
  const receipt = await h.canonicalReceipt(tokenLeg.transactionHash, 'the buy');
  const s = swapOf(receipt, pool.address, tokenIs0);
  assert.equal(units(tokenLeg.amount), -s.token, 'the token leg is what the pool paid out');
  assert.equal(usdc(usdcLeg.amount), s.usdc, 'the USDC leg is what the pool took in');
  assert.equal(s.usdc, 20n * E6);
  // The setup did what it says: the swap went past all 20 positions.
  assert.ok(tokenIs0 ? Number(s.tick) >= edge : Number(s.tick) < edge, `the swap stopped at tick ${s.tick}, before ${edge}`);
  assert.ok(BigInt(receipt.gasUsed) > gasEstimate, `the swap used ${BigInt(receipt.gasUsed)} gas (the pool's part alone: ${gasEstimate})`);
  await h.endsClean(M);
});

test('an out-of-gas receipt is never a refusal: a buy that an outside mint made dearer between its sending and its mining is sent again and confirmed', async () => {
  const M = await c.newMerchant('Dearer');
  const T = await marketToken(h, M, 'DEAR');
  await h.holder(M, 'late', 50);
  // The relayer's swap is held on its way to the node; meanwhile the outsider adds 40 narrow
  // positions in its path, so it needs far more gas (about 1.1 M) than when it was sent
  // (about 0.2 M): any margin on an estimate made before falls short.
  const market = artifact('TokenpadMarket').abi;
  const hold = h.holdSends(market, ({ tx, call }) => getAddress(tx.to) === getAddress(h.base.market) && call.functionName.startsWith('swap'));
  try {
    c.ok(await c.call('POST', '/holder/late/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 20 } }));
    await eventually('the relayer\'s swap sent', async () => assert.equal(hold.held.length, 1));
    const { pool, tokenIs0 } = await narrowPositions(h, T, 40);
    await hold.release();
    const first = await eventually('the held swap mined', async () => {
      const r = await h.node('eth_getTransactionReceipt', [keccak256(hold.held[0])]);
      assert.ok(r);
      return r;
    });
    const sent = await h.node('eth_getTransactionByHash', [first.transactionHash]);
    assert.equal(first.status, '0x0', `the setup: the held swap was to run out of gas (limit ${BigInt(sent.gas)}, used ${BigInt(first.gasUsed)})`);
    const { tokenLeg, usdcLeg } = await settledBuy(M, 'late', T);
    assert.notEqual(tokenLeg.transactionHash, first.transactionHash, 'the records name the swap sent again, not the one out of gas');
    const receipt = await h.canonicalReceipt(tokenLeg.transactionHash, 'the swap sent again');
    const s = swapOf(receipt, pool.address, tokenIs0);
    assert.equal(units(tokenLeg.amount), -s.token);
    assert.equal(usdc(usdcLeg.amount), s.usdc);
  } finally {
    h.proxy.intercept = null;
  }
  const v = await h.view(M);
  assert.deepEqual(v.failed, [], 'no movement failed');
  await h.endsClean(M);
});
