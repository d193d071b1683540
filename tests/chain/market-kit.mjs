// What TokenpadMarket's anvil tests share (tests/chain/market.test.mjs, the launch and its
// outside moves in tests/chain/market-griefing.test.mjs): the accounts and their roles, the ABIs,
// Uniswap's price math on the test side, and helpers that sign pulls and trades, send and
// simulate market calls, read pools and check an opened position. Call useChain(node, base) in
// the test file's before() first.
import assert from 'node:assert/strict';
import { decodeEventLog, encodeAbiParameters, getAddress, keccak256, toBytes, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  DEV_ACCOUNTS,
  DEV_KEYS,
  POOL_INIT_CODE_HASH,
  artifact,
  balanceOf,
  clients,
  create2Address,
  deployToken,
  latestTimestamp,
  read,
  send,
  signPull,
  swapNonce,
  tokenAddress,
  uniswapArtifact,
} from './anvil.mjs';

let node; // startAnvil's node
let base; // deployBase's addresses

/** The node and base contracts every helper here talks to. */
export function useChain(n, b) {
  node = n;
  base = b;
}

export const RELAYER = DEV_ACCOUNTS[1]; // submits holders' trades and pays the gas
export const TREASURY_KEY = DEV_KEYS[2]; // a merchant's treasury: opens its own pools, pays its own gas
export const TREASURY = DEV_ACCOUNTS[2];
export const TRADER = DEV_ACCOUNTS[3]; // an outside trader with ETH, using Uniswap's router

export const MARKET_ABI = artifact('TokenpadMarket').abi;
export const TOKEN_ABI = artifact('TokenpadToken').abi;
export const USDC_ABI = artifact('TestUSDC').abi;
export const POOL_ABI = uniswapArtifact('UniswapV3Pool').abi;
export const UNI_FACTORY_ABI = uniswapArtifact('UniswapV3Factory').abi;
export const NPM_ABI = uniswapArtifact('NonfungiblePositionManager').abi;
export const QUOTER_ABI = uniswapArtifact('QuoterV2').abi;
export const ROUTER_ABI = uniswapArtifact('SwapRouter').abi;
// The market's calls can also revert with the tokens' own errors (a bad signature, ...).
export const CALL_ABI = [...MARKET_ABI, ...TOKEN_ABI.filter((i) => i.type === 'error')];

export const E18 = 10n ** 18n;
export const E6 = 10n ** 6n;
export const FEE = 3000;
export const MAX_TICK = 887220; // the largest multiple of 60 within Uniswap's ticks (±887272)
export const MIN_TICK = -MAX_TICK;
/** Uniswap's TickMath.MIN_SQRT_RATIO and MAX_SQRT_RATIO: a pool's price is in [MIN, MAX). */
export const MIN_SQRT_RATIO = 4295128739n;
export const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;


// ------------------------------------------------------------------ price math (test side)

/** floor(sqrt(n)) for a bigint. */
export function isqrt(n) {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/**
 * sqrt(1.0001^tick) * 2^96, rounded up: the price at a tick edge in Uniswap's Q64.96 form, from
 * 512-bit fixed-point arithmetic. Uniswap's TickMath approximates the same number; for the
 * negative ticks the token0 launch uses they agree exactly (the test proves it: the pool lands
 * on that very tick and asks for none of the other token).
 */
export function sqrtPriceAtTick(tick) {
  const F = 512n;
  let factor = tick >= 0 ? (10001n << F) / 10000n : (10000n << F) / 10001n;
  let acc = 1n << F;
  for (let e = BigInt(Math.abs(tick)); e > 0n; e >>= 1n) {
    if (e & 1n) acc = (acc * factor) >> F;
    factor = (factor * factor) >> F;
  }
  const q = isqrt(acc); // sqrt(1.0001^tick) * 2^256
  const shift = F / 2n - 96n;
  return (q >> shift) + ((q & ((1n << shift) - 1n)) === 0n ? 0n : 1n);
}

/** sqrt(amount1 / amount0) * 2^96: the price at which a full-range position takes both amounts. */
export const sqrtPriceOfAmounts = (amount0, amount1) => isqrt((amount1 << 192n) / amount0);

/** The multiple of 60 at or below the tick of a raw price (token1 units per token0 unit). */
export const tickBelow = (price) => Math.floor(Math.floor(Math.log(price) / Math.log(1.0001)) / 60) * 60;

// ------------------------------------------------------------------ helpers

export const salt32 = (s) => keccak256(toBytes(s));
export const randomNonce = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
export const newHolder = () => {
  const key = generatePrivateKey();
  return { key, address: privateKeyToAccount(key).address };
};
export const validBefore = async () => (await latestTimestamp(node.rpcUrl)) + 3600n;

/** The custom error (name and args) a call reverts with, decoded with `abi`. */
export async function revertOf(promise) {
  try {
    await promise;
  } catch (e) {
    for (let c = e; c; c = c.cause) if (c.data?.errorName) return { name: c.data.errorName, args: c.data.args ?? [] };
    for (let c = e; c; c = c.cause) if (c.reason) return { name: 'Error', args: [c.reason] };
    throw e;
  }
  assert.fail('expected a revert');
}

/** eth_call of a state-changing function (simulation), as `account`. */
export async function simulate({ address, abi = CALL_ABI, functionName, args, account = RELAYER }) {
  const { publicClient } = await clients(node.rpcUrl, account);
  return publicClient.simulateContract({ address, abi, functionName, args, account });
}

/**
 * Gas limits for sends. Not estimates: a pool's first swap in a block writes an oracle
 * observation, so a swap estimated against one block can need ~20k more in the next one (an
 * estimate without margin made this file flaky). A settler must add a margin likewise.
 */
export const GAS = { openPool: 8_000_000n, default: 1_000_000n };

/** Sends a market call (as `account`, RELAYER by default); returns { result, receipt }. */
export async function market(functionName, args, account = RELAYER) {
  const { result } = await simulate({ address: base.market, functionName, args, account });
  const gas = GAS[functionName] ?? GAS.default;
  const receipt = await send(node.rpcUrl, { address: base.market, abi: MARKET_ABI, functionName, args, account, gas });
  return { result, receipt };
}

/** The EIP-712 domain of a token (what the market's pull is signed under). */
const domains = new Map();
export async function domainOf(token) {
  if (!domains.has(token)) {
    const d = await read(node.rpcUrl, { address: token, abi: TOKEN_ABI, functionName: 'eip712Domain' });
    domains.set(token, { name: d[1], version: d[2] });
  }
  return domains.get(token);
}

export async function pull(privateKey, token, value, nonce = randomNonce()) {
  return signPull({
    privateKey, token, ...(await domainOf(token)), chainId: node.chainId, market: base.market, value, nonce,
    validBefore: await validBefore(),
  });
}

/** A holder's signed trade: the args of swapExactIn / swapExactOut. */
export async function trade(holder, { tokenIn, tokenOut, exactIn, amount, limit, salt = randomNonce(), value }) {
  const nonce = swapNonce(base.market, { from: holder.address, tokenIn, tokenOut, exactIn, amount, limit, salt });
  const p = await pull(holder.key, tokenIn, value ?? (exactIn ? amount : limit), nonce);
  return [tokenIn, tokenOut, amount, limit, salt, p];
}

export async function quoteIn(tokenIn, tokenOut, amountIn) {
  const { result } = await simulate({
    address: base.quoter, abi: QUOTER_ABI, functionName: 'quoteExactInputSingle',
    args: [{ tokenIn, tokenOut, amountIn, fee: FEE, sqrtPriceLimitX96: 0n }],
  });
  return result[0];
}
export async function quoteOut(tokenIn, tokenOut, amountOut) {
  const { result } = await simulate({
    address: base.quoter, abi: QUOTER_ABI, functionName: 'quoteExactOutputSingle',
    args: [{ tokenIn, tokenOut, amount: amountOut, fee: FEE, sqrtPriceLimitX96: 0n }],
  });
  return result[0];
}

export const poolRead = (pool, functionName, args = []) => read(node.rpcUrl, { address: pool, abi: POOL_ABI, functionName, args });
export const bal = (token, owner) => balanceOf(node.rpcUrl, token, owner);
export const sorted = (a, b) => (BigInt(a) < BigInt(b) ? [a, b] : [b, a]);

/** The events of `abi` in a receipt, decoded (others skipped). */
export function eventsOf(receipt, abi, eventName) {
  const out = [];
  for (const log of receipt.logs) {
    try {
      const ev = decodeEventLog({ abi, data: log.data, topics: log.topics });
      if (ev.eventName === eventName) out.push({ ...ev.args, address: getAddress(log.address) });
    } catch {
      // another contract's event
    }
  }
  return out;
}

/** The salt and address of the first token `label-i` the relayer would deploy below (`below`) or above USDC's. */
export function predictOnSide(label, below) {
  for (let i = 0; ; i++) {
    const salt = salt32(`${label}-${i}`);
    const address = tokenAddress(base.factory, RELAYER.address, salt);
    if ((BigInt(address) < BigInt(base.usdc)) === below) return { salt, address };
  }
}

/** Deploys the relayer's token `label` under `salt`, its whole supply (10^9) the treasury's. */
export async function deployTokenAt(label, salt) {
  const { token } = await deployToken(node.rpcUrl, base.factory, { salt, name: label, symbol: label.toUpperCase(), supply: 10n ** 9n * E18, treasury: TREASURY.address, account: RELAYER });
  return token;
}

/** A TokenpadToken of the treasury whose address is below (`below`) or above USDC's. */
export async function tokenOnSide(label, below) {
  return deployTokenAt(label, predictOnSide(label, below).salt);
}

/** Checks an opened pool and its position; returns { pool, positionId, ... } from PoolOpened. */
export async function checkOpened(receipt, { token0, token1, tickLower, tickUpper, value0, value1, before0, before1 }) {
  const [opened] = eventsOf(receipt, MARKET_ABI, 'PoolOpened');
  assert.ok(opened, 'PoolOpened emitted');
  const { pool, positionId, owner, liquidity, amount0, amount1 } = opened;
  assert.equal(owner, TREASURY.address);
  assert.equal(pool, await read(node.rpcUrl, { address: base.uniswapFactory, abi: UNI_FACTORY_ABI, functionName: 'getPool', args: [token0, token1, FEE] }));
  assert.equal(pool, create2Address(base.uniswapFactory, keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }], [token0, token1, FEE])), POOL_INIT_CODE_HASH));
  assert.equal(await poolRead(pool, 'token0'), token0);
  assert.equal(await poolRead(pool, 'token1'), token1);
  assert.ok(liquidity > 0n);
  // the position: held by the market for good, fees to the treasury
  assert.equal(await read(node.rpcUrl, { address: base.positionManager, abi: NPM_ABI, functionName: 'ownerOf', args: [positionId] }), base.market);
  assert.equal(await read(node.rpcUrl, { address: base.market, abi: MARKET_ABI, functionName: 'positionOwner', args: [positionId] }), TREASURY.address);
  const pos = await read(node.rpcUrl, { address: base.positionManager, abi: NPM_ABI, functionName: 'positions', args: [positionId] });
  assert.deepEqual([pos[2], pos[3], pos[4], pos[5], pos[6], pos[7]], [token0, token1, FEE, tickLower, tickUpper, liquidity]);
  // what the position did not take went back; the market keeps nothing and approves nothing
  assert.ok(amount0 <= value0 && amount1 <= value1);
  assert.equal(await bal(token0, TREASURY.address), before0 - amount0);
  assert.equal(await bal(token1, TREASURY.address), before1 - amount1);
  for (const t of [token0, token1]) {
    assert.equal(await bal(t, base.market), 0n);
    assert.equal(await read(node.rpcUrl, { address: t, abi: TOKEN_ABI, functionName: 'allowance', args: [base.market, base.positionManager] }), 0n);
  }
  return opened;
}
