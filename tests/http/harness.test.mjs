// The harness's own checks, which every other test here leans on: `api` refuses an answer
// that names one key twice in an object (the worker writes answers straight from their wire
// types, where a flattened field could repeat its parent's name; JSON.parse would keep the
// last silently).
import test from 'node:test';
import assert from 'node:assert/strict';
import { repeatedKey } from './harness.mjs';

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
