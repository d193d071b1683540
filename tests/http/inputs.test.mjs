// Issue #36's input rules, against the real worker: a secret key in a URL in any letter case is
// refused and never echoed; the webhook URL filter refuses every IPv6 form of a private,
// loopback, link-local or site-local address; a token's imageUrl is a real http(s) URL in URL
// characters; a userId refuses whitespace only, control, format (bidi, zero-width) and
// noncharacter code points. Issue #43's: free text (names, descriptions, links, webhook
// descriptions) refuses what does not render as itself, and amount strings take only their
// documented form. Each is a 400 with its stable code, checked against openapi.json.
// Its own worker, with private webhook URLs refused as a deployed service refuses them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startWorker } from './harness.mjs';
import { checkedClient, createPresale } from './check.mjs';

let w;
const { call, ok, fails, newMerchant, newToken } = checkedClient(() => w);
let A;
let token;

before(async () => {
  w = await startWorker({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: 'false' } });
  A = await newMerchant('Inputs');
  token = await newToken(A, { totalSupply: 1000 });
});
after(async () => {
  await w?.stop();
});

test('a secret key in a URL is recognised in any letter case, refused, and never echoed', async () => {
  const sk = A.secretKey;
  const secret = sk.slice(3).toLowerCase();
  const variants = [
    sk.toUpperCase(), // SK_<HEX>_<HEX>: the whole secret still, hex being case-insensitive
    `Sk_${sk.slice(3)}`,
    `sK_${sk.slice(3).toUpperCase()}`,
  ];
  for (const key of variants) {
    const encoded = [...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    for (const [method, path] of [
      ['GET', `/holder/${key}`],
      ['GET', `/no/such/route/${key}`], // would be a 404 naming the path
      ['DELETE', `/holder/${key}`], // would be a 405 naming the path
      ['GET', `/holder/${encoded}`],
      ['GET', `/merchant/all-tokens?note=${key}`],
      ['GET', `/merchant/all-tokens?${key}=1`],
      ['GET', `/token/${token.address}?publicKey=${A.publicKey}&k=${encodeURIComponent(key)}`],
      ['POST', `/holder/${key}/spend`],
    ]) {
      const r = await call(method, path, { key: sk, body: method === 'POST' ? {} : undefined });
      fails(r, 400, 'secret_key_in_url');
      assert.ok(!r.text.toLowerCase().includes(secret), `${method} ${path} echoed the key: ${r.text}`);
      for (const [, v] of r.headers) assert.ok(!v.toLowerCase().includes(secret), `${method} ${path}: a header carries the key`);
    }
  }
  // A query value that starts like a key in another case is refused as sk_ is.
  fails(await call('GET', '/merchant/all-tokens?note=SK_typo', { key: sk }), 400, 'secret_key_in_url');
  assert.ok(!w.logs().toLowerCase().includes(secret), 'the key is in the worker log');
  // No error repeats the path it was sent (404 and 405 included).
  const nf = fails(await call('GET', '/no/such/route/echo-me', { key: sk }), 404, 'not_found');
  assert.ok(!JSON.stringify(nf).includes('echo-me'), JSON.stringify(nf));
  const na = fails(await call('DELETE', '/holder/echo-me', { key: sk }), 405, 'method_not_allowed');
  assert.ok(!JSON.stringify(na).includes('echo-me'), JSON.stringify(na));
});

test('the webhook URL filter refuses every IPv6 form of a private address: 400 url_not_allowed', async () => {
  const refused = [
    'http://[::ffff:0:7f00:1]/hook', // SIIT: 127.0.0.1
    'http://[::ffff:127.0.0.1]/hook', // mapped
    'http://[::7f00:1]/hook', // IPv4-compatible
    'http://[64:ff9b::7f00:1]/hook', // NAT64, well-known prefix
    'http://[64:ff9b:1::7f00:1]/hook', // NAT64, local-use prefix
    'http://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
    'http://[2002:c0a8:101::1]/hook', // 6to4 of 192.168.1.1
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', // Teredo, client 127.0.0.1
    'http://[fec0::1]/hook', // site-local
    'http://[fe80::1]/hook', // link-local
    'http://[fd12:3456::1]/hook', // unique-local
    'http://[::1]/hook',
  ];
  for (const url of refused) {
    const r = await call('POST', '/merchant/webhooks', { key: A.secretKey, body: { url, events: ['*'] } });
    const body = fails(r, 400, 'url_not_allowed');
    assert.equal(body.details.field, 'url', url);
  }
  // Nothing was created; public IPv6 addresses, 6to4 and Teredo of public addresses pass.
  assert.equal(ok(await call('GET', '/merchant/webhooks', { key: A.secretKey })).length, 0);
  for (const url of ['https://[2606:4700::1111]/hook', 'https://[2002:808:808::1]/hook']) {
    ok(await call('POST', '/merchant/webhooks', { key: A.secretKey, body: { url, events: ['*'] } }), 201);
  }
});

test('a webhook URL with a non-ASCII host is refused, asking for its xn-- form, which is accepted: 400 invalid_request', async () => {
  // The Worker carries no Unicode tables to map an internationalized name (idna_adapter 1.0).
  for (const url of ['https://bücher.example/hook', 'https://例え.jp/hook', 'https://ｌｏｃａｌｈｏｓｔ/hook']) {
    const body = fails(await call('POST', '/merchant/webhooks', { key: A.secretKey, body: { url, events: ['*'] } }), 400, 'invalid_request');
    assert.match(body.message, /xn--/, url);
    assert.equal(body.details.field, 'url', url);
  }
  const hook = ok(await call('POST', '/merchant/webhooks', { key: A.secretKey, body: { url: 'https://xn--bcher-kva.example/hook', events: ['*'] } }), 201);
  assert.equal(hook.url, 'https://xn--bcher-kva.example/hook');
});

test('imageUrl must be a real http(s) URL in URL characters, at most 2048 bytes: 400 invalid_image_url', async () => {
  const bad = [
    'https://example.com/a\u0000b.png',
    'https://example.com/a\u0007.png',
    'https://example.com/"onerror="alert(1).png',
    'https://example.com/<script>.png',
    "https://example.com/it's.png",
    'https://example.com/a b.png',
    'https://example.com/\u202egnp.exe',
    'javascript:alert(1)',
    'ftp://example.com/x.png',
    'https:///x.png',
    'https://user:pw@example.com/x.png',
    `https://example.com/${'x'.repeat(2048)}`,
  ];
  for (const imageUrl of bad) {
    const r = await call('POST', '/merchant/create-token', { key: A.secretKey, body: { name: 'Img', symbol: 'IMG', imageUrl } });
    const body = fails(r, 400, 'invalid_image_url');
    assert.equal(body.details.field, 'imageUrl', JSON.stringify(imageUrl));
    const p = await call('POST', '/merchant/presale', {
      key: A.secretKey,
      body: { name: 'P', description: 'P', startTimestamp: 1, endTimestamp: 4102444800, targetUsdcAmount: 100, tokenInfo: { name: 'P', symbol: 'P', imageUrl } },
    });
    assert.equal(fails(p, 400, 'invalid_image_url').details.field, 'tokenInfo.imageUrl');
  }
  // A real one is kept exactly as sent.
  const imageUrl = 'https://cdn.example.com/img/moon%20full.png?v=2';
  const made = await newToken(A, { imageUrl });
  assert.equal(made.imageUrl, imageUrl);
});

test('userIds refuse whitespace only, control, format, separator and noncharacter code points: 400 invalid_user_id', async () => {
  const bad = [
    ' ', '\t', '\u3000', '\u00a0 ', // whitespace only
    'a\u202eb', 'x\u2066y', // bidi override, isolate
    'ali\u200bce', '\u200d', '\ufeffalice', // zero-width space, joiner, BOM
    'a\ufdd0', 'b\uffff', 'c\u{10fffe}', // noncharacters
    'a\u2028b', // line separator
    'a\u0085b', // a C1 control
  ];
  for (const id of bad) {
    const path = `/holder/${encodeURIComponent(id)}`;
    fails(await call('PUT', path, { key: A.secretKey }), 400, 'invalid_user_id');
    fails(await call('GET', path, { key: A.publicKey }), 400, 'invalid_user_id');
    const body = fails(await call('POST', `/token/${token.address}/distribute`, { key: A.secretKey, body: { amount: 1, sendToId: id } }), 400, 'invalid_user_id');
    assert.equal(body.details.field, 'sendToId');
  }
  // A surrogate cannot be sent at all: its UTF-8 encoding is invalid (percent-decoding refuses it).
  fails(await call('PUT', '/holder/a%ED%A0%80', { key: A.secretKey }), 400, 'invalid_user_id');
  // Spaces inside, and any printable script, are fine.
  for (const id of [' alice ', 'ユーザー', 'user 1', 'رضا']) {
    ok(await call('PUT', `/holder/${encodeURIComponent(id)}`, { key: A.secretKey }), 201);
  }
});

// What the hostile run of issue #43 sent as names (all 30 forms were accepted then): control
// characters and ANSI escapes, bidi overrides and isolates, zero-width and other invisible
// (default-ignorable) characters, noncharacters and separators.
const UNSHOWABLE = [
  'a\u0000b', '\u0000', 'red\u001b[31mtext', '\u001b]8;;https://evil.example\u0007link', 'bell\u0007', 'del\u007f',
  'a\u0085b', 'tab\tname',
  'a\u202eb', 'a\u202ab', 'x\u2066y', 'x\u2067y', 'x\u2068y', 'name\u2069', '\u200eltr', '\u200frtl', '\u061carabic',
  'ali\u200bce', 'a\u200cb', 'a\u200db', '\ufeffname', 'a\u2060b', 'soft\u00adhyphen', 'a\u180eb',
  'a\u034fb', 'a\u3164b', 'a\uffa0b', 'a\ufe00', '\ufe0fa', 'a \ufe0f', 'tag\u{e0041}', 'a\ufdd0', 'a\u{10ffff}',
  'a\u2028b', 'a\u2029b', 'cr\ronly',
];
// Text that looks blank: only whitespace or invisible characters.
const BLANK = [' ', '   ', '\u3000', '\u00a0', '\u2800', '\u3164', '\u200b', ' \u200b ', '\u115f\u1160', '\u2800 \u2800', '\n\n'];
// Line breaks: refused in one-line text, allowed in descriptions.
const LINE_BREAKS = ['line\nbreak', 'crlf\r\nbreak'];

test('free text refuses control, bidi, zero-width, invisible and blank-looking text: 400 invalid_text, for every field', async () => {
  const key = A.secretKey;
  const hook = ok(await call('POST', '/merchant/webhooks', { key, body: { url: 'https://hooks.example.com/t', events: ['*'], description: 'Ours' } }), 201);
  const presale = (over, info = {}) => call('POST', '/merchant/presale', {
    key,
    body: {
      name: 'P', description: 'P', startTimestamp: 1, endTimestamp: 4102444800, targetUsdcAmount: 100,
      tokenInfo: { name: 'P', symbol: 'P', imageUrl: 'https://img.example/p.png', ...info }, ...over,
    },
  });
  const token = (name) => ({ name, symbol: 'M', totalSupply: 1000, initialPrice: '0.01', network: 'base', marketplace: false });
  // [what, details.field, may span lines, the request with the text in that field]
  const fields = [
    ['token name', 'name', false, (v) => call('POST', '/merchant/create-token', { key, body: { name: v, symbol: 'TXT' } })],
    ['memecoin name', 'name', false, (v) => call('POST', '/template/memecoin', { key, body: token(v) })],
    ['airdrop name', 'name', false, (v) => call('POST', '/template/airdrop', {
      key, body: { ...token(v), airdrop: { addresses: ['0x000000000000000000000000000000000000dEaD'], supply: 1 } },
    })],
    ['presale name', 'name', false, (v) => presale({ name: v })],
    ['presale description', 'description', true, (v) => presale({ description: v })],
    ['presale token name', 'tokenInfo.name', false, (v) => presale({}, { name: v })],
    ['presale token description', 'tokenInfo.metadata.description', true, (v) => presale({}, { metadata: { description: v } })],
    ['presale token link', 'tokenInfo.metadata.websiteLink', false, (v) => presale({}, { metadata: { websiteLink: v } })],
    ['merchant name', 'name', false, (v) => call('POST', '/admin/merchants', { adminKey: w.adminKey, body: { name: v } })],
    ['webhook description', 'description', false, (v) => call('POST', '/merchant/webhooks', {
      key, body: { url: 'https://hooks.example.com/t', events: ['*'], description: v },
    })],
    ['webhook description, changed', 'description', false, (v) => call('PATCH', `/merchant/webhooks/${hook.id}`, { key, body: { description: v } })],
  ];
  for (const [what, field, lines, send] of fields) {
    // Every form for token names (the hostile run's field), a sample of each kind elsewhere:
    // the rule is one type's, shared by every field.
    const forms = what === 'token name'
      ? [...UNSHOWABLE, ...BLANK]
      : ['a\u0000b', 'red\u001b[31mtext', 'a\u202eb', 'x\u2066y', 'ali\u200bce', '\ufeffname', 'a\u3164b', 'a\ufdd0', 'cr\ronly', ' ', '\u2800', '\u200b'];
    for (const v of [...forms, ...(lines ? [] : LINE_BREAKS)]) {
      const e = fails(await send(v), 400, 'invalid_text');
      assert.equal(e.details.field, field, `${what} ${JSON.stringify(v)}`);
      assert.match(e.message, new RegExp(`^${field.replace(/\./g, '\\.')} must `), e.message);
      // The text itself is never repeated, only the code point refused.
      if (v.length > 1) assert.ok(!e.message.includes(v), e.message);
    }
  }
  // Nothing was made or changed by any of them.
  const hooks = ok(await call('GET', '/merchant/webhooks', { key }));
  assert.equal(hooks.filter((h) => h.id === hook.id)[0].description, 'Ours');
  assert.ok(!ok(await call('GET', '/merchant/all-tokens', { key })).some((t) => t.symbol === 'TXT'));
  // Empty and too long are the field's size, as before: 400 invalid_request.
  fails(await call('POST', '/merchant/create-token', { key, body: { name: '', symbol: 'TXT' } }), 400, 'invalid_request');
  fails(await call('POST', '/merchant/create-token', { key, body: { name: 'x'.repeat(65), symbol: 'TXT' } }), 400, 'invalid_request');
});

test('free text in any script, with emoji, and descriptions over several lines, is kept exactly as sent', async () => {
  for (const name of ['Moon \u2764\ufe0f', 'Crème brûlée ☕', 'ユーザー', 'رضا', '1\ufe0f\u20e3 One', ' padded ', 'dots\u2800between']) {
    const made = await newToken(A, { name, symbol: 'OK' });
    assert.equal(made.name, name);
  }
  const description = 'Line one\nline two\r\n\nthree \u2764\ufe0f';
  const p = await createPresale(w, A, { description, tokenInfo: {
    name: 'Lines', symbol: 'LN', imageUrl: 'https://img.example/p.png', metadata: { description },
  } });
  assert.equal(p.description, description);
  const read = ok(await call('GET', `/merchant/presale/${p.id}`, { key: A.secretKey }));
  assert.equal(read.description, description);
  const hook = ok(await call('POST', '/merchant/webhooks', { key: A.secretKey, body: { url: 'https://hooks.example.com/ok', events: ['*'], description: 'Orders \u2192 shop' } }), 201);
  assert.equal(hook.description, 'Orders \u2192 shop');
});

test('amount strings take only their documented form (digits, an optional fraction): 400 invalid_amount, nothing moves', async () => {
  const key = A.secretKey;
  ok(await call('PUT', '/holder/amounts', { key }), 201);
  const balance = async () => ok(await call('GET', `/holder/amounts/token/${token.address}`, { key })).balance;
  const distribute = (amount) => call('POST', `/token/${token.address}/distribute`, { key, body: { amount, sendToId: 'amounts' } });
  assert.equal(await balance(), 0);
  for (const amount of ['1e2', '1E2', '1e-2', '1.5e1', '+1', '-1', ' 1', '1 ', '.5', '5.', '1,5', '1_000', '0x10', 'Infinity', 'NaN', '',
    '\uff11', '1\u00a0', '100000000000000000000', '1.0000000000000000001']) {
    const e = fails(await distribute(amount), 400, 'invalid_amount');
    assert.equal(e.details.field, 'amount', JSON.stringify(amount));
  }
  // USDC strings have USDC's 6 decimals at most; a presale target's too.
  fails(await call('POST', '/holder/amounts/buy-presale', { key, body: { presaleId: 'x', usdcAmount: '1e1' } }), 400, 'invalid_amount');
  fails(await call('POST', '/holder/amounts/buy-presale', { key, body: { presaleId: 'x', usdcAmount: '1.0000001' } }), 400, 'invalid_amount');
  fails(await call('POST', '/merchant/create-token', { key, body: { name: 'E', symbol: 'E', totalSupply: '1e3' } }), 400, 'invalid_amount');
  assert.equal(await balance(), 0, 'nothing moved');
  // The documented forms: a decimal string, or a JSON number in any form JSON writes it.
  ok(await distribute('2'));
  ok(await distribute('0.000000000000000001'));
  ok(await call('POST', `/token/${token.address}/distribute`, {
    key, rawBody: '{"amount":1e1,"sendToId":"amounts"}', headers: { 'content-type': 'application/json' },
  }));
  const exact = await call('GET', `/holder/amounts/token/${token.address}`, { key });
  assert.match(exact.text, /"balance":12\.000000000000000001\b/);
});
