// @tokenpad/client/react rendered on the server (react-dom/server), in apps with their own
// copies of React (installed from packed tarballs, as from the registry, never links to this
// checkout), with @tokenpad/client installed each way a newcomer installs it:
//   - from its tarball (what the registry serves), and by path as a copy (--install-links):
//     the hooks use the app's React; initialData renders on the server; CommonJS too;
//   - by path as npm links it by default: the package resolves react from this checkout, a
//     second React; the hooks say so, naming the fixes (docs/package.md leads with what works).
// tests/browser/react.test.mjs runs the same hooks in Chromium (hydration, refetch, mutations).
import assert from 'node:assert/strict';
import { lstatSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { installApp, node } from './pack.mjs';

const PEERS = ['react', 'react-dom', 'scheduler'];
const HOLDER = { success: true, id: 'alice', address: '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', totalValue: '1.5',
  tokens: [{ id: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', name: 'Demo',
    symbol: 'DEMO', balance: '1234.567890123456789012', value: '1.5', status: 'active', type: 'token' }], presales: [], locks: [] };

// A page rendered on the server: one component per hook, the holder with initialData (what the
// server read), the token without (loading), a mutation helper idle, an idle hook (null id).
const SSR = `
  import { createElement as h } from 'react';
  import { renderToString } from 'react-dom/server';
  import { TokenpadClient } from '@tokenpad/client';
  import { TokenpadProvider, useHolder, useToken, usePresale, useBuyPresale } from '@tokenpad/client/react';
  // Nothing listens here: the server render must not read (or it would fail, and hang).
  const client = new TokenpadClient({ baseUrl: 'http://127.0.0.1:9', publicKey: 'pk_x', retries: 0 });
  const initialData = JSON.parse(process.env.HOLDER);
  function Wallet() {
    const { data, loading, error, live, refetch } = useHolder('alice', { initialData });
    return h('p', { id: 'wallet' }, loading ? 'loading' : data.tokens.map((t) => t.balance + ' ' + t.symbol).join(), ' ', String(live), typeof refetch, String(error));
  }
  function Token() {
    const { data, loading } = useToken('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    return h('p', { id: 'token' }, loading ? 'loading' : data.symbol);
  }
  function Idle() {
    const { loading, data } = usePresale(null);
    return h('p', { id: 'idle' }, String(loading), String(data));
  }
  function Buy() {
    const { pending, data, error, mutate } = useBuyPresale();
    return h('button', { id: 'buy' }, String(pending), String(data), String(error), typeof mutate);
  }
  const html = renderToString(h(TokenpadProvider, { client }, h(Wallet), h(Token), h(Idle), h(Buy)));
  console.log(html);
`;

for (const how of ['tarball', 'copy']) {
  describe(`the React hooks on the server, @tokenpad/client installed ${how === 'tarball' ? 'from its tarball' : 'by path (--install-links)'}`, { timeout: 180_000 }, () => {
    let app;
    before(async () => {
      app = await installApp({ how, peers: PEERS });
    });
    after(async () => {
      await app?.cleanup();
    });

    test('a copy in the app, React resolved from the app', () => {
      assert.ok(!lstatSync(app.installed).isSymbolicLink(), 'installed as a link');
      assert.ok(realpathSync(app.installed).startsWith(realpathSync(app.app)), 'the package is outside the app');
      assert.ok(!lstatSync(path.join(app.app, 'node_modules', 'react')).isSymbolicLink(), 'React is a link');
    });

    test('renderToString: initialData on the server, loading without it; CommonJS too', async () => {
      await writeFile(path.join(app.app, 'ssr.mjs'), SSR);
      const html = await node(app.app, 'ssr.mjs', { HOLDER: JSON.stringify(HOLDER) });
      assert.match(html, /<p id="wallet">1234\.567890123456789012 DEMO<!-- --> <!-- -->false<!-- -->function<!-- -->null<\/p>/);
      assert.match(html, /<p id="token">loading<\/p>/);
      assert.match(html, /<p id="idle">false<!-- -->null<\/p>/);
      assert.match(html, /<button id="buy">false<!-- -->null<!-- -->null<!-- -->function<\/button>/);
      await writeFile(path.join(app.app, 'ssr.cjs'), `
        const { createElement: h } = require('react');
        const { renderToString } = require('react-dom/server');
        const { TokenpadClient } = require('@tokenpad/client');
        const { TokenpadProvider, useHolder } = require('@tokenpad/client/react');
        const client = new TokenpadClient({ baseUrl: 'http://127.0.0.1:9', publicKey: 'pk_x' });
        function W() { const { data } = useHolder('alice', { initialData: JSON.parse(process.env.HOLDER) }); return h('i', null, data.id); }
        console.log(renderToString(h(TokenpadProvider, { client }, h(W))));
      `);
      assert.equal((await node(app.app, 'ssr.cjs', { HOLDER: JSON.stringify(HOLDER) })).trim(), '<i>alice</i>');
    });
  });
}

describe('@tokenpad/client installed by path as npm links it by default', { timeout: 180_000 }, () => {
  let app;
  before(async () => {
    app = await installApp({ how: 'link', peers: PEERS });
  });
  after(async () => {
    await app?.cleanup();
  });

  test('a second React (the checkout\'s): the hooks say what happened and how to install instead', async () => {
    assert.ok(lstatSync(app.installed).isSymbolicLink(), 'npm did not link the folder');
    await writeFile(path.join(app.app, 'ssr.mjs'), SSR);
    await assert.rejects(node(app.app, 'ssr.mjs', { HOLDER: JSON.stringify(HOLDER) }),
      /another copy of React[\s\S]*npm install --install-links <folder>[\s\S]*resolve\.dedupe/);
  });
});
