// worker-build's module, its Durable Object class made to derive from the runtime's
// DurableObject so that its stub offers RPC, as crates/worker/durable.mjs does for tokenpad's.
import { DurableObject } from 'cloudflare:workers';
import { Ledger } from './build/index.js';

Object.setPrototypeOf(Ledger.prototype, DurableObject.prototype);
Object.setPrototypeOf(Ledger, DurableObject);

export * from './build/index.js';
export { default } from './build/index.js';
