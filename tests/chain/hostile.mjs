// What the hostile-chain suites (tests/chain/hostile_*.test.mjs, issue 40) share: a worker on
// its own anvil behind a proxy (rpc_proxy.mjs: the test can hold, drop or answer any call the
// settler makes), the checks every case ends with (ledger == chain, no relayer halted, the
// holder's history), and an outside account's moves on Uniswap v3 and the lock contract.
//
//   const h = await hostileWorld({ env: { CHAIN_FINALITY: '6' } });
//   const M = await h.c.newMerchant('Acme');
//   ...
//   await h.endsClean(M);        // settled, reconcile at zero differences, relayer not halted
//   await h.stop();
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { decodeEventLog, decodeFunctionData, encodeFunctionData, getAddress, keccak256, parseTransaction, toHex } from 'viem';
import {
  DEV_ACCOUNTS, DEV_KEYS, artifact, balanceOf, chainConfig, deployBase, deployToken, latestTimestamp, mintUsdc, read, rpc, send,
  signPull, startAnvil, uniswapArtifact,
} from './anvil.mjs';
import { startProxy } from './rpc_proxy.mjs';
import { startWorker } from '../http/harness.mjs';
import { checkedClient, eventLog, funded, holder, serviceNow } from '../http/check.mjs';
import { exact, units } from '../http/amounts.mjs';
import * as v3 from '../http/v3.mjs';

export const E18 = 10n ** 18n;
export const E6 = 10n ** 6n;
export const FEE = 3000;
/** An outside account: anvil's dev account 3 (ETH, no part in tokenpad's custody). */
export const OUTSIDER = DEV_ACCOUNTS[3];
export const OUTSIDER_KEY = DEV_KEYS[3];
export const LOCKER_ABI = () => artifact('TokenpadLocker').abi;
export const POOL_ABI = uniswapArtifact('UniswapV3Pool').abi;
const NPM_ABI = uniswapArtifact('NonfungiblePositionManager').abi;
const UNI_FACTORY_ABI = uniswapArtifact('UniswapV3Factory').abi;
const ROUTER_ABI = uniswapArtifact('SwapRouter').abi;
const ERC20_ABI = artifact('TestUSDC').abi;

/**
 * Waits until `check()` passes (returns without throwing; its value is returned), trying every
 * `every` ms; after `timeoutMs` throws the last failure, prefixed with `what`: a case that
 * never gets there says why, not just "timed out". `between` runs between tries.
 */
export async function eventually(what, check, { timeoutMs = 30_000, every = 200, between } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw new assert.AssertionError({ message: `${what} (not within ${timeoutMs / 1000} s): ${e.message}` });
    }
    if (between) await between();
    await sleep(every);
  }
}

/**
 * One hostile world for a test file (`options` as hostileWorld's): started before the file's
 * tests, handed to `ready`, stopped after them, and then `cleanup()`, if given.
 */
export function fileWorld(ready, options = {}, cleanup = () => {}) {
  let h;
  before(async () => {
    h = await hostileWorld(options);
    ready(h);
  });
  after(async () => {
    await h?.stop();
    cleanup();
  });
}

/**
 * One hostile world for a test file whose receipts are final `finality` blocks deep, the
 * deposit scan 2 blocks behind the head (as on Base Sepolia), anvil's state in a directory of
 * its own (removed after the file's tests): `fileWorld`'s.
 */
export function finalityWorld(finality, ready) {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'tokenpad-hostile-'));
  fileWorld(ready, {
    env: { CHAIN_FINALITY: String(finality), CHAIN_CONFIRMATIONS: '2' },
    stateFile: path.join(stateDir, 'anvil.json'),
  }, () => rmSync(stateDir, { recursive: true, force: true }));
}

/**
 * anvil with tokenpad's base contracts, a proxy in front of it, and a worker settling through
 * the proxy (FAST_CHAIN_VARS plus `env`). `stateFile`: anvil loads and dumps its chain there
 * (restartNode brings it back from the last dumpState).
 */
export async function hostileWorld({ env = {}, stateFile } = {}) {
  if (stateFile) rmSync(stateFile, { force: true });
  let anvil = await startAnvil({ stateFile });
  let base;
  let proxy;
  let w;
  const c = checkedClient(() => w);
  // The blocks the ledger's deposit scan stays behind the chain's newest.
  const confirmations = BigInt(env.CHAIN_CONFIRMATIONS ?? 0);
  try {
    base = await deployBase(anvil.rpcUrl);
    proxy = await startProxy(anvil.rpcUrl);
    w = await startWorker({ chain: chainConfig(base, proxy.url, anvil.chainId), env });
  } catch (e) {
    await proxy?.stop();
    await anvil.stop();
    throw e;
  }
  const node = (method, params = []) => rpc(anvil.rpcUrl, method, params);

  const h = {
    c, proxy, base,
    get w() { return w; },
    get rpcUrl() { return anvil.rpcUrl; },
    node,
    async stop() {
      await w?.stop();
      await proxy.stop();
      await anvil.stop();
    },
    // ---------------------------------------------------------------- the node
    head: async () => Number(await node('eth_blockNumber')),
    mine: (n = 1) => node('anvil_mine', [toHex(n)]),
    /** anvil_reorg: the last `depth` blocks replaced by empty ones; their transactions gone. */
    reorg: (depth) => node('anvil_reorg', [depth, []]),
    /** The node's state now, written where restartNode loads it from. */
    async dumpState() {
      const hex = await node('anvil_dumpState');
      const raw = Buffer.from(hex.slice(2), 'hex');
      let json;
      try {
        json = gunzipSync(raw);
      } catch {
        json = raw;
      }
      writeFileSync(stateFile, json);
      return h.head();
    },
    /** kill -9 of anvil (what it did since the last dump is lost), then anvil again on the same port from the state file. */
    async restartNode() {
      const { port } = anvil;
      process.kill(anvil.pid, 'SIGKILL');
      await anvil.exited;
      anvil = await startAnvil({ stateFile, port });
      assert.equal(anvil.port, port, 'anvil came back on the same port');
      proxy.upstream = anvil.rpcUrl;
    },
    /** The relayer's nonce on chain (its next transaction's). */
    nonce: async (M, tag = 'latest') => Number(await node('eth_getTransactionCount', [M.merchantAddress, tag])),
    /** A receipt, checked to be in the canonical chain: its block at its number is the block it names. */
    async canonicalReceipt(hash, what = hash) {
      const r = await node('eth_getTransactionReceipt', [hash]);
      assert.ok(r, `${what}: the node has no receipt of ${hash} (its block is not in the chain)`);
      const block = await node('eth_getBlockByNumber', [r.blockNumber, false]);
      assert.equal(block?.hash, r.blockHash, `${what}: ${hash}'s block ${Number(r.blockNumber)} is not the canonical one`);
      return r;
    },
    // ---------------------------------------------------------------- the service
    admin: (method, path, body) => c.call(method, path, { adminKey: w.adminKey, body }),
    view: async (M) => c.ok(await c.call('GET', `/admin/merchants/${M.id}/chain`, { adminKey: w.adminKey })),
    /** A holder's records, newest first, amounts as exact text. */
    async history(M, userId) {
      const r = await c.call('GET', `/holder/${userId}/transactions?limit=100`, { key: M.secretKey });
      assert.equal(r.status, 200, r.text);
      return exact(r).data;
    },
    /** The holder `userId` of `M` (given `usdcAmount` test USDC, if any): its address. */
    holder: async (M, userId, usdcAmount = 0) => (usdcAmount > 0 ? funded(w, M, userId, usdcAmount) : (await holder(w, M, userId)).address),
    /**
     * What every case ends with: every movement settled, reconcile at zero differences (pools
     * matching), no transaction stuck, no relayer error, and the relayer's next nonce the
     * chain's (never behind a gap). Returns the reconcile report.
     */
    async endsClean(M, { settleMs = 60_000 } = {}) {
      await c.settled(M, settleMs);
      const head = await h.scannedTo(M);
      const r = await c.reconciled(M);
      // The report says where the ledger has followed others' transfers to: past the block
      // waited for above, and not past the block it read.
      assert.ok(BigInt(r.scannedBlock) + confirmations >= head && BigInt(r.scannedBlock) <= BigInt(r.blockNumber),
        `reconcile's scannedBlock ${r.scannedBlock} (head ${head}, read at ${r.blockNumber})`);
      for (const p of r.pools ?? []) assert.equal(p.matches, true, `pool of ${p.symbol}: ${JSON.stringify(p)}`);
      const v = await h.view(M);
      assert.equal(v.relayer?.error ?? null, null, `the relayer of ${M.id} is halted: ${v.relayer?.error}`);
      assert.deepEqual(v.transactions, [], 'no transaction stuck');
      if (v.relayer?.nextNonce !== undefined) {
        assert.equal(v.relayer.nextNonce, await h.nonce(M, 'pending'), 'the relayer\'s next nonce is the chain\'s (no gap, none ahead)');
      }
      return r;
    },
    /**
     * Waits until `M`'s deposit scan has passed the chain's newest block now (less the
     * confirmations it waits for). Reconcile reads the chain at its newest block, and the
     * ledger has followed it only up to its last scan: an outside transfer in the last blocks
     * (liquidity an outsider added to a pool) would read as a difference until then (the
     * report's `scannedBlock` says so). Returns that newest block.
     */
    async scannedTo(M) {
      const head = BigInt(await node('eth_blockNumber'));
      await eventually(`merchant ${M.id}'s scan at the chain's block ${head}`, async () => {
        const scanned = (await h.view(M)).relayer?.scannedBlock;
        if (scanned !== undefined) assert.ok(BigInt(scanned) + confirmations >= head, `its scan is at block ${scanned}`);
      }, { every: 100 });
      return head;
    },
    /** No record of `userId` failed or was undone. */
    async noReversal(M, userId) {
      const recs = await h.history(M, userId);
      const bad = recs.filter((x) => x.type === 'reversal' || x.chainStatus === 'failed');
      if (bad.length > 0) {
        const why = (await h.view(M)).failed.filter((f) => bad.some((b) => b.transactionHash === f.transactionHash)).map((f) => f.error);
        assert.fail(`${userId}'s history shows a refusal (${why.join('; ') || 'no reason given'}): ${JSON.stringify(bad)}`);
      }
      return recs;
    },
    // ---------------------------------------------------------------- presales
    async createPresale(M, overrides = {}) {
      const now = await serviceNow(w);
      const r = await c.call('POST', '/merchant/presale', { key: M.secretKey, body: {
        name: 'Hostile launch', description: 'A presale on a hostile chain', startTimestamp: now - 10, endTimestamp: now + 3600,
        targetUsdcAmount: 10, lockDuration: 7, tokenInfo: { name: 'Hostile', symbol: 'HOST', imageUrl: 'https://example.com/h.png' },
        ...overrides,
      } });
      assert.equal(r.status, 201, r.text);
      return r.json;
    },
    presale: async (M, id) => c.ok(await c.call('GET', `/merchant/presale/${id}`, { key: M.secretKey })),
    buy: async (M, userId, presaleId, usdcAmount) => c.ok(await c.call('POST', `/holder/${userId}/buy-presale`, {
      key: M.secretKey, body: { presaleId, usdcAmount },
    })),
    /** Waits until the presale's launch is over, completed or ended (refunded); the presale. */
    presaleOutcome: (M, id, timeoutMs = 60_000) => eventually(`presale ${id} completed or ended`, async () => {
      const p = await h.presale(M, id);
      assert.ok(p.completionState.step === 'completed' || p.status === 'ended', JSON.stringify(p.completionState));
      return p;
    }, { timeoutMs }),
    presaleEvents: async (M, id) => (await eventLog(w, M, { types: 'presale.*' })).filter((e) => e.resource === `presale:${id}` || e.data?.object?.id === id),
    // ---------------------------------------------------------------- the lock contract
    /** Every `name` event of the lock contract about `token`, decoded with the locker's ABI. */
    async lockerEvents(name, token) {
      const logs = await node('eth_getLogs', [{ address: base.locker, fromBlock: '0x0', toBlock: 'latest' }]);
      return logs.flatMap((l) => {
        try {
          const e = decodeEventLog({ abi: LOCKER_ABI(), data: l.data, topics: l.topics });
          return e.eventName === name && getAddress(e.args.token) === getAddress(token) ? [{ ...e.args, tx: l.transactionHash }] : [];
        } catch {
          return [];
        }
      });
    },
    lockerBalance: (token) => balanceOf(anvil.rpcUrl, token, base.locker),
    /**
     * The buyers' locks of `token` on chain: one Locked event each (beneficiary, amount), and the
     * locker holding their sum, which is `bought`.
     */
    async assertLocked(token, buyers, bought) {
      const locked = await h.lockerEvents('Locked', token);
      for (const [userId, address] of Object.entries(buyers)) {
        assert.ok(locked.some((e) => getAddress(e.beneficiary) === getAddress(address)),
          `no Locked event of ${token} for ${userId} (${address}): ${JSON.stringify(locked, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
      }
      const mine = locked.filter((e) => Object.values(buyers).some((a) => getAddress(a) === getAddress(e.beneficiary)));
      assert.equal(mine.reduce((s, e) => s + e.amount, 0n), bought, 'the locks hold exactly what the buyers bought');
      assert.equal(await h.lockerBalance(token), bought, 'the lock contract holds every share');
      return mine;
    },
    // ---------------------------------------------------------------- an outsider on Uniswap
    async pool(token) {
      const address = await read(anvil.rpcUrl, { address: base.uniswapFactory, abi: UNI_FACTORY_ABI, functionName: 'getPool', args: [token, base.usdc, FEE] });
      if (/^0x0+$/.test(address)) return null;
      const slot0 = await read(anvil.rpcUrl, { address, abi: POOL_ABI, functionName: 'slot0' });
      const liquidity = await read(anvil.rpcUrl, { address, abi: POOL_ABI, functionName: 'liquidity' });
      return { address, sqrtPriceX96: slot0[0], tick: Number(slot0[1]), liquidity };
    },
    /** The outsider creates token/USDC's 0.3 % pool and initializes it at `sqrtPriceX96`. */
    async createPoolFirst(token, sqrtPriceX96) {
      await send(anvil.rpcUrl, { address: base.uniswapFactory, abi: UNI_FACTORY_ABI, functionName: 'createPool', args: [token, base.usdc, FEE], account: OUTSIDER, gas: 6_000_000n });
      const { address } = await h.pool(token);
      await send(anvil.rpcUrl, { address, abi: POOL_ABI, functionName: 'initialize', args: [sqrtPriceX96], account: OUTSIDER, gas: 200_000n });
      return address;
    },
    /**
     * The outsider mints positions in token/USDC's pool through the NonfungiblePositionManager,
     * all in one multicall: `ranges` [[lower, upper, amountOfToken, amountOfUsdc]], each wholly
     * on one side of the price (so one of the amounts is 0). Approves what it needs first.
     */
    async mintOutside(token, ranges) {
      const tokenIs0 = BigInt(token) < BigInt(base.usdc);
      const needTokens = ranges.reduce((s, r) => s + r[2], 0n);
      const needUsdc = ranges.reduce((s, r) => s + r[3], 0n);
      if (needUsdc > 0n) await mintUsdc(anvil.rpcUrl, base.usdc, OUTSIDER.address, needUsdc, OUTSIDER);
      for (const [t, n] of [[token, needTokens], [base.usdc, needUsdc]]) {
        if (n > 0n) await send(anvil.rpcUrl, { address: t, abi: ERC20_ABI, functionName: 'approve', args: [base.positionManager, n], account: OUTSIDER, gas: 100_000n });
      }
      const deadline = (await latestTimestamp(anvil.rpcUrl)) + 3600n;
      const calls = ranges.map(([tickLower, tickUpper, tokens, usdcs]) => encodeFunctionData({ abi: NPM_ABI, functionName: 'mint', args: [{
        token0: tokenIs0 ? token : base.usdc, token1: tokenIs0 ? base.usdc : token, fee: FEE, tickLower, tickUpper,
        amount0Desired: tokenIs0 ? tokens : usdcs, amount1Desired: tokenIs0 ? usdcs : tokens, amount0Min: 0n, amount1Min: 0n,
        recipient: OUTSIDER.address, deadline,
      }] }));
      return send(anvil.rpcUrl, { address: base.positionManager, abi: NPM_ABI, functionName: 'multicall', args: [calls], account: OUTSIDER, gas: 30_000_000n });
    },
    /**
     * The outsider trades token/USDC's pool through Uniswap's SwapRouter, exact in: `usdc` of
     * (test) USDC for tokens (`buy`), or `tokens` of the tokens it holds for USDC. No bound on
     * what comes out. Returns the receipt.
     */
    async outsiderSwap(token, { buy, usdc = 0n, tokens = 0n }) {
      const [tokenIn, tokenOut, amountIn] = buy ? [base.usdc, token, usdc] : [token, base.usdc, tokens];
      if (buy) await mintUsdc(anvil.rpcUrl, base.usdc, OUTSIDER.address, usdc, OUTSIDER);
      await send(anvil.rpcUrl, { address: tokenIn, abi: ERC20_ABI, functionName: 'approve', args: [base.swapRouter, amountIn], account: OUTSIDER, gas: 100_000n });
      const deadline = (await latestTimestamp(anvil.rpcUrl)) + 3600n;
      return send(anvil.rpcUrl, {
        address: base.swapRouter, abi: ROUTER_ABI, functionName: 'exactInputSingle', account: OUTSIDER, gas: 2_000_000n,
        args: [{ tokenIn, tokenOut, fee: FEE, recipient: OUTSIDER.address, deadline, amountIn, amountOutMinimum: 0n, sqrtPriceLimitX96: 0n }],
      });
    },
    /** The outsider's own token (TokenpadToken through the factory), its whole supply its own. */
    async outsiderToken(symbol) {
      const salt = keccak256(toHex(`${symbol}-${Date.now()}`));
      const { token } = await deployToken(anvil.rpcUrl, base.factory, {
        salt, name: `${symbol} squat`, symbol, supply: 1_000_000n * E18, treasury: OUTSIDER.address, account: OUTSIDER,
      });
      return token;
    },
    /** `OUTSIDER`'s ReceiveWithAuthorization of `value` of its token `token` to the locker. */
    async outsiderPull(token, value) {
      const d = await read(anvil.rpcUrl, { address: token, abi: artifact('TokenpadToken').abi, functionName: 'eip712Domain' });
      return signPull({
        privateKey: OUTSIDER_KEY, token, name: d[1], version: d[2], chainId: 31337, market: base.locker, to: base.locker,
        value, nonce: keccak256(toHex(`pull-${Date.now()}-${Math.random()}`)), validBefore: 2n ** 64n,
      });
    },
    // ---------------------------------------------------------------- catching the relayer's sends
    /**
     * From now on, the relayer's raw transactions that `match` (a function of { tx, call }: the
     * parsed transaction and its calldata decoded with `abi`) are kept from the node: the
     * settler is answered with the hash, as a node that accepted it would answer. Returns
     * { held: [raw...], release() }: release() stops holding and sends what was held to the node.
     */
    holdSends(abi, match) {
      const held = [];
      proxy.intercept = (c) => {
        if (c.method !== 'eth_sendRawTransaction') return undefined;
        const raw = c.params[0];
        const tx = parseTransaction(raw);
        let call = null;
        try {
          call = decodeFunctionData({ abi, data: tx.data });
        } catch {
          return undefined;
        }
        if (!match({ tx, call })) return undefined;
        if (!held.includes(raw)) held.push(raw);
        return { result: keccak256(raw) };
      };
      return {
        held,
        decoded: () => held.map((raw) => decodeFunctionData({ abi, data: parseTransaction(raw).data })),
        async release() {
          proxy.intercept = null;
          const out = [];
          for (const raw of held) {
            try {
              out.push(await node('eth_sendRawTransaction', [raw]));
            } catch (e) {
              out.push(e.message); // already known, or the settler sent it meanwhile
            }
          }
          return out;
        },
      };
    },
  };
  return h;
}

/** (In the hostile world `h`.) A token of `M` with a pool opened from 10,000 of its tokens at $0.01, and 2 tokens held outside by OUTSIDER. */
export async function marketToken(h, M, symbol) {
  const { c } = h;
  const T = await c.newToken(M, { name: `${symbol} token`, symbol, totalSupply: 1_000_000, canLP: true, canDistribute: true });
  c.ok(await c.call('POST', `/token/${T.address}/liquidity`, { key: M.secretKey, body: { initialStartingPrice: '0.01', amount: '10000' } }), 201);
  await eventually(`${symbol}'s pool open`, async () => {
    const t = c.ok(await c.call('GET', `/token/${T.address}`, { key: M.secretKey }));
    assert.equal(t.pool?.status, 'open', JSON.stringify(t.pool));
  });
  // The outsider's tokens come the way anyone's do: a holder withdraws them to its wallet.
  await h.holder(M, 'giver');
  c.ok(await c.call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, body: { sendToId: 'giver', amount: 2 } }));
  c.ok(await c.call('POST', '/holder/giver/withdraw', { key: M.secretKey, body: { tokenAddress: T.address, amount: 2, toAddress: OUTSIDER.address } }));
  await c.settled(M);
  return T;
}

/**
 * The outsider's `n` narrow positions of 0.001 token each beside the pool's tick, on the side a
 * buy moves the price to: [t - 60(k+1), t - 60k] for k = 1..n when the token is token1, the
 * mirror above when it is token0. A buy through them crosses n + 1 initialized ticks.
 */
export async function narrowPositions(h, T, n = 20) {
  const pool = await h.pool(T.address);
  const tokenIs0 = BigInt(T.address) < BigInt(h.base.usdc);
  const t = Math.floor(pool.tick / 60) * 60;
  const ranges = [];
  for (let k = 1; k <= n; k++) {
    ranges.push(tokenIs0 ? [t + 60 * k, t + 60 * (k + 1), E18 / 1000n, 0n] : [t - 60 * (k + 1), t - 60 * k, E18 / 1000n, 0n]);
  }
  await h.mintOutside(T.address, ranges);
  return { pool, tokenIs0, edge: tokenIs0 ? t + 60 * (n + 1) : t - 60 * (n + 1) };
}

/**
 * (In the hostile world `h`.) The holder `userId` of `M`, given `usdc` test USDC by a mint that
 * succeeds and moves nothing: the proxy keeps the mint from the node until USDC's code is gone
 * (as when a reorganization took back a deployment), then puts the code back. The settler
 * sends it again once its receipt is final (`CHAIN_FINALITY` blocks on); meanwhile what
 * spends that USDC waits. Returns the holder's address and the first block after the setup.
 */
export async function fundedByNothing(h, M, userId, usdc) {
  const token = h.base.usdc;
  const code = await h.node('eth_getCode', [token, 'latest']);
  const sends = h.holdSends(artifact('TestUSDC').abi, ({ tx, call }) => getAddress(tx.to) === getAddress(token) && call.functionName === 'mint');
  const address = await h.holder(M, userId, usdc);
  await eventually('the mint sent', () => assert.equal(sends.held.length, 1));
  const from = (await h.head()) + 1;
  await h.node('anvil_setCode', [token, '0x']);
  try {
    const [hash] = await sends.release();
    const r = await eventually('the mint mined', () => h.canonicalReceipt(hash, 'the mint'));
    assert.deepEqual([r.status, r.logs.length], ['0x1', 0], 'the setup: the mint succeeds and moves nothing');
  } finally {
    await h.node('anvil_setCode', [token, code]);
  }
  return { address, from };
}

/** The sqrtPriceX96 of a launch at `raise` USDC units for `bought` token units (full range, as the launch opens it). */
export function presaleSqrt(token, usdcAddress, raise, bought) {
  const tokenIs0 = BigInt(token) < BigInt(usdcAddress);
  const [amount0, amount1] = tokenIs0 ? [bought, raise] : [raise, bought];
  return v3.isqrt((amount1 << 192n) / amount0);
}

/** |a - b| / b, in parts per million. */
export const ppm = (a, b) => Number(((a > b ? a - b : b - a) * 1_000_000n) / b);

export { units, v3, sleep };
