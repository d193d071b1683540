// Makes worker-build's Durable Object classes derive from the runtime's DurableObject, for
// both Workers' entries (entry.mjs, ledger/entry.mjs). The runtime offers RPC on a Durable
// Object stub only for such classes: the front calls the merchant's object by RPC
// (src/objects/merchant/rpc.rs), and the merchant's object calls its relays by RPC
// (src/objects/live/relay.rs). worker-build 0.8.7 sets this up only for emscripten builds.
import { DurableObject } from 'cloudflare:workers';

export function asDurableObjects(...classes) {
  for (const cls of classes) {
    Object.setPrototypeOf(cls.prototype, DurableObject.prototype);
    Object.setPrototypeOf(cls, DurableObject);
  }
}
