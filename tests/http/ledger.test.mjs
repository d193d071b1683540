// The ledger: distribute, spend, transfer, withdraw, the faucet, history, exact amounts and
// conservation (contract §3, §6, §10; wire-decisions.md).
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, startWorker } from './harness.mjs';
import { checkedClient, usdcOf } from './check.mjs';
import { units } from './amounts.mjs';

let w;
const { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset, evm, assertMovement, assertRecordOf, settled, reconcileAll } = checkedClient(() => w);

// USDC is reported under the chain's USDC contract (Base's address on the embedded chain).
let USDC; // the chain's USDC (usdcOf)
const EXT1 = '0x1111111111111111111111111111111111111111';
const EXT2 = '0x2222222222222222222222222222222222222222';
const JSON_CT = { 'content-type': 'application/json' };

let M; // merchant
let B; // another merchant
let T; // token of M, totalSupply 1000 (app 150, merchant 50, liquidity 800)
const H = {}; // userId -> holder (full form at creation)

async function putHolder(userId, m = M) {
  const h = ok(await call('PUT', `/holder/${encodeURIComponent(userId)}`, { key: m.secretKey }), 201);
  if (m === M) H[userId] = h;
  return h;
}
async function distribute(tokenAddress, body, m = M) {
  return call('POST', `/token/${tokenAddress}/distribute`, { key: m.secretKey, body });
}
async function move(kind, userId, body, m = M) {
  return call('POST', `/holder/${encodeURIComponent(userId)}/${kind}`, { key: m.secretKey, body });
}
async function balance(who, tokenAddress = T.address) {
  return ok(await call('GET', `/holder/${encodeURIComponent(who)}/token/${tokenAddress}`, { key: M.publicKey })).balance;
}
async function history(userId, query = '') {
  return ok(await call('GET', `/holder/${encodeURIComponent(userId)}/transactions${query}`, { key: M.secretKey }));
}
async function tokenRead(tokenAddress = T.address) {
  return ok(await call('GET', `/token/${tokenAddress}?holdersLimit=1000`, { key: M.secretKey }));
}
/** totalSupply == remainingAppSupply + merchantSupply + liquiditySupply + Σ balances, in base units. */
async function assertConserved(tokenAddress = T.address) {
  const t = await tokenRead(tokenAddress);
  assert.equal(t.holders.length, t.holdersCount, 'holders list is complete at holdersLimit=1000');
  const held = t.holders.reduce((s, h) => s + units(h.balance), 0n);
  assert.equal(units(t.totalSupply),
    units(t.remainingAppSupply) + units(t.merchantSupply) + units(t.liquiditySupply) + held,
    `conservation broken: ${JSON.stringify(t)}`);
  return t;
}
function assertLedgerResult(r, { from, to, amount, tokenAddress }) {
  const b = ok(r);
  assert.equal(b.success, true);
  assertMovement(b);
  assert.equal(b.from, from);
  assert.equal(b.to, to);
  assert.equal(b.amount, amount);
  assert.equal(b.tokenAddress, tokenAddress);
  return b;
}

before(async () => {
  w = await startWorker();
  USDC = usdcOf(w);
  M = await newMerchant('Ledger');
  B = await newMerchant('Other');
  T = await newToken(M, { name: 'Ledger Token', symbol: 'LED', totalSupply: 1000 });
  for (const u of ['alice', 'bob', 'carol', 'erin']) await putHolder(u);
});
after(async () => {
  // Every merchant's ledger agrees with the chain (on an EVM chain: balanceOf, once settled).
  if (w) await reconcileAll();
  await w?.stop();
});

test('distribute by sendToId and by sendToAddress (checksummed or lowercase)', async () => {
  const hashes = new Set();
  for (const body of [
    { amount: 10, sendToId: 'alice' },
    { amount: '10', sendToAddress: H.bob.address },
    { amount: 10, sendToAddress: H.carol.address.toLowerCase() },
  ]) {
    const d = ok(await distribute(T.address, body));
    assert.equal(d.success, true);
    assertMovement(d);
    hashes.add(d.transactionHash);
  }
  // Each its own transaction (on an EVM chain the hashes come with settlement).
  if (!evm()) assert.equal(hashes.size, 3);
  for (const u of ['alice', 'bob', 'carol']) assert.equal(await balance(u), 10);
  const t = await assertConserved();
  assert.equal(t.remainingAppSupply, 120);
  assert.equal(t.startingAppSupply, 150);
  const [rec] = (await history('alice')).data;
  assert.equal(rec.type, 'distribute');
  assert.equal(rec.context, 'Airdrop');
  assert.equal(rec.amount, 10);
  assert.equal(rec.to, H.alice.address);
  assert.equal(rec.tokenAddress, T.address);
  assert.equal(rec.symbol, 'LED');
  if (evm()) assertRecordOf(rec, {});
  else assert.ok(hashes.has(rec.transactionHash));
});

test('distribute: both or neither of sendToAddress / sendToId is 400 invalid_request', async () => {
  for (const body of [
    { amount: 1, sendToId: 'alice', sendToAddress: H.alice.address },
    { amount: 1 },
    { amount: 1, sendToId: null, sendToAddress: null },
    { amount: 1, sendToId: 5 },
  ]) {
    fails(await distribute(T.address, body), 400, 'invalid_request');
  }
  // An empty or blank userId is not a userId.
  for (const sendToId of ['', '   ']) {
    fails(await distribute(T.address, { amount: 1, sendToId }), 400, 'invalid_user_id');
  }
  fails(await distribute(T.address, { amount: 1, sendToAddress: '0x12' }), 400, 'invalid_address');
  fails(await distribute(T.address, { amount: 1, sendToAddress: 42 }), 400, 'invalid_request');
});

test('distribute: a recipient that is not a holder of this merchant is 404 holder_not_found', async () => {
  fails(await distribute(T.address, { amount: 1, sendToId: 'nobody' }), 404, 'holder_not_found');
  fails(await distribute(T.address, { amount: 1, sendToAddress: EXT1 }), 404, 'holder_not_found');
  const other = await putHolder('b-user', B);
  fails(await distribute(T.address, { amount: 1, sendToAddress: other.address }), 404, 'holder_not_found');
  fails(await distribute(`0x${'0'.repeat(39)}7`, { amount: 1, sendToId: 'alice' }), 404, 'token_not_found');
  assert.equal((await tokenRead()).remainingAppSupply, 120);
});

test('distribute above the remaining app supply: 422 insufficient_app_supply, nothing moves', async () => {
  const e = fails(await distribute(T.address, { amount: '120.000000000000000001', sendToId: 'alice' }), 422, 'insufficient_app_supply');
  assert.equal(e.details?.remainingAppSupply, 120);
  fails(await distribute(T.address, { amount: 1e6, sendToId: 'alice' }), 422, 'insufficient_app_supply');
  assert.equal(await balance('alice'), 10);
  assert.equal((await assertConserved()).remainingAppSupply, 120);
});

test('amount validation: invalid_amount / invalid_request on every operation', async () => {
  const table = [
    [0, 'invalid_amount'], ['0', 'invalid_amount'], [-1, 'invalid_amount'], ['-1', 'invalid_amount'],
    ['abc', 'invalid_amount'], ['', 'invalid_amount'], ['NaN', 'invalid_amount'], ['Infinity', 'invalid_amount'],
    [' 1', 'invalid_amount'], ['0x10', 'invalid_amount'], ['1.0000000000000000001', 'invalid_amount'],
    [true, 'invalid_amount'], [[], 'invalid_amount'], [{}, 'invalid_amount'], [null, 'invalid_request'],
    [undefined, 'invalid_request'],
  ];
  const ops = [
    ['distribute', (amount) => distribute(T.address, { amount, sendToId: 'alice' })],
    ['spend', (amount) => move('spend', 'alice', { tokenAddress: T.address, amount })],
    ['transfer', (amount) => move('transfer', 'alice', { tokenAddress: T.address, amount, toAddress: H.bob.address })],
    ['withdraw', (amount) => move('withdraw', 'alice', { tokenAddress: T.address, amount, toAddress: EXT1 })],
  ];
  for (const [op, run] of ops) {
    for (const [amount, code] of table) {
      const e = fails(await run(amount), 400, code);
      assert.equal(e.details?.field, 'amount', `${op} ${JSON.stringify(amount)}`);
    }
    // Raw JSON numbers no float can hold.
    for (const raw of ['1e400', '1e-19', '0.0000000000000000001', '1e999999999', '-0']) {
      const path = op === 'distribute' ? `/token/${T.address}/distribute` : `/holder/alice/${op}`;
      const rest = op === 'distribute' ? '"sendToId":"alice"' : `"tokenAddress":"${T.address}","toAddress":"${H.bob.address}"`;
      fails(await call('POST', path, { key: M.secretKey, rawBody: `{"amount":${raw},${rest}}`, headers: JSON_CT }),
        400, 'invalid_amount');
    }
  }
  assert.equal(await balance('alice'), 10);
  await assertConserved();
});

test('0.1 then 0.2 is exactly 0.3 on the wire; 18 decimals survive', async () => {
  await putHolder('decimal');
  ok(await distribute(T.address, { amount: 0.1, sendToId: 'decimal' }));
  ok(await distribute(T.address, { amount: '0.2', sendToId: 'decimal' }));
  const one = await call('GET', `/holder/decimal/token/${T.address}`, { key: M.publicKey });
  ok(one);
  assert.ok(one.text.includes('"balance":0.3'), one.text);
  const full = await call('GET', '/holder/decimal', { key: M.publicKey });
  assert.ok(full.text.includes('"balance":0.3'), full.text);
  const tok = await call('GET', `/token/${T.address}`, { key: M.publicKey });
  assert.ok(tok.text.includes('"balance":0.3'), tok.text);
  await assertConserved();
  // Beyond what a double holds (on another token, so T's numbers stay exact in JS).
  const P = await newToken(M, { name: 'Precise', symbol: 'PRE', totalSupply: 1000 });
  await putHolder('precise');
  ok(await distribute(P.address, { amount: '12.345678901234567891', sendToId: 'precise' }));
  ok(await distribute(P.address, { amount: '0.000000000000000001', sendToId: 'precise' }));
  const p = await call('GET', `/holder/precise/token/${P.address}`, { key: M.publicKey });
  assert.ok(ok(p) && p.text.includes('"balance":12.345678901234567892'), p.text);
  const h = await call('GET', '/holder/precise/transactions', { key: M.secretKey });
  assert.ok(h.text.includes('"amount":0.000000000000000001'), h.text);
  assert.ok(h.text.includes('"amount":12.345678901234567891'), h.text);
  const t = await call('GET', `/token/${P.address}`, { key: M.publicKey });
  assert.ok(t.text.includes('"remainingAppSupply":137.654321098765432108'), t.text);
});

test('spend moves tokens to the merchant wallet: merchantSupply grows by the amount', async () => {
  const before = await tokenRead();
  const r = assertLedgerResult(await move('spend', 'alice', { tokenAddress: T.address, amount: 2 }), {
    from: H.alice.address, to: T.merchantAddress, amount: 2, tokenAddress: T.address,
  });
  const after_ = await assertConserved();
  assert.equal(units(after_.merchantSupply) - units(before.merchantSupply), units(2));
  assert.equal(after_.remainingAppSupply, before.remainingAppSupply);
  assert.equal(await balance('alice'), 8);
  const [rec] = (await history('alice')).data;
  assert.equal(rec.type, 'spend');
  assertRecordOf(rec, r);
  assert.equal(rec.from, H.alice.address);
  assert.equal(rec.to, T.merchantAddress);
  // tokenAddress in any case.
  assertLedgerResult(await move('spend', 'alice', { tokenAddress: T.address.toLowerCase(), amount: '0.5' }), {
    from: H.alice.address, to: T.merchantAddress, amount: 0.5, tokenAddress: T.address,
  });
  assert.equal(await balance('alice'), 7.5);
});

test('transfer to another holder: transfer_out and transfer_in in both histories', async () => {
  const r = assertLedgerResult(await move('transfer', 'alice', {
    tokenAddress: T.address, amount: 3, toAddress: H.bob.address.toLowerCase(),
  }), { from: H.alice.address, to: H.bob.address, amount: 3, tokenAddress: T.address });
  assert.equal(await balance('alice'), 4.5);
  assert.equal(await balance('bob'), 13);
  const [out] = (await history('alice')).data;
  const [inn] = (await history('bob')).data;
  assert.equal(out.type, 'transfer_out');
  assert.equal(inn.type, 'transfer_in');
  for (const rec of [out, inn]) {
    assertRecordOf(rec, r);
    assert.equal(rec.context, 'Transfer');
    assert.equal(rec.from, H.alice.address);
    assert.equal(rec.to, H.bob.address);
    assert.equal(rec.amount, 3);
  }
  assert.notEqual(out.id, inn.id);
  await assertConserved();
});

test('transfer to an external address makes it a holder of record (id = address)', async () => {
  const before = await tokenRead();
  const r = ok(await move('transfer', 'bob', { tokenAddress: T.address, amount: 1.5, toAddress: EXT1 }));
  assert.equal(r.to.toLowerCase(), EXT1);
  const t = await assertConserved();
  assert.equal(t.holdersCount, before.holdersCount + 1);
  const rec = t.holders.find((h) => h.address.toLowerCase() === EXT1);
  assert.ok(rec, JSON.stringify(t.holders));
  assert.equal(rec.id, rec.address);
  assert.equal(rec.address, r.to);
  assert.equal(rec.balance, 1.5);
  // It reads like any address, but is nobody's userId.
  assert.equal(await balance(EXT1), 1.5);
  fails(await call('GET', `/holder/${EXT1}`, { key: M.publicKey }), 404, 'holder_not_found');
  fails(await distribute(T.address, { amount: 1, sendToAddress: EXT1 }), 404, 'holder_not_found');
});

test('withdraw out of custody to an external wallet', async () => {
  // EXT2 is all digits, so its EIP-55 form is itself.
  const r = assertLedgerResult(await move('withdraw', 'carol', { tokenAddress: T.address, amount: 4, toAddress: EXT2 }), {
    from: H.carol.address, to: EXT2, amount: 4, tokenAddress: T.address,
  });
  assert.equal(await balance('carol'), 6);
  const [rec] = (await history('carol')).data;
  assert.equal(rec.type, 'withdraw');
  assert.equal(rec.context, 'Withdraw');
  assertRecordOf(rec, r);
  assert.equal(rec.to, EXT2);
  const t = await assertConserved();
  const ext = t.holders.find((x) => x.address === EXT2);
  assert.deepEqual([ext?.id, ext?.balance], [EXT2, 4]);
});

test('refusals: self transfer, insufficient balance, bad or unknown inputs change nothing', async () => {
  const before = await tokenRead();
  const histBefore = (await history('alice', '?limit=200')).data.length;
  const tok = T.address;
  for (const kind of ['transfer', 'withdraw']) {
    for (const to of [H.alice.address, H.alice.address.toLowerCase()]) {
      const e = fails(await move(kind, 'alice', { tokenAddress: tok, amount: 1, toAddress: to }), 400, 'self_transfer');
      assert.equal(e.details?.field, 'toAddress');
    }
    // Where tokens would be lost: refused before anything moves (on a chain, a transfer to the
    // zero address would revert its whole batch).
    for (const to of ['0x0000000000000000000000000000000000000000', tok, tok.toLowerCase()]) {
      const e = fails(await move(kind, 'alice', { tokenAddress: tok, amount: 1, toAddress: to }), 400, 'invalid_destination');
      assert.equal(e.details?.field, 'toAddress');
    }
    fails(await move(kind, 'alice', { tokenAddress: tok, amount: 1, toAddress: '0x123' }), 400, 'invalid_address');
    fails(await move(kind, 'alice', { tokenAddress: tok, amount: 1, toAddress: 'alice' }), 400, 'invalid_address');
    fails(await move(kind, 'alice', { tokenAddress: tok, amount: 1, toAddress: 7 }), 400, 'invalid_address');
    fails(await move(kind, 'alice', { tokenAddress: tok, amount: 1 }), 400, 'invalid_request');
  }
  for (const kind of ['spend', 'transfer', 'withdraw']) {
    const body = { tokenAddress: tok, toAddress: EXT1 };
    const e = fails(await move(kind, 'alice', { ...body, amount: '4.500000000000000001' }), 422, 'insufficient_balance');
    assert.equal(e.details?.available, 4.5);
    fails(await move(kind, 'erin', { ...body, amount: 1 }), 422, 'insufficient_balance');
    fails(await move(kind, 'alice', { ...body, amount: 1, tokenAddress: `0x${'0'.repeat(39)}5` }), 404, 'token_not_found');
    fails(await move(kind, 'alice', { ...body, amount: 1, tokenAddress: '0xnope' }), 400, 'invalid_address');
    fails(await move(kind, 'alice', { toAddress: EXT1, amount: 1 }), 400, 'invalid_request');
    fails(await move(kind, 'nobody', { ...body, amount: 1 }), 404, 'holder_not_found');
    fails(await move(kind, 'x'.repeat(129), { ...body, amount: 1 }), 400, 'invalid_user_id');
  }
  assert.deepEqual(await tokenRead(), before);
  assert.equal((await history('alice', '?limit=200')).data.length, histBefore);
});

test('conservation holds after every step of a long mixed series', async () => {
  const t = await newToken(M, { name: 'Series', symbol: 'SER', totalSupply: 1000 });
  const users = ['s1', 's2', 's3'];
  for (const u of users) await putHolder(u);
  const addr = Object.fromEntries(users.map((u) => [u, H[u].address]));
  const model = { app: units(150), merchant: units(50), bal: new Map() }; // address(lower) -> units
  const add = (a, v) => model.bal.set(a.toLowerCase(), (model.bal.get(a.toLowerCase()) ?? 0n) + v);
  let seed = 7;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let step = 0; step < 30; step++) {
    const u = users[rnd(3)];
    const amt = (rnd(40) + 1) / 4; // 0.25 .. 10, exact in binary and decimal
    const v = units(amt);
    const have = model.bal.get(addr[u].toLowerCase()) ?? 0n;
    const kind = step < 6 ? 0 : rnd(4);
    let r;
    if (kind === 0) {
      r = await distribute(t.address, { amount: amt, sendToId: u });
      if (v <= model.app) { ok(r); model.app -= v; add(addr[u], v); } else fails(r, 422, 'insufficient_app_supply');
    } else {
      const to = kind === 1 ? t.merchantAddress : kind === 2 ? addr[users[(users.indexOf(u) + 1) % 3]] : EXT1;
      const op = ['', 'spend', 'transfer', 'withdraw'][kind];
      r = await move(op, u, { tokenAddress: t.address, amount: amt, toAddress: to });
      if (v <= have) {
        ok(r);
        add(addr[u], -v);
        if (kind === 1) model.merchant += v; else add(to, v);
      } else fails(r, 422, 'insufficient_balance');
    }
    const read = await assertConserved(t.address);
    assert.equal(units(read.remainingAppSupply), model.app, `step ${step}`);
    assert.equal(units(read.merchantSupply), model.merchant, `step ${step}`);
    const want = [...model.bal].filter(([, b]) => b > 0n).sort();
    const got = read.holders.map((h) => [h.address.toLowerCase(), units(h.balance)]).sort();
    assert.deepEqual(got, want, `step ${step}`);
  }
});

test('history: newest first; limit and cursor paging visit every record exactly once', async () => {
  const h = await putHolder('hist');
  const expected = []; // types, oldest first
  for (let i = 1; i <= 6; i++) { ok(await distribute(T.address, { amount: i, sendToId: 'hist' })); expected.push('distribute'); }
  for (let i = 1; i <= 3; i++) {
    ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: h.address, usdcAmount: i } }));
    expected.push('deposit');
  }
  for (let i = 1; i <= 3; i++) { ok(await move('spend', 'hist', { tokenAddress: T.address, amount: 1 })); expected.push('spend'); }
  // Records change as they settle on an EVM chain: page through a settled history.
  await settled(M);
  const all = await history('hist', '?limit=200');
  assert.equal(all.has_more, false);
  assert.equal(all.next_cursor, null);
  assert.deepEqual(all.data.map((r) => r.type), [...expected].reverse());
  for (let i = 1; i < all.data.length; i++) assert.ok(all.data[i - 1].timestamp >= all.data[i].timestamp);
  assert.equal(new Set(all.data.map((r) => r.id)).size, 12);
  const byDefault = await history('hist');
  assert.deepEqual(byDefault, all);

  for (const limit of [1, 5, 12]) {
    const ids = [];
    let cursor = null;
    let pages = 0;
    do {
      const page = await history('hist', `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.ok(page.data.length <= limit);
      ids.push(...page.data.map((r) => r.id));
      assert.equal(page.has_more, page.next_cursor !== null);
      cursor = page.next_cursor;
      pages++;
      assert.ok(pages <= 20, 'paging does not end');
    } while (cursor);
    assert.deepEqual(ids, all.data.map((r) => r.id), `limit ${limit}`);
    assert.equal(pages, Math.ceil(12 / limit));
  }

  // A cursor is stable: records added after it was issued do not shift later pages.
  const first = await history('hist', '?limit=5');
  ok(await move('spend', 'hist', { tokenAddress: T.address, amount: 1 }));
  const rest = [];
  for (let cursor = first.next_cursor; cursor;) {
    const page = await history('hist', `?limit=5&cursor=${encodeURIComponent(cursor)}`);
    rest.push(...page.data.map((r) => r.id));
    cursor = page.next_cursor;
  }
  assert.deepEqual([...first.data.map((r) => r.id), ...rest], all.data.map((r) => r.id));
  assert.equal((await history('hist')).data.length, 13);

  // Filter by token (any case), with paging.
  const ledOnly = await history('hist', `?tokenAddress=${T.address.toLowerCase()}&limit=200`);
  assert.equal(ledOnly.data.length, 10);
  assert.ok(ledOnly.data.every((r) => r.tokenAddress === T.address));
  const usdcOnly = await history('hist', `?tokenAddress=${USDC}`);
  assert.deepEqual(usdcOnly.data.map((r) => [r.type, r.symbol, r.amount]), [['deposit', 'USDC', 3], ['deposit', 'USDC', 2], ['deposit', 'USDC', 1]]);
  const p1 = await history('hist', `?tokenAddress=${T.address}&limit=4`);
  const p2 = await history('hist', `?tokenAddress=${T.address}&limit=4&cursor=${p1.next_cursor}`);
  assert.deepEqual([...p1.data, ...p2.data].map((r) => r.id), ledOnly.data.slice(0, 8).map((r) => r.id));
  assert.deepEqual((await history('hist', `?tokenAddress=0x${'0'.repeat(39)}4`)).data, []);
});

test('history: bad queries are 400; unknown holder 404; no records is an empty page', async () => {
  for (const c of ['abc', 'c0', 'c-1', 'c', '1', 'c1.5', 'c99999999999999999999999']) {
    fails(await call('GET', `/holder/alice/transactions?cursor=${c}`, { key: M.secretKey }), 400, 'invalid_cursor');
  }
  for (const l of ['0', '201', 'abc', '-1', '1.5', '']) {
    const e = fails(await call('GET', `/holder/alice/transactions?limit=${l}`, { key: M.secretKey }), 400, 'invalid_request');
    assert.equal(e.details?.field, 'limit');
  }
  assert.equal((await history('alice', '?limit=200')).data.length <= 200, true);
  fails(await call('GET', '/holder/alice/transactions?tokenAddress=0x12', { key: M.secretKey }), 400, 'invalid_address');
  fails(await call('GET', '/holder/nobody/transactions', { key: M.secretKey }), 404, 'holder_not_found');
  assert.deepEqual(await history('erin'), { has_more: false, next_cursor: null, data: [] });
});

test('faucet credits USDC: a USDC item in the holder, a deposit in history', async () => {
  const r = ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: H.erin.address.toLowerCase(), usdcAmount: 25.5 } }));
  assert.equal(r.success, true);
  assert.equal(r.address, H.erin.address);
  assert.equal(r.usdcAmount, 25.5);
  assertMovement(r);
  const h = ok(await call('GET', '/holder/erin', { key: M.publicKey }));
  const usdc = h.tokens.find((t) => t.symbol === 'USDC');
  assert.deepEqual(usdc, { id: USDC, address: USDC, name: usdc.name, symbol: 'USDC', balance: 25.5, value: 25.5, price: 1, status: 'active', type: 'token' });
  assert.equal(h.totalValue, 25.5);
  // On an EVM chain the test USDC is minted on chain: the record shows it once mined.
  if (evm()) await settled(M);
  const [dep] = (await history('erin')).data;
  assert.ok(Number.isSafeInteger(dep.blockNumber) && dep.blockNumber > 0, `blockNumber ${dep.blockNumber}`);
  if (!evm()) assert.equal(r.blockNumber, dep.blockNumber, 'the answer and the record name the same block');
  assert.match(dep.transactionHash, /^0x[0-9a-f]{64}$/);
  assert.deepEqual({ ...dep, id: undefined, timestamp: undefined, blockNumber: undefined }, {
    id: undefined, timestamp: undefined, blockNumber: undefined, transactionHash: evm() ? dep.transactionHash : r.transactionHash, chainStatus: 'confirmed', type: 'deposit', context: 'Deposit',
    tokenAddress: USDC, symbol: 'USDC', amount: 25.5, from: '0x0000000000000000000000000000000000000000', to: H.erin.address,
  });
  // Strings and 6 decimals; merchantId naming the holder's merchant.
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: H.erin.address, usdcAmount: '0.000001', merchantId: M.id } }));
  assert.equal(await balance('erin', USDC), 25.500001);
});

test('faucet refusals: unknown address 404, bad amount or address 400', async () => {
  const faucet = (body) => call('POST', '/admin/faucet', { adminKey: w.adminKey, body });
  fails(await faucet({ address: EXT2, usdcAmount: 1 }), 404, 'holder_not_found'); // holds tokens, but is no holder
  fails(await faucet({ address: `0x${'9'.repeat(40)}`, usdcAmount: 1 }), 404, 'holder_not_found');
  fails(await faucet({ address: H.erin.address, usdcAmount: 1, merchantId: B.id }), 404, 'holder_not_found');
  fails(await faucet({ address: H.erin.address, usdcAmount: 1, merchantId: 'not-a-merchant' }), 404, 'merchant_not_found');
  for (const usdcAmount of [0, -1, 'abc', '1.0000001', 1.0000001, true, '']) {
    const e = fails(await faucet({ address: H.erin.address, usdcAmount }), 400, 'invalid_amount');
    assert.equal(e.details?.field, 'usdcAmount');
  }
  fails(await faucet({ address: H.erin.address }), 400, 'invalid_request');
  fails(await faucet({ usdcAmount: 1 }), 400, 'invalid_request');
  fails(await faucet({ address: '0x12', usdcAmount: 1 }), 400, 'invalid_address');
  assert.equal(await balance('erin', USDC), 25.500001);
});

test('a faucet amount that would overflow the USDC supply names usdcAmount',
  async () => {
    await putHolder('whale');
    // A JSON number (a string has at most 20 whole digits): fits once in u128 base units, not twice.
    const huge = 3e32;
    const long = fails(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: H.whale.address, usdcAmount: '300000000000000000000000000000000' } }),
      400, 'invalid_amount');
    assert.equal(long.details?.field, 'usdcAmount');
    ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: H.whale.address, usdcAmount: huge } }));
    const e = fails(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: H.whale.address, usdcAmount: huge } }),
      400, 'invalid_amount');
    assert.equal(e.details?.field, 'usdcAmount');
  });

test('USDC moves like any token: transfer, spend, withdraw', async () => {
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: H.bob.address, usdcAmount: 20 } }));
  assertLedgerResult(await move('transfer', 'bob', { tokenAddress: USDC, amount: 7.5, toAddress: H.alice.address }), {
    from: H.bob.address, to: H.alice.address, amount: 7.5, tokenAddress: USDC,
  });
  assert.equal(await balance('bob', USDC), 12.5);
  assert.equal(await balance('alice', USDC), 7.5);
  assert.equal((await history('alice', `?tokenAddress=${USDC}`)).data[0].type, 'transfer_in');
  ok(await move('spend', 'bob', { tokenAddress: USDC, amount: 2.5 }));
  ok(await move('withdraw', 'bob', { tokenAddress: USDC, amount: 10, toAddress: EXT1 }));
  assert.equal(await balance('bob', USDC), 0);
  fails(await move('transfer', 'bob', { tokenAddress: USDC, amount: 0.000001, toAddress: EXT1 }), 422, 'insufficient_balance');
  fails(await move('transfer', 'alice', { tokenAddress: USDC, amount: '0.0000001', toAddress: EXT1 }), 400, 'invalid_amount');
  const h = ok(await call('GET', '/holder/bob', { key: M.publicKey }));
  assert.ok(!h.tokens.some((t) => t.symbol === 'USDC'), 'an emptied balance is not listed');
});

test('no response in this file had a status >= 500', () => {
  assert.ok(seen.length > 200, `only ${seen.length} responses seen`);
  assert.deepEqual(seen.filter((s) => s.status >= 500), []);
});
