// The harness's own checks, which every other test here leans on: `api` refuses an answer
// that names one key twice in an object (the worker writes answers straight from their wire
// types, where a flattened field could repeat its parent's name; JSON.parse would keep the
// last silently). And a worker started on a port another process took is never mistaken for it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { api, repeatedKey, startWorker } from './harness.mjs';

test('repeatedKey finds a key named twice in one object, and only that', () => {
  const cases = [
    ['{"a":1,"b":{"a":2},"a":3}', 'a'],
    ['{"a":{"x":1},"b":{"x":2}}', null],
    ['[{"k":"a\\"b","k":1}]', 'k'],
    ['{"s":"x:\\\\","t":["s","s"]}', null],
    ['{"a" : 1, "a" : 2}', 'a'],
    ['{"settlement":{"chainStatus":"pending"},"chainStatus":"pending"}', null],
    ['{"transactionHash":null,"chainStatus":"confirmed","id":"t1","chainStatus":"pending"}', 'chainStatus'],
  ];
  for (const [text, want] of cases) assert.equal(repeatedKey(text), want, text);
});

test('a start whose port another process answers on is tried again on a fresh port', async () => {
  // A stranger answering every request 404 with an empty body, as one CI run saw: the port
  // freePort found was taken before wrangler could bind it.
  const stranger = createServer((req, res) => res.writeHead(404).end());
  await new Promise((resolve) => stranger.listen(0, '127.0.0.1', resolve));
  const taken = stranger.address().port;
  let w;
  try {
    w = await startWorker({ port: taken, assets: false });
    assert.notEqual(new URL(w.baseUrl).port, String(taken));
    const health = await api(w.baseUrl, 'GET', '/health');
    assert.equal(health.status, 200);
    assert.equal(health.json.ok, true);
  } finally {
    await w?.stop();
    stranger.close();
  }
});
