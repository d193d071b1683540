// Presales against the real worker in workerd: create, read in both forms, buy, launch
// through the five completion steps into locks, unlock, refund, resolve, retries after chain
// faults, and a crash (SIGKILL of workerd) in the middle of a launch. With
// TOKENPAD_TEST_CHAIN=anvil every movement also settles on a real node, and the suite ends
// with ledger and chain agreeing.
import test, { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, api } from './harness.mjs';
import {
  advanceTime, checkedCall, checkedClient, createPresale, funded, launched, minedReceipt, minedRecord,
  PRESALE_IMAGE as IMAGE, serviceNow, until,
} from './check.mjs';
import { balanceOf, codeAt, lockOf } from '../chain/anvil.mjs';
import { units } from './amounts.mjs';

let w;
const { newMerchant, evm, assertMovement, settled, reconcileAll } = checkedClient(() => w);
before(async () => {
  w = await startWorker();
});
after(async () => {
  // Every merchant's ledger agrees with the chain (on an EVM chain: balanceOf, once settled).
  if (w) await reconcileAll();
  await w?.stop();
});

const call = (method, path, opts, template) => checkedCall(w, method, path, opts, template);

const buy = (m, userId, presaleId, usdcAmount, headers = {}) =>
  call('POST', `/holder/${userId}/buy-presale`, { key: m.secretKey, body: { presaleId, usdcAmount }, headers }, '/holder/{userId}/buy-presale');

const merchantRead = (m, id) => call('GET', `/merchant/presale/${id}`, { key: m.secretKey }, '/merchant/presale/{presaleId}');

const HASH = /^0x[0-9a-f]{64}$/;
/** 1 USDC in base units (6 decimals), on chain. */
const USDC_UNIT = 1_000_000n;

/** A locked balance as the holder's token read writes it (decimal), in base units (18 decimals). */
const lockedUnits = (text) => units(text.match(/"lockedBalance":([0-9.]+)/)[1]);

describe('create, list and read', () => {
  test('creation answers the interface shape, and bad input is a 400 naming the field', async () => {
    const m = await newMerchant('Presale shapes');
    const p = await createPresale(w, m);
    assert.match(p.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(p.purchasedUsdcAmount, 0);
    assert.equal(p.status, 'active');
    assert.deepEqual(p.participants, []);
    assert.deepEqual(p.tokenInfo, { name: 'Moon', symbol: 'MOON', imageUrl: IMAGE });

    const bad = [
      [{ targetUsdcAmount: 1 }, 400, 'invalid_amount', 'targetUsdcAmount'],
      [{ targetUsdcAmount: 200001 }, 400, 'invalid_amount', 'targetUsdcAmount'],
      [{ lockDuration: 400 }, 400, 'invalid_request', 'lockDuration'],
      [{ endTimestamp: 1 }, 400, 'invalid_request', 'endTimestamp'],
      [{ name: '' }, 400, 'invalid_request', 'name'],
      [{ tokenInfo: { name: 'M', symbol: 'M', imageUrl: 'not a url' } }, 400, 'invalid_image_url', 'tokenInfo.imageUrl'],
      [{ tokenInfo: { name: 'M', symbol: 'M', imageUrl: IMAGE, deploymentConfig: { lockupPercentage: 30 } } }, 400, 'invalid_request', 'tokenInfo.deploymentConfig.lockupPercentage'],
      [{ autoLaunch: 'true' }, 400, 'invalid_request', 'autoLaunch'],
    ];
    const now = await serviceNow(w);
    for (const [override, status, code, field] of bad) {
      const body = {
        name: 'x', description: 'y', startTimestamp: now, endTimestamp: now + 100, targetUsdcAmount: 10,
        tokenInfo: { name: 'M', symbol: 'M', imageUrl: IMAGE }, ...override,
      };
      const r = await call('POST', '/merchant/presale', { key: m.secretKey, body }, '/merchant/presale');
      assert.equal(r.status, status, JSON.stringify(override));
      assert.equal(r.json.code, code, JSON.stringify(override));
      assert.equal(r.json.details.field, field, JSON.stringify(override));
    }
  });

  test('the merchant list and read show the merchant form; the public read hides it', async () => {
    const m = await newMerchant('Presale forms');
    const first = await createPresale(w, m, { name: 'First' });
    const second = await createPresale(w, m, { name: 'Second', autoLaunch: false, lockDuration: 3 });
    const list = await call('GET', '/merchant/presales', { key: m.secretKey }, '/merchant/presales');
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.map((p) => p.id), [second.id, first.id], 'newest first');
    const mine = list.json[0];
    assert.match(mine.signerAddress, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(mine.lockDuration, 3);
    assert.equal(mine.completionState.step, 'pending');
    assert.deepEqual(mine.completionState.transactions, {});
    assert.equal(mine.completionState.retryCount, 0);
    assert.equal(mine.presaleInfo.distributed, false);
    assert.equal(mine.tokenDeploymentInfo, undefined, 'only after deployment');

    const one = await merchantRead(m, first.id);
    assert.equal(one.json.name, 'First');

    const pub = await call('GET', `/token/presales/${first.id}?publicKey=${m.publicKey}`, {}, '/token/presales/{presaleId}');
    assert.equal(pub.status, 200);
    assert.equal(pub.headers.get('access-control-allow-origin'), '*');
    for (const hidden of ['signerAddress', 'lockDuration', 'completionState', 'presaleInfo', 'tokenDeploymentInfo']) {
      assert.equal(pub.json[hidden], undefined, `public read shows ${hidden}`);
    }
    const noKey = await call('GET', `/token/presales/${first.id}`, {}, '/token/presales/{presaleId}');
    assert.equal(noKey.status, 401);
    assert.equal(noKey.json.message, 'Public key not found');

    const other = await newMerchant('Someone else');
    for (const r of [
      await call('GET', `/merchant/presale/${first.id}`, { key: other.secretKey }),
      await call('GET', `/token/presales/${first.id}?publicKey=${other.publicKey}`),
      await call('GET', '/merchant/presale/no-such-id', { key: m.secretKey }),
    ]) {
      assert.equal(r.status, 404);
      assert.equal(r.json.code, 'presale_not_found');
    }
  });
});

describe('buying', () => {
  test('buy rules: not active 409, over target 422 with the remainder, over balance 422', async () => {
    const m = await newMerchant('Buyers');
    const ann = await funded(w, m, 'ann', 200);
    const now = await serviceNow(w);
    const later = await createPresale(w, m, { startTimestamp: now + 3600, endTimestamp: now + 7200 });
    const early = await buy(m, 'ann', later.id, 5);
    assert.equal(early.status, 409);
    assert.equal(early.json.code, 'presale_not_active');

    const p = await createPresale(w, m, { targetUsdcAmount: 50 });
    const ok = await buy(m, 'ann', p.id, 30);
    assert.equal(ok.status, 200, ok.text);
    if (evm()) {
      // The answer comes before the node has the transfer: no block (nor hash) yet.
      assert.deepEqual(Object.keys(ok.json).sort(), ['chainStatus', 'presaleId', 'success', 'transactionHash', 'usdcAmount']);
    } else {
      assert.deepEqual(Object.keys(ok.json).sort(), ['blockNumber', 'chainStatus', 'presaleId', 'success', 'transactionHash', 'usdcAmount']);
      assert.equal(ok.json.chainStatus, 'confirmed');
    }
    // Embedded: confirmed in its block with its hash. EVM: pending, with no hash invented.
    assertMovement(ok.json);
    assert.equal(ok.json.usdcAmount, 30);

    const over = await buy(m, 'ann', p.id, 20.000001);
    assert.equal(over.status, 422);
    assert.equal(over.json.code, 'target_exceeded');
    assert.equal(over.json.details.remaining, 20);

    await call('PUT', '/holder/bob', { key: m.secretKey });
    const poor = await buy(m, 'bob', p.id, 1);
    assert.equal(poor.status, 422);
    assert.equal(poor.json.code, 'insufficient_balance');

    const missing = await buy(m, 'ann', 'nope', 1);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.code, 'presale_not_found');

    // The holder sees the position; the USDC left the balance.
    const h = await call('GET', `/holder/ann?publicKey=${m.publicKey}`, {}, '/holder/{userId}');
    assert.equal(h.json.presales.length, 1);
    const item = h.json.presales[0];
    assert.equal(item.type, 'presale');
    assert.equal(item.status, 'pending');
    assert.equal(item.value, 30);
    assert.equal(item.metadata.presaleId, p.id);
    assert.equal(item.metadata.progress, 60);
    const usdc = h.json.tokens.find((t) => t.symbol === 'USDC');
    assert.equal(usdc.balance, 170);

    const pub = await call('GET', `/token/presales/${p.id}?publicKey=${m.publicKey}`);
    assert.equal(pub.json.purchasedUsdcAmount, 30);
    assert.equal(pub.json.participants[0].id, 'ann');
    assert.equal(pub.json.participants[0].tokenPercentage, 100);

    if (evm()) {
      // On chain: the buy is mined (a real receipt, in the block its record names), and only
      // the one accepted buy left ann's wallet.
      await minedRecord(w, m, 'ann', 'presale_buy');
      await settled(m);
      assert.equal(await balanceOf(w.chain.rpcUrl, w.chain.usdc, ann), 170n * USDC_UNIT);
    }
  });

  test('a buy retried with its idempotency key is debited once', async () => {
    const m = await newMerchant('Idempotent buyer');
    const cat = await funded(w, m, 'cat', 100);
    const p = await createPresale(w, m, { targetUsdcAmount: 100 });
    const headers = { 'Idempotency-Key': 'buy-1' };
    const one = await buy(m, 'cat', p.id, 10, headers);
    const two = await buy(m, 'cat', p.id, 10, headers);
    assert.equal(two.headers.get('idempotent-replayed'), 'true');
    assert.equal(two.text, one.text);
    const pub = await call('GET', `/token/presales/${p.id}?publicKey=${m.publicKey}`);
    assert.equal(pub.json.purchasedUsdcAmount, 10);
    if (evm()) {
      await settled(m);
      assert.equal(await balanceOf(w.chain.rpcUrl, w.chain.usdc, cat), 90n * USDC_UNIT, 'debited once on chain too');
    }
  });
});

describe('launch, locks, unlock, refund, resolve', () => {
  test('reaching the target launches: five steps, locks with an unlock date, then active tokens', async () => {
    const m = await newMerchant('Launcher');
    const addresses = {};
    for (const u of ['a', 'b', 'c']) addresses[u] = await funded(w, m, u, 100);
    const p = await createPresale(w, m, { targetUsdcAmount: 90, lockDuration: 7 });
    assert.equal((await buy(m, 'a', p.id, 30)).status, 200);
    assert.equal((await buy(m, 'b', p.id, 30)).status, 200);
    assert.equal((await buy(m, 'c', p.id, 30)).status, 200);
    await advanceTime(w, 30); // five steps, one per 2-second block
    const s = await launched(w, m, p.id);
    assert.equal(s.status, 'completed');
    assert.equal(s.completionState.step, 'completed');
    assert.equal(s.presaleInfo.distributed, true);
    const info = s.tokenDeploymentInfo;
    assert.equal(info.amountTokensBought, (250_000_000n * 10n ** 18n).toString());
    if (evm()) {
      // On a real chain each step's hash appears once the node has mined it, never before:
      // the token's deployment (through the factory), the pool's opening (swapTx) and the
      // locks' batch (withdrawTx, the first, and distributionTx, the last).
      const onChainSteps = ['tokenCreationTx', 'swapTx', 'withdrawTx', 'distributionTx'];
      const names = Object.keys(s.completionState.transactions);
      assert.ok(names.every((n) => onChainSteps.includes(n)), JSON.stringify(s.completionState));
      let mined;
      await until('every launch step mined on chain', async () => {
        mined = (await merchantRead(m, p.id)).json;
        return onChainSteps.every((n) => mined.completionState.transactions[n]);
      }, { timeoutMs: 60_000 });
      const txs = mined.completionState.transactions;
      assert.deepEqual(Object.keys(txs).sort(), [...onChainSteps].sort());
      for (const n of onChainSteps) {
        assert.match(txs[n], HASH, n);
        await minedReceipt(w, txs[n]); // mined and successful
      }
      assert.equal(mined.tokenDeploymentInfo.hash, txs.tokenCreationTx);
      assert.equal(mined.presaleInfo.distributeTxHash, txs.distributionTx);
      const receipt = await minedReceipt(w, txs.tokenCreationTx);
      assert.equal(receipt.to.toLowerCase(), w.chain.factory.toLowerCase(), 'deployed through the factory');
      assert.notEqual(await codeAt(w.chain.rpcUrl, info.tokenAddress), '0x', 'the token has code at its reserved address');
    } else {
      for (const tx of ['swapApprovalTx', 'swapTx', 'tokenCreationTx', 'withdrawTx', 'distributionApprovalTx', 'distributionTx']) {
        assert.match(s.completionState.transactions[tx], HASH, tx);
      }
      assert.equal(s.presaleInfo.distributeTxHash, s.completionState.transactions.distributionTx);
      assert.equal(info.hash, s.completionState.transactions.tokenCreationTx);
    }

    // Each buyer holds a lock of a third; the shares sum to the amount bought exactly.
    let sum = 0n;
    let unlockDate;
    const onChainLocks = {};
    for (const u of ['a', 'b', 'c']) {
      const h = await call('GET', `/holder/${u}?publicKey=${m.publicKey}`, {}, '/holder/{userId}');
      assert.equal(h.json.presales.length, 0, 'the position became a lock');
      assert.equal(h.json.locks.length, 1);
      const lock = h.json.locks[0];
      assert.equal(lock.status, 'locked');
      assert.equal(lock.type, 'lock');
      assert.equal(lock.address, info.tokenAddress);
      unlockDate = lock.unlockDate;
      const raw = await call('GET', `/holder/${u}/token/${info.tokenAddress}`, { key: m.secretKey });
      const locked = lockedUnits(raw.text);
      sum += locked;
      if (evm()) {
        // The share went into tokenpad's lock contract on chain: the buyer's wallet holds none
        // of it yet, and the contract's lock (anyone can read it) names the buyer, the amount
        // and the unlock time.
        await minedRecord(w, m, u, 'presale_allocation');
        assert.equal(await balanceOf(w.chain.rpcUrl, info.tokenAddress, addresses[u]), 0n, `${u}'s wallet`);
        const lock = await lockOf(w.chain.rpcUrl, w.chain.locker, info.tokenAddress, addresses[u]);
        assert.deepEqual([lock?.amount, lock?.released], [locked, false], `${u}'s lock on chain`);
        onChainLocks[u] = { lock, locked };
      }
    }
    assert.equal(sum.toString(), info.amountTokensBought);
    if (evm()) {
      const total = Object.values(onChainLocks).reduce((s, l) => s + l.locked, 0n);
      assert.equal(await balanceOf(w.chain.rpcUrl, info.tokenAddress, w.chain.locker), total, 'the lock contract holds every share');
      for (const { lock } of Object.values(onChainLocks)) assert.equal(lock.unlockAt * 1000n, BigInt(Date.parse(unlockDate)), 'unlocks when the API says');
    }
    const unlockMs = Date.parse(unlockDate);
    const nowMs = (await serviceNow(w)) * 1000;
    const sevenDays = 7 * 86400 * 1000;
    assert.ok(unlockMs > nowMs + sevenDays - 120_000 && unlockMs <= nowMs + sevenDays, `unlock ${unlockDate}`);

    // Locked tokens cannot move.
    for (const [op, extra] of [['spend', {}], ['transfer', { toAddress: '0x000000000000000000000000000000000000dEaD' }], ['withdraw', { toAddress: '0x000000000000000000000000000000000000dEaD' }]]) {
      const r = await call('POST', `/holder/a/${op}`, { key: m.secretKey, body: { tokenAddress: info.tokenAddress, amount: 1, ...extra } });
      assert.equal(r.status, 422, op);
      assert.equal(r.json.code, 'tokens_locked', op);
    }

    // The token is a Token like any other, priced at raised USDC / tokens bought.
    const token = await call('GET', `/token/${info.tokenAddress}?publicKey=${m.publicKey}`, {}, '/token/{tokenAddress}');
    assert.equal(token.json.price, 90 / 250_000_000);
    assert.equal(token.json.holdersCount, 3);

    // Seven days later the locks open (on an EVM chain the node's clock moves with the
    // service's, and the lock contract releases each share to its buyer).
    await advanceTime(w, 7 * 86400);
    if (evm()) {
      for (const [u, { locked }] of Object.entries(onChainLocks)) {
        const rec = await minedRecord(w, m, u, 'unlock');
        assert.equal(rec.from, w.chain.locker, 'released by the lock contract');
        assert.equal(await balanceOf(w.chain.rpcUrl, info.tokenAddress, addresses[u]), locked, `${u}'s wallet after its unlock`);
        assert.equal((await lockOf(w.chain.rpcUrl, w.chain.locker, info.tokenAddress, addresses[u])).released, true);
      }
      assert.equal(await balanceOf(w.chain.rpcUrl, info.tokenAddress, w.chain.locker), 0n);
    }
    const a = await call('GET', `/holder/a?publicKey=${m.publicKey}`, {}, '/holder/{userId}');
    assert.equal(a.json.locks.length, 0);
    assert.ok(a.json.tokens.some((t) => t.address === info.tokenAddress && t.status === 'active'));
    const spend = await call('POST', '/holder/a/spend', { key: m.secretKey, body: { tokenAddress: info.tokenAddress, amount: 1 } });
    assert.equal(spend.status, 200, spend.text);
    const hist = await call('GET', '/holder/a/transactions', { key: m.secretKey }, '/holder/{userId}/transactions');
    const types = hist.json.data.map((r) => r.type);
    for (const t of ['presale_buy', 'presale_allocation', 'unlock', 'spend']) assert.ok(types.includes(t), t);
  });

  test('below 70 % at the end, every buyer is refunded in full, with no request arriving', async () => {
    const m = await newMerchant('Refunder');
    const addresses = { r1: await funded(w, m, 'r1', 100), r2: await funded(w, m, 'r2', 100) };
    const now = await serviceNow(w);
    const p = await createPresale(w, m, { targetUsdcAmount: 100, endTimestamp: now + 60 });
    await buy(m, 'r1', p.id, 40);
    await buy(m, 'r2', p.id, 29.999999);
    await advanceTime(w, 120);
    const s = (await merchantRead(m, p.id)).json;
    assert.equal(s.status, 'ended');
    for (const u of ['r1', 'r2']) {
      const h = await call('GET', `/holder/${u}?publicKey=${m.publicKey}`);
      assert.equal(h.json.tokens.find((t) => t.symbol === 'USDC').balance, 100);
      assert.equal(h.json.presales.length, 0);
    }
    const hist = await call('GET', '/holder/r1/transactions', { key: m.secretKey });
    assert.ok(hist.json.data.some((r) => r.type === 'presale_refund' && r.amount === 40));
    if (evm()) {
      // The refunds are real transfers back: each buyer's wallet holds its 100 USDC again.
      for (const u of ['r1', 'r2']) {
        await minedRecord(w, m, u, 'presale_refund');
        assert.equal(await balanceOf(w.chain.rpcUrl, w.chain.usdc, addresses[u]), 100n * USDC_UNIT, u);
      }
    }
    const again = await call('POST', '/resolve-presale', { key: m.secretKey, body: { presaleId: p.id } });
    assert.equal(again.status, 200);
    assert.equal(again.json.outcome, 'refunded');
  });

  test('resolve: below 70 % is 422, at 70 % it launches, a second resolve is 409; both paths work', async () => {
    const m = await newMerchant('Resolver');
    await funded(w, m, 'z', 100);
    const p = await createPresale(w, m, { targetUsdcAmount: 100, autoLaunch: false });
    await buy(m, 'z', p.id, 69);
    const low = await call('POST', '/merchant/presale/resolve', { key: m.secretKey, body: { presaleId: p.id } }, '/merchant/presale/resolve');
    assert.equal(low.status, 422);
    assert.equal(low.json.code, 'launch_threshold_not_reached');
    await buy(m, 'z', p.id, 1);
    const ok = await call('POST', '/merchant/presale/resolve', { key: m.secretKey, body: { presaleId: p.id } }, '/merchant/presale/resolve');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.outcome, 'launching');
    const second = await call('POST', '/resolve-presale', { key: m.secretKey, body: { presaleId: p.id } }, '/resolve-presale');
    assert.equal(second.status, 409);
    assert.equal(second.json.code, 'presale_already_resolved');
    await advanceTime(w, 30);
    assert.equal((await launched(w, m, p.id)).completionState.step, 'completed');
    const missing = await call('POST', '/resolve-presale', { key: m.secretKey, body: {} });
    assert.equal(missing.status, 400);
  });

  test('with no request arriving, the alarm runs the launch on time', async () => {
    const m = await newMerchant('Alarm driven');
    await funded(w, m, 'al', 20);
    const p = await createPresale(w, m, { targetUsdcAmount: 20 });
    assert.equal((await buy(m, 'al', p.id, 20)).status, 200);
    // Five steps take about five 2-second blocks. Ask this merchant nothing meanwhile: only
    // the Durable Object alarm can run them.
    await new Promise((r) => setTimeout(r, 15_000));
    const readAt = (await serviceNow(w)) * 1000;
    const s = (await merchantRead(m, p.id)).json;
    assert.equal(s.completionState.step, 'completed');
    const ranAt = Date.parse(s.completionState.updatedAt);
    assert.ok(readAt - ranAt >= 3_000, `the last step ran ${readAt - ranAt} ms before the read: the read, not the alarm, ran it`);
  });

  test('a failing chain step is retried with backoff and counted in retryCount', async () => {
    const m = await newMerchant('Flaky chain');
    await funded(w, m, 'f', 10);
    const faults = await api(w, 'POST', '/admin/chain/faults', { adminKey: w.adminKey, body: { merchantId: m.id, count: 2 } });
    assert.equal(faults.status, 200, faults.text);
    const p = await createPresale(w, m, { targetUsdcAmount: 10 });
    await buy(m, 'f', p.id, 10);
    await advanceTime(w, 120);
    const s = await launched(w, m, p.id);
    assert.equal(s.completionState.step, 'completed');
    assert.equal(s.completionState.retryCount, 2);
    const h = await call('GET', `/holder/f?publicKey=${m.publicKey}`);
    assert.equal(h.json.locks.length, 1, 'distributed once');
  });
});

test('a crash in the middle of a launch resumes at its step and never distributes twice', async () => {
  // Its own worker, on real time: the launch takes a block (2 s) per step. On an EVM chain the
  // kill also lands while the deployment and the allocations are being settled.
  const c = await startWorker();
  const onC = checkedClient(() => c);
  try {
    const m = await onC.newMerchant('Crash test');
    const buyers = ['k1', 'k2', 'k3', 'k4'];
    const addresses = {};
    for (const u of buyers) {
      const h = await api(c, 'PUT', `/holder/${u}`, { key: m.secretKey });
      addresses[u] = h.json.address;
      const f = await api(c, 'POST', '/admin/faucet', { adminKey: c.adminKey, body: { address: h.json.address, usdcAmount: 50, merchantId: m.id } });
      assert.equal(f.status, 200, f.text);
    }
    const now = Math.floor(Date.now() / 1000);
    const created = await api(c, 'POST', '/merchant/presale', {
      key: m.secretKey,
      body: {
        name: 'Crash', description: 'Crash mid-launch', startTimestamp: now - 10, endTimestamp: now + 3600,
        targetUsdcAmount: 100, tokenInfo: { name: 'Crash', symbol: 'CRSH', imageUrl: IMAGE },
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json.id;
    for (const u of buyers) {
      const r = await api(c, 'POST', `/holder/${u}/buy-presale`, { key: m.secretKey, body: { presaleId: id, usdcAmount: 25 } });
      assert.equal(r.status, 200, r.text);
    }
    // Wait until the launch is under way but not finished, then kill workerd outright.
    let step = 'pending';
    const deadline = Date.now() + 30_000;
    while (!['token-created', 'tokens-withdrawn'].includes(step) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      step = (await api(c, 'GET', `/merchant/presale/${id}`, { key: m.secretKey })).json.completionState.step;
    }
    assert.ok(['token-created', 'tokens-withdrawn'].includes(step), `launch reached ${step} before the crash`);
    await c.crashAndRestart();

    // After the restart the launch goes on from where it was and completes.
    let s;
    const finishBy = Date.now() + 60_000;
    do {
      await new Promise((r) => setTimeout(r, 500));
      s = (await api(c, 'GET', `/merchant/presale/${id}`, { key: m.secretKey })).json;
    } while (s.completionState.step !== 'completed' && Date.now() < finishBy);
    assert.equal(s.completionState.step, 'completed');
    const bought = BigInt(s.tokenDeploymentInfo.amountTokensBought);
    const token = s.tokenDeploymentInfo.tokenAddress;
    if (onC.evm()) await onC.settled(m);
    let total = 0n;
    for (const u of buyers) {
      const hist = await api(c, 'GET', `/holder/${u}/transactions`, { key: m.secretKey });
      const allocations = hist.json.data.filter((r) => r.type === 'presale_allocation');
      assert.equal(allocations.length, 1, `${u} got exactly one allocation`);
      const bal = await api(c, 'GET', `/holder/${u}/token/${token}`, { key: m.secretKey });
      const locked = lockedUnits(bal.text);
      total += locked;
      if (onC.evm()) {
        // On chain too: one allocation mined, the lock contract holding exactly its share.
        assert.equal(allocations[0].chainStatus, 'confirmed', JSON.stringify(allocations[0]));
        await minedReceipt(c, allocations[0].transactionHash, allocations[0].blockNumber);
        const lock = await lockOf(c.chain.rpcUrl, c.chain.locker, token, addresses[u]);
        assert.equal(lock?.amount, locked, `${u}'s lock on chain`);
      }
    }
    assert.equal(total, bought, 'the locks sum to the amount bought: nothing distributed twice');
    const t = await api(c, 'GET', `/token/${token}`, { key: m.secretKey });
    assert.equal(t.json.holdersCount, buyers.length, 'only the buyers hold the token');
    // The ledger and the chain agree: nothing lost or doubled across the crash.
    await onC.reconcileAll();
  } finally {
    await c.stop();
  }
});
