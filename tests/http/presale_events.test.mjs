// A presale's events stay bounded however many buy in (issue 44: a purchase rendered the first
// 100 buyers in its own transaction): a purchase event lists its buyer alone, the other presale
// events their first 100, every one counts them all, and the reads list every one. On the
// embedded chain only: what it checks is the events' shapes, which no chain changes, and its
// hundred purchases would each settle on a real node (presales.test.mjs settles them there).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './harness.mjs';
import { checkedCall, checkedClient, createPresale, eventLog, funded } from './check.mjs';

let w;
const { newMerchant } = checkedClient(() => w);
before(async () => {
  w = await startWorker();
});
after(async () => {
  await w?.stop();
});

const call = (method, path, opts, template) => checkedCall(w, method, path, opts, template);
const buy = (m, userId, presaleId, usdcAmount) =>
  call('POST', `/holder/${userId}/buy-presale`, { key: m.secretKey, body: { presaleId, usdcAmount } }, '/holder/{userId}/buy-presale');
const merchantRead = (m, id) => call('GET', `/merchant/presale/${id}`, { key: m.secretKey }, '/merchant/presale/{presaleId}');

test('a purchase event lists its buyer alone, the other presale events their first 100, all count every one; reads list every one', async () => {
  // A purchase costs the same however many bought before (issue 44: it rendered the first
  // 100 in its own transaction), and every event's size stays bounded however many buy in.
  const m = await newMerchant('Presale events bounded');
  const buyers = 101;
  const p = await createPresale(w, m, { targetUsdcAmount: buyers + 1, autoLaunch: false });
  for (let i = 0; i < buyers; i++) {
    await funded(w, m, `b${i}`, 5);
    assert.equal((await buy(m, `b${i}`, p.id, 1)).status, 200);
  }
  // b0 again, reaching the target: the same transaction changes the status (completed).
  assert.equal((await buy(m, 'b0', p.id, 1)).status, 200);
  const mine = (await eventLog(w, m, { types: 'presale.purchase,presale.status_changed' }))
    .filter((e) => e.resource === `presale:${p.id}`);
  const purchases = mine.filter((e) => e.type === 'presale.purchase').map((e) => e.data);
  assert.equal(purchases.length, buyers + 1);
  const rows = (d) => d.object.participants.map((x) => `${x.id}:${x.usdcAmount}:${x.tokenPercentage}`);
  assert.deepEqual(rows(purchases[0]), ['b0:1:100'], 'the first buyer holds all of it');
  assert.deepEqual(rows(purchases[9]), ['b9:1:10']);
  assert.equal(purchases[9].object.participantsCount, 10);
  const late = purchases[buyers - 1];
  assert.equal(late.purchase.userId, `b${buyers - 1}`);
  assert.deepEqual(rows(late), [`b${buyers - 1}:1:0.990099`], 'the buyer alone (1 of 101, floored to 6 decimals), not the first 100');
  assert.equal(late.object.participantsCount, buyers);
  const last = purchases.at(-1);
  assert.equal(last.purchase.userId, 'b0');
  assert.equal(last.purchase.usdcAmount, 1, 'this purchase');
  assert.deepEqual(rows(last), ['b0:2:1.960784'], 'their total and share after it (2 of 102)');
  assert.equal(last.object.participantsCount, buyers);
  assert.equal(last.object.purchasedUsdcAmount, buyers + 1);
  const changed = mine.filter((e) => e.type === 'presale.status_changed').at(-1).data;
  assert.equal(changed.previousStatus, 'active');
  assert.equal(changed.object.status, 'completed');
  assert.equal(changed.object.participantsCount, buyers);
  assert.deepEqual(changed.object.participants.map((x) => x.id), Array.from({ length: 100 }, (_, i) => `b${i}`), 'the first 100, in order');
  assert.equal(changed.object.participants[0].usdcAmount, 2);
  const read = await merchantRead(m, p.id);
  assert.equal(read.json.participants.length, buyers);
  assert.equal(read.json.participantsCount, buyers);
  const pub = await call('GET', `/token/presales/${p.id}`, { key: m.publicKey }, '/token/presales/{presaleId}');
  assert.equal(pub.json.participants.length, buyers);
  assert.equal(pub.json.participantsCount, buyers);
});
