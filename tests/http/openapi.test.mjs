// Checks openapi.json itself (node --test tests/http/openapi.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import {
  doc, routes, METHODS, assertMatches, assertRequestMatches, resolveLocalRef, validatorAt, pointer,
} from './openapi.mjs';
import { VERSION } from './release.mjs';

// Every route the wire families declare (crates/core/src/wire/<family>.rs, `ROUTES`), as
// generated into src/js/generated/routes.json (`UPDATE_CODEGEN=1 cargo test -p tokenpad-core
// --lib codegen`), with OPTIONS on each route browsers call.
const DECLARED = JSON.parse(readFileSync(new URL('../../src/js/generated/routes.json', import.meta.url), 'utf8'));
const WIRE_ROUTES = [...new Set(DECLARED.flatMap((r) => [
  `${r.method} ${r.path}`, ...(r.preflight ? [`OPTIONS ${r.path}`] : []),
]))];

const ERROR_CODES = {
  400: ['invalid_json', 'invalid_request', 'invalid_amount', 'invalid_address', 'invalid_user_id', 'invalid_network',
    'network_unavailable', 'invalid_idempotency_key', 'invalid_cursor', 'secret_key_in_url', 'invalid_image_url', 'invalid_text', 'self_transfer', 'invalid_destination', 'allocation_exceeds_supply',
    'url_not_allowed', 'weak_password', 'invalid_link'],
  401: ['public_key_not_found', 'missing_api_key', 'invalid_api_key', 'invalid_admin_key',
    'invalid_session_token', 'session_expired', 'session_revoked', 'invalid_credentials', 'not_logged_in'],
  403: ['secret_key_required', 'reward_allocation_disabled', 'liquidity_disabled',
    'session_token_required', 'session_holder_mismatch', 'insufficient_scope', 'session_limit_exceeded',
    'forbidden_role', 'cross_origin_request', 'invite_for_another_email', 'email_not_verified'],
  404: ['not_found', 'token_not_found', 'holder_not_found', 'job_not_found', 'merchant_not_found', 'deployment_not_found', 'presale_not_found',
    'event_not_found', 'webhook_not_found', 'delivery_not_found', 'key_not_found'],
  405: ['method_not_allowed'],
  409: ['idempotency_key_reused', 'presale_not_active', 'presale_already_resolved', 'no_liquidity', 'pool_exists',
    'pool_pending', 'key_revoked', 'last_live_key', 'key_already_shown'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  429: ['rate_limited', 'too_many_attempts'],
  422: ['insufficient_balance', 'tokens_locked', 'insufficient_app_supply', 'target_exceeded', 'launch_threshold_not_reached',
    'slippage_exceeded', 'insufficient_liquidity', 'webhook_limit_reached', 'key_limit_reached'],
  500: ['internal_error'],
  503: ['misconfigured', 'unavailable'],
};

const ADDR = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const ADDR2 = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const HASH = '0x' + 'ab'.repeat(32);

const token = () => ({
  id: ADDR, address: ADDR, name: 'Demo', symbol: 'DEMO', decimals: 18, network: 'base',
  totalSupply: 1000000000, startingAppSupply: 150000000, remainingAppSupply: 149999999.9,
  merchantSupply: 50000000, liquiditySupply: 800000000, merchantAddress: ADDR2, price: null,
  canDistribute: true, canAirdrop: false, canLP: false, imageUrl: null,
  createdAt: '2026-11-21T12:00:00.000Z',
  holders: [{ id: 'user-1', address: ADDR2, balance: 0.1, value: 0 }], holdersCount: 1,
});
const error = (code = 'token_not_found') => ({ success: false, message: 'Token not found', code });

function* allOperations() {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const m of METHODS) if (item[m]) yield [m, path, item[m]];
  }
}

test('document is OpenAPI 3.1 with the expected info and security schemes', () => {
  assert.match(doc.openapi, /^3\.1\.\d+$/);
  assert.equal(doc.info.title, 'tokenpad');
  assert.equal(doc.info.version, VERSION, 'info.version is the workspace version (Cargo.toml)');
  const s = doc.components.securitySchemes;
  assert.deepEqual(s.secretKey, { ...s.secretKey, type: 'apiKey', in: 'header', name: 'x-api-key' });
  assert.deepEqual(s.publicKeyQuery, { ...s.publicKeyQuery, type: 'apiKey', in: 'query', name: 'publicKey' });
  assert.deepEqual(s.publicKeyHeader, { ...s.publicKeyHeader, type: 'apiKey', in: 'header', name: 'x-api-key' });
  assert.deepEqual(s.adminKey, { ...s.adminKey, type: 'apiKey', in: 'header', name: 'x-admin-key' });
});

test('one version names the release: Cargo.toml\'s workspace, every crate, openapi.json, the npm package', () => {
  assert.match(VERSION ?? '', /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'Cargo.toml [workspace.package] version');
  for (const c of ['Cargo.toml', 'crates/core/Cargo.toml', 'crates/worker/Cargo.toml', 'crates/evm/Cargo.toml', 'crates/sim/Cargo.toml']) {
    const pkg = readFileSync(new URL(`../../${c}`, import.meta.url), 'utf8').split(/^\[/m).find((s) => s.startsWith('package]'));
    assert.match(pkg, /^version\.workspace = true$/m, `${c} takes the workspace version`);
  }
  assert.equal(doc.info.version, VERSION);
  // The package as scripts/build-pkg.sh last built it (pkg/ is not committed).
  const built = new URL('../../pkg/package.json', import.meta.url);
  if (existsSync(built)) assert.equal(JSON.parse(readFileSync(built, 'utf8')).version, VERSION, 'pkg/package.json (rebuild it: scripts/build-pkg.sh)');
  // The changelog's latest release is this one.
  const changelog = readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
  assert.equal(changelog.match(/^## \[(\d[^\]]*)\]/m)?.[1], VERSION, 'CHANGELOG.md\'s latest release section');
});

test('every declared route is documented, and nothing else', () => {
  const documented = routes().map((r) => `${r.method} ${r.path}`).sort();
  assert.deepEqual(documented, [...WIRE_ROUTES].sort());
});

test('every operation has a unique operationId, a summary and a 2xx response', () => {
  const ids = new Set();
  for (const [m, path, op] of allOperations()) {
    const where = `${m.toUpperCase()} ${path}`;
    assert.ok(op.operationId, `${where}: operationId`);
    assert.ok(!ids.has(op.operationId), `${where}: duplicate operationId ${op.operationId}`);
    ids.add(op.operationId);
    assert.ok(op.summary, `${where}: summary`);
    // A success is a 2xx, or 101 for the WebSocket upgrade (GET /live).
    assert.ok(Object.keys(op.responses).some((k) => /^2\d\d$/.test(k) || (k === '101' && path === '/live')), `${where}: 2xx response`);
    assert.ok(Array.isArray(op.security), `${where}: explicit security`);
  }
});

test('every path parameter is declared', () => {
  for (const [m, path, op] of allOperations()) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]).sort();
    const params = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])]
      .map((p) => (p.$ref ? resolveLocalRef(p.$ref)[0] : p))
      .filter((p) => p.in === 'path')
      .map((p) => p.name)
      .sort();
    assert.deepEqual(params, names, `${m.toUpperCase()} ${path}`);
  }
});

test('every $ref resolves', () => {
  const refs = [];
  (function walk(node, where) {
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${where}/${i}`));
    else if (node && typeof node === 'object') {
      if (typeof node.$ref === 'string') refs.push([node.$ref, where]);
      for (const [k, v] of Object.entries(node)) walk(v, `${where}/${k}`);
    }
  })(doc, '#');
  assert.ok(refs.length > 50);
  for (const [ref, where] of refs) {
    assert.ok(resolveLocalRef(ref)[0] !== undefined, `unresolved ${ref} at ${where}`);
  }
});

test('every response and request schema compiles', () => {
  for (const [m, path, op] of allOperations()) {
    for (const [status, r] of Object.entries(op.responses)) {
      const resp = r.$ref ? resolveLocalRef(r.$ref)[0] : r;
      for (const mt of Object.keys(resp.content ?? {})) {
        const segs = r.$ref ? resolveLocalRef(r.$ref)[1] : ['paths', path, m, 'responses', status];
        assert.equal(typeof validatorAt(pointer(...segs, 'content', mt, 'schema')), 'function');
      }
    }
    for (const mt of Object.keys(op.requestBody?.content ?? {})) {
      assert.equal(typeof validatorAt(pointer('paths', path, m, 'requestBody', 'content', mt, 'schema')), 'function');
    }
  }
});

test('every example (generated from the wire types) validates against its operation\'s schema, and no schema admits anything undocumented in it', () => {
  let n = 0;
  const example = (media) => media?.examples?.example?.$ref && resolveLocalRef(media.examples.example.$ref)[0].value;
  // Every property of an example object is one its schema names (for anyOf / oneOf, one of
  // the alternatives): the document says all it answers. Returns what is not.
  const undocumented = (value, schema, where) => {
    if (schema?.$ref) return undocumented(value, resolveLocalRef(schema.$ref)[0], where);
    if (Array.isArray(value)) return value.flatMap((v, i) => undocumented(v, schema?.items, `${where}[${i}]`));
    if (value === null || typeof value !== 'object' || !schema) return [];
    for (const k of ['anyOf', 'oneOf']) {
      if (!schema[k]) continue;
      const tries = schema[k].map((s) => undocumented(value, { ...schema, [k]: undefined, ...(s.$ref ? resolveLocalRef(s.$ref)[0] : s) }, where));
      if (!tries.some((t) => t.length === 0)) return tries.flat();
    }
    const props = { ...schema.properties };
    for (const s of schema.allOf ?? []) Object.assign(props, (s.$ref ? resolveLocalRef(s.$ref)[0] : s).properties);
    if (!Object.keys(props).length) {
      return schema.additionalProperties ? Object.entries(value).flatMap(([k, v]) => undocumented(v, schema.additionalProperties, `${where}.${k}`)) : [];
    }
    return Object.entries(value).flatMap(([k, v]) => (k in props ? undocumented(v, props[k], `${where}.${k}`) : [`${where}.${k}`]));
  };
  const documented = (value, schema, where) => {
    const missing = undocumented(value, schema, where);
    assert.deepEqual(missing, [], `not in their schema: ${missing.join(', ')}`);
  };
  for (const [m, path, op] of allOperations()) {
    const body = op.requestBody?.content?.['application/json'];
    if (body) {
      const v = example(body);
      assert.ok(v !== undefined, `${op.operationId}: no request example`);
      const validate = validatorAt(pointer('paths', path, m, 'requestBody', 'content', 'application/json', 'schema'));
      assert.ok(validate(v), `${op.operationId} request example: ${JSON.stringify(validate.errors)}`);
      documented(v, body.schema, `${op.operationId}.request`);
      n++;
    }
    for (const [status, r] of Object.entries(op.responses)) {
      if (!status.startsWith('2') || r.$ref) continue;
      const json = r.content?.['application/json'];
      if (!json) continue;
      const v = example(json);
      assert.ok(v !== undefined, `${op.operationId} ${status}: no example`);
      assertMatches(m.toUpperCase(), path, Number(status), v);
      documented(v, json.schema, `${op.operationId}.${status}`);
      n++;
    }
  }
  assert.ok(n >= 85, `${n} examples checked`);
});

test('Error.code lists exactly the codes of wire-decisions.md; shared error responses use the Error schema', () => {
  assert.deepEqual([...doc.components.schemas.Error.properties.code.enum].sort(), Object.values(ERROR_CODES).flat().sort());
  for (const [status, codes] of Object.entries(ERROR_CODES)) {
    // 405 is never an operation's response: it answers a documented path with another method.
    const found = status === '405' ? ['delete', '/health']
      : [...allOperations()].find(([, , op]) => op.responses[status]?.$ref);
    assert.ok(found, `some operation documents ${status}`);
    for (const code of codes) assertMatches(found[0], found[1], Number(status), error(code));
  }
  for (const [, , op] of allOperations()) {
    for (const [status, r] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue;
      // /health answers its own shape when the service is unhealthy, not an error.
      if (op.operationId === 'getHealth' && status === '503') continue;
      const [resp] = resolveLocalRef(r.$ref);
      assert.ok(resp, `error responses are shared components (${op.operationId} ${status})`);
      if (resp.content['text/html']) {
        // The keyless deployment page answers HTML, its errors included.
        assert.equal(op.operationId, 'getDeploymentPage');
        assert.deepEqual(Object.keys(resp.content), ['text/html']);
        continue;
      }
      const schema = resp.content['application/json'].schema;
      assert.deepEqual(schema.allOf, [{ $ref: '#/components/schemas/Error' }]);
      assert.deepEqual([...schema.properties.code.enum].sort(), [...ERROR_CODES[status]].sort());
    }
  }
});

test('every error of the deployment page and every 503 and 429 are documented', () => {
  const page = doc.paths['/deployments/{id}'].get.responses;
  assert.deepEqual(Object.keys(page).sort(), ['200', '400', '404', '500', '503']);
  for (const status of ['404', '500', '503']) assert.ok(resolveLocalRef(page[status].$ref)[0].content['text/html'], status);
  for (const [m, path, op] of allOperations()) {
    if (m === 'options' || ['/health', '/openapi.json'].includes(path)) continue;
    assert.ok(op.responses['503'], `${m} ${path} documents 503`);
    const [resp] = resolveLocalRef(op.responses['503'].$ref);
    assert.ok(resp.headers['Retry-After'], `${m} ${path}: 503 documents Retry-After`);
  }
  assertMatches('POST', '/holder/{userId}/spend', 503, { success: false, message: 'Retry', code: 'unavailable', details: { retryAfterSeconds: 1 } });
  assert.throws(() => assertMatches('POST', '/holder/{userId}/spend', 503, error('internal_error')), /503/);
});

test('secret-key POST/PUT/PATCH document Idempotency-Key (its alias x-idempotency-key in its description) and Idempotent-Replayed', () => {
  for (const [m, path, op] of allOperations()) {
    const secret = op.security.some((s) => 'secretKey' in s) && !op.security.some((s) => 'publicKeyQuery' in s);
    if (!secret || !['post', 'put', 'patch'].includes(m)) continue;
    const headers = (op.parameters ?? []).map((p) => (p.$ref ? resolveLocalRef(p.$ref)[0] : p))
      .filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()).sort();
    // One header: documenting the alias as a second parameter let clients send two keys that
    // differ, which the service refuses (tests/http/idempotency.test.mjs tests the alias).
    assert.deepEqual(headers, ['idempotency-key'], `${m} ${path}`);
    for (const [status, r] of Object.entries(op.responses)) {
      if (/^2/.test(status)) assert.ok(r.headers?.['Idempotent-Replayed'], `${m} ${path} ${status}`);
    }
  }
});

test('a valid Token and a valid Error pass', () => {
  assertMatches('GET', '/token/{tokenAddress}', 200, token());
  assertMatches('GET', '/token/{tokenAddress}', 404, error());
  assertMatches('GET', `/token/${ADDR}`, 200, { ...token(), price: 0.25, imageUrl: 'https://x.test/a.png', extra: 'allowed' });
  assertMatches('GET', '/merchant/all-tokens', 200, [token()]);
  assertMatches('PATCH', '/merchant/token/{tokenAddress}', 200, token());
  assertMatches('GET', '/holder/{userId}', 401, { success: false, message: 'Public key not found', code: 'public_key_not_found' });
  assertMatches('POST', '/holder/{userId}/spend', 400, { ...error('invalid_request'), details: { field: 'amount' } });
});

test('a Token without address and an Error without code fail', () => {
  const { address, ...noAddress } = token();
  assert.ok(address);
  assert.throws(() => assertMatches('GET', '/token/{tokenAddress}', 200, noAddress),
    (e) => e instanceof assert.AssertionError && /GET \/token\/\{tokenAddress\} 200/.test(e.message) && /address/.test(e.message));
  const { code, ...noCode } = error();
  assert.ok(code);
  assert.throws(() => assertMatches('GET', '/token/{tokenAddress}', 404, noCode), /404 body does not match[\s\S]*code/);
  // a code of another status
  assert.throws(() => assertMatches('GET', '/token/{tokenAddress}', 404, error('invalid_amount')), /404/);
  // amounts are numbers in responses
  assert.throws(() => assertMatches('GET', '/token/{tokenAddress}', 200, { ...token(), totalSupply: '1000000000' }), /totalSupply/);
});

test('undocumented routes and statuses throw', () => {
  assert.throws(() => assertMatches('GET', '/no/such/route', 200, {}), /not documented/);
  assert.throws(() => assertMatches('DELETE', '/health', 200, {}), /not documented/);
  assert.throws(() => assertMatches('GET', '/health', 418, {}), /no response for status 418/);
  assert.throws(() => assertMatches('GET', '/holder/{userId}', 409, error('idempotency_key_reused')), /no response for status 409/);
  // A holder read's 403s are the session and private-mode codes.
  assertMatches('GET', '/holder/{userId}', 403, error('session_token_required'));
});

test('other documented shapes', () => {
  const build = { version: VERSION, commit: 'unknown' };
  assertMatches('GET', '/health', 200, { ok: true, ...build, chain: { kind: 'embedded' } });
  assertMatches('GET', '/health', 200, { ok: true, ...build, chain: { kind: 'evm', chainId: 84532 } });
  assertMatches('GET', '/health', 503, { ok: false, ...build, chain: { kind: 'evm' }, error: 'chain configuration: CHAIN=evm needs CHAIN_RPC_URL' });
  assert.throws(() => assertMatches('GET', '/health', 200, { ok: true, chain: { kind: 'embedded' } }), /version/);
  assertMatches('POST', '/admin/merchants', 201, {
    id: 'm_1', name: 'Demo', secretKey: 'sk_abc', publicKey: 'pk_abc', merchantAddress: ADDR,
  });
  assertMatches('POST', '/merchant/create-token', 201, { jobId: 'j1', status: 'pending' });
  assertMatches('GET', '/jobs/{jobId}', 200, { jobId: 'j1', status: 'pending' });
  assertMatches('GET', '/jobs/j1', 200, { jobId: 'j1', status: 'success', data: token() });
  assert.throws(() => assertMatches('GET', '/jobs/{jobId}', 200, { jobId: 'j1', status: 'success' }), /data/);
  assert.throws(() => assertMatches('GET', '/jobs/{jobId}', 200, { jobId: 'j1', status: 'failed' }), /error/);
  const holder = {
    success: true, id: 'user-1', address: ADDR2, totalValue: 10,
    tokens: [{ id: ADDR, address: ADDR, name: 'USD Coin', symbol: 'USDC', balance: 10, value: 10, price: 1, status: 'active', type: 'token' }],
    presales: [{ id: 'p', address: ADDR, name: 'P', symbol: 'P', balance: 5, value: 2, status: 'pending', type: 'presale',
      metadata: { presaleId: 'p1', progress: 40, endDate: '2026-12-01T00:00:00.000Z' } }],
    locks: [{ id: ADDR, address: ADDR, name: 'D', symbol: 'D', balance: 3, value: 0, price: null, status: 'locked', type: 'lock',
      unlockDate: '2026-12-08T00:00:00.000Z' }],
  };
  assertMatches('PUT', '/holder/{userId}', 201, holder);
  assertMatches('PUT', '/holder/user-1', 200, holder);
  assertMatches('GET', '/holder/user-1', 200, holder);
  assert.throws(() => assertMatches('GET', '/holder/{userId}', 200, { ...holder, locks: undefined }), /locks/);
  assertMatches('GET', `/holder/user-1/token/${ADDR}`, 200, { name: 'D', symbol: 'D', id: ADDR, address: ADDR, balance: 1, value: 0 });
  assertMatches('POST', '/token/{tokenAddress}/distribute', 200, { success: true, transactionHash: HASH, chainStatus: 'confirmed', blockNumber: 7 });
  // On an EVM chain the answer comes before the transaction exists: no hash yet, and it says so.
  assertMatches('POST', '/token/{tokenAddress}/distribute', 200, { success: true, transactionHash: null, chainStatus: 'pending' });
  assert.throws(() => assertMatches('POST', '/token/{tokenAddress}/distribute', 200, { success: true, transactionHash: null, chainStatus: 'sent' }));
  const ledger = { success: true, transactionHash: HASH, chainStatus: 'confirmed', blockNumber: 7, from: ADDR, to: ADDR2, amount: 1.5, tokenAddress: ADDR };
  for (const op of ['spend', 'transfer', 'withdraw']) assertMatches('POST', `/holder/{userId}/${op}`, 200, ledger);
  assertMatches('POST', '/holder/{userId}/distribute-nothing', 404, error('not_found'));
  assertMatches('GET', '/holder/{userId}/transactions', 200, {
    has_more: false, next_cursor: null,
    data: [{ id: 't1', transactionHash: HASH, chainStatus: 'confirmed', blockNumber: 3, type: 'distribute', context: 'Airdrop', tokenAddress: ADDR, symbol: 'D',
      amount: 1, from: ADDR, to: ADDR2, timestamp: '2026-11-21T12:00:00.000Z' },
    { id: 't2', transactionHash: null, chainStatus: 'pending', type: 'reversal', context: 'Transfer', tokenAddress: ADDR, symbol: 'D',
      amount: 1, from: ADDR, to: ADDR2, timestamp: '2026-11-21T12:00:00.000Z' }],
  });
  assert.throws(() => assertMatches('GET', '/holder/{userId}/transactions', 200, { has_more: false, data: [] }), /next_cursor/);
  assertMatches('POST', '/admin/time/advance', 200, { offsetSeconds: 60, now: '2026-11-21T12:01:00.000Z', nowUnix: 1795262460 });
  assertMatches('POST', '/admin/faucet', 200, { success: true, transactionHash: HASH, chainStatus: 'confirmed', blockNumber: 9, address: ADDR2, usdcAmount: 100 });
  assertMatches('OPTIONS', '/token/{tokenAddress}', 204, undefined);
  assert.throws(() => assertMatches('OPTIONS', '/token/{tokenAddress}', 204, { a: 1 }), /no body/);
});

test('request bodies: amounts as numbers or decimal strings; distribute takes exactly one recipient', () => {
  assertRequestMatches('POST', '/token/{tokenAddress}/distribute', { amount: 10, sendToAddress: ADDR });
  assertRequestMatches('POST', '/token/{tokenAddress}/distribute', { amount: '0.000000000000000001', sendToId: 'user-1' });
  assert.throws(() => assertRequestMatches('POST', '/token/{tokenAddress}/distribute', { amount: 1, sendToAddress: ADDR, sendToId: 'u' }));
  assert.throws(() => assertRequestMatches('POST', '/token/{tokenAddress}/distribute', { amount: 1 }));
  assert.throws(() => assertRequestMatches('POST', '/holder/{userId}/spend', { tokenAddress: ADDR, amount: '1e5' }));
  assert.throws(() => assertRequestMatches('POST', '/holder/{userId}/transfer', { tokenAddress: ADDR, amount: 1, toAddress: '0x12' }));
  assertRequestMatches('POST', '/holder/{userId}/withdraw', { tokenAddress: ADDR.toLowerCase(), amount: '12.5', toAddress: ADDR2 });
  assertRequestMatches('POST', '/merchant/create-token', { name: 'Demo', symbol: 'DEMO1' });
  assert.throws(() => assertRequestMatches('POST', '/merchant/create-token', { name: 'Demo', symbol: 'DE-MO' }));
  assert.throws(() => assertRequestMatches('POST', '/merchant/create-token', { name: 'Demo', symbol: 'D', network: 'mainnet' }));
  assertRequestMatches('POST', '/admin/time/advance', { seconds: 31536000 });
  assert.throws(() => assertRequestMatches('POST', '/admin/time/advance', { seconds: 0 }));
});

// Optional: full OpenAPI 3.1 meta-validation when a validator happens to be installed.
const validatorModule = await import('@seriousme/openapi-schema-validator').catch(() => null);
test('document validates against the OpenAPI 3.1 schema', { skip: !validatorModule && '@seriousme/openapi-schema-validator not installed' }, async () => {
  const v = new validatorModule.Validator();
  const result = await v.validate(structuredClone(doc));
  assert.equal(v.version, '3.1');
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
});
