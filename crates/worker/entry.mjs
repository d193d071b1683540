// The Worker's entry (wrangler.toml `main`): worker-build's module, with its Durable Object
// classes made to derive from the runtime's DurableObject. The runtime offers RPC on a Durable
// Object stub only for such classes, and the edge calls the merchant's object by RPC
// (src/objects/merchant/rpc.rs), and the merchant's object calls its relays by RPC
// (src/objects/live/relay.rs); worker-build 0.8.7 sets this up only for emscripten builds.
import { DurableObject } from 'cloudflare:workers';
import { AccountObject } from './build/index.js';

for (const cls of [AccountObject]) {
  Object.setPrototypeOf(cls.prototype, DurableObject.prototype);
  Object.setPrototypeOf(cls, DurableObject);
}

export * from './build/index.js';
export { default } from './build/index.js';
