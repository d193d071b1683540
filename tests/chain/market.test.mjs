// TokenpadMarket on a real local node (anvil) with Uniswap v3 deployed from Uniswap's own npm
// artifacts: pools opened with locked liquidity (single-sided launches and a two-sided pool),
// gasless trades on EIP-3009 signatures bound to the trade, quotes, slippage and liquidity
// limits, the callback guard, fees, and an outside trader through Uniswap's SwapRouter. (Pools
// that someone else created first: market-griefing.test.mjs.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeAbiParameters, getAddress, keccak256, toHex } from 'viem';
import { EMPTY_PULL, POOL_INIT_CODE_HASH, clients, deployBase, ethBalance, latestTimestamp, mintUsdc, read, send, startAnvil, swapNonce, uniswapArtifact } from './anvil.mjs';
import {
  CALL_ABI, E18, E6, FEE, GAS, MARKET_ABI, MAX_TICK, MIN_TICK, NPM_ABI, POOL_ABI, QUOTER_ABI, RELAYER, ROUTER_ABI, TOKEN_ABI, TRADER,
  TREASURY, TREASURY_KEY, UNI_FACTORY_ABI, USDC_ABI, bal, checkOpened, eventsOf, market, newHolder, poolRead, pull, quoteIn,
  quoteOut, revertOf, salt32, simulate, sorted, sqrtPriceAtTick, sqrtPriceOfAmounts, tickBelow, tokenOnSide, trade, useChain,
} from './market-kit.mjs';

let node;
let base; // deployBase's addresses
const gas = {}; // gas used, reported at the end

// ------------------------------------------------------------------ setup

let low; // a token below USDC: token0 of its USDC pool
let high; // a token above USDC: token1 of its USDC pool
let pair; // a token for the two-sided pool
let unopened; // a token whose pool nobody opens
const pools = {}; // label -> { pool, positionId, token0, token1 }

before(async () => {
  node = await startAnvil();
  base = await deployBase(node.rpcUrl);
  useChain(node, base);
  low = await tokenOnSide('Low', true);
  high = await tokenOnSide('High', false);
  pair = await tokenOnSide('Pair', true);
  unopened = await tokenOnSide('Unopened', true);
});

after(async () => {
  await node?.stop();
});

// ------------------------------------------------------------------ deployment

describe('deployment', () => {
  test('the market points at the Uniswap factory and position manager; fee tier 0.3 % (tick spacing 60)', async () => {
    const r = (functionName) => read(node.rpcUrl, { address: base.market, abi: MARKET_ABI, functionName });
    assert.equal(await r('factory'), base.uniswapFactory);
    assert.equal(await r('positionManager'), base.positionManager);
    assert.equal(await r('FEE'), FEE);
    assert.equal(await read(node.rpcUrl, { address: base.uniswapFactory, abi: UNI_FACTORY_ABI, functionName: 'feeAmountTickSpacing', args: [FEE] }), 60);
    assert.equal(await read(node.rpcUrl, { address: base.positionManager, abi: NPM_ABI, functionName: 'factory' }), base.uniswapFactory);
    assert.equal(await read(node.rpcUrl, { address: base.quoter, abi: QUOTER_ABI, functionName: 'factory' }), base.uniswapFactory);
    assert.equal(await read(node.rpcUrl, { address: base.swapRouter, abi: ROUTER_ABI, functionName: 'factory' }), base.uniswapFactory);
    assert.equal(keccak256(uniswapArtifact('UniswapV3Pool').bytecode), POOL_INIT_CODE_HASH, 'the periphery finds the pools this factory creates');
  });

  test('nothing in the market moves a position NFT or removes liquidity: its functions are these', () => {
    const fns = MARKET_ABI.filter((i) => i.type === 'function').map((i) => i.name).sort();
    assert.deepEqual(fns, [
      'FEE', 'collectFees', 'factory', 'onERC721Received', 'openPool', 'positionManager', 'positionOwner',
      'swapExactIn', 'swapExactOut', 'swapNonce', 'uniswapV3SwapCallback',
    ]);
  });
});

// ------------------------------------------------------------------ pools

describe('openPool', () => {
  test('a token launch, token0 side: token only, the range starting at the initial tick', async () => {
    const [token0, token1] = [low, base.usdc];
    assert.equal(sorted(token0, token1)[0], token0);
    // 1 LOW = 0.001 USDC: 1000 USDC units per 10^18 LOW units
    const tickLower = tickBelow(1e-15);
    const sqrtPriceX96 = sqrtPriceAtTick(tickLower);
    const value0 = 100_000_000n * E18;
    const before0 = await bal(token0, TREASURY.address);
    const before1 = await bal(token1, TREASURY.address);
    const args = [token0, token1, sqrtPriceX96, tickLower, MAX_TICK, await pull(TREASURY_KEY, token0, value0), EMPTY_PULL];
    const { receipt } = await market('openPool', args, TREASURY);
    gas['openPool (creating the pool)'] = receipt.gasUsed;
    const opened = await checkOpened(receipt, { token0, token1, tickLower, tickUpper: MAX_TICK, value0, value1: 0n, before0, before1 });
    assert.equal(opened.amount1, 0n, 'no USDC needed');
    assert.ok(value0 - opened.amount0 < 10n ** 12n, `all the reserve but rounding dust is in the pool (${value0 - opened.amount0} back)`);
    const slot0 = await poolRead(opened.pool, 'slot0');
    assert.equal(slot0[0], sqrtPriceX96);
    assert.equal(slot0[1], tickLower, 'the pool starts on the range\'s lower tick');
    assert.equal(await poolRead(opened.pool, 'liquidity'), opened.liquidity, 'in range from the start');
    pools.low = { ...opened, token0, token1 };
  });

  test('a token launch, token1 side: token only, the range ending at the initial tick', async () => {
    const [token0, token1] = [base.usdc, high];
    assert.equal(sorted(token0, token1)[0], token0);
    // 1 HIGH = 0.001 USDC: 10^15 HIGH units per USDC unit
    const tickUpper = tickBelow(1e15);
    // at or above the tick's edge (and below the next): the pool's tick is tickUpper, and the
    // range [MIN, tickUpper) lies entirely on the token's side of the price
    // (a hair above: for ticks this high the tick math's own rounding is above 1 unit)
    const edge = sqrtPriceAtTick(tickUpper);
    const sqrtPriceX96 = edge + edge / 10n ** 12n;
    const value1 = 100_000_000n * E18;
    const before0 = await bal(token0, TREASURY.address);
    const before1 = await bal(token1, TREASURY.address);
    const args = [token0, token1, sqrtPriceX96, MIN_TICK, tickUpper, EMPTY_PULL, await pull(TREASURY_KEY, token1, value1)];
    const { receipt } = await market('openPool', args, TREASURY);
    const opened = await checkOpened(receipt, { token0, token1, tickLower: MIN_TICK, tickUpper, value0: 0n, value1, before0, before1 });
    assert.equal(opened.amount0, 0n, 'no USDC needed');
    assert.equal((await poolRead(opened.pool, 'slot0'))[1], tickUpper);
    pools.high = { ...opened, token0, token1 };
  });

  test('a two-sided full-range pool (token + USDC); the leftover goes back to the treasury', async () => {
    const [token0, token1] = [pair, base.usdc];
    await mintUsdc(node.rpcUrl, base.usdc, TREASURY.address, 10_000n * E6);
    const value0 = 1_000_000n * E18;
    const value1 = 10_000n * E6;
    // a price a little off the amounts' ratio, so one side has something left over
    const sqrtPriceX96 = sqrtPriceOfAmounts(value0, value1 - 10n * E6);
    const before0 = await bal(token0, TREASURY.address);
    const before1 = await bal(token1, TREASURY.address);
    const args = [token0, token1, sqrtPriceX96, MIN_TICK, MAX_TICK, await pull(TREASURY_KEY, token0, value0), await pull(TREASURY_KEY, token1, value1)];
    const { receipt } = await market('openPool', args, TREASURY);
    const opened = await checkOpened(receipt, { token0, token1, tickLower: MIN_TICK, tickUpper: MAX_TICK, value0, value1, before0, before1 });
    assert.ok(opened.amount0 > 0n && opened.amount1 > 0n);
    assert.ok(value1 - opened.amount1 >= 9n * E6, `about 10 USDC back (${value1 - opened.amount1})`);
    pools.pair = { ...opened, token0, token1, sqrtPriceX96 };
  });

  test('a pool open already (ours) is not opened again: its liquidity in range makes openPool refuse, at its price or another', async () => {
    const { pool, token0, token1, sqrtPriceX96 } = pools.pair;
    await mintUsdc(node.rpcUrl, base.usdc, TREASURY.address, 100n * E6);
    const value0 = 1000n * E18;
    const pulls = async () => [await pull(TREASURY_KEY, token0, value0), await pull(TREASURY_KEY, token1, 10n * E6)];
    // at its own price: nothing to move, but the pool's liquidity in range is not 0
    const same = [token0, token1, sqrtPriceX96, MIN_TICK, MAX_TICK, ...(await pulls())];
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'openPool', args: same, account: TREASURY })), { name: 'TokenpadMarketPoolOccupied', args: [pool] });
    // at another price: moving it would trade against that liquidity
    const other = [token0, token1, sqrtPriceX96 * 2n, MIN_TICK, MAX_TICK, ...(await pulls())];
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'openPool', args: other, account: TREASURY })), { name: 'TokenpadMarketPoolOccupied', args: [pool] });
    assert.equal((await poolRead(pool, 'slot0'))[0], sqrtPriceX96);
  });

  test("only the pull's signer may open with it; tokens must be sorted; something must go in", async () => {
    const value0 = 1000n * E18;
    const p = await pull(TREASURY_KEY, pair, value0);
    const args = [pair, base.usdc, pools.pair.sqrtPriceX96, MIN_TICK, MAX_TICK, p, EMPTY_PULL];
    // the relayer (or anyone else) submitting the treasury's signed pull
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'openPool', args, account: RELAYER })), {
      name: 'TokenpadMarketPullNotFromCaller', args: [TREASURY.address, RELAYER.address],
    });
    const unsorted = [base.usdc, pair, pools.pair.sqrtPriceX96, MIN_TICK, MAX_TICK, EMPTY_PULL, p];
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'openPool', args: unsorted, account: TREASURY })), {
      name: 'TokenpadMarketTokensNotSorted', args: [base.usdc, pair],
    });
    const empty = [pair, base.usdc, pools.pair.sqrtPriceX96, MIN_TICK, MAX_TICK, EMPTY_PULL, EMPTY_PULL];
    assert.equal((await revertOf(simulate({ address: base.market, functionName: 'openPool', args: empty, account: TREASURY }))).name, 'TokenpadMarketNothingToDeposit');
    // a pull whose signature does not cover it (another value, market or payee) does not verify
    const q = await pull(TREASURY_KEY, unopened, value0);
    const forged = { ...q, value: q.value + 1n };
    assert.equal((await revertOf(simulate({ address: base.market, functionName: 'openPool', args: [unopened, base.usdc, pools.pair.sqrtPriceX96, MIN_TICK, MAX_TICK, forged, EMPTY_PULL], account: TREASURY }))).name, 'EIP3009InvalidSignature');
  });
});

// ------------------------------------------------------------------ trades

/** Runs a signed trade through the relayer; checks the holder got exactly `expectOut`, paid `expectIn`. */
async function relayTrade(holder, fn, args, { tokenIn, tokenOut, expectIn, expectOut }) {
  const in0 = await bal(tokenIn, holder.address);
  const out0 = await bal(tokenOut, holder.address);
  const { result, receipt } = await market(fn, args);
  assert.equal(getAddress(receipt.from), RELAYER.address, 'the relayer paid the gas');
  assert.equal(await ethBalance(node.rpcUrl, holder.address), 0n, 'the holder has no ETH');
  assert.equal(await bal(tokenOut, holder.address), out0 + expectOut);
  assert.equal(await bal(tokenIn, holder.address), in0 - expectIn);
  assert.equal(await bal(tokenIn, base.market), 0n);
  assert.equal(await bal(tokenOut, base.market), 0n);
  const [swap] = eventsOf(receipt, POOL_ABI, 'Swap');
  assert.equal(swap.sender, base.market);
  assert.equal(swap.recipient, holder.address);
  return { result, receipt, swap };
}

describe('swaps for holders without ETH', () => {
  const alice = newHolder();

  before(async () => {
    await mintUsdc(node.rpcUrl, base.usdc, alice.address, 1_000n * E6);
  });

  test('swapNonce is keccak256(abi.encode(market, from, tokenIn, tokenOut, exactIn, amount, limit, salt))', async () => {
    const p = { from: alice.address, tokenIn: base.usdc, tokenOut: low, exactIn: true, amount: 5n, limit: 7n, salt: salt32('x') };
    assert.equal(
      await read(node.rpcUrl, { address: base.market, abi: MARKET_ABI, functionName: 'swapNonce', args: [p.from, p.tokenIn, p.tokenOut, p.exactIn, p.amount, p.limit, p.salt] }),
      swapNonce(base.market, p),
    );
  });

  test('swapExactIn: USDC -> token (token0 pool); the holder gets exactly what QuoterV2 quoted', async () => {
    const amountIn = 100n * E6;
    const quoted = await quoteIn(base.usdc, low, amountIn);
    assert.ok(quoted > 0n);
    const args = await trade(alice, { tokenIn: base.usdc, tokenOut: low, exactIn: true, amount: amountIn, limit: quoted });
    const { result, receipt, swap } = await relayTrade(alice, 'swapExactIn', args, { tokenIn: base.usdc, tokenOut: low, expectIn: amountIn, expectOut: quoted });
    assert.equal(result, quoted);
    assert.deepEqual([swap.amount0, swap.amount1], [-quoted, amountIn]);
    gas['swapExactIn (the pool\'s first trade)'] = receipt.gasUsed;
  });

  test('swapExactOut: USDC -> token; pays what QuoterV2 quoted, the unspent maxAmountIn comes back', async () => {
    const amountOut = 50_000n * E18;
    const quotedIn = await quoteOut(base.usdc, low, amountOut);
    const maxAmountIn = quotedIn + 5n * E6;
    const args = await trade(alice, { tokenIn: base.usdc, tokenOut: low, exactIn: false, amount: amountOut, limit: maxAmountIn });
    const { result, receipt } = await relayTrade(alice, 'swapExactOut', args, { tokenIn: base.usdc, tokenOut: low, expectIn: quotedIn, expectOut: amountOut });
    assert.equal(result, quotedIn);
    // the refund is a transfer from the market back to the holder in the same transaction
    const refund = receipt.logs.filter((l) => getAddress(l.address) === base.usdc && l.topics[1] === toHex(BigInt(base.market), { size: 32 }) && l.topics[2] === toHex(BigInt(alice.address), { size: 32 }));
    assert.equal(refund.length, 1);
    assert.equal(BigInt(refund[0].data), maxAmountIn - quotedIn);
    gas.swapExactOut = receipt.gasUsed;
  });

  test('both directions of both pool orientations', async () => {
    // token -> USDC on the token0 pool (zeroForOne)
    const sell = 10_000n * E18;
    const q1 = await quoteIn(low, base.usdc, sell);
    const { receipt } = await relayTrade(alice, 'swapExactIn', await trade(alice, { tokenIn: low, tokenOut: base.usdc, exactIn: true, amount: sell, limit: q1 }), { tokenIn: low, tokenOut: base.usdc, expectIn: sell, expectOut: q1 });
    gas.swapExactIn = receipt.gasUsed;
    // USDC -> token on the token1 pool (zeroForOne), exact in and exact out
    const q2 = await quoteIn(base.usdc, high, 20n * E6);
    await relayTrade(alice, 'swapExactIn', await trade(alice, { tokenIn: base.usdc, tokenOut: high, exactIn: true, amount: 20n * E6, limit: q2 }), { tokenIn: base.usdc, tokenOut: high, expectIn: 20n * E6, expectOut: q2 });
    const q3 = await quoteOut(base.usdc, high, 1000n * E18);
    await relayTrade(alice, 'swapExactOut', await trade(alice, { tokenIn: base.usdc, tokenOut: high, exactIn: false, amount: 1000n * E18, limit: q3 }), { tokenIn: base.usdc, tokenOut: high, expectIn: q3, expectOut: 1000n * E18 });
    // token -> USDC on the token1 pool, exact out
    const q4 = await quoteOut(high, base.usdc, 1n * E6);
    await relayTrade(alice, 'swapExactOut', await trade(alice, { tokenIn: high, tokenOut: base.usdc, exactIn: false, amount: 1n * E6, limit: q4 * 2n }), { tokenIn: high, tokenOut: base.usdc, expectIn: q4, expectOut: 1n * E6 });
  });

  test('the signature is bound to the trade: a lower minAmountOut, another amount or token pair is refused', async () => {
    const amountIn = 5n * E6;
    const quoted = await quoteIn(base.usdc, low, amountIn);
    const args = await trade(alice, { tokenIn: base.usdc, tokenOut: low, exactIn: true, amount: amountIn, limit: quoted });
    const replay = (changes) => revertOf(simulate({ address: base.market, functionName: 'swapExactIn', args: changes(args) }));
    assert.equal((await replay(([a, b, c, , s, p]) => [a, b, c, 0n, s, p])).name, 'TokenpadMarketNonceMismatch');
    assert.equal((await replay(([a, b, c, d, , p]) => [a, b, c, d, salt32('other'), p])).name, 'TokenpadMarketNonceMismatch');
    assert.equal((await replay(([, b, c, d, s, p]) => [pair, b, c, d, s, p])).name, 'TokenpadMarketNonceMismatch');
    // the same parameters as exact out
    assert.equal((await revertOf(simulate({ address: base.market, functionName: 'swapExactOut', args }))).name, 'TokenpadMarketNonceMismatch');
    // a pull whose value is not amountIn, though its nonce matches
    const badValue = await trade(alice, { tokenIn: base.usdc, tokenOut: low, exactIn: true, amount: amountIn, limit: 0n, value: amountIn + 1n });
    assert.equal((await revertOf(simulate({ address: base.market, functionName: 'swapExactIn', args: badValue }))).name, 'TokenpadMarketBadValue');
    // the genuine one still goes through, once
    await relayTrade(alice, 'swapExactIn', args, { tokenIn: base.usdc, tokenOut: low, expectIn: amountIn, expectOut: quoted });
    assert.equal((await revertOf(simulate({ address: base.market, functionName: 'swapExactIn', args }))).name, 'EIP3009AuthorizationUsedOrCanceled');
  });

  test('slippage: exact in below minAmountOut, exact out above maxAmountIn', async () => {
    const amountIn = 5n * E6;
    const quoted = await quoteIn(base.usdc, low, amountIn);
    const tooMuch = await trade(alice, { tokenIn: base.usdc, tokenOut: low, exactIn: true, amount: amountIn, limit: quoted + 1n });
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'swapExactIn', args: tooMuch })), { name: 'TokenpadMarketSlippage', args: [quoted, quoted + 1n] });
    const amountOut = 1000n * E18;
    const quotedIn = await quoteOut(base.usdc, low, amountOut);
    const tooLittle = await trade(alice, { tokenIn: base.usdc, tokenOut: low, exactIn: false, amount: amountOut, limit: quotedIn - 1n });
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'swapExactOut', args: tooLittle })), { name: 'TokenpadMarketSlippage', args: [quotedIn, quotedIn - 1n] });
  });

  test('a trade the pool cannot fill reverts InsufficientLiquidity; a pair without a pool NoPool', async () => {
    // A launch pool holds only the USDC its buyers brought: selling more tokens than they bought
    // runs the price back to the range's edge, where liquidity ends (a partial fill).
    for (const token of [low, high]) {
      await send(node.rpcUrl, { address: token, abi: TOKEN_ABI, functionName: 'transfer', args: [alice.address, 1_000_000n * E18], account: TREASURY });
      const all = await bal(token, alice.address);
      const sellAll = await trade(alice, { tokenIn: token, tokenOut: base.usdc, exactIn: true, amount: all, limit: 0n });
      assert.equal((await revertOf(simulate({ address: base.market, functionName: 'swapExactIn', args: sellAll }))).name, 'TokenpadMarketInsufficientLiquidity');
      // and buying more USDC than the pool holds
      const pool = token === low ? pools.low.pool : pools.high.pool;
      const usdcInPool = await bal(base.usdc, pool);
      const buyAllUsdc = await trade(alice, { tokenIn: token, tokenOut: base.usdc, exactIn: false, amount: usdcInPool + 1n, limit: all });
      assert.equal((await revertOf(simulate({ address: base.market, functionName: 'swapExactOut', args: buyAllUsdc }))).name, 'TokenpadMarketInsufficientLiquidity');
      // what can be filled still is
      const some = await quoteIn(token, base.usdc, 1000n * E18);
      assert.ok(some > 0n);
    }
    const noPool = await trade(alice, { tokenIn: low, tokenOut: high, exactIn: true, amount: 1n, limit: 0n });
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'swapExactIn', args: noPool })), { name: 'TokenpadMarketNoPool', args: [low, high] });
  });

  test('the swap callback refuses everyone but the pool of the swap in progress', async () => {
    const args = [0n, 10n ** 6n, encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [base.usdc, 10n ** 30n])];
    const { publicClient } = await clients(node.rpcUrl);
    // from an account, and from a real pool outside a swap of the market's
    for (const account of [RELAYER.address, TRADER.address, pools.low.pool, pools.high.pool]) {
      const call = publicClient.simulateContract({ address: base.market, abi: MARKET_ABI, functionName: 'uniswapV3SwapCallback', args, account });
      assert.equal((await revertOf(call)).name, 'TokenpadMarketUnauthorizedCallback', account);
    }
  });
});

describe('fees and outside traders', () => {
  test('an outside trader trades the pool through Uniswap\'s SwapRouter', async () => {
    await mintUsdc(node.rpcUrl, base.usdc, TRADER.address, 500n * E6);
    await send(node.rpcUrl, { address: base.usdc, abi: USDC_ABI, functionName: 'approve', args: [base.swapRouter, 500n * E6], account: TRADER });
    const amountIn = 200n * E6;
    const quoted = await quoteIn(base.usdc, low, amountIn);
    const before = await bal(low, TRADER.address);
    const deadline = (await latestTimestamp(node.rpcUrl)) + 600n;
    const receipt = await send(node.rpcUrl, {
      address: base.swapRouter, abi: ROUTER_ABI, functionName: 'exactInputSingle', account: TRADER, gas: GAS.default,
      args: [{ tokenIn: base.usdc, tokenOut: low, fee: FEE, recipient: TRADER.address, deadline, amountIn, amountOutMinimum: quoted, sqrtPriceLimitX96: 0n }],
    });
    assert.equal(await bal(low, TRADER.address), before + quoted);
    assert.equal(eventsOf(receipt, POOL_ABI, 'Swap')[0].address, pools.low.pool);
  });

  test('collectFees (anyone may call it) pays the position\'s fees to the treasury', async () => {
    const { positionId, token0, token1 } = pools.low;
    const before0 = await bal(token0, TREASURY.address);
    const before1 = await bal(token1, TREASURY.address);
    const { result, receipt } = await market('collectFees', [positionId]);
    gas.collectFees = receipt.gasUsed;
    const [fee0, fee1] = result;
    // 0.3 % of the USDC that came in (over 300 USDC so far) and of the 10,000 tokens sold back
    assert.ok(fee1 > 900_000n, `USDC fees ${fee1}`);
    assert.ok(fee0 > 29_900n * E18 / 1000n && fee0 < 30_100n * E18 / 1000n, `token fees ${fee0}`);
    assert.equal(await bal(token0, TREASURY.address), before0 + fee0);
    assert.equal(await bal(token1, TREASURY.address), before1 + fee1);
    const collect = eventsOf(receipt, NPM_ABI, 'Collect')[0];
    assert.equal(collect.recipient, TREASURY.address);
    // nothing more until more trades
    const { result: again } = await market('collectFees', [positionId]);
    assert.deepEqual(again, [0n, 0n]);
    // the position stays where it is, with all its liquidity
    assert.equal(await read(node.rpcUrl, { address: base.positionManager, abi: NPM_ABI, functionName: 'ownerOf', args: [positionId] }), base.market);
    assert.equal((await read(node.rpcUrl, { address: base.positionManager, abi: NPM_ABI, functionName: 'positions', args: [positionId] }))[7], pools.low.liquidity);
  });

  test('collectFees refuses unknown positions; the market takes NFTs from the position manager only', async () => {
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'collectFees', args: [999n] })), { name: 'TokenpadMarketUnknownPosition', args: [999n] });
    const args = [TRADER.address, TRADER.address, 1n, '0x'];
    assert.deepEqual(await revertOf(simulate({ address: base.market, functionName: 'onERC721Received', args, account: TRADER })), { name: 'TokenpadMarketUnexpectedNFT', args: [TRADER.address] });
    const { publicClient } = await clients(node.rpcUrl);
    const { result } = await publicClient.simulateContract({ address: base.market, abi: MARKET_ABI, functionName: 'onERC721Received', args, account: base.positionManager });
    assert.equal(result, '0x150b7a02');
  });
});

test('gas used (anvil, cancun code)', (t) => {
  for (const [k, v] of Object.entries(gas)) t.diagnostic(`${k}: ${v}`);
  assert.ok(gas['openPool (creating the pool)'] && gas.swapExactIn && gas.swapExactOut);
});
