// The npm package as a user gets it: `npm pack pkg/`, installed into a fresh project, imported
// under Node (the nodejs build) as ESM and CommonJS, its client run over Node's fetch against a
// local stand-in of the service, the README's example run as written, and its TypeScript types
// checked with tsc (every model field named, nothing typed `any`).
// Needs pkg/ (scripts/build-pkg.sh) and the repo's node_modules (typescript).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PKG = path.join(ROOT, 'pkg');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const PUBLIC_KEY = 'pk_demo_consumer';

// What the service writes: exact decimals that JavaScript numbers cannot hold.
const HOLDER = `{"success":true,"id":"alice","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","totalValue":1285.185183,
"tokens":[{"id":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","name":"Demo Token","symbol":"DEMO","balance":1234.567890123456789012,"value":185.185183,"status":"active","type":"token"}],
"presales":[],
"locks":[{"id":"0x2222222222222222222222222222222222222222","address":"0x2222222222222222222222222222222222222222","name":"Star","symbol":"STAR","balance":250000000,"value":1100,"status":"locked","type":"lock","unlockDate":"2099-01-01T00:00:00.000Z"}]}`;
const PRESALE = `{"id":"p-1","name":"Moon launch","description":"The MOON presale","startTimestamp":1795262400,"endTimestamp":1795266000,"targetUsdcAmount":100,"purchasedUsdcAmount":100,"status":"completed","participants":[{"id":"bob","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","usdcAmount":100,"tokenPercentage":100}],"tokenInfo":{"name":"Moon","symbol":"MOON","imageUrl":"https://example.com/moon.png"}}`;

function fakeService() {
  return createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (!url.searchParams.get('publicKey')) {
      return send(401, '{"success":false,"message":"Public key not found","code":"public_key_not_found"}');
    }
    if (url.searchParams.get('publicKey') !== PUBLIC_KEY) {
      return send(401, '{"success":false,"message":"Invalid API key","code":"invalid_api_key"}');
    }
    if (url.pathname === '/holder/alice') return send(200, HOLDER);
    if (url.pathname === '/token/presales/p-1') return send(200, PRESALE);
    if (url.pathname.startsWith('/holder/')) {
      return send(404, `{"success":false,"message":"No holder with id ${url.pathname.slice(8)}","code":"holder_not_found"}`);
    }
    return send(404, '{"success":false,"message":"No route","code":"not_found"}');
  });
}

/** The code block right after `<!-- example: tests/consumer -->` in README.md. */
function readmeExample() {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const m = readme.match(/<!-- example: tests\/consumer -->\s*```js\n([\s\S]*?)```/);
  assert.ok(m, 'README.md has no code block marked <!-- example: tests/consumer -->');
  return m[1];
}

describe('@tokenpad/client installed from its tarball', { timeout: 180_000 }, () => {
  let dir;
  let app;
  let server;
  let baseUrl;
  const node = async (file, env = {}) => {
    const { stdout } = await run(process.execPath, [file], { cwd: app, env: { ...process.env, ...env }, timeout: 30_000 });
    return stdout;
  };

  before(async () => {
    assert.ok(existsSync(path.join(PKG, 'package.json')), 'pkg/ is not built: run scripts/build-pkg.sh');
    dir = await mkdtemp(path.join(tmpdir(), 'tokenpad-consumer-'));
    await run('npm', ['pack', PKG, '--pack-destination', dir, '--silent'], { cwd: dir });
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack made no tarball');
    app = path.join(dir, 'app');
    await run('mkdir', ['-p', app]);
    await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', path.join(dir, tarball), '--no-audit', '--no-fund', '--ignore-scripts', '--silent'], { cwd: app });
    server = fakeService();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${server.address().port}`;
  });

  after(async () => {
    server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('it is a real copy with the three builds and the types', () => {
    const installed = path.join(app, 'node_modules', '@tokenpad', 'client');
    assert.ok(!lstatSync(installed).isSymbolicLink(), 'installed as a link, not a copy');
    for (const f of ['web/index.js', 'web/tokenpad_bg.wasm', 'web/tokenpad.d.ts', 'bundler/tokenpad.js', 'node/tokenpad.js', 'node/tokenpad_bg.wasm', 'README.md']) {
      assert.ok(existsSync(path.join(installed, f)), `${f} missing from the package`);
    }
    const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(pkg.name, '@tokenpad/client');
    for (const condition of ['node', 'browser', 'import', 'default']) {
      assert.ok(pkg.exports['.'][condition]?.types, `exports["."].${condition} has no types`);
    }
  });

  test('ESM and CommonJS imports under Node, pure functions', async () => {
    await writeFile(path.join(app, 'esm.mjs'), `
      import { formatAmount, formatUnits, countdown, holderPortfolio, isTokenpadError, TokenpadClient } from '@tokenpad/client';
      let refused;
      try { new TokenpadClient({ baseUrl: 'https://api.example.com', publicKey: 'sk_live_secret' }); } catch (e) { refused = [e.code, isTokenpadError(e)]; }
      console.log(JSON.stringify({
        big: formatAmount('123456789012345678901.5', { locale: 'en-US' }),
        de: formatAmount('1234567.891', { locale: 'de-DE', maximumFractionDigits: 2 }),
        units: formatUnits('1500000', 6),
        label: countdown(90061000, 0).label,
        total: holderPortfolio(JSON.parse(process.env.HOLDER), 0, { locale: 'en-US' }).totalValueFormatted,
        refused,
      }));
    `);
    const esm = JSON.parse(await node('esm.mjs', { HOLDER }));
    assert.deepEqual(esm, {
      big: '123,456,789,012,345,678,901.5',
      de: '1.234.567,89',
      units: '1.5',
      label: '1d 1h 1m 1s',
      total: '1,285.19',
      refused: ['secret_key_refused', true],
    });
    await writeFile(path.join(app, 'cjs.cjs'), `
      const { formatUnits } = require('@tokenpad/client');
      console.log(formatUnits('1', 18));
    `);
    assert.equal((await node('cjs.cjs')).trim(), '0.000000000000000001');
  });

  test('the client reads over real fetch, exactly, with the service\'s errors', async () => {
    await writeFile(path.join(app, 'client.mjs'), `
      import { TokenpadClient } from '@tokenpad/client';
      const client = new TokenpadClient({ baseUrl: process.env.BASE_URL, publicKey: process.env.KEY });
      const holder = await client.getHolder('alice');
      const errors = [];
      for (const [key, user] of [[process.env.KEY, 'nobody'], [undefined, 'alice'], ['pk_wrong', 'alice']]) {
        try { await new TokenpadClient({ baseUrl: process.env.BASE_URL, publicKey: key }).getHolder(user); }
        catch (e) { errors.push([e.code, e.status, e.message]); }
      }
      try { await new TokenpadClient({ baseUrl: 'http://127.0.0.1:9', publicKey: 'pk_x' }).getHolder('a'); }
      catch (e) { errors.push([e.code, e.status]); }
      console.log(JSON.stringify({ balance: holder.tokens[0].balance, unlockDate: holder.locks[0].unlockDate, errors }));
    `);
    const out = JSON.parse(await node('client.mjs', { BASE_URL: baseUrl, KEY: PUBLIC_KEY }));
    assert.equal(out.balance, '1234.567890123456789012');
    assert.equal(out.unlockDate, '2099-01-01T00:00:00.000Z');
    assert.deepEqual(out.errors, [
      ['holder_not_found', 404, 'No holder with id nobody'],
      ['public_key_not_found', 401, 'Public key not found'],
      ['invalid_api_key', 401, 'Invalid API key'],
      ['network_error', 0],
    ]);
  });

  test('the README example runs as written', async () => {
    const code = readmeExample()
      .replaceAll('http://127.0.0.1:8787', baseUrl)
      .replaceAll("'pk_...'", `'${PUBLIC_KEY}'`)
      .replaceAll("'PRESALE_ID'", "'p-1'");
    await writeFile(path.join(app, 'readme-example.mjs'), code);
    const out = await node('readme-example.mjs');
    assert.match(out, /Total \$1,285\.19/);
    assert.match(out, /token: 1,234\.56789 DEMO/);
    assert.match(out, /lock: 250,000,000 STAR unlocks in \d+d/);
    assert.match(out, /holder_not_found 404 No holder with id nobody/);
    assert.match(out, /Completed: 100\.00 of 100\.00 USDC \(100%\), Ended/);
  });

  test('the TypeScript types name every field and type nothing as any', async () => {
    const installed = path.join(app, 'node_modules', '@tokenpad', 'client');
    const dts = readFileSync(path.join(installed, 'web', 'tokenpad.d.ts'), 'utf8');
    // Every property of the service's shapes (openapi.json) is declared on the interface.
    const schemas = JSON.parse(readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')).components.schemas;
    const props = (s) => Object.keys(s.properties ?? {}).concat(...(s.allOf ?? []).map(props));
    const shapes = {
      Token: 'Token', TokenHolder: 'TokenHolder', HolderFull: 'HolderFull', TokenItem: 'TokenItem',
      LockItem: 'LockItem', PresaleItem: 'PresaleItem', TokenBalance: 'TokenBalance', Presale: 'Presale',
      PresaleParticipant: 'PresaleParticipant', PresaleTokenInfo: 'PresaleTokenInfo', PresaleMerchant: 'PresaleMerchant',
    };
    for (const [schema, iface] of Object.entries(shapes)) {
      assert.ok(schemas[schema], `openapi.json has no ${schema}`);
      const m = dts.match(new RegExp(`export interface ${iface}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`));
      assert.ok(m, `no interface ${iface} in the .d.ts`);
      for (const p of props(schemas[schema])) {
        assert.match(m[1], new RegExp(`\\n\\s+${p}\\??:`), `${iface} does not declare ${p}`);
      }
    }
    // The public API and its shapes never say `any` (wasm-bindgen's own InitOutput may).
    const publicPart = dts
      .replace(/export interface InitOutput \{[\s\S]*?\n\}/, '')
      .replace(/\/\*[\s\S]*?\*\//g, '') // comments may say "any"
      .replace(/\/\/.*$/gm, '');
    assert.doesNotMatch(publicPart, /\bany\b(?![-\w])/, 'the public types mention any');

    // And a strict consumer compiles, under both bundler and Node resolution.
    await writeFile(path.join(app, 'consumer.ts'), `
      import { TokenpadClient, holderPortfolio, presaleProgress, tokenSupply, formatAmount, isTokenpadError } from '@tokenpad/client';
      import type { Token, HolderFull, TokenBalance, Presale, Portfolio, PresaleProgress, TokenSupply, Countdown, TokenpadError, Decimal } from '@tokenpad/client';

      type NotAny<T> = 0 extends (1 & T) ? 'any' : 'ok';
      type FieldsNotAny<T> = { [K in keyof T]-?: NotAny<T[K]> }[keyof T];
      type Ok<T extends 'ok'> = T;
      export type Checks = [
        Ok<FieldsNotAny<Token>>, Ok<FieldsNotAny<HolderFull>>, Ok<FieldsNotAny<TokenBalance>>, Ok<FieldsNotAny<Presale>>,
        Ok<FieldsNotAny<Portfolio>>, Ok<FieldsNotAny<Portfolio['rows'][number]>>, Ok<FieldsNotAny<PresaleProgress>>,
        Ok<FieldsNotAny<TokenSupply>>, Ok<FieldsNotAny<Countdown>>, Ok<FieldsNotAny<HolderFull['locks'][number]>>,
        Ok<NotAny<Awaited<ReturnType<TokenpadClient['getToken']>>>>,
      ];

      const client = new TokenpadClient({ baseUrl: 'https://api.example.com', publicKey: 'pk_x', timeoutMs: 5000 });
      export async function show(): Promise<string> {
        const token: Token = await client.getToken('0x1');
        const holder: HolderFull = await client.getHolder('alice');
        const balance: TokenBalance = await client.getHolderTokenBalance('alice', token.address);
        const presale: Presale = await client.getPresale('p-1');
        const wallet: Portfolio = holderPortfolio(holder, Date.now(), { locale: 'en-US', roundingMode: 'trunc' });
        const progress: PresaleProgress = presaleProgress(presale);
        const supply: TokenSupply = tokenSupply(token, { maximumFractionDigits: 2 });
        const unlock: number | null = wallet.rows[0]?.unlockAtMs ?? null;
        const exact: Decimal = balance.balance;
        const watch = client.watchPresale(presale.id, (p: Presale | null, e: TokenpadError | null) => {
          if (e) console.log(e.code, e.status);
          else if (p) console.log(p.purchasedUsdcAmount);
        }, 3000);
        watch.stop();
        try {
          await client.getHolder('nobody');
        } catch (err) {
          if (isTokenpadError(err)) return err.code;
        }
        return [progress.statusLabel, supply.distributedFormatted, formatAmount(exact), String(unlock), token.holders[0]?.balance].join();
      }
    `);
    const base = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', lib: ['es2022', 'dom'], types: [] };
    for (const [name, extra] of [
      ['tsconfig.bundler.json', { module: 'esnext', moduleResolution: 'bundler' }],
      ['tsconfig.node.json', { module: 'node16', moduleResolution: 'node16' }],
    ]) {
      await writeFile(path.join(app, name), JSON.stringify({ compilerOptions: { ...base, ...extra }, files: ['consumer.ts'] }));
      try {
        await run(process.execPath, [TSC, '-p', name], { cwd: app });
      } catch (e) {
        assert.fail(`tsc -p ${name} failed:\n${e.stdout}${e.stderr}`);
      }
    }
  });
});
