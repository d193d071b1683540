// TokenpadMarket.openPool against an outsider who gets to the pool first (issue 40, "pool first").
// A token's address is known before it exists (CREATE2, and the presale shows it), and Uniswap's
// factory creates a pool for any address, so anyone can create and initialize the token/USDC pool
// at a price of their choosing before the launch, and even put USDC of their own in it (a
// USDC-only position needs none of the token). openPool moves an empty pool's price to the
// launch's with a swap that trades nothing; liquidity in the way makes it fail openly
// (TokenpadMarketPoolOccupied), never open a market at someone else's price. Also: the gas of
// moving the price across an empty pool, down and up, from Uniswap's extreme prices.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY_PULL, deployBase, latestTimestamp, mintUsdc, read, send, startAnvil } from './anvil.mjs';
import {
  E18, E6, FEE, MARKET_ABI, MAX_SQRT_RATIO, MAX_TICK, MIN_SQRT_RATIO, MIN_TICK, NPM_ABI, POOL_ABI, TRADER, TREASURY,
  TREASURY_KEY, UNI_FACTORY_ABI, USDC_ABI, bal, checkOpened, deployTokenAt, eventsOf, market, poolRead, predictOnSide,
  pull, revertOf, simulate, sqrtPriceAtTick, tickBelow, useChain,
} from './market-kit.mjs';

let node;
let base;
const gas = {}; // gas used, reported at the end

before(async () => {
  node = await startAnvil();
  base = await deployBase(node.rpcUrl);
  useChain(node, base);
});

after(async () => {
  await node?.stop();
});

// ------------------------------------------------------------------ the launches

// A token0 launch (the token's address below USDC's): 1 token = 0.001 USDC, the token's whole
// reserve in [tickLower, MAX), the pool starting on tickLower (as in market.test.mjs).
const T0_TICK = tickBelow(1e-15); // -345420
const T0_PRICE = sqrtPriceAtTick(T0_TICK);
// A token1 launch (above USDC): 1 token = 0.001 USDC, the reserve in [MIN, tickUpper), the
// price a hair above tickUpper's edge.
const T1_TICK = tickBelow(1e15); // 345360
const T1_PRICE = sqrtPriceAtTick(T1_TICK) + sqrtPriceAtTick(T1_TICK) / 10n ** 12n;
const RESERVE = 100_000_000n * E18;

/** A launch of a fresh token on `side` ('token0' or 'token1'): its pool's tokens, price and range. */
function launch(label, side) {
  const below = side === 'token0';
  const { salt, address } = predictOnSide(label, below);
  return below
    ? { label, salt, token: address, token0: address, token1: base.usdc, sqrtPriceX96: T0_PRICE, tickLower: T0_TICK, tickUpper: MAX_TICK, tick: T0_TICK }
    : { label, salt, token: address, token0: base.usdc, token1: address, sqrtPriceX96: T1_PRICE, tickLower: MIN_TICK, tickUpper: T1_TICK, tick: T1_TICK };
}

/** The outsider creates the launch's pool (its token need not exist yet) and initializes it at `sqrtPriceX96`. */
async function outsiderInitializes(l, sqrtPriceX96) {
  await send(node.rpcUrl, { address: base.uniswapFactory, abi: UNI_FACTORY_ABI, functionName: 'createPool', args: [l.token0, l.token1, FEE], account: TRADER, gas: 6_000_000n });
  const pool = await read(node.rpcUrl, { address: base.uniswapFactory, abi: UNI_FACTORY_ABI, functionName: 'getPool', args: [l.token0, l.token1, FEE] });
  await send(node.rpcUrl, { address: pool, abi: POOL_ABI, functionName: 'initialize', args: [sqrtPriceX96], account: TRADER });
  return pool;
}

/**
 * The outsider puts `usdc` of USDC alone into [tickLower, tickUpper) of the launch's pool, through
 * Uniswap's position manager; returns the pool's Mint event.
 */
async function outsiderAddsUsdc(l, tickLower, tickUpper, usdc) {
  await mintUsdc(node.rpcUrl, base.usdc, TRADER.address, usdc);
  await send(node.rpcUrl, { address: base.usdc, abi: USDC_ABI, functionName: 'approve', args: [base.positionManager, usdc], account: TRADER });
  const usdcIs0 = l.token0 === base.usdc;
  const receipt = await send(node.rpcUrl, {
    address: base.positionManager, abi: NPM_ABI, functionName: 'mint', account: TRADER, gas: 1_000_000n,
    args: [{
      token0: l.token0, token1: l.token1, fee: FEE, tickLower, tickUpper,
      amount0Desired: usdcIs0 ? usdc : 0n, amount1Desired: usdcIs0 ? 0n : usdc, amount0Min: 0n, amount1Min: 0n,
      recipient: TRADER.address, deadline: (await latestTimestamp(node.rpcUrl)) + 600n,
    }],
  });
  const [minted] = eventsOf(receipt, POOL_ABI, 'Mint');
  assert.ok(minted.amount > 0n, 'the outsider has liquidity in the pool');
  return minted;
}

/** The treasury's openPool args for launch `l` (its token deployed by now): the whole reserve, no USDC. */
async function openArgs(l) {
  const p = await pull(TREASURY_KEY, l.token, RESERVE);
  return l.token0 === l.token
    ? [l.token0, l.token1, l.sqrtPriceX96, l.tickLower, l.tickUpper, p, EMPTY_PULL]
    : [l.token0, l.token1, l.sqrtPriceX96, l.tickLower, l.tickUpper, EMPTY_PULL, p];
}

/** Deploys the token, opens its launch pool; checks the position is the treasury's, at the launch's price. */
async function opens(l) {
  await deployTokenAt(l.label, l.salt);
  const before0 = await bal(l.token0, TREASURY.address);
  const before1 = await bal(l.token1, TREASURY.address);
  const { receipt } = await market('openPool', await openArgs(l), TREASURY);
  const ours = l.token0 === l.token;
  const opened = await checkOpened(receipt, {
    token0: l.token0, token1: l.token1, tickLower: l.tickLower, tickUpper: l.tickUpper,
    value0: ours ? RESERVE : 0n, value1: ours ? 0n : RESERVE, before0, before1,
  });
  assert.equal(ours ? opened.amount1 : opened.amount0, 0n, 'no USDC needed');
  const [price, tick] = await poolRead(opened.pool, 'slot0');
  assert.equal(price, l.sqrtPriceX96, 'the pool trades at the launch price');
  assert.equal(tick, l.tick);
  // a token0 launch starts in its range; a token1 launch's range ends at the pool's tick (in range
  // from the first buy on): either way no one else's liquidity is in range
  assert.equal(await poolRead(opened.pool, 'liquidity'), ours ? opened.liquidity : 0n, 'only the launch position is in range');
  return { receipt, opened };
}

/** The pool's Swap events in a receipt that openPool made to move the price (sender = recipient = the market). */
const moves = (receipt) => eventsOf(receipt, POOL_ABI, 'Swap').filter((s) => s.sender === base.market);

// ------------------------------------------------------------------ empty pools

describe('an empty pool someone else created and initialized first', () => {
  test('at the launch price itself: openPool opens there, nothing to move', async () => {
    for (const side of ['token0', 'token1']) {
      const l = launch(`AtPrice-${side}`, side);
      await outsiderInitializes(l, l.sqrtPriceX96);
      const { receipt } = await opens(l);
      assert.deepEqual(moves(receipt), []);
      gas[`openPool, ${side} launch, pool initialized first at the launch price`] = receipt.gasUsed;
    }
  });

  test('far above (Uniswap\'s highest price): openPool moves it down to the launch price for free, and opens there', async () => {
    const l = launch('FromTop', 'token0');
    const pool = await outsiderInitializes(l, MAX_SQRT_RATIO - 1n);
    const { receipt } = await opens(l);
    const [move] = moves(receipt);
    assert.deepEqual([move.address, move.recipient, move.amount0, move.amount1, move.sqrtPriceX96, move.liquidity], [pool, base.market, 0n, 0n, l.sqrtPriceX96, 0n]);
    for (const t of [l.token0, l.token1]) assert.equal(await bal(t, base.market), 0n, 'the market paid and kept nothing');
    gas['openPool, token0 launch, pool initialized first at the highest price'] = receipt.gasUsed;
  });

  test('far below (Uniswap\'s lowest price): openPool moves it up, and opens there', async () => {
    for (const side of ['token0', 'token1']) {
      const l = launch(`FromBottom-${side}`, side);
      await outsiderInitializes(l, MIN_SQRT_RATIO);
      const { receipt } = await opens(l);
      const [move] = moves(receipt);
      assert.deepEqual([move.amount0, move.amount1, move.sqrtPriceX96], [0n, 0n, l.sqrtPriceX96]);
      gas[`openPool, ${side} launch, pool initialized first at the lowest price`] = receipt.gasUsed;
    }
  });

  test('with the outsider\'s USDC beyond the launch price (out of range there, not in the way): openPool opens, the outsider\'s position stays out of range', async () => {
    const l = launch('Beyond', 'token0');
    const pool = await outsiderInitializes(l, l.sqrtPriceX96 * 4n);
    // USDC-only is below the price; this range is below the launch price too, so the move down stops before it
    const minted = await outsiderAddsUsdc(l, l.tickLower - 6000, l.tickLower - 600, 50n * E6);
    const { receipt } = await opens(l); // (checks the pool's liquidity in range is the launch's alone)
    assert.equal(moves(receipt).length, 1);
    assert.ok(minted.amount1 > 49n * E6);
    assert.equal(await bal(base.usdc, pool), minted.amount1, 'the outsider\'s USDC is still in the pool, untraded');
  });
});

// ------------------------------------------------------------------ occupied pools

describe('a pool with the outsider\'s liquidity in the way: openPool fails openly', () => {
  test('USDC-only liquidity between the outsider\'s price and the launch price: TokenpadMarketPoolOccupied, nothing moves', async () => {
    for (const side of ['token0', 'token1']) {
      const l = launch(`InTheWay-${side}`, side);
      // a price on the USDC side of the launch (above it for token0, below for token1), and USDC
      // in a range between the two: moving the price to the launch's would buy that USDC
      const start = side === 'token0' ? l.sqrtPriceX96 * 16n : l.sqrtPriceX96 / 16n;
      const pool = await outsiderInitializes(l, start);
      const range = side === 'token0' ? [l.tick + 600, l.tick + 6000] : [l.tick - 6000, l.tick - 600];
      await outsiderAddsUsdc(l, range[0], range[1], 1n);
      await deployTokenAt(l.label, l.salt);
      const args = await openArgs(l);
      assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'openPool', args, account: TREASURY })), { name: 'TokenpadMarketPoolOccupied', args: [pool] });
      // mined, it reverts too: the launch fails openly, the treasury keeps its tokens
      const before = await bal(l.token, TREASURY.address);
      await assert.rejects(send(node.rpcUrl, { address: base.market, abi: MARKET_ABI, functionName: 'openPool', args, account: TREASURY, gas: 8_000_000n }), /openPool reverted/);
      assert.equal(await bal(l.token, TREASURY.address), before);
      assert.equal((await poolRead(pool, 'slot0'))[0], start, 'the price did not move');
    }
  });

  test('USDC-only liquidity ending exactly at the launch price (in range there once the price comes down to it): TokenpadMarketPoolOccupied', async () => {
    const l = launch('AtTheEdge', 'token0');
    const pool = await outsiderInitializes(l, l.sqrtPriceX96 * 4n);
    await outsiderAddsUsdc(l, l.tick - 600, l.tick, 1000n);
    await deployTokenAt(l.label, l.salt);
    // the move itself trades nothing (the range starts where the move ends), but the pool crosses
    // into it at the launch price: the outsider's liquidity would be in range beside ours
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'openPool', args: await openArgs(l), account: TREASURY })), { name: 'TokenpadMarketPoolOccupied', args: [pool] });
  });
});

test('gas used (anvil, cancun code)', (t) => {
  for (const [k, v] of Object.entries(gas)) t.diagnostic(`${k}: ${v}`);
  const at = gas['openPool, token0 launch, pool initialized first at the launch price'];
  const at1 = gas['openPool, token1 launch, pool initialized first at the launch price'];
  t.diagnostic(`moving the price down across an empty pool, from the highest price to the token0 launch's (${887271 - T0_TICK} ticks): ${gas['openPool, token0 launch, pool initialized first at the highest price'] - at}`);
  t.diagnostic(`moving the price up across an empty pool, from the lowest price to the token0 launch's (${T0_TICK + 887272} ticks): ${gas['openPool, token0 launch, pool initialized first at the lowest price'] - at}`);
  t.diagnostic(`moving the price up across an empty pool, from the lowest price to the token1 launch's (${T1_TICK + 887272} ticks): ${gas['openPool, token1 launch, pool initialized first at the lowest price'] - at1}`);
  assert.ok(at && at1);
});
