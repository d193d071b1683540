// The ledger Worker's entry (ledger.wrangler.toml `main`): the merchants' Durable Objects, the
// relays and the registry, built with `--features ledger` (scripts/build-worker.sh) into
// build-ledger/. The front Worker (wrangler.toml, entry.mjs) binds them by `script_name`.
// Each class is made to derive from the runtime's DurableObject: the runtime offers RPC on a
// Durable Object stub only for such classes, and the front calls the merchant's object by RPC
// (src/objects/merchant/rpc.rs), the merchant's object its relays (src/objects/live/relay.rs);
// worker-build 0.8.7 sets this up only for emscripten builds.
import { DurableObject } from 'cloudflare:workers';
import { MerchantObject, RegistryObject, RelayObject } from '../build-ledger/index.js';

for (const cls of [MerchantObject, RegistryObject, RelayObject]) {
  Object.setPrototypeOf(cls.prototype, DurableObject.prototype);
  Object.setPrototypeOf(cls, DurableObject);
}

export * from '../build-ledger/index.js';
export { default } from '../build-ledger/index.js';
