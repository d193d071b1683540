// The front Worker's entry (wrangler.toml `main`): worker-build's module of the `front` build,
// with its Durable Object class (the accounts') deriving from the runtime's DurableObject
// (durable.mjs says why).
import { asDurableObjects } from './durable.mjs';
import { AccountObject } from './build/index.js';

asDurableObjects(AccountObject);

export * from './build/index.js';
export { default } from './build/index.js';
