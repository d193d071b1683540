// The ledger Worker's entry (ledger/wrangler.toml `main`): the merchants' Durable Objects, the
// relays and the registry, built with `--features ledger` (scripts/build-worker.sh) into
// build-ledger/, each deriving from the runtime's DurableObject (../durable.mjs says why).
// The front Worker (../wrangler.toml, ../entry.mjs) binds them by `script_name`.
import { asDurableObjects } from '../durable.mjs';
import { MerchantObject, RegistryObject, RelayObject } from '../build-ledger/index.js';

asDurableObjects(MerchantObject, RegistryObject, RelayObject);

export * from '../build-ledger/index.js';
export { default } from '../build-ledger/index.js';
