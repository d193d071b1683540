// A presale of 1,000 buyers launched on a real node (anvil), through the Worker: every buyer's
// allocation goes into tokenpad's lock contract (TokenpadLocker), held there (anyone can read the
// lock on chain) until its unlock time, when the contract releases it to the buyer; the ledger
// reconciles with the chain at zero differences, locks and escrow included, before and after.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodeEventLog, encodeAbiParameters, toEventSelector } from 'viem';
import { artifact, read, rpc, rpcBatch } from './anvil.mjs';
import { startWorker } from '../http/harness.mjs';
import { checkedClient, createPresale, faucet, serviceNow, until } from '../http/check.mjs';

const BUYERS = 1_000;

let w;
const c = checkedClient(() => w);
const { call, ok, newMerchant, settled, reconciled } = c;
let M;
let presale;
let token;
const buyers = []; // { id, address }

before(async () => {
  w = await startWorker({
    chain: 'anvil',
    env: { CHAIN_POLL_MS: '100', CHAIN_SCAN_MS: '500', CHAIN_BATCH_WINDOW_MS: '100' },
    timeoutMs: 120_000,
  });
  M = await newMerchant('Thousand');
});
after(async () => {
  await w?.stop();
});

/** `fn` over `items`, `width` at a time. */
async function pool(items, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  }));
}

const lockerAbi = () => artifact('TokenpadLocker').abi;
/** Every event `name` of the lock contract about `token`, decoded. */
async function lockerEvents(name) {
  const topic0 = toEventSelector(lockerAbi().find((x) => x.type === 'event' && x.name === name));
  const topic2 = encodeAbiParameters([{ type: 'address' }], [token]);
  const logs = await rpc(w.chain.rpcUrl, 'eth_getLogs', [{ address: w.chain.locker, fromBlock: '0x0', toBlock: 'latest', topics: [topic0, null, topic2] }]);
  return logs.map((l) => decodeEventLog({ abi: lockerAbi(), data: l.data, topics: l.topics }).args);
}
/** balanceOf(owner) of `tok` for every owner, in JSON-RPC batches. */
async function balances(tok, owners) {
  const out = [];
  for (let i = 0; i < owners.length; i += 200) {
    const calls = owners.slice(i, i + 200).map((o) => ['eth_call', [{ to: tok, data: '0x70a08231' + encodeAbiParameters([{ type: 'address' }], [o]).slice(2) }, 'latest']]);
    out.push(...(await rpcBatch(w.chain.rpcUrl, calls)).map(BigInt));
  }
  return out;
}

test('1,000 buyers buy in; the launch puts every share into the lock contract', { timeout: 900_000 }, async () => {
  const now = await serviceNow(w);
  presale = await createPresale(w, M, { targetUsdcAmount: BUYERS, endTimestamp: now + 7 * 86400, lockDuration: 7 });
  const ids = Array.from({ length: BUYERS }, (_, i) => `b${i}`);
  await pool(ids, 16, async (id) => {
    const h = ok(await call('PUT', `/holder/${id}`, { key: M.secretKey }), 201);
    buyers.push({ id, address: h.address });
    await faucet(w, M, h.address, 1);
    ok(await call('POST', `/holder/${id}/buy-presale`, { key: M.secretKey, body: { presaleId: presale.id, usdcAmount: 1 } }));
  });
  // The target is reached: the launch runs its steps, each once its transactions are mined.
  const launched = await until('the launch completed', async () => {
    const p = ok(await call('GET', `/merchant/presale/${presale.id}`, { key: M.secretKey }));
    return p.completionState?.step === 'completed' ? p : null;
  }, { timeoutMs: 600_000, every: 1000 });
  token = launched.tokenDeploymentInfo.tokenAddress;
  await settled(M, 600_000);
  // Once its transactions are mined, each completion step shows the real one: the pool's
  // opening with the raise (swapTx), the token's deployment, the locks (withdrawTx: the first
  // batch into the lock contract; distributionTx: the last).
  const settledPresale = ok(await call('GET', `/merchant/presale/${presale.id}`, { key: M.secretKey }));
  const tx = settledPresale.completionState.transactions;
  for (const k of ['swapTx', 'tokenCreationTx', 'withdrawTx', 'distributionTx']) {
    assert.match(tx[k] ?? '', /^0x[0-9a-f]{64}$/, k);
    const receipt = await rpc(w.chain.rpcUrl, 'eth_getTransactionReceipt', [tx[k]]);
    assert.equal(receipt?.status, '0x1', `${k} mined`);
  }
  assert.equal(settledPresale.presaleInfo.distributeTxHash, tx.distributionTx);

  // Every buyer's share is a lock in the contract, for that buyer, unlocking in 7 days.
  const bought = BigInt(launched.tokenDeploymentInfo.amountTokensBought);
  const locked = await lockerEvents('Locked');
  assert.equal(locked.length, BUYERS);
  const byBuyer = new Map(locked.map((e) => [e.beneficiary.toLowerCase(), e]));
  assert.equal(byBuyer.size, BUYERS, 'one lock per buyer');
  let sum = 0n;
  for (const b of buyers) {
    const e = byBuyer.get(b.address.toLowerCase());
    assert.ok(e, `${b.id} has a lock`);
    sum += e.amount;
  }
  assert.equal(sum, bought, 'the locks hold exactly what the buyers bought');
  const [vault] = await balances(token, [w.chain.locker]);
  assert.equal(vault, bought, 'the lock contract holds every share');
  assert.ok((await balances(token, buyers.map((b) => b.address))).every((x) => x === 0n), 'no buyer holds any yet');
  // A lock as anyone reads it on chain (locks(key); the Locked event names its key).
  const one = byBuyer.get(buyers[0].address.toLowerCase());
  const [tok, amount, beneficiary, unlockAt, released] = await read(w.chain.rpcUrl, { address: w.chain.locker, abi: lockerAbi(), functionName: 'locks', args: [one.key] });
  assert.deepEqual([tok.toLowerCase(), amount, beneficiary.toLowerCase(), unlockAt, released],
    [token.toLowerCase(), one.amount, buyers[0].address.toLowerCase(), one.unlockAt, false]);
  assert.ok(Number(unlockAt) >= now + 7 * 86400 - 120, `unlocks in 7 days (${unlockAt})`);
  const r = await reconciled(M);
  assert.deepEqual(r.differences, []);
});

test('at the unlock time the contract releases every share to its buyer', { timeout: 900_000 }, async () => {
  ok(await call('POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 7 * 86400 + 60 } }));
  await until('every share released', async () => (await lockerEvents('Released')).length === BUYERS, { timeoutMs: 600_000, every: 1000 });
  await settled(M, 600_000);
  const [vault] = await balances(token, [w.chain.locker]);
  assert.equal(vault, 0n, 'the lock contract holds none of it');
  const locks = new Map((await lockerEvents('Locked')).map((e) => [e.beneficiary.toLowerCase(), e.amount]));
  const held = await balances(token, buyers.map((b) => b.address));
  buyers.forEach((b, i) => assert.equal(held[i], locks.get(b.address.toLowerCase()), `${b.id}'s wallet`));
  const r = await reconciled(M);
  assert.deepEqual(r.differences, []);
});
