// Tokens: creation (validation, defaults, the job), reads, the Reward Allocation switch,
// all-tokens, holder lists, addresses (contract §4, wire-decisions.md).
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, startWorker, TEST_CHAIN } from './harness.mjs';
import { checkedClient, usdcOf } from './check.mjs';

let w;
/** The embedded chain mines in 2-second blocks of the service clock; a real one on its own. */
const embeddedOnly = TEST_CHAIN === 'anvil' && 'the embedded chain\'s block timing';
const { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset, evm, reconcileAll } = checkedClient(() => w);

// ---- EIP-55 (keccak-256 in plain JS: node:crypto has SHA3 but not Keccak) ----------------
const M64 = (1n << 64n) - 1n;
const RC = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n,
  0x000000000000808bn, 0x0000000080000001n, 0x8000000080008081n, 0x8000000000008009n,
  0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n,
  0x8000000000008002n, 0x8000000000000080n, 0x000000000000800an, 0x800000008000000an,
  0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];
const ROT = [[0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61], [28, 55, 25, 21, 56], [27, 20, 39, 8, 14]];
const rotl = (v, n) => (n === 0 ? v : ((v << BigInt(n)) | (v >> BigInt(64 - n))) & M64);
function keccakF(A) {
  for (let round = 0; round < 24; round++) {
    const C = [0, 1, 2, 3, 4].map((x) => A[x] ^ A[x + 5] ^ A[x + 10] ^ A[x + 15] ^ A[x + 20]);
    for (let i = 0; i < 25; i++) A[i] ^= C[(i + 4) % 5] ^ rotl(C[(i + 1) % 5], 1);
    const B = new Array(25);
    for (let x = 0; x < 5; x++) for (let y = 0; y < 5; y++) B[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(A[x + 5 * y], ROT[x][y]);
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) A[x + 5 * y] = B[x + 5 * y] ^ (~B[((x + 1) % 5) + 5 * y] & M64 & B[((x + 2) % 5) + 5 * y]);
    }
    A[0] ^= RC[round];
  }
}
function keccak256(bytes) {
  const rate = 136;
  const padded = new Uint8Array(Math.ceil((bytes.length + 1) / rate) * rate);
  padded.set(bytes);
  padded[bytes.length] ^= 0x01;
  padded[padded.length - 1] ^= 0x80;
  const A = new Array(25).fill(0n);
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n;
      for (let b = 7; b >= 0; b--) lane = (lane << 8n) | BigInt(padded[off + i * 8 + b]);
      A[i] ^= lane;
    }
    keccakF(A);
  }
  return Buffer.from(Array.from({ length: 32 }, (_, i) => Number((A[i >> 3] >> BigInt(8 * (i & 7))) & 0xffn)));
}
function toChecksum(address) {
  const lower = address.slice(2).toLowerCase();
  const hash = keccak256(Buffer.from(lower, 'ascii')).toString('hex');
  return '0x' + [...lower].map((c, i) => (parseInt(hash[i], 16) >= 8 ? c.toUpperCase() : c)).join('');
}
function assertChecksummed(address, what) {
  assert.match(address, /^0x[0-9a-fA-F]{40}$/, what);
  assert.equal(address, toChecksum(address), `${what} is not EIP-55: ${address}`);
}
function assertTokenAddressesChecksummed(t) {
  assertChecksummed(t.address, 'token.address');
  assert.equal(t.id, t.address);
  assertChecksummed(t.merchantAddress, 'token.merchantAddress');
  for (const h of t.holders) assertChecksummed(h.address, 'holder.address');
}
// -------------------------------------------------------------------------------------------

// USDC is reported under the chain's USDC contract (Base's address on the embedded chain).
let USDC; // the chain's USDC (usdcOf)
let M; // the main merchant
let L; // a merchant used only for the all-tokens listing
let defaultToken; // created with { name, symbol } only

/** Waits until the service clock is early in a 2 s block, so a job just submitted stays pending a while. */
async function earlyInBlock() {
  for (;;) {
    const ms = (Date.now() + offset()) % 2000;
    if (ms < 500) return;
    await sleep(2000 - ms + 10);
  }
}
async function submit(m, body) {
  return ok(await call('POST', '/merchant/create-token', { key: m.secretKey, body }), 201);
}

before(async () => {
  w = await startWorker();
  USDC = usdcOf(w);
  // Merchants first: a time advance reaches only merchants that exist when it runs.
  M = await newMerchant('Tokens');
  L = await newMerchant('Listing');
  defaultToken = await newToken(M, { name: 'Defaults', symbol: 'DEF' });
});
after(async () => {
  // Every merchant's ledger agrees with the chain (on an EVM chain: balanceOf, once settled).
  if (w) await reconcileAll();
  await w?.stop();
});

test('keccak-256 and EIP-55 of the test itself are right', () => {
  assert.equal(keccak256(Buffer.alloc(0)).toString('hex'), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  for (const a of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb']) {
    assert.equal(toChecksum(a.toLowerCase()), a);
  }
});

test('create-token validation: every bad field is a 400 with its code', async () => {
  const ok1 = { name: 'Valid', symbol: 'VAL' };
  const table = [
    [{ symbol: 'X' }, 'invalid_request', 'name'],
    [{ name: '', symbol: 'X' }, 'invalid_request', 'name'],
    [{ name: '   ', symbol: 'X' }, 'invalid_text', 'name'], // blank-looking: the free-text rule's code
    [{ name: 5, symbol: 'X' }, 'invalid_request', 'name'],
    [{ name: 'x'.repeat(65), symbol: 'X' }, 'invalid_request', 'name'],
    [{ name: 'X' }, 'invalid_request', 'symbol'],
    [{ ...ok1, symbol: '' }, 'invalid_request', 'symbol'],
    [{ ...ok1, symbol: 'BAD SYMBOL' }, 'invalid_request', 'symbol'],
    [{ ...ok1, symbol: 'A-B' }, 'invalid_request', 'symbol'],
    [{ ...ok1, symbol: 'ÄBC' }, 'invalid_request', 'symbol'],
    [{ ...ok1, symbol: 'TWELVECHARSX' }, 'invalid_request', 'symbol'],
    [{ ...ok1, symbol: 7 }, 'invalid_request', 'symbol'],
    [{ ...ok1, network: 'mainnet' }, 'invalid_network', 'network'],
    [{ ...ok1, network: 'Base' }, 'invalid_network', 'network'],
    [{ ...ok1, network: 'ethereum' }, 'invalid_network', 'network'],
    [{ ...ok1, network: 8453 }, 'invalid_request', 'network'],
    [{ ...ok1, totalSupply: 0 }, 'invalid_amount', 'totalSupply'],
    [{ ...ok1, totalSupply: '0' }, 'invalid_amount', 'totalSupply'],
    [{ ...ok1, totalSupply: -1 }, 'invalid_amount', 'totalSupply'],
    [{ ...ok1, totalSupply: 'abc' }, 'invalid_amount', 'totalSupply'],
    [{ ...ok1, totalSupply: '1.0000000000000000001' }, 'invalid_amount', 'totalSupply'],
    [{ ...ok1, totalSupply: 'NaN' }, 'invalid_amount', 'totalSupply'],
    [{ ...ok1, totalSupply: true }, 'invalid_amount', 'totalSupply'],
    [{ ...ok1, totalSupply: [] }, 'invalid_amount', 'totalSupply'],
    [{ ...ok1, merchantAddress: '0x12' }, 'invalid_address', 'merchantAddress'],
    [{ ...ok1, merchantAddress: 'not an address' }, 'invalid_address', 'merchantAddress'],
    [{ ...ok1, merchantAddress: '0X' + 'a'.repeat(40) }, 'invalid_address', 'merchantAddress'],
    [{ ...ok1, merchantAddress: '0x' + 'g'.repeat(40) }, 'invalid_address', 'merchantAddress'],
    [{ ...ok1, merchantAddress: 123 }, 'invalid_address', 'merchantAddress'],
    [{ ...ok1, canDistribute: 'yes' }, 'invalid_request', 'canDistribute'],
    [{ ...ok1, canDistribute: 1 }, 'invalid_request', 'canDistribute'],
    [{ ...ok1, canDistribute: 'true' }, 'invalid_request', 'canDistribute'],
    [{ ...ok1, canAirdrop: 'no' }, 'invalid_request', 'canAirdrop'],
    [{ ...ok1, canLP: 0 }, 'invalid_request', 'canLP'],
    [{ ...ok1, imageUrl: 'ftp://example.com/x.png' }, 'invalid_image_url', 'imageUrl'],
    [{ ...ok1, imageUrl: 'javascript:alert(1)' }, 'invalid_image_url', 'imageUrl'],
    [{ ...ok1, imageUrl: 'file:///etc/passwd' }, 'invalid_image_url', 'imageUrl'],
    [{ ...ok1, imageUrl: 'http://' }, 'invalid_image_url', 'imageUrl'],
    [{ ...ok1, imageUrl: 'https:///x.png' }, 'invalid_image_url', 'imageUrl'],
    [{ ...ok1, imageUrl: 'example.com/x.png' }, 'invalid_image_url', 'imageUrl'],
    [{ ...ok1, imageUrl: 'https://exa mple.com/x.png' }, 'invalid_image_url', 'imageUrl'],
    [{ ...ok1, imageUrl: 5 }, 'invalid_request', 'imageUrl'],
  ];
  for (const [body, code, field] of table) {
    const e = fails(await call('POST', '/merchant/create-token', { key: M.secretKey, body }), 400, code);
    assert.equal(e.details?.field, field, `${JSON.stringify(body)}: ${JSON.stringify(e)}`);
    if (code === 'invalid_network') assert.deepEqual(e.details.allowed, ['base', 'base-sepolia', 'sepolia', 'local']);
  }
  // Numbers that no float can hold are still refused cleanly, from their text.
  for (const raw of ['1e400', '-0', '1e-19', '100000000000000000000000000000000000000000']) {
    const e = fails(await call('POST', '/merchant/create-token', {
      key: M.secretKey, rawBody: `{"name":"X","symbol":"X","totalSupply":${raw}}`, headers: { 'content-type': 'application/json' },
    }), 400, 'invalid_amount');
    assert.equal(e.details?.field, 'totalSupply', raw);
  }
  // No job was made by any of these.
  assert.deepEqual(ok(await call('GET', '/merchant/all-tokens', { key: M.secretKey })).map((t) => t.symbol), ['DEF']);
});

test('create-token boundaries that are valid', async () => {
  for (const body of [
    { name: 'x'.repeat(64), symbol: 'ABCDEFGHIJK' },
    { name: 'Ω unicode name', symbol: 'a1' },
    { name: 'N', symbol: 'N', totalSupply: '0.000000000000000001' },
    { name: 'N', symbol: 'N', totalSupply: 1e3 },
    { name: 'N', symbol: 'N', imageUrl: 'http://img.example/x.png', network: null, totalSupply: null },
  ]) {
    const job = await submit(M, body);
    assert.equal(job.status, 'pending');
    assert.equal(typeof job.jobId, 'string');
  }
});

test('defaults: supply 1e9 split 15/5/80, network base, price null, switches', async () => {
  const t = defaultToken;
  assert.equal(t.name, 'Defaults');
  assert.equal(t.symbol, 'DEF');
  assert.equal(t.decimals, 18);
  // On an EVM chain a token is on the chain's network (a local node is not Base).
  assert.equal(t.network, TEST_CHAIN === 'anvil' ? 'local' : 'base');
  assert.equal(t.totalSupply, 1_000_000_000);
  assert.equal(t.startingAppSupply, 150_000_000);
  assert.equal(t.remainingAppSupply, 150_000_000);
  assert.equal(t.merchantSupply, 50_000_000);
  assert.equal(t.liquiditySupply, 800_000_000);
  assert.equal(t.price, null);
  assert.equal(t.canDistribute, true);
  assert.equal(t.canAirdrop, false);
  assert.equal(t.canLP, true); // on by default: Metal's createToken then createLP works
  assert.equal(t.imageUrl, null);
  assert.equal(t.merchantAddress, M.merchantAddress);
  assert.deepEqual(t.holders, []);
  assert.equal(t.holdersCount, 0);
  assert.ok(!Number.isNaN(Date.parse(t.createdAt)));
  assertTokenAddressesChecksummed(t);
  // The read answers the same object.
  assert.deepEqual(ok(await call('GET', `/token/${t.address}`, { key: M.publicKey })), t);
});

test('explicit fields are kept; merchantAddress may be given in lowercase', async () => {
  const ext = toChecksum('0x' + 'ab12'.repeat(10));
  const t = await newToken(M, {
    name: 'Custom', symbol: 'CUS', network: 'base-sepolia', totalSupply: '1234.5', merchantAddress: ext.toLowerCase(),
    canDistribute: false, canAirdrop: true, canLP: true, imageUrl: 'https://img.example/c.png?x=1',
  });
  assert.equal(t.network, TEST_CHAIN === 'anvil' ? 'local' : 'base-sepolia');
  assert.equal(t.totalSupply, 1234.5);
  assert.equal(t.startingAppSupply, 185.175);
  assert.equal(t.merchantSupply, 61.725);
  assert.equal(t.liquiditySupply, 987.6);
  assert.equal(t.merchantAddress, ext);
  assert.equal(t.canDistribute, false);
  assert.equal(t.canAirdrop, true);
  assert.equal(t.canLP, true);
  assert.equal(t.imageUrl, 'https://img.example/c.png?x=1');
  assertTokenAddressesChecksummed(t);
  assert.equal((await newToken(M, { name: 'S', symbol: 'S', network: 'sepolia' })).network, TEST_CHAIN === 'anvil' ? 'local' : 'sepolia');
});

test('job: pending, then success after POST /admin/time/advance (both status routes)', { skip: embeddedOnly }, async () => {
  await earlyInBlock();
  const job = await submit(M, { name: 'Timed', symbol: 'TIM', totalSupply: 500 });
  assert.equal(job.status, 'pending');
  for (const path of [`/jobs/${job.jobId}`, `/merchant/create-token/status/${job.jobId}`]) {
    const j = ok(await call('GET', path, { key: M.secretKey }));
    assert.equal(j.jobId, job.jobId);
    assert.equal(j.status, 'pending', JSON.stringify(j));
    assert.equal(j.data, undefined);
  }
  if (job.tokenAddress) {
    // Known from the start (additive field), but not a token until mined.
    fails(await call('GET', `/token/${job.tokenAddress}`, { key: M.publicKey }), 404, 'token_not_found');
    fails(await call('GET', `/token/${job.tokenAddress}`, { key: M.secretKey }), 404, 'token_not_found');
  }
  await advance(5);
  const datas = [];
  for (const path of [`/jobs/${job.jobId}`, `/merchant/create-token/status/${job.jobId}`]) {
    const j = ok(await call('GET', path, { key: M.secretKey }));
    assert.equal(j.jobId, job.jobId);
    assert.equal(j.status, 'success', JSON.stringify(j));
    assert.equal(j.data.symbol, 'TIM');
    assert.equal(j.data.totalSupply, 500);
    datas.push(j.data);
  }
  assert.deepEqual(datas[0], datas[1]);
  if (job.tokenAddress) assert.equal(datas[0].address, job.tokenAddress);
  assert.deepEqual(ok(await call('GET', `/token/${datas[0].address}`, { key: M.publicKey })), datas[0]);
});

test('job on an EVM chain: pending with no transaction hash, then success once the deployment is mined', { skip: TEST_CHAIN !== 'anvil' && 'needs TOKENPAD_TEST_CHAIN=anvil' }, async () => {
  const job = await submit(M, { name: 'Mined', symbol: 'MINED' });
  assert.equal(job.status, 'pending');
  assert.equal(job.transactionHash, undefined, 'no invented hash');
  let j;
  for (let i = 0; i < 300; i++) {
    j = ok(await call('GET', `/jobs/${job.jobId}`, { key: M.secretKey }));
    if (j.status !== 'pending') break;
    await sleep(50);
  }
  assert.equal(j.status, 'success', JSON.stringify(j));
  assert.match(j.transactionHash, /^0x[0-9a-f]{64}$/);
  assert.equal(j.data.address, job.tokenAddress, 'deployed where the API said it would be');
});

test('job: finishes on its own after ~2 s of real time, with no time travel', { skip: embeddedOnly }, async () => {
  await earlyInBlock();
  const job = await submit(M, { name: 'Waited', symbol: 'WAIT' });
  assert.equal(ok(await call('GET', `/jobs/${job.jobId}`, { key: M.secretKey })).status, 'pending');
  await sleep(2_300);
  for (const path of [`/merchant/create-token/status/${job.jobId}`, `/jobs/${job.jobId}`]) {
    const j = ok(await call('GET', path, { key: M.secretKey }));
    assert.equal(j.status, 'success', JSON.stringify(j));
    assert.equal(j.data.symbol, 'WAIT');
  }
});

test('unknown job: 404 job_not_found on both routes', async () => {
  for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', 'a'.repeat(200), '%20']) {
    fails(await call('GET', `/jobs/${id}`, { key: M.secretKey }), 404, 'job_not_found');
    fails(await call('GET', `/merchant/create-token/status/${id}`, { key: M.secretKey }), 404, 'job_not_found');
  }
});

test('token reads: unknown address 404 token_not_found, malformed address 400 invalid_address', async () => {
  fails(await call('GET', `/token/0x${'0'.repeat(39)}1`, { key: M.publicKey }), 404, 'token_not_found');
  for (const bad of ['0x123', 'nothex', `0x${'z'.repeat(40)}`, `${'a'.repeat(42)}`, `0x${'a'.repeat(41)}`, `0X${'a'.repeat(40)}`]) {
    fails(await call('GET', `/token/${bad}`, { key: M.publicKey }), 400, 'invalid_address');
    fails(await call('PATCH', `/merchant/token/${bad}`, { key: M.secretKey, body: { canDistribute: true } }), 400, 'invalid_address');
    fails(await call('POST', `/token/${bad}/distribute`, { key: M.secretKey, body: { amount: 1, sendToId: 'x' } }), 400, 'invalid_address');
  }
});

test('PATCH canDistribute: off refuses distribution (403), on again allows it; bad bodies are 400', async () => {
  const t = await newToken(M, { name: 'Switch', symbol: 'SW', totalSupply: 1000 });
  ok(await call('PUT', '/holder/switch-user', { key: M.secretKey }), 201);
  const off = ok(await call('PATCH', `/merchant/token/${t.address}`, { key: M.secretKey, body: { canDistribute: false } }));
  assert.equal(off.canDistribute, false);
  assert.equal(off.address, t.address);
  assert.equal(ok(await call('GET', `/token/${t.address}`, { key: M.publicKey })).canDistribute, false);
  fails(await call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { amount: 1, sendToId: 'switch-user' } }),
    403, 'reward_allocation_disabled');
  // Lowercase address in the path; the answer is checksummed.
  const on = ok(await call('PATCH', `/merchant/token/${t.address.toLowerCase()}`, { key: M.secretKey, body: { canDistribute: true } }));
  assert.equal(on.canDistribute, true);
  assert.equal(on.address, t.address);
  ok(await call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { amount: 1, sendToId: 'switch-user' } }));
  for (const body of [{}, { canDistribute: 'false' }, { canDistribute: 0 }, { canDistribute: null }, { other: true }]) {
    const e = fails(await call('PATCH', `/merchant/token/${t.address}`, { key: M.secretKey, body }), 400, 'invalid_request');
    assert.equal(e.details?.field, 'canDistribute');
  }
  fails(await call('PATCH', `/merchant/token/0x${'0'.repeat(39)}2`, { key: M.secretKey, body: { canDistribute: true } }),
    404, 'token_not_found');
  // The refusals changed nothing.
  assert.equal(ok(await call('GET', `/token/${t.address}`, { key: M.secretKey })).canDistribute, true);
});

test('PATCH on the USDC ledger is refused', async () => {
  fails(await call('PATCH', `/merchant/token/${USDC}`, { key: M.secretKey, body: { canDistribute: true } }), 400, 'invalid_request');
});

test('all-tokens lists the merchant tokens (never USDC) in creation order', async () => {
  assert.deepEqual(ok(await call('GET', '/merchant/all-tokens', { key: L.secretKey })), []);
  const made = [];
  for (const symbol of ['ONE', 'TWO', 'THREE']) made.push(await newToken(L, { name: `Token ${symbol}`, symbol }));
  const list = ok(await call('GET', '/merchant/all-tokens', { key: L.secretKey }));
  assert.deepEqual(list.map((t) => t.address), made.map((t) => t.address));
  assert.ok(!list.some((t) => t.symbol === 'USDC' || t.address === USDC));
  for (const t of list) assertTokenAddressesChecksummed(t);
  // M's list holds M's tokens only.
  const mine = ok(await call('GET', '/merchant/all-tokens', { key: M.secretKey }));
  assert.ok(mine.length >= 3);
  assert.ok(!mine.some((t) => made.some((x) => x.address === t.address)));
});

test('all-tokens: tokens mined in the same block keep their submission order', { skip: embeddedOnly },
  async () => {
    const N = await newMerchant('Same Block'); // joins the clock at the next advance
    await advance(1);
    await earlyInBlock();
    const symbols = ['S0', 'S1', 'S2', 'S3', 'S4', 'S5'];
    for (const symbol of symbols) await submit(N, { name: symbol, symbol });
    await advance(4);
    const list = ok(await call('GET', '/merchant/all-tokens', { key: N.secretKey }));
    assert.deepEqual(list.map((t) => t.symbol), symbols);
  });

test('holders: sorted by balance (largest first), holdersLimit, holdersCount', async () => {
  const t = await newToken(M, { name: 'Spread', symbol: 'SPR', totalSupply: 10_000 });
  const grants = { h1: 5, h2: 100, h3: 0.5, h4: 42, h5: 7, h6: 99.999 };
  for (const [user, amount] of Object.entries(grants)) {
    ok(await call('PUT', `/holder/${user}`, { key: M.secretKey }), 201);
    ok(await call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { amount, sendToId: user } }));
  }
  const expected = Object.entries(grants).sort((a, b) => b[1] - a[1]);
  const full = ok(await call('GET', `/token/${t.address}`, { key: M.publicKey }));
  assert.deepEqual(full.holders.map((h) => [h.id, h.balance]), expected);
  assert.equal(full.holdersCount, 6);
  for (const h of full.holders) assert.equal(h.value, 0); // no price yet
  assertTokenAddressesChecksummed(full);
  const top2 = ok(await call('GET', `/token/${t.address}?holdersLimit=2&publicKey=${M.publicKey}`));
  assert.deepEqual(top2.holders.map((h) => h.id), ['h2', 'h6']);
  assert.equal(top2.holdersCount, 6);
  assert.equal(ok(await call('GET', `/token/${t.address}?holdersLimit=1`, { key: M.secretKey })).holders.length, 1);
  assert.equal(ok(await call('GET', `/token/${t.address}?holdersLimit=1000`, { key: M.secretKey })).holders.length, 6);
  for (const bad of ['0', '1001', 'abc', '-1', '1.5', '', '1e2', '99999999999']) {
    const e = fails(await call('GET', `/token/${t.address}?holdersLimit=${bad}`, { key: M.publicKey }), 400, 'invalid_request');
    assert.equal(e.details?.field, 'holdersLimit');
  }
});

test('holdersCount follows every balance to zero and back, a refused spend moves nothing, equal balances page in address order', async () => {
  const t = await newToken(M, { name: 'Count', symbol: 'CNT', totalSupply: 10_000 });
  const users = ['cnt1', 'cnt2', 'cnt3', 'cnt4'];
  const address = {};
  for (const u of users) {
    address[u] = ok(await call('PUT', `/holder/${u}`, { key: M.secretKey }), 201).address.toLowerCase();
    ok(await call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { amount: 5, sendToId: u } }));
  }
  const read = async (query = '') => ok(await call('GET', `/token/${t.address}?publicKey=${M.publicKey}${query}`));
  const byAddress = users.map((u) => address[u]).sort();
  let r = await read();
  assert.equal(r.holdersCount, 4);
  assert.deepEqual(r.holders.map((h) => h.address.toLowerCase()), byAddress, 'equal balances: address order');
  r = await read('&holdersLimit=2');
  assert.deepEqual(r.holders.map((h) => h.address.toLowerCase()), byAddress.slice(0, 2));
  assert.equal(r.holdersCount, 4);

  const spend = (amount) => call('POST', '/holder/cnt1/spend', { key: M.secretKey, body: { tokenAddress: t.address, amount } });
  fails(await spend(6), 422, 'insufficient_balance');
  assert.equal((await read()).holdersCount, 4, 'a refused spend leaves the count');
  ok(await spend(5));
  r = await read();
  assert.equal(r.holdersCount, 3, 'a holder at zero is no longer counted');
  assert.ok(!r.holders.some((h) => h.address.toLowerCase() === address.cnt1));
  fails(await spend(0.5), 422, 'insufficient_balance');
  assert.equal((await read()).holdersCount, 3);
  ok(await call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { amount: 1, sendToId: 'cnt1' } }));
  r = await read();
  assert.equal(r.holdersCount, 4, 'and counted again once it holds some');
  assert.equal(r.holders.length, 4);
});

test('addresses: EIP-55 in responses, any case accepted in requests', async () => {
  const t = await newToken(M, { name: 'Case', symbol: 'CASE', totalSupply: 1000 });
  const holder = ok(await call('PUT', '/holder/case-user', { key: M.secretKey }), 201);
  assertChecksummed(holder.address, 'holder.address');
  const lower = t.address.toLowerCase();
  const upper = '0x' + t.address.slice(2).toUpperCase();
  for (const a of [lower, upper]) {
    assert.equal(ok(await call('GET', `/token/${a}`, { key: M.publicKey })).address, t.address);
  }
  ok(await call('POST', `/token/${lower}/distribute`, {
    key: M.secretKey, body: { amount: 3, sendToAddress: holder.address.toLowerCase() },
  }));
  ok(await call('POST', `/token/${upper}/distribute`, {
    key: M.secretKey, body: { amount: 4, sendToAddress: '0x' + holder.address.slice(2).toUpperCase() },
  }));
  const bal = ok(await call('GET', `/holder/${holder.address.toLowerCase()}/token/${lower}`, { key: M.publicKey }));
  assert.equal(bal.balance, 7);
  assertChecksummed(bal.address, 'balance.address');
  assert.equal(bal.address, t.address);
  const read = ok(await call('GET', `/token/${lower}`, { key: M.publicKey }));
  assert.deepEqual(read.holders.map((h) => [h.id, h.address, h.balance]), [['case-user', holder.address, 7]]);
  assertTokenAddressesChecksummed(read);
  const job = await submit(M, { name: 'Job', symbol: 'JOB' });
  if (job.tokenAddress) assertChecksummed(job.tokenAddress, 'job.tokenAddress');
});

test('GET /token on the USDC address answers a Token that matches openapi.json',
  async () => {
    const r = await call('GET', `/token/${USDC}`, { key: M.publicKey });
    assert.equal(r.status, 200);
  });

test('no response in this file had a status >= 500', () => {
  assert.ok(seen.length > 100, `only ${seen.length} responses seen`);
  assert.deepEqual(seen.filter((s) => s.status >= 500), []);
});
